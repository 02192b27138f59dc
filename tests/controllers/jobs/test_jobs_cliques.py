"""Jobs that need whole NVLink cliques, with the fakes: a hardware fault in a clique with no
spare moves the job to another clique (the whole clique excluded), one with a spare keeps it."""

from __future__ import annotations

from autorecover.domain.failure_domains import Topology
from autorecover.domain.records import Action
from controllers.jobs.rig import NCCL_TIMEOUT, NODES, JobRig

# Two cliques of four nodes: n0-n3 and n4-n7.
CLIQUES = Topology.from_labels({n: {"nvlink": f"cu.{i // 4}"} for i, n in enumerate(NODES)})


def _hardware_failure(rig: JobRig, culprit: str) -> None:
    """XID 79 on the culprit, NCCL timeouts on the others (test_jobs.py's failure)."""
    rig.steps(count=5, checkpoint_every=3)
    rig.xid(culprit)
    rig.scheduler.write("train", culprit, "RuntimeError: CUDA error: unspecified launch failure\n")
    for rank, node in enumerate(rig.on()):
        if node != culprit:
            rig.scheduler.write("train", node, NCCL_TIMEOUT.format(rank=rank) + "\n")
    rig.fail(culprit=culprit)


def test_no_spare_in_the_clique_excludes_the_clique_and_the_job_moves_whole() -> None:
    rig = JobRig(topology=CLIQUES)
    rig.submit(size=4, whole_cliques=True)  # fills clique cu.0
    _hardware_failure(rig, "n2")
    rig.run()
    decided = rig.incident().decided
    assert decided is not None
    assert (decided.action, decided.exclude) == (Action.REQUEUE_EXCLUDING, ("n0", "n1", "n2", "n3"))
    assert "no spare in clique cu.0" in decided.reason
    # Only the suspect goes to hardware recovery: the rest of its clique is healthy.
    assert [h.signal.node for h in rig.store.pending_handovers()] == ["n2"]
    rig.run()  # the new attempt is placed and verified on the other clique
    assert set(rig.on()) == {"n4", "n5", "n6", "n7"}


def test_a_spare_in_the_clique_keeps_the_job_there() -> None:
    rig = JobRig(topology=CLIQUES)
    rig.submit(size=3, whole_cliques=True)  # n0-n2: n3 is the clique's spare
    _hardware_failure(rig, "n2")
    rig.run()
    decided = rig.incident().decided
    assert decided is not None and decided.exclude == ("n2",)
    assert "clique cu.0 has a spare (n3)" in decided.reason
    rig.run()
    assert set(rig.on()) == {"n0", "n1", "n3"}


def test_a_job_that_does_not_ask_keeps_node_exclusions() -> None:
    rig = JobRig(topology=CLIQUES)
    rig.submit(size=4)
    _hardware_failure(rig, "n2")
    rig.run()
    decided = rig.incident().decided
    assert decided is not None and decided.exclude == ("n2",)
