"""Structured training-telemetry lines: autorecover JSON lines and NVIDIA ``[k=v | ...]`` records.

Pure and standard library only; no function here raises on any input string.

**autorecover/1** — one JSON object per line, found at the first ``{"telemetry"`` in the line
(so ``srun -l``/torchrun/timestamp prefixes are skipped; text after the object is ignored).
``telemetry`` is ``"autorecover/<major>"`` (an optional ``.minor`` is ignored). Common keys:
``ts`` (ISO-8601), ``rank``, ``local_rank``, ``node``, ``job``, ``restart``. Events:

* ``step``: step, step_time_s, samples, tokens, loss (samples/tokens: totals since init)
* ``summary``: steps_per_s, tokens_per_s, step_time_mean_s, step_time_p99_s, window;
  optionally samples_per_s and ``<phase>_mean_s`` (time per step in a phase, e.g. forward)
* ``span_start`` / ``span_end``: name (checkpoint_save, checkpoint_load, data_loading, forward,
  backward, optimizer, validation, ...), span_id; checkpoints add path, size_bytes, iteration;
  ``span_end`` adds duration_s, ok (and error, the exception type, when not ok)
* ``error``: type, message, traceback; optionally uncaught, fatal, thread, context
* ``hang``: idle_s, threshold_s, in_checkpoint, stacks (an object keyed by thread name, so
  its entries arrive as ``stacks.<thread>``); where PyTorch's flight recorder runs,
  collectives (an object keyed by process group, arriving as ``collectives.<group>.<field>``:
  seq, op, state of the group's newest collective; desc, backend; enqueued, started,
  completed, the group's own counters; recent, a list of ``"<seq> <op> <state>"``) or
  collectives_error (why the dump failed). ``parsing/stacks.py`` reads them
* ``init``: job, rank, local_rank, world_size, node, restart_count; optionally launcher, pid,
  log_interval
* ``drops``: count (records the emitter had to drop since its last report), total
* ``terminated``: signal (``SIGTERM``, ``SIGINT``), signum, disposition (what the signal did
  next: ``default`` — the process died of it, or raised ``KeyboardInterrupt`` for SIGINT —,
  ``handler`` — the program's own handler ran —, ``ignore`` — the process went on); step is
  the last step seen. Written after the partial window's ``step`` and ``summary``.

Versioning: within a major version, events and optional fields may be added, never removed
or redefined. Non-finite numbers are written as the strings ``"nan"``, ``"inf"``,
``"-inf"``, so every line is strict JSON. Unknown event names are passed through unchanged.
A marker with another major version gives a record with ``event == "unsupported"`` and the
marker as its only field.

**NVIDIA training-telemetry** (logger backend) — ``[type=... | k=v | ...]``; keys are emitted
reverse-sorted so the record starts at ``[type=``. Nested dicts are flattened to ``a.b=v``;
``|`` splits items outside double quotes. ``type`` is start/stop/complete/event/error, the
span is ``id``/``name``, the payload is ``event.{name,timestamp,metrics.*}`` (or ``elapsed``,
``start_event.*``, ``stop_event.*``); errors carry JSON-quoted ``event.error_message``,
``event.exception_type``, ``event.exception_message``, ``event.exception_traceback``.
Mapping: type start → ``span_start``, stop/complete → ``span_end``, error → ``error``,
event ``training_iterations`` → ``step``, other events keep ``event.name``. Span names map to
this vocabulary (``checkpoint_save_{sync,async,finalization}`` → ``checkpoint_save``,
``model_forward`` → ``forward``, ...). ``fields`` keeps every flattened key verbatim.

Values: JSON values as decoded (nested objects flattened to dotted keys, lists become tuples
of scalars, non-scalar items JSON-encoded); NVIDIA values are converted when unambiguous
(canonical ints and finite floats, True/False/None, JSON-quoted strings, JSON lists), else kept
as text. Timestamps become aware UTC datetimes (naive means UTC). Malformed input gives None or a
partial record: a promoted attribute (ts, rank, step, name) of the wrong type becomes None.
Lines longer than ``MAX_LINE_CHARS`` are ignored.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypeAlias, TypeVar

Scalar: TypeAlias = str | int | float | bool | None
Value: TypeAlias = Scalar | tuple[Scalar, ...]
Format: TypeAlias = Literal["autorecover", "nvidia"]
_T = TypeVar("_T")

MAX_LINE_CHARS = 1_000_000
_FLOAT_MAX = 1.7976931348623157e308
SUPPORTED_MAJOR = 1
_MARKER = '{"telemetry"'
_NV_START = "[type="
_NV_TYPES = frozenset(
    {"start", "stop", "complete", "event", "error", "application_error", "telemetry_data_error"}
)
_RESERVED = ("telemetry", "event", "ts", "rank", "step", "name")
_VERSION_RE = re.compile(r"autorecover/(\d{1,6})(?:\.\d{1,6})?")
_INT_RE = re.compile(r"-?(?:0|[1-9]\d{0,30})")
_FLOAT_RE = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)")
_KEY_RE = re.compile(r"[^\s=|\[\]\"]+")
_NV_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.?)*"?|[\[\]|]|[^"\[\]|]+', re.DOTALL)
_SPAN_NAMES = {
    "checkpoint_save_sync": "checkpoint_save",
    "checkpoint_save_async": "checkpoint_save",
    "checkpoint_save_finalization": "checkpoint_save",
    "model_forward": "forward",
    "model_backward": "backward",
    "optimizer_update": "optimizer",
    "validation_loop": "validation",
}
_SPAN_NAMES_BACK = {ours: theirs for theirs, ours in reversed(_SPAN_NAMES.items())}
_NV_EVENT_NAMES = {"span_end": "span_stop", "step": "training_iterations"}
_NV_QUOTED = frozenset(
    {"error_message", "exception_type", "exception_message", "exception_traceback"}
)
_SECTIONS = ("event", "stop_event", "start_event")
_TS_KEYS = tuple(f"{s}.timestamp" for s in _SECTIONS)
_STEP_KEYS = tuple(f"{s}.metrics.current_iteration" for s in _SECTIONS)
_RANK_KEYS = tuple(f"{s}.metrics.rank" for s in _SECTIONS)
# nv-one-logger (the current NVIDIA library) puts everything under `<section>.attributes.`:
# milliseconds since the epoch, the iteration, and the rank (on its initialization event).
_ONE_SECTIONS = ("event", "stop_event", "start_event", "error")
_MSEC_KEYS = tuple(f"{s}.attributes.timestamp_msec" for s in _ONE_SECTIONS)
_ONE_STEP_KEYS = (
    *(f"{s}.attributes.current_iteration" for s in _ONE_SECTIONS),
    "attributes.current_iteration",
)
_ONE_RANK_KEYS = tuple(f"{s}.attributes.rank" for s in _ONE_SECTIONS)
_ONE_EVENTS = {  # nv-one-logger event names -> this vocabulary
    "training_metrics_update": "step",
    "save_checkpoint_success": "span_end",
    "one_logger_initialization": "init",
}
_ONE_EVENT_SPANS = {"save_checkpoint_success": "checkpoint_save"}
_MSEC_MAX = 253_402_300_799_000  # 9999-12-31


@dataclass(frozen=True, slots=True)
class TelemetryRecord:
    """One parsed telemetry record; ``fields`` is sorted by key, keys unique."""

    format: Format
    event: str
    ts: datetime | None = None
    rank: int | None = None
    step: int | None = None
    name: str | None = None
    fields: tuple[tuple[str, Value], ...] = ()

    def get(self, key: str, default: Value = None) -> Value:
        """Return the value of ``key`` in ``fields``, or ``default``."""
        for k, v in self.fields:
            if k == key:
                return v
        return default

    def get_int(self, key: str) -> int | None:
        """Return ``key`` if it is an int (not a bool), else None."""
        return _as_int(self.get(key))

    def get_float(self, key: str) -> float | None:
        """Return ``key`` as a float if it is numeric (not a bool), else None."""
        v = self.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float) or abs(v) > _FLOAT_MAX:
            return None
        return float(v)

    def get_str(self, key: str) -> str | None:
        """Return ``key`` if it is a string, else None."""
        v = self.get(key)
        return v if isinstance(v, str) else None

    def get_bool(self, key: str) -> bool | None:
        """Return ``key`` if it is a bool, else None."""
        v = self.get(key)
        return v if isinstance(v, bool) else None

    def as_dict(self) -> dict[str, Value]:
        """Return ``fields`` as a new dict."""
        return dict(self.fields)

    @property
    def supported(self) -> bool:
        """False for autorecover lines of an unsupported major version."""
        return self.event != "unsupported"

    @property
    def duration_s(self) -> float | None:
        """Span duration in seconds (autorecover ``duration_s``, NVIDIA ``elapsed``)."""
        return self.get_float("duration_s" if self.format == "autorecover" else "elapsed")

    @property
    def error_type(self) -> str | None:
        """Exception type of an error record."""
        if self.format == "autorecover":
            return self.get_str("type")
        return self.get_str("event.exception_type") or self.get_str(
            "event.attributes.exception_type"
        )

    @property
    def error_message(self) -> str | None:
        """Message of an error record."""
        if self.format == "autorecover":
            return self.get_str("message")
        for key in ("exception_message", "error_message"):
            for section in ("event.", "event.attributes."):
                if (text := self.get_str(section + key)) is not None:
                    return text
        return None


def parse_telemetry(line: str) -> TelemetryRecord | None:
    """Parse either telemetry format from one log line; None for anything else."""
    try:
        if not isinstance(line, str) or len(line) > MAX_LINE_CHARS:
            return None
        if _MARKER in line:
            return parse_autorecover_line(line)
        if _NV_START in line:
            return parse_nvidia_record(line)
    except Exception:  # last-resort guard: a log parser must never take the engine down
        return None
    return None


def parse_autorecover_line(line: str) -> TelemetryRecord | None:
    """Parse an autorecover JSON telemetry line (prefixes allowed); None if not one."""
    if not isinstance(line, str) or len(line) > MAX_LINE_CHARS:
        return None
    start = line.find(_MARKER)
    if start < 0:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(line, start)
        if not isinstance(obj, dict):
            return None
        marker = obj.get("telemetry")
        match = _VERSION_RE.fullmatch(marker) if isinstance(marker, str) else None
        if match is None:
            return None
        if int(match.group(1)) != SUPPORTED_MAJOR:
            return TelemetryRecord("autorecover", "unsupported", fields=(("telemetry", marker),))
        event = obj.get("event")
        if not isinstance(event, str) or not event:
            return None
        flat: dict[str, Value] = {}
        for key, value in obj.items():
            if key not in _RESERVED:
                _flatten(str(key), value, flat)
    except (ValueError, RecursionError):
        return None
    name = obj.get("name")
    return TelemetryRecord(
        format="autorecover",
        event=event,
        ts=_parse_ts(obj.get("ts")),
        rank=_as_int(obj.get("rank")),
        step=_as_int(obj.get("step")),
        name=name if isinstance(name, str) else None,
        fields=_sorted(flat.items()),
    )


def parse_nvidia_record(line: str) -> TelemetryRecord | None:
    """Parse an NVIDIA ``[type=... | k=v | ...]`` record (prefixes allowed); None if not one."""
    if not isinstance(line, str) or len(line) > MAX_LINE_CHARS:
        return None
    start = line.find(_NV_START)
    if start < 0:
        return None
    flat: dict[str, Value] = {}
    for item in _nv_items(line, start):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if sep and _KEY_RE.fullmatch(key):
            flat[key] = _nv_value(raw)
    kind = flat.get("type")
    if not isinstance(kind, str) or kind not in _NV_TYPES:
        return None
    event_name = flat.get("event.name")
    name = _span_name(flat.get("name"))
    if kind == "start":
        event = "span_start"
    elif kind in ("stop", "complete"):
        event = "span_end"
    elif kind in ("error", "application_error") or event_name == "error":
        event = "error"
    elif kind == "telemetry_data_error":
        event = kind
    elif event_name == "training_iterations":
        event = "step"
    elif isinstance(event_name, str) and event_name in _ONE_EVENTS:
        event = _ONE_EVENTS[event_name]
        name = _ONE_EVENT_SPANS.get(event_name, name)
    else:
        event = event_name if isinstance(event_name, str) and event_name else "event"
    return TelemetryRecord(
        format="nvidia",
        event=event,
        ts=_first(flat, _TS_KEYS, _parse_ts) or _first(flat, _MSEC_KEYS, _parse_msec),
        rank=_first(flat, (*_RANK_KEYS, *_ONE_RANK_KEYS), _as_int),
        step=_first(flat, (*_STEP_KEYS, *_ONE_STEP_KEYS), _as_int),
        name=name,
        fields=_sorted(flat.items()),
    )


def format_autorecover(record: TelemetryRecord) -> str:
    """Render ``record`` as an autorecover/1 JSON line (reserved keys in fields are skipped)."""
    obj: dict[str, object] = {"telemetry": f"autorecover/{SUPPORTED_MAJOR}"}
    if record.ts is not None:
        obj["ts"] = record.ts.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if record.rank is not None:
        obj["rank"] = record.rank
    obj["event"] = record.event
    if record.step is not None:
        obj["step"] = record.step
    if record.name is not None:
        obj["name"] = record.name
    for key, value in record.fields:
        if key not in _RESERVED:
            obj[key] = list(value) if isinstance(value, tuple) else value
    return json.dumps(obj, separators=(",", ":"))


def format_nvidia(record: TelemetryRecord) -> str:
    """Render ``record`` as an NVIDIA logger-backend line; non-NVIDIA fields go to event.metrics."""
    if record.format == "nvidia":
        flat = dict(record.fields)
    else:
        flat = {f"event.metrics.{k}": v for k, v in record.fields}
    kind = {"span_start": "start", "error": "error"}.get(record.event, "event")
    if record.event == "span_end":
        kind = "complete" if flat.get("type") == "complete" else "stop"
    flat["type"] = kind
    section = "stop_event" if kind == "complete" else "event"
    if kind != "complete":
        flat["event.name"] = _NV_EVENT_NAMES.get(record.event, record.event)
    if _span_name(flat.get("name")) != record.name:
        flat.pop("name", None)
        if record.name is not None:
            flat["name"] = _SPAN_NAMES_BACK.get(record.name, record.name)
    ts = None if record.ts is None else record.ts.astimezone(UTC).isoformat()
    _put(flat, _TS_KEYS, f"{section}.timestamp", ts, record.ts, _parse_ts)
    step_key = f"{section}.metrics.current_iteration"
    _put(flat, _STEP_KEYS, step_key, record.step, record.step, _as_int)
    _put(flat, _RANK_KEYS, f"{section}.metrics.rank", record.rank, record.rank, _as_int)
    items = [f"type={kind}"]
    for key, value in sorted(flat.items(), reverse=True):
        quote = isinstance(value, str) and key.rsplit(".", 1)[-1] in _NV_QUOTED
        if key != "type":
            items.append(f"{key}={json.dumps(value) if quote else _nv_text(value)}")
    return "[" + " | ".join(items) + "]"


def _sorted(items: Iterable[tuple[str, Value]]) -> tuple[tuple[str, Value], ...]:
    """Return items deduplicated (last wins) and sorted by key."""
    return tuple(sorted(dict(items).items(), key=lambda kv: kv[0]))


def _as_int(value: object) -> int | None:
    """Return ``value`` if it is an int but not a bool."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _parse_ts(value: object) -> datetime | None:
    """Parse an ISO-8601 string into an aware UTC datetime (naive means UTC)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def _parse_msec(value: object) -> datetime | None:
    """Milliseconds since the epoch (nv-one-logger's ``timestamp_msec``) as an aware datetime."""
    number = _as_int(value)
    if number is None and isinstance(value, float) and math.isfinite(value):
        number = int(value)
    if number is None or not 0 < number < _MSEC_MAX:
        return None
    return datetime.fromtimestamp(number / 1000, tz=UTC)


def _span_name(value: object) -> str | None:
    """Map an NVIDIA span name onto the autorecover vocabulary."""
    return _SPAN_NAMES.get(value, value) if isinstance(value, str) else None


def _first(
    flat: dict[str, Value], keys: tuple[str, ...], conv: Callable[[object], _T | None]
) -> _T | None:
    """Return the first non-None conversion of ``flat[k]`` over ``keys``."""
    for key in keys:
        if key in flat and (out := conv(flat[key])) is not None:
            return out
    return None


def _put(
    flat: dict[str, Value],
    keys: tuple[str, ...],
    primary: str,
    text: Value,
    want: _T | None,
    conv: Callable[[object], _T | None],
) -> None:
    """Rewrite ``keys`` in ``flat`` only if they do not already yield ``want``."""
    if _first(flat, keys, conv) == want:
        return
    for key in keys:
        flat.pop(key, None)
    if want is not None:
        flat[primary] = text


def _flatten(key: str, value: object, out: dict[str, Value]) -> None:
    """Store a decoded JSON value under ``key``, flattening objects to dotted keys."""
    if isinstance(value, dict):
        for sub, inner in value.items():
            _flatten(f"{key}.{sub}", inner, out)
    elif isinstance(value, list):
        out[key] = tuple(_scalar(item) for item in value)
    else:
        out[key] = _scalar(value)


def _scalar(value: object) -> Scalar:
    """Return a JSON scalar as is, anything else as compact JSON text."""
    if value is None or isinstance(value, str | int | float):
        return value
    return json.dumps(value, separators=(",", ":"))


def _nv_items(line: str, start: int) -> list[str]:
    """Split the bracketed record at ``start`` on top-level ``|`` outside quotes."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for match in _NV_TOKEN_RE.finditer(line, start):
        piece = match.group()
        if piece == "[":
            depth += 1
            if depth == 1:
                continue
        elif piece == "]":
            depth -= 1
            if depth == 0:
                break
        elif piece == "|" and depth == 1:
            items.append("".join(current))
            current = []
            continue
        current.append(piece)
    items.append("".join(current))
    return items


def _nv_value(raw: str) -> Value:
    """Convert an NVIDIA value text when unambiguous, else return it stripped."""
    text = raw.strip()
    if text[:1] in ('"', "["):
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError):
            return text
        if isinstance(decoded, str) and text[0] == '"':
            return decoded
        if isinstance(decoded, list) and all(
            item is None or isinstance(item, str | int | float) for item in decoded
        ):
            return tuple(decoded)
        return text
    literal = {"True": True, "true": True, "False": False, "false": False}
    if text in literal:
        return literal[text]
    if text in ("None", "null"):
        return None
    if _INT_RE.fullmatch(text):
        return int(text)
    if _FLOAT_RE.fullmatch(text):
        number = float(text)
        return number if math.isfinite(number) else text
    return text


def _nv_text(value: Value) -> str:
    """Render a value so that ``_nv_value`` reads it back unchanged."""
    if isinstance(value, tuple):
        return json.dumps(list(value))
    if not isinstance(value, str):
        return repr(value)
    plain = (
        value.isprintable()
        and value == value.strip()
        and not any(c in value for c in '|[]"\\')
        and _nv_value(value) == value
    )
    return value if plain else json.dumps(value)
