"""One log line: its timestamp, host and rank prefixes, and the message left behind.

Every format an incident bundle may hold is recognised here: syslog/journal
(`Mar  2 11:41:58 host kernel: ...`, `journalctl -o short-full`'s `Mon 2026-03-02 11:41:58 UTC
host kernel: ...`), `dmesg -T` (`[Mon Mar  2 11:41:58 2026] ...`), plain `dmesg` (`[ 1843.308145]
...`, seconds since boot), `dmesg -H` (`[Mar  2 11:41] ...`, then `[  +0.000123] ...`),
`dmesg -x`'s and `-r`'s level before them (`kern  :err   : `, `<3>`), ISO-8601 and Python
logging stamps,
glog-style torch lines (`E0302 11:41:57.185000 ...`, `[E302 11:41:53.327 ...]`), vLLM's logger
(`INFO 03-02 11:41:58 [file.py:12] ...`; SkyPilot's `I 03-02 ...`), Go's `log` (`2026/03/02
11:41:58 ...`, also in brackets as Python loggers print it), Hugging Face's example scripts
(`03/02/2026 11:41:58 - INFO - ...`), TensorRT's (`[03/02/2026-11:41:58] [TRT-LLM] ...`),
detectron2's and mmengine's (`[03/02 11:41:58 d2.engine]: `, `03/02 11:41:58 - mmengine - `, no
year), lingua's (`INFO    26-03-02 11:41:58.123456 - 0:00:05 - `), the Neuron runtime's
(`2026-Mar-02 11:41:58.123456`), lm-evaluation-harness's (`2026-03-02:11:41:58,123`), DAOS's
(`03/02-11:41:58.12`), `date` in UTC (`Mon Mar  2 11:41:58 UTC 2026`), `srun -l`
rank prefixes (`3: `), torchrun's `[rank3]:` / `[default3]:`, Lightning's `[rank: 3]`, Ray's
`(Worker pid=N, ip=A)` (`(Worker pid=N)` on the driver's node), and the wrappers that
collectors put around a program's own line:
Open MPI's `--tag-output` (`[1,3]<stderr>:`) and `--timestamp-output` (`ctime()` before the
tag, `Fri Sep 28 11:14:00 2018[1,3]<stderr>:`; ORTE's iof_base_output.c), horovodrun's gloo
launcher (`[3]<stderr>:`, with `--prefix-timestamp` an `asctime()` before it; Horovod's
safe_shell_exec.py), docker compose's `trainer-1  | `, `kubectl logs --prefix`
(`[pod/<pod>/<container>] `), pdsh's and clush's `<host>: ` (before a prefix or line shape only;
the host is where the line ran, like Ray's address), and a
container runtime's CRI log format (`<RFC 3339 time> stderr F `). Prefixes nest
(`<CRI time> stderr F 3: [rank3]: ...`): they are taken off in turn; the outermost time
wins (a collector's stamp has a zone, a program's often does not).
Times without a zone are UTC; stamps without a year take the year that puts them nearest a
reference time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}

_SRUN = re.compile(r"(\s{0,6}\d{1,6}): ")
_TORCHRUN = re.compile(r"\[(?:rank|default)(\d{1,6})\]: ?|\[rank: (\d{1,6})\] ")
# Open MPI's `mpirun --tag-output`: [jobid,rank]<stream>:
_MPIRUN = re.compile(r"\[\d{1,6},(\d{1,6})\]<(?:stdout|stderr|stddiag)>: ?")
# horovodrun's gloo launcher: [rank]<stream>: ; Open MPI with a timestamp and no tag: <stream>:
_HOROVOD = re.compile(r"\[(\d{1,6})\]<(?:stdout|stderr)>: ?")
_STREAM_TAG = re.compile(r"<(?:stdout|stderr|stddiag)>: ?")
# ctime()/asctime() put before those tags (no zone: read as UTC, like any zoneless stamp)
_CTIME = re.compile(
    r"[A-Z][a-z]{2} ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})(?=\[\d|<std)"
)
# docker compose: the service's container name (`name-1`, v1's `name_1`), padded, then `| `
_COMPOSE = re.compile(r"[\w.-]{1,64}[-_]\d{1,4} *\| ")
# `kubectl logs --prefix`: [pod/<pod>/<container>] before every line
_KUBECTL = re.compile(r"\[pod/[\w.-]{1,253}/[\w.-]{1,63}\] ")
_LEVELS = "DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL"  # Python logging's level names, as vLLM prints
# pdsh / clush (DeepSpeed's multi-node launcher runs pdsh): `<host>: ` before every line of
# that host. Taken only before a prefix or a line shape it cannot be part of (a rank prefix,
# a time (ISO, glog, Go's, Hugging Face's, vLLM's after its level and a process prefix), an NCCL
# line, Open MPI's tag, Ray's prefix), never before free text (unless the host
# is one of the job's nodes: `_HOST_COLON`):
# `nvidia-nvswitch0: ...`, `ib0: ...` keep their words; a host name has a digit or a hyphen
# (`RuntimeError: ` has none). The host says where the line ran (`via`, as Ray's prefix does).
_PDSH = re.compile(
    r"((?=[\w.-]{0,252}[A-Za-z])(?=[\w.-]{0,252}[\d-])[\w.-]{1,253}|\d{1,3}(?:\.\d{1,3}){3}): "
    r"(?=\[(?:rank|default)\d|\[?\d{4}-\d\d-\d\d[T ]\d\d:|\[?[IWEF]\d{4} \d\d:"
    r"|\[?\d{4}/\d\d/\d\d \d\d:|\d\d/\d\d/\d{4} \d\d:|\[\d\d/\d\d/\d{4}-\d\d:"
    rf"|(?:\([^()]{{0,120}}\) )?(?:{_LEVELS}) \d\d-\d\d \d\d:"
    r"|[\w.-]{1,253}:\d{1,10}:\d{1,10} \[\d{1,3}\] NCCL |\[\d{1,6},\d{1,6}\]<"
    r"|\([^()]{0,120}\bip=|\((?:[\w.:<>-]{1,80} )?pid=\d{1,10}\) )"
)
# pdsh's prefix when the host is known to be one of the job's nodes: before any text
_HOST_COLON = re.compile(r"([\w.-]{1,253}): ")
# CRI (kubelet's container log files): after the time, the stream and a partial/full tag
_CRI_STREAM = re.compile(r"(?:stdout|stderr) [FP] ")
_MAX_PREFIXES = 6
_INDENT = frozenset(" \t")
# Ray's driver prefixes every line it forwards from a worker with where it ran:
# `(RayTrainWorker pid=1234, ip=10.0.0.7)`, `(pid=1234, ip=10.0.0.7)`, `(raylet, ip=10.0.0.7)`;
# a worker on the driver's own node has no address (`(run_on_pod_ray pid=1234)`).
_RAY = re.compile(
    r"\((?:[\w.:<>-]{1,80}(?: pid=\d{1,10})?|pid=\d{1,10}), ip=([0-9A-Fa-f.:]{3,45})"
    r"(?:, [^)]{0,80})?\) ?"
    r"|\((?:[\w.:<>-]{1,80} )?pid=\d{1,10}\) "
)
_ISO = re.compile(  # a colon between date and time too: lm-evaluation-harness's "%Y-%m-%d:%H:%M:%S"
    r"(\d{4})-(\d{2})-(\d{2})[T :](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(?:(Z|[+-]\d{2}:?\d{2})| ([+-]\d{2}:?\d{2})(?!\d))?"
)
_IN_NAMES = frozenset("/\\_-.~")  # a stamp after one of these is part of a name or a path
_SYSLOG = re.compile(r"([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)? (\S+) ")
_DMESG_T = re.compile(
    r"\[[A-Z][a-z]{2} ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\] ?"
)
_DMESG_UPTIME = re.compile(r"\[\s*(\d{1,10})\.(\d{1,9})\] ?")
# `dmesg -H` (--human): a message that starts a new minute is stamped `[May  1 10:00]` (no year,
# no seconds), the ones after it by their distance from the one before (`[  +0.000123]`): such a
# line takes its time from its neighbours, as a line with no stamp does (util-linux dmesg.c)
_DMESG_HUMAN = re.compile(r"\[([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2})\] ?")
_DMESG_DELTA = re.compile(r"\[\s{0,12}\+\d{1,10}\.\d{1,9}\] ?")
# `dmesg -x` (--decode) puts the facility and level before the stamp (`kern  :err   : [...]`);
# `dmesg -r` and /dev/kmsg readers the raw priority (`<3>[ 1843.308145] ...`)
_DMESG_DECODED = re.compile(
    r"(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local[0-7]) {0,4}:"
    r"(?:emerg|alert|crit|err|warn|notice|info|debug) {0,4}: "
)
_KMSG_PRIORITY = re.compile(r"<\d{1,3}>(?=\[)")
# `journalctl -o short-full`: the weekday, an ISO date and time, the zone's abbreviation, then
# the host and the tag as syslog has them (`Fri 2026-05-01 10:00:00 UTC gpu-a01 kernel: ...`)
_JOURNAL_FULL = re.compile(
    r"[A-Z][a-z]{2} (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))? "
    r"([A-Z]{2,5}) (\S{1,253}) "
)
_GLOG = re.compile(r"\[?([IWEF])(\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\b")
# vLLM's logger (vllm/logger.py: "%(levelname)s %(asctime)s ...", datefmt "%m-%d %H:%M:%S"; no
# year), after its process prefix where a worker's line carries one (`(VllmWorker rank=1
# pid=2) `, `(EngineCore_DP0 pid=7) `): the line keeps its text, as glog's does. SkyPilot's
# logger is the same with the level's first letter (sky_logging: "%(levelname).1s %(asctime)s").
_VLLM = re.compile(
    r"(?:\([\w.-]{1,80}(?: \w{1,20}=[\w.:-]{1,60}){0,4}\) )?"
    rf"(?:{_LEVELS}|[DIWEC]) (\d{{2}})-(\d{{2}}) (\d{{2}}):(\d{{2}}):(\d{{2}})"
    r"(?:\.(\d{1,6}))? "
)
# Go's log package (log.LstdFlags: "2009/01/23 01:23:23", Lmicroseconds adds ".123123"): the
# container toolkit's, the device plugin's and other Go tools' lines
_GO_LOG = re.compile(r"(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\b")
# Hugging Face's example scripts (transformers, accelerate, trl: datefmt "%m/%d/%Y %H:%M:%S")
_SLASHED = re.compile(r"(\d{2})/(\d{2})/(\d{4}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?\b")
# Bracketed stamps with a full date: hivemind's and other Python loggers' datefmt
# "%Y/%m/%d %H:%M:%S" in brackets (`[2026/08/29 09:10:04.211][INFO]...`), and TensorRT's
# logger (TensorRT-LLM, trtexec: `[08/28/2026-10:14:09] [TRT-LLM] [I] ...`)
_BRACKETED_GO = re.compile(
    r"\[(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?\] ?"
)
_TENSORRT = re.compile(r"\[(\d{2})/(\d{2})/(\d{4})-(\d{2}):(\d{2}):(\d{2})\] ?")
# detectron2's and fvcore's logger (`[%(asctime)s %(name)s]: `, datefmt "%m/%d %H:%M:%S", no
# year; LiBai's too): `[07/31 20:09:00 d2.utils.events]: `; without the name, `[07/12 04:22:50] `
_DETECTRON = re.compile(r"\[(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?: [\w.-]{1,80})?\]:? ?")
# mmengine's MMLogger (`%(asctime)s - %(name)s - %(levelname)s - `, datefmt "%m/%d %H:%M:%S")
_MMENGINE = re.compile(r"(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2}) - ")
# glog with the year in its prefix (glog 0.7's log_year_in_prefix: `I20240725 05:11:42.123 ...`)
_GLOG_YEAR = re.compile(
    r"\[?([IWEF])(\d{4})(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\b"
)
# lingua's (and BLT's) LogFormatter: the level padded, then "%y-%m-%d %H:%M:%S" and microseconds,
# then the time since start (`INFO    26-11-20 09:00:14.012000 - 0:00:00 - ...`)
_LINGUA = re.compile(
    rf"(?:{_LEVELS}) {{1,8}}(\d{{2}})-(\d{{2}})-(\d{{2}}) (\d{{2}}):(\d{{2}}):(\d{{2}})"
    r"(?:\.(\d{1,6}))? - (?:(?:\d{1,6} days?, )?\d{1,2}:\d\d:\d\d - )?"
)
# `date` (coreutils) in UTC, as job scripts print it: `Thu May 11 02:40:02 UTC 2023`
_DATE_UTC = re.compile(
    r"[A-Z][a-z]{2} ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (?:UTC|GMT) (\d{4})\b ?"
)
# the Neuron runtime's and collectives' log ("%Y-%b-%d %H:%M:%S.%f": `2025-Jan-16 00:39:18.571107`)
_NEURON = re.compile(r"(\d{4})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))? ?")
# DAOS's debug log (gurt's d_log: "%02d/%02d-%02d:%02d:%02d.%02ld", month first, no year)
_DAOS = re.compile(r"(\d{2})/(\d{2})-(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))? ")
_SYSLOG_TAG = re.compile(r"[\w.\-/@]{1,64}(?:\[\d{1,10}\])?: ")
_ISO_HOST_TAG = re.compile(r" ?(\S{0,252}[^\s:]) ([\w.\-/@]{1,64}(?:\[\d{1,10}\])?): ")


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """A line taken apart: the message and whatever prefixes it carried."""

    message: str
    at: datetime | None = None
    uptime_s: float | None = None
    rank: int | None = None
    host: str | None = None
    via: str | None = None  # the address a forwarding prefix (Ray's) says the line came from
    zoned: bool = False  # the stamp said its zone (`Z`, `+08:00`); others are read as UTC


def parse_line(text: str, reference: datetime, hosts: frozenset[str] = frozenset()) -> ParsedLine:
    """Split a raw line into prefixes and message; `reference` supplies a missing year.

    `hosts` are the job's node names: pdsh's `<host>: ` naming one of them is taken before
    anything (`worker-1: RuntimeError: ...`), not only before a prefix it cannot be part of."""
    rest = text
    rank: int | None = None
    via: str | None = None
    at: datetime | None = None
    uptime: float | None = None
    host: str | None = None
    zoned = False
    forwarded = False  # Ray's prefix taken
    indented = False  # leading blanks looked past once
    blank: str | None = None  # the line as it was before its blanks were taken off
    for _ in range(_MAX_PREFIXES):  # each pass takes off at least one prefix, or stops
        before = rest
        m = (
            _MPIRUN.match(rest)
            or _HOROVOD.match(rest)
            or _STREAM_TAG.match(rest)
            or _COMPOSE.match(rest)
            or _KUBECTL.match(rest)
            or _DMESG_DECODED.match(rest)
            or _KMSG_PRIORITY.match(rest)
            or (_pdsh(rest, hosts) if via is None and not forwarded else None)
        )
        if m:
            if m.re is _MPIRUN or m.re is _HOROVOD:
                rank = int(m.group(1))
            elif m.re is _PDSH or m.re is _HOST_COLON:
                via = m.group(1)
            rest = rest[m.end() :]
        if rank is None:
            m = _SRUN.match(rest)
            if m:
                rank = int(m.group(1))
                rest = rest[m.end() :]
        m = _TORCHRUN.match(rest)
        if m:
            rank = int(m.group(1) or m.group(2))
            rest = rest[m.end() :]
        m = _RAY.match(rest) if not forwarded and rest.startswith("(") else None
        if m:  # inside pdsh's or kubectl's prefix: the worker's own address is the nearer one
            via, forwarded = m.group(1) or via, True
            rest = rest[m.end() :]
        if at is None and uptime is None:
            stamped = rest
            at, uptime, found, rest = _stamp(rest, reference)
            host = host or found
            iso = _ISO.match(stamped) if at is not None else None
            journal = _JOURNAL_FULL.match(stamped) if at is not None else None
            zoned = (
                (iso is not None and _zone(iso) is not None)
                or (at is not None and _DATE_UTC.match(stamped) is not None)
                or (journal is not None and journal.group(8) in ("UTC", "GMT"))
            )
            if at is not None:
                m = _CRI_STREAM.match(rest)
                rest = rest[m.end() :] if m else rest
        if rest != before:
            blank = None  # a prefix after the blanks: they were the paste's, not the line's
            continue
        if blank is not None:
            rest = blank  # nothing after the blanks either: they are the line's own
            break
        if rest[:1] not in _INDENT or indented:
            break
        # A pasted or re-indented log (`    [rank3]: ...`, `\t2024-05-01T...`): its prefixes
        # are after the blanks. Taken only when one follows: an indented traceback line
        # (`  File "x.py"`, `3:   File ...`) keeps its blanks.
        indented = True
        blank, rest = rest, rest.lstrip(" \t")
    return ParsedLine(
        message=rest, at=at, uptime_s=uptime, rank=rank, host=host, via=via, zoned=zoned
    )


def _pdsh(rest: str, hosts: frozenset[str]) -> re.Match[str] | None:
    """pdsh's `<host>: `: a known node's name before any text, else a host-like name before a
    prefix or line shape it cannot be part of."""
    if hosts:
        m = _HOST_COLON.match(rest)
        if m and (m.group(1) in hosts or m.group(1).split(".", 1)[0] in hosts):
            return m
    return _PDSH.match(rest)


def _stamp(rest: str, reference: datetime) -> tuple[datetime | None, float | None, str | None, str]:
    """Take a leading timestamp (and syslog host/tag) off `rest`."""
    if not rest:
        return None, None, None, rest
    first = rest[0]
    if first.isdigit():
        m = _ISO.match(rest)
        if m:
            at = _iso(m)
            tail = rest[m.end() :]
            hm = _ISO_HOST_TAG.match(tail)
            if hm and at is not None:
                return at, None, hm.group(1), tail[hm.end() :]
            return at, None, None, tail.lstrip()
        m = _GO_LOG.match(rest) or _SLASHED.match(rest)
        if m:
            return _slashed(m), None, None, rest[m.end() :].lstrip()
        m = _MMENGINE.match(rest) or _DAOS.match(rest)
        if m:
            return _yearless(m, reference, 1), None, None, rest[m.end() :]
        m = _NEURON.match(rest)
        if m:
            month = _MONTHS.get(m.group(2), 0)
            year, day, hh, mm, ss = (int(g) for g in m.group(1, 3, 4, 5, 6))
            return _build(year, month, day, hh, mm, ss, m.group(7)), None, None, rest[m.end() :]
    elif first == "[":
        m = _DMESG_T.match(rest)
        if m:
            day, hh, mm, ss = (int(g) for g in m.group(2, 3, 4, 5))
            at = _build(int(m.group(6)), _MONTHS.get(m.group(1), 0), day, hh, mm, ss)
            return at, None, None, rest[m.end() :]
        m = _DMESG_UPTIME.match(rest)
        if m:
            uptime = int(m.group(1)) + float("0." + m.group(2))
            return None, uptime, None, rest[m.end() :]
        m = _DMESG_HUMAN.match(rest)
        if m and m.group(1) in _MONTHS:
            day, hh, mm = (int(g) for g in m.group(2, 3, 4))
            at = _nearest_year(reference, _MONTHS[m.group(1)], day, hh, mm, 0)
            return at, None, None, rest[m.end() :]
        m = _DMESG_DELTA.match(rest)
        if m:
            return None, None, None, rest[m.end() :]
        m = _BRACKETED_GO.match(rest)
        if m:
            return _slashed(m), None, None, rest[m.end() :]
        m = _TENSORRT.match(rest)
        if m:
            month, day, year, hh, mm, ss = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
            return _build(year, month, day, hh, mm, ss), None, None, rest[m.end() :]
        m = _DETECTRON.match(rest)
        if m:
            return _yearless(m, reference, 1), None, None, rest[m.end() :]
        m = _GLOG_YEAR.match(rest) or _GLOG.match(rest)
        if m:
            return _glog(m, reference), None, None, rest
    elif first in "IWEF":
        m = _GLOG_YEAR.match(rest) or _GLOG.match(rest)
        if m:
            return _glog(m, reference), None, None, rest
    if first == "(" or first.isupper():
        m = _VLLM.match(rest)
        if m:
            return _yearless(m, reference, 1), None, None, rest
    if first.isupper():
        m = _LINGUA.match(rest)
        if m:
            yy, month, day, hh, mm, ss = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
            at = _build(2000 + yy, month, day, hh, mm, ss, m.group(7))
            return at, None, None, rest[m.end() :]
        m = _JOURNAL_FULL.match(rest)
        if m:
            year, month, day, hh, mm, ss = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
            tail = rest[m.end() :]
            tm = _SYSLOG_TAG.match(tail)
            tail = tail[tm.end() :] if tm else tail
            return _build(year, month, day, hh, mm, ss, m.group(7)), None, m.group(9), tail
        m = _CTIME.match(rest) or _DATE_UTC.match(rest)
        if m:
            day, hh, mm, ss = (int(g) for g in m.group(2, 3, 4, 5))
            at = _build(int(m.group(6)), _MONTHS.get(m.group(1), 0), day, hh, mm, ss)
            return at, None, None, rest[m.end() :]
        m = _SYSLOG.match(rest)
        if m and m.group(1) in _MONTHS:
            day, hh, mm, ss = (int(g) for g in m.group(2, 3, 4, 5))
            at = _nearest_year(reference, _MONTHS[m.group(1)], day, hh, mm, ss)
            tail = rest[m.end() :]
            tm = _SYSLOG_TAG.match(tail)
            if tm:
                tail = tail[tm.end() :]
            return at, None, m.group(6), tail
    return None, None, None, rest


def collector_prefixed(text: str) -> bool:
    """Whether `text` begins with a prefix a collector puts before every line it gathers (Open
    MPI's or horovodrun's tag, docker compose's, `kubectl logs --prefix`'s, a CRI record's time
    and stream): the start of a line of its own, never the rest of the line before it."""
    if any(p.match(text) for p in (_MPIRUN, _HOROVOD, _COMPOSE, _KUBECTL)):
        return True
    iso = _ISO.match(text)
    return iso is not None and _CRI_STREAM.match(text[iso.end() :].lstrip(" ")) is not None


def find_embedded_time(message: str) -> datetime | None:
    """An ISO-8601 stamp inside the first part of a message (`[titan] 2026-03-04 02:04:06,844`,
    `time=2026-...`); one that is part of a word or a path (`'logs/2019-07-01T17:49:45_run'`,
    `ckpt-2024-...`) names something else, not when the line was written."""
    m = _embedded(message)
    return None if m is None else _iso(m)


def says_zone(text: str, reference: datetime) -> bool | None:
    """Whether a line's time carries its zone (`Z`, `+08:00`); None when it has no time."""
    parsed = parse_line(text, reference)
    if parsed.at is not None:
        return parsed.zoned
    m = _embedded(parsed.message)
    return None if m is None or _iso(m) is None else _zone(m) is not None


