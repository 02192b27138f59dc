"""Golden tests for DCGM's failure reasons (signatures-dcgm.toml).

DCGM prints its findings as the DCGM_FR_* codes' message formats (dcgmlib/dcgm_errors.h) and
ranks each code (dcgmlib/src/dcgm_errors.c): ISOLATE and RESET codes about the device name the
node, MONITOR codes are a warning that never names a node alone, and codes about the diagnostic
or the software around the GPU never act on a node. The EKS node monitoring agent's
`DCGMHealthCode<N>` reasons read through the same entries.
"""

from __future__ import annotations

import pytest

from autorecover.domain.attribution import attribute
from autorecover.domain.records import Blame, Cause, NodeAction, Source
from domain.golden import (
    CATALOG,
    SHAPE_NODES,
    assert_matches,
    assert_no_match,
    assert_no_node_action,
    family_keys,
    found,
    hits,
    shape_finding,
    shape_job,
    timeouts,
)

FAMILY_FILE = "signatures-dcgm.toml"
FAMILY_KEYS = family_keys(FAMILY_FILE)
SUSPECT = 60  # docs/attribution.md §3: nodes scoring 60 or more are suspects

# DCGM's priority (dcgm_errors.c) decides the blame of every entry.
ISOLATE = {
    "dcgm.volatile_dbe", "dcgm.cuda_dbe", "dcgm.dbe_violation", "dcgm.row_remap_failure",
    "dcgm.uncontained_error", "dcgm.dbe_pending_retirement", "dcgm.fallen_off_bus",
    "dcgm.recovery_reboot", "dcgm.recovery_reset", "dcgm.recovery_drain_reset",
    "dcgm.recovery_drain_p2p", "dcgm.nccl_error", "dcgm.pending_page_retirement",
    "dcgm.row_remap_pending", "dcgm.retired_pages_limit", "dcgm.row_remap_limit",
    "dcgm.faulty_memory", "dcgm.l1tag_miscompare", "dcgm.sram_threshold", "dcgm.sbe_violation",
    "dcgm.pcie_replay", "dcgm.nvlink_errors", "dcgm.broken_p2p", "dcgm.nvswitch_fatal",
    "dcgm.field_violation",
}  # fmt: skip
TRIAGE = {
    "dcgm.nvlink_down", "dcgm.nvlinks_not_up", "dcgm.pcie_link_degraded", "dcgm.corrupt_inforom",
    "dcgm.fabric_manager", "dcgm.nvlink_ber",
}  # fmt: skip
MONITOR = {
    "dcgm.volatile_sbe", "dcgm.thermal", "dcgm.power_clocks", "dcgm.nvswitch_nonfatal",
    "dcgm.field_threshold", "dcgm.performance_shortfall", "dcgm.fabric_probe_state",
    "dcgm.contained_error", "dcgm.nvlink_lifetime_counter",
}  # fmt: skip
SOFTWARE = {"dcgm.imex_unhealthy": Blame.SYMPTOM, "dcgm.gpu_access_failed": Blame.SYMPTOM,
            "dcgm.diagnostic_setup": Blame.INFO, "dcgm.xid_health_code": Blame.INFO}  # fmt: skip

REQUIRED: dict[str, Blame] = {
    **dict.fromkeys(ISOLATE | TRIAGE | MONITOR, Blame.HARDWARE),
    **SOFTWARE,
    "dcgm.xid": Blame.INFO,  # signatures-nvstack.toml: read through the XID catalog
}


def test_family_keys_are_new_and_pinned() -> None:
    assert set(REQUIRED) - {"dcgm.xid"} == FAMILY_KEYS
    for key in FAMILY_KEYS:
        assert key.startswith("dcgm."), key


@pytest.mark.parametrize(("key", "blame"), sorted(REQUIRED.items()))
def test_blame_follows_dcgm_priority(key: str, blame: Blame) -> None:
    assert CATALOG.signatures[key].blame is blame


RESET_CLASS = {NodeAction.RESET_GPU, NodeAction.REBOOT, NodeAction.DRAIN_AND_RESET}


@pytest.mark.parametrize("key", sorted(ISOLATE))
def test_isolate_codes_name_the_node(key: str) -> None:
    """DCGM isolates the GPU: the line alone makes its node a suspect."""
    assert CATALOG.signatures[key].weight >= SUSPECT


