"""Incident bundles on disk: read and validate them, scan their logs, explain them.

A bundle is `job.json` plus `logs/<node>.log` and `system/<node>.log` (see
docs/incident-bundles.md). Malformed input raises `BundleError` naming the file and field.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

from autorecover.adapters.files import UnreadableError, open_regular, read_text
from autorecover.domain.attribution import attribute
from autorecover.domain.catalog import Catalog
from autorecover.domain.hangs import HangLocation, RankStack, locate, stack_findings
from autorecover.domain.history import Attempt, parse_history
from autorecover.domain.records import Activity, Finding, JobRecord, Source, Verdict
from autorecover.domain.zones import (
    LocalTime,
    in_utc,
    job_log_offset,
    same_zone,
    system_log_offset,
    wrong_in_utc,
)
from autorecover.parsing.dockerjson import from_docker_json
from autorecover.parsing.lines import says_zone
from autorecover.parsing.pasting import uncoloured, unpasted
from autorecover.parsing.scanning import Scanner
from autorecover.parsing.stacks import rank_stack
from autorecover.parsing.telemetry_evidence import (
    EVIDENCE_MARKERS,
    record_findings,
    records_in,
    replacing,
)
from autorecover.parsing.unwrapping import rejoin

SCHEDULERS = ("slurm", "kubernetes")
_NODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")
_JOB_FIELDS = {
    "scheduler", "job", "nodes", "started", "ended", "collected", "state", "exit_codes", "history",
}  # fmt: skip


MAX_JOB_BYTES = 1 << 20  # job.json is a few hundred bytes; a megabyte is not one
MAX_REJOIN_BYTES = 4 << 20  # the largest file read as pasted output (quotes, broken lines)


class BundleError(ValueError):
    """A bundle cannot be read; the message names the file and, where known, the field."""


@dataclass(frozen=True, slots=True)
class Explanation:
    """A bundle's verdict with everything needed to show it."""

    bundle: Path
    job: JobRecord
    verdict: Verdict
    findings: tuple[Finding, ...]
    activity: tuple[Activity, ...]
    repeats: tuple[tuple[str, str, int], ...] = ()  # node, signal, lines beyond those kept
    hang: HangLocation | None = None  # where the ranks' hang stacks place the stall
    local_times: tuple[LocalTime, ...] = ()  # files read in a zone other than UTC


