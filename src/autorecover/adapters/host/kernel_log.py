"""Kernel-log records and cursors: `/dev/kmsg` records, journal JSON entries, file positions.

A `/dev/kmsg` record is `priority,sequence,microseconds,flags[,...];message`, followed by
continuation lines that start with a space (`SUBSYSTEM=pci`, ...); the kernel escapes
unprintable bytes in the message as `\\xNN` (Documentation/ABI/testing/dev-kmsg). A journal entry
is one JSON object per line from `journalctl -o json`. Both parsers take arbitrary bytes and
return None for anything that is not a record: they never raise.

A cursor says where reading stopped, so that a restarted agent neither replays nor misses a
line: the kmsg sequence number with the boot it belongs to, the journal's own cursor string, or
a file's inode and byte offset.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

_KMSG_HEAD = re.compile(rb"(\d{1,3}),(\d{1,20}),(\d{1,20}),([^,;]{0,8})(?:,[^;]{0,256})?;")
_ESCAPE = re.compile(rb"\\x([0-9a-fA-F]{2})")
# journalctl cursors are `key=hex;key=hex;...`; anything else is not passed on to journalctl.
JOURNAL_CURSOR = re.compile(r"[A-Za-z0-9=;_-]{1,512}")
MAX_LINE = 16384  # longer lines are cut: the kernel's own record limit is 8 KiB


class KernelLogError(Exception):
    """A kernel log cannot be read; `available` is False when there is nothing to read here."""

    def __init__(self, message: str, *, available: bool = True) -> None:
        super().__init__(message)
        self.available = available


@dataclass(frozen=True, slots=True)
class KernelLine:
    """One kernel message: its text and, when the source knows it, its wall time."""

    text: str
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class KmsgRecord:
    """One `/dev/kmsg` record."""

    priority: int  # facility << 3 | level
    seq: int
    usec: int  # since boot (CLOCK_MONOTONIC)
    flags: str
    message: str

    @property
    def level(self) -> int:
        """The syslog level, 0 (emerg) .. 7 (debug)."""
        return self.priority & 7


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """One journal entry, as far as the agent cares."""

    cursor: str
    message: str
    at: datetime | None
    boot_id: str = ""


def parse_kmsg_record(raw: bytes) -> KmsgRecord | None:
    """Parse one `/dev/kmsg` record (continuation lines ignored); None if it is not one."""
    m = _KMSG_HEAD.match(raw)
    if m is None:
        return None
    body = raw[m.end() :].split(b"\n", 1)[0][:MAX_LINE]
    return KmsgRecord(
        priority=int(m.group(1)),
        seq=int(m.group(2)),
        usec=int(m.group(3)),
        flags=m.group(4).decode("ascii", "replace"),
        message=_unescape(body).decode("utf-8", "replace"),
    )


def split_kmsg_records(data: bytes) -> list[bytes]:
    """Split a file of kmsg records (as `cat /dev/kmsg` writes them) into records."""
    out: list[bytes] = []
    for line in data.split(b"\n"):
        if line and not line.startswith(b" "):
            out.append(line)
    return out


def _unescape(body: bytes) -> bytes:
    return _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), body)


def parse_journal_record(line: bytes) -> JournalRecord | None:
    """Parse one `journalctl -o json` line; None if it is not an entry with a cursor."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    cursor = obj.get("__CURSOR")
    if not isinstance(cursor, str) or JOURNAL_CURSOR.fullmatch(cursor) is None:
        return None
    message = _journal_message(obj.get("MESSAGE"))
    at = None
    stamp = obj.get("__REALTIME_TIMESTAMP")
    if isinstance(stamp, str) and stamp.isdigit() and len(stamp) <= 20:
        try:
            at = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(stamp))
        except OverflowError:
            at = None
    boot = obj.get("_BOOT_ID")
    return JournalRecord(cursor, message, at, boot if isinstance(boot, str) else "")


def _journal_message(value: Any) -> str:
    """MESSAGE is a string, or a list of byte values when it is not valid UTF-8."""
    if isinstance(value, str):
        return value[:MAX_LINE]
    if isinstance(value, list) and all(isinstance(b, int) and 0 <= b < 256 for b in value):
        return bytes(value[:MAX_LINE]).decode("utf-8", "replace")
    return ""


@dataclass(frozen=True, slots=True)
class KmsgCursor:
    """The last kmsg sequence number read, in the boot it belongs to."""

    boot_id: str
    seq: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (persisted: never rename a key)."""
        return {"kind": "kmsg", "boot_id": self.boot_id, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class JournalCursor:
    """The journal's cursor of the last entry read."""

    cursor: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (persisted: never rename a key)."""
        return {"kind": "journal", "cursor": self.cursor}


@dataclass(frozen=True, slots=True)
class FileCursor:
    """A file's identity and the offset just past the last complete line read."""

    path: str
    inode: int
    offset: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (persisted: never rename a key)."""
        return {"kind": "file", "path": self.path, "inode": self.inode, "offset": self.offset}


Cursor = KmsgCursor | JournalCursor | FileCursor


def cursor_from_dict(data: Mapping[str, Any]) -> Cursor | None:
    """A cursor from its JSON form; None for anything malformed (start afresh, never crash)."""
    kind = data.get("kind")
    try:
        if kind == "kmsg":
            boot, seq = data["boot_id"], data["seq"]
            if isinstance(boot, str) and isinstance(seq, int) and seq >= -1:
                return KmsgCursor(boot, seq)
        elif kind == "journal":
            cursor = data["cursor"]
            if isinstance(cursor, str) and JOURNAL_CURSOR.fullmatch(cursor):
                return JournalCursor(cursor)
        elif kind == "file":
            path, inode, offset = data["path"], data["inode"], data["offset"]
            if isinstance(path, str) and isinstance(inode, int) and isinstance(offset, int):
                return FileCursor(path, inode, max(0, offset))
    except (KeyError, TypeError):
        return None
    return None
