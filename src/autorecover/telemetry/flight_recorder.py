"""Where this rank's collectives stand, from PyTorch's flight recorder, for the ``hang`` record.

PyTorch keeps a ring of each process group's recent collectives, the *flight recorder*: NCCL's
since torch 2.4 (``TORCH_NCCL_TRACE_BUFFER_SIZE``), every backend's in 2.15, gloo's included
(``TORCH_FR_BUFFER_SIZE``, which wins when both are set; 2000 entries unless set to 0). A hang
record carries a summary of it per process group — the last enqueued, started and completed
collective sequence ids and the newest collective's op and state — so job recovery can tell,
across ranks, which rank never entered the collective the others wait in (``domain/hangs.py``).

Torch is never imported here: the dump functions are looked up in ``sys.modules``, so a program
that has not imported torch gets no summary and pays nothing. The dump runs on a thread of its
own with a deadline, and any failure becomes a short ``collectives_error`` text: the hang
record is written whatever the recorder does (only a dump stuck while holding the interpreter
lock could still hold up the watchdog thread: no deadline can preempt it).
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from autorecover.telemetry.records import Clean

BUFFER_VARS = ("TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE")  # first set wins
C10D = "torch._C._distributed_c10d"
MAX_GROUPS = 16  # the most recently active groups; a pipeline/tensor/data mesh has a handful
RECENT = 3  # the newest collectives listed per group, for people
MAX_TEXT = 120
DUMP_TIMEOUT_S = 5.0

Dump = Callable[[], bytes]


@dataclass(frozen=True, slots=True)
class Collectives:
    """The summary (``{group: fields}``) or why there is none; both None when not enabled."""

    groups: dict[str, Clean] | None = None
    error: str | None = None


def read_collectives(
    modules: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    timeout_s: float = DUMP_TIMEOUT_S,
) -> Collectives:
    """This rank's flight-recorder summary, if torch is loaded and its recorder is on.

    ``modules`` and ``env`` default to ``sys.modules`` and ``os.environ``; tests pass their own.
    """
    env = os.environ if env is None else env
    if not enabled(env):
        return Collectives()
    dumps = dump_functions(sys.modules if modules is None else modules)
    if not dumps:
        return Collectives()
    groups: dict[str, Clean] = {}
    errors = []
    for backend, dump in dumps:
        try:
            raw = _with_deadline(dump, timeout_s)
            # torch's own dump of this process, made just now: not outside input
            groups.update(summarize(pickle.loads(raw), backend, taken=set(groups)))  # noqa: S301
        except Exception as exc:  # a broken or stuck dump must not cost the hang record
            errors.append(f"{backend}: {type(exc).__name__}: {exc}"[:MAX_TEXT])
    return Collectives(groups or None, "; ".join(errors) or None)


def enabled(env: Mapping[str, str]) -> bool:
    """False only when the first of ``BUFFER_VARS`` that is set says 0 entries (recorder off)."""
    for var in BUFFER_VARS:
        value = env.get(var, "").strip()
        if value:
            try:
                return int(value) > 0
            except ValueError:
                return True  # torch rejects it, not us: let the dump say what is there
    return True  # unset: torch 2.15 records 2000 entries; where an older one records none,
    # the dump is empty and there is no summary


def dump_functions(modules: Mapping[str, object]) -> list[tuple[str, Dump]]:
    """The dump calls this torch offers: NCCL's (2.4+) and, in 2.15, the gloo recorder's."""
    c10d: Any = modules.get(C10D)
    if c10d is None:
        return []  # torch (or torch.distributed) not loaded: nothing to ask, nothing imported
    out: list[tuple[str, Dump]] = []
    nccl = getattr(c10d, "_dump_nccl_trace", None)
    if callable(nccl):  # collectives, no C++ stacks, completed entries too
        out.append(("nccl", lambda: nccl(True, False, False)))
    generic = getattr(c10d, "_dump_fr_trace", None)
    if callable(generic):
        out.append(("gloo", lambda: generic(True, False, False, "gloo")))
    return out


def summarize(dump: object, backend: str, taken: set[str] | None = None) -> dict[str, Clean]:
    """Per process group: the counters of ``pg_status`` and the newest collectives' entries.

    A group's key is its name (``"0"`` is the default group); a second backend reporting the
    same group gets ``<name>/<backend>``. Point-to-point entries are left out (their sequence
    ids are counted apart). ``seq``/``op``/``state`` come from the newest entry; the counters
    (``enqueued``, ``started``, ``completed``) are kept for people, on their own scale.
    Raises on a dump that is not the documented dict.
    """
    if not isinstance(dump, dict):
        raise TypeError(f"flight recorder dump is {type(dump).__name__}, not dict")
    status = dump.get("pg_status")
    status = status if isinstance(status, dict) else {}
    entries = [e for e in dump.get("entries") or [] if isinstance(e, dict)]
    newest: dict[str, list[dict[str, Any]]] = {}
    descs: dict[str, str] = {}
    for entry in sorted(entries, key=lambda e: _int(e.get("record_id")) or 0):
        name, desc = _group(entry.get("process_group"))
        if name is None or entry.get("is_p2p"):
            continue
        newest.setdefault(name, []).append(entry)
        descs[name] = desc
    names = {str(n) for n in status} | set(newest)
    activity = {n: _int(newest[n][-1].get("record_id")) if n in newest else None for n in names}
    chosen = sorted(names, key=lambda n: (activity[n] is None, -(activity[n] or 0)))[:MAX_GROUPS]
    out: dict[str, Clean] = {}
    for name in sorted(chosen):
        pg = status.get(name)
        pg = pg if isinstance(pg, dict) else {}
        fields: dict[str, Clean] = {"backend": backend}
        if name in descs:
            fields["desc"] = descs[name][:MAX_TEXT]
        for key, field in (("enqueued", "last_enqueued_collective"),
                           ("started", "last_started_collective"),
                           ("completed", "last_completed_collective")):  # fmt: skip
            if (value := _int(pg.get(field))) is not None:
                fields[key] = value
        recent = newest.get(name, [])[-RECENT:]
        if recent:
            last = recent[-1]
            fields["seq"] = _int(last.get("collective_seq_id"))
            fields["op"] = str(last.get("profiling_name") or "")[:MAX_TEXT]
            fields["state"] = _state(last)
            fields["recent"] = [_line(e) for e in recent]
        key = name.replace(".", "_")[:MAX_TEXT]
        out[key if key not in (taken or set()) else f"{key}/{backend}"] = fields
    return out


def _state(entry: dict[str, Any]) -> str:
    """``completed`` once the entry is retired, else the entry's own state.

    Gloo's entries keep ``scheduled`` after they finish (only ``retired`` moves). The group's
    ``last_completed_collective`` is no guide: it counts point-to-point operations too, which
    the entries' ``collective_seq_id`` does not (seen with torch 2.15's gloo recorder).
    """
    if entry.get("retired") is True or entry.get("state") == "completed":
        return "completed"
    return str(entry.get("state") or "unknown")[:MAX_TEXT]


def _line(entry: dict[str, Any]) -> str:
    """``"<seq> <op> <state>"`` for people reading the record."""
    op = str(entry.get("profiling_name") or "?")[:MAX_TEXT]
    return f"{_int(entry.get('collective_seq_id'))} {op} {_state(entry)}"


def _group(value: object) -> tuple[str | None, str]:
    """An entry's ``process_group``: ``(name, desc)``."""
    if isinstance(value, list | tuple) and value:
        return str(value[0]), str(value[1]) if len(value) > 1 else ""
    return None, ""


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _with_deadline(call: Dump, timeout_s: float) -> bytes:
    """``call()`` on a daemon thread; TimeoutError if it has not returned by ``timeout_s``."""
    result: list[bytes] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(call())
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)

    thread = threading.Thread(target=run, name="autorecover-telemetry-fr-dump", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if failure:
        raise failure[0]
    if not result:
        raise TimeoutError(f"no dump within {timeout_s:g} s")
    if not isinstance(result[0], bytes | bytearray):
        raise TypeError(f"dump returned {type(result[0]).__name__}, not bytes")
    return bytes(result[0])
