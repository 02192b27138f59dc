"""The fault injector: real log lines into a node's kernel log, real signals to its ranks.

`inject(directory, kind, node)` works from any process: each rank records its pid and attempt
in `DIR/pids/<node>/<pid>`, and reads its fault flags in `DIR/faults/`.

Hardware kinds (xid79, xid48, nvlink: an NVRM XID 79/48/74 line; ib-link-down: an mlx5
`Link DOWN` line and the port's sysfs state) write the line and kill the node's ranks. `hang`
stops the node's ranks (peers run on to the loose barrier, then wait); `rank-crash` is a
`kill -9` of one rank; `app-error` makes every attempt raise; `nccl-timeout` makes the rank
print NCCL's watchdog timeout and exit. See docs/demo.md for what each should lead to.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from autorecover.demo.nodes import GPU_BDF, IB_PORT, SimNode

XID = f"NVRM: Xid (PCI:{GPU_BDF}): "
KERNEL_LINES = {
    "xid79": XID + "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "xid48": XID + "48, pid=2314, name=python, An uncorrectable double bit error (DBE) has "
    "been detected on GPU in the framebuffer at partition 6, subpartition 0.",
    "nvlink": XID + "74, pid=1901, name=python, NVLink: fatal error detected on link 3"
    "(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    "ib-link-down": "mlx5_core 0000:08:00.0 mlx5_0: Port: 1 Link DOWN",
}
HARDWARE = tuple(KERNEL_LINES)
KINDS = (*HARDWARE, "hang", "rank-crash", "app-error", "nccl-timeout")


def pid_file(directory: Path, node: str, pid: int) -> Path:
    """Where a rank records itself: `DIR/pids/<node>/<pid>`, holding its attempt."""
    return directory / "pids" / node / str(pid)


def read_ranks(directory: Path, node: str) -> tuple[int, list[int]]:
    """The newest attempt with ranks on `node`, and their pids."""
    found: dict[int, list[int]] = {}
    for path in (directory / "pids" / node).glob("*"):
        with contextlib.suppress(OSError, ValueError):
            found.setdefault(int(path.read_text()), []).append(int(path.name))
    if not found:
        return 0, []
    attempt = max(found)
    return attempt, sorted(found[attempt])


def inject(directory: Path, kind: str, node: str) -> str:
    """Inject one fault on `node`; returns what was done, in words."""
    if kind not in KINDS:
        raise ValueError(f"unknown fault {kind!r}; one of {', '.join(KINDS)}")
    home = SimNode(node, directory / "nodes" / node)
    if not home.root.is_dir():
        raise ValueError(f"no simulated node {node!r} under {directory}")
    attempt, pids = read_ranks(directory, node)
    faults = directory / "faults"
    faults.mkdir(parents=True, exist_ok=True)
    if kind in KERNEL_LINES:
        line = KERNEL_LINES[kind]
        with home.kernel_log.open("a", encoding="utf-8") as log:
            log.write(f"kernel: {line}\n")
        if kind == "ib-link-down":
            port = home.root / IB_PORT
            (port / "state").write_text("1: DOWN\n")
            (port / "phys_state").write_text("2: Polling\n")
        _signal(pids, signal.SIGKILL)
        return f"{kind} on {node}: '{line}' in its kernel log; {len(pids)} rank(s) killed"
    if kind == "rank-crash":
        _signal(pids[:1], signal.SIGKILL)
        return f"rank-crash on {node}: kill -9 {pids[:1]}"
    name = {"hang": f"hang-{node}", "app-error": "app-error", "nccl-timeout": f"nccl-{node}"}[kind]
    scope = "all" if kind == "app-error" else str(attempt)  # a bug fails every attempt
    (faults / name).write_text(scope)
    return f"{kind} on {node}: flag {name} for attempt {scope}"


def clear(directory: Path) -> None:
    """Remove every fault flag."""
    for flag in (directory / "faults").glob("*"):
        flag.unlink(missing_ok=True)


def _signal(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
