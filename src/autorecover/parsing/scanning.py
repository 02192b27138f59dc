"""Streaming scan of one log file for catalog signatures, in bounded memory.

The file is read in chunks. A multi-literal prefilter (Hyperscan when installed, else one
`re` alternation) finds the few lines that contain a signature's anchor; only those lines are
decoded, taken apart and matched in full. Activity (first and last timestamp, training
progress) is read from chunk edges, so the cost per ordinary line stays near zero.

Every byte is touched by as few C-speed passes as possible: one read into a reused buffer,
one copy that joins the previous chunk's unfinished line, one Hyperscan pass (which also
finds the telemetry markers while they are sparse) and one newline count, done piecewise
between the matched lines. Python runs per matched line and per chunk, never per line.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import BinaryIO

from autorecover.domain.catalog import Catalog, Signature, reads_xid
from autorecover.domain.records import Activity, Blame, Finding, NodeAction, Source
from autorecover.parsing.chunks import (
    NEIGHBOUR_LINES,
    chunks,
    decode,
    first_time,
    last_lines_at,
    last_lines_with,
    last_time,
    line_iter_backward,
    line_iter_forward,
    self_overlaps,
    strip_ansi,
    time_of,
)
from autorecover.parsing.lines import ParsedLine, find_embedded_time, parse_line
from autorecover.parsing.prefilters import HyperscanPrefilter, make_prefilter
from autorecover.parsing.progress_lines import TEXT_PROGRESS_MARKERS, parse_progress
from autorecover.parsing.telemetry_records import parse_telemetry
from autorecover.parsing.tracebacks import continuation, parent_pipe_cut, traceback_of
from autorecover.parsing.unwrapping import Reading

CHUNK_BYTES = 4 << 20
MAX_TEXT_CHARS = 2000  # evidence text kept per finding
TELEMETRY_MARKERS = (b'{"telemetry"', b"training_iterations", b"training_metrics_update")
# A marker found by the prefilter costs a Python callback (about as much as `bytes.count`
# spends on this many bytes); denser than that, the markers are counted with `bytes.count`.
MARKER_CALLBACK_BYTES = 1024
# Thousands of identical XID lines are one storm: keep this many of a signal per file (and
# its latest), count the rest, so memory stays bounded whatever the log holds.
MAX_PER_SIGNAL = 32
# A signature whose pattern captures `emitter` (the process that printed the line: NCCL's
# "host:pid" prefix) keeps the latest line of each emitter past that, not only the file's
# latest: where each rank stood last is what a trace is read for (domain/desync.py). Bounded:
# emitters past this many share one tail.
MAX_EMITTER_TAILS = 64
# Dropped when a specific one matched the same line; of two generic ones, the higher tier wins
# (an exception named for a lost connection or peer is not the job's bug).
GENERIC_SIGNATURES = {
    "python.exception": 0,
    "python.base_exception": 0,  # a bare `Exception: ...`
    "python.exception_elsewhere": 1,
}
# Specific entries whose meaning the traceback's innermost frame can change (tracebacks.py).
FRAME_READ = frozenset({"torchload.empty_pickle"})
# A spawned process's end of input from its parent's pipe (tracebacks.parent_pipe_cut): a symptom.
PARENT_PIPE_CUT = "multiprocessing.parent_pipe_cut"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # a file state needs a reference; classify reads none


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What one file yielded: matched findings and how active the file was."""

    findings: tuple[Finding, ...]
    activity: Activity
    repeats: tuple[tuple[str, int], ...] = ()  # signal, occurrences beyond those kept


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
        owners: dict[tuple[bytes, bool], list[int]] = {}
        always: list[int] = []  # signatures the prefilter cannot vouch for (see below)
        for index, sig in enumerate(catalog.active_signatures()):
            anchors = tuple(a.lower() if sig.ignore_case else a for a in sig.anchors)
            self._sigs.append(_Compiled(sig, sig.compiled(), anchors))
            if sig.ignore_case and not all(a.isascii() for a in sig.anchors):
                always.append(index)  # Unicode case folding reaches past Hyperscan's ASCII one
            for a in sig.anchors:
                key = (a.encode(), sig.ignore_case)
                seen[key] = None
                owners.setdefault(key, []).append(index)
        self.anchors = list(seen)
        # Signatures owning each anchor, by the anchor's index in `self.anchors`.
        self._owners = [tuple(owners[key]) for key in self.anchors]
        # Anchors owned by one signature whose lines name their emitter (a trace, one line per
        # operation per process): past the signal's first lines only each emitter's latest is
        # wanted, so such a line is matched and set aside, its finding made once at the end.
        # None where some signature must see every line (then each takes the full path).
        self._trace_anchors = {
            i: owner
            for i, (owner, *more) in enumerate(self._owners)
            if not more and not always and "emitter" in self._sigs[owner].regex.groupindex
        }
        self._always = tuple(always)
        self._caseless = tuple(i for i, c in enumerate(self._sigs) if c.signature.ignore_case)
        markers = TELEMETRY_MARKERS if not any(map(self_overlaps, TELEMETRY_MARKERS)) else ()
        self._prefilter = make_prefilter(self.anchors, engine, markers=markers)

    def scan(
        self,
        stream: BinaryIO,
        *,
        node: str,
        source: Source,
        reference: datetime,
        chunk_bytes: int = CHUNK_BYTES,
        hosts: Iterable[str] = (),
    ) -> ScanResult:
        """Scan a whole stream; `reference` (the job's start) supplies missing years; `hosts`
        (the job's nodes) lets pdsh's `<host>: ` prefix say which node a line ran on."""
        state = _FileState(node=node, source=source, reference=reference, hosts=host_names(hosts))
        for chunk in chunks(stream, chunk_bytes):
            if b"\x1b[" in chunk:  # colours (Ray, rich, NeMo): they split words and prefixes
                chunk = strip_ansi(chunk)
            self._scan_chunk(state, chunk)
            del chunk  # freed before the next one is made, its memory is reused: no page faults
        self._finish_traces(state)
        kept = [*state.findings, *state.storm_tails.values()]
        kept.sort(key=lambda f: f.line)
        return ScanResult(
            findings=tuple(kept),
            activity=state.activity(),
            repeats=tuple(sorted(state.repeats.items())),
        )

    def _finish_traces(self, state: _FileState) -> None:
        """Make the findings of the trace lines set aside, each its emitter's latest, and keep
        each where it is later than the tail the full path kept for that emitter."""
        for key, (sig, m, text, line_no) in state.set_aside_tails.items():
            # The line's own time only: the chunk around it is gone (a trace's time is not
            # what it is read for).
            parsed = parse_line(text, state.reference, state.hosts)
            at = parsed.at or find_embedded_time(parsed.message)
            finding = self._finding(sig, m, text, parsed, at, state, line_no)
            if finding is None:
                continue
            earlier = state.storm_tails.get(key)
            if earlier is not None:
                state.repeats[key[0]] = state.repeats.get(key[0], 0) + 1
                if earlier.line > finding.line:
                    continue
            state.storm_tails[key] = finding

    def match_line(self, text: str) -> list[tuple[Signature, re.Match[str]]]:
        """All signatures matching one line, the generic ones dropped if a specific one hit."""
        return self._match(text, self._sigs)

    def readings(self, text: str) -> list[Reading]:
        """What one text reads as, found as a file's lines are (the prefilter picks the
        signatures tried, `_match` keeps the specific ones over a generic), each match with its
        span: the rejoining of broken lines asks (parsing.unwrapping)."""
        raw = text.encode("utf-8", "surrogateescape")
        if isinstance(self._prefilter, HyperscanPrefilter):
            ids = {i for _, i in self._prefilter.hits(raw, with_markers=True)[0]}
            sigs = self._candidates(ids, raw)
        else:
            sigs = self._sigs if self._prefilter.ends(raw) or self._always else []
        return [
            Reading(sig.key, m.start(), m.end(), sig.key in GENERIC_SIGNATURES)
            for sig, m in self._match(text, sigs)
        ]

    def classify(
        self, text: str, *, node: str, line: int, at: datetime | None, rank: int | None
    ) -> list[Finding]:
        """What the catalog makes of a text that is not a line of a file as written (the
        exception a telemetry `error` record carries), as findings of `node`'s job output at
        `line`; the generic Python exception is left out (the caller knows it is one)."""
        parsed = ParsedLine(message=text, at=at, rank=rank)
        state = _FileState(node=node, source=Source.LOGS, reference=at or _EPOCH)
        out = []
        for sig, m in self._match(text, self._sigs):
            if sig.key == "python.exception":
                continue
            finding = self._finding(sig, m, text, parsed, at, state, line)
            if finding is not None:
                out.append(finding)
        return out

    def _match(self, text: str, sigs: list[_Compiled]) -> list[tuple[Signature, re.Match[str]]]:
        lowered: str | None = None
        hits: list[tuple[Signature, re.Match[str]]] = []
        for c in sigs:
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
            if specific:
                return specific
            top = max(GENERIC_SIGNATURES[h[0].key] for h in hits)
            hits = [h for h in hits if GENERIC_SIGNATURES[h[0].key] == top]
        return hits

    def _candidates(self, anchor_ids: set[int], raw: bytes) -> list[_Compiled]:
        """The signatures that can match a line, in catalog order, from the anchors Hyperscan
        found in it (it reports every occurrence of every anchor). A line with non-ASCII bytes
        also gets every caseless one: Unicode lower-casing can make an anchor appear that
        ASCII-only caseless matching does not see (a case-sensitive anchor's bytes are there or
        not, whatever else the line holds)."""
        wanted = set(self._always)
        if not raw.isascii():
            wanted.update(self._caseless)
        for i in anchor_ids:
            wanted.update(self._owners[i])
        return [self._sigs[i] for i in sorted(wanted)]

    def _prefilter_hits(
        self, state: _FileState, chunk: bytes
    ) -> tuple[list[tuple[int, int]], list[list[int]] | None]:
        """(end, anchor index or -1 when unknown) per anchor occurrence; marker offsets."""
        if isinstance(self._prefilter, HyperscanPrefilter):
            # Sparse telemetry markers ride along in the anchor pass; dense ones are cheaper
            # to count with `bytes.count` than to report one Python callback at a time.
            return self._prefilter.hits(chunk, with_markers=not state.dense_markers)
        return [(end, -1) for end in self._prefilter.ends(chunk)], None

    def _scan_chunk(self, state: _FileState, chunk: bytes) -> None:
        hits, marker_ends = self._prefilter_hits(state, chunk)
        base_line = state.lines
        state.note_edges(chunk)
        state.note_progress(chunk, marker_ends)
        size = len(chunk)
        line_no = base_line + 1  # 1-based number of the line at `counted_to`
        counted_to = 0
        i, n = 0, len(hits)
        while i < n:
            end, anchor = hits[i]
            i += 1
            start = chunk.rfind(b"\n", 0, max(end - 1, 0)) + 1
            stop = chunk.find(b"\n", end - 1)
            stop = size if stop == -1 else stop
            ids = {anchor}
            while i < n and hits[i][0] - 1 <= stop:  # more anchors on the same line
                ids.add(hits[i][1])
                i += 1
            line_no += chunk.count(b"\n", counted_to, start)
            counted_to = start
            raw = chunk[start:stop]
            text = decode(raw)
            if len(ids) == 1 and anchor in self._trace_anchors and raw.isascii():
                traced = self._sigs[self._trace_anchors[anchor]]
                if state.kept_per_signal.get(traced.signature.key, 0) >= MAX_PER_SIGNAL:
                    m = traced.regex.search(text)
                    if m is not None and state.source in traced.signature.sources:
                        state.set_aside(traced.signature, m, text, line_no)
                    continue
            sigs = self._sigs if anchor == -1 else self._candidates(ids, raw)
            matched = self._match(text, sigs)
            if not matched:
                continue
            parsed = parse_line(text, state.reference, state.hosts)
            own = at = parsed.at or find_embedded_time(parsed.message)
            if at is None and parsed.uptime_s is None:
                at = _neighbour_time(chunk, start, stop, state, parsed.via)
            for sig, m in matched:
                # A trace line keeps only its own time, whichever way it was read (below).
                when = own if "emitter" in m.re.groupindex else at
                finding = self._finding(sig, m, text, parsed, when, state, line_no)
                if finding is None:
                    continue
                if sig.key in GENERIC_SIGNATURES and self._continued(chunk, stop, parsed, state):
                    continue  # the message goes on below, where a specific reading says it
                if sig.key in GENERIC_SIGNATURES or sig.key in FRAME_READ:
                    tb = traceback_of(chunk, start, parsed, state.reference, state.hosts)
                    extra = [("frame", tb.frame)] if tb.frame is not None else []
                    if tb.chained is not None:
                        extra.append(("chained", tb.chained))
                    if extra:
                        finding = replace(finding, details=(*finding.details, *extra))
                    if parent_pipe_cut(parsed.message, tb):
                        finding = replace(
                            finding, signal=PARENT_PIPE_CUT, blame=Blame.SYMPTOM, weight=15
                        )
                state.keep(finding)
        # Lines counted piecewise: each byte of the chunk is looked at once.
        state.lines = line_no - 1 + chunk.count(b"\n", counted_to)

    def _continued(self, chunk: bytes, stop: int, parsed: ParsedLine, state: _FileState) -> bool:
        """Whether a bare exception's unfinished message goes on in the next lines and those
        read as something specific: their own findings say what failed, as they would have on
        the exception's line had the message stood on one."""
        rest = continuation(chunk, stop, parsed, state.reference, state.hosts)
        return bool(rest) and any(not r.generic for r in self.readings(rest))

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
        if parsed.via is not None:  # forwarded from another host's worker (Ray)
            details = (*details, ("via", parsed.via))
        signal, blame, weight, action = sig.key, sig.blame, sig.weight, sig.node_action
        if reads_xid(sig.key):
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
    hosts: frozenset[str] = frozenset()  # the job's node names (and their short forms)
    lines: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None
    last_progress_at: datetime | None = None
    last_step: int | None = None
    progress_records: int = 0
    progress_lines: int = 0  # plain-text progress lines read (while no telemetry was seen)
    last_of_run: int | None = None  # a progress line's step that was the run's last (N of N)
    ends_with_newline: bool = True
    dense_markers: bool = False  # the last chunk had many telemetry markers
    findings: list[Finding] = field(default_factory=list)
    step_intervals: list[float] = field(default_factory=list)
    progress_gaps: list[float] = field(default_factory=list)  # between text progress lines
    kept_per_signal: dict[str, int] = field(default_factory=dict)
    repeats: dict[str, int] = field(default_factory=dict)
    storm_tails: dict[tuple[str, str], Finding] = field(default_factory=dict)
    emitter_tails: dict[str, int] = field(default_factory=dict)  # per signal
    # A trace line past its signal's first ones, matched but not yet made a finding:
    # (signal, emitter) -> (signature, match, text, line)
    set_aside_tails: dict[tuple[str, str], tuple[Signature, re.Match[str], str, int]] = field(
        default_factory=dict
    )

    def keep(self, finding: Finding) -> None:
        """Keep the first few findings of a signal and its latest (of each emitter, where the
        line names one); count the rest (storms)."""
        signal = finding.signal
        kept = self.kept_per_signal.get(signal, 0)
        if kept < MAX_PER_SIGNAL:
            self.kept_per_signal[signal] = kept + 1
            self.findings.append(finding)
            return
        key = self._tail_key(signal, finding.detail("emitter") or "")
        previous = self.storm_tails.get(key)
        if previous is not None:
            self.repeats[signal] = self.repeats.get(signal, 0) + 1
        self.storm_tails[key] = finding

    def set_aside(self, sig: Signature, m: re.Match[str], text: str, line_no: int) -> None:
        """Hold a trace line as its emitter's latest, to be made a finding at the file's end."""
        key = self._tail_key(sig.key, m.group("emitter") or "")
        if key in self.set_aside_tails:
            self.repeats[sig.key] = self.repeats.get(sig.key, 0) + 1
        self.set_aside_tails[key] = (sig, m, text, line_no)

    def _tail_key(self, signal: str, emitter: str) -> tuple[str, str]:
        key = (signal, emitter)
        if emitter and key not in self.storm_tails and key not in self.set_aside_tails:
            tails = self.emitter_tails.get(signal, 0)
            if tails >= MAX_EMITTER_TAILS:
                return (signal, "")
            self.emitter_tails[signal] = tails + 1
        return key

    def note_edges(self, chunk: bytes) -> None:
        """Update activity from the chunk's edges: first and last stamps."""
        self.ends_with_newline = chunk.endswith(b"\n")
        if self.first_at is None:
            self.first_at = first_time(chunk, self.reference)
        last = last_time(chunk, self.reference)
        if last is not None:
            self.last_at = last

    def note_progress(self, chunk: bytes, marker_ends: list[list[int]] | None) -> None:
        """Count telemetry records and read training progress from the chunk's last ones.

        `marker_ends` are the end offsets of every marker occurrence when the prefilter
        found them; without them the markers are counted here."""
        if marker_ends is None:
            count = sum(chunk.count(marker) for marker in TELEMETRY_MARKERS)
            texts = last_lines_with(chunk, TELEMETRY_MARKERS, 8) if count else []
        else:
            count = sum(map(len, marker_ends))
            texts = last_lines_at(chunk, TELEMETRY_MARKERS, marker_ends, 8) if count else []
        self.dense_markers = count * MARKER_CALLBACK_BYTES > len(chunk)
        if not count:
            if not self.progress_records and self.source is Source.LOGS:
                self.note_text_progress(chunk)
            return
        self.progress_records += count
        records = []
        for text in texts:
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

    def note_text_progress(self, chunk: bytes) -> None:
        """Read training progress from the chunk's last plain-text progress lines (a loss with
        a step or an epoch, a tqdm count: `parsing.progress_lines`), for a job whose output
        carries no telemetry records; those, once seen, are the file's progress instead."""
        if not any(marker in chunk for marker in TEXT_PROGRESS_MARKERS):
            return
        texts = dict.fromkeys(last_lines_with(chunk, TEXT_PROGRESS_MARKERS, 8))  # once each
        found = [p for p in (parse_progress(t, self.reference) for t in texts) if p is not None]
        if not found:
            return
        self.progress_lines += len(found)
        for p in found:
            if p.last and p.step is not None:
                self.last_of_run = max(p.step, self.last_of_run or 0)
        # by time only: a step may be None (an epoch line) beside another line's number
        stamped = sorted(((p.at, p.step) for p in found if p.at is not None), key=lambda x: x[0])
        for (a, sa), (b, sb) in itertools.pairwise(stamped):
            if b <= a:
                continue  # two ranks' lines of one step
            gap = (b - a).total_seconds()
            self.progress_gaps.append(gap)
            if sa is not None and sb is not None and sb > sa:
                self.step_intervals.append(gap / (sb - sa))
        del self.step_intervals[:-64]
        del self.progress_gaps[:-64]
        if stamped:
            at, step = stamped[-1]
            if self.last_progress_at is None or at >= self.last_progress_at:
                self.last_progress_at = at
                self.last_step = step if step is not None else self.last_step
        steps = [p.step for p in found if p.step is not None]
        if not stamped and steps:
            self.last_step = max(steps)

    def activity(self) -> Activity:
        """The file's activity summary."""
        median = statistics.median(self.step_intervals) if self.step_intervals else None
        gap = statistics.median(self.progress_gaps) if self.progress_gaps else None
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
            progress_lines=self.progress_lines,
            last_of_run=self.last_of_run,
            median_step_interval_s=median,
            median_progress_gap_s=gap,
        )


