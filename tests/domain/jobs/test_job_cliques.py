"""Whole-clique jobs: a suspect's exclusion widens to its clique unless the clique has a spare."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from autorecover.domain.failure_domains import Topology
from autorecover.domain.jobs.cliques import widen_to_cliques
from autorecover.domain.jobs.decisions import JobHistory, decide_job
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.jobs.settings import parse_settings
from autorecover.domain.records import Action, Cause, Evidence, Source, Verdict

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
# cu.0: a0-a3, cu.1: b0-b3; "lone" has no clique.
TOPO = Topology.from_labels(
    {
        **{f"a{i}": {"nvlink": "cu.0"} for i in range(4)},
        **{f"b{i}": {"nvlink": "cu.1"} for i in range(4)},
        "lone": {"rack": "r9"},
    }
)


def test_a_clique_without_a_spare_is_excluded_whole() -> None:
    got = widen_to_cliques(["a1"], TOPO, job_nodes=["a0", "a1", "a2", "a3", "b0"])
    assert dict(got.exclude) == {"a1": ("a0", "a1", "a2", "a3")}
    assert got.notes == ("a1: no spare in clique cu.0: the job avoids all 4 of its nodes",)


def test_a_spare_keeps_the_exclusion_to_the_suspect() -> None:
    got = widen_to_cliques(["a1"], TOPO, job_nodes=["a0", "a1", "a2"])
    assert dict(got.exclude) == {"a1": ("a1",)}
    assert got.notes == ("a1: clique cu.0 has a spare (a3)",)


def test_nodes_the_job_avoids_and_other_suspects_are_no_spares() -> None:
    # a3 is avoided already, a2 is a suspect too: cu.0 has nothing left to offer.
    got = widen_to_cliques(["a1", "a2"], TOPO, job_nodes=["a0", "a1", "a2"], avoided=["a3"])
    assert dict(got.exclude) == {"a1": ("a0", "a1", "a2", "a3"), "a2": ("a0", "a1", "a2", "a3")}


def test_a_node_of_no_known_clique_is_excluded_alone() -> None:
    got = widen_to_cliques(["lone", "ghost"], TOPO, job_nodes=["lone", "ghost"])
    assert dict(got.exclude) == {"lone": ("lone",), "ghost": ("ghost",)}
    assert got.notes == ()


def test_the_decision_carries_the_clique_and_hands_over_only_the_suspect() -> None:
    ev = (Evidence("a1", Source.SYSTEM, 1, "xid.79", "xid.79"),)
    verdict = Verdict(Cause.HARDWARE, ("a1",), Action.REQUEUE_EXCLUDING, ev, strength=95)
    widened = widen_to_cliques(["a1"], TOPO, job_nodes=["a0", "a1", "a2", "a3"])
    policy = JobPolicy(whole_cliques=True)
    d = decide_job(
        verdict, JobHistory(), T0, policy, incident="i1", checkpoint=None, widened=widened
    )
    assert d.exclude == ("a0", "a1", "a2", "a3")
    assert d.hand_over == ("a1",)
    assert "no spare in clique cu.0" in d.reason
    # The clique's exclusions decay like any other.
    assert {e.until for e in d.history.exclusions} == {T0 + timedelta(days=1)}
    assert d.history.excluded(T0 + timedelta(days=2)) == ()


def test_a_job_asks_for_whole_cliques_in_its_settings() -> None:
    assert parse_settings(["whole_cliques=true"]) == {"whole_cliques": True}
    assert JobPolicy().whole_cliques is False
