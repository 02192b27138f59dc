"""Records to text: ``autorecover/1`` JSON lines and NVIDIA ``[key=value | ...]`` records.

``autorecover.parsing.telemetry_records`` is the reader of both and therefore the contract;
this module may not import it (the library is standard library only), so tests round-trip
every event through it. Runs on the writer thread only.

NVIDIA mapping (what services built for NVIDIA's training-telemetry logger backend read):
a ``step`` record with its summary is one ``training_iterations`` event of the
``training_loop`` span; spans are ``start``/``stop`` records with NVIDIA span names
(``checkpoint_save_sync``, ``model_forward`` ...) and ``elapsed``; errors are ``type=error``
with JSON-quoted ``event.exception_*``; ``init`` is the ``main_function`` span's
``span_attributes``; ``hang``, ``drops`` and ``terminated`` are events of that name.
Identity goes into ``event.metrics`` (``rank``, ``world_size``, ``node_name`` ...).
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime

from autorecover.telemetry.identity import Identity
from autorecover.telemetry.records import RESERVED, Clean, Record

SCHEMA = "autorecover/1"
_NV_SPAN_NAMES = {
    "checkpoint_save": "checkpoint_save_sync",
    "forward": "model_forward",
    "backward": "model_backward",
    "optimizer": "optimizer_update",
    "validation": "validation_loop",
}
_NV_PHASES = {"data_loading": "dataloader", "optimizer": "optimizer_update"}
_NV_SUMMARY = {
    "steps_per_s": "iterations_per_second",
    "tokens_per_s": "tokens_per_second",
    "samples_per_s": "samples_per_second",
    "step_time_mean_s": "average_iteration_time",
    "step_time_p99_s": "p99_iteration_time",
    "window": "interval",
}
_NV_STEP = {"step_time_s": "last_iteration_time", "samples": "total_samples"}
_NV_STEP |= {"tokens": "total_tokens", "loss": "loss"}
_NV_CHECKPOINT = {"path": "checkpoint_directory", "size_bytes": "checkpoint_size"}
_NV_CHECKPOINT |= {"iteration": "current_iteration"}
_NV_QUOTED = ("error_message", "exception_type", "exception_message", "exception_traceback")
_NV_KEY_RE = re.compile(r"[^\s=|\[\]\"]+")
_NV_INT_RE = re.compile(r"-?(?:0|[1-9]\d{0,30})")
_NV_FLOAT_RE = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)")
_NV_LITERALS = frozenset({"True", "true", "False", "false", "None", "null"})


class Encoder:
    """Renders records for one process; identity is stamped on every line."""

    def __init__(self, identity: Identity, pid: int) -> None:
        self._rank = identity.rank
        common = {
            "job": identity.job,
            "local_rank": identity.local_rank,
            "node": identity.node,
            "restart": identity.restart_count,
        }
        self._common: dict[str, Clean] = {k: v for k, v in common.items() if v is not None}
        self._nv_identity: dict[str, Clean] = {"rank": identity.rank}
        self._pid = pid
        self._count = 0
        # NVIDIA records name the span they belong to; ours are all in these two.
        self._main_id = str(uuid.uuid4())
        self._loop_id = str(uuid.uuid4())

    def autorecover(self, record: Record) -> list[str]:
        """Render ``record`` as autorecover/1 JSON lines (two for a step with a summary)."""
        lines = [self._json(record.event, record, record.fields)]
        if record.summary is not None:
            lines.append(self._json("summary", record, record.summary))
        return lines

    def nvidia(self, record: Record) -> list[str]:
        """Render ``record`` as one NVIDIA logger-backend record."""
        self._count += 1
        flat: dict[str, Clean] = {"pid": self._pid, "count": self._count}
        metrics: dict[str, Clean] = dict(self._nv_identity)
        fields = record.fields
        kind, name, span_id, event_name = "event", "main_function", self._main_id, record.event
        if record.event == "step":
            name, span_id, event_name = "training_loop", self._loop_id, "training_iterations"
            metrics["current_iteration"] = record.step
            metrics |= _renamed(fields, _NV_STEP)
            metrics |= _nv_summary(record.summary or {})
        elif record.event in ("span_start", "span_end"):
            name = _NV_SPAN_NAMES.get(record.name or "", record.name or "span")
            span_id = str(fields.get("span_id") or span_id)
            kind = "start" if record.event == "span_start" else "stop"
            event_name = "span_start" if kind == "start" else "span_stop"
            if kind == "stop":
                flat["elapsed"] = fields.get("duration_s")
            metrics |= _renamed(fields, _NV_CHECKPOINT)
            skip = {"span_id", "duration_s", *_NV_CHECKPOINT}
            metrics |= {k: v for k, v in fields.items() if k not in skip}
        elif record.event == "error":
            kind = "error"
            thread = fields.get("thread")
            fatal = "uncaught exception" if fields.get("uncaught") else "error"
            flat["event.error_message"] = f"{fatal} in thread {thread}" if thread else fatal
            flat["event.exception_type"] = fields.get("type")
            flat["event.exception_message"] = fields.get("message")
            flat["event.exception_traceback"] = fields.get("traceback")
            metrics["current_iteration"] = record.step
            metrics |= {k: v for k, v in fields.items() if k in ("thread", "fatal", "uncaught")}
        elif record.event == "init":
            event_name = "span_attributes"
            metrics |= {"node_name": self._common.get("node"), "job_name": self._common.get("job")}
            metrics["local_rank"] = self._common.get("local_rank")
            metrics["job_restart_count"] = fields.get("restart_count")
            metrics |= {k: v for k, v in fields.items() if k != "restart_count"}
        else:  # hang, drops and anything newer: the fields as metrics, nested ones as JSON
            metrics |= {k: _flat_value(v) for k, v in fields.items()}
            metrics["current_iteration"] = record.step  # the record's step wins over a field
        flat |= {"type": kind, "name": name, "id": span_id, "event.name": event_name}
        flat["event.timestamp"] = _iso(record.ts, "+00:00")
        flat |= {f"event.metrics.{k}": v for k, v in metrics.items()}
        return [_nv_line(flat)]

    def _json(self, event: str, record: Record, fields: object) -> str:
        """One autorecover/1 JSON line."""
        obj: dict[str, object] = {"telemetry": SCHEMA}
        ts = _iso(record.ts, "Z")
        if ts is not None:
            obj["ts"] = ts
        obj["rank"] = self._rank
        obj["event"] = event
        if record.step is not None:
            obj["step"] = record.step
        if record.name is not None and event != "summary":
            obj["name"] = record.name
        obj |= self._common
        if isinstance(fields, dict):
            obj |= {k: v for k, v in fields.items() if k not in RESERVED}
        return json.dumps(obj, separators=(",", ":"), allow_nan=False)


def _iso(ts: float, utc: str) -> str | None:
    """Epoch seconds as ISO-8601 UTC with microseconds; None if out of range."""
    try:
        text = datetime.fromtimestamp(ts, UTC).isoformat(timespec="microseconds")
    except (OverflowError, OSError, ValueError):
        return None
    return text.replace("+00:00", utc)


def _renamed(fields: object, names: dict[str, str]) -> dict[str, Clean]:
    """The fields named in ``names``, under NVIDIA's names."""
    if not isinstance(fields, dict):
        return {}
    return {theirs: fields[ours] for ours, theirs in names.items() if ours in fields}


