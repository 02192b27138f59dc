"""Golden tests for stragglers and slowdowns (signatures-straggler.toml, catalog round 8).

Real lines (each cited; a few rendered from the emitter's format string where no public line
exists, said so beside them) from the kernel's x86 thermal throttling, mcelog, `nvidia-smi -q`'s
clock event reasons, amdgpu's SMU, Megatron-LM's StragglerDetector and nvidia-resiliency-ext's
(NeMo's) straggler detection go through the scanner's own matcher. A node's own CPU or GPU
throttled is that node's hardware, but too weak to name it alone; the detectors' periodic
reports are printed by rank 0 about every rank and stay `info`, keeping the slowest rank as a
capture. Look-alikes must not match, and every entry of the family file has a golden line.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    Golden,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-straggler.toml"
NAMESPACES = frozenset({"straggler"})
KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "straggler.cpu_thermal_throttle": Blame.HARDWARE,
    "straggler.cpu_throttle_cleared": Blame.INFO,
    "straggler.cpu_power_limit": Blame.INFO,
    "straggler.gpu_sw_thermal_slowdown": Blame.HARDWARE,
    "straggler.gpu_clocks_event_benign": Blame.INFO,
    "straggler.amdgpu_throttled": Blame.HARDWARE,
    "straggler.megatron_report": Blame.INFO,
    "straggler.megatron_rank_extremes": Blame.INFO,
    "straggler.megatron_control": Blame.INFO,
    "straggler.nvrx_scores": Blame.INFO,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # community.intel.com "Computing CPU throttling time" (a Xeon node's syslog)
    ("1498883997 2017 Jul  1 06:39:57 node_id kern crit kernel CPU42: Package temperature above "
     "threshold, cpu clock throttled (total events = 1174)", "straggler.cpu_thermal_throttle",
     {"cpu": "42", "level": "Package", "events": "1174"}),
    # mailman.linux-thinkpad.org linux-thinkpad 2014-February/051732 (a ThinkPad x220)
    ("kernel: CPU0: Core temperature above threshold, cpu clock throttled (total events = 1)",
     "straggler.cpu_thermal_throttle", {"cpu": "0", "level": "Core", "events": "1"}),
    ("mcelog[672]: Processor 1 heated above trip temperature. Throttling enabled.",
     "straggler.cpu_thermal_throttle", {"mce_cpu": "1"}),
    ("kernel: CPU1: Core temperature/speed normal", "straggler.cpu_throttle_cleared",
     {"cpu": "1", "level": "Core"}),
    ("kernel: CPU2: Package temperature/speed normal", "straggler.cpu_throttle_cleared",
     {"level": "Package"}),
    # rendered from therm_throt.c since Linux 5.5 (therm_throt_process's rate-limited warning)
    ("kernel: CPU9: Package temperature is above threshold, cpu clock is throttled (total events "
     "= 36)", "straggler.cpu_thermal_throttle", {"cpu": "9", "events": "36"}),
    ("kernel: CPU9: Package temperature/speed normal (total events = 36)",
     "straggler.cpu_throttle_cleared", {"cpu": "9"}),
    # superuser.com question 459354 (a MacBook Pro's dmesg); odi.ch weblog posting 661
    ("Aug  8 09:29:31 infinity kernel: [79791.789404] CPU1: Package power limit notification "
     "(total events = 40365)", "straggler.cpu_power_limit",
     {"cpu": "1", "level": "Package", "events": "40365"}),
    ("Dec 28 11:44:00 kernel: CPU1: Package power limit normal", "straggler.cpu_power_limit",
     {"cpu": "1"}),
    # kubeflow/kubeflow issue #68's `nvidia-smi -q` rows, with the value a busy or hot GPU shows
    ("        SW Thermal Slowdown         : Active", "straggler.gpu_sw_thermal_slowdown", {}),
    ("        SW Power Cap                : Active", "straggler.gpu_clocks_event_benign",
     {"reason": "SW Power Cap"}),
    ("        Sync Boost                  : Active", "straggler.gpu_clocks_event_benign",
     {"reason": "Sync Boost"}),
    ("        Applications Clocks Setting : Active", "straggler.gpu_clocks_event_benign",
     {"reason": "Applications Clocks Setting"}),
    # rendered from smu_v13_0_6_ppt.c's dev_warn (the new and the old wording)
    ("amdgpu 0001:01:00.0: WARN: GPU is throttled, expect performance decrease. VR.",
     "straggler.amdgpu_throttled", {"reason": "VR"}),
    ("amdgpu 0000:0c:00.0: WARN: GPU thermal throttling temperature reached, expect performance "
     "decrease. HBM and PROCHOT.", "straggler.amdgpu_throttled", {"reason": "HBM and PROCHOT"}),
    # NVIDIA/Megatron-LM megatron/core/README_STRAGGLER.md
    (" 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: "
     "3468.20ms/0 | MnPwr/Rnk: 601796W/8 | MxPwr/Rnk: 683801W/18 | MnTmp/Rnk: 52C/0 | MxTmp/Rnk: "
     "65C/21 | MnUtl/Rnk: 97%/8 | MxUtl/Rnk: 100%/6 | MnClk/Rnk: 1950MHz/28 | MxClk/Rnk: 1980MHz/0 "
     "| MnDRtt/Rnk: 14.27ms/23 | MxDRtt/Rnk: 34.65ms/3 | MnEtpt/Rnk: 296.02TF/0 | MxEtpt/Rnk: "
     "297.32TF/8", "straggler.megatron_report",
     {"min_rtt": "3453.08", "fast_rank": "8", "max_rtt": "3468.20", "rank": "0"}),
    (" 0: INFO:megatron.core.utils:^^^^ Bottom 4 Ranks with lowest  Etpt(TF): 296.02/0, 296.17/2, "
     "296.23/1, 296.23/4,", "straggler.megatron_rank_extremes",
     {"count": "4", "etpt": "296.02", "rank": "0"}),
    (" 0: INFO:megatron.core.utils:^^^^ Top    4 Ranks with highest Etpt(TF): 297.28/15, 297.28/11, "
     "297.32/12, 297.32/8,", "straggler.megatron_rank_extremes", {}),
    # rendered from megatron/core/utils.py (StragglerDetector's controller, no public line found)
    ("INFO:megatron.core.utils:Toggling StragglerDetector State OFF", "straggler.megatron_control",
     {"state": "OFF"}),
    ("WARNING:megatron.core.utils:StragglerDetector cannot be controlled.. [Errno 98] Address "
     "already in use", "straggler.megatron_control", {}),
    ("WARNING:megatron.core.utils:Event Start/Stop out of sync 10/9", "straggler.megatron_control",
     {}),
    # rendered from nvidia-resiliency-ext straggler_det_callback.py (no public line found)
    ("  Rank=13 Node=gpu-a02 Score=0.62", "straggler.nvrx_scores",
     {"rank": "13", "host": "gpu-a02", "score": "0.62"}),
    ("GPU relative performance:", "straggler.nvrx_scores", {}),
    (" Worst performing 3/64 ranks:", "straggler.nvrx_scores", {}),
    ("Straggler report processing time: 0.042 sec.", "straggler.nvrx_scores", {}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # the kernel's boot note that it handles thermal interrupts (odi.ch weblog posting 661)
    ("straggler.cpu_thermal_throttle", "CPU0: Thermal monitoring enabled (TM1)"),
    # the rows not active (kubeflow/kubeflow issue #68)
    ("straggler.gpu_sw_thermal_slowdown", "        SW Thermal Slowdown         : Not Active"),
    ("straggler.gpu_clocks_event_benign", "        SW Power Cap                : Not Active"),
    ("straggler.gpu_sw_thermal_slowdown", "            HW Thermal Slowdown     : Active"),
    # the throttle ending is not a throttle
    ("straggler.cpu_thermal_throttle", "kernel: CPU1: Core temperature/speed normal"),
    ("straggler.cpu_thermal_throttle", "mcelog[672]: Processor 1 below trip temperature. "
     "Throttling disabled"),
    # the detectors' warning naming stragglers is nvrx.straggler's, not the score table's
    ("straggler.nvrx_scores", "STRAGGLER DETECTION WARNING: Some GPUs have worse relative "
     "performance. Affected ranks: {StragglerId(rank=13, node='gpu-a02')}"),
    # Megatron's argument dump (rendered from megatron/training/arguments.py's print)
    ("straggler.megatron_control", "  log_straggler ................................... True"),
    ("straggler.megatron_report", "  log_straggler ................................... True"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_no_straggler_line_names_a_node_alone() -> None:
    """A slowdown explains a job that ran out of its time, never a crash: the hardware readings
    stay well below attribution's threshold (60) and only ask to watch the node; the reports
    and benign reasons act on nothing."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.HARDWARE:
            assert sig.weight < 60 and sig.node_action.value == "monitor", key
        else:
            assert sig.blame is Blame.INFO and sig.weight == 0, key
            assert sig.node_action.value == "none", key


