"""The executors' shared loop: order kept within a lane, mutations rate-limited in order,
transient refusals wait, permanent ones fail, and the hooks bracket each execution."""

from __future__ import annotations

from dataclasses import dataclass

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.controllers.counting import TokenBucket
from autorecover.controllers.executing import execute_in_order
from autorecover.controllers.hooks import ExecutionHooks
from autorecover.controllers.ports import ActionStatus, PermanentError, TransientError


@dataclass(frozen=True, slots=True)
class Act:
    id: str
    lane: str = ""
    mutates: bool = True
    fails: type[Exception] | None = None


def _run(actions: list[Act], burst: int, hooks: ExecutionHooks[Act] | None = None) -> list[str]:
    clock = FakeClock()
    performed: list[str] = []

    def perform(act: Act) -> str:
        if act.fails is not None:
            raise act.fails(f"{act.id} refused")
        performed.append(act.id)
        return f"{act.id} ok"

    outcomes = execute_in_order(
        actions,
        perform,
        lane=lambda a: a.lane or None,
        mutates=lambda a: a.mutates,
        bucket=TokenBucket(per_s=0.001, burst=burst, now=clock.now()),
        clock=clock,
        hooks=hooks or ExecutionHooks(),
    )
    assert all(o.at == clock.now() for o in outcomes)
    assert [o.result for o in outcomes if o.status is ActionStatus.DONE] == [
        f"{i} ok" for i in performed
    ]
    return [f"{o.action_id}:{o.status}" for o in outcomes]


def test_the_bucket_stops_every_later_mutation_and_their_lanes() -> None:
    acts = [
        Act("a1", "a"), Act("b1", "b"), Act("a2", "a", mutates=False),
        Act("c1", "c", mutates=False), Act("c2", "c"), Act("x", mutates=False),
    ]  # fmt: skip
    # One token: a1 runs; b1 is refused, so c2 waits too even though c's lane is free.
    assert _run(acts, burst=1) == ["a1:done", "a2:done", "c1:done", "x:done"]


def test_a_transient_refusal_holds_its_lane_a_permanent_one_fails() -> None:
    acts = [
        Act("a1", "a", fails=TransientError), Act("a2", "a"),
        Act("b1", "b", fails=PermanentError), Act("b2", "b"),
        Act("x1", fails=TransientError), Act("x2"),  # no lane: waits for nothing
    ]  # fmt: skip
    assert _run(acts, burst=10) == ["b1:failed", "b2:done", "x2:done"]


def test_hooks_bracket_each_execution() -> None:
    seen: list[str] = []
    hooks = ExecutionHooks[Act](
        before_execute=lambda a: seen.append(f"before {a.id}"),
        after_execute=lambda a: seen.append(f"after {a.id}"),
    )
    _run([Act("a", "a"), Act("b", "b", fails=PermanentError)], burst=10, hooks=hooks)
    assert seen == ["before a", "after a", "before b"]


def test_agent_actions_an_action_underway_elsewhere_spends_no_second_token() -> None:
    from autorecover.controllers.ports import Underway

    clock = FakeClock()
    bucket = TokenBucket(per_s=0.001, burst=2, now=clock.now())
    state = {"r": "running"}
    asked: list[str] = []

    def perform(act: Act) -> str:
        asked.append(act.id)
        if act.id == "r" and state["r"] == "running":
            raise Underway("the agent runs it")
        return "done"

    underway: set[str] = set()

    def run(acts: list[Act]) -> list[str]:
        outcomes = execute_in_order(
            acts, perform, lane=lambda a: a.lane or None, mutates=lambda a: a.mutates,
            bucket=bucket, clock=clock, hooks=ExecutionHooks(), underway=underway,
        )  # fmt: skip
        return [f"{o.action_id}:{o.status}" for o in outcomes]

    r, behind, other = Act("r", "n1"), Act("after", "n1"), Act("o", "n2")
    assert run([r, behind]) == [] and underway == {"r"}  # one token spent; its lane waits
    for _ in range(5):  # asked again and again: no more tokens
        assert run([r, behind]) == []
    assert asked.count("r") == 6
    assert run([other]) == ["o:done"]  # the second token is still there
    state["r"] = "done"
    assert run([r]) == ["r:done"] and underway == set()
