"""Reading a byte stream as line-aligned chunks, and looking at lines near an offset.

Helpers of the scanner: every function works on a chunk of bytes and offsets into it, so
that Python runs per interesting line, never per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import BinaryIO

from autorecover.parsing.lines import find_embedded_time, parse_line

MAX_LINE_BYTES = 1 << 20  # a longer "line" is cut there: memory stays bounded
NEIGHBOUR_LINES = 64  # how far to look for a neighbour's timestamp


def chunks(stream: BinaryIO, chunk_bytes: int) -> Iterator[bytes]:
    """Yield the stream in chunks that each end at a line break (the last one may not).

    The only copy of a block joins the previous block's unfinished line to its complete ones.
    """
    carry = b""
    for block, filled in blocks(stream, chunk_bytes):
        cut = block.rfind(b"\n", 0, filled)
        if cut == -1:
            data = carry + block[:filled]
            if len(data) < max(MAX_LINE_BYTES, chunk_bytes):
                carry = data
                continue
            yield data  # an over-long line: cut it rather than grow without bound
            carry = b""
            continue
        with memoryview(block) as view:
            yield b"".join((carry, view[: cut + 1]))
            carry = bytes(view[cut + 1 : filled])
    if carry:
        yield carry


def blocks(stream: BinaryIO, size: int) -> Iterator[tuple[bytes | bytearray, int]]:
    """(buffer, bytes filled) per block of up to `size` bytes; one buffer is reused when the
    stream can read into it."""
    readinto = getattr(stream, "readinto", None)
    if readinto is None:
        while block := stream.read(size):
            yield block, len(block)
        return
    buf = bytearray(max(size, 1))
    while True:
        filled = 0
        with memoryview(buf) as view:
            while filled < len(buf):
                got = readinto(view[filled:])
                if not got:
                    break
                filled += got
        if not filled:
            return
        yield buf, filled


_ANSI = re.compile(rb"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]")


def strip_ansi(chunk: bytes) -> bytes:
    """`chunk` without terminal escape sequences (colours, cursor moves); newlines stay put."""
    return _ANSI.sub(b"", chunk)


def decode(raw: bytes) -> str:
    return raw[:MAX_LINE_BYTES].decode("utf-8", errors="replace").rstrip("\r")


def line_iter_backward(chunk: bytes, stop: int, limit: int) -> Iterator[tuple[int, int]]:
    """(start, end) of up to `limit` lines ending before offset `stop`, nearest first."""
    end = stop
    for _ in range(limit):
        if end <= 0:
            return
        start = chunk.rfind(b"\n", 0, end - 1) + 1
        yield start, end
        end = start


def line_iter_forward(chunk: bytes, start: int, limit: int) -> Iterator[tuple[int, int]]:
    """(start, end) of up to `limit` lines beginning at offset `start`, in order; `end` is the
    offset of a line's newline (or the chunk's end)."""
    pos = start
    for _ in range(limit):
        if pos >= len(chunk):
            return
        end = chunk.find(b"\n", pos)
        end = len(chunk) if end == -1 else end
        yield pos, end
        pos = end + 1


def time_of(raw: bytes, reference: datetime) -> datetime | None:
    parsed = parse_line(decode(raw.rstrip(b"\n")), reference)
    return parsed.at or find_embedded_time(parsed.message)


def first_time(chunk: bytes, reference: datetime) -> datetime | None:
    for s, e in line_iter_forward(chunk, 0, NEIGHBOUR_LINES):
        at = time_of(chunk[s:e], reference)
        if at is not None:
            return at
    return None


def last_time(chunk: bytes, reference: datetime) -> datetime | None:
    for start, end in line_iter_backward(chunk, len(chunk), NEIGHBOUR_LINES):
        at = time_of(chunk[start:end], reference)
        if at is not None:
            return at
    return None


def last_lines_with(chunk: bytes, markers: tuple[bytes, ...], limit: int) -> list[str]:
    """Up to `limit` of the chunk's last lines containing any marker."""
    out: list[str] = []
    for marker in markers:
        end = len(chunk)
        while len(out) < limit:
            pos = chunk.rfind(marker, 0, end)
            if pos == -1:
                break
            start = chunk.rfind(b"\n", 0, pos) + 1
            stop = chunk.find(b"\n", pos)
            out.append(decode(chunk[start : len(chunk) if stop == -1 else stop]))
            end = start
    return out


def last_lines_at(
    chunk: bytes, markers: tuple[bytes, ...], marker_ends: list[list[int]], limit: int
) -> list[str]:
    """`last_lines_with`, from the sorted end offsets of every marker occurrence."""
    out: list[str] = []
    for marker, ends in zip(markers, marker_ends, strict=True):
        end = len(chunk)
        for e in reversed(ends):
            if len(out) >= limit:
                break
            if e > end:
                continue  # on a line already taken
            pos = e - len(marker)
            start = chunk.rfind(b"\n", 0, pos) + 1
            stop = chunk.find(b"\n", pos)
            out.append(decode(chunk[start : len(chunk) if stop == -1 else stop]))
            end = start
    return out


def self_overlaps(marker: bytes) -> bool:
    """Whether two occurrences of `marker` can overlap (Hyperscan would count both)."""
    return any(marker[:k] == marker[-k:] for k in range(1, len(marker)))
