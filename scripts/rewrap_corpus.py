#!/usr/bin/env python3
"""Re-wrap and re-assemble the tune bundles the ways real collectors do; count verdicts that change.

    uv run --frozen python scripts/rewrap_corpus.py                 # every variation
    uv run --frozen python scripts/rewrap_corpus.py cri rename      # some

Public failure output reaches the engine through many hands: a container runtime's CRI log
files, `mpirun --tag-output`, docker compose, coloured terminals, pasted into an issue with
its times cut off, collected by a tool that names nodes its own way, lists them in another
order, keeps only the tail or cannot reach the bystanders. The incident is the same; only
how the bundle was put together changes, so a verdict must not. For every `tune` bundle the
engine gets right (held-out bundles are never looked at one by one), a copy is rewritten by
each variation and explained again; the script prints, per variation, how many verdicts (cause
or suspects, renamed along with the nodes) changed out of the bundles tried, how many bundles
it skipped (a variation that cannot keep a bundle's incident the same, or would not change
it, skips it) and which changed. It exits 1 when any did.

Line wrappers (each line of each `logs/` file): `cri` (`<time> stderr F <line>`, the time the
line's own or its last neighbour's, as a collector reading it then would stamp it; a hang
with a log that has no time at all is skipped: its stamps would be made up), `mpirun`
(`[1,N]<stderr>:`, N the line's own rank or the one c10d names in it, else the last
line's), `compose` (`trainer-1  | `), `kubectl` (`kubectl logs --prefix`'s
`[pod/<pod>/<container>] `), `pdsh` (`<node>: `, as DeepSpeed's multi-node runner prints),
`ansi` (every other line coloured), `ansipaste` (the same pasted through a page that dropped
the escape character: `[36m...[0m`), `entities` (`html.escape`d: a log taken from a page's
HTML source), `dockerjson` (Docker's json-file records, time as `cri` gives it), `crlf`
(Windows line ends), `indent` (four blanks before
every line: a log pasted indented, in a Markdown list or a mail), `nostamp` (the line's own time
removed, its rank kept as torchrun's prefix; a time inside a forwarder's prefix, Ray's or
pdsh's, is kept with it), `norank` (rank prefixes removed, the time kept),
`fold80` / `fold120` (every line longer than 80 / 120 characters cut into pieces that long, as
`fold`, a terminal's scrollback or a CI viewer leaves it), `wrap72` / `wrap100` (every such line
wrapped at the last blank that fits, as a mail client, a list archive or a text widget does),
`blockquote` (`> ` before every line: a reply quoting the paste), `smartquotes` (every quote
typographic: an editor's autocorrect), `nbsp` (a no-break space in every run of blanks: a web
page's).

Whole-bundle variations: `rename` / `rename-gke` (every node renamed consistently, to
`ip-10-4-2-3` / `gke-train-a3-pool-1-<hash>` names, in job.json, file names and every line that
names it, a longer name before any it contains; skipped where a name is a plain word, a new
name is already there, or a Slurm host list `gpu-a[01-04]` names nodes by pattern), `fqdn`
(job.json and file names use the full domain name `<node>.cluster.internal`, the lines keep the
short host name), `reorder` / `rotate` (job.json's node list reversed / rotated by one),
`sparse` (only the job-log lines a finding or a telemetry record came from, one line either
side: a pasted snippet), `tz` / `tz-west` (every ISO-8601 stamp in the job logs rewritten to
`+08:00` / `-07:00`, the same instant), `local` / `local-west` (every log written at UTC+8 /
UTC-5 without a zone while job.json stays in UTC; skipped where a stamp says its zone or the
job's output holds telemetry records), `nosys` (the system log of every node with no hardware
finding of its own dropped), `nosys-quiet` (only the system logs that gave no finding at all
dropped), `tail` (each job log cut to its last 200 lines), `combined` (every node's job log in
the launching node's file after pdsh's `<node>: `, merged in time order, as DeepSpeed leaves
them; hangs skipped), `noexit` (job.json without its optional `exit_codes`).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from autorecover.adapters.bundles import Explanation, explain, read_job
from autorecover.domain.catalog import Catalog, builtin_catalog
from autorecover.domain.records import Blame, Source, Verdict
from autorecover.parsing.lines import find_embedded_time, parse_line, says_zone
from autorecover.parsing.scanning import TELEMETRY_MARKERS, Scanner
from autorecover.parsing.telemetry_evidence import EVIDENCE_MARKERS, MARKERS

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
Wrapper = Callable[[str, int, "_File"], str]


class _File:
    """What a wrapper knows about the file it rewrites: the job's start, the last time seen."""

    def __init__(self, reference: datetime, node: str = "") -> None:
        self.reference = reference
        self.node = node  # the node whose file it is
        self.last: datetime | None = None
        self.rank = 0  # the rank of the process that wrote the last line (mpirun's tag)


