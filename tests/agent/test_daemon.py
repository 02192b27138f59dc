"""The daemon against a real local HTTP server: intervals, batches, retries, a bounded buffer.

Time is explicit: every tick gets its `now`, so nothing here sleeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.support import NODES, T0, Engine, at
from autorecover.adapters.host.agent_state import StateFile
from autorecover.adapters.host.kernel_follow import KmsgSource
from autorecover.adapters.http.engine_client import EngineClient
from autorecover.adapters.http.wire import signal_from_dict
from autorecover.agent.daemon import Agent, Scheduled
from autorecover.agent.probes.base import ProbeResult, ProbeStatus
from autorecover.agent.probes.kernel import KernelProbe
from autorecover.agent.probes.kernel_reading import KernelReader
from autorecover.agent.sending import Outbox
from autorecover.agent.thresholds import load_thresholds
from autorecover.agent.wiring import AgentConfig, build_agent
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe


def signal(n: int, when: datetime = T0) -> NodeSignal:
    return NodeSignal(
        node="gpu-h02",
        probe=Probe.NVML,
        signal="nvml.ecc_dbe_volatile",
        blame=Blame.HARDWARE,
        weight=90,
        node_action=NodeAction.RESET_GPU,
        at=when,
        component=f"gpu{n}",
    )


class Counting:
    """A probe that raises one signal per poll, and remembers when it was polled."""

    kind = Probe.NVML

    def __init__(self) -> None:
        self.polled: list[datetime] = []

    def poll(self, now: datetime) -> ProbeResult:
        self.polled.append(now)
        return ProbeResult(self.kind, ProbeStatus.OK, (signal(len(self.polled), now),))

    def state(self) -> dict[str, Any]:
        return {"polls": len(self.polled)}

    def restore(self, state: Mapping[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass


class Exploding(Counting):
    kind = Probe.PCIE

    def poll(self, now: datetime) -> ProbeResult:
        raise RuntimeError("sysfs went away")


def outbox(engine: Engine, **kw: Any) -> Outbox:
    defaults: dict[str, Any] = {"heartbeat_s": None, "jitter": None}
    return Outbox(node="gpu-h02", client=EngineClient(engine.url, timeout_s=5), **(defaults | kw))


def test_probes_run_on_their_intervals(engine: Engine) -> None:
    fast, slow = Counting(), Counting()
    agent = Agent("gpu-h02", [Scheduled(fast, 10), Scheduled(slow, 30)], outbox(engine))
    for t in range(0, 61, 5):
        agent.tick(at(t))
    assert [(p - T0).seconds for p in fast.polled] == [0, 10, 20, 30, 40, 50, 60]
    assert [(p - T0).seconds for p in slow.polled] == [0, 30, 60]
    assert len(engine.signals()) == 10
    assert signal_from_dict(engine.signals()[0]) == signal(1, T0)


def test_batches(engine: Engine) -> None:
    box = outbox(engine, batch_size=4)
    box.add(signal(i) for i in range(10))
    assert box.flush(T0) == 10
    assert [len(b["signals"]) for b in engine.batches] == [4, 4, 2]
    assert all(
        b["node"] == "gpu-h02" and b["format"] == "autorecover.signals/1" for b in engine.batches
    )


def test_retries_with_backoff_then_delivers(engine: Engine) -> None:
    engine.answers = [(503, {}), (503, {}), (500, {})]
    box = outbox(engine, backoff_initial_s=2, backoff_max_s=300)
    box.add([signal(1)])
    assert box.flush(at(0)) == 0 and box.next_attempt == at(2)
    assert box.flush(at(1)) == 0 and len(engine.batches) == 0  # backing off: not even tried
    assert box.flush(at(2)) == 0 and box.next_attempt == at(6)  # 2 s, then 4 s, then 8 s
    assert box.flush(at(6)) == 0 and box.next_attempt == at(14)
    assert box.flush(at(14)) == 1
    assert box.failures == 3 and len(engine.signals()) == 1 and box.next_attempt is None


def test_retry_after_is_honoured(engine: Engine) -> None:
    engine.answers = [(429, {"Retry-After": "120"})]
    box = outbox(engine)
    box.add([signal(1)])
    box.flush(at(0))
    assert box.next_attempt == at(120)


def test_a_busy_engine_is_retried_when_it_says_never_later(engine: Engine) -> None:
    engine.answers = [(429, {"Retry-After": "5"})] * 4  # the inbox stays full a while
    box = outbox(engine, backoff_initial_s=2)
    box.add([signal(1)])
    for t in (0, 5, 10, 15):
        assert box.flush(at(t)) == 0 and box.next_attempt == at(t + 5)  # no doubling
    assert box.flush(at(20)) == 1 and box.failures == 4


def test_an_unreachable_engine_is_retried_at_least_every_minute(engine: Engine) -> None:
    engine.answers = [(503, {})] * 9  # no Retry-After: exponential, capped
    box = outbox(engine)
    box.add([signal(1)])
    now, delays = at(0), []
    for _ in range(9):
        box.flush(now)
        assert box.next_attempt is not None
        delays.append((box.next_attempt - now).total_seconds())
        now = box.next_attempt
    assert delays == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_a_batch_the_engine_refuses_is_dropped_not_retried(engine: Engine) -> None:
    engine.answers = [(400, {})]
    box = outbox(engine, batch_size=1)
    box.add([signal(1), signal(2)])
    assert box.flush(T0) == 1
    assert box.rejected == 1 and [s["component"] for s in engine.signals()] == ["gpu2"]


def test_bounded_buffer_drops_the_oldest_and_says_so(engine: Engine) -> None:
    engine.answers = [(503, {})]
    box = outbox(engine, capacity=5, backoff_initial_s=1)
    box.add(signal(i) for i in range(3))
    box.flush(at(0))  # the engine is away
    box.add(signal(i) for i in range(3, 10))
    assert len(box) == 5 and box.dropped == 5
    assert box.flush(at(5)) == 5
    assert [s["component"] for s in engine.signals()] == [f"gpu{i}" for i in range(5, 10)]
    assert engine.batches[0]["dropped"] == 5


def test_the_engine_away_entirely(engine: Engine) -> None:
    url = engine.url
    engine.close()  # nobody listens any more
    box = Outbox(
        node="gpu-h02",
        client=EngineClient(url, timeout_s=2),
        capacity=3,
        jitter=None,
        heartbeat_s=None,
    )
    box.add(signal(i) for i in range(5))
    assert box.flush(T0) == 0 and box.dropped == 2 and "unreachable" in box.last_error


def test_heartbeat_when_there_is_nothing_to_say(engine: Engine) -> None:
    box = outbox(engine, heartbeat_s=60)
    assert box.flush(at(0)) == 0 and len(engine.batches) == 1 and engine.batches[0]["signals"] == []
    box.flush(at(30))
    box.flush(at(60))
    assert len(engine.batches) == 2


def test_a_broken_probe_does_not_stop_the_others(engine: Engine) -> None:
    good = Counting()
    agent = Agent("gpu-h02", [Scheduled(Exploding(), 10), Scheduled(good, 10)], outbox(engine))
    report = agent.tick(T0)
    assert [r.status for r in report.polled] == [ProbeStatus.ERROR, ProbeStatus.OK]
    assert "sysfs went away" in report.polled[0].reason and len(good.polled) == 1


def test_restart_resumes_the_kernel_cursor(
    tmp_path: Path, engine: Engine, catalog: Catalog
) -> None:
    kmsg = tmp_path / "kmsg"
    xid = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
    kmsg.write_text(f"3,1,10,-;{xid}\n")
    state = StateFile(tmp_path / "state.json")

    def agent() -> Agent:
        probe = KernelProbe(
            node="gpu-h02", source=KmsgSource(kmsg, tmp_path), reader=KernelReader(catalog)
        )
        a = Agent("gpu-h02", [Scheduled(probe, 5)], outbox(engine), state)
        a.restore()
        return a

    first = agent()
    assert first.tick(at(0)).saved
    with kmsg.open("a") as fh:
        fh.write(f"3,2,20,-;{xid.replace('5d', '18')}\n")
    second = agent()  # the agent restarted
    second.tick(at(60))
    assert [s["component"] for s in engine.signals()] == ["0000:5d:00", "0000:18:00"]


def test_run_loop_stops_and_saves(tmp_path: Path, engine: Engine) -> None:
    probe = Counting()
    agent = Agent("gpu-h02", [Scheduled(probe, 10)], outbox(engine), StateFile(tmp_path / "s.json"))
    times = iter(at(t) for t in range(0, 1000, 1))
    waits: list[float] = []

    def wait(seconds: float) -> bool:
        waits.append(seconds)
        return len(waits) >= 3

    agent.run(lambda: next(times), wait)
    assert len(probe.polled) >= 1 and StateFile(tmp_path / "s.json").load() == {
        "nvml": {"polls": len(probe.polled)}
    }
    assert all(0 < w <= 5 for w in waits)


def test_the_daemon_on_a_fixture_node_reports_to_the_engine(
    tmp_path: Path, engine: Engine, catalog: Catalog
) -> None:

    root = NODES / "faulty"
    config = AgentConfig(
        node="gpu-h02",
        root=root,
        nvml_replay=root / "nvml.json",
        dcgm_replay=root / "dcgm",
        expected_gpus=4,
    )
    agent = build_agent(
        config,
        catalog,
        load_thresholds(),
        engine_url=engine.url,
        state_file=StateFile(tmp_path / "agent-state.json"),
        heartbeat_s=None,
    )
    agent.restore()
    agent.tick(at(0))
    first = {(s["probe"], s["signal"]) for s in engine.signals()}
    assert {
        ("kernel", "xid.79"),
        ("nvml", "nvml.gpu_missing"),
        ("infiniband", "ib.port_down"),
    } <= first
    assert {("pcie", "pcie.link_width"), ("dcgm", "dcgm.health.memory")} <= first
    before = len(engine.signals())
    agent.tick(at(5))  # only the kernel probe is due, and it has read everything already
    assert len(engine.signals()) == before
