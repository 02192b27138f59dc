"""Messages cut or wrapped at a width put back together.

Failure output reaches a bundle through many hands, and some break every long line at a fixed
width: a terminal's scrollback copied from `screen`, `tmux` or `less`, `fold`, a CI viewer
cut it exactly at the width; a mail client, a mailing-list archive or a text widget wraps it
at the last blank that fits. A broken message no longer matches its signature ("NCCL WARN
NET/IB : Got completion from peer 10.0.0.3<43210> with error 12, opcode 0, len" on one line,
"32768, vendor err 129" on the next), so one fault can read as nothing, or as another (the
first half of a store timeout as a bare Python exception: the job's own error).

Telling a broken file from a whole one by its shape alone is unreliable (a table, or a
progress line printed the same way every step, gives many lines of one longest length too),
so the width (the file's longest line, at least `MIN_WIDTH` characters) is only a guess and
each join is tried, not assumed. A line may have been broken before the next where it is
exactly as long as the width (cut: joined as it is) or where the next line's first word would
not have fitted after it (wrapped: joined with a blank); the run goes on while the pieces do.
A line exactly the width may be either; where both joins pass, the one that reads as more wins.
A run of wrapped pieces stops before a piece that begins as a line of its own does (Python
logging's `LEVEL:logger:`, an exception's `Name: `), and is also tried up to the first piece
that begins with a time or a rank (a stamped line's long first word looks wrapped too). A
short log may hold one long message wrapped and no line as long as the width: there a wrap is
tried at the narrowest width.
A run is joined where the joined text reads as something the first piece did not, and still
as everything specific it did, and either
- a signature no piece matches alone matches across a break, or
- the joined text is a training progress line with its step that no piece is alone (a
  Megatron iteration line wrapped before its loss: the step a run reached, and whether it
  reached its last, `parsing.progress_lines`), or
- a bare Python exception's name is cut inside (the first piece read nothing, the name
  reads only across the cut), or
- the first piece read only as a bare Python exception, the next piece begins with a word, a
  number or a path, not as a line does (no time, uptime or rank prefix), the specific reading
  does not begin where it does, and the break was a wrap or a cut inside a token: the
  exception's message goes on, and on one line the specific reading would have stood for it.
Two whole lines side by side almost never pass, so a join that is not needed changes nothing;
two lines that each carry a collector's prefix (`kubectl logs --prefix`'s, Open MPI's tag) are
never joined (a line broken after it was gathered leaves its later pieces without one).
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

from autorecover.parsing.lines import collector_prefixed, parse_line
from autorecover.parsing.progress_lines import parse_progress

MIN_WIDTH = 60  # narrower than any terminal or mail a log is pasted from
MAX_PIECES = 16  # a message cut into more pieces than this is not one line any more
MAX_TRIES = 2000  # joins tried per file: bounds the cost on a large log (the rest stays cut)
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_TOKEN = re.compile(r"[\w./-]")
# CPython's traceback: an exception's own line, `Name: message` (Lib/traceback.py)
_EXCEPTION_START = re.compile(r"[A-Za-z_][\w.]{0,200}(?:Error|Exception|Exit|Interrupt): ")
# logging.BASIC_FORMAT, "%(levelname)s:%(name)s:%(message)s" (torch.distributed.elastic's
# "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process ..."), a line of its own
_LOGGING_LEVEL = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]{1,200}:")
# an ISO time in brackets before the message (Megatron's `[2026-04-20 03:17:07] iteration ...`)
_BRACKETED_STAMP = re.compile(r"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")


class Reading(NamedTuple):
    """One signature matching a text: its signal, the match's span and whether it is a generic
    one (a bare Python exception)."""

    key: str
    start: int
    end: int
    generic: bool


Matcher = Callable[[str], list[Reading]]


def cut_width(lines: list[str]) -> int | None:
    """The width `lines` may have been cut or wrapped at: their longest length, at least the
    narrowest a log is pasted at (a short log whose one long message was wrapped has no line
    as long as the width: only a wrap is tried there, no piece being as long as a cut's);
    None for an empty file."""
    width = max(map(len, lines), default=0)
    return max(width, MIN_WIDTH) if width else None


def rejoin(text: str, readings: Matcher) -> str:
    """`text` with each message broken at the width back on one line (see the module)."""
    lines = text.split("\n")
    bare = [line.rstrip("\r") for line in lines]
    width = cut_width(bare)
    if width is None:
        return text
    i = tries = joins = 0
    while i < len(bare) - 1 and tries < MAX_TRIES:
        best: tuple[int, str, int] | None = None
        for sep, end in _runs(bare, i, width):
            tries += 1
            pieces = bare[i : end + 1]
            if _was_broken(pieces, sep, readings):
                # A line exactly the width may have been cut or wrapped there: the join that
                # reads as more is the one that put the message back.
                said = len({r.key for r in readings(sep.join(pieces)) if not r.generic})
                if best is None or said > best[0]:
                    best = (said, sep, end)
        if best is not None:
            _, sep, end = best
            lines[i] = sep.join(bare[i : end + 1])
            lines[i + 1 : end + 1] = [""] * (end - i)
            joins += 1
            i = end
        i += 1  # on a miss the message may begin on the next line (a frame before its error)
    return "\n".join(lines) if joins else text


def _runs(bare: list[str], i: int, width: int) -> list[tuple[str, int]]:
    """The ways the line at `i` may begin a broken message, each as the separator its pieces
    lost and the index of its last piece: cut (pieces exactly the width, then one shorter) and
    wrapped (each piece followed by a word that would not have fitted on it)."""
    runs = []
    last = len(bare) - 1
    if len(bare[i]) == width:
        end = i + 1
        while end < last and len(bare[end]) == width and end - i < MAX_PIECES:
            end += 1
        runs.append(("", end))
    if _wrapped(bare[i], bare[i + 1], width):
        end = i + 1
        while end < last and _wrapped(bare[end], bare[end + 1], width) and end - i < MAX_PIECES:
            end += 1
        runs.append((" ", end))
        # the same run up to the first piece that begins as a line does (a time, a rank): the
        # next line may be wrapped-looking only because its first word is long
        start = next((k for k in range(i + 2, end + 1) if _line_start(bare[k])), None)
        if start is not None:
            runs.append((" ", start - 1))
    return runs


def _wrapped(line: str, after: str, width: int) -> bool:
    """Whether `line` may have been wrapped at a blank before `after` because the next word
    would not have fitted (as `fold -s`, a mail client or a text widget wraps)."""
    word = after.split(" ", 1)[0]
    if not (line.strip() and word and len(line) + 1 + len(word) > width):
        return False
    # a line that begins with a logger's level or an exception's name is its own, however
    # short the one before it: a run of wrapped pieces stops before it (a time may be the rest
    # of a message: Slurm's "CANCELLED AT <time> DUE TO ...")
    return not (_LOGGING_LEVEL.match(after) or _EXCEPTION_START.match(after))


def _was_broken(pieces: list[str], sep: str, readings: Matcher) -> bool:
    """Whether `pieces`, joined with `sep` (the blank a wrap took, none for a cut), read as one
    message broken at the first piece's end."""
    if collector_prefixed(pieces[0]) and any(map(collector_prefixed, pieces[1:])):
        # a collector prefixes every line it gathers; a piece of a line broken after it was
        # gathered has none, so a later piece that carries one is a line of its own
        return False
    first = readings(pieces[0])
    joined = readings(sep.join(pieces))
    had = {r.key for r in first if not r.generic}
    if not had <= {r.key for r in joined}:
        return False  # the join would lose what the first piece says
    later = {r.key for piece in pieces[1:] for r in readings(piece)}
    new = [r for r in joined if not r.generic and r.key not in had]
    # where each later piece begins in the joined text
    cuts = list(itertools.accumulate(len(p) + len(sep) for p in pieces[:-1]))
    if any(r.start < cut < r.end for r in new if r.key not in later for cut in cuts):
        return True
    # A later piece may read as the same signature on its own when its pattern is free-form at
    # the start (Horovod's stalled op, a name cut mid-word): the join still put it back where
    # the reading spans the whole first piece, one word cut inside (a reading that begins in
    # the first piece's last word is two lines' words run together: "loss 2.4385" + "x1921...").
    whole = [r for r in new if r.start == 0 and r.end > cuts[0] and " " not in pieces[0].strip()]
    if whole and sep == "" and _goes_on(pieces[0], pieces[1], sep):
        return True
    # A bare Python exception's name cut inside by a fixed width (`...] F` + `ileNotFoundError:
    # ...`): the first piece read nothing, and only the cut put the name together.
    if not first and sep == "" and _goes_on(pieces[0], pieces[1], sep):
        named = [r for r in joined if r.generic and r.key not in later]
        if any(r.start < cuts[0] < r.end for r in named):
            return True
    bare_exception = bool(first) and all(r.generic for r in first)
    # A reading that begins just where the next piece does is that piece's own line.
    inside = any(r.start not in cuts for r in new)
    if bare_exception and inside and _goes_on(pieces[0], pieces[1], sep):
        return True
    return _progress_across(pieces, sep)


def _progress_across(pieces: list[str], sep: str) -> bool:
    """Whether the pieces joined are a progress line with its step (Megatron's `iteration
    50/ 50 | ... | lm loss: ...` wrapped before its loss) that no piece is alone."""
    if not all(_goes_on(a, b, sep) for a, b in itertools.pairwise(pieces)):
        return False  # a later piece that begins as a line does is the next line
    if any(parse_progress(piece, _EPOCH) is not None for piece in pieces):
        return False
    joined = parse_progress(sep.join(pieces), _EPOCH)
    return joined is not None and joined.step is not None


def _line_start(text: str) -> bool:
    """Whether `text` begins the way a log line does (a time, an uptime or a rank prefix, or
    Python logging's default `LEVEL:logger:` before the message)."""
    parsed = parse_line(text, _EPOCH)
    if parsed.at is not None or parsed.uptime_s is not None or parsed.rank is not None:
        return True
    return _LOGGING_LEVEL.match(text) is not None or _BRACKETED_STAMP.match(text) is not None


def _goes_on(before: str, after: str, sep: str) -> bool:
    """Whether `after` reads as the rest of `before`'s message: it begins with a letter, digit,
    `_`, `.`, `-` or `/` (a quote, a bracket or a blank may begin a line of its own), not the
    way a line does (a time, an uptime, a rank), and, where nothing was lost between them (a
    cut), `before` ends inside such a token too."""
    if not _TOKEN.fullmatch(after[:1]) or _line_start(after):
        return False
    return sep == " " or bool(_TOKEN.fullmatch(before[-1:]))