def _neighbour_time(
    chunk: bytes, start: int, stop: int, state: _FileState, via: str | None = None
) -> datetime | None:
    """A line without a time takes the nearest earlier neighbour's, else a later one's. A line
    another host printed (pdsh's `<host>: `, Ray's prefix) takes only that host's neighbours:
    a combined log interleaves hosts whose clocks and stalls differ."""
    if via is not None:
        return _host_neighbour_time(chunk, start, stop, state, via)
    for s, e in line_iter_backward(chunk, start, NEIGHBOUR_LINES):
        at = time_of(chunk[s:e], state.reference)
        if at is not None:
            return at
    if state.last_at is not None and start > 0:
        return state.last_at
    return first_time(chunk[stop + 1 :], state.reference)


def _host_neighbour_time(
    chunk: bytes, start: int, stop: int, state: _FileState, via: str
) -> datetime | None:
    def at_of(raw: bytes) -> datetime | None:
        parsed = parse_line(decode(raw.rstrip(b"\n")), state.reference, state.hosts)
        if parsed.via != via:
            return None
        return parsed.at or find_embedded_time(parsed.message)

    for s, e in line_iter_backward(chunk, start, NEIGHBOUR_LINES):
        at = at_of(chunk[s:e])
        if at is not None:
            return at
    for s, e in line_iter_forward(chunk, stop + 1, NEIGHBOUR_LINES):
        at = at_of(chunk[s:e])
        if at is not None:
            return at
    return state.last_at if start > 0 else None


def host_names(nodes: Iterable[str]) -> frozenset[str]:
    """The job's node names and their short forms (`gpu-a01` for `gpu-a01.cluster.local`)."""
    names: set[str] = set()
    for n in nodes:
        short = n.split(".", 1)[0]
        # never a bare number: `10` of 10.0.0.7 would be srun's rank prefix `10: `
        names.update(
            name for name in (n, short) if not name.isdigit() and any(map(str.isalpha, name))
        )
    return frozenset(names)
