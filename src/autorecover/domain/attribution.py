"""Attribution: from a job's findings and activity to a verdict a person can check.

The reasoning, in order:
1. Keep what falls inside the job's window and re-read it in context (`context.py`); the
   earliest fatal error the telemetry library recorded, if the application's, is raised above
   a bare traceback line (`fatal_errors.py`).
2. Collective failures (NCCL timeouts, peers exiting, gloo's lost pairs and timeouts, c10d
   store timeouts, elastic summaries) are symptoms; they never decide a cause on their own.
3. The shape of the evidence (`shape.py`): one family of hardware signal failing on every
   node at once names no node; the node missing from a cascade, or whose host went silent,
   is a suspect when a second, independent line agrees.
4. Hardware: a node with strong hardware evidence is a suspect, unless an application error
   came clearly first. A hang whose progress stopped on one node first names that node, as
   does one whose silent nodes alone have kernels reporting CPU lockups (`stalls.py`); the
   scheduler's own final state counts as a line (`final_states.py`).
5. Otherwise the application, if one of its own errors is there (not the traceback of its
   node's own timeout); otherwise a transient cause (preemption, eviction, a collective
   timeout with no hardware behind it; `unknown` when it came before the job got going,
   `early.py`, or when a one-host cascade is collective timeouts alone, `timeouts.py`, or the
   only symptom is an I/O error naming no disk or file system, `shape.BARE_IO_ERRORS`; the
   application when a set-up failure's lines name the job's configuration, when every node's
   processes crashed and nothing else failed, or when the run reached its last step before
   its time ran out, `early.py`). A
   running job whose ranks' telemetry library raised a hang, with no progress since, hangs
   (`hangs.py`): transient, requeue, naming where the stacks and the flight recorders place
   it. Otherwise unknown.
6. The job's earlier attempts (`history.py`) may turn a repeated failure into `application`.

How the verdict is worded and which lines it shows is `verdicts.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from autorecover.domain.clearing import (
    STORAGE_STALLS,
    cleared,
    corroborated_outliers,
    fabric_wide,
    outlier_reason,
)
from autorecover.domain.context import in_context
from autorecover.domain.desync import collective_desync
from autorecover.domain.early import (
    SETUP_WINDOW,
    TIME_LIMITS,
    before_it_ran,
    crashed_alone,
    crashed_everywhere,
    killed_or_lost,
    nccl_software_reading,
    ran_to_its_last_step,
    set_up_reading,
    trained,
)
from autorecover.domain.fatal_errors import first_fatal
from autorecover.domain.final_states import state_findings
from autorecover.domain.hangs import OUTLIERS, raised_reason, standing
from autorecover.domain.history import Attempt, recall
from autorecover.domain.ranks import duplicate_ranks, unstarted_ranks
from autorecover.domain.records import (
    Activity,
    Blame,
    Cause,
    Finding,
    JobRecord,
    Source,
    Verdict,
)
from autorecover.domain.reports import (
    about_named,
    blamed_peers,
    forwarded,
    labelled,
    named_failures,
)
from autorecover.domain.restarts import restarts
from autorecover.domain.shape import (
    BARE_IO_ERRORS,
    LOCAL_CRASHES,
    UNEXPLAINED_DEATHS,
    application_errors,
    confinement,
    family,
    missing_from_cascade,
    own_line,
    shared_families,
    stopped_first,
    straggler,
)
from autorecover.domain.stalls import Stall, stalled
from autorecover.domain.timeouts import (
    only_waited_out,
    waited_on_main_process,
    waited_on_preprocessing,
)
from autorecover.domain.verdicts import (
    APPLICATION_THRESHOLD,
    HARDWARE_THRESHOLD,
    TRANSIENT_THRESHOLD,
    Scored,
    application_reason,
    hardware_reason,
    make_verdict,
    said_symptoms,
    set_aside,
    transient_reason,
    weak_everywhere,
    weak_findings,
)

# An application error this much earlier than the first hardware line came first.
APP_BEFORE_HW = timedelta(minutes=2)
NVRX_NO_REQUEUE_EXIT = 93
# Rank-local crashes of unknown cause: not a collective symptom, not yet anyone's fault.


def attribute(
    job: JobRecord,
    findings: Sequence[Finding],
    activity: Sequence[Activity],
    xid_rules: dict[int, frozenset[str]],
    history: Sequence[Attempt] = (),
) -> Verdict:
    """Decide cause, suspects and action for a failed or stuck job (`history`: the verdicts of
    the job's earlier attempts, oldest first, when known)."""
    verdict = _decide(job, findings, activity, xid_rules)
    if not history:
        return verdict
    r = recorded(job, findings, activity, xid_rules, verdict)
    return recall(verdict, history, r.step, r.origin, r.signal)


@dataclass(frozen=True, slots=True)
class Recorded:
    """A failure as the job's history records it (docs/attribution.md section 7)."""

    signal: str | None  # the decisive line's, else the cascade's heaviest symptom
    origin: str | None  # the node it started on, when one is known
    step: int | None  # the last training step reached
    rank: int | None = None  # the rank of the decisive line, when its prefix says


def recorded(
    job: JobRecord,
    findings: Sequence[Finding],
    activity: Sequence[Activity],
    xid_rules: dict[int, frozenset[str]],
    verdict: Verdict,
) -> Recorded:
    """How the job's history records this failure: the node missing from a cascade, else the
    decisive line's node; never the first of many nodes to complain."""
    steps = [a.last_step for a in activity if a.source is Source.LOGS and a.last_step is not None]
    seen = in_context(job, findings, xid_rules, trained=trained(activity))
    signal, origin = _signature(verdict, seen)
    missing = missing_from_cascade(job, seen)
    rank = None
    if origin is not None and not missing:
        first = verdict.evidence[0]
        rank = next((f.rank for f in seen if f.signal == first.signal and f.line == first.line
                     and (f.origin or f.node) == first.node), None)  # fmt: skip
    return Recorded(signal, missing or origin, max(steps, default=None), rank)


def _signature(verdict: Verdict, seen: Sequence[Finding]) -> tuple[str | None, str | None]:
    """The failure's signal and the node it started on, as history records them: the decisive
    line's, and its node when no other node shows that signal; for a cascade with no decisive
    line, its heaviest collective symptom (earliest on a tie) and no node (the first of many
    nodes to complain is chance, and so is the first of many to print the same line)."""
    if verdict.strength > 0 and verdict.evidence:
        first = verdict.evidence[0]
        elsewhere = any(
            f.signal == first.signal and (f.origin or f.node) != first.node for f in seen
        )
        return first.signal, None if elsewhere else first.node
    complaints = [f for f in seen if f.blame is Blame.SYMPTOM and f.weight >= 20]
    if not complaints:
        return None, None
    top = min(complaints, key=lambda f: (-f.weight, f.at.timestamp() if f.at else 0.0, f.line))
    return top.signal, None


def _decide(
    job: JobRecord,
    findings: Sequence[Finding],
    activity: Sequence[Activity],
    xid_rules: dict[int, frozenset[str]],
) -> Verdict:
    findings = about_named(forwarded(labelled(findings, job), job), job)
    seen = first_fatal(in_context(job, findings, xid_rules, trained=trained(activity)))
    seen.extend(state_findings(job))
    seen.extend(restarts(job, findings, activity))
    seen.extend(named_failures(seen, job))
    seen.extend(blamed_peers(findings, seen, job))
    seen.extend(collective_desync(seen))
    seen.extend(duplicate_ranks(seen))
    seen.extend(unstarted_ranks(job, seen, activity))
    symptoms = [f for f in seen if f.blame is Blame.SYMPTOM]
    app = application_errors(seen, symptoms, APPLICATION_THRESHOLD)
    seen.extend(stopped_first(job, seen, activity, app))
    hang = stalled(job, activity, seen) if job.running else None
    raised = standing(seen, activity) if job.running else []  # the library's own hang records
    transient = [f for f in seen if f.blame is Blame.TRANSIENT and f.weight >= TRANSIENT_THRESHOLD]

    # NVRx's "do not requeue" exit reaches job.json directly, or only through the launcher's
    # report of its worker's exit code (torchrun's agent itself exits 1).
    if any(job.exit_code(n) == NVRX_NO_REQUEUE_EXIT for n in job.nodes) or any(
        f.signal == "torch.elastic_failure" and f.detail("exitcode") == str(NVRX_NO_REQUEUE_EXIT)
        for f in seen
    ):
        return make_verdict(
            Cause.APPLICATION,
            (),
            [*app, *_by_signal(seen, "nvrx.no_progress")],
            symptoms,
            f"a rank exited with {NVRX_NO_REQUEUE_EXIT}: NVRx asks not to requeue",
        )

    shared = _shared(job, seen, app)
    hw = _hardware_scores(f for f in seen if not shared.holds(f))
    cases = {n: scored.findings for n, scored in hw.items()}
    suspects = cleared(job, seen, cases, _suspects(hw, app))
    if hang is not None and not suspects:
        suspects = cleared(job, seen, cases, hang.suspects)
    outliers = [f for f in seen if f.signal in OUTLIERS]
    if not suspects and not app:
        suspects = corroborated_outliers(job, outliers, seen)
    if fabric_wide(job, suspects, cases):
        decisive = [max(hw[s].findings, key=lambda f: f.weight) for s in suspects]
        why = (
            f"network errors of the same kind on {len(suspects)} of {len(job.nodes)} nodes: the "
            "fabric they share (a switch, a link, the subnet manager), not each node's adapter: "
            "retry without excluding any"
        )
        return make_verdict(Cause.TRANSIENT, (), decisive, symptoms, why)
    if suspects:
        decisive = [f for s in suspects for f in hw.get(s, _empty(s)).findings]
        if hang is not None:
            decisive.extend(hang.findings)
        decisive.extend(f for f in [*outliers, *raised] if f.node in suspects)
        why = hardware_reason(suspects, hw, symptoms, hang.findings if hang else ())
        return make_verdict(Cause.HARDWARE, tuple(sorted(suspects)), decisive, symptoms, why)
    if app:
        return make_verdict(Cause.APPLICATION, (), app, symptoms, application_reason(app, job))
    if shared:
        decisive = [f for f in seen if shared.holds(f)]
        signals = ", ".join(sorted({f.signal for f in decisive}))
        names = ", ".join(sorted(shared.families))
        if all(family(f.signal) == "device" and f.source is Source.LOGS for f in decisive):
            why = (
                f"the same device error ({signals}) from every node's ranks at once: the "
                "job's own use of the GPU, not one node's hardware"
            )
            return make_verdict(Cause.APPLICATION, (), decisive, symptoms, why)
        why = (
            f"{signals} ({names}) on every node of the job at once: the fabric, the shared "
            "storage, the driver or the job, not one node's hardware: retry without excluding any"
        )
        return make_verdict(Cause.TRANSIENT, (), decisive, symptoms, why)
    slowed = straggler(job, seen)
    if slowed:
        node = slowed[0].node
        why = (
            f"the job ran out of time while only {node} reported its hardware slowed "
            f"({slowed[0].signal}): synchronous training runs at the pace of its slowest "
            "rank; requeue without it"
        )
        return make_verdict(Cause.HARDWARE, (node,), slowed, [*transient, *symptoms], why)
    last_step = ran_to_its_last_step(activity)
    outlived = [f for f in transient if f.signal in TIME_LIMITS]
    if last_step is not None and (hang is not None or (transient and outlived == transient)):
        how = "ran out of its time" if outlived else "stopped making progress"
        why = (
            f"the run reached its last step ({last_step} of {last_step}) and then {how} with "
            "no error: the work after training (its shutdown, a final save or evaluation) hung, "
            "as it will again; not the nodes, not the scheduler"
        )
        decisive = [*outlived, *(hang.findings if hang is not None else ())]
        return make_verdict(Cause.APPLICATION, (), decisive, symptoms, why)
    if (
        last_step is not None
        and not transient
        and symptoms
        and not any(family(f.signal) == "storage" for f in symptoms)
    ):
        # After the last step only the job's own shutdown, final save or evaluation ran; a
        # storage error leaves the save's storage in question.
        shown = ", ".join(sorted({f.signal for f in symptoms}))
        why = (
            f"the run reached its last step ({last_step} of {last_step}) and then failed with "
            f"only symptoms ({shown}) and no fault of a node, a service or the storage: the "
            "work after training (its shutdown, a final save or evaluation) failed, as it will "
            "again, and a retry has no step left to train: stop"
        )
        return make_verdict(Cause.APPLICATION, (), symptoms, (), why)
    if transient:
        return make_verdict(Cause.TRANSIENT, (), transient, symptoms, transient_reason(transient))
    crashes = [f for f in symptoms if f.signal in LOCAL_CRASHES]
    if crashes and crashed_everywhere(job, crashes, seen) and before_it_ran(job, seen, activity):
        why = (
            "every node's processes crashed within minutes of the start, before any progress: "
            "the program, its build or its environment (a node's fault crashes that node "
            "alone): stop"
        )
        return make_verdict(Cause.APPLICATION, (), crashes, symptoms, why)
    if crashes and crashed_alone(job, crashes, seen):
        why = (
            "every node's processes crashed and nothing else failed: one code path reached on "
            "every node (a node's fault crashes that node alone; a peer's death makes the "
            "others complain, not crash): the program, its build or its environment"
        )
        return make_verdict(Cause.APPLICATION, (), crashes, symptoms, why)
    if crashes:
        why = "a process crashed with a signal and nothing says why: retry, and watch for a repeat"
        return set_aside(Cause.UNKNOWN, crashes, symptoms, why, seen)
    collective = [f for f in symptoms if f.weight >= 20]
    deaths = [f for f in symptoms if f.signal in UNEXPLAINED_DEATHS]
    if deaths and all(f.signal.startswith("ray.") for f in collective):
        # Only Ray's own restatements beside it; others' collective timeouts make it a lost
        # peer, as a kill from outside is (the branch below).
        why = (
            "a Ray worker or raylet died of what Ray calls an unexpected system error and "
            "nothing says why (an OOM kill, a crash, a stop from outside: Ray lists them, not "
            "which): retry, and watch for a repeat"
        )
        return set_aside(Cause.UNKNOWN, deaths, symptoms, why, seen)
    if collective and not job.running:
        named = ", ".join(sorted({f.signal for f in collective})[:3])
        why = (
            f"only symptoms of a failure elsewhere ({named}: a collective, a peer or a service), "
            "with no hardware or application error behind them: retry"
        )
        waits = waited_on_main_process(seen)
        if waits and not killed_or_lost(job, seen):
            why = (
                "ranks timed out waiting in main_process_first while the main process did the "
                "job's preprocessing (tokenizing or loading the dataset): that work outlasts the "
                "process group's timeout and will again; raise the timeout or preprocess ahead: "
                "stop"
            )
            return make_verdict(Cause.APPLICATION, (), waits, symptoms, why)
        unfinished = waited_on_preprocessing(seen)
        if unfinished and not killed_or_lost(job, seen):
            bar = unfinished[0]
            who = f"rank {bar.rank} on {bar.node}" if bar.rank is not None else bar.node
            why = (
                f"collectives timed out while {who} was still preprocessing the dataset "
                f"({bar.detail('desc')} at {bar.detail('pct')} %): that work outlasts the "
                "process group's timeout and will again; raise the timeout or preprocess "
                "ahead: stop"
            )
            return make_verdict(Cause.APPLICATION, (), unfinished, symptoms, why)
        if outliers:
            why += f" ({outlier_reason(outliers)})"
            return make_verdict(Cause.TRANSIENT, (), outliers, symptoms, why)
        if before_it_ran(job, seen, activity):
            reading = set_up_reading(job, seen)
            if reading is not None:
                cause, lines, why = reading
                return make_verdict(cause, (), lines, symptoms, why)
            why = (
                f"only symptoms ({named}) within {SETUP_WINDOW.seconds // 60} minutes of the "
                "start, before any progress, with no process killed and no peer lost: a fault "
                "in the job's setup fails the same way on every retry, a passing one does not; "
                "retry once, a repeat stops it"
            )
            return set_aside(Cause.UNKNOWN, [], symptoms, why, seen)
        if all(f.signal in BARE_IO_ERRORS for f in collective):
            why = (
                f"only an I/O error ({named}) and nothing strong enough to say where it came "
                "from: the node's disk, a shared file system or the job's own files may have "
                "failed; retry once, a repeat stops it"
            )
            return set_aside(Cause.UNKNOWN, [], symptoms, why, seen)
        if len(job.nodes) == 1 and only_waited_out(collective) and not killed_or_lost(job, seen):
            why = (
                "collectives timed out on one host and nothing else is wrong: no peer lost, no "
                "process killed, no error; with no network between its ranks, a rank that never "
                "arrived or a GPU that hung, and no line says which: retry once, a repeat stops it"
            )
            return set_aside(Cause.UNKNOWN, [], symptoms, why, seen)
        if all(f.signal in WATCHDOG_STUCK for f in collective) and not killed_or_lost(job, seen):
            why = (
                f"only the heartbeat monitor's word that the NCCL watchdog itself hung ({named}):"
                " a NCCL or CUDA call that never returned, on a GPU, in its driver or in a "
                "deadlock of the job's own threads, no collective timed out and no peer was lost, "
                "and no line says which: retry once, a repeat stops it"
            )
            return set_aside(Cause.UNKNOWN, [], symptoms, why, seen)
        quiet = missing_from_cascade(job, seen)
        if quiet is not None:
            why += (
                f" (it started on {quiet}, the one node that did not complain, but nothing "
                "else points at its hardware)"
            )
        return set_aside(Cause.TRANSIENT, [], symptoms, why, seen)
    if raised:
        ranks = {(f.node, f.rank) for f in outliers}
        own = [f for f in raised if (f.node, f.rank) in ranks] or raised
        return make_verdict(
            Cause.TRANSIENT, (), [*outliers, *own], symptoms, raised_reason(raised, outliers)
        )
    if hang is not None:
        return _hung(job, hang, outliers, symptoms, seen)
    for blame, cause, meaning in _WEAK_EVERYWHERE:
        alike = weak_everywhere(seen, blame)
        if alike:
            nodes = ", ".join(sorted({f.node for f in alike}))
            why = (
                f"the same {blame.value} error ({alike[0].signal}, weak alone) on {len(alike)} "
                f"nodes ({nodes}) and nothing else: {meaning}"
            )
            return make_verdict(cause, (), alike, symptoms, why)
    weak = weak_findings(seen)
    if weak:
        shown = ", ".join(f"{f.signal} on {f.node} ({f.blame.value} {f.weight})" for f in weak)
        why = (
            f"no signal strong enough to decide: {shown}; a node is named at hardware "
            f"{HARDWARE_THRESHOLD}, a retry at transient {TRANSIENT_THRESHOLD}, a stop at "
            f"application {APPLICATION_THRESHOLD}"
        )
        return make_verdict(Cause.UNKNOWN, (), [], [*weak, *symptoms], why)
    software = nccl_software_reading(job, seen) if before_it_ran(job, seen, activity) else None
    if software is not None:
        cause, lines, why = software
        return make_verdict(cause, (), lines, symptoms, why)
    said = said_symptoms(symptoms)
    if said:
        shown = ", ".join(f"{f.signal} on {f.node} (symptom {f.weight})" for f in said)
        why = (
            f"no cause recognised: only symptoms, which report a failure without saying what "
            f"failed: {shown}"
        )
        return make_verdict(Cause.UNKNOWN, (), [], symptoms, why)
    return make_verdict(
        Cause.UNKNOWN, (), [], symptoms, "no recognised failure signal in the window"
    )


# What one weak error printed alike on several nodes means (`verdicts.weak_everywhere`).
_WEAK_EVERYWHERE = (
    (
        Blame.APPLICATION,
        Cause.APPLICATION,
        "a code path or a setting every one of them took (one node's own fault fails that node "
        "alone): a retry fails the same way",
    ),
    (
        Blame.TRANSIENT,
        Cause.TRANSIENT,
        "something outside them that every one reached (a service, the network they share), "
        "not one node's own: retry",
    ),
)


# ProcessGroupNCCL's heartbeat monitor: the watchdog thread itself stuck in a NCCL/CUDA call
# (torch: "This typically indicates a NCCL/CUDA API (e.g., CudaEvent.query) hang blocking the
# watchdog"), a hang below the collectives, not a collective that timed out waiting for a peer.
WATCHDOG_STUCK = frozenset({"nccl.heartbeat_monitor"})


def _hung(
    job: JobRecord,
    hang: Stall,
    outliers: Sequence[Finding],
    symptoms: Sequence[Finding],
    seen: Sequence[Finding],
) -> Verdict:
    """A job that stopped making progress everywhere at once, with no node to blame.

    With a line saying that something the job shares is slow or stuck (a transient line below
    its threshold, a task blocked in the kernel on I/O, a shared file system's client losing
    its server), or that a process was killed or a peer lost (the others wait for it), it is a
    stall a restart gets past: `transient`. With none, nothing says whether a rank waits in its
    own code or data, in a mismatched collective, on a fabric stall or on a GPU that hung
    without a report: `unknown`, a retry the user's budget bounds, so a repeat stops it
    (thirty-third session: of the corpus's hangs with nothing behind them, both splits, 8 of
    54 were transient by their threads, 19 unknown, 20 application, 7 hardware)."""
    shared = sorted(
        {f.signal for f in seen if f.blame is Blame.TRANSIENT or f.signal in STORAGE_STALLS}
    )
    lost = killed_or_lost(job, seen)
    quiet = int((job.collected - hang.since).total_seconds() // 60)
    floor = int(hang.threshold.total_seconds() // 60)
    stopped = (
        "the job stopped making progress on every node at once (nothing since "
        f"{hang.since:%Y-%m-%d %H:%M:%S}Z, {quiet} min before the bundle was taken; {floor} min "
        "without progress is a hang here)"
    )
    if outliers:
        why = f"{stopped} and no node shows a fault: {outlier_reason(outliers)}"
    elif shared:
        why = (
            f"{stopped}, beside a stall of what it shares ({', '.join(shared)}) and no node's "
            "fault: retry"
        )
    elif lost:
        why = (
            f"{stopped}, after a process was killed or a peer lost, and no node shows a fault: "
            "the others wait for it; retry"
        )
    else:
        why = f"{stopped}, with no evidence why"
    cause = Cause.TRANSIENT if shared or lost else Cause.UNKNOWN
    return set_aside(cause, [*outliers, *hang.findings], symptoms, why, seen)


@dataclass(frozen=True, slots=True)
class _Shared:
    """Hardware families failing on every node at once, and what some nodes show beyond it."""

    families: frozenset[str]
    level: dict[str, int]  # the weight every node shows in the family
    own: frozenset[tuple[str, str]]  # (node, family): a minority showing more than the level

    def __bool__(self) -> bool:
        return bool(self.families)

    def holds(self, f: Finding) -> bool:
        """True when the finding is the shared cause's, not its node's own."""
        if f.blame is not Blame.HARDWARE or not own_line(f):
            return False
        name = confinement(f.signal)
        if name not in self.families:
            return False
        return not ((f.node, name) in self.own and f.weight > self.level[name])


def _shared(job: JobRecord, seen: Sequence[Finding], app: Sequence[Finding]) -> _Shared:
    """Families of hardware signal that fail on every node of a multi-node job at once.

    A family with a strong finding of a node's own on every node (an InfiniBand port error on
    every host, a storage error on every node, one device error from every rank) names no one
    node: the fabric, the shared filesystem, the driver or the job's own use of the device is
    at fault. So is a job whose every node is a suspect with its strongest signals all of one
    family. Their findings are left out of the node scores — except where a minority of nodes
    shows more in the family than every node does (a link down beside every host's port
    event): that much is the node's own. What is left may still name a node.
    """
    families = shared_families(job, seen)
    full = _hardware_scores(seen)
    everyone = _suspects(full, list(app))
    if len(job.nodes) > 1 and set(everyone) == set(job.nodes):
        tops = {confinement(max(full[n].findings, key=lambda f: f.weight).signal) for n in everyone}
        if len(tops) == 1:
            families |= tops
    level: dict[str, int] = {}
    own: set[tuple[str, str]] = set()
    for name in families:
        tops_by_node: dict[str, int] = {}
        for f in seen:
            if f.blame is Blame.HARDWARE and own_line(f) and confinement(f.signal) == name:
                tops_by_node[f.node] = max(f.weight, tops_by_node.get(f.node, 0))
        level[name] = min(tops_by_node.get(n, 0) for n in job.nodes)
        above = {n for n, w in tops_by_node.items() if w > level[name]}
        if len(above) * 2 < len(job.nodes):
            own.update((n, name) for n in above)
    return _Shared(frozenset(families), level, frozenset(own))


def _empty(node: str) -> Scored:
    return Scored(node=node, score=0, findings=(), first_at=None)


def _hardware_scores(findings: Iterable[Finding]) -> dict[str, Scored]:
    """Each node's hardware weight: its strongest signal, plus a little for corroboration."""
    # +5 for each further distinct hardware signal, +10 when seen from two vantages.
    by_node: dict[str, list[Finding]] = {}
    for f in findings:
        if f.blame is Blame.HARDWARE and f.weight > 0:
            by_node.setdefault(f.node, []).append(f)
    out: dict[str, Scored] = {}
    for node, fs in by_node.items():
        signals = {f.signal for f in fs}
        # Seen from more than one vantage (its kernel log and its job output, or other nodes
        # naming it) is corroboration.
        vantages = {(f.origin or f.node, f.source) for f in fs}
        score = (
            max(f.weight for f in fs) + 5 * (len(signals) - 1) + (10 if len(vantages) > 1 else 0)
        )
        times = [f.at for f in fs if f.at is not None]
        out[node] = Scored(node, min(score, 100), tuple(fs), min(times) if times else None)
    return out


def _suspects(hw: dict[str, Scored], app: list[Finding]) -> list[str]:
    strong = [s for s in hw.values() if s.score >= HARDWARE_THRESHOLD]
    if not strong:
        return []
    app_times = [f.at for f in app if f.at is not None]
    hw_times = [s.first_at for s in strong if s.first_at is not None]
    if app_times and hw_times and min(app_times) + APP_BEFORE_HW < min(hw_times):
        return []  # the application failed first; the hardware line came after
    if app and not hw_times and len({f.node for f in app}) > 1:
        return []  # application errors everywhere outweigh an untimed hardware line
    return [s.node for s in strong]


def _by_signal(findings: Iterable[Finding], signal: str) -> list[Finding]:
    return [f for f in findings if f.signal == signal]
