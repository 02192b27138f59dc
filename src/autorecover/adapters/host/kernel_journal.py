"""Following the kernel log in the systemd journal, through `journalctl -o json`.

journalctl runs as an argument list (never a shell); the cursor passed to it is the journal's
own, checked against the journal's cursor syntax before use.
"""

from __future__ import annotations

import os
import select
import subprocess
from collections.abc import Sequence

from autorecover.adapters.host.kernel_log import (
    Cursor,
    JournalCursor,
    KernelLine,
    KernelLogError,
    parse_journal_record,
)

READ_BYTES = 1 << 16


class JournalSource:
    """Kernel entries from `journalctl -o json`, after the journal's own cursor.

    Without a cursor it reads the current boot (`-k`); with one it reads every kernel entry
    after it (`_TRANSPORT=kernel --after-cursor`), across a reboot, so the line that preceded a
    crash is not lost. `follow` keeps one `journalctl --follow` running and reads what it has
    written so far; otherwise each read runs journalctl to completion."""

    def __init__(
        self,
        command: Sequence[str] = ("journalctl",),
        *,
        follow: bool = False,
        timeout_s: float = 60.0,
    ) -> None:
        self.command = tuple(command)
        self.follow = follow
        self.timeout_s = timeout_s
        self._cursor: JournalCursor | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    def seek(self, cursor: Cursor | None) -> None:
        """Resume after a persisted cursor (other kinds are ignored)."""
        self._cursor = cursor if isinstance(cursor, JournalCursor) else None

    def cursor(self) -> Cursor | None:
        """Where reading stopped."""
        return self._cursor

    def args(self) -> list[str]:
        """The journalctl argument list for the current cursor."""
        args = [*self.command, "-o", "json", "--no-pager"]
        if self._cursor is not None:
            args += ["--after-cursor", self._cursor.cursor, "_TRANSPORT=kernel"]
        else:
            args += ["-k"]
        if self.follow:
            args.append("--follow")
        return args

    def read(self, wait_s: float = 0.0) -> list[KernelLine]:
        """Entries since the cursor (in follow mode: those journalctl has written so far)."""
        data = self._follow_read(wait_s) if self.follow else self._run_once()
        lines = data.split(b"\n")
        self._buffer = lines.pop()  # an unfinished line waits for the rest
        out: list[KernelLine] = []
        for raw in lines:
            rec = parse_journal_record(raw)
            if rec is None:
                continue
            self._cursor = JournalCursor(rec.cursor)
            out.append(KernelLine(rec.message, rec.at))
        return out

    def close(self) -> None:
        """Stop a following journalctl."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None

    def _run_once(self) -> bytes:
        try:
            done = subprocess.run(  # noqa: S603 - an argument list; the cursor is validated
                self.args(), capture_output=True, timeout=self.timeout_s, check=False
            )
        except FileNotFoundError:
            raise KernelLogError(f"{self.command[0]}: not installed", available=False) from None
        except subprocess.TimeoutExpired:
            raise KernelLogError(f"journalctl took longer than {self.timeout_s:g} s") from None
        if done.returncode != 0 and not done.stdout:
            err = done.stderr.decode("utf-8", "replace").strip()[:200]
            raise KernelLogError(f"journalctl exited {done.returncode}: {err}")
        return done.stdout + b"\n"

    def _follow_read(self, wait_s: float) -> bytes:
        if self._proc is None or (self._proc.poll() is not None and not self._buffer):
            self.close()
            try:
                self._proc = subprocess.Popen(  # noqa: S603 - an argument list, validated cursor
                    self.args(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
            except FileNotFoundError:
                raise KernelLogError(f"{self.command[0]}: not installed", available=False) from None
            assert self._proc.stdout is not None
            os.set_blocking(self._proc.stdout.fileno(), False)
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        if wait_s > 0:
            select.select([fd], [], [], wait_s)
        data = self._buffer
        while True:
            try:
                chunk = os.read(fd, READ_BYTES)
            except BlockingIOError:
                break
            if not chunk:  # journalctl exited: the next read starts it again after the cursor
                self.close()
                break
            data += chunk
        return data
