"""`simulate --from-store`: a real engine's recorded history through another policy, in dry-run.

Hardware recovery: every recorded node signal is fed, in the order and at the time it was
observed, to a fresh `HardwareController` in dry-run with the policy to try (the built-in one
merged with the site's document), on an in-memory store and the fakes, on a virtual clock.
What it would have taken out of service is compared with what the engine recorded (its
transitions out of `healthy`), node by node. Job recovery: every recorded job incident's
verdict goes through `decide_job` with the job policy to try, in order, each job's history
built from the trial's own decisions, and the decision is compared with the recorded one.

The store is only read: a SQLite file is copied first (with its WAL) and the copy opened, so
the engine's file is never written; a PostgreSQL store is opened with the same adapters
(opening migrates an old schema forward, which a current engine's database does not need).
Nodes about which nothing but ignored signals was ever recorded (no record, no transition, no
job incident) are not found by the store's queries, so their signals are not replayed.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from statistics import median
from typing import Any

from autorecover.adapters.fakes.cluster import (
    FakeClock,
    FakeDiagnostics,
    FakeNotifier,
    FakeScheduler,
)
from autorecover.adapters.store.base import EngineStore
from autorecover.adapters.store.memory import MemoryStore
from autorecover.adapters.store.sql.jobs import SqlJobStore, open_job_store
from autorecover.adapters.store.url import StoreUrlError, open_store, redact, sqlite_path
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.records import JobIncident
from autorecover.domain.hardware.lifecycle import NodeState, Transition
from autorecover.domain.hardware.policy_loading import PolicyError, load_policy
from autorecover.domain.jobs.decisions import JobHistory, decide_job
from autorecover.domain.jobs.policy import JobPolicy, builtin_job_policy, policy_from_toml
from autorecover.domain.records import Action
from autorecover.domain.signals import NodeSignal
from autorecover.simulation.settings import load_world

SIGNALS_PER_NODE = 100_000  # every signal the store kept for a node
_OUT = (NodeState.SUSPECT, NodeState.QUARANTINED)


class ReplayError(ValueError):
    """The store or a policy file cannot be read; the message says which and why."""


@contextmanager
def _opened(url: str) -> Iterator[tuple[EngineStore, SqlJobStore]]:
    """The engine's and job recovery's stores, read from a copy when the store is a file."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    with tempfile.TemporaryDirectory(prefix="autorecover-replay-") as tmp:
        if scheme == "sqlite":
            source = Path(sqlite_path(url))
            if not source.is_file():
                raise ReplayError(f"store {url!r}: no such SQLite file {source}")
            copy = Path(tmp) / "store.db"
            for suffix in ("", "-wal", "-shm"):
                if Path(f"{source}{suffix}").exists():
                    shutil.copyfile(f"{source}{suffix}", f"{copy}{suffix}")
            url = f"sqlite:///{copy}"
        elif scheme not in ("postgresql", "postgres"):
            raise ReplayError(
                f"store URL {redact(url)!r}: expected sqlite:///PATH or postgresql://"
            )
        try:
            engine, jobs = open_store(url), open_job_store(url)
        except (StoreUrlError, OSError) as exc:
            raise ReplayError(f"store {redact(url)!r}: {exc}") from None
        try:
            yield engine, jobs
        finally:
            engine.close()
            jobs.close()


def _policies(hardware: Path | None, job: Path | None) -> tuple[Any, JobPolicy]:
    try:
        docs = [(str(hardware), hardware.read_text("utf-8"))] if hardware else []
        hw = load_policy(docs)
        jp = builtin_job_policy()
        if job is not None:
            jp = policy_from_toml(job.read_text("utf-8"), str(job), jp)
    except OSError as exc:
        raise ReplayError(f"cannot read a policy file: {exc}") from None
    except (PolicyError, ValueError) as exc:
        raise ReplayError(str(exc)) from None
    return hw, jp


def replay(
    url: str, hardware: Path | None = None, job: Path | None = None, fleet: int | None = None
) -> dict[str, Any]:
    """What the trial policies would have done on the store's history, and what it costs;
    `fleet` sizes the breaker's fractions (default: the nodes the store knows)."""
    hw_policy, job_policy = _policies(hardware, job)
    with _opened(url) as (engine, jobs):
        transitions = engine.transitions()
        incidents = jobs.incidents()
        names = {v.record.node for v in engine.node_views()}
        names |= {t.node for t in transitions}
        names |= {n for i in incidents for n in (*i.nodes, *(i.verdict.suspect_nodes if
                                                              i.verdict else ()))}  # fmt: skip
        signals = sorted(
            (s for n in sorted(names) for s in engine.node_signals(n, SIGNALS_PER_NODE)),
            key=lambda s: s.at,
        )
    return {
        "store": redact(url),
        "hardware": _hardware(signals, transitions, sorted(names), hw_policy, hardware, fleet),
        "jobs": _jobs(incidents, job_policy, job),
    }