@pytest.mark.parametrize("key", sorted(TRIAGE | MONITOR))
def test_triage_and_monitor_codes_never_name_a_node_alone(key: str) -> None:
    assert CATALOG.signatures[key].weight < SUSPECT


@pytest.mark.parametrize("key", sorted(MONITOR))
def test_monitor_codes_only_monitor(key: str) -> None:
    assert CATALOG.signatures[key].node_action is NodeAction.MONITOR


def test_software_codes_never_act_on_a_node() -> None:
    assert_no_node_action(SOFTWARE)


@pytest.mark.parametrize(
    "key",
    ["dcgm.volatile_dbe", "dcgm.row_remap_failure", "dcgm.dbe_violation", "dcgm.fallen_off_bus",
     "dcgm.recovery_reboot", "dcgm.recovery_reset", "dcgm.uncontained_error"],
)  # fmt: skip
def test_memory_and_bus_faults_are_reset_or_reboot_class(key: str) -> None:
    """As XID 48 / 64 / 79 / 95: the GPU is reset or the node rebooted."""
    sig = CATALOG.signatures[key]
    assert sig.node_action in RESET_CLASS
    assert sig.weight >= 90


GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # NVIDIA/DCGM issue #49 (dcgmi diag -r 2, DCGM 2.4.6): every NvLink of a PCIe A100 "down"
    ("| Warning                   | GPU 0GPU 0's NvLink link 0 is currently down   |",
     "dcgm.nvlink_down", {"gpu": "0", "link": "0"}),
    # NVIDIA/DCGM issue #270 (nv-hostengine's health watch in the system log)
    ("Dec 22 09:41:46 hgx-d12 nv-hostengine[1514002]: ERROR [1514002:1514004] [[Health]] "
     "Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal "
     "violation in GPU 2. Verify that the cooling on this machine is functional",
     "dcgm.thermal", {"gpu": "2"}),
    # NVIDIA/go-dcgm issue #52 (dcgmi diag: a GPU busy or unavailable)
    ("| Info                      | GPU 0 API call cudaStreamCreate failed: 'CUDA  |",
     "dcgm.gpu_access_failed", {"api": "cudaStreamCreate"}),
    ("| Warning                   | GPU 0 Error using CUDA API cuCtxCreate Check   |",
     "dcgm.gpu_access_failed", {"cuda_api": "cuCtxCreate"}),
    # NVIDIA/aicr issue #2641 (NVSentinel's condition on an idle GB300 node)
    ("  GPU_UUID:GPU-bb3e1419-... IMEX daemon status is -3 (not READY)",
     "dcgm.imex_unhealthy", {"what": "daemon", "status": "-3"}),
    # NVIDIA/NVSentinel pull request #772 (preflight-dcgm-diag, error_code 29)
    ('"detail": "Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence '
     'mode by running \\"nvidia-smi -i <gpuId> -pm 1 \\" as root.",',
     "dcgm.diagnostic_setup", {}),
    # aws/eks-node-monitoring-agent pull request #63 (its e2e failure, DCGM_FR_IMEX_UNHEALTHY)
    ("node condition {Type:AcceleratedHardwareReady Status:False ... Reason:DCGMHealthCode122",
     "dcgm.imex_unhealthy", {"code": "122"}),
    # rendered from dcgm_errors.h (no public line found)
    ("Detected 2 volatile double-bit ECC error(s) in GPU 5.", "dcgm.volatile_dbe",
     {"count": "2", "gpu": "5"}),
    ("GPU 2 had uncorrectable memory errors and row remapping failed.", "dcgm.row_remap_failure",
     {"gpu": "2"}),
    ("GPU 4 has fallen off the bus", "dcgm.fallen_off_bus", {"gpu": "4"}),
    ("Detected 1 ecc_dbe_volatile_total for GPU 6", "dcgm.dbe_violation", {"gpu": "6"}),
    ("Detected 31 ecc_sbe_volatile_total for GPU 4 which is above the threshold 10",
     "dcgm.sbe_violation", {"gpu": "4"}),
    ("Detected 150 nvlink_crc_flit_error_count_total for GPU 1 which is above the threshold 100",
     "dcgm.field_threshold", {"gpu": "1"}),
    ("Detected 1 Fabric Health: Route Unhealthy for GPU 0", "dcgm.field_violation",
     {"field": "Fabric Health: Route Unhealthy", "gpu": "0"}),
    ("Detected 4 datalink layer CRC error counter NvLink errors on GPU 3's NVLink (should be 0)",
     "dcgm.nvlink_lifetime_counter", {"gpu": "3"}),
    ("Detected 7 Replay NvLink errors on GPU 3's NVLink (should be 0)", "dcgm.nvlink_errors",
     {"kind": "Replay", "gpu": "3"}),
    ("More than 10 single-bit ECC error(s) detected in GPU 3 Volatile SBEs: 10000",
     "dcgm.volatile_sbe", {"gpu": "3"}),
    ("Test pulse_test was skipped.", "dcgm.diagnostic_setup", {}),
    ("There was an internal error during the test: 'unable to read plugin results'",
     "dcgm.diagnostic_setup", {}),
]  # fmt: skip


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_golden_line(line: str, key: str, captures: dict[str, str]) -> None:
    assert_matches(key, line, captures)


