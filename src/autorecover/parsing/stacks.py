"""Rank stacks from the telemetry library's `hang` records (`domain/hangs.py` compares them).

An autorecover `hang` record carries `stacks` as an object keyed by thread name (flattened to
`stacks.<thread>`); the NVIDIA form carries it as one JSON string in `event.metrics.stacks`.
Each stack is `traceback.format_stack` text. Only the main thread counts: it is the one that
runs the training loop and its collectives.

Where torch's flight recorder ran, the record also carries `collectives`, an object keyed by
process group (flattened to `collectives.<group>.<field>`; one JSON string in
`event.metrics.collectives` in the NVIDIA form): `seq`, `op`, `state` of the group's newest
collective and `desc` are read; the group's counters (`enqueued`, `started`, `completed`) are
not, since they count point-to-point operations too and so are on another scale than `seq`.
"""

from __future__ import annotations

import json
import re

from autorecover.domain.collectives import GroupState
from autorecover.domain.hangs import Frame, RankStack
from autorecover.parsing.telemetry_records import TelemetryRecord, Value

MAIN_THREAD = "MainThread"
MAX_FRAMES = 200
MAX_GROUPS = 64
MAX_TEXT = 200
_FRAME = re.compile(r'File "([^"\n]{1,500})", line (\d{1,9}), in ([^\s]{1,200})')


def rank_stack(node: str, line: int, record: TelemetryRecord) -> RankStack | None:
    """The main thread's stack and the flight-recorder summary of one `hang` record; None if
    it has neither."""
    if record.event != "hang":
        return None
    text = _main_stack(record) or ""
    frames = tuple(Frame(m.group(1), int(m.group(2)), m.group(3)) for m in _FRAME.finditer(text))[
        -MAX_FRAMES:
    ]
    groups = collectives(record)
    if not frames and not groups:
        return None
    rank = record.rank if record.rank is not None else 0
    return RankStack(node=node, rank=rank, at=record.ts, line=line, frames=frames,
                     collectives=groups)  # fmt: skip


def collectives(record: TelemetryRecord) -> tuple[GroupState, ...]:
    """The `collectives` of a `hang` record, by group name; malformed entries are skipped."""
    raw: dict[str, dict[str, Value]] = {}
    for key, value in record.fields:
        if key.startswith("collectives."):
            group, _, field = key.removeprefix("collectives.").rpartition(".")
            if group:
                raw.setdefault(group, {})[field] = value
    packed = record.get_str("event.metrics.collectives")
    if packed is not None:
        try:
            decoded = json.loads(packed)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            for group, fields in decoded.items():
                if isinstance(fields, dict):
                    raw[str(group)] = {str(k): v for k, v in fields.items() if _scalar(v)}
    out = []
    for group in sorted(raw)[:MAX_GROUPS]:
        fields = raw[group]
        out.append(GroupState(group[:MAX_TEXT], _int(fields.get("seq")), _text(fields.get("op")),
                              _text(fields.get("state")), _text(fields.get("desc"))))  # fmt: skip
    return tuple(out)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return value[:MAX_TEXT] if isinstance(value, str) and value else None


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


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
