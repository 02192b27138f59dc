"""Depth review of the node-side driver families (session 22): entries that read several codes
of one emitter alike, split where the emitter's own source says a code means something else. Each
new entry is pinned with a real line (or its emitter's format rendered, said so beside it), its
blame, weight and node action, the look-alikes it must leave alone, and the old entry that keeps
the codes it does not take.

- kernel.memory_failure_killed: mm/memory-failure.c kill_proc / kill_procs (and the x86 MCE and
  APEI GHES copies of the message): a process signalled or killed because this node's DRAM
  corrupted its page (kernel.memory_failure read it alike with a page merely taken out of use).
- nvrm.gsp_rpc_gpu_lost: rpc.c _issueRpcAndWait with NV_ERR_GPU_IS_LOST (0x0F) or
  NV_ERR_RESET_REQUIRED (0x62) from kernel_gsp.c's RPC sanity check (nvrm.gsp_rpc_failed read
  every status as a symptom).
- nvrm.fabric_manager_not_loaded: NV_ERR_FABRIC_MANAGER_NOT_PRESENT, the node's fabric manager
  service, split off nvrm.device_fault_status (hardware 70, reset_gpu), which is narrowed.
- ghes.fatal_panic, kernel.oom_panic: two panic reasons kernel.panic read alike (symptom 40):
  ghes.c __ghes_panic (firmware's fatal hardware error) and oom_kill.c check_panic_on_oom (the
  node out of memory with vm.panic_on_oom set).
- dcgm.health_cpu_power_limit: DcgmHealthWatch.cpp MonitorCpuPower's FAILURE (a Grace CPU at its
  power limit), and MonitorImex's (the IMEX service, dcgm.imex_unhealthy's), both left by the
  narrowed dcgm.health_failure (hardware 70, drain_and_reset).
- nvml.recovery_drain_p2p: nvidia-smi's "GPU Recovery Action : Drain P2P" (gpu.c's DRAIN_P2P,
  set while NVLink's bandwidth mode changes under P2P traffic), left by the narrowed
  nvml.recovery_action_required (hardware 70, reset_gpu).
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, Golden, found, golden_line_checks, hits

NEW: dict[str, Blame] = {
    "kernel.memory_failure_killed": Blame.HARDWARE,
    "nvrm.gsp_rpc_gpu_lost": Blame.HARDWARE,
    "nvrm.fabric_manager_not_loaded": Blame.HARDWARE,
    "ghes.fatal_panic": Blame.HARDWARE,
    "kernel.oom_panic": Blame.APPLICATION,
    "dcgm.health_cpu_power_limit": Blame.INFO,
    "nvml.recovery_drain_p2p": Blame.HARDWARE,
}

GOLDEN: Golden = [
    # quoted in Jane Chu's LKML patch "mm/memory-failure: clarify error message" (2019; the
    # kill_proc wording before Linux 5.4)
    (
        "[188988.765862] Memory failure: 0x1840200: Killing cellsrv:33395 due to hardware memory "
        "corruption",
        "kernel.memory_failure_killed",
        {"comm": "cellsrv", "pid": "33395"},
    ),
    # rendered from mm/memory-failure.c kill_proc's current format
    (
        "[ 5213.114310] Memory failure: 0xe16677: Sending SIGBUS to python:4711 due to hardware "
        "memory corruption",
        "kernel.memory_failure_killed",
        {"comm": "python", "pid": "4711"},
    ),
    # rendered from mm/memory-failure.c kill_procs (a page the kernel could not unmap)
    (
        "Memory failure: 0xe16677: forcibly killing pt_main_thread:4711 because of failure to "
        "unmap corrupted page",
        "kernel.memory_failure_killed",
        {"killed": "pt_main_thread", "killed_pid": "4711"},
    ),
    # rendered from arch/x86/kernel/cpu/mce/core.c kill_me_maybe (Linux 5.8-5.16)
    (
        "mce: Memory error may not recovered: 0x2b4c7: Sending SIGBUS to python:991 due to "
        "hardware memory corruption",
        "kernel.memory_failure_killed",
        {"comm": "python", "pid": "991"},
    ),
    # rendered from drivers/acpi/apei/ghes.c memory_failure_cb (no "Memory failure:" prefix)
    (
        "[ 8812.004171] 0x8a1f27: Sending SIGBUS to python3:20718 due to hardware memory corruption",
        "kernel.memory_failure_killed",
        {"comm": "python3", "pid": "20718"},
    ),
    # rendered from mm/memory-failure.c kill_proc_ao (Linux 3.x)
    (
        "MCE 0x2b4c7: Killing java:991 early due to hardware memory corruption",
        "kernel.memory_failure_killed",
        {"comm": "java", "pid": "991"},
    ),
    # Neroued/ninfer issue #12 (a hard crash; the GPU lost)
    (
        "Aug 10 22:40:59.883607 anthill kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage "
        "failed with status 0x0000000f for fn 10 sequence 790!",
        "nvrm.gsp_rpc_gpu_lost",
        {"status": "0x0000000f", "fn": "10"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #688 (a DGX Station A100 whose GPU fell off the bus)
    (
        "Feb 17 08:00:34 abggdna-DGX-Station-A100 kernel: NVRM: _issueRpcAndWait: rpcSendMessage "
        "failed with status 0x0000000f for fn 76!",
        "nvrm.gsp_rpc_gpu_lost",
        {"status": "0x0000000f", "fn": "76"},
    ),
    # rendered: GSP crashed (NV_ERR_RESET_REQUIRED), as drivers before the quiet prints logged it
    (
        "NVRM: GPU3 _issueRpcAndWait: rpcSendMessage failed with status 0x00000062 for fn 76!",
        "nvrm.gsp_rpc_gpu_lost",
        {"status": "0x00000062", "fn": "76"},
    ),
    # rendered from the RM assertion format with nvstatuscodes.h's text (no public line found)
    (
        "NVRM: nvAssertOkFailedNoLog: Assertion failed: Fabric Manager is not loaded "
        "[NV_ERR_FABRIC_MANAGER_NOT_PRESENT] (0x0000007A) returned from "
        "knvlinkCoreGetRemoteDeviceInfo(pGpu, pKernelNvlink)",
        "nvrm.fabric_manager_not_loaded",
        {},
    ),
    # Aili Yao on linux-edac, "Re: [PATCH v2] Dump cper error table in mce_panic" (2020-11-19; a
    # fatal DIMM error on a Lenovo SR650)
    (
        "[  995.167274] Kernel panic - not syncing: Fatal hardware error!",
        "ghes.fatal_panic",
        {},
    ),
    # Michal Hocko, "[RFC] panic_on_oom_timeout" on linux-mm (2015-06-09)
    (
        "[  905.503378] Kernel panic - not syncing: Out of memory: system-wide panic_on_oom is "
        "enabled",
        "kernel.oom_panic",
        {"mode": "system-wide"},
    ),
    # rendered: vm.panic_on_oom=2 (a cgroup's OOM panics the node too)
    (
        "[   81.234867] Kernel panic - not syncing: Out of memory: compulsory panic_on_oom is "
        "enabled",
        "kernel.oom_panic",
        {"mode": "compulsory"},
    ),
    # rendered from DcgmHealthWatch.cpp MonitorCpuPower through SetResponse (no public line found)
    (
        "nv-hostengine[77]: ERROR [77:79] [[Health]] Detected a FAILURE in health system Power: "
        "'Detected 512.4 DCGM_FI_DEV_CPU_POWER_WATTS for 7:0 which is above the threshold 500.0'",
        "dcgm.health_cpu_power_limit",
        {"watts": "512.4", "cpu": "0", "limit": "500.0"},
    ),
    # rendered from nvidia-smi -q's field (no public line with this value found)
    ("    GPU Recovery Action                   : Drain P2P", "nvml.recovery_drain_p2p", {}),
    ("GPU Recovery Action: Drain P2P", "nvml.recovery_drain_p2p", {}),
]

NEGATIVE: list[tuple[str, str]] = [
    # enarx/enarx issue #2263: a page taken out of use, no process signalled
    (
        "kernel.memory_failure_killed",
        "Memory failure: 0xe16677: recovery action for unknown page: Ignored",
    ),
    (
        "kernel.memory_failure_killed",
        "2019-08-19T04:18:38.274698-04:00 linux-dgwd kernel: [ 261.273240] Memory failure: "
        "0xe16677: already hardware poisoned",
    ),
    # x86 fault.c's wording is mce.memory_error_consumed's (a fault at a user address)
    (
        "kernel.memory_failure_killed",
        "Mar  9 19:48:24 defiant kernel: [77187.055103] MCE: Killing uffd-unit-tests:1321817 due "
        "to hardware memory corruption fault at 4631e000",
    ),
    # rendered: statuses that are not the device's stay with nvrm.gsp_rpc_failed
    (
        "nvrm.gsp_rpc_gpu_lost",
        "NVRM: GPU1 _issueRpcAndWait: rpcSendMessage failed with status 0x00000065 for fn 76!",
    ),
    (
        "nvrm.gsp_rpc_gpu_lost",
        "NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x00000011 for fn 10!",
    ),
    (
        "nvrm.gsp_rpc_gpu_lost",
        "NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x000000f0 for fn 10!",
    ),
    # NVIDIA/open-gpu-kernel-modules issue #1006: a reset required is still the device's
    (
        "nvrm.fabric_manager_not_loaded",
        "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] "
        "(0x00000062) returned from kchannelCtrlCmdResetIsolatedChannel",
    ),
    # rendered: the other panic reasons stay with kernel.panic
    ("ghes.fatal_panic", "Kernel panic - not syncing: Fatal exception in interrupt"),
    ("ghes.fatal_panic", "Kernel panic - not syncing: Fatal machine check"),
    ("kernel.oom_panic", "Kernel panic - not syncing: Out of memory and no killable processes..."),
    ("kernel.oom_panic", "Kernel panic - not syncing: System is deadlocked on memory"),
    # a CPU over its critical temperature stays dcgm.health_failure's (the node's cooling)
    (
        "dcgm.health_cpu_power_limit",
        "nv-hostengine[77]: ERROR [77:79] [[Health]] Detected a FAILURE in health system Thermal: "
        "'Detected 95.0 DCGM_FI_DEV_CPU_TEMP_CELSIUS for 7:0 which is above the threshold 90.0'",
    ),
    # utkuozdemir/nvidia_gpu_exporter issue #393: a reset is still a reset
    ("nvml.recovery_drain_p2p", "    GPU Recovery Action                   : Reset"),
    ("nvml.recovery_drain_p2p", "    GPU Recovery Action                   : Drain and Reset"),
    ("nvml.recovery_drain_p2p", "    GPU Recovery Action                   : None"),
    # an OOM kill is kernel.oom_kill's, not a panic
    (
        "kernel.oom_panic",
        "Out of memory: Killed process 4711 (python) total-vm:123456kB, anon-rss:120000kB",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, NEW)


@pytest.mark.parametrize("key", ["kernel.memory_failure_killed", "nvrm.gsp_rpc_gpu_lost"])
def test_a_device_failure_names_the_node(key: str) -> None:
    """A code that says this node's own device failed reaches the naming threshold (60) and acts
    on the node; each keeps its old entry's weaker reading beside it."""
    sig = CATALOG.signatures[key]
    assert sig.blame is Blame.HARDWARE
    assert 60 <= sig.weight <= 70, key
    assert sig.node_action.value != "none", key
    assert Source.SYSTEM in sig.sources, key


