"""Messages cut at a terminal's width put back together.

Failure output reaches a bundle through many hands, and some cut every long line at a fixed
width: a terminal's scrollback copied from `screen`, `tmux` or `less`, `fold`, a CI viewer or a
mail archive with hard line ends. A cut message no longer matches its signature ("NCCL WARN
NET/IB : Got completion from peer 10.0.0.3<43210> with error 12, opcode 0, len" on one line,
"32768, vendor err 129" on the next), so one fault can read as nothing, or as another (the
first half of a store timeout as a bare Python exception: the job's own error).

Telling a cut file from an uncut one by its shape alone is unreliable (a table, or a progress
line printed the same way every step, gives many lines of one longest length too), so the
width is only a guess and each join is tried, not assumed. A line exactly as long as the
file's longest (at least `MIN_WIDTH` characters) is joined with the line after it (and with the
next, while those are as long too) where the joined text reads as something the first piece
did not, and still as everything specific it did, and either
- a signature no piece matches alone matches across a cut, or
- the first piece read only as a bare Python exception, the cut falls inside a token, the next
  piece does not begin as a line does (no time, uptime or rank prefix) and the specific
  reading does not begin where it does: the exception's message goes on, and on one line
  the specific reading would have stood for it.
Two whole lines side by side almost never pass, so a join that is not needed changes nothing.
The joined text stands on the first piece's line and an empty line on each later piece's (a
piece left to itself would be read again as a fragment, "Cuda failure 1 'invalid argument'"
without the NCCL warning it ends): the file keeps its line count, and every line number still
points at the file.

Pure: text and a matcher in, text out; `adapters.bundles` applies it to a bundle's files.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NamedTuple

from autorecover.parsing.lines import parse_line

MIN_WIDTH = 60  # narrower than any terminal or mail a log is pasted from
MAX_PIECES = 16  # a message cut into more pieces than this is not one line any more
MAX_TRIES = 2000  # joins tried per file: bounds the cost on a large log (the rest stays cut)
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_TOKEN = re.compile(r"[\w./-]")


class Reading(NamedTuple):
    """One signature matching a text: its signal, the match's span, the offset of its first
    anchor within the match (-1: none there), and whether it is a generic one."""

    key: str
    start: int
    end: int
    anchor: int
    generic: bool


Matcher = Callable[[str], list[Reading]]


def cut_width(lines: list[str]) -> int | None:
    """The width `lines` may have been cut at: their longest length, where it is wide enough
    to be a terminal's; else None."""
    width = max(map(len, lines), default=0)
    return width if width >= MIN_WIDTH else None


def rejoin(text: str, readings: Matcher) -> str:
    """`text` with each message that was cut at the width back on one line (see the module)."""
    lines = text.split("\n")
    bare = [line.rstrip("\r") for line in lines]
    width = cut_width(bare)
    if width is None:
        return text
    i = tries = joins = 0
    while i < len(bare) - 1 and tries < MAX_TRIES:
        if len(bare[i]) != width:
            i += 1
            continue
        end = i + 1  # the run's last piece: the first line shorter than the width
        while end < len(bare) - 1 and len(bare[end]) == width and end - i < MAX_PIECES:
            end += 1
        tries += 1
        if _was_cut(bare[i : end + 1], readings):
            lines[i] = "".join(bare[i : end + 1])
            lines[i + 1 : end + 1] = [""] * (end - i)
            joins += 1
        i = end + (len(bare[end]) != width)
    return "\n".join(lines) if joins else text


def _was_cut(pieces: list[str], readings: Matcher) -> bool:
    """Whether `pieces` read, joined, as one message cut at the first piece's end."""
    first = readings(pieces[0])
    joined = readings("".join(pieces))
    had = {r.key for r in first if not r.generic}
    if not had <= {r.key for r in joined}:
        return False  # the join would lose what the first piece says
    later = {r.key for piece in pieces[1:] for r in readings(piece)}
    new = [r for r in joined if not r.generic and r.key not in had]
    cuts = list(itertools.accumulate(len(piece) for piece in pieces[:-1]))
    if any(r.start < cut < r.end for r in new if r.key not in later for cut in cuts):
        return True
    bare_exception = bool(first) and all(r.generic for r in first)
    # A reading that begins just where the next piece does is that piece's own line.
    inside = any(r.start not in cuts for r in new)
    return bare_exception and inside and _mid_token(pieces[0], pieces[1])


def _mid_token(before: str, after: str) -> bool:
    """Whether a cut between `before` and `after` split a word, a number or a path (a letter,
    digit, `_`, `.`, `-` or `/` either side: a quote, a bracket or a blank may end a line or
    begin one) and `after` does not begin the way a line does (a time, an uptime, a rank)."""
    if not (_TOKEN.fullmatch(before[-1:]) and _TOKEN.fullmatch(after[:1])):
        return False
    parsed = parse_line(after, _EPOCH)
    return parsed.at is None and parsed.uptime_s is None and parsed.rank is None
