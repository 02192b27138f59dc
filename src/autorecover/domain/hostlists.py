"""Slurm hostlist expressions (`gpu[01-04,07]`), as Slurm and the tools around it print them.

Pure: the scheduler adapter validates what it expands (`adapters/slurm/names.py`); attribution
reads node lists that a job's own output carries (SageMaker HyperPod's auto-resume names the
nodes it kept).
"""

from __future__ import annotations

import re

MAX_HOSTLIST_NODES = 65536  # a hostlist that expands past this is refused, not expanded

_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


class HostlistError(ValueError):
    """Not a hostlist expression Slurm prints, or one that expands past the limit."""


def expand_hostlist(expr: str) -> tuple[str, ...]:
    """`gpu[01-03,07],cpu1` -> ("gpu01", "gpu02", "gpu03", "gpu07", "cpu1"); "" -> ().

    Slurm's "(null)" and "" mean no nodes. Zero padding is kept (`[08-10]` -> 08, 09, 10). Only
    one bracket group per name is supported (Slurm prints no others for flat node names).
    """
    expr = expr.strip()
    if expr in ("", "(null)", "None", "N/A"):
        return ()
    out: list[str] = []
    for prefix, ranges, suffix in _split_hostlist(expr):
        if ranges is None:
            out.append(prefix + suffix)
            continue
        for part in ranges.split(","):
            m = _RANGE.fullmatch(part.strip())
            if m is None:
                raise HostlistError(f"not a hostlist range: {part!r} in {expr!r}")
            lo_text, hi_text = m.group(1), m.group(2) or m.group(1)
            lo, hi = int(lo_text), int(hi_text)
            if hi < lo or len(out) + hi - lo >= MAX_HOSTLIST_NODES:
                raise HostlistError(f"hostlist range out of bounds: {part!r} in {expr!r}")
            width = len(lo_text) if lo_text.startswith("0") else 0
            out.extend(f"{prefix}{i:0{width}d}{suffix}" for i in range(lo, hi + 1))
    return tuple(out)


def _split_hostlist(expr: str) -> list[tuple[str, str | None, str]]:
    """(prefix, bracket contents or None, suffix) for each comma-separated entry."""
    entries: list[tuple[str, str | None, str]] = []
    depth = 0
    start = 0
    pieces: list[str] = []
    for i, ch in enumerate(expr):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(expr[start:i])
            start = i + 1
        if depth < 0 or depth > 1:
            raise HostlistError(f"not a hostlist: {expr!r}")
    if depth != 0:
        raise HostlistError(f"not a hostlist: {expr!r}")
    pieces.append(expr[start:])
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        if "[" not in piece:
            entries.append((piece, None, ""))
            continue
        head, _, rest = piece.partition("[")
        inner, _, tail = rest.partition("]")
        if "[" in tail or "]" in tail:
            raise HostlistError(f"more than one bracket group: {piece!r}")
        entries.append((head, inner, tail))
    return entries
