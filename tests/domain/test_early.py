"""A collective failure before the job got going (`domain/early.py`): `unknown`, requeued once,
unless a line says a process was killed or a peer lost; a repeat stops the job."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from autorecover.domain.attribution import attribute
from autorecover.domain.history import Attempt
from autorecover.domain.records import Action, Activity, Blame, Cause, Finding, Source
from domain.test_attribution import NODES, RULES, T0, f, job

EARLY = T0 + timedelta(minutes=3)


def refused(node: str, minutes: float = 2.5) -> Finding:
    return f("gloo.connect_failed", node, Blame.SYMPTOM, 30, minutes, source=Source.LOGS)


def test_a_cascade_minutes_after_the_start_is_unknown_and_retried_once() -> None:
    v = attribute(job(ended=EARLY), [refused(n) for n in NODES], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.UNKNOWN, (), Action.REQUEUE)
    assert "within 10 minutes of the start" in v.summary


def test_the_same_early_cascade_again_stops_the_job() -> None:
    earlier = (Attempt(Cause.UNKNOWN, signal="gloo.connect_failed"),)
    v = attribute(job(ended=EARLY), [refused(n) for n in NODES], [], RULES, earlier)
    assert (v.cause, v.action) == (Cause.APPLICATION, Action.STOP)


def test_a_cascade_after_the_job_ran_is_transient() -> None:
    late = [refused(n, 100) for n in NODES]
    assert attribute(job(), late, [], RULES).cause is Cause.TRANSIENT


def test_an_early_cascade_after_training_steps_is_transient() -> None:
    stepped = [Activity(node=n, source=Source.LOGS, present=True, lines=9, last_step=12)
               for n in NODES]  # fmt: skip
    v = attribute(job(ended=EARLY), [refused(n) for n in NODES], stepped, RULES)
    assert v.cause is Cause.TRANSIENT


def test_an_early_cascade_after_plain_text_progress_is_transient() -> None:
    # a job without the telemetry library: its log's `epoch ... loss` lines carry no step
    logged = [Activity(node=n, source=Source.LOGS, present=True, lines=9, progress_lines=3)
              for n in NODES]  # fmt: skip
    v = attribute(job(ended=EARLY), [refused(n) for n in NODES], logged, RULES)
    assert v.cause is Cause.TRANSIENT


@pytest.mark.parametrize(
    ("signal", "details"),
    [
        ("torch.signal_received", (("signal", "9"), ("name", "SIGKILL"))),
        ("slurm.task_signaled", (("signal", "Killed"),)),
        ("ray.worker_died", ()),
        ("elastic.rendezvous_node_lost", ()),
    ],
)
def test_an_early_cascade_with_a_killed_process_or_a_lost_peer_is_transient(
    signal: str, details: tuple[tuple[str, str], ...]
) -> None:
    death = f(signal, "n2", Blame.INFO, 0, 2, source=Source.LOGS, details=details)
    v = attribute(job(ended=EARLY), [death, *(refused(n) for n in NODES)], [], RULES)
    assert v.cause is Cause.TRANSIENT


def test_a_teardown_sigterm_is_not_a_kill_and_exit_137_is() -> None:
    term = f("torch.signal_received", "n1", Blame.INFO, 0, 2.8, source=Source.LOGS,
             details=(("signal", "15"), ("name", "SIGTERM")))  # fmt: skip
    cascade = [term, *(refused(n) for n in NODES)]
    assert attribute(job(ended=EARLY), cascade, [], RULES).cause is Cause.UNKNOWN
    killed = job(ended=EARLY, exit_codes=(("n3", 137),))
    assert attribute(killed, cascade, [], RULES).cause is Cause.TRANSIENT


def test_an_early_cascade_past_the_set_up_collectives_is_transient() -> None:
    def watchdog(node: str, seq: int) -> Finding:
        text = (f"[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
                "OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran "
                "for 600020 milliseconds before timing out.")  # fmt: skip
        return f("nccl.watchdog_timeout", node, Blame.SYMPTOM, 30, 2, source=Source.LOGS,
                 text=text)  # fmt: skip

    ran = attribute(job(ended=EARLY), [watchdog(n, 808) for n in NODES], [], RULES)
    assert ran.cause is Cause.TRANSIENT
    first = attribute(job(ended=EARLY), [watchdog(n, 1) for n in NODES], [], RULES)
    assert first.cause is Cause.UNKNOWN


# --- every node crashing at the start -------------------------------------------------------------


def crash(node: str, minutes: float = 0.5) -> Finding:
    return f("process.shell_crash_report", node, Blame.SYMPTOM, 45, minutes, source=Source.LOGS,
             details=(("signal", "Segmentation fault"),))  # fmt: skip


def test_every_node_crashing_at_the_start_is_the_program() -> None:
    v = attribute(job(ended=EARLY), [crash(n) for n in NODES], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.APPLICATION, (), Action.STOP)
    assert "every node's processes crashed" in v.summary


def test_srun_reporting_every_nodes_crash_from_the_first_node_counts_for_each() -> None:
    # srun prints "srun: error: HOST: task N: Segmentation fault" for every task on one node
    named = [
        f("slurm.task_signaled", "n1", Blame.SYMPTOM, 5, 0.5, source=Source.LOGS,
          details=(("host", n), ("signal", "Segmentation fault")))
        for n in NODES
    ]  # fmt: skip
    v = attribute(job(ended=EARLY), [crash("n1"), *named], [], RULES)
    assert v.cause is Cause.APPLICATION, v
    # ... or the exit statuses of a crash signal (128 + 11) do
    codes = tuple((n, 139) for n in NODES)
    assert attribute(job(ended=EARLY, exit_codes=codes), [crash("n1")], [], RULES).cause is (
        Cause.APPLICATION
    )


@pytest.mark.parametrize(
    ("ended", "activity"),
    [
        (EARLY, []),
        (T0 + timedelta(hours=2), []),  # the job had run for hours
        (EARLY, [Activity(node="n1", source=Source.LOGS, present=True, last_step=40)]),
    ],
)
def test_a_crash_not_on_every_node_stays_unknown(ended: object, activity: list[Activity]) -> None:
    v = attribute(job(ended=ended), [crash(n) for n in ("n1", "n2")], activity, RULES)  # not n3, n4
    assert v.cause is Cause.UNKNOWN and "crashed with a signal" in v.summary, v


@pytest.mark.parametrize(
    "activity", [[], [Activity(node="n1", source=Source.LOGS, present=True, last_step=40)]]
)
def test_every_node_crashing_after_the_job_ran_is_the_program_when_nothing_else_failed(
    activity: list[Activity],
) -> None:
    """After progress the start-up reading does not apply; `crashed_alone` does (twenty-fifth
    session): every node's own crash and no other failure is one code path everywhere."""
    late = job(ended=T0 + timedelta(hours=2))
    v = attribute(late, [crash(n) for n in NODES], activity, RULES)
    assert v.cause is Cause.APPLICATION and "nothing else failed" in v.summary, v


