"""The policies side by side on one seeded trace of a small fleet at raised failure rates:
deterministic, books that balance, the bound above every policy, and each policy's own
signature (crash loops, over-isolation, the real controllers' quarantines, migrations)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from autorecover.simulation.jobs import CHECKPOINT, LOST, SLOW
from autorecover.simulation.running import POLICIES, Options, Run, prepare, simulate
from autorecover.simulation.settings import load_study, load_world
from autorecover.simulation.simulating import Outcome

OPTIONS = Options(gpus=2048, days=30, seed=5, rate_scale=3.0)


@pytest.fixture(scope="module")
def run() -> Run:
    return prepare(OPTIONS, load_study(), load_world())


@pytest.fixture(scope="module")
def outcomes(run: Run) -> Mapping[str, Outcome]:
    return {name: simulate(run, name) for name in POLICIES}


def ettr(o: Outcome) -> float:
    return o.ledger.productive / (o.gpus * o.horizon_s)


def test_a_seeded_run_is_deterministic(run: Run, outcomes: Mapping[str, Outcome]) -> None:
    again = simulate(prepare(OPTIONS, load_study(), load_world()), "autorecover")
    first = outcomes["autorecover"]
    assert (ettr(again), again.interruptions, again.quarantines) == (
        ettr(first), first.interruptions, first.quarantines,
    )  # fmt: skip


def test_the_books_balance(outcomes: Mapping[str, Outcome]) -> None:
    """Productive time and every lost stage add up to the allocated GPU-time."""
    for o in outcomes.values():
        lost = sum(o.ledger.by_stage.values())
        assert o.ledger.productive + lost == pytest.approx(o.gpus * o.horizon_s, rel=1e-9)
        by_cause = sum(o.ledger.by_cause.values())
        assert by_cause == pytest.approx(lost, rel=1e-9), o.policy


def test_the_zero_overhead_bound_is_above_every_policy(outcomes: Mapping[str, Outcome]) -> None:
    bound = ettr(outcomes["ideal"])
    assert all(ettr(o) <= bound for o in outcomes.values())
    stages = set(outcomes["ideal"].ledger.by_stage)
    assert stages <= {CHECKPOINT, LOST, SLOW, "detection", "stop", "restart", "queue"}
    assert outcomes["ideal"].ledger.by_stage.get("detection", 0.0) == 0.0


def test_blind_restarts_loop_on_broken_nodes(outcomes: Mapping[str, Outcome]) -> None:
    blind, manual = outcomes["blind"], outcomes["manual"]
    assert sum(blind.interruptions.values()) > 1.5 * sum(manual.interruptions.values())


def test_cordoning_every_node_that_logged_an_error_isolates_healthy_ones(
    outcomes: Mapping[str, Outcome],
) -> None:
    over, ours = outcomes["cordon_all"], outcomes["autorecover"]
    assert over.false_quarantines > 5 * max(ours.false_quarantines, 1)
    assert max(over.out_of_service) > max(ours.out_of_service)
    assert over.ledger.by_stage["queue"] > ours.ledger.by_stage.get("queue", 0.0)


def test_autorecover_quarantines_through_the_real_controller(
    outcomes: Mapping[str, Outcome],
) -> None:
    ours = outcomes["autorecover"]
    assert ours.quarantines > 0
    assert ours.false_quarantines < ours.quarantines / 2
    assert ettr(ours) > ettr(outcomes["blind"])
    assert ettr(ours) > ettr(outcomes["cordon_all"])


def test_proactive_migration_moves_jobs_off_warned_nodes(outcomes: Mapping[str, Outcome]) -> None:
    proactive, default = outcomes["autorecover_proactive"], outcomes["autorecover"]
    assert proactive.migrations > 0 and default.migrations == 0
    assert "proactive_migration" in proactive.ledger.by_cause


def test_the_migration_budget_bounds_proactive_moves(run: Run, tmp_path: object) -> None:
    from pathlib import Path

    world_file = Path(str(tmp_path)) / "world.toml"
    world_file.write_text("[warning]\nmigrations_per_day = 0\n")
    none = prepare(OPTIONS, load_study(), load_world(world_file))
    assert simulate(none, "autorecover_proactive").migrations == 0


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown policy 'yolo'"):
        prepare(Options(policies=("yolo",)), load_study(), load_world())