def _cri(line: str, i: int, f: _File) -> str:
    parsed = parse_line(line, f.reference)
    at = parsed.at or find_embedded_time(parsed.message)
    if at is not None and (f.last is None or at >= f.last):
        f.last = at
    stamp = (f.last or f.reference).strftime("%Y-%m-%dT%H:%M:%S.%f")
    return f"{stamp}000Z stderr F {line}"


def _docker_json(line: str, i: int, f: _File) -> str:
    """Docker's json-file log driver (and a kubelet on dockershim): one JSON object a line."""
    _cri(line, i, f)  # the same time as the CRI wrapper gives
    stamp = (f.last or f.reference).strftime("%Y-%m-%dT%H:%M:%S.%f")
    return json.dumps({"log": line + "\n", "stream": "stderr", "time": f"{stamp}000Z"})


def _any_timed(lines: list[str]) -> bool:
    return any(map(_timed, lines))


def _timed(line: str) -> bool:
    parsed = parse_line(line, _EPOCH)
    return parsed.at is not None or find_embedded_time(parsed.message) is not None


_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _nostamp(line: str, i: int, f: _File) -> str:
    parsed = parse_line(line, f.reference)
    if parsed.at is None and parsed.uptime_s is None:
        return line
    if parsed.via is not None:
        return line  # the time sits inside a forwarder's prefix (Ray's, pdsh's), kept whole
    return parsed.message if parsed.rank is None else f"[rank{parsed.rank}]: {parsed.message}"


def _mpirun(line: str, i: int, f: _File) -> str:
    """Open MPI's `--tag-output`: every line tagged with the rank of the process that wrote
    it (the line's own rank prefix, else the rank c10d names in it, `[Rank 6]`, else the last
    line's: one process's traceback stays one rank's)."""
    rank = parse_line(line, f.reference).rank
    if rank is None and (m := _C10D_RANK.search(line)) is not None:
        rank = int(m.group(1))
    if rank is not None:
        f.rank = rank
    return f"[1,{f.rank}]<stderr>:{line}"


_C10D_RANK = re.compile(r"\[Rank (\d{1,6})\]")


def _folding(width: int) -> Wrapper:
    def fold(line: str, i: int, f: _File) -> str:
        return "\n".join(line[k : k + width] for k in range(0, max(len(line), 1), width))

    return fold


def _wrapping_at(width: int) -> Wrapper:
    def wrap(line: str, i: int, f: _File) -> str:
        if len(line) <= width:
            return line
        return "\n".join(
            textwrap.wrap(line, width, break_on_hyphens=False, replace_whitespace=False)
        )

    return wrap


def _norank(line: str, i: int, f: _File) -> str:
    parsed = parse_line(line, f.reference)
    if parsed.rank is None:
        return line
    return (parsed.at.strftime("%Y-%m-%d %H:%M:%S ") if parsed.at else "") + parsed.message


WRAPPERS: dict[str, Wrapper] = {
    "cri": _cri,
    "dockerjson": _docker_json,
    "mpirun": _mpirun,
    "compose": lambda line, i, f: f"trainer-1  | {line}",
    "kubectl": lambda line, i, f: f"[pod/trainer-worker-0/pytorch] {line}",
    "pdsh": lambda line, i, f: f"{f.node}: {line}",
    "ansi": lambda line, i, f: f"\x1b[36m{line}\x1b[0m" if i % 2 else line,
    "ansipaste": lambda line, i, f: f"[36m{line}[0m" if i % 2 else line,
    "entities": lambda line, i, f: html.escape(line),
    "crlf": lambda line, i, f: line + "\r",
    "indent": lambda line, i, f: f"    {line}" if line else line,
    "nostamp": _nostamp,
    "norank": _norank,
    "fold80": _folding(80),
    "fold120": _folding(120),
    "wrap72": _wrapping_at(72),
    "wrap100": _wrapping_at(100),
    "blockquote": lambda line, i, f: "> " + line,
    "smartquotes": lambda line, i, f: line.replace("'", "\u2019").replace('"', "\u201d"),
    "nbsp": lambda line, i, f: line.replace("  ", "\u00a0 "),
}

