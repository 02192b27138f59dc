"""One container's output condensed to what job recovery reads: the excerpt the agent ships.

Job recovery reads a pod's output through its port (`read_output`) and scans it with the same
`Scanner` as `autorecover explain`. The agent scans the full output here, on the node, and
keeps only the lines that scan can use:

- every line a signature matched, with `context` lines before and after it (the tail around
  a finding; a finding's context that runs into the next read is finished there);
- telemetry lines: every `init`, checkpoint span, `error` and `hang` record, and progress
  records (`step`, `summary`, NVIDIA's iteration metrics) at most one per rank every
  `progress_every_s` (the health assessment learns the job's pace from their times, and its
  hang limit is minutes: a 5 s sample keeps that);
- the last line of each read, so the engine's "when did it last say anything" stays current.

Re-scanned at the engine, the excerpt gives the same findings (their lines and context are
there), the same progress ledger at the sampled resolution, and the same last output time
within one read. Line numbers in evidence are the excerpt's, not the container's file's.
Everything is bounded: lines are cut at `max_line_bytes`, an excerpt at `max_lines`.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from datetime import datetime

from autorecover.domain.records import Source
from autorecover.parsing.scanning import Scanner

_TELEMETRY = re.compile(rb'\{"telemetry"|training_iterations|training_metrics_update|\[type=')
_PROGRESS = re.compile(rb'"event": ?"(?:step|summary)"|training_iterations|training_metrics_update')
_RANK = re.compile(rb'"rank": ?(\d{1,7})|\brank=(\d{1,7})')


@dataclass(frozen=True, slots=True)
class ExcerptSettings:
    """How much of a container's output the agent ships."""

    context: int = 20  # lines kept before and after each finding's line
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
    _progress: dict[int | None, datetime] = field(default_factory=dict)  # rank -> last kept

    def take(self, output: bytes, now: datetime) -> Excerpt:
        """Condense `output` (whole lines, as `CriDecoder` gives them) read at `now`."""
        if not output:
            return Excerpt(b"", 0, 0, 0)
        s = self.settings
        result = self.scanner.scan(io.BytesIO(output), node=self.node, source=Source.LOGS,
                                   reference=now)  # fmt: skip
        total = output.count(b"\n") + (0 if output.endswith(b"\n") else 1)
        spans: dict[int, tuple[int, int]] = {}  # line start -> (start, end), end past "\n"
        context = b""
        if result.findings or self._after:
            starts = _line_starts(output)
            wanted: set[int] = set(range(min(self._after, total)))
            for f in result.findings:
                wanted.update(range(max(0, f.line - 1 - s.context), min(total, f.line + s.context)))
            last_finding = max((f.line for f in result.findings), default=0)
            self._after = max(0, last_finding + s.context - total) if last_finding else 0
            for i in wanted:
                spans[starts[i]] = (starts[i], starts[i + 1] if i + 1 < total else len(output))
            first = min((f.line for f in result.findings), default=s.context + 1)
            if first <= s.context:
                # Context from the last read; its own last line was shipped with it.
                context = b"".join(self._before[-(s.context - first + 1) : -1])
        for m in _TELEMETRY.finditer(output):
            a = output.rfind(b"\n", 0, m.start()) + 1
            if a in spans:
                continue
            b = output.find(b"\n", m.end())
            b = len(output) if b < 0 else b + 1
            if _PROGRESS.search(output, a, b) and not self._due(output[a:b], now):
                continue
            spans[a] = (a, b)
        last = output.rfind(b"\n", 0, len(output) - 1) + 1
        spans.setdefault(last, (last, len(output)))
        self._before = _last_lines(output, s.context + 1)
        parts = [context] if context else []
        kept = dropped = 0
        for a in sorted(spans):
            if kept >= s.max_lines:
                dropped += 1
                continue
            start, end = spans[a]
            line = output[start:end]
            if len(line) > s.max_line_bytes:
                line = line[: s.max_line_bytes - 1] + b"\n"
            elif not line.endswith(b"\n"):
                line += b"\n"
            parts.append(line)
            kept += 1
        return Excerpt(b"".join(parts), total, kept, len(result.findings), dropped)

    def _due(self, line: bytes, now: datetime) -> bool:
        """A progress record of a rank not sampled within `progress_every_s`."""
        m = _RANK.search(line)
        rank = int(m.group(1) or m.group(2)) if m else None
        last = self._progress.get(rank)
        if last is not None and (now - last).total_seconds() < self.settings.progress_every_s:
            return False
        self._progress[rank] = now
        return True


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    find = data.find
    i = find(b"\n")
    while i >= 0 and i + 1 < len(data):
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts


def _last_lines(data: bytes, n: int) -> list[bytes]:
    """The last `n` lines of `data` (each with its newline)."""
    end = len(data)
    out: list[bytes] = []
    while end > 0 and len(out) < n:
        start = data.rfind(b"\n", 0, end - 1) + 1
        out.append(data[start:end])
        end = start
    return out[::-1]
