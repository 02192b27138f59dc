"""The first fatal error: which rank's exception ended the job, by the telemetry library.

Every rank the library watches writes an `error` record when an exception ends it, with the
rank, the node and the time (`parsing/telemetry_evidence.py`). When one rank raises, its peers
then fail in their collectives and write records too (gloo's `Connection closed by peer`,
NCCL's remote errors): those are read as symptoms by the catalog. What the job's own output
cannot say reliably — tracebacks carry no time, and the launcher interleaves them — the
records' times do: the earliest fatal record is the rank that raised first.

When that earliest record is an application error (a plain Python exception, a CUDA OOM),
it is raised above the generic weight of a traceback's last line, so that it is decisive even
beside its node's later collective complaints and is cited first. It decides the cause unless
hardware evidence says otherwise (attribution's hardware rule: an application error only wins
over hardware lines it came clearly before). A symptom, a hardware line or a stop from outside
as the earliest record raises nothing: the rank that raised first was not the one that broke.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from autorecover.domain.records import Blame, Finding

# Above a generic traceback line (50), so it is decisive and cited first; below the weight
# job recovery calls strong application evidence (JobPolicy.weak_evidence_below, 70): a plain
# exception, recorded or printed, still earns its one confirmation retry.
FIRST_FATAL_WEIGHT = 60
FIRST_FATAL = "the job's first fatal error"  # its `context` detail, quoted in the summary


def is_fatal_record(f: Finding) -> bool:
    """A telemetry `error` record of an exception that ended its process."""
    return f.detail("telemetry") == "error" and f.detail("fatal") == "true" and f.at is not None


def first_fatal(findings: Sequence[Finding]) -> list[Finding]:
    """`findings` with the job's earliest fatal error record raised, when it is the
    application's own (see the module docstring)."""
    fatal = [f for f in findings if is_fatal_record(f)]
    if not fatal:
        return list(findings)
    first = min(fatal, key=lambda f: (f.at.timestamp() if f.at else 0.0, f.node, f.line))
    if first.blame is not Blame.APPLICATION or first.weight >= FIRST_FATAL_WEIGHT:
        return list(findings)
    raised = replace(
        first,
        weight=FIRST_FATAL_WEIGHT,
        details=(*first.details, ("context", FIRST_FATAL)),
    )
    return [raised if f is first else f for f in findings]
