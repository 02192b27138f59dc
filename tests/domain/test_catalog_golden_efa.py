"""Golden lines for the AWS EFA stack (signatures-efa.toml): the AWS OFI NCCL plugin (NET/OFI),
libfabric's EFA provider and the EFA kernel driver. Each line is quoted from the public issue
named beside it."""

from __future__ import annotations

import io
import tomllib
from datetime import UTC, datetime
from importlib import resources

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, Source
from autorecover.domain.shape import family
from autorecover.parsing.scanning import Scanner
from domain.golden import scanned_blames as found

SCANNER = Scanner(builtin_catalog())
T0 = datetime(2026, 3, 4, tzinfo=UTC)
_DATA = resources.files("autorecover.domain") / "data" / "signatures-efa.toml"
EFA_KEYS = frozenset(tomllib.loads(_DATA.read_text(encoding="utf-8"))["signature"])


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # aws/aws-ofi-nccl issue #1020: /dev/infiniband not exposed to the container
        ("[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN "
         "NET/OFI OFI fi_getinfo() call failed: No data available", "efa.provider_not_found",
         Blame.APPLICATION),
        # aws/aws-ofi-nccl issue #889: libfabric finds no EFA device; the plugin gives up
        ("libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa "
         "output empty list", "efa.libfabric_no_efa", Blame.APPLICATION),
        ("  | 2025-05-16T16:39:55.218-07:00 | ip-10-36-29-253:86:2554 [0] "
         "nccl_net_ofi_create_plugin:335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed",
         "efa.plugin_init_failed", Blame.APPLICATION),
        ("ip-10-36-29-253:86:2554 [0] nccl_net_ofi_init:155 NCCL WARN NET/OFI Initializing "
         "plugin failed", "efa.plugin_init_failed", Blame.APPLICATION),
        ("ip-10-36-29-253:79:2547 [0] nccl_net_ofi_domain_get_ep:969 NCCL WARN NET/OFI Creating "
         "new endpoint for domain 0x7f876fa992c0 failed: Invalid argument",
         "efa.plugin_init_failed", Blame.APPLICATION),
        # aws/aws-ofi-nccl issues #24 and #22: the address vector could not be opened
        ("[1,23]<stdout>:ip-172-32-45-165:72593:73427 [7] create_nccl_ofi_component:459 NCCL "
         "WARN NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
         "efa.av_insert_failed", Blame.APPLICATION),
        ("WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: "
         "-22, ERROR: Invalid argument", "efa.av_insert_failed", Blame.APPLICATION),
        # aws/aws-ofi-nccl issue #663 (title): the security group blocked the peers
        ("NET/OFI Unable to insert remote address into address vector for device 1",
         "efa.av_insert_failed", Blame.APPLICATION),
        # aws/aws-ofi-nccl issue #584: NCCL 2.19+ against an EFA installer's Libfabric before 1.29
        ("ip-172-31-36-110:20492:21236 [4] register_mr_buffers:544 NCCL WARN NET/OFI Unable to "
         "register memory (type = 2) for device 0. RC: -22, Error: Invalid argument",
         "efa.mr_register_rejected", Blame.APPLICATION),
        # the same registration out of memory is the node's load or limit: not decided by itself
        ("NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -12, Error: "
         "Cannot allocate memory", "efa.mr_failed", Blame.APPLICATION),
        # aws/aws-ofi-nccl issue #161 (title): a completion error mid-run
        ("NCCL WARN NET/OFI Request completed with error. RC: 21. Error: unknown error",
         "efa.completion_error", Blame.SYMPTOM),
        # aws/aws-ofi-nccl issue #346: libfabric's own line, naming the peer instance
        ("libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, "
         "message: Invalid address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:"
         "1072483550 My host id: i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:"
         "fe44:425]:0:947699476 Peer host id: i-0ce6d3d57139f053c (7)", "efa.peer_unreachable",
         Blame.SYMPTOM),
    ],
)  # fmt: skip
def test_efa_lines(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


def test_a_registration_refused_as_invalid_decides_but_one_out_of_memory_does_not() -> None:
    einval = found("NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, "
                   "Error: Invalid argument")  # fmt: skip
    enomem = found("NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -12, "
                   "Error: Cannot allocate memory")  # fmt: skip
    assert "efa.mr_register_rejected" in einval and "efa.mr_register_rejected" not in enomem
    catalog = SCANNER.catalog.signatures
    assert catalog["efa.mr_register_rejected"].weight >= 50 > catalog["efa.mr_failed"].weight


def test_the_peer_is_kept_as_an_instance_not_an_address_attribution_maps() -> None:
    line = (
        "libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, "
        "message: Unreachable remote - never received a response My EFA addr: fi_addr_efa://"
        "[fe80::13:c2ff:fe6f:f03d]:0:1 My host id: i-0db7083f3fcbebb65 Peer EFA addr: "
        "fi_addr_efa://[fe80::b8:aff:fe44:425]:0:2 Peer host id: i-0ce6d3d57139f053c (15)"
    )
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n1", source=Source.LOGS,
                          reference=T0)  # fmt: skip
    (finding,) = [f for f in result.findings if f.signal == "efa.peer_unreachable"]
    assert finding.detail("peer_host") == "i-0ce6d3d57139f053c"
    assert finding.detail("peer") is None


def test_an_admin_queue_failure_of_the_device_is_hardware_but_out_of_resources_is_not() -> None:
    # aws/aws-ofi-nccl issue #22 (dmesg): ALLOC_PD out of memory (-12), the job's load
    oom = "[ 1632.420956] infiniband efa_0: Failed to process command ALLOC_PD (opcode 14) "
    oom += "comp_status 1 err -12"
    assert "efa.device_admin_failure" not in found(oom, Source.SYSTEM)
    timeout = "infiniband efa_0: Failed to process command CREATE_QP (opcode 1) comp_status 7 "
    timeout += "err -110"
    assert found(timeout, Source.SYSTEM).get("efa.device_admin_failure") is Blame.HARDWARE


@pytest.mark.parametrize(
    "line",
    [
        # aws/aws-ofi-nccl issue #161: a healthy start-up
        "algo-1:462:462 [0] NCCL INFO NET/OFI Selected Provider is efa",
        "algo-1:462:462 [0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.3.0aws",
        "libfabric:462:1673041636:efa:core:rxr_info_to_rxr():506<warn> FI_HMEM capability "
        "requires RDMA, which this device does not support.",
        # aws/aws-ofi-nccl issue #889: a warning that decides nothing
        "ip-10-36-29-253:79:2547 [0] platform_config_endpoint:626 NCCL WARN NET/OFI GDR disabled "
        "on GDR-supported instance type p4d.24xlarge",
        # ofiwg/libfabric issue #11256: fi_getinfo probing other providers is normal
        "libfabric:151205:1753871244::core:core:fi_getinfo_():1385<info> fi_getinfo: provider "
        "ofi_rxm returned -61 (No data available)",
        # aws/aws-ofi-nccl issue #22 (dmesg)
        "[ 1632.420957] infiniband efa_0: Failed to allocate pd[-12]",
        "[39435.060730] infiniband efa_0: IB device registered",
    ],
)
def test_efa_neighbours_do_not_match(line: str) -> None:
    assert not set(found(line)) & EFA_KEYS


def test_efa_keys_are_the_network_family() -> None:
    assert EFA_KEYS
    assert all(key.startswith("efa.") and family(key) == "network" for key in EFA_KEYS)