def test_a_fabric_manager_not_loaded_is_the_nodes_setup_not_its_gpu() -> None:
    """NV_ERR_FABRIC_MANAGER_NOT_PRESENT no longer reads as a device fault to reset the GPU for;
    the node is inspected, named only with corroboration; the device statuses stay at 70."""
    fm = next(line for line, key, _ in GOLDEN if key == "nvrm.fabric_manager_not_loaded")
    assert set(hits(fm)) & {"nvrm.device_fault_status"} == set()
    sig = CATALOG.signatures["nvrm.fabric_manager_not_loaded"]
    assert (sig.blame, sig.weight, sig.node_action.value) == (Blame.HARDWARE, 50, "inspect")
    reset = next(line for key, line in NEGATIVE if key == "nvrm.fabric_manager_not_loaded")
    assert ("nvrm.device_fault_status", Blame.HARDWARE, 70) in found(reset)
    for status in ("NVLINK_FABRIC_FAILURE", "FABRIC_STATE_OUT_OF_SYNC", "ECC_ERROR"):
        assert "nvrm.device_fault_status" in hits(f"Assertion failed: x [NV_ERR_{status}] (0x1)")


def test_the_old_entries_keep_the_codes_not_split_off() -> None:
    """The lumped entries still read what they read before, the split codes included (their
    weaker reading beside the new one)."""
    sigbus = GOLDEN[1][0]
    assert {"kernel.memory_failure", "kernel.memory_failure_killed"} <= set(hits(sigbus))
    assert "kernel.memory_failure" in hits(NEGATIVE[0][1])
    lost = GOLDEN[6][0]
    assert {"nvrm.gsp_rpc_failed", "nvrm.gsp_rpc_gpu_lost"} <= set(hits(lost))
    timeout = NEGATIVE[3][1]
    assert set(hits(timeout)) == {"nvrm.gsp_rpc_failed"}
    catalog = CATALOG.signatures
    assert catalog["nvrm.gsp_rpc_failed"].weight < 60 <= catalog["nvrm.gsp_rpc_gpu_lost"].weight
    assert (
        catalog["kernel.memory_failure"].weight
        < 60
        <= catalog["kernel.memory_failure_killed"].weight
    )


