"""One container's output condensed to what job recovery reads: the excerpt the agent ships.

Job recovery reads a pod's output through its port (`read_output`) and scans it with the same
`Scanner` as `autorecover explain`. The agent scans the full output here, on the node, and
keeps only the lines that scan can use:

- every line a signature matched, with `context` lines before and after it (the tail around
  a finding; a finding's context that runs into the next read is finished there), the
  context at most once per signal every `context_every_s` (a storm of one warning ships
  every line, but not forty lines around each);
- telemetry lines: every `init`, checkpoint span, `error` and `hang` record, and progress
  records (`step`, `summary`, NVIDIA's iteration metrics) sampled: every `progress_every_s`,
  each rank's latest in that read (the health assessment learns the job's pace from their
  times, and its hang limit is minutes: a 5 s sample keeps that);
- the last line of each read, so the engine's "when did it last say anything" stays current.

Re-scanned at the engine, the excerpt gives the same findings (their lines and context are
there), the same progress ledger at the sampled resolution, and the same last output time
within one read. Line numbers in evidence are the excerpt's, not the container's file's.
Everything is bounded: lines are cut at `max_line_bytes`, an excerpt at `max_lines`.
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime

from autorecover.adapters.host.pod_logs import unframed
from autorecover.domain.records import Source
from autorecover.parsing.prefilters import Prefilter, make_prefilter
from autorecover.parsing.scanning import Scanner

# Telemetry lines' markers (those `parsing` reads records by).
_TELEMETRY = (b'{"telemetry"', b"training_iterations", b"training_metrics_update", b"[type=")
PARTIAL = (b"stdout P ", b"stderr P ")  # a CRI record's stream and tag, when partial
_PROGRESS = re.compile(rb'"event": ?"(?:step|summary)"|training_iterations|training_metrics_update')
_RANK = re.compile(rb'"rank": ?(\d{1,7})|\brank=(\d{1,7})')


@dataclass(frozen=True, slots=True)
class ExcerptSettings:
    """How much of a container's output the agent ships."""

    context: int = 20  # lines kept before and after each finding's line
    context_every_s: float = 60.0  # per signal: a storm's lines all go, its context once
    progress_every_s: float = 5.0  # progress records kept per rank at most this often
    max_lines: int = 4000  # lines in one excerpt (one read of one container)
    max_line_bytes: int = 4096  # a longer line is cut


@dataclass(frozen=True, slots=True)
class Excerpt:
    """What one read of one container's output kept, and how much it read."""

    text: bytes  # whole lines, in the order the container wrote them
    lines: int  # lines read
    kept: int  # lines kept
    findings: int  # lines a signature matched
    dropped: int = 0  # lines past `max_lines`


