"""Pod logs read at the node, end to end in one process: the agent's shipper reads a CRI log
file, condenses it and posts it over HTTP to a real engine app (uvicorn, the rig's tokens),
whose `LogSpool` keeps it where job recovery's `AttemptWatch` reads it; the engine streams
`pods/log` only for pods on nodes whose agent did not ask."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from autorecover.adapters.host.pod_logs import container_folder
from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.pod_logs_client import PodLogsClient
from autorecover.adapters.kubernetes.logs import LogSource, LogSpool
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.agent.logs.shipping import LogShipper
from autorecover.controllers.jobs.watching import AttemptWatch
from autorecover.domain.catalog import builtin_catalog
from autorecover.parsing.scanning import Scanner
from server.support import Fleet, Replica, free_port

UID1 = "0b6f3c7e-1d2a-4c5b-9e8f-112233445566"
UID2 = "9a8b7c6d-1d2a-4c5b-9e8f-665544332211"
JOB = "kubernetes/team-a/llm"
XID = "NVRM: Xid (PCI:0000:5d:00): 79, pid=1234, GPU has fallen off the bus."


class Spawns:
    """Stands in for the Kubernetes session where `LogSpool` starts API streams: records them."""

    def __init__(self) -> None:
        self.started: list[Callable[[], Any]] = []

    def spawn(self, make: Callable[[], Any]) -> None:
        self.started.append(make)


def source(pod: str, uid: str, node: str) -> LogSource:
    return LogSource(JOB, 0, node, "team-a", pod, uid, "pytorch")


def cri(lines: list[str]) -> bytes:
    return b"".join(
        f"2026-03-02T09:58:0{i % 10}.1Z stdout F {t}\n".encode() for i, t in enumerate(lines)
    )


def training_output(noise: int) -> list[str]:
    out = [f"[rank0]: iteration {i} loss 2.{i % 100:02d} lr 3e-4" for i in range(noise)]
    out.insert(noise // 2, '{"telemetry":"autorecover/1","ts":"2026-03-02T09:58:01+00:00",'
                           '"rank":0,"event":"step","step":7,"step_time_s":1.5}')  # fmt: skip
    out.append(f"[   12.345678] {XID}")
    out += [f"[rank0]: after {i}" for i in range(30)]
    return out


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[tuple[str, Fleet, Replica, LogSpool, Spawns]]:
    fleet = Fleet()
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    replica.step()
    spawns = Spawns()
    spool = LogSpool(spawns, tmp_path / "spool", fleet.clock, grace_s=30)  # type: ignore[arg-type]
    replica.engine.pod_logs = spool
    port = free_port()
    config = uvicorn.Config(fleet.app(replica.engine), host="127.0.0.1", port=port,
                            lifespan="off", log_level="warning")  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:  # bounded wait for the socket, not a sleep-for-effect
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}", fleet, replica, spool, spawns
    server.should_exit = True
    thread.join(10)


class Port:
    """Job recovery's read of the output, as `KubeJobs.read_output` does it."""

    def __init__(self, spool: LogSpool) -> None:
        self.spool = spool

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        return self.spool.read(job, attempt, node, offset, limit)


def test_an_agent_ships_excerpts_and_the_engine_streams_none_of_its_pods(
    engine: tuple[str, Fleet, Replica, LogSpool, Spawns], tmp_path: Path
) -> None:
    url, fleet, replica, spool, spawns = engine
    root = tmp_path / "pods"
    folder = container_folder(root, "team-a", "llm-worker-0", UID1, "pytorch")
    folder.mkdir(parents=True)
    (folder / "0.log").write_bytes(cri(training_output(2000)))
    spool.follow([source("llm-worker-0", UID1, "n1")])  # in the start's grace: undecided
    assert spawns.started == []
    client = PodLogsClient(url, credentials=ClientCredentials(token=fleet.tokens.agent("n1")))
    scanner = Scanner(builtin_catalog())
    shipper = LogShipper(node="n1", root=root, engine=client, scanner=scanner, jitter=None)
    report = shipper.tick(fleet.clock.now())
    assert report.followed == 1 and report.read == (folder / "0.log").stat().st_size
    assert report.pending == 0 and report.shipped > 0

    watch = AttemptWatch(JOB, 0, fleet.clock.now(), scanner)
    watch.read(Port(spool), ["n1"], final=False)
    (xid,) = [f for f in watch.findings() if f.signal == "xid.79"]
    assert XID in xid.text
    assert watch.last_step == 7  # the progress record came along
    spooled = spool.read(JOB, 0, "n1", 0, 1 << 20)
    assert len(spooled) < (folder / "0.log").stat().st_size / 10  # an excerpt, not the log
    assert spooled.count(b"\n") <= 20 + 1 + 20 + 1 + 1  # context, the finding, telemetry, last

    # Past the grace: the agent's pods stay with it; a node without an agent is streamed.
    fleet.advance(31, replica)  # the replica renews its lease: still the leader
    shipper.tick(fleet.clock.now())  # asks for its sources again: alive
    spool.follow([source("llm-worker-0", UID1, "n1"), source("llm-worker-1", UID2, "n2")])
    assert len(spawns.started) == 1 and spool.streams == 1

    # More output is read from where the agent stopped, never twice.
    with (folder / "0.log").open("ab") as f:
        f.write(
            cri(["[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered"])
        )
    shipper.tick(fleet.clock.now() + timedelta(seconds=2))
    assert spool.read(JOB, 0, "n1", 0, 1 << 20).count(XID.encode()) == 1
    assert b"illegal memory access" in spool.read(JOB, 0, "n1", 0, 1 << 20)

    # A new leader (or a restarted engine) holds no copy: the agent reads the file again.
    spool.prune(JOB, -1)
    assert spool.read(JOB, 0, "n1", 0, 1 << 20) == b""
    spool.follow([source("llm-worker-0", UID1, "n1")])
    later = fleet.clock.now() + timedelta(seconds=11)
    shipper.tick(later)  # asks: the engine lists it anew
    shipper.tick(later + timedelta(seconds=1))
    assert spool.read(JOB, 0, "n1", 0, 1 << 20).count(XID.encode()) == 1
    shipper.close()


