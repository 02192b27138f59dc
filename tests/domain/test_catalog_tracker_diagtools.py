"""Golden lines from sweep 8 over what diagnostic and health-check tools print when they find a
node's hardware bad (signatures-diagtools.toml): gpu-burn's error counters, cuda_memtest's
mismatches, nccl-tests' wrong values and bandwidth check, ibstat / ibv_devinfo / ibportstate port
states, perfquery / ibqueryerrors error counters, lspci's link width, nvidia-smi's ECC fields,
Megatron's result validation with a tensor result, NHC's drain reasons and slurmd's health check.

Each line is a real one from the public thread cited beside it, or, where none was found, the
emitter's format string rendered (said so beside it); every line goes through the scanner's own
matcher. Blame is pinned to what a careful SRE reads from the one line: a test that saw this
node's GPU compute or store wrong values is the node's hardware; a port, a link width, a counter
or ECC history points at the node weakly; a collective test's wrong values and a health check's
failure are symptoms. Healthy look-alikes (zero counts, OK results, Active states) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-diagtools.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "gpuburn.compute_errors": Blame.HARDWARE,
    "memtest.mismatch": Blame.HARDWARE,
    "memtest.memtestg80_errors": Blame.HARDWARE,
    "nccltests.out_of_bounds": Blame.SYMPTOM,
    "nccltests.bandwidth_below_minimum": Blame.SYMPTOM,
    "nccltests.wrong_elements": Blame.SYMPTOM,
    "ibstat.port_not_active": Blame.SYMPTOM,
    "ibdiag.port_error_counter": Blame.HARDWARE,
    "ibdiag.link_below_capability": Blame.SYMPTOM,
    "lspci.link_width_downgraded": Blame.HARDWARE,
    "lspci.config_space_unreadable": Blame.HARDWARE,
    "mlxlink.port_not_up": Blame.HARDWARE,
    "mlxlink.recommendation": Blame.HARDWARE,
    "smi.table_uncorrectable_ecc": Blame.HARDWARE,
    "smi.uncorrectable_ecc_count": Blame.HARDWARE,
    "smi.uncorrectable_memory_retired": Blame.HARDWARE,
    "smi.sram_threshold_exceeded": Blame.HARDWARE,
    "megatronrerun.unexpected_result_tensor": Blame.SYMPTOM,
    "megatronrerun.state_notice": Blame.INFO,
    "nhc.drain_reason_hw": Blame.HARDWARE,
    "nhc.drain_reason": Blame.SYMPTOM,
    "slurm.health_check_failed": Blame.SYMPTOM,
}

NAMESPACES = frozenset(
    {"gpuburn", "memtest", "nccltests", "ibstat", "ibdiag", "lspci", "mlxlink", "smi", "megatronrerun",
     "nhc", "slurm"}
)  # fmt: skip

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # wilicc/gpu-burn gpu_burn-drv.cpp listenClients, the progress line rendered (two GPUs, the
    # second with wrong results), and the per-GPU form the sweep's probe found
    (
        "100.0%  proc'd: 21420 (13854 Gflop/s) - 21420 (13886 Gflop/s)   errors: 0 - 1234  "
        "(WARNING!)  temps: 71 C - 68 C ",
        "gpuburn.compute_errors",
        {"errors": "1234"},
    ),
    (
        "  0: 94.8%  proc'd: 1234 (10321 Gflop/s)   errors: 1234 (WARNING!)  temps: 71 C",
        "gpuburn.compute_errors",
        {"errors": "1234"},
    ),
    # ComputationalRadiationPhysics/cuda_memtest tests.cpp error_checking, rendered
    (
        "[12/03/2026 10:15:02][gpu-a07][3]:ERROR: (move_inv_readwrite) 12 errors found in block 100",
        "memtest.mismatch",
        {"test": "move_inv_readwrite", "errors": "12"},
    ),
    (
        "[12/03/2026 10:15:02][gpu-a07][3]:ERROR: 0th error, expected value=0xffffffffffffffff, "
        "current value=0xfffffffffffbffff, diff=0x40000 (second_read=0xfffffffffffbffff, "
        "expect=0xffffffffffffffff, diff with expected value=0x40000)",
        "memtest.mismatch",
        {},
    ),
    # cuda_memtest tests.cpp test4's retry, rendered
    (
        "[12/03/2026 10:15:02][gpu-a07][3]:1th repeating test4 because there are 3 errors found "
        "in last run",
        "memtest.mismatch",
        {"repeat_errors": "3"},
    ),
    # ihaque/memtestG80's per-test and per-iteration lines, rendered (the public pastes show
    # zeros or the tool's own overflow)
    (
        "\tMoving Inversions (ones and zeros): 3 errors (256 ms)",
        "memtest.memtestg80_errors",
        {"test": "Moving Inversions (ones and zeros)", "errors": "3"},
    ),
    (
        "        Logic (shared-memory, 4 iterations): 17 errors (0 ms)",
        "memtest.memtestg80_errors",
        {"test": "Logic (shared-memory, 4 iterations)", "errors": "17"},
    ),
    (
        "Test iteration 4 (GPU 1, 4000 MiB): 12 errors so far",
        "memtest.memtestg80_errors",
        {"gpu": "1", "so_far": "12"},
    ),
    # NVIDIA/nccl-tests issue #8 (nv_peer_mem on two clusters) and #131 (two GPUs behind a PHB,
    # an older build without the "#")
    ("# Out of bounds values : 24 FAILED", "nccltests.out_of_bounds", {"errors": "24"}),
    (" Out of bounds values : 50 FAILED", "nccltests.out_of_bounds", {"errors": "50"}),
    # NVIDIA/nccl-tests src/util.cu, NCCL_TESTS_MIN_BW set and missed (rendered)
    (
        "# Avg bus bandwidth    : 12.3456 FAILED",
        "nccltests.bandwidth_below_minimum",
        {"busbw": "12.3456"},
    ),
    # NVIDIA/nccl-tests src/util.cu writeBenchmarkLineBody, result rows rendered: wrong elements
    # out-of-place, and in-place only (%g of a large count)
    (
        "     8388608       2097152     float     sum      -1   1207.1    6.95   13.03      3   "
        "1203.5    6.97   13.07      3",
        "nccltests.wrong_elements",
        {"type": "float", "redop": "sum", "wrong": "3"},
    ),
    (
        "      196608         49152  bfloat16     sum      -1    125.5    1.57    2.94      0    "
        "124.9    1.57    2.95  1.04858e+06",
        "nccltests.wrong_elements",
        {"type": "bfloat16", "wrong_inplace": "1.04858e+06"},
    ),
    # DDNStorage/LustrePerfMon issue #27 (ibstat, mlx5_2 down and disabled)
    ("\t\tState: Down", "ibstat.port_not_active", {"state": "Down"}),
    # leptonai/gpud pull requests #99 (mlx5_8, Disabled) and #482 (mlx5_10, Polling; pasted with
    # spaces for tabs)
    ("\t\tState: Down", "ibstat.port_not_active", {"state": "Down"}),
    ("        State: Down", "ibstat.port_not_active", {"state": "Down"}),
    # infiniband-diags ibstat.c, a port up without a subnet manager (rendered)
    ("\t\tState: Initializing", "ibstat.port_not_active", {"state": "Initializing"}),
    # the ibv_devinfo spelling the sweep's probe found, and devinfo.c's PORT_INIT (rendered)
    (
        "        port_state:             PORT_DOWN (1)",
        "ibstat.port_not_active",
        {"devinfo": "PORT_DOWN (1)"},
    ),
    ("\t\t\tstate:\t\t\tPORT_INIT (2)", "ibstat.port_not_active", {"init": "PORT_INIT (2)"}),
    # infiniband-diags ibstatus (the port's sysfs state), rendered
    ("        state:           1: DOWN", "ibstat.port_not_active", {"ibstatus": "1: DOWN"}),
    ("\tstate:\t\t 2: INIT", "ibstat.port_not_active", {"ibstatus": "2: INIT"}),
    # tuananh0788/Exadata issue #2 (ibportstate on a switch's ports)
    (
        "LinkState:.......................Down",
        "ibstat.port_not_active",
        {"field": "LinkState", "portinfo": "Down"},
    ),
    (
        "PhysLinkState:...................Disabled",
        "ibstat.port_not_active",
        {"field": "PhysLinkState", "portinfo": "Disabled"},
    ),
    # linux-rdma/rdma-core pull request #847 (ibportstate after a port set)
    (
        "PhysLinkState:...................Polling",
        "ibstat.port_not_active",
        {"portinfo": "Polling"},
    ),
    # infiniband-diags perfquery.c, rendered (the sweep's probe line)
    (
        "SymbolErrorCounter:..............1234",
        "ibdiag.port_error_counter",
        {"counter": "SymbolErrorCounter", "count": "1234"},
    ),
    (
        "LinkDownedCounter:...............7",
        "ibdiag.port_error_counter",
        {"counter": "LinkDownedCounter", "count": "7"},
    ),
    # guilbaults/infiniband-exporter issue #12 (ibqueryerrors on a small fabric)
    (
        "   GUID 0x2c903006e29b0 port 5: [SymbolErrorCounter == 65535] [LinkErrorRecoveryCounter "
        "== 8] [LinkDownedCounter == 2] [PortRcvSwitchRelayErrors == 149] [PortXmitDiscards == "
        "649] [PortXmitWait == 84704351]",
        "ibdiag.port_error_counter",
        {"counter": "SymbolErrorCounter", "count": "65535"},
    ),
    (
        "   GUID 0x2c903006e29b0 port 1: [LinkDownedCounter == 8] [PortRcvSwitchRelayErrors == 2] "
        "[PortXmitWait == 4294967295]",
        "ibdiag.port_error_counter",
        {"counter": "LinkDownedCounter", "count": "8"},
    ),
    # infiniband-diags iblinkinfo.c / ibdiag_common.c get_max_msg, rendered: a link one lane
    # wide, and one slower than both ends support
    (
        "          12    1[  ] ==( 1X      53.125 Gbps Active/  LinkUp)==>     210   17[  ] "
        '"gpu-a07 mlx5_0" (Could be 4X )',
        "ibdiag.link_below_capability",
        {"width": "4X"},
    ),
    (
        "          12    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>     210   17[  ] "
        '"gpu-a07 mlx5_0" ( Could be 53.125 Gbps)',
        "ibdiag.link_below_capability",
        {"speed_only": "53.125 Gbps"},
    ),
    # geerlingguy/raspberry-pi-pcie-devices issue #480 (a Quadro RTX 8000 on a one-lane slot)
    (
        "\t\tLnkSta:\tSpeed 5GT/s (downgraded), Width x1 (downgraded)",
        "lspci.link_width_downgraded",
        {"width": "1"},
    ),
    # HeyMeco/Rockchip-pcie-devices issue #6 (a PLX switch card trained at x4)
    (
        "                LnkSta: Speed 8GT/s, Width x4 (downgraded)",
        "lspci.link_width_downgraded",
        {"width": "4"},
    ),
    # pciutils ls-caps.c, a GPU trained at x8 (rendered)
    (
        "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)",
        "lspci.link_width_downgraded",
        {"width": "8"},
    ),
    # a laptop forum thread's lspci (its discrete GPU powered down: the config space reads all
    # ones), an H100 row rendered from lspci.c with -nn, and -v's header line under root ports
    # reading all ones (the linux-pci patch for kernel bugzilla 216644)
    (
        "01:00.0 3D controller: NVIDIA Corporation GK106M [GeForce GTX 765M] (rev ff)",
        "lspci.config_space_unreadable",
        {"class": "3D controller"},
    ),
    (
        "0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] "
        "[10de:2330] (rev ff) (prog-if ff)",
        "lspci.config_space_unreadable",
        {"class": "3D controller"},
    ),
    ("          !!! Unknown header type 7f", "lspci.config_space_unreadable", {}),
    # Mellanox/mstflint mlxlink_commander.cpp, the Operational Info and Troubleshooting Info
    # tables (rendered)
    ("State                           : Polling", "mlxlink.port_not_up", {"state": "Polling"}),
    ("State                           : Disable", "mlxlink.port_not_up", {"state": "Disable"}),
    (
        "Recommendation                  : Cable is unplugged",
        "mlxlink.recommendation",
        {"recommendation": "Cable is unplugged"},
    ),
    # nvidia-smi's table, the Volatile Uncorr. ECC column (rendered)
    (
        "|   3  NVIDIA A100-SXM4-80GB          On  | 00000000:47:00.0 Off |                   12 |",
        "smi.table_uncorrectable_ecc",
        {"gpu": "3", "count": "12"},
    ),
    (
        "|   0  Tesla V100S-PCI...  Off  | 00000000:00:07.0 Off |                    2 |",
        "smi.table_uncorrectable_ecc",
        {"gpu": "0", "count": "2"},
    ),
    # leptonai/gpud pull request #80 (a GPU whose rows await a reset to be remapped)
    (
        "        Uncorrectable Error               : 4",
        "smi.uncorrectable_memory_retired",
        {"count": "4"},
    ),
    # nvidia-smi -q, ECC Errors and Remapped Rows / Retired Pages fields (rendered)
    (
        "            DRAM Uncorrectable                : 3",
        "smi.uncorrectable_ecc_count",
        {"memory": "DRAM", "count": "3"},
    ),
    (
        "            SRAM Uncorrectable SEC-DED    : 2",
        "smi.uncorrectable_ecc_count",
        {"memory": "SRAM", "count": "2"},
    ),
    (
        "        Uncorrectable Error               : 2",
        "smi.uncorrectable_memory_retired",
        {"field": "Uncorrectable Error", "count": "2"},
    ),
    (
        "        Double Bit ECC                    : 1",
        "smi.uncorrectable_memory_retired",
        {"field": "Double Bit ECC", "count": "1"},
    ),
    ("            SRAM Threshold Exceeded       : Yes", "smi.sram_threshold_exceeded", {}),
    # NVIDIA/Megatron-LM megatron/core/rerun_state_machine.py validate_result with a tensor
    # result (rendered; the sweep's probe line)
    (
        "Unexpected result tensor(nan, device='cuda:5') on rank 5 at iteration #123 invocation #1 "
        "(message='found NaN in local grad norm ...')",
        "megatronrerun.unexpected_result_tensor",
        {"result": "tensor(nan, device='cuda:5')", "rank": "5"},
    ),
    (
        "ERROR:megatron.core.rerun_state_machine:Unexpected result tensor(inf, device='cuda:0') "
        "on rank 0 at iteration #812 invocation #2 (message='loss is infinite')",
        "megatronrerun.unexpected_result_tensor",
        {"rank": "0"},
    ),
    # megatron/core/rerun_state_machine.py, the state machine's notices (rendered)
    (
        "WARNING:megatron.core.rerun_state_machine:Exiting now. A checkpoint at the last "
        "iteration is being saved if further examination is needed",
        "megatronrerun.state_notice",
        {},
    ),
    (
        "WARNING:megatron.core.rerun_state_machine:Need to restart job from the same checkpoint "
        "because it was scheduled on the same node/GPU",
        "megatronrerun.state_notice",
        {},
    ),
    (
        "WARNING:megatron.core.rerun_state_machine:Continuing normal execution because failed "
        "validation was not fatal",
        "megatronrerun.state_notice",
        {},
    ),
    # NVIDIA/deepops pull request #660 (the drain reason for a wrong GPU count)
    (
        "NHC: Check check_nv_gpu_count 2 returned 1",
        "nhc.drain_reason_hw",
        {"check": "check_nv_gpu_count"},
    ),
    # mej/nhc node-mark-offline with check_hw_ib's message (rendered)
    (
        "   Reason=NHC: check_hw_ib:  No IB port mlx5_0:1 is ACTIVE (LinkUp 100 Gb/sec). "
        "[root@2026-03-04T10:02:11]",
        "nhc.drain_reason_hw",
        {"check": "check_hw_ib"},
    ),
    # mej/nhc issue #134 (NHC's own watchdog)
    (
        "/usr/libexec/nhc/node-mark-offline:  Marking  wn-1-30 offline:  NHC: Watchdog timer "
        "unable to terminate hung NHC process 16263.",
        "nhc.drain_reason",
        {"reason": "Watchdog timer unable to terminate hung NHC process 16263."},
    ),
    # an scontrol show node dump kept as a test fixture by vantage-agent (vantage_agent.helpers)
    (
        "        Reason=NHC: check_ps_service:  Service sshd (process sshd) owned by root not "
        "running [root@2024-08-20T16:32:47]",
        "nhc.drain_reason",
        {},
    ),
    # mej/nhc issue #161 (slurmd after NHC timed out)
    (
        "[2025-06-11T19:12:28.063] error: health_check killed by signal 9 output:",
        "slurm.health_check_failed",
        {"signal": "9"},
    ),
    # SchedMD/slurm slurmd run_script_health_check, rendered
    (
        "[2026-03-04T10:02:11.512] error: health_check failed: rc:1 output:GPU 3 failed the DCGM "
        "diagnostic",
        "slurm.health_check_failed",
        {"rc": "1"},
    ),
]

# (key, healthy look-alike it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # wilicc/gpu-burn issues #8 and #123: no errors; issue #12: the user's modified compare kernel
    ("gpuburn.compute_errors", "100.0%  proc'd: 1908 (2273 Gflop/s)   errors: 0   temps: 66 C "),
    (
        "gpuburn.compute_errors",
        "100.0%  proc'd: 0 (0 Gflop/s) - 0 (0 Gflop/s)   errors: 0 - 0   temps: 41 C - 40 C",
    ),
    (
        "gpuburn.compute_errors",
        "100.0%  proc'd: 18000 (6311 Gflop/s) - 12600 (6440 Gflop/s)   errors: 0 - -524288000  "
        "(WARNING!)  temps: 51 C - 45 C ",
    ),
    ("gpuburn.compute_errors", "\tGPU 0: OK"),
    # cuda_memtest's progress and a CUDA error (not a mismatch)
    ("memtest.mismatch", "[12/03/2026 10:15:02][gpu-a07][3]:Test10 [Memory stress test]"),
    (
        "memtest.mismatch",
        "[12/03/2026 10:15:02][gpu-a07][3]:ERROR: CUDA error: out of memory, line 160, file "
        "cuda_memtest.cpp",
    ),
    # ihaque/memtestG80 issue #7 (a clean run) and #3 (the 32-bit overflow above 4 GiB)
    ("memtest.memtestg80_errors", "Test iteration 1 (GPU 0, 16400 MiB): 0 errors so far"),
    ("memtest.memtestg80_errors", "\tMoving Inversions (ones and zeros): 0 errors (256 ms)"),
    ("memtest.memtestg80_errors", "\tMemtest86 Walking 8-bit: 0 errors (2049 ms)"),
    (
        "memtest.memtestg80_errors",
        "        Moving Inversions (ones and zeros): 4294967295 errors (16 ms)",
    ),
    (
        "memtest.memtestg80_errors",
        "        Memtest86 Walking zeros (32-bit): 4294967264 errors (0 ms)",
    ),
    # NVIDIA/nccl issue #1706: a clean run's summary
    ("nccltests.out_of_bounds", "# Out of bounds values : 0 OK"),
    ("nccltests.bandwidth_below_minimum", "# Avg bus bandwidth    : 8.62002 "),
    ("nccltests.bandwidth_below_minimum", "# Avg bus bandwidth    : 183.27 OK"),
    # NVIDIA/nccl-tests issues #167 and #322, openucx/ucx issue #10055: rows with no wrong value
    (
        "nccltests.wrong_elements",
        "      199680         49920     float     max      -1    125.8    1.59    2.98      0    "
        "125.1    1.60    2.99      0",
    ),
    (
        "nccltests.wrong_elements",
        "  1073741824     268435456     float     sum      -1    19355   55.48  110.84      0    "
        "19189   55.96  111.80      0",
    ),
    (
        "nccltests.wrong_elements",
        "      500000        125000     float     sum      -1   188.69    2.65    3.97       0   "
        "187.07    2.67    4.01       0",
    ),
    (
        "nccltests.wrong_elements",
        "      196608         49152     float     sum      -1    125.5    1.57    2.94    N/A    "
        "124.9    1.57    2.95    N/A",
    ),
    (
        "nccltests.wrong_elements",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong",
    ),
    # DDNStorage/LustrePerfMon issue #27: a healthy port
    ("ibstat.port_not_active", "\t\tState: Active"),
    ("ibstat.port_not_active", "\t\tPhysical state: LinkUp"),
    ("ibstat.port_not_active", "\t\t\tstate:\t\t\tPORT_ACTIVE (4)"),
    # NVIDIA/nccl issue #1866 (ibstatus on healthy RoCE ports), leptonai/gpud pull request #752
    ("ibstat.port_not_active", "        state:           4: ACTIVE"),
    ("ibstat.port_not_active", "        phys state:      5: LinkUp"),
    ("ibstat.port_not_active", "\t\tState: Active"),
    ("ibstat.port_not_active", "LinkState:.......................Active"),
    ("ibstat.port_not_active", "PhysLinkState:...................LinkUp"),
    ("ibstat.port_not_active", "Power State: Down for maintenance window"),
    # linux-rdma/infiniband-diags issue #16: a clean perfquery dump; congestion is not an error
    ("ibdiag.port_error_counter", "SymbolErrorCounter:..............0"),
    ("ibdiag.port_error_counter", "LinkDownedCounter:...............0"),
    ("ibdiag.port_error_counter", "PortXmitWait:....................0"),
    (
        "ibdiag.port_error_counter",
        "   GUID 0x7cfe900300179b31 port 1: [VL15Dropped == 14] [PortXmitWait == 4294967295]",
    ),
    # iblinkinfo's healthy links and a switch's unplugged port (rendered from iblinkinfo.c)
    (
        "ibdiag.link_below_capability",
        "           4    1[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>       3   18[  ] "
        '"MF0;ib0-is5200-a2-bip-m:IS5200/L07/U1" ( )',
    ),
    (
        "ibdiag.link_below_capability",
        '          13   14[  ] ==(                Down/ Polling)==>             [  ] "" ( )',
    ),
    # janhq/jan issue #183 (an idle GPU at Gen1, full width) and ilya-zlobintsev/LACT issue #334
    ("lspci.link_width_downgraded", "    LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)"),
    ("lspci.link_width_downgraded", "LnkSta: Speed 16GT/s, Width x16"),
    # ROCm/tensorflow-upstream issue #92 and Xilinx/SLASH pull request #55: speed only
    ("lspci.link_width_downgraded", "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x1 (ok)"),
    (
        "lspci.link_width_downgraded",
        "                LnkSta: Speed 8GT/s (downgraded), Width x8 (ok)",
    ),
    # MrChromebox/firmware issue #585: a root port with nothing behind it
    (
        "lspci.link_width_downgraded",
        "                LnkSta: Speed 2.5GT/s (downgraded), Width x0 (downgraded)",
    ),
    ("lspci.link_width_downgraded", "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1"),
    # the same laptop's healthy rows, a healthy V100S (a cluster set-up guide) and a chipset
    # function reading all ones (not a GPU or an adapter)
    (
        "lspci.config_space_unreadable",
        "03:00.0 Ethernet controller: Qualcomm Atheros Killer E2200 Gigabit Ethernet Controller "
        "(rev 13)",
    ),
    (
        "lspci.config_space_unreadable",
        "5e:00.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100S PCIe 32GB] (rev a1)",
    ),
    ("lspci.config_space_unreadable", "00:1f.3 SMBus: Intel Corporation 8 Series (rev ff)"),
    # sonic-net/SONiC issue #265 and MrBr-github/lshca issue #11: a healthy link
    ("mlxlink.port_not_up", "State                           : Active"),
    ("mlxlink.port_not_up", "Physical state                  : LinkUp"),
    ("mlxlink.recommendation", "Recommendation                  : No issue was observed"),
    ("mlxlink.recommendation", "Recommendation                  : No issue observed"),
    ("mlxlink.recommendation", "Recommendation: lower the learning rate"),
    # wilicc/gpu-burn issue #141 (an H100 NVL with no error), a GPU without ECC
    (
        "smi.table_uncorrectable_ecc",
        "|   0  NVIDIA H100 NVL                On  |   00000000:33:00.0 Off |                    0 |",
    ),
    (
        "smi.table_uncorrectable_ecc",
        "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |                  Off |",
    ),
    (
        "smi.table_uncorrectable_ecc",
        "| N/A   50C    P0   219W / 250W |   4617MiB / 32510MiB |    100%      Default |",
    ),
    # nvidia-smi -q on a healthy GPU
    ("smi.uncorrectable_ecc_count", "            DRAM Uncorrectable                : 0"),
    ("smi.uncorrectable_ecc_count", "            SRAM Uncorrectable Parity     : 0"),
    ("smi.uncorrectable_ecc_count", "            DRAM Correctable              : 12"),
    ("smi.uncorrectable_memory_retired", "        Uncorrectable Error               : 0"),
    ("smi.uncorrectable_memory_retired", "        Double Bit ECC                    : N/A"),
    ("smi.uncorrectable_memory_retired", "        Correctable Error                 : 5"),
    ("smi.sram_threshold_exceeded", "            SRAM Threshold Exceeded       : No"),
    # Megatron's non-tensor result is megatron.validation_rerun's; the enabling notice is healthy
    (
        "megatronrerun.unexpected_result_tensor",
        "ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 "
        "invocation #2 (message='found NaN in local grad norm')",
    ),
    (
        "megatronrerun.unexpected_result_tensor",
        "WARNING:megatron.core.rerun_state_machine:Result validation enabled",
    ),
    # megatron.rerun_exit's own notice
    (
        "megatronrerun.state_notice",
        "WARNING:megatron.core.rerun_state_machine:Exiting now. Please resume the job from the "
        "same checkpoint to rerun the last iteration and establish a diagnostic",
    ),
    # NHC passing, and NHC's hardware checks are not the non-hardware entry's
    ("nhc.drain_reason_hw", "SUCCESS:  nhc:  Health check passed:  check_gpu_count"),
    ("nhc.drain_reason_hw", "NHC: check_ps_service:  Service sshd not running"),
    ("nhc.drain_reason", "   Reason=NHC: check_hw_ib:  No IB port mlx5_0:1 is ACTIVE"),
    ("nhc.drain_reason", "NHC: Check check_nv_gpu_count 2 returned 1"),
    # slurmd running the health check, not failing it
    ("slurm.health_check_failed", "slurmd: debug:  attempting to run health_check [/usr/sbin/nhc]"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_tool_output_matches_nothing_of_the_family() -> None:
    """Zero counts, OK results and active ports read as nothing of this family."""
    healthy = [
        "100.0%  proc'd: 1908 (2273 Gflop/s)   errors: 0   temps: 66 C ",
        "\tGPU 0: OK",
        "# Out of bounds values : 0 OK",
        "\t\tState: Active",
        "\t\tPhysical state: LinkUp",
        "LnkSta: Speed 16GT/s, Width x16",
        "SymbolErrorCounter:..............0",
        "            DRAM Uncorrectable                : 0",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_only_a_test_that_saw_wrong_values_names_the_node() -> None:
    """Memory tests that read wrong values reach the naming threshold (60); everything that can
    also be a cable, a switch, a slot, an old event, another node or the test's own build (gpu-burn
    with a modified kernel, weighed like its FAULTY summary) stays below it."""
    naming = {"memtest.mismatch", "smi.sram_threshold_exceeded"}
    burn = (CATALOG.signatures["gpuburn.compute_errors"], CATALOG.signatures["gpu.burn_faulty"])
    assert burn[0].weight == burn[1].weight < 60
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        if key in naming:
            assert sig.blame is Blame.HARDWARE and 60 <= sig.weight <= 75, key
            assert sig.node_action.value == "inspect", key
        else:
            assert sig.weight < 60, key


def test_fabric_wide_and_health_check_symptoms_act_on_no_node() -> None:
    """A collective test's wrong values span every rank and a health check's failure says nothing
    of its cause: symptoms that act on no node."""
    for key in ("nccltests.out_of_bounds", "nccltests.wrong_elements",
                "nccltests.bandwidth_below_minimum", "ibdiag.link_below_capability",
                "ibstat.port_not_active",
                "megatronrerun.unexpected_result_tensor", "nhc.drain_reason",
                "slurm.health_check_failed"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM, key
        assert sig.weight <= 40, key
        assert sig.node_action.value == "none", key
