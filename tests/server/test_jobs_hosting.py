"""Job recovery hosted by the engine beside hardware recovery, sharing one SQLite file: the
agent's XID reaches job recovery through the store, the job is requeued without the node,
the hand-over reaches hardware recovery, and the API shows the job and its incident."""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.fakes.cluster import FakeNotifier
from autorecover.adapters.fakes.jobs import FakeJobScheduler
from autorecover.adapters.http.engine_api import quoted
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.server.wiring import JobsWiring, build_engine
from server.support import SETTINGS, Fleet, RigClient, document, roomy, xid79

NODES = ["n0", "n1", "n2", "n3"]
NCCL_TIMEOUT = (
    "[rank{rank}]:[E305 13:12:13.968302536 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=138607, OpType=ALLREDUCE, "
    "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600022 milliseconds before timing out.\n"
)


def test_a_hardware_fault_is_seen_by_both_services_through_the_store(tmp_path: Path) -> None:
    fleet = Fleet()
    db = tmp_path / "engine.db"
    store, job_store = SqliteStore(db), SqliteJobStore(db)
    jobs = FakeJobScheduler(fleet.clock, NODES)
    catalog = builtin_catalog()
    wiring = JobsWiring(
        job_store,
        job_store,
        lambda: JobRecoveryController(
            job_store, jobs, job_store, fleet.clock, JobPolicy(), catalog, notifier=FakeNotifier()
        ),
    )
    assert fleet.cluster is not None
    engine = build_engine(
        store, fleet.clock, fleet.cluster, roomy(), SETTINGS, replica="a", jobs=wiring,
        background=False, owns_store=False,
    )  # fmt: skip
    client = RigClient(fleet.app(engine), fleet.tokens)
    jobs.submit("train", NODES)
    engine.step()
    assert [(loop.service.name, loop.hosted is not None) for loop in engine.loops] == [
        ("hardware", True), ("jobs", True), ("housekeeping", True),
    ]  # fmt: skip

    client.post("/api/v1/signals", json=document("n2", xid79("n2", fleet.clock), clock=fleet.clock))
    fleet.advance(1, engine)  # hardware records the signal and quarantines n2
    jobs.write("train", "n2", "RuntimeError: CUDA error: unspecified launch failure\n")
    for rank, node in enumerate(NODES):
        if node != "n2":
            jobs.write("train", node, NCCL_TIMEOUT.format(rank=rank))
    jobs.fail("train", {n: (1 if n == "n2" else 143) for n in NODES})
    fleet.advance(10, engine)  # job recovery's pass: attribute, requeue without n2, hand over
    fleet.advance(1, engine)  # hardware recovery's intake takes the hand-over

    assert job_store.pending_handovers() == []
    [job] = client.get("/api/v1/jobs").json()
    assert (job["job"], job["restarts"], job["last_cause"]) == ("train", 1, "hardware")
    assert job["exclusions"] == ["n2"]
    found = {i["source"]: i for i in client.get("/api/v1/incidents").json()}
    assert set(found) == {"hardware", "jobs"} and found["jobs"]["cause"] == "hardware"
    detail = client.get(f"/api/v1/incidents/{quoted(found['jobs']['id'])}").json()  # ids have '#'
    assert any("xid.79" in line for line in detail["evidence"])
    assert any(e["what"].startswith("action") for e in detail["timeline"])
    metrics = client.get("/metrics").text
    assert 'autorecover_incidents_total{cause="hardware",source="jobs"} 1.0' in metrics
    job_store.close()
    store.close()
