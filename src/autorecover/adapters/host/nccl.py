"""Reading what `all_reduce_perf` (nccl-tests) printed into an `NcclReport`.

The output is text for people: a header (`# nThread 1 nGpus 8 minBytes 8 maxBytes ...`),
one line per rank (`#  Rank  0 Group  0 Pid 1234 on HOST device  0 [0000:18:00] NVIDIA
H100 80GB HBM3`; older releases print `[0x18]` and no Group/Pid), a table of one row per
message size (size count type redop root, then time algbw busbw #wrong out-of-place and
in-place; `#wrong` may be `N/A` or `1.04858e+06`), then `# Out of bounds values : N OK` and
`# Avg bus bandwidth : X`. Around it: NCCL's own `NCCL INFO`/`NCCL WARN` lines, the test's
`Test NCCL failure common.cu:NNN '...'`, MPI's and srun's complaints, and prefixes mpirun
adds (`[1,0]<stdout>:`). Every launcher's output may land in one file (with `srun`, each task
prints its own copy): rows are kept as printed, the lowest average and the highest
out-of-bounds count win. Never raises on any text: what is not understood is skipped.
Tested on outputs published in nccl-tests issues and public repositories
(tests/fixtures/nccl/README.md).
"""

from __future__ import annotations

import math
import re

from autorecover.domain.hardware.validation import (
    MAX_EVIDENCE,
    MAX_LINES,
    NcclReport,
    PerfCell,
    PerfRow,
    RankInfo,
)

MAX_TEXT = 16 << 20  # a larger output is read from its end (the summary is there)

_PREFIX = re.compile(r"^\s*\[\d+,\d+\]<(?:stdout|stderr)>:")
_HEADER = re.compile(r"nThread\s+(\d+)\s+nGpus\s+(\d+)")
_RANK = re.compile(
    r"^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)"
    r"\s+\[([^\]]*)\]\s*(.*)$"
)
_BOUNDS = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_FAILURE = re.compile(r"Test (?:NCCL |CUDA )?failure|NCCL failure|CUDA failure|srun: error:")
_WARN = re.compile(r"NCCL WARN")
_INT = re.compile(r"-?\d+")


def parse_all_reduce(text: str, exit_status: int | None = None) -> NcclReport:
    """The report in one output (any text); `exit_status` is the job's or the command's."""
    if len(text) > MAX_TEXT:
        text = text[-MAX_TEXT:]
    rows: list[PerfRow] = []
    ranks: dict[tuple[int, str, int], RankInfo] = {}
    runs = 0
    avgs: list[float] = []
    bounds: list[int] = []
    failures: list[str] = []
    warnings: list[str] = []
    for raw in text.splitlines():
        line = _PREFIX.sub("", raw).strip()
        if not line:
            continue
        if _FAILURE.search(line):
            _keep(failures, line)
        elif _WARN.search(line):
            _keep(warnings, line)
        if line.startswith("#") or line.startswith("nThread"):
            runs += _header(line, ranks, avgs, bounds)
            continue
        row = _row(line.split())
        if row is not None:
            rows.append(row)
    if exit_status not in (None, 0):
        _keep(failures, f"exit status {exit_status}")
    return NcclReport(
        rows=tuple(rows),
        ranks=tuple(sorted(ranks.values(), key=lambda r: (r.rank, r.host))),
        runs=runs,
        avg_busbw=min(avgs) if avgs else None,
        out_of_bounds=max(bounds) if bounds else None,
        failures=tuple(failures),
        warnings=tuple(warnings),
        exit_status=exit_status,
    )


def _keep(lines: list[str], line: str) -> None:
    text = " ".join(line.split())[:MAX_EVIDENCE]
    if len(lines) < MAX_LINES and text not in lines:
        lines.append(text)


def _header(
    line: str, ranks: dict[tuple[int, str, int], RankInfo], avgs: list[float], bounds: list[int]
) -> int:
    """Read one `#` line into ranks, averages and bounds; 1 when it starts a run."""
    if _HEADER.search(line):
        return 1
    m = _RANK.match(line)
    if m is not None:
        rank, host, device = int(m[1]), m[3], int(m[4])
        pid = int(m[2]) if m[2] else None
        ranks[(rank, host, device)] = RankInfo(rank, host[:255], device, m[5][:32],
                                               m[6].strip()[:100], pid)  # fmt: skip
        return 0
    m = _BOUNDS.match(line)
    if m is not None:
        bounds.append(int(m[1][:18]))
        return 0
    m = _AVG.match(line)
    if m is not None:
        value = _float(m[1])
        if value is not None:
            avgs.append(value)
    return 0


def _row(tokens: list[str]) -> PerfRow | None:
    """A table row: 13 columns (2.x releases), or 11 (no redop/root, before 2.7)."""
    if len(tokens) == 13:
        size, count, dtype, redop, root = tokens[:5]
        cells = tokens[5:]
    elif len(tokens) == 11:
        size, count, dtype = tokens[:3]
        redop, root = "", "-1"
        cells = tokens[3:]
    else:
        return None
    if not (_INT.fullmatch(size) and _INT.fullmatch(count) and _INT.fullmatch(root)):
        return None
    if not dtype.isidentifier():
        return None
    first, second = _cell(cells[:4]), _cell(cells[4:])
    if first is None or second is None:
        return None
    return PerfRow(int(size[:20]), int(count[:20]), dtype[:16], redop[:16], int(root[:12]),
                   first, second)  # fmt: skip


def _cell(tokens: list[str]) -> PerfCell | None:
    time_us, algbw, busbw = (_float(t) for t in tokens[:3])
    if time_us is None and tokens[0] != "N/A":
        return None
    wrong_text = tokens[3]
    if wrong_text == "N/A":
        wrong = None
    else:
        value = _float(wrong_text)
        if value is None:
            return None
        wrong = int(value) if math.isfinite(value) else 1  # nan/inf wrong values: not zero
    return PerfCell(time_us, algbw, busbw, wrong)


def _float(text: str) -> float | None:
    if len(text) > 32:
        return None
    try:
        return float(text)
    except ValueError:
        return None
