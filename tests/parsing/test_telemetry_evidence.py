"""The telemetry library's `error` and `hang` records as findings, on lines the library wrote."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover import telemetry
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, Finding, Source
from autorecover.parsing.scanning import Scanner
from autorecover.parsing.telemetry_evidence import (
    ERROR,
    HANDLED,
    HANG,
    INTERRUPTED,
    UNCAUGHT,
    record_findings,
    records_in,
    replacing,
)

ENV = {"RANK": "3", "LOCAL_RANK": "1", "GROUP_RANK": "1", "WORLD_SIZE": "4",
       "TORCHELASTIC_RUN_ID": "j1"}  # fmt: skip
EPOCH_S = 1_780_000_000.0  # 2026-05-28T20:26:40Z
SCANNER = Scanner(builtin_catalog())  # hypothesis tests take no function-scoped fixtures


class Rank:
    """One rank's recorder writing to memory on a hand-driven clock."""

    def __init__(self) -> None:
        self.t = 0.0
        self.out = telemetry.MemoryOutput()
        policy = telemetry.HangPolicy(floor_s=5.0, warmup_s=0.0, warmup_steps=0)
        self.rec = telemetry.init(
            output=self.out, env=ENV, hostname="gpu-b02", background=False,
            install_hooks=False, hang=policy, clock=lambda: self.t,
            wall_clock=lambda: EPOCH_S + self.t, log_interval=1,
        )  # fmt: skip
        self.rec.step(7)

    def raises(self, exc: BaseException, **flags: object) -> None:
        try:
            raise exc
        except BaseException as caught:  # recorded, as the library's hook does
            self.rec.error(caught, **flags)  # type: ignore[arg-type]

    def data(self, prefix: str = "[default1]:") -> bytes:
        self.rec.flush()
        return "".join(f"{prefix}{line}\n" for line in self.out.lines).encode()


def _found(scanner: Scanner, rank: Rank) -> list[tuple[str, Blame, int]]:
    found = record_findings(scanner, "cpu-n02", records_in(rank.data()))
    return [(f.signal, f.blame, f.weight) for f in found]


def test_a_fatal_plain_exception_is_the_applications_with_rank_node_time_and_step(
    scanner: Scanner,
) -> None:
    rank = Rank()
    rank.t = 12.5
    rank.raises(ValueError("shard 17: expected 4096 tokens, got 4095"), fatal=True, uncaught=True)
    [f] = record_findings(scanner, "cpu-n02", records_in(rank.data()))
    assert (f.signal, f.blame, f.weight, f.rank, f.line) == (ERROR, Blame.APPLICATION, 50, 3, 4)
    assert f.at is not None and f.at.isoformat() == "2026-05-28T20:26:52.500000+00:00"
    assert f.text == (
        "fatal error record: rank 3 on gpu-b02 at 2026-05-28T20:26:52.500Z, after step 7: "
        "ValueError: shard 17: expected 4096 tokens, got 4095"
    )
    assert (f.detail("fatal"), f.detail("type"), f.detail("step")) == ("true", "ValueError", "7")


@pytest.mark.parametrize(
    ("exc", "want"),
    [
        (RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"),
         ("cuda.oom", Blame.APPLICATION, 80)),
        (RuntimeError("[../gloo/transport/tcp/pair.cc:561] Connection closed by peer "
                      "[10.0.0.2]:11691"), ("gloo.peer_closed", Blame.SYMPTOM, 30)),
        (RuntimeError("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has "
                      "fallen off the bus."), ("xid.79", Blame.HARDWARE, 100)),
        (KeyboardInterrupt(), (INTERRUPTED, Blame.INFO, 0)),
    ],
    ids=["cuda-oom", "gloo", "xid", "interrupt"],
)  # fmt: skip
def test_a_fatal_error_is_read_like_the_exception_it_carries(
    scanner: Scanner, exc: BaseException, want: tuple[str, Blame, int]
) -> None:
    rank = Rank()
    rank.raises(exc, fatal=True, uncaught=True)
    assert _found(scanner, rank) == [want]


def test_a_chained_cause_in_the_traceback_is_read_when_the_exception_itself_says_nothing(
    scanner: Scanner,
) -> None:
    rank = Rank()
    try:
        try:
            raise RuntimeError("CUDA error: uncorrectable ECC error encountered")
        except RuntimeError as inner:
            raise ValueError("step failed") from inner
    except ValueError as outer:
        rank.rec.error(outer, fatal=True, uncaught=True)
    assert _found(scanner, rank) == [("cuda.ecc_uncorrectable", Blame.HARDWARE, 90)]


