"""A job's output files: where they are, and following them as they grow.

`scontrol` (and `parsing`, for `--json`) fill in the per-job fields of an output pattern
(`%j %x %u %A %a`); what is left names one file per node or per task (`%N %n %t %s %J`,
`srun -o out-%t.txt`), so those become wildcards and the files that exist are found by
matching. `OutputFollower` reads what was appended since the last call, whole lines only,
like `tail -F`: a file truncated (a requeue without `--open-mode=append`) is read again from
the start, a replaced one from the start of the new file. Reads are bounded per call.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autorecover.adapters.slurm.parsing import NO_VAL, expand_output_pattern
from autorecover.adapters.slurm.records import SlurmJob

_FIELD = re.compile(r"%\d{0,2}[A-Za-z%]")
_PER_NODE_OR_TASK = frozenset("NntsJ")
MAX_READ = 8 << 20  # bytes one `read` takes from a file, at most
MAX_PARTIAL = 1 << 20  # an unfinished line longer than this is passed on as it is


def output_glob(path: str) -> str:
    """The glob pattern matching every file an output path names (per node, per task)."""
    parts: list[str] = []
    last = 0
    for m in _FIELD.finditer(path):
        parts.append(glob.escape(path[last : m.start()]))
        key = m.group(0)[-1]
        if key == "%":
            parts.append("%")
        elif key in _PER_NODE_OR_TASK:
            parts.append("*")
        else:
            parts.append(glob.escape(m.group(0)))
        last = m.end()
    parts.append(glob.escape(path[last:]))
    return "".join(parts)


def output_paths(job: SlurmJob) -> tuple[str, ...]:
    """The job's output paths as Slurm names them (stdout, and stderr when it differs)."""
    return tuple(dict.fromkeys(p for p in (job.stdout, job.stderr) if p and p != "/dev/null"))


def find_output_files(job: SlurmJob, extra: Sequence[str] = ()) -> tuple[Path, ...]:
    """The output files of the job that exist now, sorted.

    `extra` adds patterns Slurm's job record does not hold (a step's `srun -o out-%j-%t`):
    their per-job fields are filled from the job, like those of its own paths.
    """
    fields = {"j": job.job_id, "x": job.name, "u": job.user, "A": job.array_job_id or job.job_id,
              "a": job.array_task_id or str(NO_VAL)}  # fmt: skip
    more = tuple(expand_output_pattern(p, fields) for p in extra)
    found: set[str] = set()
    for path in (*output_paths(job), *more):
        found.update(glob.glob(output_glob(path)))  # noqa: PTH207 - absolute patterns
    return tuple(sorted(Path(p) for p in found if Path(p).is_file()))


@dataclass(slots=True)
class OutputFollower:
    """Follows one file: each `read` returns the whole lines appended since the last one."""

    path: Path
    offset: int = 0
    inode: int | None = None
    truncations: int = 0  # times the file was found shorter than what had been read
    _partial: bytes = field(default=b"", repr=False)

    def read(self, limit: int = MAX_READ) -> list[bytes]:
        """New complete lines (without their newline); [] when the file is missing."""
        try:
            with self.path.open("rb") as f:
                st = os.fstat(f.fileno())
                if self.inode is not None and st.st_ino != self.inode:
                    self.offset, self._partial = 0, b""  # replaced: a new file
                elif st.st_size < self.offset:
                    self.offset, self._partial = 0, b""  # truncated
                    self.truncations += 1
                self.inode = st.st_ino
                f.seek(self.offset)
                data = f.read(limit)
        except FileNotFoundError:
            return []
        self.offset += len(data)
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > MAX_PARTIAL:
            lines.append(self._partial)
            self._partial = b""
        return lines


@dataclass(slots=True)
class JobOutput:
    """Follows every output file of one job, picking up per-task files as they appear."""

    job: SlurmJob
    extra: tuple[str, ...] = ()  # more output patterns (see `find_output_files`)
    followers: dict[Path, OutputFollower] = field(default_factory=dict)

    def read(self) -> list[tuple[Path, bytes]]:
        """New lines from each file, file by file, in file order."""
        for path in find_output_files(self.job, self.extra):
            self.followers.setdefault(path, OutputFollower(path))
        out: list[tuple[Path, bytes]] = []
        for path in sorted(self.followers):
            out.extend((path, line) for line in self.followers[path].read())
        return out