def test_every_node_aborting_at_the_start_is_not_called_a_crash() -> None:
    # Libraries abort on purpose after an error detected elsewhere (NCCL's watchdog, a CUDA
    # error): SIGABRT on every node is a symptom, and the start-up reading decides.
    aborts = [
        f("process.shell_crash_report", n, Blame.SYMPTOM, 45, 0.5, source=Source.LOGS,
          details=(("signal", "Aborted"),))
        for n in NODES
    ]  # fmt: skip
    codes = tuple((n, 134) for n in NODES)
    v = attribute(job(ended=EARLY, exit_codes=codes), aborts, [], RULES)
    assert v.cause is Cause.UNKNOWN, v


def test_a_crash_forwarded_from_another_node_counts_for_the_node_it_ran_on() -> None:
    # Ray's `(Worker pid=N, ip=A)` prefix: n1's output carries n2's crash (node n2, origin n1)
    relayed = [crash(n) for n in ("n1", "n3", "n4")]
    relayed.append(replace(crash("n2"), origin="n1"))
    assert attribute(job(ended=EARLY), relayed, [], RULES).cause is Cause.APPLICATION
    # ... and n1's own file holding it does not make n2 crashed when it is n1's own
    own = [crash(n) for n in ("n1", "n3", "n4")]
    own.append(replace(crash("n1"), origin=None))
    assert attribute(job(ended=EARLY), own, [], RULES).cause is Cause.UNKNOWN


def in_use(node: str, signal: str = "net.address_in_use", text: str = "") -> Finding:
    line = text or "OSError: [Errno 98] Address already in use"
    return f(signal, node, Blame.SYMPTOM, 25, 2.0, source=Source.LOGS, text=line)


def test_a_port_taken_on_one_node_at_set_up_is_transient() -> None:
    # another process on n2 held the port (a previous job's leftover, a co-tenant)
    v = attribute(job(ended=EARLY), [in_use("n2"), *(refused(n) for n in NODES)], [], RULES)
    assert (v.cause, v.suspect_nodes, v.action) == (Cause.TRANSIENT, (), Action.REQUEUE)
    assert "already taken on n2" in v.summary


def test_a_port_taken_on_every_node_is_not_called_a_leftover() -> None:
    # the job binding its own port twice on each node fails the same way on every retry
    v = attribute(job(ended=EARLY), [in_use(n) for n in NODES], [], RULES)
    assert "already taken" not in v.summary


def test_the_store_failing_to_listen_for_another_reason_is_not_a_held_port() -> None:
    text = (
        "RuntimeError: The server socket has failed to listen on any local network address. "
        "The server socket has failed to bind to [::]:29500 (errno: 99 - Cannot assign "
        "requested address)."
    )
    held = in_use("n1", "c10d.store_listen_failed", text)
    v = attribute(job(ended=EARLY), [held, *(refused(n) for n in NODES)], [], RULES)
    assert "already taken" not in v.summary
    taken = in_use(
        "n1",
        "c10d.store_listen_failed",
        text.replace("99 - Cannot assign requested address", "98 - Address already in use"),
    )
    v = attribute(job(ended=EARLY), [taken, *(refused(n) for n in NODES)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())


def test_the_libuv_store_failing_to_bind_for_another_reason_is_not_a_held_port() -> None:
    line = (
        "The server socket has failed to bind. port: 29500, useIpv6: 0, code: -99, "
        "name: EADDRNOTAVAIL, message: cannot assign requested address"
    )
    other = in_use("n1", "c10d.store_libuv_bind_failed", line)
    v = attribute(job(ended=EARLY), [other, *(refused(n) for n in NODES)], [], RULES)
    assert "already taken" not in v.summary
    taken = in_use(
        "n1",
        "c10d.store_libuv_bind_failed",
        line.replace("-99", "-98").replace(
            "EADDRNOTAVAIL, message: cannot assign requested address", "EADDRINUSE"
        ),
    )
    v = attribute(job(ended=EARLY), [taken, *(refused(n) for n in NODES)], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())
