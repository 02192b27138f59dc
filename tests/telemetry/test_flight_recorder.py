"""The flight-recorder summary in hang records: real torch 2.15 gloo dumps, a fake c10d module.

`data/fr-gloo-stall.json` holds what torch 2.15's gloo recorder really dumped on two ranks
while rank 1 stalled outside a collective and rank 0 waited in an all-reduce
(`scripts/flight_recorder_dumps.py`). The library is fed those dumps through a fake
`torch._C._distributed_c10d` in an injected module table, so these tests need no torch; the
last one asks a real one when it is installed.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from autorecover.domain.collectives import compare
from autorecover.parsing.stacks import rank_stack
from autorecover.parsing.telemetry_records import parse_telemetry
from autorecover.telemetry import HangReport, Watchdog
from autorecover.telemetry.flight_recorder import (
    C10D,
    MAX_GROUPS,
    MAX_TEXT,
    RECENT,
    Collectives,
    read_collectives,
    summarize,
)

from .fakes import MakeRecorder
from .test_watchdog import POLICY, View

FIXTURE = json.loads((Path(__file__).parent / "data" / "fr-gloo-stall.json").read_text())


def recorded(rank: int) -> dict[str, Any]:
    """A rank's real dump, as torch returns it (its process_group pairs are tuples)."""
    dump = json.loads(json.dumps(FIXTURE["dumps"][str(rank)]))
    for entry in dump["entries"]:
        entry["process_group"] = tuple(entry["process_group"])
    return dump


class FakeC10d:
    """Stands in for torch._C._distributed_c10d: its two dump calls, with what they return."""

    def __init__(self, gloo: object = None, nccl: object = None,
                 block: threading.Event | None = None) -> None:  # fmt: skip
        self.gloo, self.nccl, self.block = gloo, nccl, block
        self.calls: list[tuple[object, ...]] = []

    def _dump_fr_trace(self, collectives: bool, stacks: bool, active: bool, backend: str) -> bytes:
        self.calls.append(("fr", collectives, stacks, active, backend))
        if self.block is not None:
            self.block.wait(10)
        return self._answer(self.gloo if backend == "gloo" else None)

    def _dump_nccl_trace(self, collectives: bool, stacks: bool, active: bool) -> bytes:
        self.calls.append(("nccl", collectives, stacks, active))
        return self._answer(self.nccl)

    @staticmethod
    def _answer(what: object) -> bytes:
        if isinstance(what, BaseException):
            raise what
        if isinstance(what, bytes):
            return what
        empty = {"version": "2.10", "pg_config": {}, "pg_status": {}, "entries": []}
        return pickle.dumps(what if what is not None else empty)


def read(fake: FakeC10d, env: dict[str, str] | None = None, **kw: Any) -> Collectives:
    return read_collectives(modules={C10D: fake}, env=env or {}, **kw)


def test_a_real_gloo_dump_is_summarized_per_group() -> None:
    fake = FakeC10d(gloo=recorded(0))
    found = read(fake)
    assert found.error is None and found.groups is not None
    assert found.groups["0"] == {
        "backend": "gloo", "desc": "default_pg", "enqueued": 6, "started": -1, "completed": 5,
        "seq": 5, "op": "gloo:all_reduce", "state": "scheduled",
        "recent": ["3 gloo:all_reduce completed", "4 gloo:barrier completed",
                   "5 gloo:all_reduce scheduled"],
    }  # fmt: skip
    assert found.groups["1"] == {
        "backend": "gloo", "desc": "pair", "enqueued": 1, "started": -1, "completed": 1,
        "seq": 1, "op": "gloo:all_reduce", "state": "completed",
        "recent": ["1 gloo:all_reduce completed"],
    }  # fmt: skip
    # collectives only, no C++ stacks, completed entries too; NCCL's recorder asked as well
    assert fake.calls == [("nccl", True, False, False), ("fr", True, False, False, "gloo")]


def test_the_rank_that_stalled_outside_is_named_from_its_real_dumps(
    make_recorder: MakeRecorder,
) -> None:
    """Both ranks' summaries go through the library's hang record, in both formats, and back
    through the parser to the comparison: rank 1 never entered the all-reduce rank 0 waits in."""
    for fmt in ("autorecover", "nvidia"):
        ranks = {}
        for rank in (0, 1):
            found = read(FakeC10d(gloo=recorded(rank)))
            rec, out = make_recorder(formats=(fmt,))
            report = HangReport(300.0, 120.0, 7, False, {"MainThread": "<stack unavailable>"},
                                found.groups, found.error)  # fmt: skip
            rec._report_hang(report)
            rec.flush()
            parsed = parse_telemetry(out.lines[-1])
            assert parsed is not None and parsed.event == "hang"
            stack = rank_stack("n1", 1, parsed)
            assert stack is not None
            ranks[rank] = stack.collectives
        where = compare(ranks)
        assert where is not None, fmt
        [o] = where.outliers
        assert (o.rank, o.kind, o.target.seq, o.target.op, o.own.op) == (
            1, "behind", 5, "gloo:all_reduce", "gloo:barrier")  # fmt: skip


