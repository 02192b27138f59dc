"""A file re-read when it changes: the engine's tokens file, rotated without a restart.

`current()` looks at the file's identity (inode, size, modification and change times) at
most every `recheck_s` and parses it again when that changed. A Kubernetes Secret volume
swaps a symlink on update; `stat` follows it, so that is a change too. A file that cannot
be read or parsed after the first load keeps the last good contents in force (logged): a
half-written edit must neither lock everyone out nor let anyone in. The first load raises.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class ReloadingFile(Generic[T]):
    """The parsed contents of one file, kept current."""

    def __init__(
        self,
        path: Path,
        parse: Callable[[str, str], T],
        *,
        recheck_s: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self._parse = parse
        self.recheck_s = recheck_s
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self.loads = 0  # successful (re)loads, for tests and logs
        self.last_error = ""
        stamp = self._stamp()
        self._value = self._load()  # OSError / the parser's error: the caller says why
        self._seen = stamp
        self._checked = monotonic()

    def current(self) -> T:
        """The contents in force now (re-read first when the file changed)."""
        now = self._monotonic()
        if now - self._checked < self.recheck_s:
            return self._value
        with self._lock:
            if now - self._checked < self.recheck_s:
                return self._value
            self._checked = now
            try:
                stamp = self._stamp()
            except OSError as exc:
                self._failed(f"cannot read {self.path}: {exc}")
                return self._value
            if stamp == self._seen:
                return self._value
            try:
                value = self._load()
            except (OSError, ValueError) as exc:
                self._failed(f"{exc}")
                return self._value
            self._value, self._seen = value, stamp
            log.info("%s re-read (%d)", self.path, self.loads)
            return value

    def _stamp(self) -> tuple[int, int, int, int]:
        st = self.path.stat()
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def _load(self) -> T:
        value = self._parse(self.path.read_text(encoding="utf-8"), str(self.path))
        self.loads += 1
        self.last_error = ""
        return value

    def _failed(self, message: str) -> None:
        if message != self.last_error:
            log.error("%s; keeping the last good contents", message)
        self.last_error = message
