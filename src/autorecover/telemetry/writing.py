"""The bounded queue between the training thread and the output, and the thread that drains it.

The training thread only ever calls ``submit``, which never blocks nor wakes the writer (it
writes every ``WAKE_S``, or at once on ``flush``, ``close`` or a half-full queue): when the
queue is full the record is dropped and counted, and the writer reports the count in a
``drops`` record as soon as it has room. Rendering, checkpoint-size measurement and every
write happen on the writer thread. ``flush`` waits (with a timeout) until everything queued
before it is written: that is how a dying process gets its error record out.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from autorecover.telemetry.outputs import Output
from autorecover.telemetry.records import Record

MAX_BATCH = 512
WAKE_S = 0.2  # the writer writes what is queued at least this often (see `_run`)
WAKE_EVERY = 16  # every so many records, `submit` looks whether the queue is half full
MAX_WALK = 100_000  # directory entries a checkpoint-size walk may visit


class _Flush:
    """A marker: its event is set once everything queued before it is written."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


_STOP = object()


class Writer:
    """Renders and writes records on a background thread (or on flush, without one)."""

    def __init__(
        self,
        output: Output,
        render: Callable[[Record], list[str]],
        drops_record: Callable[[int, int], Record],
        on_error: Callable[[str, BaseException], None],
        *,
        queue_size: int = 1024,
        owned: bool = False,
    ) -> None:
        self._output = output
        self._render = render
        self._drops_record = drops_record
        self._on_error = on_error
        self._owned = owned
        self._queue: queue.Queue[object] = queue.Queue(maxsize=max(1, queue_size))
        self._half = max(1, queue_size // 2)
        self._wake = threading.Event()  # set: write now (flush, close, a filling queue)
        self._lock = threading.Lock()  # counters are bumped from several threads
        self._thread: threading.Thread | None = None
        self._enabled = True
        self.submitted = 0
        self.written = 0
        self.dropped = 0
        self.write_errors = 0
        self._reported = 0

    def start(self) -> None:
        """Start the daemon writer thread (a daemon, so it can never keep a process alive)."""
        if self._thread is None and self._enabled:
            self._thread = threading.Thread(
                target=self._run, name="autorecover-telemetry-writer", daemon=True
            )
            self._thread.start()

    def submit(self, record: Record, timeout_s: float = 0.0) -> bool:
        """Queue ``record``; False (and counted) if the queue stayed full or writing is off."""
        if not self._enabled:
            return False
        try:
            if timeout_s > 0:
                self._wake.set()  # the caller waits for room: make some
                self._queue.put(record, timeout=timeout_s)
            else:
                self._queue.put_nowait(record)
        except queue.Full:
            with self._lock:
                self.dropped += 1
            return False
        with self._lock:
            self.submitted += 1
            if self.submitted % WAKE_EVERY == 0 and self._queue.qsize() >= self._half:
                self._wake.set()  # a burst: write before the queue fills
        return True

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Wait until all records queued so far are written; False on timeout."""
        if not self._enabled:
            return False
        thread = self._thread
        if thread is None or not thread.is_alive():
            self._drain()
            return True
        if thread is threading.current_thread():
            return False
        marker = _Flush()
        try:
            self._queue.put(marker, timeout=timeout_s)
        except queue.Full:
            return False
        self._wake.set()
        return marker.done.wait(timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        """Write what is queued, stop the thread, close an output opened by the recorder."""
        if not self._enabled:
            return
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            self._wake.set()
            with contextlib.suppress(queue.Full):
                self._queue.put(_STOP, timeout=timeout_s)
            self._wake.set()
            thread.join(timeout_s)
        else:
            self._drain()
        self._enabled = False
        if self._owned:
            try:
                self._output.close()  # type: ignore[attr-defined]
            except Exception as exc:
                self._on_error("close output", exc)

    def disable(self) -> None:
        """Write nothing more, ever (a forked child must not write its parent's records)."""
        self._enabled = False

    def _run(self) -> None:
        """Thread body: every ``WAKE_S`` (or when ``flush``, ``close`` or a filling queue
        wakes it), write what is queued, in batches.

        A record does not wake the writer: waking it at once made it take the GIL to render
        while the training thread was still running Python after the step that queued the
        record (~230 µs of a report's ~650 µs, measured in a Lightning loop). Woken on a
        timer, it mostly renders while the training thread is inside torch, GIL released.
        """
        while True:
            self._wake.wait(WAKE_S)
            self._wake.clear()
            while True:
                batch: list[object] = []
                while len(batch) < MAX_BATCH:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                if not batch:
                    break
                if self._write_batch(batch):
                    return

    def _drain(self) -> None:
        """Write everything queued, on the caller's thread (no writer thread running)."""
        while True:
            batch: list[object] = []
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._write_batch(batch)
            if len(batch) < MAX_BATCH:
                return

    def _write_batch(self, batch: list[object]) -> bool:
        """Write a batch and any drop report, flush, release flush waiters; True on stop."""
        stop = False
        markers: list[_Flush] = []
        lines: list[str] = []
        for item in batch:
            if item is _STOP:
                stop = True
            elif isinstance(item, _Flush):
                markers.append(item)
            elif isinstance(item, Record):
                lines.extend(self._lines(item))
        with self._lock:
            unreported = self.dropped - self._reported
            self._reported = self.dropped
        if unreported:
            lines.extend(self._lines(self._drops_record(unreported, self._reported)))
        if lines:
            try:
                self._output.write("".join(line + "\n" for line in lines))
                self._output.flush()
                self.written += len(lines)
            except Exception as exc:  # a closed stream, a full disk: count, go on
                self.write_errors += 1
                self._on_error("write", exc)
        for marker in markers:
            marker.done.set()
        return stop

    def _lines(self, record: Record) -> list[str]:
        """Render one record; a record that cannot be rendered is counted and skipped."""
        try:
            if record.size_of is not None and "size_bytes" not in record.fields:
                size = path_size(record.size_of)
                if size is not None:
                    record = replace(record, fields={**record.fields, "size_bytes": size})
            return self._render(record)
        except Exception as exc:
            self._on_error(f"render {record.event}", exc)
            return []


def path_size(path: str) -> int | None:
    """Bytes in a file, or in a directory tree (at most ``MAX_WALK`` entries); None on error."""
    try:
        root = Path(path)
        if not root.is_dir():
            return root.stat().st_size
        total, seen = 0, 0
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                seen += 1
                if seen > MAX_WALK:
                    return None  # too big to measure cheaply: better no size than a wrong one
                with contextlib.suppress(OSError):
                    total += (Path(dirpath) / name).stat().st_size
        return total
    except OSError:
        return None
