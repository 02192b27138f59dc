"""The actor runs orders once with real (stand-in) processes and reports them (agent_actions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent.acting.support import (
    DCGM,
    NODE,
    ContractEngine,
    make_actor,
    order,
    standins,
    tick_until,
    wait_for,
)
from autorecover.agent.acting.journal import Phase


def test_agent_actions_diagnose_runs_once_and_reports_running_then_done(tmp_path: Path) -> None:
    kit = standins(tmp_path / "kit")
    kit.clear("dcgmi")
    kit.answer("dcgmi", r"^diag -r 2 -j$", stdout=DCGM / "diag-4x-pass.json", sleep_s=0.5)
    engine = ContractEngine()
    engine.place(order("diagnose", {"level": 2}))
    actor = make_actor(tmp_path, kit, engine)
    oid = f"{NODE}/1/diagnose"
    tick_until(actor, lambda: bool(engine.finals(oid)))
    statuses = [b["status"] for i, b in engine.reports if i == oid]
    assert statuses == ["running", "done"]
    final = engine.finals(oid)[0]
    assert final["verdict"] == "pass" and final["node"] == NODE
    assert [c.argv for c in kit.calls("dcgmi")] == [["diag", "-r", "2", "-j"]]
    # the journal remembers it: listed again (an engine restored from a backup) it is not re-run
    engine.orders[oid]["status"] = "queued"
    for _ in range(5):
        actor.tick(datetime.now(UTC))
    assert len(kit.calls("dcgmi")) == 1


def test_agent_actions_a_restarted_actor_reattaches_to_the_running_child(tmp_path: Path) -> None:
    kit = standins(tmp_path / "kit")
    kit.clear("dcgmi")
    kit.answer("dcgmi", r"^diag", stdout=DCGM / "diag-4x-pass.json", sleep_s=1.5)
    engine = ContractEngine()
    engine.place(order("diagnose", {"level": 1}))
    first = make_actor(tmp_path, kit, engine)
    tick_until(first, lambda: bool(kit.calls("dcgmi")))
    # the agent "dies" here (its object is dropped; the detached child runs on)
    second = make_actor(tmp_path, kit, engine)
    oid = f"{NODE}/1/diagnose"
    tick_until(second, lambda: bool(engine.finals(oid)))
    assert len(kit.calls("dcgmi")) == 1
    assert engine.finals(oid)[0]["status"] == "done"
    # the first "agent" still holds its child's handle: collect it (no zombie, no warning)
    wait_for(lambda: first.processes.result(first.journal.run_dir(oid, 0)), what="child")


def test_agent_actions_reset_refused_while_busy_never_resets(tmp_path: Path) -> None:
    from agent.acting.support import ACTIONS

    kit = standins(tmp_path / "kit")
    kit.clear("nvidia-smi")
    kit.answer("nvidia-smi", r"--query-compute-apps", stdout=ACTIONS / "compute-apps-busy.csv")
    kit.answer("nvidia-smi", r"--gpu-reset", stdout=ACTIONS / "gpu-reset-ok-18.txt")
    engine = ContractEngine()
    engine.place(order("reset_gpu", {"gpus": ["0000:18:00.0"]}))
    actor = make_actor(tmp_path, kit, engine)
    oid = f"{NODE}/1/reset_gpu"
    tick_until(actor, lambda: bool(engine.finals(oid)))
    final = engine.finals(oid)[0]
    assert final["status"] == "refused"
    assert "pid 31337 (python3)" in final["detail"]
    assert not [c for c in kit.calls("nvidia-smi") if "--gpu-reset" in c.argv]


def test_agent_actions_reset_of_idle_gpus(tmp_path: Path) -> None:
    kit = standins(tmp_path / "kit")
    engine = ContractEngine()
    engine.place(order("reset_gpu", {"gpus": ["0000:18:00.0", "0000:2a:00.0"]}))
    actor = make_actor(tmp_path, kit, engine)
    oid = f"{NODE}/1/reset_gpu"
    tick_until(actor, lambda: bool(engine.finals(oid)))
    assert engine.finals(oid)[0]["status"] == "done"
    resets = [c.argv for c in kit.calls("nvidia-smi") if "--gpu-reset" in c.argv]
    assert resets == [["--gpu-reset", "-i", "0000:18:00.0"], ["--gpu-reset", "-i", "0000:2a:00.0"]]


def test_agent_actions_reboot_is_done_once_the_boot_id_changed(tmp_path: Path) -> None:
    kit = standins(tmp_path / "kit")
    rebooted = tmp_path / "rebooted"
    kit.answer("systemctl", r"^reboot$", touch=rebooted)
    engine = ContractEngine()
    engine.place(order("reboot"))
    actor = make_actor(tmp_path, kit, engine)
    oid = f"{NODE}/1/reboot"
    tick_until(actor, lambda: actor.entries[oid].phase is Phase.AWAITING_REBOOT)
    assert [b["status"] for i, b in engine.reports if i == oid] == ["running"]
    (tmp_path / "boot_id").write_text("boot-b\n")  # the node came back
    after = make_actor(tmp_path, kit, engine)
    tick_until(after, lambda: bool(engine.finals(oid)))
    final = engine.finals(oid)[0]
    assert final["status"] == "done"
    assert final["detail"] == "rebooted (boot id boot-a -> boot-b)"
    assert rebooted.read_text() == "reboot\n"
    assert len(kit.calls("systemctl")) == 1


def test_agent_actions_bundle_attaches_what_it_collected(tmp_path: Path) -> None:
    kit = standins(tmp_path / "kit")
    kit.clear("journalctl")  # no journal on this node: dmesg, cut to the window
    engine = ContractEngine()
    since = datetime(2026, 3, 2, 9, 40, tzinfo=UTC)
    args = {"since": since.isoformat(), "until": (since + timedelta(minutes=10)).isoformat()}
    engine.place(order("collect_bundle", args, id=f"{NODE}/1/drain#bundle"))
    (kit.bin / "journalctl").unlink()
    actor = make_actor(tmp_path, kit, engine)
    oid = f"{NODE}/1/drain#bundle"
    tick_until(actor, lambda: bool(engine.finals(oid)))
    final = engine.finals(oid)[0]
    assert final["status"] == "done", final["detail"]
    assert set(final["attachments"]) == {"kernel.log", "nvidia-smi-q.txt", "dcgm-health.json"}
    assert final["attachments"]["kernel.log"].count("\n") == 2
    assert [c.argv for c in kit.calls("dmesg")] == [["--time-format", "iso"]]


def test_agent_actions_disabled_and_dry_run_run_nothing(tmp_path: Path) -> None:
    kit = standins(tmp_path / "kit")
    engine = ContractEngine()
    engine.place(order("reboot"))
    engine.place(order("diagnose", {"level": 1}, dry_run=True))
    off = make_actor(tmp_path / "off", kit, engine, enabled=False)
    tick_until(off, lambda: bool(engine.finals(f"{NODE}/1/reboot")))
    assert engine.finals(f"{NODE}/1/reboot")[0]["detail"] == "actions disabled on this node"
    dry = make_actor(tmp_path / "dry", kit, ContractEngine(orders={
        "x": order("diagnose", {"level": 3}, id="x")}), dry_run=True)  # fmt: skip
    tick_until(dry, lambda: dry.entries.get("x") is not None
               and dry.entries["x"].phase is Phase.CLOSED)  # fmt: skip
    assert kit.calls() == []
    outcome = dry.entries["x"].outcome
    assert outcome is not None and outcome.detail.startswith("dry-run: would run ")
    assert outcome.detail.endswith("dcgmi diag -r 3 -j")


def test_agent_actions_reports_wait_for_the_engine_and_stop_when_it_moved_on(
    tmp_path: Path,
) -> None:
    kit = standins(tmp_path / "kit")
    engine = ContractEngine()
    actor = make_actor(tmp_path, kit, engine, enabled=False, every_s=5.0)
    now = datetime.now(UTC)
    engine.place(order("diagnose", {"level": 1}, id="d"))
    engine.unavailable, engine.unavailable_reports = 1, 1  # a poll meets a 503, then a report
    actor.tick(now)
    assert "d" not in actor.entries  # backing off
    actor.tick(now + timedelta(seconds=1))
    assert "d" not in actor.entries
    actor.tick(now + timedelta(seconds=6))  # fetched and refused; the report meets a 503: kept
    assert actor.entries["d"].phase is Phase.FINISHED
    assert engine.reports == []
    actor.tick(now + timedelta(seconds=30))
    assert actor.entries["d"].phase is Phase.CLOSED
    assert [b["status"] for i, b in engine.reports if i == "d"] == ["refused"]
    # the engine moved on (the order expired before the report came): a 409, no more reports
    engine.place(order("diagnose", {"level": 1}, id="e"))
    engine.expire.add("e")
    actor.tick(now + timedelta(seconds=60))
    entry = actor.entries["e"]
    assert entry.phase is Phase.CLOSED
    assert entry.closed_why.startswith("the engine moved on")
    actor.tick(now + timedelta(seconds=120))
    assert len([i for i, _ in engine.reports if i == "e"]) == 1


def test_agent_actions_an_order_received_before_a_restart_is_screened_again(
    tmp_path: Path,
) -> None:
    from autorecover.adapters.http.orders_client import order_from_dict
    from autorecover.agent.acting.journal import Entry, Journal

    kit = standins(tmp_path / "kit")
    engine = ContractEngine()
    doc = order("reboot")
    engine.place(doc)
    # the agent died right after journaling "received"; it comes back with --no-actions
    Journal(tmp_path / "state" / "orders").save(Entry(order_from_dict(doc), datetime.now(UTC)))
    actor = make_actor(tmp_path, kit, engine, enabled=False)
    tick_until(actor, lambda: bool(engine.finals(doc["id"])))
    assert engine.finals(doc["id"])[0]["detail"] == "actions disabled on this node"
    assert kit.calls("systemctl") == []
