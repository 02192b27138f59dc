"""`autorecover agent check --once --drain` as Slurm's HealthCheckProgram, on the real cluster."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from autorecover.cli.main import main
from autorecover.testing.slurm.harness import SlurmHarness

FIXTURES = Path(__file__).parents[2] / "fixtures" / "agent"
XID79 = "Mar  2 11:31:52 gpu03 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def check(slurm: SlurmHarness, node: str, kernel_log: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        main,
        ["agent", "check", "--once", "--drain", "--node", node,
         "--root", str(FIXTURES / "nodes" / "healthy"),
         "--nvml-replay", str(FIXTURES / "nvml" / "healthy.json"),
         "--kernel-source", "file", "--kernel-log", str(kernel_log)],
        env=dict(slurm.cluster.env),
    )  # fmt: skip
    return result.exit_code, result.output


def test_slurm_healthcheck_drains_a_faulty_node_with_its_reason(
    slurm: SlurmHarness, tmp_path: Path
) -> None:
    log = tmp_path / "kern.log"
    log.write_text(XID79 + "\n")
    code, output = check(slurm, "gpu03", log)
    assert code == 1, output
    assert "xid.79" in output
    node = slurm.wait_node("gpu03", lambda n: "DRAIN" in n.flags, "drained")
    assert node.reason.startswith("autorecover: hc-gpu03-")
    assert "xid.79" in node.reason
    # ours: the hardware side may resume it later (a person's drain it would leave alone)
    assert slurm.scheduler.observe(["gpu03"])["gpu03"].cordoned_by


def test_slurm_healthcheck_leaves_a_healthy_node_alone(slurm: SlurmHarness, tmp_path: Path) -> None:
    log = tmp_path / "kern.log"
    log.write_text("Mar  2 11:31:52 gpu02 kernel: perf: interrupt took too long\n")
    code, output = check(slurm, "gpu02", log)
    assert code == 0, output
    node = slurm.scheduler.reader.node("gpu02")
    assert "DRAIN" not in node.flags
