"""Slurm's answers -> records: `squeue`/`sinfo --json` and the one-line `scontrol show -o`.

`--json` is the primary transport: the openapi/v0.0.38 plugin in 22.05, the data_parser
plugins (v0.0.39 to v0.0.43) from 23.02 on, whose shapes `dataparser` reads. It ignores
`-j` and `-n` in 22.05, so callers filter. Where `--json` is missing, `scontrol show job|node
-o` is the fixed format: unlike `squeue -o`/`-O` (no format there has both a job's restart
count and its excluded nodes) and `sinfo -o` (`%T` folds MIXED+DRAIN and ALLOCATED+DRAIN
into "draining"), it carries every field of the records, so both transports give the same records.

`scontrol -o` prints `Key=value` pairs separated by spaces, but some values hold spaces
themselves (`Reason=xid 79 on gpu03 [root@...]`, `OS=Linux 6.1 #1 SMP ...`, comments). A value
runs to the next ` Key=` whose key looks like Slurm's (starts with a capital letter); inside
free-text fields only a key Slurm is known to print ends the value. Every parser here takes
arbitrary text and either returns records or raises `SlurmParseError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypedDict, TypeVar, cast

from autorecover.adapters.slurm import dataparser as dp
from autorecover.adapters.slurm.dataparser import NO_VAL as NO_VAL
from autorecover.adapters.slurm.dataparser import SlurmParseError as SlurmParseError
from autorecover.adapters.slurm.names import InvalidNameError, expand_hostlist
from autorecover.adapters.slurm.records import SlurmJob, SlurmNode
from autorecover.adapters.slurm.states import ENDED, JobPhase, job_phase

_KEY = re.compile(r"(?:(?<=\s)|^)([A-Z][A-Za-z0-9_]*(?:[:/][A-Za-z0-9_]+)*)=")
_REASON_SUFFIX = re.compile(r"\s*\[([^\[\]@]*)@([0-9T:-]+)\]\s*$")
_PATTERN = re.compile(r"%(\d{0,2})([A-Za-z%])")
FREE_TEXT = frozenset(
    {"Comment", "AdminComment", "SystemComment", "Reason", "OS", "JobName", "Command", "WorkDir",
     "StdOut", "StdErr", "StdIn", "Features", "ActiveFeatures", "AvailableFeatures"}
)  # fmt: skip
# Keys scontrol 22.05 prints for jobs and nodes (recorded): these end a free-text value.
_KNOWN = """JobId ArrayJobId ArrayTaskId ArrayTaskThrottle JobName UserId GroupId MCS_label Priority
    Nice Account QOS JobState Reason Dependency Requeue Restarts BatchFlag Reboot ExitCode
    DerivedExitCode RunTime TimeLimit TimeMin SubmitTime EligibleTime AccrueTime StartTime
    EndTime Deadline SuspendTime SecsPreSuspend LastSchedEval Scheduler Partition AllocNode:Sid
    ReqNodeList ExcNodeList NodeList BatchHost NumNodes NumCPUs NumTasks CPUs/Task ReqB:S:C:T
    TRES Socks/Node NtasksPerN:B:S:C CoreSpec MinCPUsNode MinMemoryNode MinMemoryCPU
    MinTmpDiskNode Features DelayBoot OverSubscribe Contiguous Licenses Network Command WorkDir
    Comment AdminComment SystemComment StdErr StdIn StdOut Power TresPerNode TresPerJob
    TresPerTask MailUser MailType CpusPerTres MemPerTres Prefer ReservationName
    NodeName Arch CoresPerSocket CPUAlloc CPUEfctv CPUTot CPULoad AvailableFeatures
    ActiveFeatures Gres GresDrain GresUsed NodeAddr NodeHostName Port Version OS RealMemory
    AllocMem FreeMem Sockets Boards State ThreadsPerCore TmpDisk Weight Owner Partitions
    BootTime SlurmdStartTime LastBusyTime CfgTRES AllocTRES CapWatts CurrentWatts AveWatts
    ExtSensorsJoules ExtSensorsWatts ExtSensorsTemp NextState ResumeAfterTime"""
KNOWN_KEYS = frozenset(_KNOWN.split())


# --- raw JSON at the edge: only the fields we read ------------------------------------------
# 22.05 (openapi/v0.0.38) prints plain values; data_parser v0.0.39+ (23.02 on) wraps numbers in
# `Number` objects and lists states: `dataparser` reads both.


class Number(TypedDict):
    """data_parser's number that may be unset or unlimited."""

    set: bool
    infinite: bool
    number: int