def test_a_throttled_cpu_is_the_printing_nodes_hardware() -> None:
    line = ("kernel: CPU42: Package temperature above threshold, cpu clock throttled (total events "
            "= 1174)")  # fmt: skip
    assert found(line, Source.SYSTEM) == [("straggler.cpu_thermal_throttle", Blame.HARDWARE, 20)]


def test_rank_zeros_report_says_nothing_about_rank_zeros_node() -> None:
    """Megatron's report names the slowest rank, printed on rank 0's node: no finding of it may
    speak against the node that printed it."""
    line = CATALOG.signatures["straggler.megatron_report"].example
    assert all(blame is Blame.INFO for _, blame, _ in found(line, Source.LOGS))


def test_the_hw_rows_stay_with_the_existing_nvml_entry() -> None:
    """`nvidia-smi -q`'s HW rows are `nvml.hw_slowdown_active`'s: the family does not take them."""
    matched = set(hits("            HW Power Brake Slowdown : Active"))
    assert "nvml.hw_slowdown_active" in matched
    assert not {k for k in matched if k.startswith("straggler.")}


def test_only_the_bottom_line_names_a_slowest_rank() -> None:
    """The top line lists the fastest ranks: it must not leave a `rank` capture behind."""
    line = (" 0: INFO:megatron.core.utils:^^^^ Top    4 Ranks with highest Etpt(TF): 297.28/15, "
            "297.28/11, 297.32/12, 297.32/8,")  # fmt: skip
    assert "rank" not in hits(line)["straggler.megatron_rank_extremes"]
