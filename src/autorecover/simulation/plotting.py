"""The comparison as a PNG, written with the standard library (zlib): no plotting dependency.

Left, each policy's ETTR as a bar; right, nodes out of service over the run, one line per
policy. Text is drawn with a small 5x7 bitmap font (upper case, digits, a few signs).
"""

from __future__ import annotations

import itertools
import struct
import zlib
from pathlib import Path
from typing import Any

_GLYPHS = {
    "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14),
    "2": (14, 17, 1, 2, 4, 8, 31), "3": (31, 2, 4, 2, 1, 17, 14),
    "4": (2, 6, 10, 18, 31, 2, 2), "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8),
    "8": (14, 17, 17, 14, 17, 17, 14), "9": (14, 17, 17, 15, 1, 2, 12),
    "A": (14, 17, 17, 17, 31, 17, 17), "B": (30, 17, 17, 30, 17, 17, 30),
    "C": (14, 17, 16, 16, 16, 17, 14), "D": (28, 18, 17, 17, 17, 18, 28),
    "E": (31, 16, 16, 30, 16, 16, 31), "F": (31, 16, 16, 30, 16, 16, 16),
    "G": (14, 17, 16, 23, 17, 17, 15), "H": (17, 17, 17, 31, 17, 17, 17),
    "I": (14, 4, 4, 4, 4, 4, 14), "J": (7, 2, 2, 2, 2, 18, 12),
    "K": (17, 18, 20, 24, 20, 18, 17), "L": (16, 16, 16, 16, 16, 16, 31),
    "M": (17, 27, 21, 21, 17, 17, 17), "N": (17, 17, 25, 21, 19, 17, 17),
    "O": (14, 17, 17, 17, 17, 17, 14), "P": (30, 17, 17, 30, 16, 16, 16),
    "Q": (14, 17, 17, 17, 21, 18, 13), "R": (30, 17, 17, 30, 20, 18, 17),
    "S": (15, 16, 16, 14, 1, 1, 30), "T": (31, 4, 4, 4, 4, 4, 4),
    "U": (17, 17, 17, 17, 17, 17, 14), "V": (17, 17, 17, 17, 17, 10, 4),
    "W": (17, 17, 17, 21, 21, 21, 10), "X": (17, 17, 10, 4, 10, 17, 17),
    "Y": (17, 17, 17, 10, 4, 4, 4), "Z": (31, 1, 2, 4, 8, 16, 31),
    ".": (0, 0, 0, 0, 0, 12, 12), "%": (24, 25, 2, 4, 8, 19, 3),
    "_": (0, 0, 0, 0, 0, 0, 31), "-": (0, 0, 0, 31, 0, 0, 0),
    ":": (0, 12, 12, 0, 12, 12, 0), "(": (2, 4, 8, 8, 8, 4, 2),
    ")": (8, 4, 2, 2, 2, 4, 8), "/": (0, 1, 2, 4, 8, 16, 0),
    ",": (0, 0, 0, 0, 12, 4, 8), " ": (0, 0, 0, 0, 0, 0, 0),
}  # fmt: skip
_COLOURS = ((200, 60, 60), (230, 140, 30), (150, 90, 200), (40, 120, 200), (30, 160, 90),
            (90, 90, 90), (180, 160, 40), (60, 180, 190))  # fmt: skip
_INK, _GRID, _WHITE = (30, 30, 30), (225, 225, 225), (255, 255, 255)
Colour = tuple[int, int, int]


