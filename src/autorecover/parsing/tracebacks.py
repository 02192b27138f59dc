"""What a Python exception line's traceback says: its innermost frame, how it was chained, and
the exceptions whose meaning that frame changes.

CPython prints a traceback as `Traceback (most recent call last):`, then each frame's
`File "<path>", line <n>, in <function>` (and its source line), innermost last, then the
exception's own line (Lib/traceback.py); an exception raised while handling another is printed
after the earlier one's traceback and a sentence saying how the two are linked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from autorecover.parsing.chunks import (
    NEIGHBOUR_LINES,
    decode,
    line_iter_backward,
    line_iter_forward,
)
from autorecover.parsing.lines import ParsedLine, parse_line

FRAME = re.compile(r'File "([^"]{1,300})", line (\d+), in (\S+)')
_EXCEPTION_LINE = re.compile(r"[A-Za-z_][\w.]{0,200}(?:Error|Exception|Exit|Interrupt): ")
# CPython's traceback module (Lib/traceback.py: _cause_message, _context_message)
_CHAINED = {
    "The above exception was the direct cause of the following exception:": "cause",
    "During handling of the above exception, another exception occurred:": "context",
}

# A process started by multiprocessing's spawn or forkserver method first reads what to run
# from its parent's pipe (CPython Lib/multiprocessing/spawn.py `_main`: `preparation_data =
# reduction.pickle.load(from_parent)`, then `self = reduction.pickle.load(from_parent)`), before
# any code of the job runs in it. An end of input there ("EOFError: Ran out of input", "pickle
# data was truncated") is the parent closing the pipe early, dead or unable to pickle what it
# had to send: the parent's failure told by its child, not an empty file of the job's
# (torchload.empty_pickle) nor the child's own bug. A class the child cannot find while
# unpickling (AttributeError: Can't get attribute ...) is raised in the same frame and stays the
# job's.
_SPAWN_READ = re.compile(r"multiprocessing[/\\]spawn\.py:\d+ in _main$")
_SPAWN_SOURCE = re.compile(r"\breduction\.pickle\.load\(from_parent\)")
_INPUT_CUT = re.compile(r"\bEOFError: Ran out of input\b|\bpickle data was truncated\b")

# An exception line's message (Lib/traceback.py prints `Name: message`) that stops before saying
# anything: empty, ending in a colon or a comma ("NCCL error in: <file>:<line>," before NCCL's
# text, Ray's "failed with status failed and error:" before the remote error), or only the source
# location c10 and gloo put before their text ("[../third_party/gloo/gloo/transport/tcp/
# pair.cc:534]"). Its text is on the next lines: printed there by the library, or broken at a
# width by whoever pasted the log.
_MESSAGE = re.compile(r"(?:Error|Exception|Exit|Interrupt):[ \t]*(.*)$")
_UNFINISHED = re.compile(r"|.*[:,]|\[[^\]\s]{1,300}:\d+\]")
# A line another program or logger begins ("srun: error: ...", "ERROR:torch.distributed...")
# is its own, not the rest of the message above it.
_OWN_LINE = re.compile(r"[\w.-]{1,40}: |[A-Z]{3,8}[:\]]")
CONTINUED_LINES = 2


@dataclass(frozen=True, slots=True)
class Traceback:
    """What an exception line's traceback says, as far as it is near."""

    frame: str | None = None  # the innermost frame: `file:line in function`
    source: str | None = None  # that frame's source line, printed under the frame
    chained: str | None = None  # "context" or "cause": raised over an earlier exception


def traceback_of(
    chunk: bytes, start: int, parsed: ParsedLine, reference: datetime, hosts: frozenset[str]
) -> Traceback:
    """What the traceback of the exception line at `start` says, if near: its innermost frame,
    that frame's source line, and whether it was raised while handling an earlier exception
    (`context`: "During handling of the above exception, another exception occurred") or from it
    (`cause`: "The above exception was the direct cause of the following exception")."""
    frame: str | None = None
    source: str | None = None
    header = False
    for s, e in line_iter_backward(chunk, start, NEIGHBOUR_LINES):
        text = decode(chunk[s:e].rstrip(b"\n"))
        line = parse_line(text, reference, hosts)
        if line.rank != parsed.rank:
            continue
        if header:
            if not line.message.strip():
                continue
            return Traceback(frame, source, _CHAINED.get(line.message.strip()))
        m = FRAME.search(text)
        if m and frame is None:
            frame = f"{m.group(1)}:{m.group(2)} in {m.group(3)}"
        elif frame is None and _EXCEPTION_LINE.match(line.message):
            return Traceback()  # another exception's last line: this one has no traceback here
        elif frame is None and source is None and line.message.strip(" ^~"):
            source = line.message.strip()  # Python 3.11+ underlines it with carets: skipped
        if "Traceback (most recent call last)" in text:
            header = True
    return Traceback(frame, source)


def continuation(
    chunk: bytes, stop: int, parsed: ParsedLine, reference: datetime, hosts: frozenset[str]
) -> str:
    """The rest of an unfinished exception message (the line ending at `stop`): the next few
    lines that go on with it, joined by blanks, up to the first that begins a line of its own
    (another time or rank, another program's prefix) or is blank; "" when the message is whole."""
    m = _MESSAGE.search(parsed.message)
    if m is None or not _UNFINISHED.fullmatch(m.group(1).rstrip()):
        return ""
    rest: list[str] = []
    for s, e in line_iter_forward(chunk, stop + 1, CONTINUED_LINES):
        line = parse_line(decode(chunk[s:e].rstrip(b"\r")), reference, hosts)
        own = (line.at is not None and line.at != parsed.at) or line.uptime_s is not None
        if own or line.rank not in (None, parsed.rank) or not line.message.strip():
            break
        if _OWN_LINE.match(line.message):
            break
        rest.append(line.message.strip())
    return " ".join(rest)


def parent_pipe_cut(text: str, tb: Traceback) -> bool:
    """Whether the exception line `text`, with traceback `tb`, is a spawned process finding its
    parent's pipe cut short (the parent's failure, not the job's file or the child's bug). The
    frame's source line alone tells it where a pasted snippet lost the frame line above it."""
    if not _INPUT_CUT.search(text):
        return False
    if tb.frame is not None:
        return _SPAWN_READ.search(tb.frame) is not None
    return tb.source is not None and _SPAWN_SOURCE.search(tb.source) is not None
