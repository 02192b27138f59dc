"""Slurm's `--json` across data_parser versions: the newer shapes read as the 22.05 ones.

22.05 (openapi/v0.0.38) prints plain values. From 23.02 on, `squeue`/`scontrol --json` go
through the data_parser plugins (v0.0.39 in 23.02, v0.0.40 in 23.11, v0.0.41 in 24.05,
v0.0.42 in 24.11, v0.0.43 in 25.05), which changed the shape of the fields we read (see
SchedMD/slurm `src/plugins/data_parser/v0.0.4x/parsers.c`, and
tests/fixtures/slurm/json/README.md):

- numbers that may be unset or unlimited (`time_limit`, `node_count`, `array_task_id`, and from
  v0.0.40 every time) are `{"set": bool, "infinite": bool, "number": N}`;
- `job_state` is a list from v0.0.40 (`["PENDING", "REQUEUED"]`): base state plus flags;
- `exit_code` is that number object holding the wait status (v0.0.39), then from v0.0.40
  `{"status": "SIGNALED" | ["SIGNALED"], "return_code": {...}, "signal": {"id": {...}, ...}}`;
- a node's `state` is a list (`["MIXED", "DRAIN"]`) instead of a lower-case base word plus
  `state_flags`.

Each helper takes one raw field and either returns the 22.05 value or raises `SlurmParseError`
naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NO_VAL = 4294967294  # Slurm's NO_VAL: unset
INFINITE = 4294967295  # Slurm's INFINITE: unlimited

# job_state_string(): the flag Slurm shows instead of the base state, first one wins.
_JOB_FLAG_ORDER = ("COMPLETING", "STAGE_OUT", "CONFIGURING", "RESIZING", "REQUEUED",
                   "REQUEUE_FED", "REQUEUE_HOLD", "SPECIAL_EXIT", "STOPPED", "REVOKED",
                   "RESV_DEL_HOLD", "SIGNALING")  # fmt: skip
_JOB_BASES = frozenset(
    {"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
     "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}
)  # fmt: skip
_NODE_BASES = frozenset({"UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"})


class SlurmParseError(ValueError):
    """Slurm's answer is not in the expected shape."""


def _bad(key: str, expected: str, value: object) -> SlurmParseError:
    return SlurmParseError(f"field {key!r}: expected {expected}, got {value!r:.60}")


def number(raw: Mapping[str, Any], key: str, default: int) -> int:
    """An integer, plain (22.05) or a number object: unset -> default, unlimited -> INFINITE."""
    value = raw.get(key, default)
    if value is None:
        return default
    if isinstance(value, dict):
        return _number_object(value, key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(key, "a number", value)
    return value


def _number_object(value: Mapping[str, Any], key: str, default: int) -> int:
    is_set, infinite, num = value.get("set"), value.get("infinite", False), value.get("number")
    if not isinstance(is_set, bool) or not isinstance(infinite, bool):
        raise _bad(key, 'a {"set", "infinite", "number"} object', value)
    if infinite:
        return INFINITE
    if not is_set:
        return default
    if isinstance(num, bool) or not isinstance(num, int):
        raise _bad(key, "a number in 'number'", value)
    return num


def job_state(raw: Mapping[str, Any]) -> str:
    """`job_state` as the one word `scontrol` shows: a string, or a base state plus flags."""
    value = raw.get("job_state")
    if value is None:
        return "UNKNOWN"
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad("job_state", "a string or a list of strings", value)
    words = [v.upper() for v in value]
    for flag in _JOB_FLAG_ORDER:
        if flag in words:
            return flag
    bases = [w for w in words if w in _JOB_BASES]
    return bases[0] if bases else (words[0] if words else "UNKNOWN")


def exit_code(raw: Mapping[str, Any]) -> tuple[int, int]:
    """`exit_code` as (the script's exit status, the signal that ended it)."""
    value = raw.get("exit_code")
    if value is None:
        return 0, 0
    if isinstance(value, dict) and ("return_code" in value or "status" in value):
        status = value.get("status")
        words = [status] if isinstance(status, str) else status
        if words is not None and (
            not isinstance(words, list) or not all(isinstance(w, str) for w in words)
        ):
            raise _bad("exit_code", "a status word or list of words", status)
        returned = number(value, "return_code", NO_VAL)
        signal = value.get("signal")
        sig = number(signal, "id", NO_VAL) if isinstance(signal, dict) else NO_VAL
        if signal is not None and not isinstance(signal, dict):
            raise _bad("exit_code", "a signal object", signal)
        return (
            returned & 0xFF if returned < NO_VAL else 0,
            sig & 0x7F if sig < NO_VAL else 0,
        )
    status = number(raw, "exit_code", 0)
    if status >= NO_VAL:
        return 0, 0
    return (status >> 8) & 0xFF, status & 0x7F


def node_state(raw: Mapping[str, Any]) -> tuple[str, list[str]]:
    """A node's base state (lower case) and its flags, from either shape."""
    value = raw.get("state")
    flags = raw.get("state_flags") or []
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise _bad("state_flags", "a list of strings", flags)
    if value is None:
        return "unknown", flags
    if isinstance(value, str):
        return value.lower(), flags
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad("state", "a string or a list of strings", value)
    words = [v.upper() for v in value]
    base = next((w for w in words if w in _NODE_BASES), "UNKNOWN")
    rest = [w for w in words if w != base]
    return base.lower(), flags + rest


def string_list(raw: Mapping[str, Any], key: str) -> list[str]:
    """A list of strings, given as a list or as one comma-separated string."""
    value = raw.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(key, "a list of strings", value)
    return list(value)


def data_parser(doc: Mapping[str, Any]) -> str:
    """The data_parser an answer names (`"v0.0.42"`); `"v0.0.38"` for 22.05's openapi plugin."""
    meta = doc.get("meta")
    if not isinstance(meta, dict):
        return ""
    for key in ("plugin", "plugins"):  # "plugins" in 23.02's CLI answers
        plugin = meta.get(key)
        if isinstance(plugin, dict):
            for field in ("data_parser", "type"):
                name = plugin.get(field)
                if isinstance(name, str) and "v0.0." in name:
                    return name[name.index("v0.0.") :]
    return ""
