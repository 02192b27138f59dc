"""The same incident gets the same verdict whoever assembled its bundle (issue 14): the order
of `job.json`'s node list, full or short host names, unstamped lines (see
scripts/rewrap_corpus.py for the corpus-wide check)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from autorecover.domain.attribution import attribute
from autorecover.domain.records import Activity, Blame, Cause, Finding, JobRecord, Source
from autorecover.domain.reports import blamed_peers, named_failures
from autorecover.domain.verdicts import rank_evidence

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def job(nodes: tuple[str, ...] = ("n1", "n2", "n3"), **kw: object) -> JobRecord:
    base: dict[str, object] = dict(
        scheduler="slurm",
        job="1",
        nodes=nodes,
        started=T0,
        ended=T0 + timedelta(hours=2),
        collected=T0 + timedelta(hours=2, minutes=5),
        state="FAILED",
    )
    base.update(kw)
    return JobRecord(**base)  # type: ignore[arg-type]


def finding(signal: str, node: str, blame: Blame, weight: int, **kw: object) -> Finding:
    return Finding(
        signal=signal,
        node=node,
        source=kw.pop("source", Source.LOGS),  # type: ignore[arg-type]
        line=int(kw.pop("line", 1)),  # type: ignore[arg-type]
        text=signal,
        blame=blame,
        weight=weight,
        at=T0 + timedelta(minutes=float(kw.pop("minutes", 60))),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


# -- host names: a line may spell a node otherwise than job.json does --


def test_node_named_matches_exactly_by_case_and_by_short_or_full_name() -> None:
    fqdn = job(("gpu-a03.cluster.internal", "gpu-a13.cluster.internal"))
    assert fqdn.node_named("gpu-a03") == "gpu-a03.cluster.internal"
    assert fqdn.node_named("GPU-A13.cluster.internal.") == "gpu-a13.cluster.internal"
    short = job(("gpu-a03", "gpu-a13"))
    assert short.node_named("gpu-a03.cluster.internal") == "gpu-a03"
    assert short.node_named("gpu-a03") == "gpu-a03"
    # a name of no node, an address, nothing at all, or a short name two nodes share
    assert short.node_named("gpu-a3") is None
    assert short.node_named("10.0.0.3") is None
    assert short.node_named(None) is None and short.node_named("") is None
    twins = job(("gpu-a03.east.internal", "gpu-a03.west.internal"))
    assert twins.node_named("gpu-a03") is None
    assert twins.node_named("gpu-a03.west.internal") == "gpu-a03.west.internal"


def test_the_scheduler_naming_a_failed_node_by_its_short_name_counts_against_it() -> None:
    """Kubernetes on a cloud names nodes by full domain name; Slurm's line the short one."""
    full = job(("gpu-m01.cluster.internal", "gpu-m02.cluster.internal"))
    line = finding("slurm.node_failure", "gpu-m01.cluster.internal", Blame.SYMPTOM, 40,
                   details=(("failed_host", "gpu-m02"),))  # fmt: skip
    [named] = named_failures([line], full)
    assert (named.node, named.signal, named.origin) == (
        "gpu-m02.cluster.internal",
        "node.reported_failed",
        "gpu-m01.cluster.internal",
    )


def test_a_peer_named_by_its_full_host_name_is_the_short_named_node() -> None:
    short = job(("n1", "n2", "n3"))
    errors = [
        finding("gloo.peer_closed", n, Blame.SYMPTOM, 30, details=(("peer", "n3.hpc.local"),))
        for n in ("n1", "n2")
    ]
    [blamed] = blamed_peers(errors, errors, short)
    assert blamed.node == "n3" and blamed.detail("reported_by") == "n1,n2"


# -- the node list's order --


def test_evidence_does_not_follow_the_node_lists_order() -> None:
    same = [finding("slurm.task_exit", n, Blame.SYMPTOM, 5, line=7) for n in ("n1", "n2", "n3")]
    forward = rank_evidence(same, [])
    backward = rank_evidence(same[::-1], [])
    assert forward == backward and forward[0].node == "n1"


def test_the_schedulers_word_is_kept_beside_a_nodes_line_of_the_same_signal() -> None:
    """`"state": "Evicted"` and the kubelet's eviction line on the first-listed node are two
    lines of evidence, whichever node job.json lists first."""
    for nodes in (("n1", "n2"), ("n2", "n1")):
        evicted = job(nodes, scheduler="kubernetes", state="Evicted")
        kubelet = finding("k8s.evicted", "n1", Blame.TRANSIENT, 70, source=Source.SYSTEM)
        v = attribute(evicted, [kubelet], [], {})
        assert v.cause is Cause.TRANSIENT
        sources = sorted(str(e.source) for e in v.evidence if e.signal == "k8s.evicted")
        assert sources == ["job", "system"], v.evidence
        assert [e.node for e in v.evidence if e.source is Source.JOB] == ["n1"]


