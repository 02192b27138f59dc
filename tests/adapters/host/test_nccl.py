"""`all_reduce_perf` output read on outputs people published (tests/fixtures/nccl/README.md)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover.adapters.host.nccl import parse_all_reduce

NCCL = Path(__file__).parents[2] / "fixtures" / "nccl"


def _read(name: str) -> str:
    return (NCCL / name).read_text()


def test_two_h100_nodes_sixteen_ranks() -> None:
    report = parse_all_reduce(_read("h100-2node-ok.txt"))
    assert report.runs == 1
    assert len(report.rows) == 31
    assert report.rows[0].size == 8 and report.rows[-1].size == 8589934592
    last = report.rows[-1]
    assert last.dtype == "float" and last.redop == "sum" and last.root == -1
    assert last.out_of_place.busbw == 338.82 and last.in_place.busbw == 337.35
    assert last.out_of_place.time_us == 47535 and last.busbw == 338.82
    assert report.avg_busbw == 70.742
    assert report.out_of_bounds == 0 and report.wrong == 0
    assert report.hosts == ("ztan-mig-235z", "ztan-mig-gq73")
    assert len(report.ranks) == 16
    first = report.ranks[0]
    assert (first.rank, first.device, first.bus_id, first.pid) == (0, 0, "0000:04:00", 6899)
    assert first.name == "NVIDIA H100 80GB HBM3"
    assert report.failures == () and report.warnings == ()


def test_wrong_values_in_exponent_notation_are_counted() -> None:
    report = parse_all_reduce(_read("rtx3090-2node-wrong.txt"))
    assert report.out_of_bounds == 108
    assert report.rows[0].out_of_place.wrong == 4
    assert report.rows[-1].in_place.wrong == 268435000  # 2.68435e+08 as printed
    assert all(r.wrong > 0 for r in report.rows)
    assert report.hosts == ("worker1", "worker2")
    assert report.failures == ()  # FAILED is in the summary count, not a failure line


def test_slow_pair_keeps_every_row() -> None:
    report = parse_all_reduce(_read("rtx3090-2node-slow.txt"))
    assert len(report.rows) == 27 and report.wrong == 0
    assert max(r.busbw or 0 for r in report.rows) == 9.77
    assert report.avg_busbw == 3.96373


def test_test_nccl_failure_is_a_failure_line() -> None:
    report = parse_all_reduce(_read("a6000-2node-nccl-failure.txt"))
    assert report.rows == ()
    assert report.failures[0].startswith("fengyun: Test NCCL failure common.cu:959")
    assert report.failures[1] == ".. fengyun pid 3164639: Test failure common.cu:844"
    assert report.hosts == ("fengyun416", "fengyun")


def test_flush_left_rows_and_single_spaced_rank_lines() -> None:
    report = parse_all_reduce(_read("rtx4090-nccl-failure.txt"))
    assert [r.size for r in report.rows] == [8, 16, 32]
    assert [r.rank for r in report.ranks] == [0, 1, 2]
    assert report.ranks[1].bus_id == "0x3c"
    assert "unhandled CUDA error" in report.failures[0]


def test_nccl_warn_lines_are_warnings_not_failures() -> None:
    report = parse_all_reduce(_read("gtx-2gpu-nccl-warn.txt"))
    assert report.failures == ()
    assert len(report.warnings) == 1 and "NCCL WARN Could not find a path" in report.warnings[0]


def test_not_applicable_wrong_column() -> None:
    report = parse_all_reduce(_read("rtx5090-alltoall-na.txt"))
    (row,) = report.rows
    assert row.in_place.wrong is None and row.out_of_place.wrong == 0
    assert row.redop == "none" and report.avg_busbw == 0.0


def test_mpirun_prefixes_are_stripped() -> None:
    report = parse_all_reduce(_read("p5-mpirun-prefixed.txt"))
    assert [r.size for r in report.rows] == [8, 16, 32]
    assert report.rows[2].out_of_place.time_us == 22.25


def test_two_copies_from_two_tasks_count_each_rank_once() -> None:
    text = _read("h100-2node-ok.txt")
    report = parse_all_reduce(text + text)
    assert report.runs == 2 and len(report.ranks) == 16 and len(report.rows) == 62


def test_non_zero_exit_status_is_a_failure() -> None:
    report = parse_all_reduce(_read("h100-2node-ok.txt"), exit_status=1)
    assert report.failures == ("exit status 1",)
    assert parse_all_reduce("", exit_status=0).failures == ()


def test_srun_errors_are_failures() -> None:
    report = parse_all_reduce("srun: error: gpu02: task 1: Exited with exit code 3\n")
    assert report.failures == ("srun: error: gpu02: task 1: Exited with exit code 3",)


def test_failure_lines_are_bounded() -> None:
    text = "".join(f"host{i}: Test NCCL failure common.cu:1 '{'x' * 500}'\n" for i in range(200))
    report = parse_all_reduce(text)
    assert len(report.failures) == 50 and all(len(f) <= 300 for f in report.failures)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    parse_all_reduce(text)


_TOKENS = st.sampled_from(
    [
        "8",
        "-1",
        "float",
        "sum",
        "N/A",
        "nan",
        "inf",
        "1e999",
        "0.00",
        "1.04858e+06",
        "#",
        "Rank",
        "on",
        "device",
        "[0x1]",
        "x",
        "-",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_TOKENS, max_size=15), max_size=20))
def test_never_raises_on_table_like_lines(lines: list[list[str]]) -> None:
    report = parse_all_reduce("\n".join(" ".join(tokens) for tokens in lines))
    assert report.wrong >= 0
