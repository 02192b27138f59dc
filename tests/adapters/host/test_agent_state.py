"""The agent's state file: atomic, and an unreadable one means starting afresh."""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.host.agent_state import StateFile


def test_round_trip_and_nothing_left_behind(tmp_path: Path) -> None:
    state = StateFile(tmp_path / "state" / "agent.json")
    assert state.load() == {}
    assert state.save({"kernel": {"cursor": {"kind": "kmsg", "boot_id": "b", "seq": 9}}})
    assert state.load()["kernel"]["cursor"]["seq"] == 9
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["agent.json"]


def test_corrupt_or_foreign_file_is_an_empty_state(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    state = StateFile(path)
    for text in ("{", "[]", '{"format": "other", "probes": {}}'):
        path.write_text(text)
        assert state.load() == {}
    assert state.errors == 3


def test_unwritable_state_is_counted_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    state = StateFile(blocker / "agent.json")  # a directory that is a file
    assert state.save({"a": 1}) is False
    assert state.errors == 1