# A variation rewrites a whole copy of a bundle; it returns the new name of every node (the
# same name where it keeps it), or None when it cannot keep this bundle's incident the same
# (or would leave it untouched): the bundle is skipped for it and counted.
Variation = Callable[[Path, Explanation], "dict[str, str] | None"]


def _wrapping(wrapper: Wrapper) -> Variation:
    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        reference = read_job(copy).started
        files = {p: p.read_text(errors="replace").splitlines() for p in sorted(copy.glob("logs/*"))}
        stamped = wrapper in (_cri, _docker_json)
        if stamped and before.job.running and not all(map(_any_timed, files.values())):
            return None  # a hang, and a file with no time: its CRI stamps would be made up
        for path, lines in files.items():
            state = _File(reference, path.stem)
            wrapped = (wrapper(line, i, state) for i, line in enumerate(lines))
            path.write_text("\n".join(wrapped) + "\n")
        return _same(before)

    return vary


def _same(before: Explanation) -> dict[str, str]:
    return {n: n for n in before.job.nodes}


def _ip_name(i: int, node: str) -> str:
    return f"ip-10-4-{i // 200 + 2}-{i % 200 + 3}"


def _gke_name(i: int, node: str) -> str:
    digest = hashlib.sha1(node.encode()).hexdigest()
    return f"gke-train-a3-pool-1-{digest[:8]}-{digest[8:12]}"


# a Slurm host list (`gpu-a[01-04,07]`) names nodes by a pattern a rename cannot follow
_HOSTLIST = re.compile(r"([A-Za-z][\w.-]*)\[\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*\]")


def _renaming(style: Callable[[int, str], str]) -> Variation:
    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        nodes = before.job.nodes
        names = {n: style(i, n) for i, n in enumerate(nodes)}
        files = [
            copy / "job.json",
            *sorted(copy.glob("logs/*.log")),
            *sorted(copy.glob("system/*.log")),
        ]
        texts = {f: f.read_text(errors="surrogateescape") for f in files}
        everything = "\n".join(texts.values())
        if any(n.isalpha() for n in nodes) or any(new in everything for new in names.values()):
            return None  # a name that is also a word, or a new name already there
        stems = {re.sub(r"\d+$", "", n) for n in nodes}
        if any(m.group(1) in stems for m in _HOSTLIST.finditer(everything)):
            return None
        pattern = re.compile(
            r"(?<![\w-])("
            + "|".join(re.escape(n) for n in sorted(nodes, key=len, reverse=True))
            + r")(?![\w-])"
        )
        for f, text in texts.items():
            f.write_text(pattern.sub(lambda m: names[m.group(1)], text), errors="surrogateescape")
        for folder in ("logs", "system"):
            for path in (copy / folder).glob("*.log"):
                path.rename(path.with_name(names[path.stem] + ".log"))
        return names

    return vary


def _qualifying(domain: str) -> Variation:
    """The scheduler names each node by its full domain name (Kubernetes on a cloud does:
    `ip-10-0-21-77.ec2.internal`); the lines keep the short host name the node prints."""

    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        nodes = before.job.nodes
        if any("." in n for n in nodes):
            return None
        names = {n: f"{n}.{domain}" for n in nodes}
        raw = json.loads((copy / "job.json").read_text())
        raw["nodes"] = [names[n] for n in raw["nodes"]]
        if "exit_codes" in raw:
            raw["exit_codes"] = {names[n]: c for n, c in raw["exit_codes"].items()}
        (copy / "job.json").write_text(json.dumps(raw, indent=2) + "\n")
        for folder in ("logs", "system"):
            for path in (copy / folder).glob("*.log"):
                path.rename(path.with_name(names[path.stem] + ".log"))
        return names

    return vary


def _reordering(order: Callable[[list[str]], list[str]]) -> Variation:
    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        raw = json.loads((copy / "job.json").read_text())
        nodes = order(list(raw["nodes"]))
        if nodes == raw["nodes"]:
            return None
        raw["nodes"] = nodes
        (copy / "job.json").write_text(json.dumps(raw, indent=2) + "\n")
        return _same(before)

    return vary


