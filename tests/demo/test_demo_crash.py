"""Kill -9 the demonstration's engine right after its requeue, restart it on the same
directory: no incident lost, none doubled, every action done once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from demo.support import Left, run_demo


def test_demo_engine_killed_mid_recovery_loses_nothing_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    crashed = run_demo("--scenario", "xid79", "--dir", str(tmp_path), "--crash-after", "requeue")
    assert crashed.returncode == -9, crashed.stdout[-2000:] + crashed.stderr[-2000:]
    where = tmp_path / "xid79"
    before = Left(where)
    [incident] = before.jobs.incidents("train")
    done_before = {a.action.id for a in before.jobs.actions() if a.status.value == "done"}
    before.close()
    assert done_before == {f"{incident.id}/requeue_excluding"}

    restarted = run_demo("--scenario", "xid79", "--dir", str(tmp_path), "--resume-s", "3")
    assert restarted.returncode == 0, restarted.stdout[-2000:] + restarted.stderr[-2000:]
    left = Left(where)
    try:
        assert [i.id for i in left.jobs.incidents()] == [incident.id]  # kept, not doubled
        actions = left.jobs.actions()
        assert [a.action.id for a in actions] == [f"{incident.id}/requeue_excluding"]
        assert actions[0].status.value == "done"
        attempts = sorted(p.name for p in (where / "jobs" / "train").iterdir())
        assert attempts == ["0", "1"]  # the requeue was carried out once
        hardware = left.hardware.actions()
        ids = Counter(a.action.id for a in hardware)
        assert all(n == 1 for n in ids.values()), ids
        assert all(a.status.value in ("done", "intended") for a in hardware)
        assert left.states("node-1").count("quarantined") == 1
        assert left.jobs.pending_handovers() == []  # the hand-over reached hardware recovery
        # Whenever it arrived, it did not send the validated node-1 back: its line is older.
        assert left.states("node-1")[-2:] == ["validating", "healthy"]
    finally:
        left.close()
