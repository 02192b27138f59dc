"""Smoke test of `scripts/score_corpus.py` on a tiny corpus built here: the split rule,
`--assign`, the tallies (cause accuracy, exact suspects, false isolations, unknown rate) and
the targets' exit status."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
XID79 = "NVRM: Xid (PCI:0000:ba:00): 79, pid=1, GPU has fallen off the bus."


@pytest.fixture(scope="module")
def score() -> ModuleType:
    name = "score_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bundle(
    root: Path,
    name: str,
    state: str,
    expected: dict[str, object],
    xid_on: str = "",
    job_line: str = "",
) -> Path:
    path = root / name
    (path / "system").mkdir(parents=True)
    job = {
        "scheduler": "slurm",
        "job": "7",
        "nodes": ["n1", "n2"],
        "started": "2026-05-04T08:00:00Z",
        "ended": "2026-05-04T09:00:00Z",
        "collected": "2026-05-04T09:05:00Z",
        "state": state,
    }
    (path / "job.json").write_text(json.dumps(job))
    if xid_on:
        (path / "system" / f"{xid_on}.log").write_text(
            f"2026-05-04T08:59:00+00:00 {xid_on} kernel: {XID79}\n"
        )
    if job_line:
        (path / "logs").mkdir()
        for node in ("n1", "n2"):
            (path / "logs" / f"{node}.log").write_text(f"[rank0]: {job_line}\n")
    (path / "expected.json").write_text(json.dumps(expected))
    return path


def want(cause: str, *suspects: str, **extra: str) -> dict[str, object]:
    action = {"hardware": "requeue_excluding", "application": "stop"}.get(cause, "requeue")
    return {"cause": cause, "suspect_nodes": list(suspects), "action": action, **extra}


def test_the_split_rule_is_fixed_by_the_name(score: ModuleType) -> None:
    assert [score.split_for(n) for n in ("alpha", "beta", "gamma", "delta")] == [
        "heldout",
        "tune",
        "tune",
        "heldout",
    ]


def test_assign_writes_only_missing_splits(score: ModuleType, tmp_path: Path) -> None:
    a = bundle(tmp_path, "alpha", "PREEMPTED", want("transient"))
    b = bundle(tmp_path, "beta", "PREEMPTED", want("transient", split="heldout"))
    assert score.assign([tmp_path]) == [a]
    assert json.loads((a / "expected.json").read_text())["split"] == "heldout"
    assert json.loads((b / "expected.json").read_text())["split"] == "heldout"  # kept
    assert score.assign([tmp_path]) == []


def test_scores_per_split_and_exits_on_missed_targets(
    score: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle(tmp_path, "alpha", "PREEMPTED", want("transient"))  # heldout by rule: right
    bundle(tmp_path, "delta", "FAILED", want("hardware", "n2"), xid_on="n2")  # heldout: right
    # A wrong expectation on purpose: the engine names n2, the bundle says n1.
    bundle(tmp_path, "beta", "FAILED", want("hardware", "n1", split="heldout"), xid_on="n2")
    bundle(tmp_path, "gamma", "FAILED", want("transient", split="tune"))  # nothing: unknown

    outcomes = score.score([tmp_path])
    held = score.tally(outcomes)["heldout"]["all"]
    assert (held.bundles, held.cause_right, held.hardware, held.hardware_exact) == (3, 3, 2, 1)
    assert (held.false_isolation_bundles, held.false_isolation_nodes) == (1, 1)
    tune = score.tally(outcomes)["tune"]["all"]
    assert (tune.cause_right, tune.unknown, tune.misses) == (0, 1, ["gamma"])

    why = score.failures(outcomes, min_bundles=4)
    assert why == [
        "held-out hardware suspects exact in 1/2",
        "held-out false isolations: 1 node(s) in 1 bundle(s)",
    ]
    assert score.failures(outcomes, min_bundles=5)[0] == "4 corpus bundles, fewer than 5"

    assert score.main([str(tmp_path), "--misses", "--min-bundles", "4"]) == 1
    out = capsys.readouterr().out
    assert "| heldout | **all** | 3 | 3/3 (100%) | 1/2 (50%) | 1/1 | 0/3 (0%) |" in out
    assert "beta" not in out  # a held-out bundle is never named
    assert "Misses (1; held-out misses are not named: 1):" in out
    assert "- [tune] gamma: got unknown [], want transient []" in out
    assert "TARGET MISSED: held-out false isolations" in out
    assert score.main([str(tmp_path), "--no-targets"]) == 0
    capsys.readouterr()
    assert score.main([str(tmp_path), "--json", "--no-targets"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["splits"]["tune"]["all"]["unknown_rate"] == 1.0
    assert {m["bundle"]: m["false_isolations"] for m in report["misses"]} == {"gamma": []}
    assert report["splits"]["heldout"]["all"]["misses"] == []  # counted, never named
    assert report["splits"]["heldout"]["all"]["false_isolation_bundles"] == 1


def test_a_held_out_split_on_target_passes(score: ModuleType, tmp_path: Path) -> None:
    bundle(tmp_path, "alpha", "PREEMPTED", want("transient"))
    bundle(tmp_path, "delta", "FAILED", want("hardware", "n2"), xid_on="n2")
    assert score.main([str(tmp_path), "--min-bundles", "2"]) == 0


def test_what_the_first_decision_does_to_the_job(
    score: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = "ModuleNotFoundError: No module named 'flash_attn'"  # application 85: a stop
    value = "ValueError: bad shape"  # application 50: one confirmation retry first
    bundle(tmp_path, "a", "PREEMPTED", want("transient", split="tune"))
    bundle(tmp_path, "b", "FAILED", want("hardware", "n2", split="tune"), xid_on="n2")
    bundle(tmp_path, "c", "FAILED", want("hardware", "n1", split="tune"), xid_on="n2")
    bundle(tmp_path, "d", "FAILED", want("transient", split="tune"))  # unknown: a retry too
    bundle(tmp_path, "e", "FAILED", want("application", split="tune"), job_line=missing)
    bundle(tmp_path, "f", "FAILED", want("application", split="tune"), job_line=value)
    bundle(tmp_path, "g", "FAILED", want("unknown", split="tune"), job_line=missing)
    bundle(tmp_path, "h", "FAILED", want("application", split="tune"))  # unknown: retried
    bundle(tmp_path, "i", "PREEMPTED", want("application", split="tune"))
    bundle(tmp_path, "j", "FAILED", want("hardware", "n2", split="tune"))

    got = {o.bundle: (o.got_decision, o.got_exclude, o.handling)
           for o in score.score([tmp_path])}  # fmt: skip
    assert got == {
        "a": ("retry_infrastructure", (), "right"),
        "b": ("requeue_excluding", ("n2",), "right"),
        "c": ("requeue_excluding", ("n2",), "healthy_excluded"),
        "d": ("retry_user", (), "right"),
        "e": ("stop", (), "right"),
        "f": ("retry_user", (), "extra_retry"),
        "g": ("stop", (), "stopped"),
        "h": ("retry_user", (), "extra_retry"),
        "i": ("retry_infrastructure", (), "app_retried"),
        "j": ("retry_user", (), "broken_node_kept"),
    }
    assert score.main([str(tmp_path), "--no-targets"]) == 0
    out = capsys.readouterr().out
    assert "| tune | 10 | 4/10 (40%) | 2/10 (20%) | 1/10 (10%) | 1/10 (10%) | 1/10 (10%) " in out
    assert score.main([str(tmp_path), "--json", "--no-targets"]) == 0
    handled = json.loads(capsys.readouterr().out)["splits"]["tune"]["all"]["handled"]
    assert handled["healthy_excluded"] == 1 and handled["right"] == 4
