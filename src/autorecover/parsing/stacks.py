"""Rank stacks from the telemetry library's `hang` records (`domain/hangs.py` compares them).

An autorecover `hang` record carries `stacks` as an object keyed by thread name (flattened to
`stacks.<thread>`); the NVIDIA form carries it as one JSON string in `event.metrics.stacks`.
Each stack is `traceback.format_stack` text. Only the main thread counts: it is the one that
runs the training loop and its collectives.
"""

from __future__ import annotations

import json
import re

from autorecover.domain.hangs import Frame, RankStack
from autorecover.parsing.telemetry_records import TelemetryRecord

MAIN_THREAD = "MainThread"
MAX_FRAMES = 200
_FRAME = re.compile(r'File "([^"\n]{1,500})", line (\d{1,9}), in ([^\s]{1,200})')


def rank_stack(node: str, line: int, record: TelemetryRecord) -> RankStack | None:
    """The main thread's stack of one `hang` record; None if it has none."""
    if record.event != "hang":
        return None
    text = _main_stack(record)
    if text is None:
        return None
    frames = tuple(Frame(m.group(1), int(m.group(2)), m.group(3)) for m in _FRAME.finditer(text))[
        -MAX_FRAMES:
    ]
    if not frames:
        return None
    rank = record.rank if record.rank is not None else 0
    return RankStack(node=node, rank=rank, at=record.ts, line=line, frames=frames)


def _main_stack(record: TelemetryRecord) -> str | None:
    stacks: dict[str, str] = {}
    for key, value in record.fields:
        if key.startswith("stacks.") and isinstance(value, str):
            stacks[key.removeprefix("stacks.")] = value
    packed = record.get_str("event.metrics.stacks")
    if packed is not None:
        try:
            decoded = json.loads(packed)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            stacks.update({str(k): v for k, v in decoded.items() if isinstance(v, str)})
    if MAIN_THREAD in stacks:
        return stacks[MAIN_THREAD]
    return next(iter(stacks.values()), None)
