"""Golden lines for Intel Gaudi, second sweep (signatures-gaudi.toml): SynapseAI's statuses in the
PyTorch bridge's newer "synStatus N [text]" form, the bridge's device allocator, graph node
creation, compile and launch failures; the PyTorch HCCL process group and HCL, Habana's collective
library; and the habanalabs kernel driver's CS timeouts, EQ heartbeat, reset stops, ECC and HBM
events, and the processes it kills to reset a device.

Each line is a real one from the public thread or page cited beside it (or, where marked, rendered
from the emitter's format string) and goes through the scanner's own matcher. Blame is pinned to
what the emitter means: device-memory exhaustion and inputs the runtime rejects are the job's; a
critical ECC or HBM error and a reset the driver gives up on are the node's and decide alone; a
heartbeat missed, a re-init that fails and a NIC port down are the node's but weak; a CS timeout,
a driver timeout and a failed collective call are collective complaints; restatements of a device
reset, a failed launch and the processes the driver kills are symptoms below them. Look-alikes
(healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG, family
from domain.golden import (
    CATALOG,
    assert_no_match,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-gaudi.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "habana.devmem_oom": Blame.APPLICATION,
    "habana.status_out_of_memory": Blame.APPLICATION,
    "habana.status_device_reset": Blame.SYMPTOM,
    "habana.status_driver_timeout": Blame.SYMPTOM,
    "habana.status_invalid_input": Blame.APPLICATION,
    "habana.node_create_failed": Blame.APPLICATION,
    "habana.syn_compile_failed": Blame.APPLICATION,
    "habana.launch_failed": Blame.SYMPTOM,
    "gaudicoll.collective_call_error": Blame.SYMPTOM,
    "gaudicoll.comm_init_error": Blame.SYMPTOM,
    "gaudicoll.coordinator_timeout": Blame.SYMPTOM,
    "gaudicoll.handshake_failed": Blame.SYMPTOM,
    "gaudicoll.nic_down": Blame.HARDWARE,
    "habana.cs_timeout": Blame.SYMPTOM,
    "habana.eq_heartbeat_missed": Blame.HARDWARE,
    "habana.reset_aborted": Blame.HARDWARE,
    "habana.reset_blocked": Blame.HARDWARE,
    "habana.reinit_after_reset_failed": Blame.HARDWARE,
    "habana.ecc_critical": Blame.HARDWARE,
    "habana.hbm_critical": Blame.HARDWARE,
    "habana.memory_error_corrected": Blame.INFO,
    "habana.killing_user_process": Blame.SYMPTOM,
    "habana.busy_after_close": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # mila-iqia/milabench issue #301 (reformer on HPU, lazy mode)
    (
        "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for "
        "size::268435456 (256)MB",
        "habana.devmem_oom",
        {"size": "268435456", "mb": "256"},
    ),
    (
        "\t* 1 x RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for "
        "size::268435456 (256)MB",
        "habana.devmem_oom",
        {"size": "268435456"},
    ),
    # HabanaAI/Model-References issue #10 (DL1, loss.backward(); the maintainers: reduce the batch)
    (
        "RuntimeError: FATAL ERROR :: MODULE:SYNHELPER workspace Allocation of size "
        "::14493510400 failed!",
        "habana.devmem_oom",
        {"workspace": "14493510400"},
    ),
    # rendered from gaudi-pytorch-bridge graph.cpp ("synLaunch failed. synStatus=") with
    # logging.cpp formatStatusMsg and SynapseAI's statusToString texts
    (
        "RuntimeError: synLaunch failed. synStatus=synStatus 4 [Out of Device memory (OOM)]. ",
        "habana.status_out_of_memory",
        {"status": "4"},
    ),
    (
        "RuntimeError: synLaunch failed. synStatus=synStatus 26 [Generic failure]. ",
        "habana.launch_failed",
        {"status": "26"},
    ),
    (
        "RuntimeError: Graph compile failed. synStatus=synStatus 14 [Failed to allocate Device "
        "memory]. ",
        "habana.status_out_of_memory",
        {"status": "14"},
    ),
    (
        "RuntimeError: synLaunch failed. synStatus=synStatus 17 [Device in reset]. ",
        "habana.status_device_reset",
        {"status": "17"},
    ),
    (
        "RuntimeError: synLaunch failed. synStatus=synStatus 31 [Synapse is being terminated due "
        "to fatality]. ",
        "habana.status_device_reset",
        {"status": "31"},
    ),
    (
        "RuntimeError: synLaunch failed. synStatus=synStatus 42 [Got timeout notification from "
        "Driver]. ",
        "habana.status_driver_timeout",
        {},
    ),
    # HabanaAI/gaudi-pytorch-bridge tests (a skip reason quoting the runtime's message)
    (
        "synNodeCreateWithId failed for node: broadcast with synStatus 1 [Invalid argument].",
        "habana.status_invalid_input",
        {"status": "1"},
    ),
    (
        "synNodeCreateWithId failed for node: broadcast with synStatus 1 [Invalid argument].",
        "habana.node_create_failed",
        {"node": "broadcast", "status": "1"},
    ),
    # hiyouga/LlamaFactory pull request #7275 (Gaudi2, SynapseAI 1.17 image)
    (
        "[rank2]: RuntimeError: synNodeCreateWithId failed for node: batch_gemm with synStatus 26 "
        "[Generic failure]. .",
        "habana.node_create_failed",
        {"node": "batch_gemm", "status": "26"},
    ),
    # huggingface/optimum-habana issue #1293 (stable-diffusion-2-1-base in BF16 on Gaudi2D)
    (
        "RuntimeError: synNodeCreateWithId failed for node: spatial_convolution with synStatus 26 "
        "[Generic failure].",
        "habana.node_create_failed",
        {"node": "spatial_convolution", "status": "26"},
    ),
    # docs.habana.ai "Troubleshooting PyTorch Model" (its runtime errors table)
    (
        "RuntimeError: FATAL ERROR :: MODULE:BRIDGE syn compile encountered : Graph compile "
        "failed. 26 compile time 5076188974 ns",
        "habana.syn_compile_failed",
        {"status": "26"},
    ),
    (
        "File /usr/local/lib/python 3.8/dist-packages/habana_frameworks/torch/core/step_closure.py"
        ", line 45, in mark_step htcore._mark_step(device_str) RuntimeError: FATAL ERROR :: "
        "MODULE:BRIDGE syn launch encountered : synLaunch failed. 26",
        "habana.launch_failed",
        {"status": "26"},
    ),
    # huggingface/optimum-habana issue #505 (multi-node training under Ray)
    (
        "(RayTrainWorker pid=19045) [2023-11-02 13:17:59,227 E 19045 21937] logging.cc:97: "
        "Unhandled exception: N3c105ErrorE. what(): Collective call returned error",
        "gaudicoll.collective_call_error",
        {"call": "Collective"},
    ),
    # rendered from process_group_hccl_base.cpp (TORCH_CHECK messages)
    ("RuntimeError: P2P call returned error", "gaudicoll.collective_call_error", {"call": "P2P"}),
    ("RuntimeError: Comm Init Rank Error", "gaudicoll.comm_init_error", {}),
    ("RuntimeError: Get HCCL UniqueId Error", "gaudicoll.comm_init_error", {}),
    # rendered from HCL hcl_tcp_utils.cpp and the comm handshake (HabanaAI/HCL)
    (
        "Connect to server ended with timeout. ip 10.10.1.5:9696",
        "gaudicoll.coordinator_timeout",
        {"ip": "10.10.1.5:9696"},
    ),
    ("Comm 0 Handshake1 with remote ranks failed", "gaudicoll.handshake_failed", {"comm": "0"}),
    (
        "Comm 3, failed to exchange QPs info with remote ranks",
        "gaudicoll.handshake_failed",
        {"comm": "3"},
    ),
    # rendered from HCL hcl_idevice.cpp in the VERIFY form of HabanaAI/hccl_demo issue #44
    (
        "/home/jenkins/workspace/cdsoftwarebuilder/create-binaries-from-sw-sources---bp-dt/repos/"
        "hcl/src/interfaces/hcl_idevice.cpp::497(allocateConnection): The condition [ "
        "isNicUp(port) ] failed. Nic(7) is DOWN, can't allocate connection",
        "gaudicoll.nic_down",
        {"port": "7"},
    ),
    # rendered from the habanalabs driver (drivers/accel/habanalabs): command_submission.c
    (
        "[ 9241.338402] habanalabs hl3: Collective Wait command submission 18432 has not finished "
        "in time!",
        "habana.cs_timeout",
        {"device": "hl3", "kind": "Collective Wait", "seq": "18432"},
    ),
    (
        "[ 9241.338402] habanalabs hl3: Command submission 18432 has not finished in time!",
        "habana.cs_timeout",
        {"device": "hl3", "seq": "18432"},
    ),
    # rendered from common/device.c
    (
        "[ 5120.771934] habanalabs hl5: EQ heartbeat event was not received!",
        "habana.eq_heartbeat_missed",
        {"device": "hl5"},
    ),
    (
        "[ 7388.102113] habanalabs hl2: 0000:4d:00.0 Consecutive fatal errors, stopping hard reset",
        "habana.reset_aborted",
        {"device": "hl2", "pci": "0000:4d:00.0"},
    ),
    (
        "habanalabs hl0: Cannot reset device, cpld is shutdown! Device is NOT usable",
        "habana.reset_aborted",
        {"device": "hl0"},
    ),
    (
        "[ 7411.560218] habanalabs hl6: 0000:b4:00.0 Failed to kill all open processes, stopping "
        "hard reset",
        "habana.reset_blocked",
        {"device": "hl6"},
    ),
    (
        "[ 7390.004417] habanalabs hl2: Failed to detect if device is alive after reset",
        "habana.reinit_after_reset_failed",
        {"device": "hl2"},
    ),
    (
        "[ 7390.004417] habanalabs hl2: 0000:4d:00.0 device is not idle after reset (mask 0x1)",
        "habana.reinit_after_reset_failed",
        {"device": "hl2"},
    ),
    (
        "[ 9241.512077] habanalabs hl3: Killing user process pid=48213",
        "habana.killing_user_process",
        {"device": "hl3", "pid": "48213"},
    ),
    (
        "[ 9242.900311] habanalabs hl3: 0000:4d:00.0 device is not idle after user context is "
        "closed (mask 0x1800000000)",
        "habana.busy_after_close",
        {"device": "hl3", "mask": "0x1800000000"},
    ),
    # rendered from gaudi2/gaudi2.c (the ECC event, both its 6.5 and 6.8+ wordings)
    (
        "[ 3307.215540] habanalabs hl1: ECC error detected. address: 0x1000f4a0. Syndrom: 0x3. "
        "block id 12. critical 1.",
        "habana.ecc_critical",
        {"address": "0x1000f4a0", "syndrome": "0x3"},
    ),
    (
        "habanalabs hl1: ECC error detected. address: 0x1000f4a0. Syndrome: 0x3. wrapper id 12. "
        "block id 0x4b. critical 1.",
        "habana.ecc_critical",
        {"address": "0x1000f4a0"},
    ),
    (
        "[ 3307.215540] habanalabs hl1: ECC error detected. address: 0x1000f4a0. Syndrom: 0x1. "
        "block id 12. critical 0.",
        "habana.memory_error_corrected",
        {},
    ),
    # rendered from gaudi2/gaudi2.c gaudi2_handle_hbm_mc_sei_err (its three wordings)
    (
        "[ 3307.215601] habanalabs hl1: System Critical Error Interrupt - HBM(2) MC(1) MC_CH(3) "
        "MC_PC(0). Error cause: HBM_SEI_READ_ERR",
        "habana.hbm_critical",
        {"hbm": "2", "mc": "1"},
    ),
    (
        "habanalabs hl1: System Error Interrupt - HBM(2) MC(1) MC_CH(3) MC_PC(0). Critical(1). "
        "Error cause: HBM_SEI_READ_ERR",
        "habana.hbm_critical",
        {"hbm_old": "2", "mc_old": "1"},
    ),
    (
        "habanalabs hl1: System Non-critical Error Interrupt - HBM(2) MC(1) MC_CH(3) MC_PC(0). "
        "Error cause: HBM_SEI_READ_ERR",
        "habana.memory_error_corrected",
        {"hbm": "2"},
    ),
]

# (key, look-alike line it must not match); "*": no signature of the family may match
NEGATIVE: list[tuple[str, str]] = [
    # the statuses' neighbours and the older '=' form other files read
    ("habana.status_out_of_memory", "synStatus 40 [Got failure from HCCL]. "),
    ("habana.status_out_of_memory", "RuntimeError: synStatus=4 [Out of Device memory (OOM)]."),
    ("habana.status_device_reset", "RuntimeError: synStatus=17 [Device in reset] Failed."),
    ("habana.status_invalid_input", "synStatus 14 [Failed to allocate Device memory]. "),
    ("habana.status_invalid_input", "synStatus 0 [Success]. "),
    ("habana.status_driver_timeout", "synStatus 4 [Out of Device memory (OOM)]. "),
    # the bridge's healthy allocator and compile debug lines
    ("habana.devmem_oom", "PT_SYNHELPER_DEBUG workspace Allocation of size is zero"),
    ("habana.launch_failed", "synLaunch succeeded"),
    # the driver's healthy bring-up and a completed reset (vllm-fork #2222; device.c)
    ("*", "[    1.234567] habanalabs 0000:29:00.0: Habana Labs Gaudi2E device detected"),
    ("*", "[    1.234890] habanalabs 0000:29:00.0: Driver version: 1.23.0-2eae87a"),
    ("*", "habanalabs hl0: Successfully added device 0000:4d:00.0 to habanalabs driver"),
    ("*", "habanalabs hl0: Found GAUDI2 device with 96GB DRAM"),
    ("*", "habanalabs hl0: Successfully finished resetting the 0000:4d:00.0 device"),
    ("habana.reset_aborted", "habanalabs hl0: Going to reset device"),
    ("habana.cs_timeout", "habanalabs hl0: Command submission 12 completed"),
    (
        "habana.ecc_critical",
        "habanalabs hl1: ECC error detected. address: 0x10. Syndrom: 0x1. block id 1. critical 0.",
    ),
    (
        "habana.hbm_critical",
        "habanalabs hl1: System Non-critical Error Interrupt - HBM(0) MC(0) MC_CH(0) MC_PC(0). "
        "Error cause: HBM_SEI_READ_ERR",
    ),
    # hl-smi's table on a healthy Gaudi2 (HabanaAI/vllm-fork #484)
    ("*", "|   0  HL-225              N/A  | 0000:33:00.0     N/A |                   0  |"),
    ("*", "| N/A   36C   N/A   105W / 600W |    768MiB / 98304MiB |     0%           N/A |"),
    ("*", "| Driver Version:                                     1.18.0-ee698fb          |"),
    # the collectives' healthy lines
    ("gaudicoll.collective_call_error", "Collective call returned success"),
    ("gaudicoll.nic_down", "Nic(7) is UP"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, [(k, line) for k, line in NEGATIVE if k != "*"], BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: frozenset({"habana", "gaudicoll"})}, BLAME)


@pytest.mark.parametrize("line", [line for k, line in NEGATIVE if k == "*"])
def test_healthy_line_reads_as_no_signature_of_the_family(line: str) -> None:
    assert_no_match("*", line, FAMILY)


def test_a_critical_memory_error_or_an_abandoned_reset_names_the_node() -> None:
    """What the device itself calls critical, and a reset the driver gives up on, decide alone;
    the corrected errors are routine and only watched."""
    for key in ("habana.ecc_critical", "habana.hbm_critical", "habana.reset_aborted"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and sig.weight >= STRONG, key
        assert sig.node_action.value in {"reset_gpu", "reboot"}, key
    corrected = CATALOG.signatures["habana.memory_error_corrected"]
    assert corrected.weight == 0 and corrected.node_action.value == "monitor"


def test_weak_device_lines_need_corroboration() -> None:
    """A missed heartbeat, a device that does not come back, a port down, a reset a stuck process
    blocked: the node's, but also a driver, a cable or a process; never decisive alone."""
    for key in (
        "habana.eq_heartbeat_missed",
        "habana.reinit_after_reset_failed",
        "gaudicoll.nic_down",
        "habana.reset_blocked",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and 0 < sig.weight < STRONG, key


def test_timeouts_are_collective_complaints_and_restatements_stay_below() -> None:
    """A CS timeout, a driver timeout, a failed collective call and an unreachable coordinator
    speak about a peer (COLLECTIVE); a device reset restated, a failed launch, a killed process
    are context below it. None acts on the node."""
    for key in (
        "habana.cs_timeout",
        "habana.status_driver_timeout",
        "gaudicoll.collective_call_error",
        "gaudicoll.coordinator_timeout",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM and sig.weight >= COLLECTIVE, key
        assert sig.node_action.value == "none", key
    for key in (
        "habana.launch_failed",
        "gaudicoll.comm_init_error",
        "gaudicoll.handshake_failed",
        "habana.killing_user_process",
        "habana.busy_after_close",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM and sig.weight < COLLECTIVE, key
        assert sig.node_action.value == "none", key


def test_a_launch_carrying_an_oom_status_is_the_jobs() -> None:
    """synLaunch's own line is a restatement; the out-of-memory status inside it decides."""
    line = "RuntimeError: synLaunch failed. synStatus=synStatus 4 [Out of Device memory (OOM)]. "
    found = hits(line)
    assert {"habana.launch_failed", "habana.status_out_of_memory"} <= set(found)
    assert max(CATALOG.signatures[k].weight for k in found) == 70


def test_the_old_status_form_is_left_to_the_first_sweep() -> None:
    """'synStatus=N [' is signatures-accelerators.toml's; this file reads the newer form only."""
    for line, key in (
        ("RuntimeError: synStatus=4 [Out of Device memory (OOM)] Memory allocation failed.",
         "habana.oom"),
        ("RuntimeError: synStatus=17 [Device in reset] Failed to launch the recipe.",
         "habana.device_reset"),
    ):  # fmt: skip
        found = set(hits(line))
        assert key in found
        assert not found & FAMILY, line


def test_driver_keys_speak_for_the_device_and_collective_keys_do_not() -> None:
    """`habana.` is the device family of the shape rules (shape.py); `gaudicoll.` is not."""
    assert family("habana.ecc_critical") == "device"
    assert family("gaudicoll.collective_call_error") != "device"
