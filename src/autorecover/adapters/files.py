"""Reading files a person hands us (bundles, catalog overrides) without hanging or bloating.

`open_regular` opens without blocking and checks the open file: a named pipe, a device, a
socket or a directory is refused with a one-line reason instead of hanging a read forever
(a FIFO) or reading without end (`/dev/zero`). `read_text` adds a size bound and UTF-8.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class UnreadableError(ValueError):
    """The file cannot be read as asked; the message names it and says why, in one line."""


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading (checked on the open file: no race, never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UnreadableError(f"{path}: cannot read: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnreadableError(f"{path}: not a regular file ({_kind(mode)}): refusing to read it")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_text(path: Path, max_bytes: int) -> str:
    """A regular file's text (UTF-8), at most `max_bytes` long."""
    with open_regular(path) as stream:
        try:
            data = stream.read(max_bytes + 1)
        except OSError as exc:
            raise UnreadableError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise UnreadableError(f"{path}: over {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableError(
            f"{path}: not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r}); "
            "is it a binary file?"
        ) from None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):  # fmt: skip
        if test(mode):
            return name
    return "not a plain file"
