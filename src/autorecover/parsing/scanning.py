"""Streaming scan of one log file for catalog signatures, in bounded memory.

The file is read in chunks. A multi-literal prefilter (Hyperscan when installed, else one
`re` alternation) finds the few lines that contain a signature's anchor; only those lines are
decoded, taken apart and matched in full. Activity (first and last timestamp, training
progress) is read from chunk edges, so the cost per ordinary line stays near zero.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import BinaryIO, Protocol

from autorecover.domain.catalog import Catalog, Signature
from autorecover.domain.records import Activity, Blame, Finding, NodeAction, Source
from autorecover.parsing.lines import ParsedLine, find_embedded_time, parse_line
from autorecover.parsing.telemetry_records import parse_telemetry

CHUNK_BYTES = 4 << 20
MAX_LINE_BYTES = 1 << 20  # a longer "line" is cut there: memory stays bounded
MAX_TEXT_CHARS = 2000  # evidence text kept per finding
NEIGHBOUR_LINES = 64  # how far to look for a neighbour's timestamp
TELEMETRY_MARKERS = (b'{"telemetry"', b"training_iterations")
GENERIC_SIGNATURES = frozenset({"python.exception"})  # dropped when a specific one matched
_FRAME = re.compile(r'File "([^"]{1,300})", line (\d+), in (\S+)')


class Prefilter(Protocol):
    """Finds end offsets of anchor occurrences in a buffer."""

    def ends(self, data: bytes) -> list[int]:
        """Offsets just past each anchor occurrence."""
        ...


class RePrefilter:
    """Portable prefilter: one `re` alternation of the anchors."""

    def __init__(self, anchors: list[tuple[bytes, bool]]) -> None:
        parts = [(b"(?i:" + re.escape(a) + b")") if ci else re.escape(a) for a, ci in anchors]
        self._re = re.compile(b"|".join(parts)) if parts else None

    def ends(self, data: bytes) -> list[int]:
        """Offsets just past each anchor occurrence."""
        return [m.end() for m in self._re.finditer(data)] if self._re else []


class HyperscanPrefilter:
    """Hyperscan (Intel's multi-pattern matcher) prefilter; far faster than `re`."""

    def __init__(self, anchors: list[tuple[bytes, bool]]) -> None:
        import hyperscan

        self._db = hyperscan.Database()
        self._db.compile(
            expressions=[re.escape(a) for a, _ in anchors],
            ids=list(range(len(anchors))),
            elements=len(anchors),
            flags=[hyperscan.HS_FLAG_CASELESS if ci else 0 for _, ci in anchors],
        )

    def ends(self, data: bytes) -> list[int]:
        """Offsets just past each anchor occurrence."""
        out: list[int] = []

        def on_match(_id: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            out.append(end)

        self._db.scan(data, match_event_handler=on_match)
        return out


def make_prefilter(anchors: list[tuple[bytes, bool]], engine: str = "auto") -> Prefilter:
    """The fastest available prefilter (`auto`), or the one named (`hyperscan`, `re`)."""
    if engine in ("auto", "hyperscan") and anchors:
        try:
            return HyperscanPrefilter(anchors)
        except ImportError:
            if engine == "hyperscan":
                raise
    return RePrefilter(anchors)


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What one file yielded: matched findings and how active the file was."""

    findings: tuple[Finding, ...]
    activity: Activity


@dataclass(slots=True)
class _Compiled:
    signature: Signature
    regex: re.Pattern[str]
    anchors: tuple[str, ...]


class Scanner:
    """Matches the catalog's signatures against files; build once, scan many."""

    def __init__(self, catalog: Catalog, *, engine: str = "auto") -> None:
        self.catalog = catalog
        self._sigs: list[_Compiled] = []
        seen: dict[tuple[bytes, bool], None] = {}
        for sig in catalog.active_signatures():
            anchors = tuple(a.lower() if sig.ignore_case else a for a in sig.anchors)
            self._sigs.append(_Compiled(sig, sig.compiled(), anchors))
            for a in sig.anchors:
                seen[(a.encode(), sig.ignore_case)] = None
        self.anchors = list(seen)
        self._prefilter = make_prefilter(self.anchors, engine)

    def scan(
        self,
        stream: BinaryIO,
        *,
        node: str,
        source: Source,
        reference: datetime,
        chunk_bytes: int = CHUNK_BYTES,
    ) -> ScanResult:
        """Scan a whole stream; `reference` (the job's start) supplies missing years."""
        state = _FileState(node=node, source=source, reference=reference)
        for base_line, chunk in _chunks(stream, chunk_bytes):
            self._scan_chunk(state, base_line, chunk)
        return ScanResult(findings=tuple(state.findings), activity=state.activity())

    def match_line(self, text: str) -> list[tuple[Signature, re.Match[str]]]:
        """All signatures matching one line, the generic ones dropped if a specific one hit."""
        lowered: str | None = None
        hits: list[tuple[Signature, re.Match[str]]] = []
        for c in self._sigs:
            if c.signature.ignore_case:
                lowered = lowered if lowered is not None else text.lower()
                if not any(a in lowered for a in c.anchors):
                    continue
            elif not any(a in text for a in c.anchors):
                continue
            m = c.regex.search(text)
            if m:
                hits.append((c.signature, m))
        if len(hits) > 1:
            specific = [h for h in hits if h[0].key not in GENERIC_SIGNATURES]
            hits = specific or hits
        return hits

    def _scan_chunk(self, state: _FileState, base_line: int, chunk: bytes) -> None:
        state.note_chunk(base_line, chunk)
        last_start = -1
        line_no = base_line + 1  # 1-based number of the line at `counted_to`
        counted_to = 0
        for end in self._prefilter.ends(chunk):
            start = chunk.rfind(b"\n", 0, max(end - 1, 0)) + 1
            if start == last_start:
                continue
            last_start = start
            stop = chunk.find(b"\n", end - 1)
            stop = len(chunk) if stop == -1 else stop
            line_no += chunk.count(b"\n", counted_to, start)
            counted_to = start
            text = _decode(chunk[start:stop])
            hits = self.match_line(text)
            if not hits:
                continue
            parsed = parse_line(text, state.reference)
            at = parsed.at or find_embedded_time(parsed.message)
            if at is None and parsed.uptime_s is None:
                at = _neighbour_time(chunk, start, stop, state)
            for sig, m in hits:
                finding = self._finding(sig, m, text, parsed, at, state, line_no)
                if finding is not None:
                    state.findings.append(finding)
            if any(sig.key == "python.exception" for sig, _ in hits):
                _attach_frame(state, chunk, start, parsed)

    def _finding(
        self,
        sig: Signature,
        m: re.Match[str],
        text: str,
        parsed: ParsedLine,
        at: datetime | None,
        state: _FileState,
        line_no: int,
    ) -> Finding | None:
        if state.source not in sig.sources:
            return None
        details = tuple((k, v) for k, v in m.groupdict().items() if v is not None)
        signal, blame, weight, action = sig.key, sig.blame, sig.weight, sig.node_action
        if sig.key == "kernel.xid":
            number = int(m.group("xid"))
            entry = self.catalog.xid(number)
            signal = f"xid.{number}"
            if entry is None:
                if number in self.catalog.xids:  # switched off by the operator
                    return None
                blame, weight, action = Blame.INFO, 20, NodeAction.MONITOR
            else:
                blame, weight, action = entry.blame, entry.weight, entry.node_action
        return Finding(
            signal=signal,
            node=state.node,
            source=state.source,
            line=line_no,
            text=text[:MAX_TEXT_CHARS],
            blame=blame,
            weight=weight,
            node_action=action,
            at=at,
            rank=parsed.rank,
            details=details,
        )


@dataclass(slots=True)
class _FileState:
    node: str
    source: Source
    reference: datetime
    lines: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None
    last_progress_at: datetime | None = None
    last_step: int | None = None
    progress_records: int = 0
    ends_with_newline: bool = True
    findings: list[Finding] = field(default_factory=list)
    step_intervals: list[float] = field(default_factory=list)

    def note_chunk(self, base_line: int, chunk: bytes) -> None:
        """Update activity from the chunk's edges: first/last stamps, last progress."""
        self.lines = base_line + chunk.count(b"\n")
        self.ends_with_newline = chunk.endswith(b"\n")
        if self.first_at is None:
            self.first_at = _first_time(chunk, self.reference)
        last = _last_time(chunk, self.reference)
        if last is not None:
            self.last_at = last
        self._note_progress(chunk)

    def _note_progress(self, chunk: bytes) -> None:
        count = sum(chunk.count(marker) for marker in TELEMETRY_MARKERS)
        if not count:
            return
        self.progress_records += count
        records = []
        for text in _last_lines_with(chunk, TELEMETRY_MARKERS, 8):
            rec = parse_telemetry(text)
            if rec is not None and rec.event == "step" and rec.ts is not None:
                records.append(rec)
        records.sort(key=lambda r: r.ts or self.reference)
        for a, b in itertools.pairwise(records):
            if a.ts and b.ts and b.ts > a.ts:
                self.step_intervals.append((b.ts - a.ts).total_seconds())
        if records:
            newest = records[-1]
            if self.last_progress_at is None or (newest.ts and newest.ts >= self.last_progress_at):
                self.last_progress_at = newest.ts
                self.last_step = newest.step
        del self.step_intervals[:-64]

    def activity(self) -> Activity:
        """The file's activity summary."""
        median = statistics.median(self.step_intervals) if self.step_intervals else None
        lines = self.lines + (0 if self.ends_with_newline else 1)
        return Activity(
            node=self.node,
            source=self.source,
            present=True,
            lines=lines,
            first_at=self.first_at,
            last_at=self.last_at,
            last_progress_at=self.last_progress_at,
            last_step=self.last_step,
            progress_records=self.progress_records,
            median_step_interval_s=median,
        )


def _chunks(stream: BinaryIO, chunk_bytes: int) -> Iterator[tuple[int, bytes]]:
    """Yield (lines before the chunk, chunk) with every chunk ending at a line break."""
    carry = b""
    base_line = 0
    while True:
        block = stream.read(chunk_bytes)
        if not block:
            break
        data = carry + block
        cut = data.rfind(b"\n")
        if cut == -1:
            if len(data) < max(MAX_LINE_BYTES, chunk_bytes):
                carry = data
                continue
            cut = len(data) - 1  # an over-long line: cut it rather than grow without bound
        chunk, carry = data[: cut + 1], data[cut + 1 :]
        yield base_line, chunk
        base_line += chunk.count(b"\n")
    if carry:
        yield base_line, carry


def _decode(raw: bytes) -> str:
    return raw[:MAX_LINE_BYTES].decode("utf-8", errors="replace").rstrip("\r")


def _line_iter_backward(chunk: bytes, stop: int, limit: int) -> Iterator[tuple[int, int]]:
    """(start, end) of up to `limit` lines ending before offset `stop`, nearest first."""
    end = stop
    for _ in range(limit):
        if end <= 0:
            return
        start = chunk.rfind(b"\n", 0, end - 1) + 1
        yield start, end
        end = start


def _time_of(raw: bytes, reference: datetime) -> datetime | None:
    parsed = parse_line(_decode(raw.rstrip(b"\n")), reference)
    return parsed.at or find_embedded_time(parsed.message)


def _first_time(chunk: bytes, reference: datetime) -> datetime | None:
    pos = 0
    for _ in range(NEIGHBOUR_LINES):
        if pos >= len(chunk):
            return None
        nl = chunk.find(b"\n", pos)
        nl = len(chunk) if nl == -1 else nl
        at = _time_of(chunk[pos:nl], reference)
        if at is not None:
            return at
        pos = nl + 1
    return None


def _last_time(chunk: bytes, reference: datetime) -> datetime | None:
    for start, end in _line_iter_backward(chunk, len(chunk), NEIGHBOUR_LINES):
        at = _time_of(chunk[start:end], reference)
        if at is not None:
            return at
    return None


def _neighbour_time(chunk: bytes, start: int, stop: int, state: _FileState) -> datetime | None:
    """A line without a time takes the nearest earlier neighbour's, else a later one's."""
    for s, e in _line_iter_backward(chunk, start, NEIGHBOUR_LINES):
        at = _time_of(chunk[s:e], state.reference)
        if at is not None:
            return at
    if state.last_at is not None and start > 0:
        return state.last_at
    return _first_time(chunk[stop + 1 :], state.reference)


def _last_lines_with(chunk: bytes, markers: tuple[bytes, ...], limit: int) -> list[str]:
    """Up to `limit` of the chunk's last lines containing any marker."""
    out: list[str] = []
    for marker in markers:
        end = len(chunk)
        while len(out) < limit:
            pos = chunk.rfind(marker, 0, end)
            if pos == -1:
                break
            start = chunk.rfind(b"\n", 0, pos) + 1
            stop = chunk.find(b"\n", pos)
            out.append(_decode(chunk[start : len(chunk) if stop == -1 else stop]))
            end = start
    return out


def _attach_frame(state: _FileState, chunk: bytes, start: int, parsed: ParsedLine) -> None:
    """Give a Python exception its innermost traceback frame (file, line, function)."""
    for s, e in _line_iter_backward(chunk, start, NEIGHBOUR_LINES):
        text = _decode(chunk[s:e].rstrip(b"\n"))
        if parse_line(text, state.reference).rank != parsed.rank:
            continue
        m = _FRAME.search(text)
        if m:
            last = state.findings[-1]
            frame = f"{m.group(1)}:{m.group(2)} in {m.group(3)}"
            state.findings[-1] = _with_detail(last, "frame", frame)
            return
        if "Traceback (most recent call last)" in text:
            return


def _with_detail(finding: Finding, key: str, value: str) -> Finding:
    return replace(finding, details=(*finding.details, (key, value)))
