"""The remediation ladder: steps, per-node budgets, nodes that keep coming back."""

from __future__ import annotations

from datetime import timedelta

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.hardware.remediation import (
    Attempt,
    Ladder,
    Step,
    after,
    higher,
    keeps_coming_back,
    next_step,
    prune,
    step_for,
)
from autorecover.domain.records import NodeAction

LADDER = Ladder()  # reset_gpu x2, reboot x1 per 7 days


def test_the_catalogs_actions_ask_for_steps() -> None:
    assert step_for(NodeAction.RESET_GPU) is Step.RESET_GPU
    assert step_for(NodeAction.DRAIN_AND_RESET) is Step.RESET_GPU
    assert step_for(NodeAction.REBOOT) is Step.REBOOT
    assert step_for(NodeAction.INSPECT) is Step.PERSON
    assert step_for(NodeAction.MONITOR) is None


def test_higher_and_after_follow_the_ladder() -> None:
    assert higher(None, Step.REBOOT) is Step.REBOOT
    assert higher(Step.RESET_GPU, Step.REBOOT) is Step.REBOOT
    assert higher(Step.PERSON, Step.REBOOT) is Step.PERSON
    assert higher(None, None) is None
    assert after(Step.RESET_GPU) is Step.REBOOT
    assert after(Step.REBOOT) is Step.POWER_CYCLE
    assert after(Step.POWER_CYCLE) is Step.PERSON
    assert after(Step.PERSON) is Step.PERSON


def test_budgets_climb_the_ladder_then_hand_over() -> None:
    tried: list[Attempt] = []
    order = []
    for _ in range(5):
        step = next_step(LADDER, None, tried, START)
        order.append(step)
        if step is Step.PERSON:
            break
        tried.append(Attempt(step, START))
    assert order == [Step.RESET_GPU, Step.RESET_GPU, Step.REBOOT, Step.POWER_CYCLE, Step.PERSON]


def test_the_wanted_step_is_a_floor() -> None:
    assert next_step(LADDER, Step.REBOOT, (), START) is Step.REBOOT
    assert next_step(LADDER, Step.PERSON, (), START) is Step.PERSON


def test_budgets_refill_after_the_window() -> None:
    tried = [Attempt(Step.REBOOT, START), Attempt(Step.POWER_CYCLE, START)]
    assert next_step(LADDER, Step.REBOOT, tried, START + timedelta(days=1)) is Step.PERSON
    assert next_step(LADDER, Step.REBOOT, tried, START + timedelta(days=8)) is Step.REBOOT
    assert prune(tried, START + timedelta(days=8), LADDER) == ()
    assert next_step(LADDER, Step.REBOOT, tried[:1], START + timedelta(days=1)) is Step.POWER_CYCLE


def test_a_ladder_without_reset_goes_straight_to_reboot() -> None:
    ladder = Ladder(steps=(Step.REBOOT,))
    assert next_step(ladder, Step.RESET_GPU, (), START) is Step.REBOOT


def test_a_node_that_keeps_coming_back_stays_out() -> None:
    returns = (START, START + timedelta(days=1))
    assert keeps_coming_back(LADDER, returns, START + timedelta(days=2))
    assert not keeps_coming_back(LADDER, returns[:1], START + timedelta(days=2))
    assert not keeps_coming_back(LADDER, returns, START + timedelta(days=9))