class JobJson(TypedDict, total=False):
    """One entry of `squeue --json`'s (or `scontrol show job --json`'s) `jobs`."""

    job_id: int
    name: str
    user_name: str
    job_state: str | list[str]  # a list from v0.0.40: ["PENDING", "REQUEUED"]
    state_reason: str
    state_description: str
    nodes: str
    excluded_nodes: str
    required_nodes: str
    batch_host: str
    node_count: int | Number
    restart_cnt: int
    requeue: bool
    batch_flag: bool
    comment: str
    admin_comment: str
    partition: str
    current_working_directory: str
    standard_output: str
    standard_error: str
    exit_code: int | Number | dict[str, Any]  # v0.0.40+: {"status", "return_code", "signal"}
    time_limit: int | Number | None
    submit_time: int | Number
    eligible_time: int | Number
    start_time: int | Number
    end_time: int | Number
    array_job_id: int | Number
    array_task_id: int | Number | None


class NodeJson(TypedDict, total=False):
    """One entry of `sinfo --json`'s (22.05) or `scontrol show node --json`'s `nodes`."""

    name: str
    state: str | list[str]  # a list from v0.0.39: ["MIXED", "DRAIN"]
    state_flags: list[str]  # 22.05 only
    reason: str
    reason_set_by_user: str | None
    reason_changed_at: int | Number
    gres: str
    address: str
    hostname: str
    port: int
    partitions: list[str]
    cpus: int
    alloc_cpus: int
    boot_time: int | Number
    slurmd_start_time: int | Number


_T = TypeVar("_T")