class Canvas:
    """An RGB raster with rectangles, lines and text."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(_WHITE * (width * height))

    def dot(self, x: int, y: int, c: Colour) -> None:
        """One pixel (clipped)."""
        if 0 <= x < self.width and 0 <= y < self.height:
            i = 3 * (y * self.width + x)
            self.pixels[i : i + 3] = bytes(c)

    def rect(self, x0: int, y0: int, x1: int, y1: int, c: Colour) -> None:
        """A filled rectangle."""
        for y in range(max(y0, 0), min(y1, self.height)):
            for x in range(max(x0, 0), min(x1, self.width)):
                self.dot(x, y, c)

    def line(self, x0: int, y0: int, x1: int, y1: int, c: Colour, width: int = 1) -> None:
        """A straight line (Bresenham), `width` pixels thick."""
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        while True:
            for w in range(width):
                self.dot(x0, y0 + w, c)
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x: int, y: int, s: str, c: Colour = _INK, scale: int = 2) -> int:
        """Write `s` with its top left at (x, y); the x after it."""
        for ch in s.upper():
            rows = _GLYPHS.get(ch, _GLYPHS[" "])
            for r, bits in enumerate(rows):
                for col in range(5):
                    if bits >> (4 - col) & 1:
                        self.rect(x + col * scale, y + r * scale,
                                  x + (col + 1) * scale, y + (r + 1) * scale, c)  # fmt: skip
            x += 6 * scale
        return x

    def png(self) -> bytes:
        """The raster as PNG bytes."""
        stride = 3 * self.width
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * stride : (y + 1) * stride]) for y in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        head = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head)
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))  # fmt: skip


def render(doc: dict[str, Any], width: int = 1200, height: int = 560) -> Canvas:
    """Draw the report `doc` (from `reports.report`)."""
    cv = Canvas(width, height)
    policies = doc["policies"]
    title = f"{doc['gpus']} GPUS, {doc['days']:g} DAYS, {doc['study']['name']}, SEED {doc['seed']}"
    cv.text(20, 14, title, scale=2)
    # Left: ETTR bars.
    cv.text(20, 50, "ETTR (GOODPUT)", scale=2)
    values = [p["ettr"] for p in policies.values()]
    low = min(0.8, (int(min(values, default=0.8) * 20) / 20))
    x0, x1 = 300, 560
    y = 84
    for i, (name, p) in enumerate(policies.items()):
        colour = _COLOURS[i % len(_COLOURS)]
        cv.text(20, y + 4, name, scale=2)
        span = max(0.0, (p["ettr"] - low) / (1.0 - low)) if low < 1 else 0.0
        cv.rect(x0, y, x0 + int((x1 - x0) * span), y + 24, colour)
        cv.text(x0 + int((x1 - x0) * span) + 6, y + 5, f"{p['ettr'] * 100:.2f}%", scale=2)
        y += 40
    cv.line(x0, 80, x0, y, _INK)
    cv.text(x0 - 20, y + 6, f"{low * 100:.0f}%", scale=2)
    cv.text(x1 - 30, y + 6, "100%", scale=2)
    # Right: nodes out of service over time.
    px0, px1, py0, py1 = 720, width - 30, 84, height - 60
    cv.text(px0 - 40, 50, "NODES OUT OF SERVICE, HOURLY", scale=2)
    series = [p["nodes_out_of_service"]["hourly"] for p in policies.values()]
    top = max([1, *(max(s, default=0) for s in series)])
    hours = max([1, *(len(s) for s in series)])
    for k in range(5):
        gy = py1 - (py1 - py0) * k // 4
        cv.line(px0, gy, px1, gy, _GRID)
        cv.text(px0 - 44, gy - 7, f"{top * k // 4:>3}", scale=2)
    for i, s in enumerate(series):
        colour = _COLOURS[i % len(_COLOURS)]
        pts = [(px0 + (px1 - px0) * h // hours, py1 - (py1 - py0) * v // top) for h, v in
               enumerate(s)]  # fmt: skip
        for (ax, ay), (bx, by) in itertools.pairwise(pts):
            cv.line(ax, ay, bx, by, colour, width=2)
    cv.line(px0, py1, px1, py1, _INK)
    cv.line(px0, py0, px0, py1, _INK)
    cv.text(px0, py1 + 10, "0", scale=2)
    cv.text(px1 - 80, py1 + 10, f"{doc['days']:g} DAYS", scale=2)
    return cv


def write_plot(doc: dict[str, Any], path: Path) -> None:
    """Write the report's plot as a PNG file."""
    try:
        path.write_bytes(render(doc).png())
    except OSError as exc:
        raise OSError(f"cannot write the plot {path}: {exc.strerror or exc}") from None
