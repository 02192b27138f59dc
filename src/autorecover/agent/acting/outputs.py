"""Reading what the allow-listed commands print: nvidia-smi's CSV and words, dmesg's lines.

Pure functions, tested on real published outputs (tests/fixtures/agent/actions/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from autorecover.agent.acting.commands import bus_key, valid_bus_id


@dataclass(frozen=True, slots=True)
class GpuProcess:
    """A compute process holding a GPU, as `nvidia-smi --query-compute-apps` lists it."""

    pid: int
    name: str
    bus_id: str


class OutputError(ValueError):
    """Output that cannot be read with confidence (the caller must not act on a guess)."""


def compute_apps(text: str) -> tuple[GpuProcess, ...]:
    """`pid, process_name, gpu_bus_id` lines (`--format=csv,noheader`); none: no processes.

    A process name may itself contain ", " (a path with a comma): the pid is the first field
    and the bus id the last."""
    out: list[GpuProcess] = []
    for line in text.splitlines():
        if not line.strip() or line.strip().lower().startswith("no running"):
            continue
        first, _, rest = line.partition(",")
        name, _, bus = rest.rpartition(",")
        pid, bus = first.strip(), bus.strip()
        if not pid.isdigit() or not valid_bus_id(bus):
            raise OutputError(f"unexpected line from nvidia-smi: {line.strip()[:120]!r}")
        out.append(GpuProcess(int(pid), name.strip() or "?", bus))
    return tuple(out)


def gpu_bus_ids(text: str) -> tuple[str, ...]:
    """`--query-gpu=pci.bus_id --format=csv,noheader`: one bus id a line."""
    ids = tuple(line.strip() for line in text.splitlines() if line.strip())
    bad = [i for i in ids if not valid_bus_id(i)]
    if bad:
        raise OutputError(f"unexpected GPU bus id from nvidia-smi: {bad[0][:60]!r}")
    return ids


def holders(
    processes: tuple[GpuProcess, ...], gpus: tuple[str, ...]
) -> dict[str, list[GpuProcess]]:
    """The processes on each of `gpus` (by bus id), only the GPUs that have some."""
    wanted = {bus_key(g): g for g in gpus}
    held: dict[str, list[GpuProcess]] = {}
    for p in processes:
        gpu = wanted.get(bus_key(p.bus_id))
        if gpu is not None:
            held.setdefault(gpu, []).append(p)
    return held


def busy_reason(held: dict[str, list[GpuProcess]]) -> str:
    """Why a reset is refused, naming each GPU and the processes on it."""
    parts = []
    for gpu, procs in held.items():
        names = ", ".join(f"pid {p.pid} ({p.name})" for p in procs[:10])
        more = f" and {len(procs) - 10} more" if len(procs) > 10 else ""
        parts.append(f"GPU {gpu} is held by {names}{more}")
    return "; ".join(parts) + "; the reset needs the GPU idle (no process may hold it)"


def words(stdout: str, stderr: str, limit: int = 600) -> str:
    """What a command said, in one line: its non-empty lines joined (stdout, then stderr)."""
    lines = [x.strip() for x in (stdout + "\n" + stderr).splitlines() if x.strip()]
    return " / ".join(lines)[:limit]


def window(text: str, since: datetime, until: datetime) -> str:
    """`dmesg --time-format iso` lines inside [since, until]; lines without a time follow
    the line before them (a continuation belongs to its record)."""
    out: list[str] = []
    keep = False
    for line in text.splitlines():
        at = _iso_prefix(line)
        if at is not None:
            keep = since <= at <= until
        if keep:
            out.append(line)
    return "\n".join(out) + ("\n" if out else "")


def _iso_prefix(line: str) -> datetime | None:
    # dmesg --time-format iso: `2026-03-02T09:40:11,123456+00:00 kernel text`
    head = line.split(" ", 1)[0].replace(",", ".")
    if len(head) < 19 or head[4:5] != "-" or "T" not in head:
        return None
    try:
        at = datetime.fromisoformat(head)
    except ValueError:
        return None
    return at if at.tzinfo is not None else None