def _embedded(message: str) -> re.Match[str] | None:
    for m in _ISO.finditer(message, 0, 96):
        start = m.start()
        if start and (message[start - 1].isalnum() or message[start - 1] in _IN_NAMES):
            continue
        return m
    return None


def _zone(m: re.Match[str]) -> str | None:
    """An `_ISO` stamp's zone: `Z` or an offset, right after the time or after a blank."""
    return m.group(8) or m.group(9)


def _iso(m: re.Match[str]) -> datetime | None:
    year, month, day, hh, mm, ss = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    at = _build(year, month, day, hh, mm, ss, m.group(7))
    zone = _zone(m)
    if at is None or zone is None or zone == "Z":
        return at
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return at - sign * offset


def _slashed(m: re.Match[str]) -> datetime | None:
    """Go's `2009/01/23 01:23:23` or Hugging Face's `01/23/2009 01:23:23` (month first; a
    first number over 12 can only be a day)."""
    frac = m.group(7)
    if m.re is _GO_LOG or m.re is _BRACKETED_GO:
        year, month, day = (int(g) for g in m.group(1, 2, 3))
    else:
        month, day, year = (int(g) for g in m.group(1, 2, 3))
        if month > 12:
            month, day = day, month
    hh, mm, ss = (int(g) for g in m.group(4, 5, 6))
    return _build(year, month, day, hh, mm, ss, frac)


