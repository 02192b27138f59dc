"""The records the recorder queues for the writer, and the value rules they follow.

A ``Record`` holds one event as plain data; identity fields (rank, job, node ...) are added
by the encoder, so records stay small and identity is written the same way on every line.
Values are cleaned once, when the record is built (never per step): JSON scalars, lists and
string-keyed dicts only; non-finite floats become the strings ``"nan"``, ``"inf"``,
``"-inf"`` so every line stays strict JSON; long strings are cut.
"""

from __future__ import annotations

import contextlib
import math
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field

MAX_TEXT = 65_536  # per string value; keeps a line far below the parser's 1,000,000 chars
MAX_TRACEBACK = 32_768
RESERVED = frozenset({"telemetry", "event", "ts", "rank", "step", "name"})
IDENTITY_KEYS = frozenset({"job", "local_rank", "node", "restart"})

Clean = None | bool | int | float | str | list["Clean"] | dict[str, "Clean"]


@dataclass(frozen=True, slots=True)
class Record:
    """One event for the writer: ``ts`` is wall-clock seconds since the epoch.

    ``summary`` rides along with a ``step`` record (one progress report, two JSON lines,
    one NVIDIA line). ``size_of`` asks the writer thread to measure a checkpoint path,
    so that no file-system walk happens on the training thread.
    """

    event: str
    ts: float
    fields: Mapping[str, Clean] = field(default_factory=dict)
    step: int | None = None
    name: str | None = None
    summary: Mapping[str, Clean] | None = None
    size_of: str | None = None


def clean(value: object, depth: int = 0) -> Clean:
    """Return ``value`` as a JSON-safe value (see the module docstring)."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _nonfinite(value)
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "...[cut]"
    if depth < 4 and isinstance(value, Mapping):
        return {str(k): clean(v, depth + 1) for k, v in list(value.items())[:256]}
    if depth < 4 and isinstance(value, list | tuple):
        return [clean(v, depth + 1) for v in value[:256]]
    return _number_or_text(value)


def clean_fields(fields: Mapping[str, object]) -> dict[str, Clean]:
    """Clean every value; keys the schema reserves or that carry identity are skipped."""
    return {
        str(k): clean(v)
        for k, v in fields.items()
        if k not in RESERVED and k not in IDENTITY_KEYS and v is not None
    }


def error_fields(exc: BaseException) -> dict[str, Clean]:
    """Type, message and traceback of ``exc`` (the end of a long traceback is kept)."""
    kind = type(exc)
    module = getattr(kind, "__module__", "")
    name = kind.__qualname__ if module in ("builtins", "") else f"{module}.{kind.__qualname__}"
    try:
        text = "".join(traceback.format_exception(exc))
    except Exception:  # a broken __str__ must not lose the record
        text = f"{name}: <traceback unavailable>"
    if len(text) > MAX_TRACEBACK:
        text = "...[cut]\n" + text[-MAX_TRACEBACK:]
    return {"type": name, "message": clean(_safe_str(exc)), "traceback": text}


def _safe_str(exc: BaseException) -> str:
    """``str(exc)``, or a placeholder when its ``__str__`` raises."""
    try:
        return str(exc)
    except Exception:
        return "<unprintable message>"


def _nonfinite(value: float) -> str:
    """Spell a NaN or infinity as text."""
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


def _number_or_text(value: object) -> Clean:
    """Numbers from other libraries (numpy, torch scalars) become Python numbers."""
    # A float tensor has __index__ too (it raises), so each conversion is tried in turn;
    # a tensor with many elements or a broken __float__ falls through to text. A tensor
    # still in its autograd graph (a loss kept as the model returned it: detaching it on
    # every step would cost more than this, once per report) is read without the graph.
    if getattr(value, "requires_grad", False):
        with contextlib.suppress(Exception):
            value = value.detach()  # type: ignore[attr-defined]
    # ``item()`` first (numpy and torch scalars and one-element arrays): it raises nothing
    # for a float tensor, where a failed ``__index__`` costs ~20 µs and slows what follows.
    item = getattr(value, "item", None)
    if callable(item):
        with contextlib.suppress(Exception):
            scalar = item()
            if isinstance(scalar, int | float):
                return clean(scalar)
    for convert in (_as_index, _as_float):
        with contextlib.suppress(Exception):
            return convert(value)
    with contextlib.suppress(Exception):
        return clean(str(value))
    return f"<{type(value).__name__}>"


def _as_index(value: object) -> Clean:
    """An integer-like value (``__index__``) as an int."""
    return int(value.__index__())  # type: ignore[attr-defined]


def _as_float(value: object) -> Clean:
    """A float-like value (``__float__``) as a cleaned float."""
    return clean(float(value))  # type: ignore[arg-type]