@pytest.mark.parametrize(
    ("env", "on"),
    [
        ({}, True),  # unset: torch 2.15 records 2000 entries
        ({"TORCH_FR_BUFFER_SIZE": "0", "TORCH_NCCL_TRACE_BUFFER_SIZE": "2000"}, False),
        ({"TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}, False),
        ({"TORCH_FR_BUFFER_SIZE": "64", "TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}, True),
        ({"TORCH_FR_BUFFER_SIZE": "lots"}, True),  # torch's to reject; the dump says what is there
    ],
)
def test_a_recorder_set_to_zero_entries_is_not_asked(env: dict[str, str], on: bool) -> None:
    fake = FakeC10d(gloo=recorded(1))
    found = read(fake, env)
    assert (found.groups is not None, bool(fake.calls)) == (on, on)


def test_without_torch_loaded_nothing_is_asked_or_imported() -> None:
    assert read_collectives(modules={}, env={}) == Collectives()
    code = (
        "import sys; from autorecover.telemetry.flight_recorder import read_collectives; "
        "print(read_collectives(), 'torch' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    assert proc.stdout.strip() == "Collectives(groups=None, error=None) False"


def test_a_failing_dump_is_said_and_the_other_backend_still_counts() -> None:
    found = read(FakeC10d(gloo=recorded(0), nccl=RuntimeError("NCCL comm aborted")))
    assert found.error == "nccl: RuntimeError: NCCL comm aborted"
    assert found.groups is not None and set(found.groups) == {"0", "1"}
    garbage = read(FakeC10d(gloo=b"not a pickle"))
    assert garbage.groups is None and (garbage.error or "").startswith("gloo: UnpicklingError")
    odd = read(FakeC10d(gloo=["a", "list"]))
    assert odd.error == "gloo: TypeError: flight recorder dump is list, not dict"


def test_a_stuck_dump_is_left_behind_at_its_deadline() -> None:
    release = threading.Event()
    try:
        found = read(FakeC10d(gloo=recorded(0), block=release), timeout_s=0.05)
    finally:
        release.set()
    assert found == Collectives(None, "gloo: TimeoutError: no dump within 0.05 s")


def test_the_summary_is_bounded() -> None:
    entries = [
        {"record_id": i, "collective_seq_id": i, "profiling_name": "gloo:" + "x" * 500,
         "state": "scheduled", "retired": i < 99, "process_group": (f"g.{i % 40}", "d" * 500),
         "is_p2p": False}
        for i in range(100)
    ] + [{"record_id": 100, "collective_seq_id": 0, "p2p_seq_id": 9, "profiling_name": "gloo:send",
          "state": "scheduled", "process_group": ("g.19", ""), "is_p2p": True}]  # fmt: skip
    groups = summarize({"pg_status": {}, "entries": entries}, "gloo")
    assert len(groups) == MAX_GROUPS
    # the groups with the newest entries (ids 99..84: groups 19..4); dots made underscores
    assert set(groups) == {f"g_{i}" for i in range(20 - MAX_GROUPS, 20)}
    newest = groups["g_19"]
    assert isinstance(newest, dict) and newest["seq"] == 99 and newest["state"] == "scheduled"
    assert isinstance(newest["op"], str) and len(newest["op"]) == MAX_TEXT
    assert isinstance(newest["recent"], list) and len(newest["recent"]) == RECENT
    again = summarize({"pg_status": {"g_19": {}}, "entries": []}, "nccl", taken=set(groups))
    assert list(again) == ["g_19/nccl"]  # a second backend's view of the same group


def test_the_watchdog_puts_the_summary_in_its_report_and_survives_a_broken_reader(
    make_recorder: MakeRecorder,
) -> None:
    fake = FakeC10d(gloo=recorded(0))
    dog = Watchdog(POLICY, View(), lambda r: None, stacks=dict, collectives=lambda: read(fake))
    report = dog.check(100.0)
    assert report is not None and report.collectives is not None
    assert report.collectives_error is None and "0" in report.collectives

    def broken() -> Collectives:
        raise ImportError("torch half-imported")

    reports: list[HangReport] = []
    dog = Watchdog(POLICY, View(), reports.append, stacks=dict, collectives=broken)
    assert dog.check(100.0) is not None
    [bad] = reports
    assert (bad.collectives, bad.collectives_error) == (None, "ImportError: torch half-imported")
    rec, out = make_recorder()
    rec._report_hang(bad)
    rec.flush()
    (hang,) = out.records("hang")
    assert hang["collectives_error"] == "ImportError: torch half-imported"
    assert "collectives" not in hang and hang["idle_s"] == bad.idle_s


def test_a_real_torch_gloo_group_reads_back(tmp_path: Path) -> None:
    torch = pytest.importorskip(
        "torch",
        reason="torch is not installed in this interpreter (the project's `training` "
        "dependency group adds it); the recorded dumps above still run",
    )
    import torch.distributed as dist

    store = dist.FileStore(str(tmp_path / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        dist.all_reduce(torch.ones(2))
        found = read_collectives(env={})
    finally:
        dist.destroy_process_group()
        # the recorder's ring outlives the group: empty it so later tests' hang reports do not
        # carry this test's collectives
        torch._C._distributed_c10d._reset_fr_trace("gloo")
    assert found.error is None and found.groups is not None
    group = found.groups["0"]
    assert isinstance(group, dict)
    assert (group["op"], group["state"], group["backend"]) == (
        "gloo:all_reduce", "completed", "gloo")  # fmt: skip