def _sparse(copy: Path, before: Explanation) -> dict[str, str] | None:
    """Only the lines the scanner reads (a finding, a telemetry or progress record), one line
    either side, and each file's first and last line (so its span in time stays the same)."""
    read: dict[str, set[int]] = {}
    for f in before.findings:
        if f.source is Source.LOGS and f.line > 0:
            read.setdefault(f.origin or f.node, set()).add(f.line)
    changed = False
    for path in sorted((copy / "logs").glob("*.log")):
        lines = path.read_text(errors="surrogateescape").splitlines()
        keep = set(read.get(path.stem, set()))
        keep |= {i for i, line in enumerate(lines, 1) if _is_record(line)}
        keep = {k + d for k in keep for d in (-1, 0, 1) if 1 <= k + d <= len(lines)}
        if len(keep) < len(lines):
            changed = True
            kept = (line for i, line in enumerate(lines, 1) if i in keep)
            path.write_text("\n".join(kept) + "\n", errors="surrogateescape")
    return _same(before) if changed else None


def _is_record(line: str) -> bool:
    return any(m in line for m in _RECORD_MARKERS)


_RECORD_MARKERS = tuple(m.decode() for m in (*TELEMETRY_MARKERS, *MARKERS, *EVIDENCE_MARKERS))


def _zoned(offset: timedelta) -> Variation:
    zone = timezone(offset)
    iso = re.compile(
        r"(?<![\w/.-])(\d{4}-\d{2}-\d{2})([T ])(\d{2}:\d{2}:\d{2})(\.\d{1,9})?"
        r"(Z|[+-]\d{2}:?\d{2})?(?![\d,:.])"
    )

    def shift(m: re.Match[str]) -> str:
        frac = m.group(4) or ""
        try:
            at = datetime.fromisoformat(
                f"{m.group(1)}T{m.group(3)}{(m.group(5) or 'Z').replace('Z', '+00:00')}"
            )
        except ValueError:
            return m.group(0)
        local = at.astimezone(zone)
        sign, hhmm = local.strftime("%z")[0], local.strftime("%z")[1:]
        return f"{local:%Y-%m-%d}{m.group(2)}{local:%H:%M:%S}{frac}{sign}{hhmm[:2]}:{hhmm[2:]}"

    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        changed = False
        for path in sorted((copy / "logs").glob("*.log")):
            text = path.read_text(errors="surrogateescape")
            new = iso.sub(shift, text)
            if new != text:
                changed = True
                path.write_text(new, errors="surrogateescape")
        return _same(before) if changed else None

    return vary


def _local(offset: timedelta) -> Variation:
    """Every log written in a zone `offset` from UTC without saying so: job.json, the
    scheduler's UTC record, moved back by `offset` (the same as every zone-less stamp moved
    forward). Skipped where a stamp says its zone (its instant would move) or the job's output
    holds telemetry records (epoch seconds: UTC whatever the zone)."""

    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        if any(a.progress_records for a in before.activity):
            return None
        reference = before.job.started
        for path in sorted([*(copy / "logs").glob("*.log"), *(copy / "system").glob("*.log")]):
            lines = path.read_text(errors="surrogateescape").splitlines()
            if any(says_zone(line, reference) for line in lines):
                return None
        job = json.loads((copy / "job.json").read_text())
        for key in ("started", "ended", "collected"):
            if job.get(key):
                at = datetime.fromisoformat(job[key].replace("Z", "+00:00")) - offset
                job[key] = at.astimezone(UTC).isoformat().replace("+00:00", "Z")
        (copy / "job.json").write_text(json.dumps(job, indent=2) + "\n")
        return _same(before)

    return vary


def _nosys(quiet: bool) -> Variation:
    """Drop the system log of every node with no hardware finding of its own (`quiet`: of
    every node whose system log gave no finding at all, so only filler goes)."""

    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        own = {f.node for f in before.findings if f.blame is Blame.HARDWARE}
        if quiet:
            own |= {f.origin or f.node for f in before.findings if f.source is Source.SYSTEM}
        dropped = [p for p in (copy / "system").glob("*.log") if p.stem not in own]
        for path in dropped:
            path.unlink()
        return _same(before) if dropped else None

    return vary


def _tail(keep: int) -> Variation:
    def vary(copy: Path, before: Explanation) -> dict[str, str] | None:
        changed = False
        for path in sorted((copy / "logs").glob("*.log")):
            lines = path.read_text(errors="surrogateescape").splitlines()
            if len(lines) > keep:
                changed = True
                path.write_text("\n".join(lines[-keep:]) + "\n", errors="surrogateescape")
        return _same(before) if changed else None

    return vary