def test_a_panic_reads_by_its_reason() -> None:
    """A panic on firmware's fatal hardware error names the node; a panic on OOM is the job's
    memory and acts on no node; both keep kernel.panic beside them; other reasons only it."""
    ghes = "[  995.167274] Kernel panic - not syncing: Fatal hardware error!"
    assert {"ghes.fatal_panic", "kernel.panic"} <= set(hits(ghes))
    sig = CATALOG.signatures["ghes.fatal_panic"]
    assert (sig.blame, sig.node_action.value) == (Blame.HARDWARE, "inspect")
    assert sig.weight >= 60
    oom = CATALOG.signatures["kernel.oom_panic"]
    assert (oom.blame, oom.node_action.value) == (Blame.APPLICATION, "none")
    assert 50 <= oom.weight <= 60
    other = "Kernel panic - not syncing: hung_task: blocked tasks"
    assert set(hits(other)) == {"kernel.panic"}


def test_drain_p2p_is_no_reset_but_the_other_actions_still_are() -> None:
    drain = "    GPU Recovery Action                   : Drain P2P"
    assert set(hits(drain)) == {"nvml.recovery_drain_p2p"}
    sig = CATALOG.signatures["nvml.recovery_drain_p2p"]
    assert (sig.blame, sig.node_action.value) == (Blame.HARDWARE, "monitor")
    assert sig.weight < 60
    for action in ("Reset", "Reboot", "Drain and Reset"):
        line = f"    GPU Recovery Action                   : {action}"
        assert hits(line)["nvml.recovery_action_required"]["action"] == action


