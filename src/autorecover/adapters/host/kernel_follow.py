"""Following the kernel log: `/dev/kmsg` or a plain file (the journal: adapters.kernel_journal).

Each source returns the lines that arrived since its cursor and moves the cursor past them;
`seek` puts a persisted cursor back after a restart. A plain file is followed like `tail -F`:
a rotated file is read to its end before the new one is opened, a truncated one is read again
from the start.
"""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import BinaryIO

from autorecover.adapters.host.kernel_log import (
    Cursor,
    FileCursor,
    KernelLine,
    KernelLogError,
    KmsgCursor,
    parse_kmsg_record,
    split_kmsg_records,
)

READ_BYTES = 1 << 16
MAX_BYTES_PER_READ = 8 << 20  # one poll reads at most this much of a file: bounded work


class KmsgSource:
    """Records from `/dev/kmsg` (or a file of records, as fixtures hold them), after a cursor."""

    def __init__(self, path: Path = Path("/dev/kmsg"), proc: Path = Path("/proc")) -> None:
        self.path = path
        self.proc = proc
        self.lost = 0  # records the kernel overwrote before we read them
        self._fd: int | None = None
        self._regular = False
        self._cursor: KmsgCursor | None = None

    def seek(self, cursor: Cursor | None) -> None:
        """Resume after a persisted cursor (other kinds are ignored)."""
        self._cursor = cursor if isinstance(cursor, KmsgCursor) else None

    def cursor(self) -> Cursor | None:
        """Where reading stopped."""
        return self._cursor

    def read(self, wait_s: float = 0.0) -> list[KernelLine]:
        """New records since the cursor; a new boot starts from the beginning of its buffer."""
        boot = _read_text(self.proc / "sys/kernel/random/boot_id")
        if self._cursor is not None and self._cursor.boot_id != boot:
            self._cursor = None
        last = self._cursor.seq if self._cursor is not None else -1
        btime = boot_time(self.proc / "stat")
        out: list[KernelLine] = []
        for raw in self._read_raw():
            rec = parse_kmsg_record(raw)
            if rec is None or rec.seq <= last:
                continue
            if last >= 0 and rec.seq > last + 1:
                self.lost += rec.seq - last - 1
            last = rec.seq
            at = btime + timedelta(microseconds=rec.usec) if btime is not None else None
            out.append(KernelLine(rec.message, at))
        if last >= 0:
            self._cursor = KmsgCursor(boot, last)
        return out

    def close(self) -> None:
        """Release the device."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _read_raw(self) -> list[bytes]:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            except FileNotFoundError:
                raise KernelLogError(f"{self.path}: not found", available=False) from None
            except OSError as exc:
                raise KernelLogError(f"{self.path}: {exc.strerror or exc}") from None
            self._regular = stat.S_ISREG(os.fstat(self._fd).st_mode)
        if self._regular:
            # A fixture or a saved `cat /dev/kmsg`: the whole file, the cursor skips what was seen.
            os.lseek(self._fd, 0, os.SEEK_SET)
            return split_kmsg_records(_read_all(self._fd))
        records: list[bytes] = []
        while True:
            try:
                chunk = os.read(self._fd, READ_BYTES)  # the device returns one record per read
            except BlockingIOError:
                break
            except BrokenPipeError:
                continue  # EPIPE: records were overwritten; the sequence gap counts them
            if not chunk:
                break
            records.append(chunk)
        return records


class FileSource:
    """Lines appended to a plain file, `tail -F` style, after a (inode, offset) cursor."""

    def __init__(self, path: Path, max_bytes: int = MAX_BYTES_PER_READ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._fh: BinaryIO | None = None
        self._inode = -1
        self._offset = 0  # just past the last complete line handed out
        self._partial = b""
        self._restored: FileCursor | None = None

    def seek(self, cursor: Cursor | None) -> None:
        """Resume after a persisted cursor (other kinds are ignored)."""
        ok = isinstance(cursor, FileCursor) and cursor.path == str(self.path)
        self._restored = cursor if ok and isinstance(cursor, FileCursor) else None

    def cursor(self) -> Cursor | None:
        """Where reading stopped (before any unfinished last line)."""
        if self._fh is None:
            return self._restored
        return FileCursor(str(self.path), self._inode, self._offset)

    def read(self, wait_s: float = 0.0) -> list[KernelLine]:
        """Complete lines appended since the cursor, across rotation and truncation."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            if self._fh is None:
                raise KernelLogError(f"{self.path}: not found", available=False) from None
            return self._drain(final=False)  # rotated away, the new file not there yet
        except OSError as exc:
            raise KernelLogError(f"{self.path}: {exc.strerror or exc}") from None
        lines: list[KernelLine] = []
        if self._fh is None:
            lines += self._open(st)
        elif st.st_ino != self._inode:
            lines += self._drain(final=True)  # the rotated file's last lines first
            self._fh.close()
            self._fh = None
            self._restored = None
            lines += self._open(st)
        elif st.st_size < self._offset + len(self._partial):
            self._fh.seek(0)  # truncated in place (copytruncate): read it again from the start
            self._offset, self._partial = 0, b""
        return lines + self._drain(final=False)

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def _open(self, st: os.stat_result) -> list[KernelLine]:
        lines: list[KernelLine] = []
        restored, offset = self._restored, 0
        if restored is not None and restored.inode == st.st_ino:
            offset = restored.offset if restored.offset <= st.st_size else 0
        elif restored is not None:
            lines = self._rest_of_rotated(restored)
        try:
            self._fh = self.path.open("rb")
        except OSError as exc:
            raise KernelLogError(f"{self.path}: {exc.strerror or exc}") from None
        self._fh.seek(offset)
        self._inode, self._offset, self._partial = st.st_ino, offset, b""
        return lines

    def _rest_of_rotated(self, cursor: FileCursor) -> list[KernelLine]:
        """After a restart across a rotation, finish the old file if it sits beside the new."""
        old = self.path.with_name(self.path.name + ".1")
        try:
            if old.stat().st_ino != cursor.inode:
                return []
            with old.open("rb") as fh:
                fh.seek(cursor.offset)
                data = fh.read(self.max_bytes)
        except OSError:
            return []
        return _lines(data.split(b"\n"))

    def _drain(self, *, final: bool) -> list[KernelLine]:
        if self._fh is None:
            return []
        data = self._partial + self._fh.read(self.max_bytes)
        parts = data.split(b"\n")
        tail = parts.pop()
        self._offset += len(data) - len(tail)
        self._partial = tail
        if final and tail:
            parts.append(tail)  # the old file will never finish that line
            self._partial = b""
        return _lines(parts)


def _lines(parts: list[bytes]) -> list[KernelLine]:
    return [KernelLine(p.rstrip(b"\r").decode("utf-8", "replace")) for p in parts if p.strip()]


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, READ_BYTES)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def boot_time(proc_stat: Path) -> datetime | None:
    """The boot's wall time from /proc/stat's `btime`, to date kmsg's since-boot stamps."""
    for line in _read_text(proc_stat).splitlines():
        if line.startswith("btime "):
            value = line[6:].strip()
            if value.isdigit() and len(value) <= 12:
                return datetime.fromtimestamp(int(value), UTC)
    return None
