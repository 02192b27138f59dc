"""Commands that outlive the agent: a detached child runs one argument list and leaves files.

`Launcher.start(run_dir, argv, timeout_s)` starts `python -m autorecover.adapters.host.detached
RUN_DIR --timeout-s T -- argv...` in a new session (so a `kill -9` of the agent, or of its
process group, does not take it along). The child writes, in RUN_DIR:

- `child.json` (its pid) before it runs anything,
- `stdout`, `stderr`: what the command printed,
- `rc` (JSON: `rc`, `timed_out`, `error`) atomically, when the command has finished.

An agent that restarts finds the run by its folder: `result()` when `rc` is there, `alive()`
while the child runs (checked through /proc, so a reused pid is not mistaken for it). Never a
shell: the argument list is executed as given.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CHILD_MODULE = "autorecover.adapters.host.detached"
MAX_READ = 16 << 20


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a detached command ended, and what it printed (bounded)."""

    rc: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str = ""  # the command could not be started (not installed, not executable)


def write_atomically(path: Path, text: str) -> None:
    """Write a file whole or not at all: a temporary file, fsync'd, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # the rename itself survives a power cut
    finally:
        os.close(dir_fd)


class Launcher:
    """Starts detached children and looks after them (reaping its own)."""

    def __init__(self, python: str = sys.executable, env: Mapping[str, str] | None = None) -> None:
        self.python = python
        self.env = dict(env) if env is not None else None
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._runs: dict[Path, int] = {}

    def start(self, run_dir: Path, argv: Sequence[str], timeout_s: float) -> int:
        """Start the child for `argv` in `run_dir`; its pid."""
        run_dir.mkdir(parents=True, exist_ok=True)
        args = [self.python, "-m", CHILD_MODULE, str(run_dir), "--timeout-s", f"{timeout_s:g}"]
        proc = subprocess.Popen(  # noqa: S603 - an argument list from the agent's allow-list
            [*args, "--", *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            env=self.env,
        )
        self._children[proc.pid] = proc
        self._runs[run_dir] = proc.pid
        return proc.pid

    def alive(self, pid: int, run_dir: Path) -> bool:
        """Whether the child for `run_dir` with this pid still runs."""
        own = self._children.get(pid)
        if own is not None:
            if own.poll() is None:
                return True
            del self._children[pid]  # reaped
            return False
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        zombie = stat.rpartition(")")[2].split()[:1] == ["Z"]
        return not zombie and str(run_dir).encode() in cmdline.split(b"\0")

    def child_pid(self, run_dir: Path) -> int | None:
        """The pid the child wrote when it began (None: it has not begun)."""
        try:
            data = json.loads((run_dir / "child.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        pid = data.get("pid") if isinstance(data, dict) else None
        return pid if isinstance(pid, int) else None

    def result(self, run_dir: Path) -> RunResult | None:
        """The run's end, once the child wrote it; None while it runs (or if it died first)."""
        try:
            data = json.loads((run_dir / "rc").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("rc"), int):
            return None
        self._reap(run_dir)
        return RunResult(
            rc=data["rc"],
            stdout=_read(run_dir / "stdout"),
            stderr=_read(run_dir / "stderr"),
            timed_out=data.get("timed_out") is True,
            error=str(data.get("error", "")),
        )

    def _reap(self, run_dir: Path) -> None:
        """Collect our own child once it wrote `rc` (it exits right after)."""
        pid = self._runs.pop(run_dir, None)
        proc = self._children.pop(pid, None) if pid is not None else None
        if proc is not None:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._children[proc.pid] = proc  # looked at again by alive()


def _read(path: Path) -> str:
    """A bounded read that keeps the end of a long output (the end holds the verdict)."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - MAX_READ))
            return fh.read(MAX_READ).decode("utf-8", "replace")
    except OSError:
        return ""


def run_child(run_dir: Path, argv: Sequence[str], timeout_s: float) -> int:
    """The child's work: run argv with a timeout, keep its output, write `rc` last."""
    write_atomically(run_dir / "child.json", json.dumps({"pid": os.getpid(), "argv": list(argv)}))
    rc, timed_out, error = 0, False, ""
    with (run_dir / "stdout").open("wb") as out, (run_dir / "stderr").open("wb") as err:
        try:
            proc = subprocess.Popen(  # noqa: S603 - the agent's allow-listed argument list
                list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err, close_fds=True
            )
        except (FileNotFoundError, PermissionError, OSError) as exc:
            rc, error = 127, f"{argv[0] if argv else '?'}: cannot run: {exc.strerror or exc}"
        else:
            try:
                rc = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                rc, timed_out, error = 124, True, f"no answer within {timeout_s:g} s"
    document = {"rc": rc, "timed_out": timed_out, "error": error}
    write_atomically(run_dir / "rc", json.dumps(document))
    return 0


def main(args: Sequence[str]) -> int:
    """`python -m autorecover.adapters.host.detached RUN_DIR --timeout-s T -- argv...`."""
    if len(args) < 5 or args[1] != "--timeout-s" or args[3] != "--":
        sys.stderr.write("usage: detached RUN_DIR --timeout-s SECONDS -- COMMAND...\n")
        return 2
    return run_child(Path(args[0]), args[4:], float(args[2]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
