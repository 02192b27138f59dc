"""Golden tests for the kernel family (signatures-kernel.toml).

Real kernel lines from public issues (named beside each) must match the expected signature with
its captures: uncorrected machine checks and memory errors blame the node, corrected ones are a
trend, lockups, stalls and panics are consequences; look-alike lines (EDAC bookkeeping, AER
detail lines, healthy mlx5 ports) must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
)

FAMILY_FILE = "signatures-kernel.toml"
NAMESPACES = frozenset({"mce", "edac", "ghes", "kernel", "pcie", "nic"})

REQUIRED: dict[str, Blame] = {
    "kernel.boot": Blame.INFO,
    "kernel.shutdown": Blame.INFO,
    "mce.fatal": Blame.HARDWARE,
    "mce.logged": Blame.INFO,
    "edac.uncorrected": Blame.HARDWARE,
    "edac.corrected": Blame.INFO,
    "ghes.uncorrected": Blame.HARDWARE,
    "kernel.memory_failure": Blame.HARDWARE,
    "kernel.memory_failure_killed": Blame.HARDWARE,
    "kernel.oom_panic": Blame.APPLICATION,
    "ghes.fatal_panic": Blame.HARDWARE,
    "kernel.soft_lockup": Blame.SYMPTOM,
    "kernel.hard_lockup": Blame.HARDWARE,
    "kernel.rcu_stall": Blame.SYMPTOM,
    "kernel.panic": Blame.SYMPTOM,
    "kernel.nmi_hardware": Blame.HARDWARE,
    "kernel.nmi_unknown": Blame.HARDWARE,
    "pcie.aer_recovery_failed": Blame.HARDWARE,
    "pcie.aer_received": Blame.INFO,
    "pcie.dpc_containment": Blame.HARDWARE,
    "pcie.hotplug_link_down": Blame.HARDWARE,
    "pcie.gpu_inaccessible": Blame.HARDWARE,
    "pcie.link_degraded": Blame.INFO,
    "kernel.iommu_fault": Blame.HARDWARE,
    "nic.mlx5_health_syndrome": Blame.HARDWARE,
    "nic.mlx5_cmd_no_completion": Blame.HARDWARE,
    "nic.mlx5_cmd_failed": Blame.SYMPTOM,
    "nic.mlx5_insufficient_power": Blame.HARDWARE,
    "nic.tx_timeout": Blame.HARDWARE,
    "nic.mlx5_user_cqe_error": Blame.SYMPTOM,  # golden lines: test_catalog_tracker_clusters.py
    "nic.ib_no_device": Blame.HARDWARE,
    "nic.mlx5_probe_failed": Blame.HARDWARE,  # golden lines: test_catalog_tracker_clusters.py
    "nic.mlx5_kernel_cqe_error": Blame.SYMPTOM,  # golden lines: test_catalog_tracker_hpc.py
    "nic.mlx5_fatal_sensor": Blame.HARDWARE,  # golden lines: test_catalog_tracker_hw2.py
    "kernel.user_fault": Blame.SYMPTOM,
    "kernel.oops": Blame.HARDWARE,
    # golden lines for these: test_catalog_golden_kernelhw.py
    "mce.memory_error_consumed": Blame.HARDWARE,
    "nic.mlx5_driver_unloaded": Blame.HARDWARE,
    "nic.ib_port_down": Blame.HARDWARE,
}


def test_weak_hardware_signals_need_corroboration() -> None:
    """Lockups, unknown NMIs and stuck firmware commands are hardware evidence too weak to name
    a node alone (below attribution's HARDWARE_THRESHOLD of 60)."""
    for key in (
        "kernel.hard_lockup",
        "kernel.nmi_unknown",
        "kernel.oops",
        "nic.mlx5_cmd_no_completion",
        "nic.mlx5_insufficient_power",
        "nic.tx_timeout",
        "pcie.gpu_inaccessible",
    ):
        assert CATALOG.signatures[key].weight < 60, key


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # kata-containers/kata-containers issue #11708 (host dmesg, a GPU held by vfio-pci)
        "pcie.gpu_inaccessible",
        "[586739.359281] vfio-pci 0000:01:00.0: Unable to change power state from D3cold to D0,"
        " device inaccessible",
        {"driver": "vfio-pci", "bdf": "0000:01:00.0"},
    ),
    (  # clustervision/trinity issue #219 (ibstatus on the nodes whose card needed new firmware)
        "nic.ib_no_device",
        "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)",
        {"device": "*"},
    ),
    (  # rendered from rdma-core's ibstatus for a named device that is not there (no public line)
        "nic.ib_no_device",
        "Fatal error:  device 'mlx5_0': sys files not found (/sys/class/infiniband/mlx5_0/ports)",
        {"device": "mlx5_0"},
    ),
    (  # an Open MPI users thread (2012-12): ibstatus on the nodes of a failing cluster
        "nic.ib_no_device",
        "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)",
        {"device": "*"},
    ),
    ("kernel.boot", "-- Reboot --", {}),
    # journalctl 255+ separates boots by id (systemd src/journal/journalctl-show.c; rendered)
    ("kernel.boot", "-- Boot 5d03a9e1c7f24b6a9e2f41d8b07c3a55 --", {}),
    # an orderly shutdown, as logind, systemd and the kernel log it (formats rendered:
    # src/login/logind-dbus.c, systemd's reboot.target description, kernel/reboot.c)
    ("kernel.shutdown", "systemd-logind[1603]: The system will reboot now!", {}),
    ("kernel.shutdown", "systemd[1]: Reached target reboot.target - System Reboot.", {}),
    ("kernel.shutdown", "Mar 11 15:52:40 z1-8 systemd[1]: Reached target Shutdown.", {}),
    ("kernel.shutdown", "[ 9120.553012] reboot: Restarting system", {}),
    ("kernel.shutdown", "systemd-journald[612]: Journal stopped", {}),
    (  # csrutil/OpenWrt-NIC-Drivers issue #11 (the 6.6+ wording)
        "nic.tx_timeout",
        "[ 1356.296930] r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed "
        "out 5010 ms",
        {"queue": "0"},
    ),
    (  # heidsoft/devops issue #67 (title; the driver's own line has the device and interface)
        "nic.tx_timeout",
        "kernel: mlx5_core TX timeout detected",
        {},
    ),
    (  # leptonai/gpud issue #348 (a comment)
        "nic.mlx5_insufficient_power",
        "[Sun Dec  1 14:54:40 2024] ny2g1r12hh2 kernel: mlx5_core 0000:5c:00.0: "
        "mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).",
        {"watts": "27"},
    ),
    (
        "kernel.boot",
        "Mar  3 07:12:09 gpu-a03 kernel: Command line: BOOT_IMAGE=/vmlinuz-5.15.0-101-generic "
        "root=UUID=0b1c ro",
        {},
    ),
    (  # ublue-os/bazzite issue #5546
        "mce.fatal",
        "Kernel panic - not syncing: Fatal machine check",
        {},
    ),
    (  # ublue-os/bazzite issue #5546
        "mce.fatal",
        "mce: [Hardware Error]: Machine check: Processor context corrupt",
        {},
    ),
    (  # andikleen/mcelog issue #116
        "mce.logged",
        "[202072.518835] mce: [Hardware Error]: Machine check events logged",
        {},
    ),
    (  # andikleen/mcelog issue #70 (a comment; corrected event at boot)
        "mce.logged",
        "Sep 16 19:51:15 kernel: [    0.064265] mce: [Hardware Error]: CPU 0: Machine Check: 0 "
        "Bank 4: a600000000020408",
        {},
    ),
    (  # illinois-scicomp/machine-shop-maintenance issue #66
        "edac.corrected",
        "[Mon Oct  3 13:52:42 2022] EDAC MC1: 262 CE memory read error on "
        "CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x2031c14 offset:0x940 grain:32 "
        "syndrome:0x0 -  OVERFLOW area:DRAM err_code:0001:0091 socket:0 ha:0 channel_mask:2 "
        "rank:1)",
        {"mc": "1"},
    ),
    (  # andikleen/mcelog issue #74 (a comment)
        "ghes.uncorrected",
        "2019-08-19T04:18:38.274661-04:00 linux-dgwd kernel: [ 261.273227] {1}[Hardware Error]: "
        "event severity: recoverable",
        {"severity": "recoverable"},
    ),
    (  # madMAx43v3r/chia-plotter issue #535
        "kernel.soft_lockup",
        "kernel:[405108.698255] watchdog: BUG: soft lockup - CPU#2 stuck for 22s! "
        "[chia_plot:29632]",
        {"cpu": "2", "seconds": "22"},
    ),
    (  # OE4T/meta-tegra issue #390 (older 'NMI watchdog:' prefix)
        "kernel.soft_lockup",
        "[   80.221608] NMI watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:4:4202]",
        {"cpu": "0"},
    ),
    (  # scylladb/seastar issue #775
        "kernel.hard_lockup",
        "[62005.595383] Kernel panic - not syncing: Watchdog detected hard LOCKUP on cpu 74",
        {"cpu": "74"},
    ),
    (  # open-power/skiboot issue #194 (powerpc wording)
        "kernel.hard_lockup",
        "[  252.718656] Watchdog CPU:59 Hard LOCKUP",
        {"wcpu": "59"},
    ),
    (  # openzfs/zfs issue #3031
        "kernel.rcu_stall",
        "Jan 21 18:44:55 storage-pod kernel: INFO: rcu_sched self-detected stall on CPU { 17}  "
        "(t=15001 jiffies g=310464443 c=310464442 q=0)",
        {},
    ),
    (  # openzfs/zfs issue #557 (older rcu_sched_state name)
        "kernel.rcu_stall",
        "Nov 24 19:39:04 gsan1-coy kernel: [ 3556.510903] INFO: rcu_sched_state detected stall "
        "on CPU 0 (t=105060 jiffies)",
        {},
    ),
    (  # clearlinux/distribution issue #2795
        "kernel.rcu_stall",
        "rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 2-.... } 21 jiffies s: "
        "1137 root: 0x1/.",
        {},
    ),
    (  # systemd/systemd-centos-ci issue #660
        "kernel.panic",
        "[   36.560762] Kernel panic - not syncing: softlockup: hung tasks",
        {},
    ),
    (  # minisforum-docs/MS-02-Ultra issue #10
        "pcie.aer_recovery_failed",
        "Sep 22 09:59:09 pve kernel: pcieport 0000:80:1b.4: AER: device recovery failed",
        {"bdf": "0000:80:1b.4"},
    ),
    (  # minisforum-docs/MS-02-Ultra issue #10 (newer 'message received from' wording)
        "pcie.aer_received",
        "Sep 22 09:59:09 pve kernel: pcieport 0000:80:1b.4: AER: Uncorrectable (Non-Fatal) "
        "error message received from 0000:80:1b.4",
        {"severity": "Non-Fatal"},
    ),
    (  # pop-os/pop issue #3363
        "pcie.aer_received",
        "Sep 19 16:18:02 bubz kernel: [68183.615790] pcieport 0000:00:03.1: AER: Correctable "
        "error message received from 0000:00:00.0",
        {},
    ),
    (  # openucx/ucx issue #9488 (NVMe over RDMA set-up)
        "nic.mlx5_cmd_failed",
        "[5365309.262528]mlx5_cmd_check:810:(pid 923941): create_mkey(0x200) op_mod(0x0) failed, "
        "status bad parameter(0x3), syndrome (0x35e6ec)",
        {"command": "create_mkey", "status": "bad parameter"},
    ),
    (  # abrt/abrt pull request #1219 (systemd journal; arch/x86/kernel/traps.c show_signal)
        "kernel.user_fault",
        "traps: chrome[2979] trap invalid opcode ip:55911b28dba3 sp:7ffea558a3e0 error:0 in "
        "chrome[55911728a000+6a0b000]",
        {"comm": "chrome", "pid": "2979", "trap": "invalid opcode"},
    ),
    (  # openobserve/openobserve issue #4859 (a binary for newer CPUs on a Xeon X5460)
        "kernel.user_fault",
        " traps: openobserve[2775846] trap invalid opcode",
        {"comm": "openobserve", "pid": "2775846", "trap": "invalid opcode"},
    ),
    (  # a forum post on transmission's crash (arch/x86/mm/fault.c show_signal_msg)
        "kernel.user_fault",
        "[100988.858923] transmission-da[28274]: segfault at 0 ip 00007f32b7026b59 sp "
        "00007f32b1df8930 error 4 in libgnutls.so.26.22.6[7f32b6fb2000+b6000]",
        {"comm": "transmission-da", "pid": "28274"},
    ),
    (  # ask.fedoraproject.org t/laptop-freezes-after-kernel-bug/15757 (lib/bug.c report_bug)
        "kernel.oops",
        "июл 27 14:08:04 laptop kernel: kernel BUG at lib/list_debug.c:51!",
        {"where": "lib/list_debug.c:51"},
    ),
    (  # the same thread, the next line (arch/x86/kernel/dumpstack.c __die_header)
        "kernel.oops",
        "июл 27 14:08:04 laptop kernel: invalid opcode: 0000 [#1] SMP PTI",
        {"die": "invalid opcode"},
    ),
    # pytorch/pytorch issue #52142 (a V100's DMA faulting in the AMD IOMMU, older format)
    (
        "kernel.iommu_fault",
        "[ 4703.568967] AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x000e "
        "address=0x000003f80001b100 flags=0x0030]",
        {"device": "41:00.0"},
    ),
    # an intel-gfx patch (Andrzej Hajda, drm/i915 async flip): Intel's DMAR fault record
    (
        "kernel.iommu_fault",
        "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x0 [fault reason 0x06] "
        "PTE Read access is not set",
        {"requester": "00:02.0"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # the way up, and a suspend, are no shutdown
    ("kernel.shutdown", "systemd[1]: Reached target multi-user.target - Multi-User System."),
    ("kernel.shutdown", "systemd-logind[1603]: The system will suspend now!"),
    # the fault record's header line and the IOMMU's boot notes are not a fault
    ("kernel.iommu_fault", "DMAR: DRHD: handling fault status reg 3"),
    ("kernel.iommu_fault", "pci 0000:41:00.0: Adding to iommu group 38"),
    # a process's own trap setup and a GPU kernel's text are not the kernel's user-fault note
    ("kernel.user_fault", "python[1234]: installed SIGSEGV trap handler"),
    ("kernel.user_fault", "RuntimeError: CUDA error: an illegal instruction was encountered"),
    # CUDA's own BUG-like texts and a driver's debug counters are not a kernel oops
    ("kernel.oops", "NCCL INFO [#1] ring 0 : 0[0] -> 1[1] via P2P/IPC"),
    ("kernel.oops", "WARNING: CPU: 3 PID: 1 at drivers/gpu/drm/drm_edid.c:1234"),
    # system76/firmware-open issue #259: the same wake failure of the GPU's USB and audio
    # functions is not the GPU's own
    (
        "pcie.gpu_inaccessible",
        "kernel: xhci_hcd 0000:01:00.2: can't change power state from D3cold to D0 (config space"
        " inaccessible)",
    ),
    # ibstatus on a node whose adapter is there (clustervision/trinity issue #219)
    ("nic.ib_no_device", "Infiniband device 'mlx4_0' port 1 status:"),
    ("nic.ib_no_device", "Warning: Required sys files not found"),
    # NVIDIA/gpu-operator issue #2511: the slot's power capability not advertised is no fault
    (
        "nic.mlx5_insufficient_power",
        "[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe slot power "
        "capability was not advertised.",
    ),
    # EDAC bookkeeping around an error is not the error (radiasoft/devops issue #134)
    ("*", "Feb 23 03:28:16 kernel: EDAC sbridge MC1: HANDLING MCE MEMORY ERROR"),
    ("*", "Feb 23 03:28:16 kernel: EDAC sbridge MC1: ADDR ee30a0000"),
    ("*", "EDAC MC: Ver: 3.0.0"),  # CachyOS/linux-cachyos issue #1038
    # a corrected error is not an uncorrected one, and the reverse
    (
        "edac.uncorrected",
        "May  7 06:45:12 errol kernel: [21584690.529877] EDAC MC0: 4 CE error on "
        "CPU#0Channel#2_DIMM#0 (channel:2 slot:0 page:0x0 offset:0x0 grain:8 syndrome:0x0)",
    ),  # openstreetmap/operations issue #300
    ("mce.fatal", "[202072.518835] mce: [Hardware Error]: Machine check events logged"),
    ("mce.logged", "mce: [Hardware Error]: CPU 7: Machine Check Exception: 5 Bank 0"),
    # the APEI header without a severity (andikleen/mcelog issue #74)
    (
        "ghes.uncorrected",
        "[ 261.273226] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error "
        "Source: 4",
    ),
    # AER detail lines after the severity line (rwth-i6/returnn issue #1500)
    (
        "*",
        "[  +0.000898] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000",
    ),
    ("*", "[  +0.000894] pcieport 0000:00:03.0:    [14] CmpltTO                (First)"),
    # a port coming back, and the core's own lines, are not this family's
    ("*", "mlx5_core 0000:5c:00.0 mlx5_2: Port: 1 Link ACTIVE"),
    (
        "*",
        "[74785.660380] pcieport 0000:00:02.0: PCIe Bus Error: severity=Corrected, type=Data Link "
        "Layer, id=0010(Transmitter ID)",
    ),  # wilicc/gpu-burn issue #1 (core pcie.aer_corrected)
    (
        "*",
        "[Wed Sep 26 00:30:18 2018] INFO: task python:19772 blocked for more than 120 seconds.",
    ),  # ROCm/tensorflow-upstream issue #180 (core kernel.hung_task)
]

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    hits = assert_matches(key, line, expected)
    assert "python.exception" not in hits, "a specific signature must win over the generic one"


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
