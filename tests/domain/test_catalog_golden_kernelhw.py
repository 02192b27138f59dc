"""Golden lines for node hardware faults as the kernel and the node's own tools print them: a
process consuming an uncorrectable memory error, a general protection fault in the kernel, an
mlx5 adapter the driver gave up on, InfiniBand ports down in ibstat / ibv_devinfo output,
nvidia-smi's corrupted-InfoROM warning and pending page retirement, and gpu-burn's verdicts.

Each line is cited beside it and goes through the scanner's own matcher. Texts a healthy node
prints too (an unused port Polling, a test build that cannot run) stay below the threshold of 60
or are symptoms; the healthy values of the same fields must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, golden_line_checks, hits

BLAME: dict[str, Blame] = {
    "mce.memory_error_consumed": Blame.HARDWARE,
    "kernel.memory_failure": Blame.HARDWARE,
    "kernel.oops": Blame.HARDWARE,
    "nic.mlx5_driver_unloaded": Blame.HARDWARE,
    "nic.ib_port_down": Blame.HARDWARE,
    "nvml.smi_inforom_corrupted": Blame.HARDWARE,
    "nvml.smi_page_retirement_pending": Blame.HARDWARE,
    "gpu.burn_faulty": Blame.HARDWARE,
    "gpu.burn_client_died": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # linux-mm thread (Dan Williams, 2018-06; sjp38/lore-linux-mm): poison consumed through DAX
    (
        "mce: Uncorrected hardware memory error in user-access at af34214200",
        "mce.memory_error_consumed",
        {"addr": "af34214200"},
    ),
    ("mce: Memory error not recovered", "mce.memory_error_consumed", {}),
    # the einj test log in the same archive (Intel WilsonCity, 6.0-rc3)
    (
        "[  183.650625] mce: Uncorrected hardware memory error in user-access at 8a398a400",
        "mce.memory_error_consumed",
        {"addr": "8a398a400"},
    ),
    # a guest's log quoted in the virtio-balloon recovery patch (linux-mm archive, 2020)
    (
        "MCE: Killing stress:24502 due to hardware memory corruption fault at 7f5be2e5a010",
        "mce.memory_error_consumed",
        {"comm": "stress", "pid": "24502", "vaddr": "7f5be2e5a010"},
    ),
    # the DAX thread again: the page could not be recovered
    (
        "Memory failure: 0xaf34214: recovery action for reserved kernel page: Failed",
        "kernel.memory_failure",
        {"result": "Failed"},
    ),
    # enarx/enarx issue #2263 (AWS m6a.metal)
    (
        "[  307.264507] Memory failure: 0x30a6a17: recovery action for unknown page: Ignored",
        "kernel.memory_failure",
        {"result": "Ignored"},
    ),
    # NVIDIA/k8s-device-plugin issue #941 (its title: the GPU node's oops header)
    (
        "general protection fault, probably for non-canonical address 0x25b5f6bb1a24827e: 0000 "
        "[#1] SMP NOPTI",
        "kernel.oops",
        {"die": "general protection fault"},
    ),
    # the same header as kernels since 6.x print it (Oops: before the description)
    (
        "Oops: general protection fault, probably for non-canonical address 0xdead000000000122: "
        "0000 [#1] PREEMPT SMP NOPTI",
        "kernel.oops",
        {"die": "general protection fault"},
    ),
    # rendered from mlx5 health.c mlx5_fw_fatal_reporter_err_work (no public issue line found)
    (
        "mlx5_core 0000:41:00.0: mlx5_fw_fatal_reporter_err_work:690:(pid 1101): Driver is in "
        "error state. Unloading",
        "nic.mlx5_driver_unloaded",
        {"pci": "0000:41:00.0"},
    ),
    # leptonai/gpud pull requests #482 and #99 (ibstat output on GPU nodes)
    ("        Physical state: Polling", "nic.ib_port_down", {"phys": "Polling"}),
    ("\t\tPhysical state: Disabled", "nic.ib_port_down", {"phys": "Disabled"}),
    # ibstatus and ibv_devinfo renderings (rdma-core ibstatus, libibverbs/examples/devinfo.c)
    ("\tphys state:\t 3: Disabled", "nic.ib_port_down", {"phys_status": "Disabled"}),
    ("\t\t\tstate:\t\t\tPORT_DOWN (1)", "nic.ib_port_down", {}),
    # NVIDIA/gpu-operator issue #20 (its title), Azure/batch-shipyard issue #318
    (
        "WARNING: infoROM is corrupted at gpu 0000:B3:00.0",
        "nvml.smi_inforom_corrupted",
        {"pci": "0000:B3:00.0"},
    ),
    # `nvidia-smi -q` Retired Pages section (Azure/azhpc-diagnostics issue #75)
    ("        Pending Page Blacklist            : Yes", "nvml.smi_page_retirement_pending", {}),
    # wilicc/gpu-burn issue #12 (the summary after a run)
    ("        GPU 0: FAULTY", "gpu.burn_faulty", {"gpu": "0"}),
    ("\tGPU 15: FAULTY", "gpu.burn_faulty", {"gpu": "15"}),
    # wilicc/gpu-burn issues #69, #130 and #53
    ("No clients are alive!  Aborting", "gpu.burn_client_died", {}),
    (
        "0.0%  proc'd: -1 (0 Gflop/s)   errors: 0  (DIED!)  temps: 68 C ",
        "gpu.burn_client_died",
        {},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # corrected errors and the MCE bookkeeping are not a consumed uncorrected error
    ("mce.memory_error_consumed", "mce: [Hardware Error]: Machine check events logged"),
    ("mce.memory_error_consumed", "{1}[Hardware Error]: event severity: corrected"),
    # a user process's own general protection fault is kernel.user_fault's, not an oops
    (
        "kernel.oops",
        "traps: python[48213] general protection fault ip:7f3a1c2b3d40 sp:7ffd1a2b3c00 error:0",
    ),
    # a healthy port, a bare State: Down, an active ibv_devinfo port
    ("nic.ib_port_down", "        Physical state: LinkUp"),
    ("nic.ib_port_down", "                State: Down"),
    ("nic.ib_port_down", "\t\t\tstate:\t\t\tPORT_ACTIVE (4)"),
    ("nic.ib_port_down", "\tphys state:\t 5: LinkUp"),
    # the healthy values of the nvidia-smi fields
    ("nvml.smi_page_retirement_pending", "        Pending Page Blacklist            : No"),
    ("nvml.smi_page_retirement_pending", "        Pending Page Blacklist            : N/A"),
    # gpu-burn's healthy verdicts and counters
    ("gpu.burn_faulty", "        GPU 0: OK"),
    ("gpu.burn_client_died", "100.0%  proc'd: 18000 (6311 Gflop/s)   errors: 0   temps: 51 C "),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_ambiguous_hardware_texts_stay_under_the_threshold() -> None:
    """An unused port Polling, a corrupted InfoROM on a GPU that still computes, a page waiting
    for retirement and a burn-in verdict a bad build can fake name no node alone."""
    for key in (
        "nic.ib_port_down",
        "nvml.smi_inforom_corrupted",
        "nvml.smi_page_retirement_pending",
        "gpu.burn_faulty",
    ):
        assert CATALOG.signatures[key].weight < 60, key


def test_definite_faults_name_the_node() -> None:
    """A consumed uncorrectable memory error and an adapter the driver unloaded are the node's."""
    for key in ("mce.memory_error_consumed", "nic.mlx5_driver_unloaded"):
        sig = CATALOG.signatures[key]
        assert sig.weight >= 60, key
        assert sig.node_action.value != "none", key


def test_a_user_gp_fault_stays_a_user_fault() -> None:
    line = "traps: python[48213] general protection fault ip:7f3a1c2b3d40 sp:7ffd1a2b3c00 error:0"
    assert "kernel.user_fault" in hits(line)
