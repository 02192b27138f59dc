"""Judging the NCCL pair test, and the `[validation.nccl]` policy data."""

from __future__ import annotations

import pytest

from autorecover.domain.failure_domains import DomainKind, FailureDomain, Topology
from autorecover.domain.hardware.policy_loading import PolicyError, load_policy
from autorecover.domain.hardware.remediation import Verdict
from autorecover.domain.hardware.validation import (
    NcclReport,
    NcclSettings,
    PerfCell,
    PerfRow,
    judge,
    shared_domain,
)

RACK = FailureDomain(DomainKind.RACK, "r1")
GIB = 1 << 30


def _row(size: int, busbw: float, wrong: int = 0) -> PerfRow:
    cell = PerfCell(1.0, busbw / 2, busbw, wrong)
    return PerfRow(size, size // 4, "float", "sum", -1, cell, cell)


def _report(*rows: PerfRow, **kw: object) -> NcclReport:
    return NcclReport(rows=rows, runs=1, **kw)  # type: ignore[arg-type]


SETTINGS = NcclSettings(busbw_gbps={"rack": 40.0, "nvlink": 350.0}, min_bytes=GIB)


def test_fast_enough_passes_with_the_numbers_as_evidence() -> None:
    j = judge(_report(_row(8, 0.0), _row(GIB, 38.0), _row(2 * GIB, 39.5)), RACK, SETTINGS,
              peer="gpu02")  # fmt: skip
    assert j.verdict is Verdict.PASS
    assert j.evidence[0].startswith("busbw 39.5 GB/s >= 80% of 40 GB/s expected within rack r1")
    assert "with gpu02" in j.evidence[1]


def test_slow_fails_naming_the_expectation_and_the_domain() -> None:
    j = judge(_report(_row(GIB, 12.3)), RACK, SETTINGS)
    assert j.verdict is Verdict.FAIL
    assert j.evidence[0].startswith("busbw 12.3 GB/s < 80% of 40 GB/s expected within rack r1")


def test_small_sizes_do_not_count() -> None:
    j = judge(_report(_row(8, 500.0), _row(GIB, 10.0)), RACK, SETTINGS)
    assert j.verdict is Verdict.FAIL


def test_any_wrong_value_fails_whatever_the_bandwidth() -> None:
    assert judge(_report(_row(GIB, 400.0, wrong=1)), RACK, SETTINGS).verdict is Verdict.FAIL
    summary = _report(_row(GIB, 400.0), out_of_bounds=3)
    assert judge(summary, RACK, SETTINGS).verdict is Verdict.FAIL


def test_a_failure_line_fails() -> None:
    j = judge(_report(_row(GIB, 400.0), failures=("h: Test NCCL failure common.cu:1 'x'",)),
              RACK, SETTINGS)  # fmt: skip
    assert j.verdict is Verdict.FAIL and "Test NCCL failure" in j.evidence[0]


def test_warnings_decide_nothing_but_are_kept() -> None:
    j = judge(_report(_row(GIB, 39.0), warnings=("NCCL WARN falling back",)), RACK, SETTINGS)
    assert j.verdict is Verdict.PASS and any("falling back" in e for e in j.evidence)


def test_missing_or_short_output_is_an_error_not_a_failure() -> None:
    assert judge(None, RACK, SETTINGS).verdict is Verdict.ERROR
    assert judge(_report(), RACK, SETTINGS).verdict is Verdict.ERROR
    short = judge(_report(_row(1024, 1.0)), RACK, SETTINGS)
    assert short.verdict is Verdict.ERROR and "largest 1024" in short.evidence[0]


def test_no_expectation_for_the_domain_is_an_error() -> None:
    leaf = FailureDomain(DomainKind.IB_LEAF, "leaf-1")
    assert judge(_report(_row(GIB, 40.0)), leaf, SETTINGS).verdict is Verdict.ERROR
    j = judge(_report(_row(GIB, 40.0)), None, SETTINGS)
    assert j.verdict is Verdict.ERROR and "cluster" in j.evidence[0]


def test_non_finite_bandwidth_is_ignored() -> None:
    nan = PerfCell(1.0, float("nan"), float("nan"), 0)
    row = PerfRow(GIB, 1, "float", "sum", -1, nan, nan)
    assert judge(_report(row), RACK, SETTINGS).verdict is Verdict.ERROR


def test_the_tightest_shared_domain_is_chosen() -> None:
    topo = Topology.from_labels({"a": {"rack": "r1", "nvlink": "n1"},
                                 "b": {"rack": "r1", "nvlink": "n1"},
                                 "c": {"rack": "r1", "nvlink": "n2"}, "d": {}})  # fmt: skip
    assert shared_domain(topo.of("a"), topo.of("b")) == FailureDomain(DomainKind.NVLINK, "n1")
    assert shared_domain(topo.of("a"), topo.of("c")) == RACK
    assert shared_domain(topo.of("a"), topo.of("d")) is None


def test_argv_is_numbers_from_the_policy() -> None:
    argv = NcclSettings(end_bytes=GIB, gpus_per_node=4).argv()
    assert argv == ("all_reduce_perf", "-b", "8", "-e", str(GIB), "-f", "2", "-g", "4",
                    "-n", "20", "-w", "5", "-c", "1")  # fmt: skip


def test_builtin_policy_has_the_validation_defaults() -> None:
    nccl = load_policy().validation.nccl
    assert nccl.busbw_gbps["rack"] == 340.0 and nccl.min_fraction == 0.8
    assert nccl.min_bytes == GIB and nccl.end_bytes == 8 * GIB


def test_an_override_merges_by_key() -> None:
    doc = "[validation.nccl]\nbusbw_gbps = { rack = 40.0, cluster = 20.0 }\nmin_fraction = 0.7\n"
    nccl = load_policy([("site.toml", doc)]).validation.nccl
    assert dict(nccl.busbw_gbps) == {"nvlink": 600.0, "ib_leaf": 340.0, "rack": 40.0,
                                     "cluster": 20.0}  # fmt: skip
    assert nccl.min_fraction == 0.7 and nccl.gpus_per_node == 8


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("[validation.nccl]\nmin_fraction = 1.5\n", "field 'min_fraction': must be a fraction"),
        ("[validation.nccl]\nbusbw_gbps = { pdu = 3.0 }\n", "'pdu' is not one of"),
        ("[validation.nccl]\nbusbw_gbps = { rack = -1 }\n", "busbw_gbps'.rack: must be a posi"),
        ("[validation.nccl]\ngpus_per_node = 0\n", "field 'gpus_per_node': must be an integer"),
        ("[validation.nccl]\ngpus_per_node = true\n", "field 'gpus_per_node'"),
        ('[validation.nccl]\nbinary = "x; rm -rf /"\n', "field 'binary'"),
        ('[validation.nccl]\nbinary = "/opt/../bin/sh"\n', "field 'binary'"),
        ("[validation.nccl]\nspeed = 1\n", "unknown field 'speed'"),
        ("[validation.nccl]\nbegin_bytes = 64\nend_bytes = 8\nmin_bytes = 8\n", "begin_bytes"),
        ("[validation.nccl]\nend_bytes = 1024\n", "min_bytes must not exceed end_bytes"),
        ("[validation.dcgm]\nlevel = 3\n", "unknown table 'dcgm'"),
        ("validation = 3\n", "[validation]: must be a table"),
    ],
)
def test_bad_values_name_the_document_table_and_field(doc: str, message: str) -> None:
    with pytest.raises(PolicyError) as err:
        load_policy([("site.toml", doc)])
    assert str(err.value).startswith("site.toml: [validation")
    assert message in str(err.value)