def test_a_peer_named_by_many_is_reported_by_the_earliest_whatever_the_order() -> None:
    errors = [
        finding("gloo.peer_closed", "n2", Blame.SYMPTOM, 30, minutes=61, details=(("peer", "n3"),)),
        finding("gloo.peer_closed", "n1", Blame.SYMPTOM, 30, minutes=61, details=(("peer", "n3"),)),
    ]
    assert blamed_peers(errors, errors, job()) == blamed_peers(errors, errors[::-1], job())
    assert blamed_peers(errors, errors, job())[0].origin == "n1"


# -- unstamped lines: an unknown time is no evidence of a hang --


def stamped(node: str, minutes: float) -> Activity:
    at = T0 + timedelta(minutes=minutes)
    return Activity(node=node, source=Source.LOGS, present=True, lines=30, last_at=at)


def test_a_node_whose_lines_carry_no_time_is_not_silent_since_the_start() -> None:
    """A pasted snippet keeps a node's NCCL lines (no time of their own) but not the stamped
    filler around them: when it stopped is unknown, not "at the start"."""
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=1, minutes=25))
    unstamped = Activity(node="n3", source=Source.LOGS, present=True, lines=3)
    acts = [stamped("n1", 36), stamped("n2", 35), unstamped]
    v = attribute(running, [], acts, {})
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ()), v.summary
    assert "stopped making progress on every node" in v.summary, v.summary


def test_a_node_that_wrote_nothing_is_still_silent_since_the_start() -> None:
    running = job(ended=None, state="RUNNING", collected=T0 + timedelta(hours=1, minutes=25))
    for quiet in (
        Activity(node="n3", source=Source.LOGS, present=True, lines=0),
        Activity(node="n3", source=Source.LOGS, present=False),
    ):
        v = attribute(running, [], [stamped("n1", 36), stamped("n2", 35), quiet], {})
        assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n3",)), v.summary


def test_a_silent_half_of_a_hung_job_is_named_only_when_its_own_kernel_reports_lockups() -> None:
    """Half the nodes silent is a collection gap as often as a fault; a silent node whose own
    kernel reports CPU lockups, while the other's does not, ran nothing of the job."""
    running = job(
        ("n1", "n2"), ended=None, state="RUNNING", collected=T0 + timedelta(hours=1, minutes=25)
    )
    acts = [stamped("n1", 36), Activity(node="n2", source=Source.LOGS, present=False)]
    v = attribute(running, [], acts, {})
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ()), v.summary
    lockup = finding("kernel.soft_lockup", "n2", Blame.SYMPTOM, 20, source=Source.SYSTEM)
    v = attribute(running, [lockup], acts, {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("n2",)), v.summary
    assert "kernel reported kernel.soft_lockup" in v.summary, v.summary
    # both kernels locking up, or the lockup on the node that spoke: no silent culprit
    other = finding("kernel.rcu_stall", "n1", Blame.SYMPTOM, 20, source=Source.SYSTEM)
    assert attribute(running, [lockup, other], acts, {}).suspect_nodes == ()
    assert attribute(running, [other], acts, {}).suspect_nodes == ()


# -- combined logs: pdsh's `<host>: ` in the launching node's file --


def test_the_launching_nodes_own_error_beside_the_same_error_from_another_node_stays_its_own() -> (
    None
):
    """In a pdsh-combined log every node's line names its host; the launching node printing the
    same error as another node is its own failure, not a driver re-raising a worker's (that is
    Ray's forward by address, which keeps its restatement rule)."""
    from autorecover.domain.reports import forwarded

    j = job(nodes=("a.ec2.internal", "b.ec2.internal"))
    own = finding("rdma.no_device", "a.ec2.internal", Blame.APPLICATION, 45, line=2,
                  details=(("via", "a.ec2.internal"),))  # fmt: skip
    other = finding("rdma.no_device", "a.ec2.internal", Blame.APPLICATION, 45, line=3,
                    details=(("via", "b.ec2.internal"),))  # fmt: skip
    out = forwarded([own, other], j)
    assert [(f.node, f.blame) for f in out] == [
        ("a.ec2.internal", Blame.APPLICATION),
        ("b.ec2.internal", Blame.APPLICATION),
    ]
    # Ray's forward by address still makes the driver's unprefixed re-raise a restatement.
    banner = finding(
        "ray.node_ip", "b.ec2.internal", Blame.INFO, 0, details=(("address", "10.0.0.7"),)
    )
    worker = finding("cuda.oom", "a.ec2.internal", Blame.APPLICATION, 80, line=4,
                     details=(("via", "10.0.0.7"),))  # fmt: skip
    driver = finding("cuda.oom", "a.ec2.internal", Blame.APPLICATION, 80, line=5)
    out = forwarded([banner, worker, driver], j)
    assert out[1].node == "b.ec2.internal" and out[2].blame is Blame.SYMPTOM


def test_a_node_that_printed_only_its_start_up_is_not_silent_since() -> None:
    """A serving engine's worker prints that it is ready, and then the head prints everything:
    its log ending before the head's begins says nothing about when it stopped. A node that
    logged beside the others and then stopped first still is the suspect."""
    running = job(
        ("head", "worker"), ended=None, state="RUNNING", collected=T0 + timedelta(hours=3)
    )
    ready = Activity(
        node="worker",
        source=Source.LOGS,
        present=True,
        lines=1,
        first_at=T0 + timedelta(minutes=2),
        last_at=T0 + timedelta(minutes=2),
    )
    head = Activity(
        node="head",
        source=Source.LOGS,
        present=True,
        lines=300,
        first_at=T0 + timedelta(minutes=11),
        last_at=T0 + timedelta(minutes=139),
    )
    v = attribute(running, [], [head, ready], {})
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ()), v.summary
    beside = replace(
        ready, lines=40, first_at=T0 + timedelta(minutes=1), last_at=T0 + timedelta(minutes=60)
    )
    v = attribute(running, [], [head, beside], {})
    assert (v.cause, v.suspect_nodes) == (Cause.HARDWARE, ("worker",)), v.summary