def _glog(m: re.Match[str], reference: datetime) -> datetime | None:
    """glog's stamp: `E0302 11:41:57.185` (the year nearest `reference`) or, with
    log_year_in_prefix, `E20260302 11:41:57.185`."""
    if m.re is _GLOG:
        return _yearless(m, reference, 2)
    year, month, day, hh, mm, ss = (int(g) for g in m.group(2, 3, 4, 5, 6, 7))
    return _build(year, month, day, hh, mm, ss, m.group(8))


def _yearless(m: re.Match[str], reference: datetime, first: int) -> datetime | None:
    """A stamp without a year (glog's `E0302 11:41:57.185`, vLLM's `03-02 11:41:58`): month,
    day, hours, minutes, seconds and an optional fraction in the groups from `first` on (a
    format without a fraction has no group for it); the year is the one nearest `reference`."""
    month, day, hh, mm, ss = (int(g) for g in m.group(*range(first, first + 5)))
    at = _nearest_year(reference, month, day, hh, mm, ss)
    frac = m.group(first + 5) if m.re.groups >= first + 5 else None
    if at is not None and frac:
        at = at.replace(microsecond=int(frac[:6].ljust(6, "0")))
    return at


def _build(
    year: int, month: int, day: int, hh: int, mm: int, ss: int, frac: str | None = None
) -> datetime | None:
    micro = int(frac[:6].ljust(6, "0")) if frac else 0
    try:
        return datetime(year, month, day, hh, mm, min(ss, 59), micro, tzinfo=UTC)
    except ValueError:
        return None


def _nearest_year(
    reference: datetime, month: int, day: int, hh: int, mm: int, ss: int
) -> datetime | None:
    """The stamp's year is the one that puts it nearest the reference time."""
    best: datetime | None = None
    for year in (reference.year - 1, reference.year, reference.year + 1):
        at = _build(year, month, day, hh, mm, ss)
        if at is not None and (best is None or abs(at - reference) < abs(best - reference)):
            best = at
    return best
