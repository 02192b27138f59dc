#!/usr/bin/env python3
"""Re-wrap the tune bundles' job logs the ways real collectors do; count verdicts that change.

    uv run --frozen python scripts/rewrap_corpus.py                 # every wrapper
    uv run --frozen python scripts/rewrap_corpus.py cri ansi        # some

Public failure output reaches the engine through many hands: a container runtime's CRI log
files, `mpirun --tag-output`, docker compose, coloured terminals, or pasted into an issue with
its times cut off. The message text is the same; only what is around it changes, so a verdict
must not. For every `tune` bundle the engine gets right (held-out bundles are never looked at
one by one), each line of each `logs/` file is rewritten by a wrapper and the bundle explained
again; the script prints, per wrapper, how many verdicts (cause or suspects) changed and
which. It exits 1 when any did.

Wrappers: `cri` (`<time> stderr F <line>`, the time the line's own or its last neighbour's, as
a collector reading it then would stamp it), `mpirun` (`[1,N]<stderr>:`), `compose`
(`trainer-1  | `), `ansi` (every other line coloured), `crlf` (Windows line ends), `nostamp`
(the line's own time removed, its rank kept as torchrun's prefix), `norank` (rank prefixes
removed, the time kept).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from autorecover.adapters.bundles import explain, read_job
from autorecover.domain.catalog import builtin_catalog
from autorecover.parsing.lines import find_embedded_time, parse_line
from autorecover.parsing.scanning import Scanner

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
Wrapper = Callable[[str, int, "_File"], str]


class _File:
    """What a wrapper knows about the file it rewrites: the job's start, the last time seen."""

    def __init__(self, reference: datetime) -> None:
        self.reference = reference
        self.last: datetime | None = None


def _cri(line: str, i: int, f: _File) -> str:
    parsed = parse_line(line, f.reference)
    at = parsed.at or find_embedded_time(parsed.message)
    if at is not None and (f.last is None or at >= f.last):
        f.last = at
    stamp = (f.last or f.reference).strftime("%Y-%m-%dT%H:%M:%S.%f")
    return f"{stamp}000Z stderr F {line}"


def _nostamp(line: str, i: int, f: _File) -> str:
    parsed = parse_line(line, f.reference)
    if parsed.at is None and parsed.uptime_s is None:
        return line
    return parsed.message if parsed.rank is None else f"[rank{parsed.rank}]: {parsed.message}"


def _norank(line: str, i: int, f: _File) -> str:
    parsed = parse_line(line, f.reference)
    if parsed.rank is None:
        return line
    return (parsed.at.strftime("%Y-%m-%d %H:%M:%S ") if parsed.at else "") + parsed.message


WRAPPERS: dict[str, Wrapper] = {
    "cri": _cri,
    "mpirun": lambda line, i, f: f"[1,{i % 4}]<stderr>:{line}",
    "compose": lambda line, i, f: f"trainer-1  | {line}",
    "ansi": lambda line, i, f: f"\x1b[36m{line}\x1b[0m" if i % 2 else line,
    "crlf": lambda line, i, f: line + "\r",
    "nostamp": _nostamp,
    "norank": _norank,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wrappers", nargs="*", help=", ".join(WRAPPERS))
    args = parser.parse_args()
    unknown = sorted(set(args.wrappers) - set(WRAPPERS))
    if unknown:
        parser.error(f"unknown wrapper(s) {', '.join(unknown)}: choose from {', '.join(WRAPPERS)}")
    args.wrappers = args.wrappers or list(WRAPPERS)
    catalog = builtin_catalog()
    scanner = Scanner(catalog)
    right = []
    for bundle in sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file()):
        expected = json.loads((bundle / "expected.json").read_text())
        if expected.get("split") != "tune":
            continue
        verdict = explain(bundle, catalog, scanner).verdict
        if verdict.cause.value == expected["cause"] and sorted(verdict.suspect_nodes) == sorted(
            expected["suspect_nodes"]
        ):
            right.append((bundle, verdict))
    changed_any = False
    for name in args.wrappers:
        changed = []
        for bundle, before in right:
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / bundle.name
                shutil.copytree(bundle, copy)
                reference = read_job(copy).started
                for path in sorted((copy / "logs").glob("*")):
                    state = _File(reference)
                    lines = path.read_text(errors="replace").splitlines()
                    wrapped = (WRAPPERS[name](line, i, state) for i, line in enumerate(lines))
                    path.write_text("\n".join(wrapped) + "\n")
                after = explain(copy, catalog, scanner).verdict
            if (after.cause, after.suspect_nodes) != (before.cause, before.suspect_nodes):
                changed.append(
                    f"  {bundle.name}: {before.cause.value}{list(before.suspect_nodes)} -> "
                    f"{after.cause.value}{list(after.suspect_nodes)}"
                )
        print(f"{name:8s} {len(changed)}/{len(right)} right tune bundles change verdict")
        if changed:
            print("\n".join(changed))
        changed_any = changed_any or bool(changed)
    return 1 if changed_any else 0


if __name__ == "__main__":
    sys.exit(main())
