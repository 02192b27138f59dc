"""Findings from the telemetry library's own records: the errors it saw end a rank, its hangs.

An autorecover `error` record says which exception a rank raised, when, at which step, and
whether it ended the process (`fatal`: uncaught in the main thread) or a thread (`uncaught`).
That is a traceback's evidence plus what a traceback lacks: rank, node and time. Its exception
(`type: message`, else the final lines of the exceptions chained in its traceback) is read by
the catalog like any line, so a CUDA OOM stays the application's, a gloo or NCCL error stays
a symptom and an XID stays a hardware line; an exception the catalog does not know is the
application's own (`telemetry.fatal_error`, or `telemetry.uncaught_error` for a thread's, as
heavy as a traceback's last line). A handled error (neither flag) is kept as
`telemetry.handled_error` and decides nothing; a KeyboardInterrupt or SystemExit is a stop
from outside (`telemetry.interrupted`), not a fault.

A `hang` record is the library's watchdog saying the rank made no progress for longer than
its threshold: `telemetry.hang`, a symptom too light to count as a collective complaint
(`domain/hangs.py` decides what a standing one means).

Each finding keeps its record's line in the file. Whatever the catalog matched in the raw JSON
text of that line (an escaped traceback, a stack dump) gives way to these findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime

from autorecover.domain.records import Blame, Finding, Source
from autorecover.parsing.scanning import MAX_TEXT_CHARS, Scanner
from autorecover.parsing.telemetry_records import TelemetryRecord, parse_telemetry

MARKERS = (b'{"telemetry"', b"[type=")
# The lines worth a second read of a whole file: the library's compact JSON, NVIDIA's hang.
EVIDENCE_MARKERS = (b'"event":"error"', b'"event":"hang"', b"event.name=hang")
ERROR = "telemetry.fatal_error"
UNCAUGHT = "telemetry.uncaught_error"  # in a thread other than the main one: the process lives
HANDLED = "telemetry.handled_error"
INTERRUPTED = "telemetry.interrupted"
HANG = "telemetry.hang"
ERROR_WEIGHT = 50  # as a traceback's final line (python.exception): first in time raises it
HANG_WEIGHT = 10  # below a collective complaint (shape.COLLECTIVE): every rank writes one
INTERRUPTS = frozenset({"KeyboardInterrupt", "SystemExit"})
MAX_CHAINED = 8  # exception lines of a traceback tried when its own text matched nothing


def records_in(
    data: bytes, base: int = 0, markers: tuple[bytes, ...] = MARKERS
) -> Iterator[tuple[int, TelemetryRecord]]:
    """Telemetry records in whole lines of output (those lines holding one of `markers`), with
    their 1-based line numbers (`base`: lines before `data` in the file)."""
    if not any(m in data for m in markers):
        return
    for number, raw in enumerate(data.split(b"\n"), start=base + 1):
        if any(m in raw for m in markers):
            rec = parse_telemetry(raw.decode("utf-8", "replace"))
            if rec is not None and rec.supported:
                yield number, rec


def record_findings(
    scanner: Scanner, node: str, records: Iterable[tuple[int, TelemetryRecord]]
) -> list[Finding]:
    """The findings of `node`'s `error` records (autorecover format: NVIDIA's carry no fatal
    flag, so their raw lines are read as before) and `hang` records (either format)."""
    out: list[Finding] = []
    for line, rec in records:
        if rec.event == "error" and rec.format == "autorecover":
            out.extend(_error(scanner, node, line, rec))
        elif rec.event == "hang":
            out.append(_hang(node, line, rec))
    return out


def replacing(found: Sequence[Finding], records: Sequence[Finding]) -> list[Finding]:
    """One file's findings with its record findings in place of what was matched on their
    lines, in line order."""
    lines = {f.line for f in records}
    kept = [f for f in found if f.line not in lines]
    return sorted([*kept, *records], key=lambda f: f.line)


def _error(scanner: Scanner, node: str, line: int, rec: TelemetryRecord) -> list[Finding]:
    kind = rec.error_type or "Error"
    message = rec.error_message or ""
    fatal, uncaught = rec.get_bool("fatal") is True, rec.get_bool("uncaught") is True
    thread = rec.get_str("thread")
    state = "fatal" if fatal else f"uncaught in thread {thread}" if uncaught else "handled"
    text = f"{state} error record: {_who(node, rec)}: {kind}: {message}"[:MAX_TEXT_CHARS]
    details = [("telemetry", "error"), ("fatal", str(fatal).lower()), ("type", kind)]
    details += [("uncaught", "true")] if uncaught else []
    details += [("thread", thread)] if thread else []
    details += [("step", str(rec.step))] if rec.step is not None else []

    def finding(signal: str, blame: Blame, weight: int) -> Finding:
        return Finding(signal, node, Source.LOGS, line, text, blame, weight, at=rec.ts,
                       rank=rec.rank, details=tuple(details))  # fmt: skip

    if not (fatal or uncaught):
        return [finding(HANDLED, Blame.INFO, 0)]
    if kind.rsplit(".", 1)[-1] in INTERRUPTS:
        return [finding(INTERRUPTED, Blame.INFO, 0)]
    for candidate in [f"{kind}: {message}", *_chained(rec.get_str("traceback"))]:
        matched = scanner.classify(candidate, node=node, line=line, at=rec.ts, rank=rec.rank)
        if matched:
            return [
                Finding(f.signal, node, Source.LOGS, line, text, f.blame, f.weight,
                        f.node_action, rec.ts, rec.rank, (*f.details, *details))
                for f in matched
            ]  # fmt: skip
    return [finding(ERROR if fatal else UNCAUGHT, Blame.APPLICATION, ERROR_WEIGHT)]


def _chained(traceback: str | None) -> list[str]:
    """The exception lines of a traceback (its chained causes' `Type: message`), last first."""
    if not traceback:
        return []
    lines = [
        ln
        for ln in traceback.splitlines()
        if ln and not ln[0].isspace() and not ln.startswith(("Traceback ", "During ", "The "))
    ]
    return lines[::-1][:MAX_CHAINED]


def _hang(node: str, line: int, rec: TelemetryRecord) -> Finding:
    metrics = "" if rec.format == "autorecover" else "event.metrics."
    idle = rec.get_float(f"{metrics}idle_s")
    threshold = rec.get_float(f"{metrics}threshold_s")
    quiet = f"made no progress for {idle:.0f} s" if idle is not None else "made no progress"
    limit = f" (the library's threshold: {threshold:.0f} s)" if threshold is not None else ""
    where = " inside a checkpoint" if rec.get_bool(f"{metrics}in_checkpoint") else ""
    details = [("telemetry", "hang")]
    details += [("idle_s", f"{idle:g}")] if idle is not None else []
    details += [("threshold_s", f"{threshold:g}")] if threshold is not None else []
    details += [("step", str(rec.step))] if rec.step is not None else []
    return Finding(
        signal=HANG,
        node=node,
        source=Source.LOGS,
        line=line,
        text=f"hang record: {_who(node, rec)}: {quiet}{where}{limit}",
        blame=Blame.SYMPTOM,
        weight=HANG_WEIGHT,
        at=rec.ts,
        rank=rec.rank,
        details=tuple(details),
    )


def _who(node: str, rec: TelemetryRecord) -> str:
    """`rank 3 on cpu-n02 at 2026-...Z, after step 4` (the record's own node name if any)."""
    rank = f"rank {rec.rank}" if rec.rank is not None else "a rank"
    at = f" at {_iso(rec.ts)}" if rec.ts is not None else ""
    step = f", after step {rec.step}" if rec.step is not None else ""  # the last step seen
    return f"{rank} on {rec.get_str('node') or node}{at}{step}"


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