def _nv_summary(summary: object) -> dict[str, Clean]:
    """Summary fields under NVIDIA's iteration-metric names."""
    out = _renamed(summary, _NV_SUMMARY)
    if isinstance(summary, dict):
        for key, value in summary.items():
            if key.endswith("_mean_s") and key != "step_time_mean_s":
                phase = key.removesuffix("_mean_s")
                out[f"average_{_NV_PHASES.get(phase, phase)}_time"] = value
    return out


def _flat_value(value: Clean) -> Clean:
    """Objects, and lists holding them, become one JSON text (keys cannot hold thread names)."""
    if isinstance(value, dict) or (
        isinstance(value, list) and any(isinstance(v, dict | list) for v in value)
    ):
        return json.dumps(value, separators=(",", ":"))
    return value


def _nv_line(flat: dict[str, Clean]) -> str:
    """Render ``[type=... | k=v | ...]`` with keys reverse-sorted, as NVIDIA's backend does."""
    items = []
    for key, value in sorted(flat.items(), reverse=True):
        if value is None or not _NV_KEY_RE.fullmatch(key):
            continue
        quote = isinstance(value, str) and key.rsplit(".", 1)[-1] in _NV_QUOTED
        items.append(f"{key}={json.dumps(value) if quote else _nv_text(value)}")
    return "[" + " | ".join(items) + "]"


def _nv_text(value: Clean) -> str:
    """Render a value the way the NVIDIA parser reads back unchanged."""
    if isinstance(value, list):
        return json.dumps(value)
    if isinstance(value, dict):
        return json.dumps(json.dumps(value, separators=(",", ":")))
    if not isinstance(value, str):
        return repr(value)
    plain = (
        value.isprintable()
        and value == value.strip()
        and not any(c in value for c in '|[]"\\')
        and value not in _NV_LITERALS
        and not _NV_INT_RE.fullmatch(value)
        and not _NV_FLOAT_RE.fullmatch(value)
    )
    return value if plain else json.dumps(value)