def test_handled_errors_decide_nothing_and_a_threads_uncaught_one_counts(
    scanner: Scanner,
) -> None:
    rank = Rank()
    rank.raises(RuntimeError("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."))
    rank.raises(OSError("stale file handle"), uncaught=True, thread="loader-0")
    found = record_findings(scanner, "cpu-n02", records_in(rank.data()))
    assert [(f.signal, f.blame, f.weight) for f in found] == [
        (HANDLED, Blame.INFO, 0), (UNCAUGHT, Blame.APPLICATION, 50)]  # fmt: skip
    assert found[1].text.startswith("uncaught in thread loader-0 error record: rank 3")


def test_a_hang_record_is_a_light_symptom_with_its_idle_time_and_threshold(
    scanner: Scanner,
) -> None:
    rank = Rank()
    rank.t = 100.0
    assert rank.rec.watchdog is not None and rank.rec.watchdog.check(rank.t) is not None
    [f] = record_findings(scanner, "cpu-n02", records_in(rank.data()))
    assert (f.signal, f.blame, f.weight, f.rank) == (HANG, Blame.SYMPTOM, 10, 3)
    assert (f.detail("idle_s"), f.detail("threshold_s"), f.detail("step")) == ("100", "5", "7")
    assert "made no progress for 100 s (the library's threshold: 5 s)" in f.text


def test_the_records_replace_what_the_raw_json_line_matched(scanner: Scanner) -> None:
    rank = Rank()
    rank.raises(RuntimeError("Connection closed by peer [10.0.0.2]:11691"), fatal=True)
    data = rank.data() + b"[default1]:RuntimeError: Connection closed by peer [10.0.0.2]:11691\n"
    raw = _scan(scanner, data)
    assert [(f.signal, f.line) for f in raw] == [("gloo.peer_closed", 4), ("gloo.peer_closed", 5)]
    records = record_findings(scanner, "cpu-n02", records_in(data))
    merged = replacing(raw, records)
    assert [(f.line, f.text.startswith("fatal error record")) for f in merged] == [
        (4, True), (5, False)]  # fmt: skip


def test_the_nvidia_form_of_a_hang_record_counts_too(scanner: Scanner) -> None:
    out = telemetry.MemoryOutput()
    t = [0.0]
    rec = telemetry.init(
        output=out, env=ENV, hostname="gpu-b02", background=False, install_hooks=False,
        hang=telemetry.HangPolicy(floor_s=5.0, warmup_s=0.0, warmup_steps=0),
        clock=lambda: t[0], wall_clock=lambda: EPOCH_S + t[0], formats=("nvidia",),
    )  # fmt: skip
    rec.step(7)
    t[0] = 60.0
    assert rec.watchdog is not None and rec.watchdog.check(t[0]) is not None
    rec.flush()
    data = "".join(f"{line}\n" for line in out.lines).encode()
    [f] = record_findings(scanner, "cpu-n02", records_in(data))
    assert (f.signal, f.rank, f.detail("idle_s"), f.detail("threshold_s")) == (HANG, 3, "60", "5")


def test_nvidia_errors_and_other_events_are_left_to_the_scanner(scanner: Scanner) -> None:
    nvidia = b'[type=error | event.name=error | event.exception_type="ValueError"]\n'
    assert record_findings(scanner, "n0", records_in(nvidia)) == []
    assert record_findings(scanner, "n0", records_in(Rank().data())) == []  # init, step, summary


def _scan(scanner: Scanner, data: bytes) -> list[Finding]:
    start = datetime(2026, 5, 1, tzinfo=UTC)
    result = scanner.scan(io.BytesIO(data), node="cpu-n02", source=Source.LOGS, reference=start)
    return list(result.findings)


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=40),
                    st.lists(st.integers(), max_size=3))  # fmt: skip


@given(
    event=st.sampled_from(["error", "hang"]),
    fields=st.dictionaries(
        st.sampled_from(["type", "message", "traceback", "fatal", "uncaught", "thread", "idle_s",
                         "threshold_s", "in_checkpoint", "stacks", "ts", "rank", "step", "node"]),
        _VALUES,
    ),
)  # fmt: skip
@settings(max_examples=200, deadline=None)
def test_any_error_or_hang_record_gives_findings_and_never_raises(
    event: str, fields: dict[str, object]
) -> None:
    line = json.dumps({"telemetry": "autorecover/1", "event": event, **fields})
    found = record_findings(SCANNER, "n0", records_in(line.encode()))
    assert all(f.line == 1 and f.node == "n0" for f in found)
    assert len(found) >= 1
