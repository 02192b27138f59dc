"""Each order kind's steps and verdicts, decided on recorded outputs (agent_actions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from agent.acting.support import ACTIONS, DCGM, NODE, order
from autorecover.adapters.host.detached import RunResult
from autorecover.adapters.http.orders_client import AgentOrder, order_from_dict
from autorecover.agent.acting.commands import Commands
from autorecover.agent.acting.executing import (
    AWAIT_REBOOT,
    Step,
    dry_run,
    plan,
    screen,
)
from autorecover.agent.acting.journal import Outcome

COMMANDS = Commands(which=lambda name: f"/usr/bin/{name}")
NOW = datetime.now(UTC)


def make(kind: str, args: dict[str, Any] | None = None, **over: Any) -> AgentOrder:
    return order_from_dict(order(kind, args, **over))


def ran(name: str, rc: int = 0, stderr: str = "", **kw: Any) -> RunResult:
    return RunResult(rc, (ACTIONS / name).read_text() if name else "", stderr, **kw)


def test_agent_actions_diagnose_pass_on_a_recorded_dcgm_run() -> None:
    o = make("diagnose", {"level": 3})
    step = plan(o, [], COMMANDS)
    assert isinstance(step, Step) and step.argv[1:] == ("diag", "-r", "3", "-j")
    out = plan(o, [(step.argv, RunResult(0, (DCGM / "diag-4x-pass.json").read_text()))], COMMANDS)
    assert isinstance(out, Outcome)
    assert (out.status, out.verdict) == ("done", "pass")
    assert out.detail.startswith("dcgmi diag -r 3: pass")


def test_agent_actions_diagnose_fail_carries_dcgm_warnings_as_evidence() -> None:
    o = make("diagnose", {"level": 2})
    text = (DCGM / "diag-4x-memory-isolate.json").read_text()
    out = plan(o, [(COMMANDS.diag(2), RunResult(226, text))], COMMANDS)
    assert isinstance(out, Outcome)
    assert (out.status, out.verdict) == ("done", "fail")
    assert out.evidence and all(len(e) <= 300 for e in out.evidence)
    assert "failed:" in out.detail


def test_agent_actions_diagnose_without_dcgm_is_an_error_verdict() -> None:
    o = make("diagnose", {"level": 1})
    missing = RunResult(127, error="dcgmi: cannot run: No such file or directory")
    out = plan(o, [(COMMANDS.diag(1), missing)], COMMANDS)
    assert isinstance(out, Outcome)
    assert (out.status, out.verdict) == ("failed", "error")
    engine_down = RunResult(
        255, "Error: unable to establish a connection to the specified host: localhost\n"
    )
    out = plan(o, [(COMMANDS.diag(1), engine_down)], COMMANDS)
    assert isinstance(out, Outcome) and out.verdict == "error"
    assert "unable to establish a connection" in out.detail


def test_agent_actions_bad_arguments_are_refused_before_anything_runs() -> None:
    for o in (make("diagnose", {"level": 9}), make("reset_gpu", {"gpus": ["gpu0; reboot"]}),
              make("collect_bundle", {"since": "yesterday", "until": NOW.isoformat()})):  # fmt: skip
        out = plan(o, [], COMMANDS)
        assert isinstance(out, Outcome) and out.status == "refused", o.kind
        assert out.detail.startswith("invalid arguments")


def test_agent_actions_reset_is_refused_while_processes_hold_the_gpu() -> None:
    o = make("reset_gpu", {"gpus": ["0000:18:00.0"]})
    query = plan(o, [], COMMANDS)
    assert isinstance(query, Step) and "--query-compute-apps" in query.argv[1]
    out = plan(o, [(query.argv, ran("compute-apps-busy.csv"))], COMMANDS)
    assert isinstance(out, Outcome) and out.status == "refused"
    assert "GPU 0000:18:00.0 is held by pid 31337 (python3)" in out.detail


def test_agent_actions_reset_of_idle_gpus_resets_each_one() -> None:
    o = make("reset_gpu", {"gpus": ["0000:18:00.0", "0000:2a:00.0"]})
    done = [(COMMANDS.compute_apps(), ran("compute-apps-idle.csv"))]
    first = plan(o, done, COMMANDS)
    assert isinstance(first, Step) and first.argv[1:] == ("--gpu-reset", "-i", "0000:18:00.0")
    done.append((first.argv, ran("gpu-reset-ok-18.txt")))
    second = plan(o, done, COMMANDS)
    assert isinstance(second, Step) and second.argv[-1] == "0000:2a:00.0"
    done.append((second.argv, ran("gpu-reset-ok-2a.txt")))
    out = plan(o, done, COMMANDS)
    assert isinstance(out, Outcome) and out.status == "done"
    assert "GPU 00000000:18:00.0 was successfully reset." in out.detail


def test_agent_actions_reset_of_all_gpus_lists_them_first() -> None:
    o = make("reset_gpu", {"gpus": []})
    listing = plan(o, [], COMMANDS)
    assert isinstance(listing, Step) and listing.argv[1] == "--query-gpu=pci.bus_id"
    done = [(listing.argv, ran("gpu-list.csv"))]
    # another GPU of the node is busy: "all GPUs" includes it
    out = plan(o, [*done, (COMMANDS.compute_apps(), ran("compute-apps-busy.csv"))], COMMANDS)
    assert isinstance(out, Outcome) and out.status == "refused"
    assert "00000000:2A:00.0" in out.detail and "00000000:18:00.0" in out.detail


def test_agent_actions_reset_that_nvidia_smi_finds_in_use_keeps_its_words() -> None:
    o = make("reset_gpu", {"gpus": ["0000:18:00.0"]})
    for fixture in ("gpu-reset-in-use.txt", "gpu-reset-in-use-client.txt"):
        done = [(COMMANDS.compute_apps(), ran("compute-apps-idle.csv")),
                (COMMANDS.gpu_reset("0000:18:00.0"), ran(fixture, rc=255))]  # fmt: skip
        out = plan(o, done, COMMANDS)
        assert isinstance(out, Outcome) and out.status == "refused"
        assert "exited 255" in out.detail and "use by another" in out.detail


def test_agent_actions_reboot_waits_for_a_new_boot() -> None:
    o = make("reboot")
    step = plan(o, [], COMMANDS)
    assert isinstance(step, Step) and step.argv == ("/usr/bin/systemctl", "reboot")
    assert step.announce
    assert plan(o, [(step.argv, RunResult(0))], COMMANDS) is AWAIT_REBOOT
    refused = RunResult(1, "", "Failed to reboot system via logind: Access denied\n")
    out = plan(o, [(step.argv, refused)], COMMANDS)
    assert isinstance(out, Outcome) and out.status == "failed"
    assert "Access denied" in out.detail


def test_agent_actions_bundle_collects_three_attachments_and_notes_failures() -> None:
    since = datetime(2026, 3, 2, 9, 40, tzinfo=UTC)
    o = make("collect_bundle", {"since": since.isoformat(),
                                "until": (since + timedelta(minutes=10)).isoformat()})  # fmt: skip
    done: list[tuple[tuple[str, ...], RunResult]] = []
    outputs = [ran("journalctl-k.txt"), ran("nvidia-smi-q.txt"), RunResult(127, error="no dcgmi")]
    for result in outputs:
        step = plan(o, done, COMMANDS)
        assert isinstance(step, Step)
        done.append((step.argv, result))
    out = plan(o, done, COMMANDS)
    assert isinstance(out, Outcome) and out.status == "done"
    assert set(out.attachments) == {"kernel.log", "nvidia-smi-q.txt"}
    assert "dcgm-health.json not collected" in out.detail


def test_agent_actions_bundle_keeps_the_tail_of_a_long_log() -> None:
    since = datetime(2026, 3, 2, 9, 40, tzinfo=UTC)
    o = make("collect_bundle", {"since": since.isoformat(), "until": since.isoformat()})
    huge = "old line\n" * 40_000 + "the last line\n"
    done = [(COMMANDS.kernel_log(since, since), RunResult(0, huge)),
            (COMMANDS.nvidia_smi_q(), RunResult(9, "", "NVIDIA-SMI has failed")),
            (COMMANDS.dcgm_health(), RunResult(0, (DCGM / "health-healthy.json").read_text()))]  # fmt: skip
    out = plan(o, done, COMMANDS)
    assert isinstance(out, Outcome)
    log = out.attachments["kernel.log"]
    assert len(log.encode()) <= 256 * 1024 and log.endswith("the last line\n")
    assert "tail kept" in out.detail and "NVIDIA-SMI has failed" in out.detail


def test_agent_actions_screen_refuses_other_nodes_disabled_and_late_orders() -> None:
    o = make("diagnose", {"level": 1})
    assert screen(o, NODE, enabled=True, now=NOW) is None
    other = screen(o, "gpu-h03", enabled=True, now=NOW)
    assert other is not None and other.status == "refused" and "gpu-h03" in other.detail
    off = screen(o, NODE, enabled=False, now=NOW)
    assert off == Outcome("refused", "actions disabled on this node")
    late = screen(o, NODE, enabled=True, now=NOW + timedelta(hours=2))
    assert late is not None and "deadline" in late.detail
    odd = screen(make("format_disk"), NODE, enabled=True, now=NOW)
    assert odd is not None and "unknown order kind" in odd.detail


def test_agent_actions_dry_run_says_what_would_run() -> None:
    out = dry_run(make("reset_gpu", {"gpus": ["0000:18:00.0"]}), COMMANDS)
    assert out.status == "done"
    assert out.detail.startswith("dry-run: would run /usr/bin/nvidia-smi --query-compute-apps")
    assert "/usr/bin/nvidia-smi --gpu-reset -i 0000:18:00.0" in out.detail
    assert (
        dry_run(make("reboot"), COMMANDS).detail == "dry-run: would run /usr/bin/systemctl reboot"
    )
