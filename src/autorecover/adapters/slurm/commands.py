"""Running Slurm commands: a runner port for argument lists, and the rails every mutation passes.

`Runner` is the port: it runs one argument list with a timeout and returns what happened.
`SubprocessRunner` is the real one (never a shell); tests use their own fakes of the port.
`Commands` sits on a runner and is what the rest of the adapter calls: reads run as they are;
mutations are rate-limited, carry provenance into a journal, and in dry-run are recorded and
not run. A failed command is classified once, here, into the error vocabulary of `errors`.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from autorecover.adapters.slurm.errors import (
    RateLimitedError,
    SlurmPermanentError,
    SlurmTransientError,
    classify,
)
from autorecover.controllers.ports import Provenance

DEFAULT_TIMEOUT_S = 20.0  # Slurm's own MessageTimeout is 10 s; a command may retry once
MAX_OUTPUT = 64 << 20  # a larger answer is refused rather than parsed


@dataclass(frozen=True, slots=True)
class Completed:
    """One finished command: its arguments, exit status, output and how long it took."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    took_s: float = 0.0


class Runner(Protocol):
    """Runs one argument list (never through a shell) and returns how it ended."""

    def run(self, argv: Sequence[str], *, timeout_s: float) -> Completed:
        """Run `argv`; raise `SlurmTransientError` on a timeout, never on a non-zero exit."""
        ...


class SubprocessRunner:
    """The real runner: `subprocess.run` on an argument list, with extra environment."""

    def __init__(self, env: Mapping[str, str] | None = None, *, inherit: bool = True) -> None:
        self.env = {**(os.environ if inherit else {}), **(env or {})}

    def run(self, argv: Sequence[str], *, timeout_s: float) -> Completed:
        """Run `argv` with a timeout."""
        args = list(argv)
        started = time.monotonic()
        try:
            proc = subprocess.run(  # noqa: S603 - an argument list, validated by the callers
                args,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout_s,
                env=self.env,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise SlurmTransientError(
                f"{args[0]} timed out after {timeout_s:.0f} s", args, None, ""
            ) from None
        except FileNotFoundError:
            raise SlurmPermanentError(
                f"{args[0]}: not installed (not found on PATH)", args, 127, ""
            ) from None
        except OSError as exc:
            raise SlurmPermanentError(f"{args[0]}: cannot run: {exc}", args, None, "") from None
        if len(proc.stdout) > MAX_OUTPUT:
            raise SlurmPermanentError(f"{args[0]}: answer too large", args, proc.returncode, "")
        return Completed(
            tuple(args), proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started
        )


@dataclass(frozen=True, slots=True)
class MutationRecord:
    """One mutation as the journal keeps it: what, on what, why, the commands, how it ended."""

    operation: str  # drain, resume, reboot, requeue_excluding, requeue, cancel, ...
    target: str  # a node name or a job id
    provenance: Provenance
    at: datetime
    commands: tuple[tuple[str, ...], ...]
    dry_run: bool
    outcome: str  # "done: ...", "skipped: ...", "dry-run", "failed: ..."


class RateLimiter:
    """At most `limit` mutations in any `window_s` seconds, on an injected monotonic clock."""

    def __init__(
        self,
        limit: int = 30,
        window_s: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1 or window_s <= 0:
            raise ValueError("a rate limit needs limit >= 1 and window_s > 0")
        self.limit = limit
        self.window_s = window_s
        self._monotonic = monotonic
        self._spent: deque[float] = deque()

    def acquire(self, what: str) -> None:
        """Spend one mutation, or raise `RateLimitedError` saying how long to wait."""
        now = self._monotonic()
        while self._spent and now - self._spent[0] >= self.window_s:
            self._spent.popleft()
        if len(self._spent) >= self.limit:
            wait = self.window_s - (now - self._spent[0])
            raise RateLimitedError(
                f"{what}: rate limit of {self.limit} Slurm mutations per {self.window_s:.0f} s "
                f"is spent; retry in {wait:.1f} s",
                retry_after_s=wait,
            )
        self._spent.append(now)


@dataclass(slots=True)
class Journal:
    """Where mutation records go: kept in memory, and handed to `sink` when one is given."""

    sink: Callable[[MutationRecord], None] | None = None
    records: list[MutationRecord] = field(default_factory=list)
    keep: int = 1000

    def add(self, record: MutationRecord) -> None:
        """Keep a record (the newest `keep` of them) and pass it on."""
        self.records.append(record)
        del self.records[: -self.keep]
        if self.sink is not None:
            self.sink(record)


class Commands:
    """The adapter's one way to run Slurm commands: reads, and mutations with their rails."""

    def __init__(
        self,
        runner: Runner,
        *,
        dry_run: bool = False,
        limiter: RateLimiter | None = None,
        journal: Journal | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.runner = runner
        self.dry_run = dry_run
        self.limiter = limiter or RateLimiter()
        self.journal = journal or Journal()
        self.timeout_s = timeout_s
        self.planned: list[tuple[str, ...]] = []  # mutations dry-run recorded instead of running

    def read(self, argv: Sequence[str], *, ok: Sequence[int] = (0,)) -> Completed:
        """Run a command that changes nothing; a failure raises the classified error."""
        done = self.runner.run(argv, timeout_s=self.timeout_s)
        if done.returncode not in ok:
            # `scontrol show node X` says "Node X not found" on stdout
            raise classify(done.argv, done.returncode, done.stderr.strip() or done.stdout)
        return done

    def mutate(self, argv: Sequence[str]) -> Completed | None:
        """Run a command that changes Slurm; in dry-run record it and return None."""
        if self.dry_run:
            self.planned.append(tuple(argv))
            return None
        done = self.runner.run(argv, timeout_s=self.timeout_s)
        if done.returncode != 0:
            raise classify(done.argv, done.returncode, done.stderr)
        return done

    def operation(self, name: str, target: str, provenance: Provenance) -> Operation:
        """Start one logical mutation: spends a rate-limit token, journals how it ends."""
        self.limiter.acquire(f"{name} {target}")
        return Operation(self, name, target, provenance)


class Operation:
    """One logical mutation (several commands, one provenance, one journal record)."""

    def __init__(self, commands: Commands, name: str, target: str, provenance: Provenance):
        self._commands = commands
        self.name = name
        self.target = target
        self.provenance = provenance
        self.argv: list[tuple[str, ...]] = []
        self._closed = False

    @property
    def dry_run(self) -> bool:
        """True when commands are recorded, not run."""
        return self._commands.dry_run

    def run(self, argv: Sequence[str]) -> Completed | None:
        """Run (or, in dry-run, record) one mutating command of this operation."""
        self.argv.append(tuple(argv))
        return self._commands.mutate(argv)

    def finish(self, outcome: str, at: datetime) -> MutationRecord:
        """Journal the operation with its outcome (once)."""
        record = MutationRecord(
            operation=self.name,
            target=self.target,
            provenance=self.provenance,
            at=at,
            commands=tuple(self.argv),
            dry_run=self.dry_run,
            outcome="dry-run: " + outcome if self.dry_run else outcome,
        )
        if not self._closed:
            self._closed = True
            self._commands.journal.add(record)
        return record
