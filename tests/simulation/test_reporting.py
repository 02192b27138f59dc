"""The PNG the report draws and the progress bar on stderr."""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

from autorecover.simulation.plotting import render
from autorecover.simulation.progress import Bar


def _doc() -> dict[str, Any]:
    policy = {"ettr": 0.9, "nodes_out_of_service": {"hourly": [0, 3, 1, 2]}}
    return {
        "gpus": 16, "days": 1, "seed": 1, "study": {"name": "t"},
        "policies": {"manual": policy, "ideal": {**policy, "ettr": 0.99}},
    }  # fmt: skip


def test_the_plot_is_a_valid_png_with_the_bars_drawn() -> None:
    png = render(_doc(), width=400, height=200).png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", png[8:16])
    assert kind == b"IHDR" and struct.unpack(">II", png[16:24]) == (400, 200)
    assert (
        zlib.crc32(png[12 : 16 + length]) == struct.unpack(">I", png[16 + length : 20 + length])[0]
    )
    idat = png.index(b"IDAT")
    size = struct.unpack(">I", png[idat - 4 : idat])[0]
    raw = zlib.decompress(png[idat + 4 : idat + 4 + size])
    assert len(raw) == 200 * (1 + 3 * 400)
    assert len(set(raw)) > 3  # more than a blank page


def test_the_bar_redraws_only_when_it_moves_and_ends_its_line() -> None:
    out = io.StringIO()
    bar = Bar(out)
    bar.update("manual", 0.101)
    bar.update("manual", 0.104)  # still 10 %
    bar.update("ideal", 1.0)
    bar.done()
    text = out.getvalue()
    assert text.count("\r") == 2 and " 10% manual" in text and "100% ideal" in text
    assert text.endswith("\n")
