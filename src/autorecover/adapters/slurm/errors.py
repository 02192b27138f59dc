"""The Slurm adapter's error vocabulary, and the one place a failed command is classified.

Every failure of a Slurm command becomes one of four errors: transient (try again later:
the controller is unreachable, a command timed out, the rate limit is spent), permanent (the
command is refused and will be refused again), not found (no such job or node) and conflict
(the job or node is not in a state that allows it: a running job's exclusions, resuming an
idle node). Transient and permanent derive from the controller ports' own errors, so the
executor needs to know nothing about Slurm. `classify` is pure: the stderr texts it knows
were recorded from Slurm 22.05 (see `tests/fixtures/slurm/errors.txt`).
"""

from __future__ import annotations

from collections.abc import Sequence

from autorecover.controllers.ports import PermanentError, TransientError


class SlurmError(Exception):
    """A Slurm command failed; the command, its exit status and what it said are kept."""

    def __init__(
        self,
        message: str,
        command: Sequence[str] = (),
        returncode: int | None = None,
        stderr: str = "",
    ) -> None:
        super().__init__(message)
        self.command = tuple(command)
        self.returncode = returncode
        self.stderr = stderr


class SlurmTransientError(SlurmError, TransientError):
    """Try again later; `retry_after_s` says how much later, when known."""

    def __init__(
        self,
        message: str,
        command: Sequence[str] = (),
        returncode: int | None = None,
        stderr: str = "",
        retry_after_s: float = 5.0,
    ) -> None:
        super().__init__(message, command, returncode, stderr)
        self.retry_after_s = retry_after_s


class SlurmPermanentError(SlurmError, PermanentError):
    """Slurm refused the command, and would refuse it again."""


class SlurmNotFoundError(SlurmPermanentError):
    """No such job or node."""


class SlurmConflictError(SlurmPermanentError):
    """The job or node is not in a state that allows the command now."""


class RateLimitedError(SlurmTransientError):
    """The adapter's own limit on mutations is spent for now."""


# Lower-case fragments of Slurm's messages, first match wins. Recorded from 22.05.8.
_NOT_FOUND = (
    "invalid job id specified",
    "invalid node name specified",
    "not found",
    "invalid job id",
)
_CONFLICT = (
    "job is no longer pending execution",
    "job is pending execution",
    "job has already finished",
    "invalid node state specified",
    "job/step already completing or completed",
    "requested operation is presently disabled",
    "job is currently being held",
    "job is not held",
    "already completing",
    "reboot not issued",
)
_TRANSIENT = (
    "unable to contact slurm controller",
    "socket timed out",
    "zero bytes were transmitted",
    "connection refused",
    "communication connection failure",
    "resource temporarily unavailable",
    "slurm backup controller in standby mode",
    "slurmctld is not responding",
    "protocol authentication error",  # munge restarting
    "munge",
    "transaction in progress",
    "try again",
    "unable to connect",
)


def classify(command: Sequence[str], returncode: int, stderr: str) -> SlurmError:
    """The error a failed command stands for (never raises; unknown failures are permanent)."""
    said = " ".join(stderr.split())
    low = said.lower()
    head = command[0] if command else "slurm"
    message = f"{' '.join(command[:3])}: {said or f'exit status {returncode}'}"
    for fragment in _TRANSIENT:
        if fragment in low:
            return SlurmTransientError(message, command, returncode, stderr)
    for fragment in _NOT_FOUND:
        if fragment in low:
            return SlurmNotFoundError(message, command, returncode, stderr)
    for fragment in _CONFLICT:
        if fragment in low:
            return SlurmConflictError(message, command, returncode, stderr)
    if returncode in (126, 127):
        return SlurmPermanentError(f"{head}: cannot run ({said})", command, returncode, stderr)
    return SlurmPermanentError(message, command, returncode, stderr)