def explain(bundle: Path, catalog: Catalog, scanner: Scanner | None = None) -> Explanation:
    """Read a bundle, scan every file and attribute the failure."""
    job = read_job(bundle)
    scanner = scanner or Scanner(catalog)
    scanned: list[_Scanned] = []
    files_read: list[Activity | _Scanned] = []  # in the order read: activity keeps it
    stacks: list[RankStack] = []
    for source in (Source.LOGS, Source.SYSTEM):
        files = _node_files(bundle, source, job)
        for node in job.nodes:
            path = files.get(node)
            if path is None:
                files_read.append(Activity(node=node, source=source, present=False))
                continue
            try:
                stream = _opened(path, scanner)
            except UnreadableError as exc:
                raise BundleError(str(exc)) from None
            with stream:
                try:
                    result = scanner.scan(
                        stream, node=node, source=source, reference=job.started, hosts=job.nodes
                    )
                except OSError as exc:
                    raise BundleError(f"{path}: cannot read: {exc.strerror or exc}") from None
            found = list(result.findings)
            telemetry = source is Source.LOGS and result.activity.progress_records > 0
            if telemetry:
                rank_stacks, records = _telemetry(path, node, scanner)
                stacks.extend(rank_stacks)
                found = replacing(found, records)
            scanned.append(_Scanned(path, result.activity, found, result.repeats, telemetry))
            files_read.append(scanned[-1])
    local = _local_times(job, scanned)
    findings: list[Finding] = []
    activity: list[Activity] = []
    repeats: list[tuple[str, str, int]] = []
    for file in files_read:
        if isinstance(file, Activity):
            activity.append(file)
            continue
        zone = local.get((file.activity.node, file.activity.source))
        seen, found = (
            in_utc(file.activity, file.findings, zone.offset)
            if zone is not None
            else (file.activity, file.findings)
        )
        findings.extend(found)
        activity.append(seen)
        repeats.extend((seen.node, signal, n) for signal, n in file.repeats)
    hang = locate(stacks)
    if hang is not None:
        findings.extend(stack_findings(hang))
    rules = {n: e.rules for n, e in catalog.xids.items() if e.rules}
    verdict = attribute(job, findings, activity, rules, read_history(bundle))
    return Explanation(
        bundle, job, verdict, tuple(findings), tuple(activity), tuple(repeats), hang,
        tuple(local.values()),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Scanned:
    """One file's scan, before its times are settled."""

    path: Path
    activity: Activity
    findings: list[Finding]
    repeats: tuple[tuple[str, int], ...]
    telemetry: bool  # it holds telemetry records (their times are epoch seconds: UTC)


def _local_times(job: JobRecord, scanned: list[_Scanned]) -> dict[tuple[str, Source], LocalTime]:
    """The files written in local time (`domain.zones`): system logs whose own line saying the
    job started on the node is at its start in one zone (the nodes' clocks: the surest edge),
    else job logs whose edges are the job's in one zone (a log that is only a tail can fit a
    wrong zone by its first stamp); then, when they agree on it, every other file that reads
    right only in it."""
    candidates = [f for f in scanned if not f.telemetry and wrong_in_utc(job, f.activity)]

    def placed(
        offset_of: Callable[[_Scanned], timedelta | None],
    ) -> dict[tuple[str, Source], LocalTime]:
        out: dict[tuple[str, Source], LocalTime] = {}
        for file in candidates:
            a = file.activity
            offset = offset_of(file)
            if offset is not None and _zone_free(file.path, job):
                out[(a.node, a.source)] = LocalTime(a.node, a.source, offset)
        return out

    local = placed(lambda f: system_log_offset(job, f.activity, f.findings)) or placed(
        lambda f: job_log_offset(job, f.activity)
    )
    offsets = {zone.offset for zone in local.values()}
    if len(offsets) != 1:
        return {}  # nothing placed, or the nodes or the job's output in several zones: none moved
    offset = offsets.pop()
    for file in candidates:
        a = file.activity
        key = (a.node, a.source)
        if key not in local and same_zone(job, a, offset) and _zone_free(file.path, job):
            local[key] = LocalTime(a.node, a.source, offset)
    return local


ZONE_PEEK_BYTES = 64 << 10  # a file's first stamped line is in its first lines


def _zone_free(path: Path, job: JobRecord) -> bool:
    """Whether the file's first stamped line carries no zone (so may be local time)."""
    try:
        with open_regular(path) as stream:
            head = stream.read(ZONE_PEEK_BYTES)
    except (OSError, UnreadableError):
        return False
    lines = head.decode("utf-8", errors="replace").splitlines()
    if len(head) == ZONE_PEEK_BYTES:
        lines = lines[:-1]  # cut short by the peek
    for line in lines:
        zoned = says_zone(line, job.started)
        if zoned is not None:
            return not zoned
    return False


def _opened(path: Path, scanner: Scanner) -> BinaryIO:
    """A bundle file to scan, Docker's json-file records read as CRI ones (parsing.dockerjson),
    with what pasting does undone (typographic quotes, a quote marker
    on every line: parsing.pasting) and its messages broken at a width rejoined where that
    reads as something (parsing.unwrapping); a file over `MAX_REJOIN_BYTES` is read as it is
    (output pasted from a terminal or a mail is far smaller; a collector's large log is not
    pasted)."""
    stream = open_regular(path)
    try:
        if os.fstat(stream.fileno()).st_size > MAX_REJOIN_BYTES:
            return stream
        data = stream.read()
    except OSError as exc:
        stream.close()
        raise UnreadableError(f"{path}: cannot read: {exc.strerror or exc}") from None
    stream.close()
    text = data.decode("utf-8", errors="surrogateescape")
    read = uncoloured(rejoin(unpasted(from_docker_json(text)), scanner.readings))
    return io.BytesIO(data if read is text else read.encode("utf-8", errors="surrogateescape"))


def _telemetry(path: Path, node: str, scanner: Scanner) -> tuple[list[RankStack], list[Finding]]:
    """The rank stacks of a node's hang records and the findings of its telemetry records
    (read again: they are rare and long)."""
    stacks: list[RankStack] = []
    findings: list[Finding] = []

    def take(data: bytes, base: int) -> None:
        records = list(records_in(data, base, EVIDENCE_MARKERS))
        stacks.extend(s for n, r in records if (s := rank_stack(node, n, r)) is not None)
        findings.extend(record_findings(scanner, node, records))

    try:
        with open_regular(path) as stream:
            carry, base = b"", 0
            while block := stream.read(4 << 20):
                data = carry + block
                end = data.rfind(b"\n") + 1
                whole, carry = data[:end], data[end:]
                take(whole, base)
                base += whole.count(b"\n")
            take(carry, base)
    except (UnreadableError, OSError) as exc:
        raise BundleError(f"{path}: cannot read: {exc}") from None
    return stacks, findings


def read_history(bundle: Path) -> tuple[Attempt, ...]:
    """The optional `history` of `job.json` (earlier attempts' verdicts, oldest first)."""
    path = bundle / "job.json"
    try:
        raw = json.loads(read_text(path, MAX_JOB_BYTES))
    except (UnreadableError, json.JSONDecodeError) as exc:
        raise BundleError(f"{path}: {exc}") from None
    try:
        return parse_history(raw.get("history") if isinstance(raw, dict) else None)
    except ValueError as exc:
        raise BundleError(f"{path}: field {exc}") from None


def read_job(bundle: Path) -> JobRecord:
    """Parse and validate `job.json`."""
    path = bundle / "job.json"
    if not bundle.is_dir():
        raise BundleError(f"{bundle}: not a directory")
    if not path.exists() and not path.is_symlink():
        raise BundleError(f"{path}: missing (every bundle needs job.json)")
    try:
        text = read_text(path, MAX_JOB_BYTES)
    except UnreadableError as exc:
        raise BundleError(str(exc)) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(raw, dict):
        raise BundleError(f"{path}: must hold a JSON object")
    return _job_from(raw, path, text)


def _job_from(raw: dict[str, Any], path: Path, text: str) -> JobRecord:
    unknown = sorted(set(raw) - _JOB_FIELDS)
    if unknown:
        raise BundleError(f"{path}: field {unknown[0]!r}: unknown field")
    scheduler = _field(raw, "scheduler", str, path)
    if scheduler not in SCHEDULERS:
        raise BundleError(f"{path}: field 'scheduler': {scheduler!r} is not one of {SCHEDULERS}")
    job = _field(raw, "job", str, path)
    nodes = _field(raw, "nodes", list, path)
    if not nodes:
        raise BundleError(f"{path}: field 'nodes': lists no node")
    for i, node in enumerate(nodes):
        if not isinstance(node, str) or not _NODE.fullmatch(node):
            raise BundleError(f"{path}: field 'nodes[{i}]': {node!r} is not a valid node name")
    if len(set(nodes)) != len(nodes):
        raise BundleError(f"{path}: field 'nodes': lists a node twice")
    started = _time(raw, "started", path)
    ended = None if raw.get("ended") is None else _time(raw, "ended", path)
    collected = _time(raw, "collected", path)
    state = _field(raw, "state", str, path)
    codes = raw.get("exit_codes", {})
    if not isinstance(codes, dict):
        raise BundleError(f"{path}: field 'exit_codes': must be an object of node: code")
    exit_codes = []
    for node, code in codes.items():
        if node not in nodes:
            raise BundleError(f"{path}: field 'exit_codes.{node}': not a node of the job")
        if not isinstance(code, int) or isinstance(code, bool):
            raise BundleError(f"{path}: field 'exit_codes.{node}': must be an integer")
        exit_codes.append((node, code))
    if ended is not None and ended < started:
        raise BundleError(f"{path}: field 'ended': before 'started'")
    state_line = next((i for i, ln in enumerate(text.splitlines(), 1) if '"state"' in ln), 1)
    return JobRecord(
        scheduler=scheduler,
        job=job,
        nodes=tuple(nodes),
        started=started,
        ended=ended,
        collected=collected,
        state=state,
        exit_codes=tuple(exit_codes),
        state_line=state_line,
    )


def _field(raw: dict[str, Any], name: str, kind: type, path: Path) -> Any:
    if name not in raw:
        raise BundleError(f"{path}: field {name!r}: missing")
    value = raw[name]
    if not isinstance(value, kind):
        raise BundleError(f"{path}: field {name!r}: must be a {kind.__name__}, not {value!r}")
    return value


def _time(raw: dict[str, Any], name: str, path: Path) -> datetime:
    value = _field(raw, name, str, path)
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BundleError(f"{path}: field {name!r}: {value!r} is not an ISO-8601 time") from None
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _node_files(bundle: Path, source: Source, job: JobRecord) -> dict[str, Path]:
    folder = bundle / str(source)
    if not folder.exists():
        return {}
    if not folder.is_dir():
        raise BundleError(f"{folder}: must be a directory of <node>.log files")
    files: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix != ".log":
            raise BundleError(f"{path}: unexpected file (expected <node>.log)")
        node = path.stem
        if node not in job.nodes:
            raise BundleError(f"{path}: log for node {node!r}, which job.json does not list")
        files[node] = path
    return files


def find_bundles(root: Path) -> list[Path]:
    """The bundle itself if `root` holds job.json, else each subdirectory, sorted."""
    if (root / "job.json").exists():
        return [root]
    if not root.is_dir():
        raise BundleError(f"{root}: no such bundle or directory")
    return sorted(p for p in root.iterdir() if p.is_dir())