def test_a_standby_sends_the_agent_back_with_retry_after(
    engine: tuple[str, Fleet, Replica, LogSpool, Spawns], tmp_path: Path
) -> None:
    _, fleet, _, spool, _ = engine
    standby = fleet.replica(SqliteStore(tmp_path / "engine.db"), "b")
    standby.step()
    assert not standby.leading
    standby.engine.pod_logs = spool
    got = fleet.client(standby, fleet.tokens.agent("n1")).get(
        "/api/v1/agent/logs/sources", params={"node": "n1"}
    )
    assert got.status_code == 503 and got.headers["Retry-After"]


def test_an_agent_that_falls_silent_is_replaced_by_a_stream_from_before_its_last_excerpt(
    engine: tuple[str, Fleet, Replica, LogSpool, Spawns], tmp_path: Path
) -> None:
    url, fleet, _, spool, spawns = engine
    (tmp_path / "pods").mkdir()
    client = PodLogsClient(url, credentials=ClientCredentials(token=fleet.tokens.agent("n1")))
    shipper = LogShipper(node="n1", root=tmp_path / "pods", engine=client,
                         scanner=Scanner(builtin_catalog()), jitter=None)  # fmt: skip
    shipper.tick(fleet.clock.now())
    spool.follow([source("llm-worker-0", UID1, "n1")])
    assert spawns.started == []  # its agent is alive
    fleet.clock.advance(120)  # the agent died
    spool.follow([source("llm-worker-0", UID1, "n1")])
    assert len(spawns.started) == 1
    shipper.close()


def test_agents_read_and_ship_only_their_own_nodes_pods_and_bad_input_is_refused(
    engine: tuple[str, Fleet, Replica, LogSpool, Spawns],
) -> None:
    _, fleet, replica, spool, _ = engine
    spool.follow([source("llm-worker-0", UID1, "n1")])
    n2 = fleet.client(replica, fleet.tokens.agent("n2"))
    assert n2.get("/api/v1/agent/logs/sources", params={"node": "n1"}).status_code == 403
    pod = {"uid": UID1, "container": "pytorch", "inode": 1, "offset": 10, "lines": 1,
           "kept": 1, "findings": 0, "text": "hello\n"}  # fmt: skip
    body = {"format": "autorecover.podlogs/1", "node": "n1", "sent_at": "x", "pods": [pod]}
    assert n2.post("/api/v1/agent/logs", json=body).status_code == 403
    # n2's agent may post for n2, but n1's pod is not n2's: ignored, nothing spooled.
    got = n2.post("/api/v1/agent/logs", json={**body, "node": "n2"})
    assert got.status_code == 200 and got.json() == {"taken": 0, "ignored": 1}
    assert spool.read(JOB, 0, "n1", 0, 100) == b""
    n1 = fleet.client(replica, fleet.tokens.agent("n1"))
    bad = n1.post("/api/v1/agent/logs", json={**body, "pods": [{**pod, "uid": "../x"}]})
    assert bad.status_code == 422 and "uid" in bad.text
    big = n1.post("/api/v1/agent/logs", json={**body, "pods": [{**pod, "text": "x" * (600 << 10)}]})
    assert big.status_code == 422
    assert n1.post("/api/v1/agent/logs", json=body).json() == {"taken": 1, "ignored": 0}
    assert spool.read(JOB, 0, "n1", 0, 100) == b"hello\n"
    (got_source,) = n1.get("/api/v1/agent/logs/sources", params={"node": "n1"}).json()["sources"]
    assert (got_source["inode"], got_source["offset"]) == (1, 10)  # where a restart resumes
    replica.engine.pod_logs = None
    assert n1.get("/api/v1/agent/logs/sources", params={"node": "n1"}).status_code == 404


def test_the_spool_is_bounded_per_file_and_in_total(tmp_path: Path) -> None:
    fleet = Fleet()
    spool = LogSpool(Spawns(), tmp_path / "spool", fleet.clock, max_total_bytes=1000,  # type: ignore[arg-type]
                     max_file_bytes=600, grace_s=0)  # fmt: skip
    spool.agent_sources("n1")
    spool.follow([source("a", UID1, "n1"), source("b", UID2, "n1")])
    assert spool.agent_excerpt("n1", UID1, "pytorch", 1, 1, b"x" * 500)
    spool.agent_excerpt("n1", UID1, "pytorch", 1, 2, b"y" * 200)  # past the file's bound
    assert spool.read(JOB, 0, "n1", 0, 10_000) == b"x" * 500
    assert spool.refused_bytes == 200
    spool.prune(JOB, -1)
    assert list((tmp_path / "spool").iterdir()) == []
