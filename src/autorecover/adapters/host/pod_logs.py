"""Containers' log files as the kubelet writes them on the node: CRI format, rotated by rename.

`/var/log/pods/<namespace>_<pod>_<uid>/<container>/<N>.log` (N: the container's restart
count) holds one record per line, `<RFC3339Nano> <stdout|stderr> <P|F> <text>`; a `P` record
is a piece of a long line that the next record continues. The kubelet rotates by renaming
`N.log` to `N.log.<timestamp>`, starting a new `N.log`, and gzips older rotated files.

`CriDecoder` turns records back into the container's own output (the bytes `kubectl logs`
shows). It strips the prefixes of a whole chunk with one regular expression (the node agent
reads megabytes a second; a Python loop per line would cost more than the scan), and falls
back to a line loop only for chunks holding a `P` record.

`ContainerLog` follows one container's folder by inode: it keeps the file it reads open, so a
rename does not lose it; when the folder's current file is another inode it reads its own to
the end, then starts the new one at 0. A rotated file is never re-read and a gzipped one is
never opened (it was read, as the plain file it was, before the kubelet compressed it); a file
that shrank under the same inode (truncated) is read again from 0. Each read is bounded, and
an unfinished last record waits for its end (at most `MAX_RECORD` bytes), so memory is too.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

READ_BYTES = 1 << 20  # one read of one file
MAX_RECORD = 1 << 20  # an unfinished record longer than this is passed on as it is
UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
NAME = re.compile(r"[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?")  # namespace, pod, container
_CURRENT = re.compile(r"(\d{1,9})\.log")
# After a newline (a literal first: `re` then searches for it at C speed, ~3x `(?m)^`).
_PREFIX = re.compile(rb"\n[^ \n]+ (?:stdout|stderr) F ")
_RECORD = re.compile(rb"[^ \n]+ (?:stdout|stderr) ([PF]) ")


class CriDecoder:
    """CRI records in, the container's output out; partial records joined."""

    def __init__(self) -> None:
        self._carry = b""  # an unfinished record (no newline yet)
        self.malformed = 0  # lines that were not CRI records (passed on as they are)

    @property
    def carry(self) -> bytes:
        """The unfinished record waiting for its end."""
        return self._carry

    def feed(self, data: bytes) -> bytes:
        """The output held by the whole records in `data` (plus what was carried)."""
        return self.decode(self.records(data))

    def records(self, data: bytes) -> bytes:
        """The whole records in `data` (plus what was carried), still framed."""
        data = self._carry + data if self._carry else data
        end = data.rfind(b"\n") + 1
        if end == 0 and len(data) > MAX_RECORD:
            end = len(data)  # no record is this long: pass it on rather than grow
        self._carry, whole = data[end:], data[:end]
        return whole

    def decode(self, whole: bytes) -> bytes:
        """The output held by whole records: prefixes gone, partial records joined."""
        if not whole:
            return b""
        out, records = _PREFIX.subn(b"\n", b"\n" + whole)
        if records == whole.count(b"\n"):
            return out[1:]  # every line was a whole (F) record
        return self._slow(whole)

    def _slow(self, whole: bytes) -> bytes:
        parts: list[bytes] = []
        for line in whole.split(b"\n")[:-1] if whole.endswith(b"\n") else whole.split(b"\n"):
            m = _RECORD.match(line)
            if m is None:
                self.malformed += 1
                parts.append(line + b"\n")
            elif m.group(1) == b"P":
                parts.append(line[m.end() :])
            else:
                parts.append(line[m.end() :] + b"\n")
        return b"".join(parts)


@dataclass(frozen=True, slots=True)
class Position:
    """Where a follower is: the inode of the file and the offset in it."""

    inode: int
    offset: int


def container_folder(root: Path, namespace: str, pod: str, uid: str, container: str) -> Path:
    """The kubelet's folder for one container; ValueError when a name could escape `root`."""
    for what, value in (("namespace", namespace), ("pod", pod), ("container", container)):
        if not NAME.fullmatch(value):
            raise ValueError(f"{what} {value[:80]!r} is not a Kubernetes name")
    if not UID.fullmatch(uid):
        raise ValueError(f"pod uid {uid[:80]!r} is not a UID")
    return root / f"{namespace}_{pod}_{uid}" / container


def unframed(line: bytes) -> bytes:
    """One record's text (a line that is not a record, as it is)."""
    m = _RECORD.match(line)
    return line if m is None else line[m.end() :]


class ContainerLog:
    """One container's log folder, followed across rotations and restarts."""

    def __init__(self, folder: Path, start: Position | None = None) -> None:
        self.folder = folder
        self.decoder = CriDecoder()
        self._file: BinaryIO | None = None
        self._inode = 0
        self._offset = 0
        self._number = -1  # N of the N.log being read
        self._start = start  # resume here when the current file is still this inode
        self.rotations = 0
        self.truncations = 0

    @property
    def position(self) -> Position:
        """What has been read (for the engine to hand back after an agent restart)."""
        return Position(self._inode, self._offset)

    def read(self, limit: int = READ_BYTES) -> bytes:
        """Up to `limit` raw bytes of new records (b"" when none), across a rotation."""
        self._switch_if_needed()
        if self._file is None:
            return b""
        data = self._file.read(limit)
        self._offset += len(data)
        if not data and self._moved():
            self._open_current()  # ours was rotated away and is read to its end
            if self._file is not None:
                data = self._file.read(limit)
                self._offset += len(data)
        return data

    def output(self, limit: int = READ_BYTES) -> bytes:
        """The container's output (CRI prefixes gone, partial lines joined) read now."""
        return self.decoder.feed(self.read(limit))

    def close(self) -> None:
        """Let go of the open file."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def _current(self) -> tuple[int, Path] | None:
        """The newest `N.log` (the highest restart count) in the folder."""
        best: tuple[int, Path] | None = None
        try:
            names = [p.name for p in self.folder.iterdir()]
        except OSError:
            return None
        for name in names:
            m = _CURRENT.fullmatch(name)
            if m is not None and (best is None or int(m.group(1)) > best[0]):
                best = (int(m.group(1)), self.folder / name)
        return best

    def _switch_if_needed(self) -> None:
        if self._file is None:
            self._open_current()
            return
        try:
            size = os.fstat(self._file.fileno()).st_size
        except OSError:
            size = self._offset
        if size < self._offset:  # truncated in place (copytruncate): read it again
            self.truncations += 1
            self._file.seek(0)
            self._offset = 0
            self.decoder = CriDecoder()

    def _moved(self) -> bool:
        """The folder's current file is no longer the one we read (rotated, or a restart)."""
        current = self._current()
        if current is None:
            return False
        try:
            return current[1].stat().st_ino != self._inode
        except OSError:
            return False

    def _open_current(self) -> None:
        current = self._current()
        if current is None:
            return
        number, path = current
        try:
            f = path.open("rb")
        except OSError:
            return
        inode = os.fstat(f.fileno()).st_ino
        if self._file is not None:
            self._file.close()
            self.rotations += 1
        self._file, self._inode, self._number, self._offset = f, inode, number, 0
        if self._start is not None and self._start.inode == inode:
            size = os.fstat(f.fileno()).st_size
            self._offset = min(self._start.offset, size)
            f.seek(self._offset)
        self._start = None
