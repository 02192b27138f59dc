"""The order journal: durable, readable after a restart, pruned when old (agent_actions)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent.acting.support import order
from autorecover.adapters.http.orders_client import order_from_dict
from autorecover.agent.acting.journal import (
    Entry,
    Journal,
    Outcome,
    Phase,
    StepRecord,
    read_boot_id,
    with_step,
)

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def test_agent_actions_journal_round_trips_every_field(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "orders")
    o = order_from_dict(order("reset_gpu", {"gpus": ["0000:18:00.0"]}, id="n/1/reset_gpu#x"))
    entry = with_step(Entry(o, NOW), 0, StepRecord(("nvidia-smi", "-q"), NOW, "boot-a", 42, 0))
    outcome = Outcome("done", "ok", None, ("e1",), {"kernel.log": "line\n"})
    entry = Entry(o, NOW, Phase.FINISHED, entry.steps, outcome, running_sent=True)
    journal.save(entry)
    assert list(journal.entries()) == [entry]
    folder = journal.folder(o.id)
    assert (
        folder.parent == tmp_path / "orders" and "/" not in folder.name and "#" not in folder.name
    )
    assert [p.name for p in folder.iterdir()] == ["journal.json"]  # no temporary files left


def test_agent_actions_unreadable_journals_are_left_alone(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "orders")
    journal.save(Entry(order_from_dict(order("reboot")), NOW))
    bad = tmp_path / "orders" / "x" / "journal.json"
    bad.parent.mkdir()
    bad.write_text("{not json")
    other = tmp_path / "orders" / "y" / "journal.json"
    other.parent.mkdir()
    other.write_text(json.dumps({"format": "something-else/9"}))
    assert [e.order.kind for e in journal.entries()] == ["reboot"]
    assert bad.exists()


def test_agent_actions_closed_orders_are_pruned_after_a_while(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "orders")
    old = Entry(order_from_dict(order("reboot", id="old")), NOW, Phase.CLOSED)
    open_ = Entry(order_from_dict(order("reboot", id="open")), NOW, Phase.STARTED)
    journal.save(old)
    journal.save(open_)
    assert journal.prune(NOW + timedelta(days=31)) == 1
    assert [e.order.id for e in journal.entries()] == ["open"]


def test_agent_actions_boot_id_is_read_from_an_injectable_file(tmp_path: Path) -> None:
    path = tmp_path / "boot_id"
    path.write_text("2f0c5e0a-1f2b-4c4d-9e8f-0a1b2c3d4e5f\n")
    assert read_boot_id(path) == "2f0c5e0a-1f2b-4c4d-9e8f-0a1b2c3d4e5f"
    assert read_boot_id(tmp_path / "absent") == ""