@dataclass(slots=True)
class ContainerExcerpts:
    """Condenses one container's output read by read (keeps context across reads)."""

    node: str
    scanner: Scanner
    settings: ExcerptSettings = field(default_factory=ExcerptSettings)
    _after: int = 0  # lines of a finding's context still owed from the last read
    _before: list[bytes] = field(default_factory=list)  # the last read's last lines
    _sampled_at: datetime | None = None  # when progress lines were last kept
    _contexts: dict[str, datetime] = field(default_factory=dict)  # signal -> context last given

    def take(
        self, output: bytes, now: datetime, *, framed: bool = False, hits: list[int] | None = None
    ) -> Excerpt:
        """Condense `output` (whole lines, as `CriDecoder` gives them) read at `now`.

        `framed`: `output` is whole CRI records none of which is partial (`unpartial`); it is
        scanned as it is and only the kept lines lose their prefix. Every signature is
        unanchored or allows a space before it (the catalog's examples are checked framed,
        `tests/agent/logs/test_framed_scan.py`), so the same lines match: the prefixes of the
        lines not kept are never stripped, a third of the agent's work at 10 MB/s. `hits`:
        `marks(output)`'s, when the caller has them already."""
        if not output:
            return Excerpt(b"", 0, 0, 0)
        s = self.settings
        strip = unframed if framed else _as_is
        result = self.scanner.scan(io.BytesIO(output), node=self.node, source=Source.LOGS,
                                   reference=now)  # fmt: skip
        total = output.count(b"\n") + (0 if output.endswith(b"\n") else 1)
        kept: dict[int, bytes] = {}  # line index -> the line
        context = b""
        wanted = set(range(min(self._after, total)))
        self._after, first = 0, None
        for f in result.findings:
            i = f.line - 1
            kept[i] = f.text.encode("utf-8", "replace")  # the line as the scanner read it
            if not self._context_due(f.signal, now):
                continue  # a storm: its context was shipped lately
            wanted.update(range(max(0, i - s.context), min(total, i + s.context + 1)))
            self._after = max(self._after, i + s.context + 1 - total)
            first = i if first is None else min(first, i)
        if wanted:  # rare (context once per signal a minute): only then split the read
            lines = output.split(b"\n")
            kept.update((i, lines[i]) for i in wanted)
        if first is not None and first < s.context:
            # Context from the last read; its own last line was shipped with it.
            context = b"".join(strip(b) for b in self._before[-(s.context - first) : -1])
        sampling = self._sampled_at is None or (
            (now - self._sampled_at).total_seconds() >= s.progress_every_s
        )
        if sampling:
            self._sampled_at = now
        latest: dict[int | None, tuple[int, bytes]] = {}  # rank -> its last progress line
        line, at = 0, 0
        for hit in marks(output)[0] if hits is None else hits:
            a = output.rfind(b"\n", 0, hit) + 1
            line += output.count(b"\n", at, a)
            at = a
            if line in kept:
                continue
            b = output.find(b"\n", hit)
            b = len(output) if b < 0 else b
            if output[max(a, hit - 9) : hit] in PARTIAL:
                continue
            if _PROGRESS.search(output, a, b) is None:
                kept[line] = output[a:b]
            elif sampling:
                rank = _RANK.search(output, a, b)
                latest[int(rank.group(1) or rank.group(2)) if rank else None] = (line, output[a:b])
        kept.update(latest.values())
        last = output.rfind(b"\n", 0, len(output) - 1) + 1
        kept.setdefault(total - 1, output[last:].rstrip(b"\n"))
        self._before = _last_lines(output, s.context + 1)
        parts = [context] if context else []
        dropped = max(0, len(kept) - s.max_lines)
        for i in sorted(kept)[: s.max_lines]:
            text = strip(kept[i])
            parts.append(
                (text if len(text) < s.max_line_bytes else text[: s.max_line_bytes - 1]) + b"\n"
            )
        return Excerpt(b"".join(parts), total, len(kept) - dropped, len(result.findings), dropped)

    def _context_due(self, signal: str, now: datetime) -> bool:
        """Context for a signal at most every `context_every_s`: a storm of one line (NFS
        warnings, XID 13 floods) ships every line but its context once."""
        last = self._contexts.get(signal)
        if last is not None and (now - last).total_seconds() < self.settings.context_every_s:
            return False
        self._contexts[signal] = now
        return True


_per_thread = threading.local()


def _marks() -> Prefilter:
    """One multi-literal pass (Hyperscan where installed) finds telemetry lines and partial
    CRI records: single `bytes.find` passes per literal would cost more than the scan.

    One per thread: a Hyperscan database scans on one thread at a time (a second thread
    gets "scratch in use"). The agent ships from one thread; a process running several
    shippers side by side (scripts/bench_kubernetes_large_job.py) needs this.
    """
    found: Prefilter | None = getattr(_per_thread, "prefilter", None)
    if found is None:
        found = make_prefilter([(m, False) for m in (*PARTIAL, *_TELEMETRY)])
        _per_thread.prefilter = found
    return found


def marks(data: bytes) -> tuple[list[int], bool]:
    """Where telemetry markers end in `data`, and whether it holds a partial CRI record."""
    ends = _marks().ends(data)
    partial = any(data[max(0, e - 9) : e] in PARTIAL for e in ends)
    return ends, partial


def _as_is(line: bytes) -> bytes:
    return line


def _last_lines(data: bytes, n: int) -> list[bytes]:
    """The last `n` lines of `data` (each with its newline)."""
    end = len(data)
    out: list[bytes] = []
    while end > 0 and len(out) < n:
        start = data.rfind(b"\n", 0, end - 1) + 1
        out.append(data[start:end])
        end = start
    return out[::-1]
