"""Orders in the domain: arguments checked per kind, the status table, reports and expiry."""

from __future__ import annotations

from datetime import timedelta
from itertools import product

import pytest

from autorecover.adapters.fakes.cluster import START
from autorecover.domain.orders import (
    FINAL,
    TRANSITIONS,
    NodeOrder,
    OrderError,
    OrderKind,
    OrderReport,
    OrderStatus,
    OrderVerdict,
    Refusal,
    Refused,
    args_json,
    check,
    expire,
    expired,
    place,
    report,
)

LATER = START + timedelta(seconds=30)
S = OrderStatus


def order(kind: OrderKind = OrderKind.RESET_GPU, **args: object) -> NodeOrder:
    given = args or {OrderKind.RESET_GPU: {"gpus": ["0000:18:00.0"]}, OrderKind.REBOOT: {},
                     OrderKind.DIAGNOSE: {"level": 1}}.get(kind, {})  # fmt: skip
    return place("n1/3/reset_gpu", "n1", kind, given, now=START, deadline_s=300, by="ar",
                 why="remediate: reset_gpu")  # fmt: skip


def said(status: S, node: str = "n1", **kw: object) -> OrderReport:
    return OrderReport(node, status, **kw)  # type: ignore[arg-type]


def test_agent_actions_arguments_are_checked_per_kind() -> None:
    assert order(OrderKind.DIAGNOSE, level=3).args == {"level": 3}
    assert args_json(order().args) == {"gpus": ["0000:18:00.0"]}
    assert order(OrderKind.RESET_GPU, gpus=[]).args["gpus"] == ()  # every GPU of the node
    bundle = order(OrderKind.COLLECT_BUNDLE, since="2026-01-05T07:50:00+00:00",
                   until="2026-01-05T08:00:00Z")  # fmt: skip
    assert bundle.args["until"] == "2026-01-05T08:00:00+00:00"
    assert order(OrderKind.REBOOT).deadline == START + timedelta(seconds=300)
    bad = [
        (OrderKind.DIAGNOSE, {"level": 0}), (OrderKind.DIAGNOSE, {"level": 5}),
        (OrderKind.DIAGNOSE, {"level": True}), (OrderKind.DIAGNOSE, {"level": "1"}),
        (OrderKind.DIAGNOSE, {}), (OrderKind.RESET_GPU, {"gpus": ["0000:18:00"]}),
        (OrderKind.RESET_GPU, {"gpus": "0000:18:00.0"}),
        (OrderKind.RESET_GPU, {"gpus": ["0000:18:00.0; reboot"]}),
        (OrderKind.REBOOT, {"now": True}),
        (OrderKind.COLLECT_BUNDLE, {"since": "yesterday", "until": "2026-01-05T08:00:00Z"}),
        (OrderKind.COLLECT_BUNDLE, {"since": "2026-01-05T08:00:00", "until": "2026-01-05T08:00:00Z"}),
        (OrderKind.COLLECT_BUNDLE, {"since": "2026-01-05T09:00:00Z", "until": "2026-01-05T08:00:00Z"}),
    ]  # fmt: skip
    for kind, args in bad:
        with pytest.raises(OrderError):
            place("x", "n1", kind, args, now=START, deadline_s=10, by="ar", why="")
    with pytest.raises(OrderError):
        place("", "n1", OrderKind.REBOOT, {}, now=START, deadline_s=10, by="ar", why="")


def test_agent_actions_the_status_table_raises_on_every_other_move() -> None:
    for frm, to in product(S, S):
        if (frm, to) in TRANSITIONS:
            check(frm, to)
        else:
            with pytest.raises(OrderError):
                check(frm, to)
    assert not any(frm in FINAL for frm, _ in TRANSITIONS)  # a final status is final


def test_agent_actions_a_report_moves_an_order_once_and_a_repeat_changes_nothing() -> None:
    o = order()
    running = report(o, said(S.RUNNING, detail="resetting"), LATER)
    assert isinstance(running, NodeOrder) and running.status is S.RUNNING
    assert report(running, said(S.RUNNING), LATER) is running
    done = report(running, said(S.DONE, detail="reset 0000:18:00.0", findings=("ok",),
                                attachments={"nvidia-smi.txt": "ok"}), LATER)  # fmt: skip
    assert isinstance(done, NodeOrder) and done.final and done.findings == ("ok",)
    assert done.attachments == {"nvidia-smi.txt": "ok"} and done.updated_at == LATER
    assert report(done, said(S.DONE), LATER + timedelta(seconds=5)) is done  # idempotent
    again = report(done, said(S.FAILED), LATER)
    assert isinstance(again, Refused) and again.why is Refusal.CONFLICT
    late = report(done, said(S.RUNNING), LATER)
    assert isinstance(late, Refused) and late.why is Refusal.CONFLICT
    # An agent may answer a queued order at once.
    refused = report(o, said(S.REFUSED, detail="processes hold the GPU: python (pid 4242)"), LATER)
    assert isinstance(refused, NodeOrder) and refused.status is S.REFUSED


def test_agent_actions_a_report_is_refused_for_another_node_an_engine_status_or_bad_bounds() -> (
    None
):
    o = order()
    other = report(o, said(S.DONE, node="n2"), LATER)
    assert isinstance(other, Refused) and other.why is Refusal.NOT_YOURS
    for status in (S.QUEUED, S.EXPIRED):
        engine_only = report(o, said(status), LATER)
        assert isinstance(engine_only, Refused) and engine_only.why is Refusal.CONFLICT
    for bad in ({"detail": "x" * 2001}, {"findings": ("x",) * 51}, {"findings": ("x" * 301,)},
                {"attachments": {f"a{i}": "" for i in range(9)}},
                {"attachments": {"../etc/passwd": ""}}, {"attachments": {"a": "x" * (256 * 1024 + 1)}}):  # fmt: skip
        refused = report(o, said(S.DONE, **bad), LATER)
        assert isinstance(refused, Refused) and refused.why is Refusal.CONFLICT, bad


def test_agent_actions_an_unanswered_order_expires_and_a_late_report_is_too_late() -> None:
    o = order()
    assert not expired(o, START + timedelta(seconds=299))
    assert expired(o, START + timedelta(seconds=300))
    gone = expire(o, START + timedelta(seconds=301))
    assert gone.status is S.EXPIRED and gone.detail == "no report from the agent within 300 s"
    late = report(gone, said(S.DONE), START + timedelta(seconds=302))
    assert isinstance(late, Refused) and late.why is Refusal.TOO_LATE
    done = report(o, said(S.DONE), LATER)
    assert isinstance(done, NodeOrder)
    assert not expired(done, START + timedelta(days=1)) and expire(done, LATER) is done
    assert OrderVerdict("pass") is OrderVerdict.PASS
