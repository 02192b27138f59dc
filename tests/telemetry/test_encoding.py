"""Round trips: every line the emitter writes is read back by autorecover.parsing.

The parser is the contract. Each event is encoded in both formats and parsed with
``parse_telemetry``; property tests throw arbitrary field values at both encoders.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.parsing.telemetry_records import (
    TelemetryRecord,
    format_autorecover,
    parse_autorecover_line,
    parse_nvidia_record,
    parse_telemetry,
)
from autorecover.telemetry import Identity
from autorecover.telemetry.encoding import Encoder
from autorecover.telemetry.records import Record, clean, clean_fields

IDENT = Identity(job="llm", rank=7, local_rank=3, world_size=64, node="gpu-017",
                 restart_count=1, launcher="slurm")  # fmt: skip
TS = datetime(2026, 3, 4, 2, 14, 29, 123456, tzinfo=UTC)
ENC = Encoder(IDENT, pid=4242)


def _strict(line: str) -> dict[str, Any]:
    """Decode as strict JSON (NaN and Infinity rejected)."""

    def reject(token: str) -> None:
        raise ValueError(token)

    obj = json.loads(line, parse_constant=reject)
    assert isinstance(obj, dict)
    return obj


def _both(record: Record) -> tuple[list[TelemetryRecord], TelemetryRecord]:
    """Encode in both formats and parse every line back."""
    ar = [parse_autorecover_line(line) for line in ENC.autorecover(record)]
    for line in ENC.autorecover(record):
        assert "\n" not in line and _strict(line)["telemetry"] == "autorecover/1"
    (nv_line,) = ENC.nvidia(record)
    assert nv_line.startswith("[type=") and "\n" not in nv_line
    nv = parse_nvidia_record(nv_line)
    assert all(r is not None for r in ar) and nv is not None
    return [r for r in ar if r is not None], nv


def test_step_with_summary() -> None:
    summary = clean_fields({
        "window": 100, "steps_per_s": 3.2, "tokens_per_s": 2.5e6, "step_time_mean_s": 0.31,
        "step_time_p99_s": 0.9, "forward_mean_s": 0.1, "data_loading_mean_s": 0.02,
    })  # fmt: skip
    fields = clean_fields({"step_time_s": 0.3, "samples": 6400, "tokens": 819200, "loss": 2.5})
    record = Record("step", TS.timestamp(), fields, step=250, summary=summary)
    (step, summ), nv = _both(record)
    assert (step.event, step.rank, step.step, step.ts) == ("step", 7, 250, TS)
    assert step.get_float("step_time_s") == 0.3 and step.get_int("tokens") == 819200
    assert step.get_float("loss") == 2.5 and step.get_int("samples") == 6400
    assert (step.get_str("job"), step.get_str("node"), step.get_int("local_rank")) == (
        "llm", "gpu-017", 3)  # fmt: skip
    assert step.get_int("restart") == 1
    assert (summ.event, summ.step) == ("summary", 250)
    assert summ.get_float("tokens_per_s") == 2.5e6 and summ.get_int("window") == 100
    assert summ.get_float("step_time_p99_s") == 0.9
    assert (nv.event, nv.step, nv.rank, nv.ts, nv.name) == ("step", 250, 7, TS, "training_loop")
    assert nv.get_float("event.metrics.average_iteration_time") == 0.31
    assert nv.get_float("event.metrics.tokens_per_second") == 2.5e6
    assert nv.get_int("event.metrics.interval") == 100
    assert nv.get_float("event.metrics.average_forward_time") == 0.1
    assert nv.get_float("event.metrics.average_dataloader_time") == 0.02
    assert nv.get_float("event.metrics.loss") == 2.5


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("checkpoint_save", "checkpoint_save_sync"),
        ("checkpoint_load", "checkpoint_load"),
        ("forward", "model_forward"),
        ("validation", "validation_loop"),
        ("my_phase", "my_phase"),
    ],
)
def test_spans(ours: str, theirs: str) -> None:
    start = Record("span_start", TS.timestamp(), {"span_id": "s-1", "path": "/ckpt/a b|c",
                                                  "iteration": 500}, name=ours)  # fmt: skip
    end = Record("span_end", TS.timestamp(), {"span_id": "s-1", "path": "/ckpt/a b|c",
                 "iteration": 500, "size_bytes": 10**12, "duration_s": 41.5, "ok": True},
                 name=ours)  # fmt: skip
    (s,), nv_s = _both(start)
    (e,), nv_e = _both(end)
    assert (s.event, s.name, e.event, e.name) == ("span_start", ours, "span_end", ours)
    assert e.get_str("path") == "/ckpt/a b|c" and e.get_int("size_bytes") == 10**12
    assert e.get_int("iteration") == 500 and e.duration_s == 41.5 and e.get_bool("ok") is True
    assert (nv_s.event, nv_s.name, nv_s.get_str("name")) == ("span_start", ours, theirs)
    assert (nv_e.event, nv_e.name, nv_e.duration_s, nv_e.step) == ("span_end", ours, 41.5, 500)
    assert nv_s.get_str("id") == nv_e.get_str("id") == "s-1"
    assert nv_e.get_str("event.metrics.checkpoint_directory") == "/ckpt/a b|c"
    assert nv_e.get_int("event.metrics.checkpoint_size") == 10**12


def test_error() -> None:
    tb = 'Traceback (most recent call last):\n  File "t.py", line 1\nValueError: a | [b] "c"'
    fields = {"type": "ValueError", "message": 'a | [b] "c"', "traceback": tb,
              "uncaught": True, "fatal": True, "thread": "MainThread"}  # fmt: skip
    (r,), nv = _both(Record("error", TS.timestamp(), fields, step=12))
    assert (r.error_type, r.error_message, r.get_str("traceback"), r.step) == (
        "ValueError", 'a | [b] "c"', tb, 12)  # fmt: skip
    assert r.get_bool("uncaught") is True and r.get_str("thread") == "MainThread"
    assert (nv.event, nv.error_type, nv.error_message, nv.step) == (
        "error", "ValueError", 'a | [b] "c"', 12)  # fmt: skip
    assert nv.get_str("event.exception_traceback") == tb
    assert nv.get_str("event.error_message") == "uncaught exception in thread MainThread"


def test_hang_stacks() -> None:
    stacks = {"MainThread": 'File "train.py", line 3\n  dist.barrier()', "Thread-1 (w)": "x"}
    fields = clean_fields({"idle_s": 900.5, "threshold_s": 600.0, "in_checkpoint": False,
                           "stacks": stacks})  # fmt: skip
    (r,), nv = _both(Record("hang", TS.timestamp(), fields, step=77))
    assert (r.event, r.step, r.get_float("idle_s"), r.get_float("threshold_s")) == (
        "hang", 77, 900.5, 600.0)  # fmt: skip
    assert r.get_str("stacks.MainThread") == stacks["MainThread"]
    assert r.get_str("stacks.Thread-1 (w)") == "x"
    assert (nv.event, nv.step, nv.rank) == ("hang", 77, 7)
    text = nv.get_str("event.metrics.stacks")
    assert text is not None and json.loads(text) == stacks


def test_init_and_drops() -> None:
    init = Record("init", TS.timestamp(), {"world_size": 64, "restart_count": 1,
                                           "launcher": "slurm", "pid": 4242})  # fmt: skip
    (r,), nv = _both(init)
    assert (r.event, r.rank, r.get_int("world_size"), r.get_int("local_rank")) == (
        "init", 7, 64, 3)  # fmt: skip
    assert (r.get_str("job"), r.get_str("node"), r.get_int("restart_count")) == (
        "llm", "gpu-017", 1)  # fmt: skip
    assert (nv.event, nv.rank, nv.name) == ("span_attributes", 7, "main_function")
    assert nv.get_int("event.metrics.world_size") == 64
    assert nv.get_str("event.metrics.node_name") == "gpu-017"
    (d,), nv_d = _both(Record("drops", TS.timestamp(), {"count": 12, "total": 30}))
    assert (d.event, d.get_int("count"), nv_d.event, nv_d.get_int("event.metrics.count")) == (
        "drops", 12, "drops", 12)  # fmt: skip


def test_reserved_keys_in_fields_are_ignored() -> None:
    (r,), _ = _both(Record("span_end", TS.timestamp(), {"event": "x", "telemetry": "y"},
                           name="validation"))  # fmt: skip
    assert r.event == "span_end" and r.get("event") is None


def test_canonical_form_is_a_fixpoint() -> None:
    line = ENC.autorecover(Record("step", TS.timestamp(), {"loss": 1.5}, step=3))[0]
    parsed = parse_telemetry(line)
    assert parsed is not None and parse_telemetry(format_autorecover(parsed)) == parsed


def test_out_of_range_timestamp_is_left_out() -> None:
    (line,) = ENC.autorecover(Record("drops", 1e20, {"count": 1}))
    assert "ts" not in _strict(line)
    assert parse_nvidia_record(ENC.nvidia(Record("drops", 1e20, {"count": 1}))[0]) is not None


# --- property tests -----------------------------------------------------------------------

KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats()  # NaN and infinities included: they must come out as text
    | st.text(max_size=40)
)
VALUES = SCALARS | st.lists(SCALARS, max_size=4) | st.dictionaries(KEYS, SCALARS, max_size=3)


def _expected(value: Any) -> Any:
    """What the parser gives back for a cleaned value."""
    if isinstance(value, list):
        return tuple(value)
    return value


@given(st.dictionaries(KEYS, VALUES, max_size=8), st.integers(0, 2**40), st.floats(0, 4e9))
def test_any_fields_round_trip_autorecover(fields: dict[str, Any], step: int, ts: float) -> None:
    record = Record("span_end", ts, clean_fields(fields), step=step, name="validation")
    (line,) = ENC.autorecover(record)
    _strict(line)
    parsed = parse_telemetry(line)
    assert parsed is not None and (parsed.event, parsed.step, parsed.name) == (
        "span_end", step, "validation")  # fmt: skip
    for key, value in record.fields.items():
        if isinstance(value, dict):
            for sub, inner in value.items():
                assert parsed.get(f"{key}.{sub}") == inner
        else:
            assert parsed.get(key) == _expected(value)


@given(st.dictionaries(KEYS, SCALARS | st.lists(SCALARS, max_size=4), max_size=8),
       st.integers(0, 2**40))  # fmt: skip
def test_any_fields_round_trip_nvidia(fields: dict[str, Any], step: int) -> None:
    record = Record("drops", TS.timestamp(), clean_fields(fields), step=step)
    (line,) = ENC.nvidia(record)
    parsed = parse_telemetry(line)
    assert parsed is not None and (parsed.event, parsed.step, parsed.rank) == ("drops", step, 7)
    for key, value in record.fields.items():
        if key in ("rank", "current_iteration"):
            continue
        assert parsed.get(f"event.metrics.{key}") == _expected(value), (key, value, line)


@given(VALUES)
def test_clean_gives_strict_json(value: Any) -> None:
    out = clean(value)
    text = json.dumps(out, allow_nan=False)
    assert json.loads(text) == out


def test_clean_non_finite_and_foreign_numbers() -> None:
    class Scalar:
        def __float__(self) -> float:
            return 0.25

    class IntLike:
        def __index__(self) -> int:
            return 7

    class FloatTensor:  # like a float torch tensor: __index__ raises, __float__ works
        def __index__(self) -> int:
            raise TypeError("only integer tensors")

        def __float__(self) -> float:
            return math.inf

    assert clean(math.nan) == "nan" and clean(-math.inf) == "-inf"
    assert clean(Scalar()) == 0.25 and clean(IntLike()) == 7 and clean(FloatTensor()) == "inf"
    assert clean(object()).startswith("<object object")  # type: ignore[union-attr]
    assert clean("x" * 100_000).endswith("...[cut]")  # type: ignore[union-attr]
