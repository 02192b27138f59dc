"""Rank stacks read from the telemetry library's own hang records."""

from __future__ import annotations

import json
import threading

from autorecover.domain.collectives import GroupState
from autorecover.parsing.stacks import rank_stack
from autorecover.parsing.telemetry_evidence import EVIDENCE_MARKERS, records_in
from autorecover.parsing.telemetry_records import parse_telemetry
from autorecover.telemetry.watchdog import thread_stacks


def _record(rank: int, stacks: dict[str, str]) -> str:
    return json.dumps({"telemetry": "autorecover/1", "ts": "2026-03-02T10:00:00Z",
                       "event": "hang", "rank": rank, "idle_s": 900.0, "threshold_s": 600.0,
                       "in_checkpoint": False, "stacks": stacks}, separators=(",", ":"))  # fmt: skip


def test_a_real_stack_from_the_library_reads_back_as_frames() -> None:
    stacks = thread_stacks()  # this very test's threads, as the watchdog writes them
    line = "[rank3]: " + _record(3, stacks)
    rec = parse_telemetry(line)
    assert rec is not None
    stack = rank_stack("n1", 42, rec)
    assert stack is not None and stack.rank == 3 and stack.line == 42
    assert stack.frames[-1].function == "thread_stacks"
    assert any(f.function == "test_a_real_stack_from_the_library_reads_back_as_frames"
               for f in stack.frames)  # fmt: skip
    assert threading.main_thread().name == "MainThread"


def test_hang_records_are_found_in_output_bytes_with_their_line_numbers() -> None:
    frame = '  File "/x/torch/distributed/distributed_c10d.py", line 2806, in all_reduce\n'
    data = "\n".join(["step 1", _record(0, {"MainThread": frame}), "noise",
                      _record(1, {"Thread-2": frame})]).encode()  # fmt: skip
    records = records_in(data, base=10, markers=EVIDENCE_MARKERS)
    found = [s for n, r in records if (s := rank_stack("n0", n, r)) is not None]
    assert [(s.rank, s.line, s.frames[-1].function) for s in found] == [
        (0, 12, "all_reduce"), (1, 14, "all_reduce")]  # fmt: skip
    assert list(records_in(b"no records here\n", markers=EVIDENCE_MARKERS)) == []


def test_the_nvidia_form_carries_stacks_as_one_json_string() -> None:
    frame = '  File "/job/train.py", line 7, in step\n'
    packed = json.dumps(json.dumps({"MainThread": frame}))
    line = f"[type=event | name=training_loop | event.name=hang | event.metrics.rank=5 | event.metrics.stacks={packed}]"
    rec = parse_telemetry(line)
    assert rec is not None and rec.event == "hang"
    stack = rank_stack("n2", 1, rec)
    assert stack is not None and stack.rank == 5 and stack.frames[-1].function == "step"


def test_records_without_frames_give_nothing() -> None:
    rec = parse_telemetry(_record(0, {"MainThread": "<stack unavailable>"}))
    assert rec is not None and rank_stack("n0", 1, rec) is None
    step = parse_telemetry('{"telemetry":"autorecover/1","event":"step","step":1}')
    assert step is not None and rank_stack("n0", 1, step) is None


def test_the_flight_recorder_summary_reads_back_per_group() -> None:
    line = json.dumps({"telemetry": "autorecover/1", "event": "hang", "rank": 2, "collectives": {
        "0": {"backend": "gloo", "desc": "default_pg", "enqueued": 15, "completed": 14,
              "seq": 15, "op": "gloo:all_reduce", "state": "scheduled",
              "recent": ["14 gloo:all_reduce completed", "15 gloo:all_reduce scheduled"]},
        "3/gloo": {"enqueued": 4, "completed": 4},  # no entry: counters are not sequence ids
        "5": {"seq": "x", "op": 7},  # malformed values are dropped, not guessed
    }})  # fmt: skip
    rec = parse_telemetry(line)
    assert rec is not None
    stack = rank_stack("n1", 9, rec)
    assert stack is not None and stack.frames == () and stack.rank == 2
    first, second, third = stack.collectives
    assert first == GroupState("0", 15, "gloo:all_reduce", "scheduled", "default_pg")
    assert first.waiting
    assert second == GroupState("3/gloo", None, None, None) and not second.waiting
    assert third == GroupState("5", None, None, None) and not third.waiting


def test_the_nvidia_form_carries_the_summary_as_one_json_string() -> None:
    packed = json.dumps(json.dumps({"1": {"seq": 7, "op": "nccl:broadcast", "state": "started"}}))
    line = f"[type=event | name=training_loop | event.name=hang | event.metrics.rank=1 | event.metrics.collectives={packed}]"
    rec = parse_telemetry(line)
    assert rec is not None
    stack = rank_stack("n0", 3, rec)
    assert stack is not None
    assert stack.collectives == (GroupState("1", 7, "nccl:broadcast", "started"),)