IMEX_LINES = [
    # rendered from DcgmHealthWatch.cpp MonitorImex through SetResponse
    "nv-hostengine[77]: ERROR [77:79] [[Health]] Detected a FAILURE in health system NVLink: "
    "'IMEX daemon status is 2 (not READY)'",
    "nv-hostengine[77]: ERROR [77:79] [[Health]] Detected a FAILURE in health system NVLink: "
    "'IMEX domain status is DEGRADED (unhealthy)'",
]


@pytest.mark.parametrize("line", IMEX_LINES)
def test_an_imex_service_not_ready_is_no_gpu_failure(line: str) -> None:
    """MonitorImex's FAILURE is the IMEX service or its domain: dcgm.imex_unhealthy's symptom,
    no longer dcgm.health_failure's drain_and_reset."""
    read = set(hits(line))
    assert "dcgm.health_failure" not in read
    assert "dcgm.imex_unhealthy" in read
    assert all(blame is not Blame.HARDWARE for _, blame, _ in found(line))


def test_a_cpu_at_its_power_limit_is_no_gpu_failure_but_device_failures_stay() -> None:
    power = next(line for line, key, _ in GOLDEN if key == "dcgm.health_cpu_power_limit")
    assert "dcgm.health_failure" not in hits(power)
    assert "dcgm.field_violation" not in hits(power)  # nor the field-violation reading (60)
    sig = CATALOG.signatures["dcgm.health_cpu_power_limit"]
    assert (sig.blame, sig.node_action.value) == (Blame.INFO, "monitor")
    # NVIDIA/DCGM issue #270 (the entry's own example) and an NVLink counter FAILURE stay
    for line in (
        "nv-hostengine[1514002]: ERROR [1514002:1514004] [[Health]] Detected a FAILURE in health "
        "system Memory: 'A double bit ECC error occurred on GPU 5.",
        "Detected a FAILURE in health system NVLink: 'Detected 3 nvlink_flit_crc_error_count_total "
        "NvLink errors on GPU 0's link 5 which exceeds threshold of 1'",
        "Detected a FAILURE in health system Power: 'Detected 512.4 DCGM_FI_DEV_POWER_USAGE for "
        "1:0 which is above the threshold 500.0'",
    ):
        assert hits(line)["dcgm.health_failure"]["system"] in {"Memory", "NVLink", "Power"}


def test_a_killed_process_reads_as_the_nodes_hardware_alone() -> None:
    """The SIGBUS line alone, as the node's syslog carries it, is hardware at 65 on this node."""
    line = GOLDEN[1][0]
    assert ("kernel.memory_failure_killed", Blame.HARDWARE, 65) in found(line, Source.SYSTEM)