def _combined(copy: Path, before: Explanation) -> dict[str, str] | None:
    """Every node's job log in the launching node's file, each line after pdsh's `<node>: `,
    as DeepSpeed's multi-node runner leaves them: merged in time order (a line without a time
    goes with the last time before it in its own file, as the runner printed it then); the
    other nodes have no job log. A hang is skipped: which node's output stopped is read from
    its own file."""
    paths = {p.stem: p for p in (copy / "logs").glob("*.log")}
    if before.job.running or len(paths) < 2:
        return None
    reference = before.job.started
    merged: list[tuple[datetime, int, int, str]] = []
    for order, node in enumerate(n for n in before.job.nodes if n in paths):
        last = reference
        text = paths[node].read_text(errors="surrogateescape")
        for i, line in enumerate(text.splitlines()):
            parsed = parse_line(line, reference)
            at = parsed.at or find_embedded_time(parsed.message)
            last = max(last, at) if at is not None else last
            merged.append((last, order, i, f"{node}: {line}"))
    first = next(n for n in before.job.nodes if n in paths)
    for path in paths.values():
        path.unlink()
    lines = [line for *_, line in sorted(merged)]
    paths[first].write_text("\n".join(lines) + "\n", errors="surrogateescape")
    return _same(before)


def _noexit(copy: Path, before: Explanation) -> dict[str, str] | None:
    """job.json without `exit_codes` (FORMAT.md makes it optional: a collector that read only
    the scheduler's final state)."""
    path = copy / "job.json"
    job = json.loads(path.read_text())
    if not job.pop("exit_codes", None):
        return None
    path.write_text(json.dumps(job, indent=2) + "\n")
    return _same(before)


VARIATIONS: dict[str, Variation] = {name: _wrapping(w) for name, w in WRAPPERS.items()} | {
    "rename": _renaming(_ip_name),
    "rename-gke": _renaming(_gke_name),
    "fqdn": _qualifying("cluster.internal"),
    "reorder": _reordering(lambda nodes: nodes[::-1]),
    "rotate": _reordering(lambda nodes: nodes[1:] + nodes[:1]),
    "sparse": _sparse,
    "tz": _zoned(timedelta(hours=8)),
    "tz-west": _zoned(timedelta(hours=-7)),
    "local": _local(timedelta(hours=8)),
    "local-west": _local(timedelta(hours=-5)),
    "nosys": _nosys(quiet=False),
    "nosys-quiet": _nosys(quiet=True),
    "tail": _tail(200),
    "combined": _combined,
    "noexit": _noexit,
}


def vary(
    bundle: Path, before: Explanation, name: str, catalog: Catalog, scanner: Scanner
) -> tuple[dict[str, str] | None, Verdict | None]:
    """Apply one variation to a copy of `bundle`: the node names it gave and the verdict, or
    (None, None) when the variation skips this bundle."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / bundle.name
        shutil.copytree(bundle, copy)
        names = VARIATIONS[name](copy, before)
        if names is None:
            return None, None
        return names, explain(copy, catalog, scanner).verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variations", nargs="*", help=", ".join(VARIATIONS))
    args = parser.parse_args()
    unknown = sorted(set(args.variations) - set(VARIATIONS))
    if unknown:
        parser.error(
            f"unknown variation(s) {', '.join(unknown)}: choose from {', '.join(VARIATIONS)}"
        )
    args.variations = args.variations or list(VARIATIONS)
    catalog = builtin_catalog()
    scanner = Scanner(catalog)
    right = []
    for bundle in sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file()):
        expected = json.loads((bundle / "expected.json").read_text())
        if expected.get("split") != "tune":
            continue
        before = explain(bundle, catalog, scanner)
        verdict = before.verdict
        if verdict.cause.value == expected["cause"] and sorted(verdict.suspect_nodes) == sorted(
            expected["suspect_nodes"]
        ):
            right.append((bundle, before))
    changed_any = False
    for name in args.variations:
        changed, skipped = [], 0
        for bundle, before in right:
            names, after = vary(bundle, before, name, catalog, scanner)
            if names is None or after is None:
                skipped += 1
                continue
            was = before.verdict
            suspects = tuple(sorted(names[n] for n in was.suspect_nodes))
            if (after.cause, tuple(sorted(after.suspect_nodes))) != (was.cause, suspects):
                changed.append(
                    f"  {bundle.name}: {was.cause.value}{list(suspects)} -> "
                    f"{after.cause.value}{list(after.suspect_nodes)}"
                )
        tried = len(right) - skipped
        line = f"{name:8s} {len(changed)}/{tried} right tune bundles change verdict"
        print(line + (f" ({skipped} skipped)" if skipped else ""))
        if changed:
            print("\n".join(changed))
        changed_any = changed_any or bool(changed)
    return 1 if changed_any else 0


if __name__ == "__main__":
    sys.exit(main())
