"""Validated names: node names, job ids, reasons and comments, checked before any command runs.

Nothing from a log line, a node name or a job spec reaches a shell: every Slurm command is an
argument list. Still, `scontrol` parses its own arguments (`key=value`), so each value we pass
is held to a strict character set first. Node names and job ids are rejected outright when
they fall outside it; free text we compose (a drain reason, an admin comment) is cleaned of
anything outside it, then checked like the rest. Hostlist expressions (`gpu[01-04,07]`) as
Slurm prints them are expanded here too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from autorecover.domain import hostlists

NODE_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?")
JOB_ID = re.compile(r"[1-9][0-9]{0,9}")  # the job's own id (array tasks have their own)
# Free text we pass as one scontrol value: no quotes, `=`, `;`, `$`, backticks, pipes,
# redirections, backslashes or control characters; never empty, never a leading `-`.
TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._:,/@+#()\[\]-]{0,199}")
MAX_TEXT = 200
MAX_HOSTLIST_NODES = 65536  # a hostlist that expands past this is refused, not expanded

_RANGE = re.compile(r"(\d+)(?:-(\d+))?")
_UNSAFE = re.compile(r"[^A-Za-z0-9 ._:,/@+#()\[\]-]+")


class InvalidNameError(ValueError):
    """A node name, job id or text is outside the strict character set."""


def node_name(name: str) -> str:
    """The node name, if it is a plain Slurm node name; raises `InvalidNameError` otherwise."""
    if not isinstance(name, str) or not NODE_NAME.fullmatch(name):
        raise InvalidNameError(f"not a valid node name: {name!r}")
    return name


def node_names(names: Iterable[str]) -> tuple[str, ...]:
    """Each name validated; sorted and without duplicates."""
    return tuple(sorted({node_name(n) for n in names}))


def job_id(value: str | int) -> str:
    """The job id as a string, if it is a plain positive number; raises `InvalidNameError`."""
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not JOB_ID.fullmatch(text):
        raise InvalidNameError(f"not a valid job id: {value!r}")
    return text


def text(value: str, what: str = "text") -> str:
    """Free text (a reason, a comment) if it is inside the strict set; raises `InvalidNameError`."""
    if not isinstance(value, str) or not TEXT.fullmatch(value):
        raise InvalidNameError(f"not a valid {what}: {value!r}")
    return value


def clean_text(value: str, limit: int = MAX_TEXT) -> str:
    """Free text reduced to the strict set: other characters become `_`, runs of space one."""
    out = _UNSAFE.sub("_", value)
    out = " ".join(out.split())
    out = out.lstrip(" -_.:,/@+#()[]")
    return out[:limit].rstrip() or "unspecified"


def expand_hostlist(expr: str) -> tuple[str, ...]:
    """`gpu[01-03,07],cpu1` -> ("gpu01", "gpu02", "gpu03", "gpu07", "cpu1"); "" -> ()
    (`domain.hostlists.expand_hostlist`; a malformed one raises InvalidNameError)."""
    try:
        return hostlists.expand_hostlist(expr)
    except hostlists.HostlistError as exc:
        raise InvalidNameError(str(exc)) from None