@pytest.mark.parametrize(
    ("code", "key"),
    [(4, "dcgm.volatile_dbe"), (80, "dcgm.row_remap_failure"), (120, "dcgm.fallen_off_bus"),
     (5, "dcgm.volatile_sbe"), (10, "dcgm.thermal"), (71, "dcgm.nvlink_errors"),
     (44, "dcgm.diagnostic_setup"), (101, "dcgm.xid_health_code"), (81, "dcgm.uncontained_error")],
)  # fmt: skip
def test_eks_health_code_reads_through_the_table(code: int, key: str) -> None:
    """The agent's reason carries only the code; DCGM's table says what it means."""
    line = (f"node condition {{Type:AcceleratedHardwareReady Status:False Reason:DCGMHealthCode"
            f"{code} Message:DCGM detected issues in health check system with error code {code}}}")  # fmt: skip
    assert_matches(key, line, {"code": str(code)})
    assert {k for k in FAMILY_KEYS if k in hits(line)} == {key}


@pytest.mark.parametrize(
    ("key", "line"),
    [
        ("*", "Reason:DCGMHealthCode1000"),  # no such code
        ("dcgm.volatile_dbe", "Reason:DCGMHealthCode40"),  # 40 is a thermal violation, not 4
        ("dcgm.field_violation", "Detected XID 79 for GPU 0"),
        ("dcgm.field_violation", "Detected 1 ecc_dbe_volatile_total for GPU 6"),
        ("dcgm.field_violation", "Detected 3 nvlink_crc for GPU 1 which is above the threshold 2"),
        ("dcgm.nvlink_errors", "Detected 4 datalink layer CRC error counter NvLink errors on GPU 3's"
         " NVLink (should be 0)"),
        ("dcgm.fallen_off_bus", "NVRM: GPU at 0000:01:00.0 has fallen off the bus."),
    ],
)  # fmt: skip
def test_look_alikes_do_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)


def test_the_scan_reads_an_isolate_line_as_hardware() -> None:
    assert ("dcgm.row_remap_failure", Blame.HARDWARE, 95) in found(
        "GPU 2 had uncorrectable memory errors and row remapping failed.", Source.SYSTEM
    )


# --- what attribution makes of them ---------------------------------------------------------------

NODES = SHAPE_NODES


@pytest.mark.parametrize(
    "key", ["dcgm.row_remap_failure", "dcgm.volatile_dbe", "dcgm.fallen_off_bus"]
)
def test_an_isolate_device_code_names_its_node(key: str) -> None:
    v = attribute(
        shape_job(),
        [shape_finding(key, "n3", 69, Source.SYSTEM), *timeouts("nccl.watchdog_timeout", but="n3")],
        [],
        {},
    )
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",))


@pytest.mark.parametrize("key", sorted(MONITOR))
def test_a_monitor_code_alone_makes_no_suspect(key: str) -> None:
    v = attribute(shape_job(), [shape_finding(key, "n3", 69, Source.SYSTEM)], [], {})
    assert v.suspect_nodes == ()
    assert v.cause is not Cause.HARDWARE


@pytest.mark.parametrize("key", sorted(SOFTWARE))
def test_a_diagnostic_software_code_is_never_hardware(key: str) -> None:
    v = attribute(
        shape_job(),
        [shape_finding(key, "n3", 69, Source.SYSTEM), *timeouts("nccl.watchdog_timeout", but="n3")],
        [],
        {},
    )
    assert v.suspect_nodes == ()
    assert v.cause is not Cause.HARDWARE
