"""Tests for autorecover.parsing.telemetry_records."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.parsing.telemetry_records import (
    MAX_LINE_CHARS,
    TelemetryRecord,
    format_autorecover,
    format_nvidia,
    parse_autorecover_line,
    parse_nvidia_record,
    parse_telemetry,
)

# --- NVIDIA training-telemetry logger-backend lines -------------------------------------------
# Source of the format: NVIDIA `training_telemetry` (nv-one-logger family), files
# internal/backends/logger_backend.py (PythonLoggerRecordWriter.format_log: keys sorted in
# reverse at every level, nested dicts flattened to a.b=v, values rendered with f"{k}={v}",
# items joined with " | " inside [...]), internal/backends/event_based_backend.py (record
# fields type/id/name/event or elapsed/start_event/stop_event, plus count and pid) and
# events.py (Event.to_json: name, timestamp.isoformat(), metrics; ExceptionEvent JSON-quotes
# error_message/exception_*). The reference index holds no captured log output, so these lines
# were rendered by hand from those records exactly as format_log writes them.
NV_PREFIX = "2025-06-01 12:00:00,124 - training_telemetry_rank0 - INFO - "
NV_START = (
    "[type=start | pid=4242 | name=training_loop | id=3f2b8c1e-5a4d-4e8f-9b7a-1c2d3e4f5a6b"
    " | event.timestamp=2025-06-01T12:00:00.123456-07:00 | event.name=span_start | count=1]"
)
NV_ITERATIONS = (
    "[type=event | pid=4242 | name=training_loop | id=3f2b8c1e-5a4d-4e8f-9b7a-1c2d3e4f5a6b"
    " | event.timestamp=2025-06-01T12:05:00.000001-07:00 | event.name=training_iterations"
    " | event.metrics.tokens_per_second=123456.7 | event.metrics.num_iterations=100"
    " | event.metrics.loss=2.71 | event.metrics.interval=100"
    " | event.metrics.current_iteration=200 | event.metrics.batch_size=32"
    " | event.metrics.average_iteration_time=0.35 | count=7]"
)
NV_CKPT_COMPLETE = (
    "[type=complete | stop_event.timestamp=2025-06-01T12:10:12.500000-07:00"
    " | stop_event.name=span_stop | stop_event.metrics.current_iteration=1000"
    " | stop_event.metrics.checkpoint_type=global | stop_event.metrics.checkpoint_size=1073741824"
    " | stop_event.metrics.checkpoint_directory=/ckpt/iter_0001000"
    " | start_event.timestamp=2025-06-01T12:10:00-07:00 | start_event.name=span_start"
    " | pid=4242 | name=checkpoint_save_sync | id=9d8c7b6a-5f4e-4d3c-8b2a-190817263544"
    " | elapsed=12.5 | count=12]"
)
NV_CKPT_ASYNC_STOP = (
    "[type=stop | pid=4242 | name=checkpoint_save_async | id=0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"
    " | event.timestamp=2025-06-01T12:20:01.250000-07:00 | event.name=span_stop"
    " | elapsed=1.25 | count=20]"
)
NV_ERROR = (
    "[type=error | pid=4242 | name=training_loop | id=3f2b8c1e-5a4d-4e8f-9b7a-1c2d3e4f5a6b"
    " | event.timestamp=2025-06-01T12:30:00.000500-07:00 | event.name=error"
    ' | event.exception_type="RuntimeError"'
    ' | event.exception_traceback="Traceback (most recent call last):\\n  File \\"train.py\\",'
    ' line 10, in <module>\\nRuntimeError: CUDA error: an illegal memory access | [bad]"'
    ' | event.exception_message="CUDA error: an illegal memory access | [bad]"'
    ' | event.error_message="Training failed" | count=31]'
)
NV_LINES = [NV_START, NV_ITERATIONS, NV_CKPT_COMPLETE, NV_CKPT_ASYNC_STOP, NV_ERROR]


def ar(**obj: object) -> str:
    """Render an autorecover/1 line from keyword fields."""
    return json.dumps({"telemetry": "autorecover/1", **obj})


TS = "2026-03-04T02:14:29Z"
TS_DT = datetime(2026, 3, 4, 2, 14, 29, tzinfo=UTC)


# --- autorecover/1 events --------------------------------------------------------------------


def test_step_example_from_brief() -> None:
    line = (
        '{"telemetry":"autorecover/1","ts":"2026-03-04T02:14:29Z","rank":0,'
        '"event":"step","step":250,"step_time_s":3.15}'
    )
    r = parse_telemetry(line)
    assert r == TelemetryRecord(
        "autorecover", "step", ts=TS_DT, rank=0, step=250, fields=(("step_time_s", 3.15),)
    )
    assert r.get_float("step_time_s") == 3.15
    assert r.supported


def test_step_all_fields() -> None:
    line = ar(
        ts=TS, rank=3, event="step", step=10, step_time_s=2, samples=64, tokens=8192, loss=1.5
    )
    r = parse_autorecover_line(line)
    assert r is not None and r.step == 10 and r.rank == 3
    assert r.get_int("tokens") == 8192 and r.get_float("step_time_s") == 2.0
    assert r.get_float("loss") == 1.5 and r.get_int("samples") == 64


def test_summary() -> None:
    r = parse_telemetry(
        ar(event="summary", steps_per_s=0.31, tokens_per_s=2.5e6, step_time_mean_s=3.2,
           step_time_p99_s=4.9, window=100)
    )  # fmt: skip
    assert r is not None and r.event == "summary"
    assert r.get_float("tokens_per_s") == 2.5e6 and r.get_int("window") == 100


def test_checkpoint_span_end() -> None:
    r = parse_telemetry(
        ar(ts=TS, rank=0, event="span_end", name="checkpoint_save", path="/ckpt/step_500",
           size_bytes=10**12, iteration=500, duration_s=41.5, ok=True, job="llm", restart=2)
    )  # fmt: skip
    assert r is not None and (r.event, r.name) == ("span_end", "checkpoint_save")
    assert r.get_str("path") == "/ckpt/step_500" and r.get_int("size_bytes") == 10**12
    assert r.get_int("iteration") == 500 and r.duration_s == 41.5
    assert r.get_bool("ok") is True and r.get_int("restart") == 2 and r.get_str("job") == "llm"
    assert r.step is None


@pytest.mark.parametrize(
    "name", ["checkpoint_load", "data_loading", "forward", "backward", "optimizer", "validation"]
)
def test_span_start_names(name: str) -> None:
    r = parse_telemetry(ar(event="span_start", name=name, rank=1))
    assert r is not None and (r.event, r.name, r.rank) == ("span_start", name, 1)


def test_error() -> None:
    tb = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad | value'
    r = parse_telemetry(ar(event="error", type="ValueError", message="bad | value", traceback=tb))
    assert r is not None and r.event == "error"
    assert (r.error_type, r.error_message, r.get_str("traceback")) == (
        "ValueError",
        "bad | value",
        tb,
    )


def test_hang_with_nested_stacks() -> None:
    stacks = {"MainThread": "File train.py, line 3", "t2": ["a", "b"]}
    r = parse_telemetry(ar(event="hang", idle_s=900.5, threshold_s=600, stacks=stacks))
    assert r is not None and r.event == "hang"
    assert r.get_float("idle_s") == 900.5 and r.get_float("threshold_s") == 600.0
    assert r.get("stacks.MainThread") == "File train.py, line 3"
    assert r.get("stacks.t2") == ("a", "b")


def test_hang_with_list_of_objects() -> None:
    r = parse_telemetry(ar(event="hang", stacks=[{"tid": 1}, "x", [1]]))
    assert r is not None and r.get("stacks") == ('{"tid":1}', "x", "[1]")


def test_init_and_drops() -> None:
    r = parse_telemetry(
        ar(event="init", job="llm-70b", rank=7, local_rank=3, world_size=64, node="gpu-017",
           restart_count=1)
    )  # fmt: skip
    assert r is not None and r.rank == 7 and r.get_int("world_size") == 64
    assert r.get_int("local_rank") == 3 and r.get_str("node") == "gpu-017"
    d = parse_telemetry(ar(event="drops", count=12))
    assert d is not None and d.event == "drops" and d.get_int("count") == 12


def test_unknown_event_passes_through() -> None:
    r = parse_telemetry(ar(event="future_thing", x=1))
    assert r is not None and r.event == "future_thing"


# --- prefixes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix",
    ["3: ", "[rank3]: ", "[rank3]:", "2026-03-04T02:14:29.123456Z ", "0: [rank0]: ", "\x1b[0m"],
)
def test_prefixes(prefix: str) -> None:
    r = parse_telemetry(prefix + ar(event="step", step=5, rank=3) + "  trailing junk {")
    assert r is not None and (r.event, r.step, r.rank) == ("step", 5, 3)


@pytest.mark.parametrize(
    "line",
    [
        "[rank3]:[titan] 2026-03-04 02:14:29,000 - root - INFO - step: 250  loss: 3.1",
        "",
        "3: plain text",
        '{ "telemetry": "autorecover/1", "event": "step"}',  # the object must open {"telemetry"
        '{"telemetryx":"autorecover/1","event":"step"}',
        '<input type="submit"> [type=submit | x=1]',
        "[type=]",
        "[rank0]: [type] = start",
    ],
)
def test_non_telemetry_is_none(line: str) -> None:
    assert parse_telemetry(line) is None


# --- versions and malformed input -----------------------------------------------------------


def test_unsupported_major_version_is_flagged() -> None:
    r = parse_telemetry('{"telemetry":"autorecover/2","event":"step","step":1}')
    assert r == TelemetryRecord(
        "autorecover", "unsupported", fields=(("telemetry", "autorecover/2"),)
    )
    assert not r.supported


def test_minor_version_is_accepted() -> None:
    r = parse_telemetry('{"telemetry":"autorecover/1.3","event":"step","step":1}')
    assert r is not None and r.step == 1


@pytest.mark.parametrize(
    "line",
    [
        '{"telemetry":"autorecover/1","event":"step",',
        '{"telemetry":"autorecover/1","event":"step" "step":1}',
        '{"telemetry":"other/1","event":"step"}',
        '{"telemetry":1,"event":"step"}',
        '{"telemetry":"autorecover/1"}',
        '{"telemetry":"autorecover/1","event":""}',
        '{"telemetry":"autorecover/1","event":["step"]}',
        '{"telemetry":"autorecover/1","event":"step","big":' + "9" * 5000 + "}",
        '{"telemetry":"autorecover/1","event":"step","x":' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"telemetry":"autorecover/1","event":"step","x":' + '{"a":' * 3000 + "1" + "}" * 3001,
    ],
)
def test_malformed_autorecover_is_none(line: str) -> None:
    assert parse_telemetry(line) is None
    assert parse_autorecover_line(line) is None


def test_wrong_types_give_partial_record() -> None:
    line = ar(
        ts="yesterday", rank="0", event="step", step=True, name=5, loss=None, nan=float("nan")
    )
    r = parse_telemetry(line)
    assert r is not None and r.event == "step"
    assert (r.ts, r.rank, r.step, r.name) == (None, None, None, None)
    assert r.get("loss") is None and r.get_float("loss") is None and r.get_float("missing") is None


def test_huge_int_get_float_does_not_raise() -> None:
    r = parse_telemetry(ar(event="step", big=10**400))
    assert r is not None and r.get_int("big") == 10**400 and r.get_float("big") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-04T02:14:29Z", TS_DT),
        ("2026-03-04T02:14:29", TS_DT),  # naive means UTC
        ("2026-03-04T03:14:29+01:00", TS_DT),
        ("2026-03-03T18:14:29.000-08:00", TS_DT),
        ("2026-13-04T02:14:29Z", None),
        ("0001-01-01T00:00:00+01:00", None),  # would overflow when moved to UTC
        ("", None),
    ],
)
def test_timestamps(text: str, expected: datetime | None) -> None:
    r = parse_telemetry(ar(ts=text, event="step"))
    assert r is not None and r.ts == expected
    if r.ts is not None:
        assert r.ts.tzinfo is UTC


def test_huge_line_is_ignored() -> None:
    line = ar(event="step", pad="x" * MAX_LINE_CHARS)
    assert parse_telemetry(line) is None
    assert (
        parse_autorecover_line(line) is None and parse_nvidia_record("[type=start" + line) is None
    )


def test_non_string_input_is_none() -> None:
    assert parse_telemetry(None) is None  # type: ignore[arg-type]
    assert parse_autorecover_line(b'{"telemetry"') is None  # type: ignore[arg-type]
    assert parse_nvidia_record(42) is None  # type: ignore[arg-type]


# --- NVIDIA records --------------------------------------------------------------------------


def test_nvidia_span_start_with_logger_prefix() -> None:
    r = parse_telemetry(NV_PREFIX + NV_START)
    assert r is not None and r.format == "nvidia"
    assert (r.event, r.name, r.step, r.rank) == ("span_start", "training_loop", None, None)
    assert r.ts == datetime(2025, 6, 1, 19, 0, 0, 123456, tzinfo=UTC)
    assert r.get_int("pid") == 4242 and r.get_int("count") == 1
    assert r.get_str("id") == "3f2b8c1e-5a4d-4e8f-9b7a-1c2d3e4f5a6b"


def test_nvidia_training_iterations_is_step() -> None:
    r = parse_telemetry("[rank0]:" + NV_ITERATIONS)
    assert r is not None and (r.event, r.step, r.name) == ("step", 200, "training_loop")
    assert r.get_float("event.metrics.tokens_per_second") == 123456.7
    assert r.get("event.metrics.loss") == 2.71 and r.get("event.metrics.batch_size") == 32
    assert r.get_str("event.name") == "training_iterations"


def test_nvidia_checkpoint_complete_is_span_end() -> None:
    r = parse_telemetry(NV_CKPT_COMPLETE)
    assert r is not None and (r.event, r.name, r.step) == ("span_end", "checkpoint_save", 1000)
    assert r.ts == datetime(2025, 6, 1, 19, 10, 12, 500000, tzinfo=UTC)  # the stop time
    assert r.duration_s == 12.5 and r.get_str("name") == "checkpoint_save_sync"
    assert r.get_str("stop_event.metrics.checkpoint_directory") == "/ckpt/iter_0001000"
    assert r.get_int("stop_event.metrics.checkpoint_size") == 1073741824


def test_nvidia_async_checkpoint_stop() -> None:
    r = parse_telemetry(NV_CKPT_ASYNC_STOP)
    assert r is not None and (r.event, r.name, r.duration_s) == (
        "span_end",
        "checkpoint_save",
        1.25,
    )


def test_nvidia_error_unquotes_json_strings() -> None:
    r = parse_telemetry("3: " + NV_ERROR)
    assert r is not None and (r.event, r.name) == ("error", "training_loop")
    assert r.error_type == "RuntimeError"
    assert r.error_message == "CUDA error: an illegal memory access | [bad]"
    assert r.get_str("event.error_message") == "Training failed"
    tb = r.get_str("event.exception_traceback")
    assert tb is not None and tb.startswith("Traceback") and '"train.py"' in tb and "\n" in tb
    assert r.get_int("count") == 31  # the item after the quoted pipes and brackets


@pytest.mark.parametrize(
    ("span", "mapped"),
    [
        ("checkpoint_save_finalization", "checkpoint_save"),
        ("checkpoint_load", "checkpoint_load"),
        ("data_loading", "data_loading"),
        ("model_forward", "forward"),
        ("model_backward", "backward"),
        ("optimizer_update", "optimizer"),
        ("validation_loop", "validation"),
        ("zero_grad", "zero_grad"),
    ],
)
def test_nvidia_span_names(span: str, mapped: str) -> None:
    r = parse_nvidia_record(f"[type=stop | name={span} | elapsed=0.5]")
    assert r is not None and r.name == mapped and r.get("name") == span


def test_nvidia_other_events_and_rank() -> None:
    r = parse_telemetry(
        "[type=event | name=main_function | event.name=span_attributes"
        " | event.metrics.world_size=8 | event.metrics.rank=5 | event.metrics.node_name=gpu-3]"
    )
    assert r is not None and (r.event, r.rank, r.name) == ("span_attributes", 5, "main_function")
    assert r.get_int("event.metrics.world_size") == 8


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("-7", -7),
        ("3.5", 3.5),
        ("1e-05", 1e-05),
        ("True", True),
        ("false", False),
        ("None", None),
        ('"007"', "007"),
        ("007", "007"),  # leading zeros are not a canonical int: keep the text
        ("nan", "nan"),
        ("1e999", "1e999"),
        ("[1, 2.5, null]", (1, 2.5, None)),
        ("['a', 'b']", "['a', 'b']"),  # Python repr, not JSON
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_nvidia_value_conversion(text: str, value: object) -> None:
    r = parse_nvidia_record(f"[type=event | event.name=x | v={text} | after=1]")
    assert r is not None and r.get("v") == value and type(r.get("v")) is type(value)


def test_nvidia_unterminated_quote_runs_to_end_of_line() -> None:
    r = parse_nvidia_record('[type=event | event.name=x | v="open | after=1]')
    assert r is not None and r.get("v") == '"open | after=1]' and r.get("after") is None


def test_nvidia_truncated_record_is_partial() -> None:
    r = parse_telemetry(NV_START[:60])
    assert r is not None and r.event == "span_start" and r.get_int("pid") == 4242


def test_nvidia_junk_items_are_skipped() -> None:
    r = parse_telemetry("[type=event | garbage | =x | a b=1 | event.name=foo]")
    assert (
        r is not None
        and r.event == "foo"
        and r.fields == (("event.name", "foo"), ("type", "event"))
    )


def test_nvidia_exact_round_trip_of_real_lines() -> None:
    for line in NV_LINES:
        r = parse_nvidia_record(line)
        assert r is not None
        assert parse_nvidia_record(format_nvidia(r)) == r


def test_nvidia_formatter_quotes_error_fields_like_the_emitter() -> None:
    r = parse_nvidia_record(NV_ERROR)
    assert r is not None
    assert 'event.exception_type="RuntimeError"' in format_nvidia(r)


# --- property tests ----------------------------------------------------------------------------

KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda k: k not in {"telemetry", "event", "ts", "rank", "step", "name", "current_iteration"}
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
VALUES = SCALARS | st.lists(SCALARS, max_size=4).map(tuple)
TIMES = st.none() | st.datetimes(timezones=st.just(UTC))
INTS = st.none() | st.integers(-(2**40), 2**40)


@st.composite
def autorecover_records(draw: st.DrawFn) -> TelemetryRecord:
    fields = draw(st.dictionaries(KEYS, VALUES, max_size=6))
    return TelemetryRecord(
        format="autorecover",
        event=draw(st.sampled_from(["step", "summary", "span_end", "error"]) | st.text(min_size=1)),
        ts=draw(TIMES),
        rank=draw(INTS),
        step=draw(INTS),
        name=draw(st.none() | st.text(max_size=20)),
        fields=tuple(sorted(fields.items())),
    )


@st.composite
def nvidia_records(draw: st.DrawFn) -> TelemetryRecord:
    metrics = draw(st.dictionaries(KEYS, VALUES, max_size=6))
    names = ["checkpoint_save", "checkpoint_load", "forward", "validation", "training_loop"]
    events = ["span_start", "span_end", "step", "error", "span_attributes", "device_properties"]
    return TelemetryRecord(
        format="nvidia",
        event=draw(st.sampled_from(events)),
        ts=draw(TIMES),
        rank=draw(INTS),
        step=draw(INTS),
        name=draw(st.none() | st.sampled_from(names)),
        fields=tuple(sorted((f"event.metrics.{k}", v) for k, v in metrics.items())),
    )


@given(st.text())
def test_never_raises_on_text(line: str) -> None:
    parse_telemetry(line)
    parse_autorecover_line(line)
    parse_nvidia_record(line)


@given(st.binary())
def test_never_raises_on_bytes(data: bytes) -> None:
    line = data.decode("utf-8", errors="replace")
    parse_telemetry(line)
    parse_autorecover_line(line)
    parse_nvidia_record(line)


@given(
    st.text(max_size=20), st.sampled_from(['{"telemetry"', "[type=", "[type=error |"]), st.text()
)
def test_never_raises_after_a_marker(prefix: str, marker: str, rest: str) -> None:
    line = prefix + marker + rest
    parse_telemetry(line)
    parse_autorecover_line(line)
    parse_nvidia_record(line)


@given(
    st.lists(st.sampled_from(["[", "]", "|", '"', "\\", "=", "type", "x", " ", "1"]), max_size=40)
)
def test_never_raises_on_nvidia_punctuation(parts: list[str]) -> None:
    parse_nvidia_record("[type=event | " + "".join(parts))


@given(autorecover_records())
def test_autorecover_round_trip(record: TelemetryRecord) -> None:
    assert parse_telemetry(format_autorecover(record)) == record


@given(nvidia_records())
def test_nvidia_round_trip(record: TelemetryRecord) -> None:
    line = format_nvidia(record)
    assert line.startswith("[type=")
    parsed = parse_telemetry(line)
    assert parsed is not None
    assert (parsed.format, parsed.event, parsed.ts, parsed.rank, parsed.step, parsed.name) == (
        "nvidia", record.event, record.ts, record.rank, record.step, record.name
    )  # fmt: skip
    for key, value in record.fields:
        assert parsed.get(key) == value
    assert parse_telemetry(format_nvidia(parsed)) == parsed  # canonical form is a fixpoint


@given(autorecover_records())
def test_autorecover_record_survives_nvidia_format(record: TelemetryRecord) -> None:
    parsed = parse_nvidia_record(format_nvidia(record))
    assert parsed is not None
    assert (parsed.ts, parsed.rank, parsed.step) == (record.ts, record.rank, record.step)


def test_formatters_use_utc() -> None:
    ts = datetime(2026, 3, 4, 3, 14, 29, tzinfo=timezone(timedelta(hours=1)))
    r = TelemetryRecord("autorecover", "step", ts=ts)
    assert '"ts":"2026-03-04T02:14:29Z"' in format_autorecover(r)
    assert "event.timestamp=2026-03-04T02:14:29+00:00" in format_nvidia(r)


# nv-one-logger (github.com/NVIDIA/nv-one-logger): its LoggerExporter writes each record as
# `[k=v | ...]`, nested dicts flattened to dotted keys, keys reverse-sorted at every level,
# values json.dumps'd, `pid` and `count` added (nv_one_logger/exporter/logger_exporter.py and
# its tests). Events carry `<section>.attributes.timestamp_msec` (milliseconds since the epoch).
def _one_logger_line(record: dict[str, object], prefix: str = "") -> str:
    items: list[str] = []
    for key, value in sorted(record.items(), reverse=True):
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            items.append(_one_logger_line(value, path))
        else:
            items.append(f"{path}={json.dumps(value)}")
    joined = " | ".join(items)
    return joined if prefix else f"[{joined}]"


_MSEC = 1764590460123  # 2025-12-01T12:01:00.123Z


def test_one_logger_published_error_line_parses() -> None:
    # Verbatim shape from nv-one-logger's own logger-exporter test (values of that test).
    line = (
        '[type="application_error" | span_id="5d6e" | pid=123 | event.name="error" '
        "| event.attributes.timestamp_msec=24060000 "
        '| event.attributes.exception_type="RuntimeError" '
        '| event.attributes.exception_message="error_exception" '
        '| event.attributes.error_message="error_msg" | count=2]'
    )
    rec = parse_telemetry(line)
    assert rec is not None and rec.format == "nvidia" and rec.event == "error"
    assert rec.error_type == "RuntimeError"
    assert rec.error_message == "error_exception"
    assert rec.ts == datetime(1970, 1, 1, 6, 41, tzinfo=UTC)


def test_one_logger_training_metrics_update_is_progress() -> None:
    line = _one_logger_line({
        "type": "event", "span_id": "8c1f", "pid": 4711, "count": 57,
        "event": {"name": "training_metrics_update", "attributes": {
            "timestamp_msec": _MSEC, "train_iterations_start": 0, "current_iteration": 1200,
            "num_iterations": 1200, "train_samples_start": 0, "num_train_samples": 614400,
            "interval": 100, "avg_iteration_time_sec": 0.84, "min_iteration_time_sec": 0.8,
            "max_iteration_time_sec": 0.9, "total_iteration_time_sec": 1008.0,
            "avg_forward_time_sec": 0.3, "avg_backward_time_sec": 0.45, "latest_loss": 2.31,
        }},
    })  # fmt: skip
    rec = parse_telemetry(f"[default0]:{line}")
    assert rec is not None and rec.event == "step" and rec.step == 1200
    assert rec.ts == datetime(2025, 12, 1, 12, 1, 0, 123000, tzinfo=UTC)
    assert rec.get_float("event.attributes.avg_iteration_time_sec") == 0.84


def test_one_logger_checkpoint_success_and_initialization() -> None:
    saved = parse_telemetry(_one_logger_line({
        "type": "event", "span_id": "8c1f", "pid": 4711, "count": 58,
        "event": {"name": "save_checkpoint_success", "attributes": {
            "timestamp_msec": _MSEC + 60_000, "checkpoint_strategy": "sync",
            "current_iteration": 1200, "save_checkpoint_success_count": 3,
            "productive_train_iterations": 1200, "productive_train_samples": 614400,
            "productive_train_iterations_sec": 1008.0, "productive_validation_iterations_sec": 0.0,
            "first_successful_save_checkpoint_timestamp_sec": 1764589000.0,
            "latest_successful_save_checkpoint_timestamp_sec": 1764590520.0,
        }},
    }))  # fmt: skip
    assert saved is not None and saved.event == "span_end" and saved.name == "checkpoint_save"
    assert saved.step == 1200 and saved.get_bool("ok") is None
    init = parse_telemetry(_one_logger_line({
        "type": "event", "span_id": "11aa", "pid": 4711, "count": 1,
        "event": {"name": "one_logger_initialization", "attributes": {
            "timestamp_msec": _MSEC - 600_000, "world_size": 16, "rank": 0,
            "node_name": "gpu-a01", "enable_for_current_rank": True, "session_tag": "run7",
            "is_baseline_run": False, "one_logger_training_telemetry_version": "2.1.0",
            "summary_data_schema_version": "1.0.0",
        }},
    }))  # fmt: skip
    assert init is not None and init.event == "init" and init.rank == 0


def test_one_logger_spans_and_data_errors() -> None:
    span = parse_telemetry(_one_logger_line({
        "type": "complete", "id": "77", "name": "checkpoint_save_sync", "pid": 1, "count": 9,
        "attributes": {"checkpoint_strategy": "sync", "current_iteration": 400,
                       "save_checkpoint_attempt_count": 2},
        "start_event": {"name": "span_start", "attributes": {"timestamp_msec": _MSEC}},
        "stop_event": {"name": "span_stop", "attributes": {"timestamp_msec": _MSEC + 5000}},
    }))  # fmt: skip
    assert span is not None and span.event == "span_end" and span.name == "checkpoint_save"
    assert span.step == 400 and span.ts == datetime(
        2025, 12, 1, 12, 1, 5, 123000, tzinfo=UTC
    )  # its end
    bad = parse_telemetry(
        '[type="telemetry_data_error" | pid=1 | error.name="telemetry_data_error" '
        "| error.attributes.timestamp_msec=24000000 "
        '| error.attributes.telemetry_data_error_type="incomplete_telemetry_data" '
        '| error.attributes.error_message="error_msg" | count=1]'
    )
    assert bad is not None and bad.event == "telemetry_data_error"
    assert (
        parse_telemetry('[type="event" | event.attributes.timestamp_msec=-5 | count=1]') is not None
    )