def _json_doc(text: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise SlurmParseError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise SlurmParseError("JSON answer is not an object")
    errors = doc.get("errors")
    if isinstance(errors, list) and errors:
        raise SlurmParseError(f"Slurm reported errors: {errors!r:.300}")
    return doc


def _json_items(doc: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    items = doc.get(key)
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise SlurmParseError(f"JSON answer has no list of {key}")
    return items


def _get(raw: Mapping[str, Any], key: str, kind: type[_T], default: _T) -> _T:
    value = raw.get(key, default)
    if value is None:
        return default
    if kind is int and isinstance(value, bool):
        raise SlurmParseError(f"field {key!r}: expected a number, got {value!r:.60}")
    if not isinstance(value, kind):
        raise SlurmParseError(f"field {key!r}: expected {kind.__name__}, got {value!r:.60}")
    return value


def _epoch(value: int) -> datetime | None:
    if value <= 0 or value >= NO_VAL:
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        raise SlurmParseError(f"not a time: {value}") from None


def _ended(state: str, reason: str, end: datetime | None) -> datetime | None:
    """The end time of a job that has ended; Slurm's expected end of a running one is not."""
    phase = job_phase(state, reason)
    return end if phase in ENDED or phase in (JobPhase.COMPLETING, JobPhase.REQUEUEING) else None


def _hosts(expr: str) -> tuple[str, ...]:
    try:
        return expand_hostlist(expr)
    except InvalidNameError as exc:
        raise SlurmParseError(str(exc)) from None


def _records(items: list[dict[str, Any]], build: Callable[[dict[str, Any]], _T]) -> list[_T]:
    try:
        return [build(item) for item in items]
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, SlurmParseError):
            raise
        raise SlurmParseError(f"unexpected field value: {exc}") from None


def parse_squeue_json(text: str) -> list[SlurmJob]:
    """Every job in a `squeue --json` answer."""
    return _records(_json_items(_json_doc(text), "jobs"),
                    lambda raw: _job_from_json(cast(JobJson, raw)))  # fmt: skip


def _job_from_json(raw: JobJson) -> SlurmJob:
    r = cast(Mapping[str, Any], raw)
    job_id = str(dp.number(r, "job_id", 0))
    name = _get(r, "name", str, "")
    user = _get(r, "user_name", str, "")
    array_job = dp.number(r, "array_job_id", 0)
    array_task = dp.number(r, "array_task_id", NO_VAL)
    is_array = array_job not in (0, NO_VAL, dp.INFINITE) and array_task < NO_VAL
    work_dir = _get(r, "current_working_directory", str, "")
    fields = {"j": job_id, "x": name, "u": user}
    fields["A"] = str(array_job) if is_array else job_id
    fields["a"] = str(array_task) if is_array else str(NO_VAL)
    default = "slurm-%A_%a.out" if is_array else "slurm-%j.out"
    stdout = _output_path(_get(r, "standard_output", str, "") or default, work_dir, fields)
    stderr_pattern = _get(r, "standard_error", str, "")
    stderr = _output_path(stderr_pattern, work_dir, fields) if stderr_pattern else stdout
    exit_status, exit_signal = dp.exit_code(r)
    limit = dp.number(r, "time_limit", NO_VAL)
    state = dp.job_state(r).upper()
    # scontrol shows the description where there is one, its spaces as underscores.
    description = _get(r, "state_description", str, "").replace(" ", "_")
    reason = description or _get(r, "state_reason", str, "None")
    return SlurmJob(
        job_id=job_id,
        name=name,
        user=user,
        state=state,
        reason=reason,
        nodes=_hosts(_get(r, "nodes", str, "")),
        excluded=_hosts(_get(r, "excluded_nodes", str, "")),
        required=_hosts(_get(r, "required_nodes", str, "")),
        batch_host=_get(r, "batch_host", str, ""),
        node_count=_count(dp.number(r, "node_count", 0)),
        restarts=_count(dp.number(r, "restart_cnt", 0)),
        requeue=_get(r, "requeue", bool, False),
        batch=_get(r, "batch_flag", bool, False),
        comment=_get(r, "comment", str, ""),
        admin_comment=_get(r, "admin_comment", str, ""),
        partition=_get(r, "partition", str, ""),
        work_dir=work_dir,
        stdout=stdout,
        stderr=stderr,
        exit_status=exit_status,
        exit_signal=exit_signal,
        time_limit_min=None if limit >= NO_VAL or limit < 0 else limit,
        submit_time=_epoch(dp.number(r, "submit_time", 0)),
        eligible_time=_epoch(dp.number(r, "eligible_time", 0)),
        start_time=_epoch(dp.number(r, "start_time", 0)),
        end_time=_ended(state, reason, _epoch(dp.number(r, "end_time", 0))),
        array_job_id=str(array_job) if is_array else "",
        array_task_id=str(array_task) if is_array else "",
    )


def _count(value: int) -> int:
    return 0 if value >= NO_VAL else value


def parse_sinfo_json(text: str) -> list[SlurmNode]:
    """Every node in a `sinfo --json` (22.05) or `scontrol show node --json` (23.02+) answer.

    From 23.02 `sinfo --json` prints sinfo's grouped lines under `sinfo`, not one entry per
    node: that raises `GroupedSinfoError`, and the reader asks `scontrol show node --json`.
    """
    doc = _json_doc(text)
    if "nodes" not in doc and isinstance(doc.get("sinfo"), list):
        raise GroupedSinfoError("sinfo --json lists grouped lines (Slurm 23.02+), not nodes")
    return _records(_json_items(doc, "nodes"),
                    lambda raw: _node_from_json(cast(NodeJson, raw)))  # fmt: skip


class GroupedSinfoError(SlurmParseError):
    """`sinfo --json` answered in the grouped form of 23.02+: ask `scontrol show node --json`."""


def _node_from_json(raw: NodeJson) -> SlurmNode:
    r = cast(Mapping[str, Any], raw)
    base, flags = dp.node_state(r)
    partitions = dp.string_list(r, "partitions")
    reason = _get(r, "reason", str, "")
    port = dp.number(r, "port", 0)
    return SlurmNode(
        name=_get(r, "name", str, ""),
        state=base,
        flags=frozenset(f.upper() for f in flags),
        reason=reason,
        reason_user=(_get(r, "reason_set_by_user", str, "") if reason else ""),
        reason_at=_epoch(dp.number(r, "reason_changed_at", 0)) if reason else None,
        gres=_get(r, "gres", str, ""),
        address=_get(r, "address", str, ""),
        hostname=_get(r, "hostname", str, ""),
        port=port if 0 < port < NO_VAL else None,
        partitions=tuple(partitions),
        cpus=_count(dp.number(r, "cpus", 0)),
        alloc_cpus=_count(dp.number(r, "alloc_cpus", 0)),
        boot_time=_epoch(dp.number(r, "boot_time", 0)),
        slurmd_start_time=_epoch(dp.number(r, "slurmd_start_time", 0)),
    )


# --- scontrol show -o ----------------------------------------------------------------------


def parse_oneliner(line: str) -> dict[str, str]:
    """One `scontrol show -o` line as a dict of its `Key=value` pairs (values stripped)."""
    found = [(m.start(), m.end(), m.group(1)) for m in _KEY.finditer(line)]
    out: dict[str, str] = {}
    i = 0
    while i < len(found):
        _, value_start, key = found[i]
        j = i + 1
        if key in FREE_TEXT:
            while j < len(found) and found[j][2] not in KNOWN_KEYS:
                j += 1
        end = found[j][0] if j < len(found) else len(line)
        out.setdefault(key, line[value_start:end].strip())
        i = j
    return out


def _lines(text: str, first_key: str) -> list[dict[str, str]]:
    out = []
    for line in text.splitlines():
        if not line.strip() or line.startswith(("No jobs in the system", "No nodes in the system")):
            continue
        pairs = parse_oneliner(line)
        if first_key not in pairs:
            raise SlurmParseError(f"not a `scontrol show -o` line: {line!r:.120}")
        out.append(pairs)
    return out


def _null(value: str) -> str:
    return "" if value in ("(null)", "N/A", "None") else value


def _int(value: str, default: int = 0) -> int:
    value = value.strip()
    if not value or value in ("(null)", "N/A"):
        return default
    head = value.split("-")[0]  # NumNodes=2-2: the minimum
    if not head.isdigit():
        raise SlurmParseError(f"not a number: {value!r:.40}")
    return int(head)


def _local_time(value: str) -> datetime | None:
    if value in ("", "Unknown", "None", "N/A", "(null)"):
        return None
    try:
        naive = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        raise SlurmParseError(f"not a time: {value!r:.40}") from None
    return naive.astimezone(UTC)  # scontrol prints the controller host's local time


def _minutes(value: str) -> int | None:
    """`TimeLimit=UNLIMITED|[D-]HH:MM:SS|MM:SS` as whole minutes (None: unlimited)."""
    if value in ("UNLIMITED", "Partition_Limit", "", "NONE"):
        return None
    days = 0
    if "-" in value:
        d, _, value = value.partition("-")
        days = _int(d)
    parts = [_int(p) for p in value.split(":")]
    if len(parts) == 3:
        hours, minutes, seconds = parts
    elif len(parts) == 2:
        hours, minutes, seconds = 0, parts[0], parts[1]
    else:
        raise SlurmParseError(f"not a time limit: {value!r:.40}")
    total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    return (total + 59) // 60


def parse_scontrol_jobs(text: str) -> list[SlurmJob]:
    """Every job in `scontrol show job -o` output."""
    return _records(_lines(text, "JobId"), _job_from_pairs)


def _job_from_pairs(p: dict[str, str]) -> SlurmJob:
    code, _, signal = p.get("ExitCode", "0:0").partition(":")
    array_job = _null(p.get("ArrayJobId", ""))
    work_dir = _null(p.get("WorkDir", ""))
    stdout = _null(p.get("StdOut", ""))
    state = p.get("JobState", "UNKNOWN").upper()
    reason = p.get("Reason", "None")
    return SlurmJob(
        job_id=str(_int(p["JobId"])),
        name=_null(p.get("JobName", "")),
        user=p.get("UserId", "").split("(")[0],
        state=state,
        reason=reason,
        nodes=_hosts(_null(p.get("NodeList", ""))),
        excluded=_hosts(_null(p.get("ExcNodeList", ""))),
        required=_hosts(_null(p.get("ReqNodeList", ""))),
        batch_host=_null(p.get("BatchHost", "")),
        node_count=_int(p.get("NumNodes", "0")),
        restarts=_int(p.get("Restarts", "0")),
        requeue=p.get("Requeue", "0") == "1",
        batch=p.get("BatchFlag", "0") == "1",
        comment=_null(p.get("Comment", "")),
        admin_comment=_null(p.get("AdminComment", "")),
        partition=_null(p.get("Partition", "")),
        work_dir=work_dir,
        stdout=stdout,
        stderr=_null(p.get("StdErr", "")) or stdout,
        exit_status=_int(code),
        exit_signal=_int(signal),
        time_limit_min=_minutes(p.get("TimeLimit", "UNLIMITED")),
        submit_time=_local_time(p.get("SubmitTime", "")),
        eligible_time=_local_time(p.get("EligibleTime", "")),
        start_time=_local_time(p.get("StartTime", "")),
        end_time=_ended(state, reason, _local_time(p.get("EndTime", ""))),
        array_job_id=array_job,
        array_task_id=_null(p.get("ArrayTaskId", "")) if array_job else "",
    )


def parse_scontrol_nodes(text: str) -> list[SlurmNode]:
    """Every node in `scontrol show node -o` output."""
    return _records(_lines(text, "NodeName"), _node_from_pairs)


def split_reason(value: str) -> tuple[str, str, datetime | None]:
    """`xid 79 [root@2026-11-29T21:08:21]` -> ("xid 79", "root", time)."""
    m = _REASON_SUFFIX.search(value)
    if m is None:
        return _null(value), "", None
    return value[: m.start()].strip(), m.group(1), _local_time(m.group(2))


def _node_from_pairs(p: dict[str, str]) -> SlurmNode:
    base, *flags = p.get("State", "UNKNOWN").split("+")
    reason, user, at = split_reason(p.get("Reason", ""))
    partitions = _null(p.get("Partitions", ""))
    return SlurmNode(
        name=p["NodeName"],
        state=base.rstrip("*~#%$@!^-").lower() or "unknown",
        flags=frozenset(f.upper() for f in flags if f),
        reason=reason,
        reason_user=user if reason else "",
        reason_at=at if reason else None,
        gres=_null(p.get("Gres", "")),
        address=_null(p.get("NodeAddr", "")),
        hostname=_null(p.get("NodeHostName", "")),
        port=_int(p.get("Port", "0")) or None,
        partitions=tuple(x for x in partitions.split(",") if x),
        cpus=_int(p.get("CPUTot", "0")),
        alloc_cpus=_int(p.get("CPUAlloc", "0")),
        boot_time=_local_time(p.get("BootTime", "")),
        slurmd_start_time=_local_time(p.get("SlurmdStartTime", "")),
    )


# --- output paths --------------------------------------------------------------------------


def _output_path(pattern: str, work_dir: str, fields: Mapping[str, str]) -> str:
    path = expand_output_pattern(pattern, fields)
    if work_dir and not path.startswith("/"):
        path = f"{work_dir.rstrip('/')}/{path}"
    return path


def expand_output_pattern(pattern: str, fields: Mapping[str, str]) -> str:
    """Fill the `%` fields Slurm knows per job (`%j %x %u %A %a %%`), as `scontrol` shows them.

    Per-node and per-task fields (`%N %n %t %s %J`) are left as they are. A width
    (`%4j`) pads numbers with zeros.
    """

    def fill(m: re.Match[str]) -> str:
        width, key = m.group(1), m.group(2)
        if key == "%":
            return "%"
        value = fields.get(key)
        if value is None:
            return m.group(0)
        if width and value.isdigit():
            return value.zfill(int(width))
        return value

    return _PATTERN.sub(fill, pattern)