def test_a_node_hyperpods_auto_resume_leaves_out_of_the_kept_ones_is_named() -> None:
    """SageMaker HyperPod's auto-resume keeps the healthy nodes (a Slurm hostlist) and drops
    the rest: a node of the job left out is the platform's failed node. A list in names the job
    does not use, or one that keeps every node, names none."""
    nodes = ("ip-10-1-65-134", "ip-10-1-65-171", "ip-10-1-73-87", "ip-10-1-90-5")
    kept = "ip-10-1-65-[134,171],ip-10-1-90-5"
    line = finding("hyperpod.auto_resume_kept", nodes[0], Blame.SYMPTOM, 5,
                   details=(("healthy_hosts", kept),))  # fmt: skip
    [named] = named_failures([line], job(nodes))
    assert (named.node, named.signal, named.blame) == ("ip-10-1-73-87", "node.reported_failed",
                                                      Blame.HARDWARE)  # fmt: skip
    for other in ("gpu-[01-03]", "ip-10-1-65-[134,171],ip-10-1-73-87,ip-10-1-90-5", "x[1-"):
        odd = replace(line, details=(("healthy_hosts", other),))
        assert named_failures([odd], job(nodes)) == [], other


def test_a_line_srun_labelled_with_a_task_moves_to_the_node_srun_says_ran_it() -> None:
    """`srun --label` gathers every task's lines in the batch host's file; srun's own report in
    that file names the node of tasks 8-11, so task 10's line is that node's."""
    from autorecover.domain.reports import labelled

    j = job(nodes=("d01", "d02", "d03"))
    srun = replace(
        finding("slurm.task_exit", "d01", Blame.SYMPTOM, 5, line=11),
        text="srun: error: d03: tasks 8-11: Exited with exit code 255",
        details=(("host", "d03"), ("task", "8-11"), ("code", "255")),
    )
    line = "10: src/comm/transports/ibrc/ibrc.cpp: NULL value get_device_list failed"
    ten = replace(
        finding("rdma.no_device", "d01", Blame.APPLICATION, 45, line=7), text=line, rank=10
    )
    moved = labelled([ten, srun], j)[0]
    assert (moved.node, moved.origin) == ("d03", "d01")
    # behind a collector's own prefix (a container runtime's CRI time) the label still counts
    cri = replace(ten, text="2026-06-02T22:14:31.000000000Z stderr F " + line)
    assert labelled([cri, srun], j)[0].node == "d03"
    # torchrun's `[rank10]:` numbers ranks, not srun's tasks: the line stays where it is
    rank = replace(ten, text="[rank10]: " + line.split(": ", 1)[1])
    assert labelled([rank, srun], j)[0].node == "d01"
    # a task srun names nowhere in that file, or the file of another node, stays too
    assert labelled([replace(ten, rank=3), srun], j)[0].node == "d01"
    assert labelled([replace(ten, node="d02"), srun], j)[0].node == "d02"