def _hardware(
    signals: list[NodeSignal], recorded: list[Transition], nodes: list[str], policy: Any,
    origin: Path | None, fleet: int | None,
) -> dict[str, Any]:  # fmt: skip
    """Replay the signals through a dry-run controller with the trial policy."""
    start = signals[0].at if signals else datetime.now().astimezone()
    clock = FakeClock(start)
    store = MemoryStore()
    controller = HardwareController(
        store=store, scheduler=FakeScheduler(clock, nodes), diagnostics=FakeDiagnostics(clock),
        notifier=FakeNotifier(), clock=clock, policy=policy, dry_run=True,
        fleet_size=fleet or max(len(nodes), 1),
    )  # fmt: skip
    i = 0
    while i < len(signals):
        at = signals[i].at
        batch = []
        while i < len(signals) and signals[i].at == at:
            batch.append(signals[i])
            i += 1
        clock.advance(max((at - clock.now()).total_seconds(), 0.0))
        controller.ingest(batch)
    end = max([clock.now(), *(t.at for t in recorded)]) if recorded or signals else start
    clock.advance(max((end - clock.now()).total_seconds(), 0.0))
    controller.tick()
    was = _removed(recorded)
    would = _removed(store.transitions())
    hours = _out_hours(recorded, end)
    typical = median(hours.values()) if hours else _default_out_hours()
    only_recorded = sorted(set(was) - set(would))
    only_trial = sorted(set(would) - set(was))
    saved = sum(hours.get(n, 0.0) for n in only_recorded)
    cost = typical * len(only_trial)
    return {
        "policy": str(origin) if origin else "builtin",
        "signals_replayed": len(signals),
        "nodes": len(nodes),
        "recorded_removals": len(was),
        "trial_removals": len(would),
        "only_recorded": only_recorded,
        "only_trial": only_trial,
        "recorded_node_hours_out": round(sum(hours.values()), 2),
        "node_hours_saved": round(saved, 2),
        "node_hours_cost_estimate": round(cost, 2),
        "estimate": (
            f"a node only the trial takes out is charged {typical:.2f} h, the median time "
            "the engine's removals lasted (or the world's diagnose+validate time if none)"
        ),
    }


def _removed(transitions: list[Transition]) -> dict[str, datetime]:
    """Nodes taken out of service (healthy -> suspect or quarantined), first time each."""
    out: dict[str, datetime] = {}
    for t in transitions:
        if t.frm is NodeState.HEALTHY and t.to in _OUT:
            out.setdefault(t.node, t.at)
    return out


def _out_hours(transitions: list[Transition], end: datetime) -> dict[str, float]:
    """Hours each node spent out of service, by its recorded transitions."""
    since: dict[str, datetime] = {}
    hours: dict[str, float] = {}
    for t in transitions:
        if t.frm is NodeState.HEALTHY:
            since[t.node] = t.at
        elif t.to is NodeState.HEALTHY and t.node in since:
            gone = t.at - since.pop(t.node)
            hours[t.node] = hours.get(t.node, 0.0) + gone / timedelta(hours=1)
    for node, at in since.items():
        hours[node] = hours.get(node, 0.0) + (end - at) / timedelta(hours=1)
    return hours


def _default_out_hours() -> float:
    repair = load_world().repair
    return (repair["diagnose_s"] + repair["validate_s"]) / 3600.0


def _jobs(incidents: list[JobIncident], policy: JobPolicy, origin: Path | None) -> dict[str, Any]:
    """Each recorded incident's verdict decided again with the trial job policy."""
    histories: dict[str, JobHistory] = {}
    same, differ = 0, []
    person_h = load_world().person["response_median_s"] / 3600.0
    gpn = load_world().fleet["gpus_per_node"]
    cost = saved = 0.0
    for inc in incidents:
        if inc.verdict is None or inc.decided is None or inc.dry_run:
            continue
        history = histories.get(inc.job, JobHistory())
        d = decide_job(inc.verdict, history, inc.opened_at, policy, incident=inc.id,
                       checkpoint=None)  # fmt: skip
        histories[inc.job] = d.history
        if d.action is inc.decided.action and set(d.exclude) == set(inc.decided.exclude):
            same += 1
            continue
        differ.append({"incident": inc.id, "recorded": str(inc.decided.action),
                       "trial": str(d.action), "why": d.reason})  # fmt: skip
        gpu_h = person_h * len(inc.nodes) * gpn
        if d.action is Action.STOP and inc.decided.action is not Action.STOP:
            cost += gpu_h  # the job waits for a person instead of running again
        elif inc.decided.action is Action.STOP and d.action is not Action.STOP:
            saved += gpu_h
    return {
        "policy": str(origin) if origin else "builtin",
        "incidents": same + len(differ),
        "same": same,
        "different": differ,
        "gpu_hours_cost_estimate": round(cost, 2),
        "gpu_hours_saved_estimate": round(saved, 2),
        "estimate": (
            "a stop costs the job's GPUs a person's median response time "
            f"({person_h * 60:.0f} min, world.toml) until someone restarts it"
        ),
    }


def replay_text(doc: dict[str, Any]) -> str:
    """The replay as a few lines of text."""
    hw, jobs = doc["hardware"], doc["jobs"]
    lines = [
        f"replayed {hw['signals_replayed']} signals of {hw['nodes']} nodes from {doc['store']}",
        f"hardware policy {hw['policy']}: {hw['trial_removals']} removals "
        f"(recorded {hw['recorded_removals']}); "
        f"only recorded: {', '.join(hw['only_recorded']) or '-'}; "
        f"only the trial: {', '.join(hw['only_trial']) or '-'}",
        f"  node-hours out recorded {hw['recorded_node_hours_out']}, saved "
        f"{hw['node_hours_saved']}, cost (estimate) {hw['node_hours_cost_estimate']}",
        f"job policy {jobs['policy']}: {jobs['incidents']} incidents, {jobs['same']} decided "
        f"alike, {len(jobs['different'])} differently; "
        f"GPU-hours cost {jobs['gpu_hours_cost_estimate']}, "
        f"saved {jobs['gpu_hours_saved_estimate']} (estimates)",
    ]  # fmt: skip
    for d in jobs["different"][:10]:
        lines.append(
            f"  {d['incident']}: recorded {d['recorded']}, trial {d['trial']} ({d['why']})"
        )
    return "\n".join(lines)
