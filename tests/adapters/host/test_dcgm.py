"""dcgmi through an injectable runner: health and diag output from DCGM 3.x and 4.x."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.host.dcgm import (
    CommandResult,
    DcgmError,
    Dcgmi,
    DcgmUnavailableError,
    RecordedRunner,
    parse_diag_json,
    parse_health_json,
    run_command,
)

DCGM = Path(__file__).parents[2] / "fixtures" / "agent" / "dcgm"


class Runner:
    """Answers with a fixed output and remembers what it was asked."""

    def __init__(self, stdout: str, returncode: int = 0) -> None:
        self.result = CommandResult(returncode, stdout)
        self.calls: list[tuple[list[str], float]] = []

    def __call__(self, args: Sequence[str], timeout_s: float) -> CommandResult:
        self.calls.append((list(args), timeout_s))
        return self.result


def test_diag_4x_entities_and_severities() -> None:
    run = parse_diag_json((DCGM / "diag-4x-memory-isolate.json").read_text())
    assert run.version == "4.2.3"
    failed = [r for r in run.results if r.status == "Fail"]
    assert [(r.category, r.test, r.entity) for r in failed] == [("Hardware", "memory", "gpu0")]
    warning = failed[0].warnings[0]
    assert (warning.error_id, warning.severity, warning.category) == (52, 2, 5)


def test_diag_4x_config_finding_and_skips() -> None:
    run = parse_diag_json((DCGM / "diag-4x-config-only.json").read_text())
    statuses = {(r.test, r.status) for r in run.results}
    assert statuses == {("software", "Fail"), ("memory", "Skip")}
    assert run.results[0].warnings[0].severity == 5  # CONFIG


def test_diag_3x_with_nulls_csv_ids_and_a_leading_warning_line() -> None:
    run = parse_diag_json((DCGM / "diag-3x-pass.txt").read_text())
    assert run.version == "3.3.5"
    entities = [r.entity for r in run.results]
    assert entities == ["gpus 0,1,2,3", "gpus 0,1,2,3", "gpu0", "gpu1", "gpu2", "gpu3"]
    assert {r.status for r in run.results} == {"PASS", "Skip"}


def test_health_json() -> None:
    health = parse_health_json((DCGM / "health-failure.json").read_text())
    assert health.overall == "Failure"
    assert [(i.entity_group, i.entity_id, i.system, i.health) for i in health.incidents] == [
        ("GPU", "0", "Memory system", "Failure"),
        ("GPU", "0", "PCIe system", "Warning"),
    ]
    assert "double-bit" in health.incidents[0].messages[0]
    assert parse_health_json((DCGM / "health-healthy.json").read_text()).incidents == ()


def test_commands_are_argument_lists_with_timeouts() -> None:
    runner = Runner((DCGM / "diag-4x-pass.json").read_text(), returncode=0)
    dcgmi = Dcgmi(runner, "/usr/bin/dcgmi")
    dcgmi.diag(2)
    assert runner.calls == [(["/usr/bin/dcgmi", "diag", "-r", "2", "-j"], 1200.0)]
    with pytest.raises(ValueError, match=r"1\.\.4"):
        dcgmi.diag(9)


def test_a_failing_diag_exits_non_zero_and_is_still_read() -> None:
    runner = Runner((DCGM / "diag-4x-memory-isolate.json").read_text(), returncode=226)
    assert any(r.status == "Fail" for r in Dcgmi(runner).diag(1).results)


def test_no_host_engine_is_unavailable() -> None:
    runner = Runner(
        "Error: unable to establish a connection to the specified host: localhost\n", 255
    )
    with pytest.raises(DcgmUnavailableError):
        Dcgmi(runner).health()


def test_watches_not_enabled_is_an_error() -> None:
    runner = Runner("Error: Health watches not enabled. Please enable watches. \n", 255)
    with pytest.raises(DcgmError, match="watches not enabled"):
        Dcgmi(runner).health()


def test_no_dcgmi_is_unavailable() -> None:
    with pytest.raises(DcgmUnavailableError):
        run_command(["/nonexistent/dcgmi", "health", "-c", "-j"], 5)


def test_recorded_runner(tmp_path: Path) -> None:
    (tmp_path / "diag-r3.json").write_text((DCGM / "diag-4x-pass.json").read_text())
    dcgmi = Dcgmi(RecordedRunner(tmp_path))
    assert dcgmi.diag(3).results
    with pytest.raises(DcgmUnavailableError):
        dcgmi.health()


@pytest.mark.parametrize("text", ["", "no json here", "{ broken", "[1, 2]", '{"other": 1}'])
def test_bad_output_is_an_error(text: str) -> None:
    with pytest.raises(DcgmError):
        parse_diag_json(text)


@given(st.text(max_size=300))
def test_parsers_raise_only_their_error(text: str) -> None:
    for parse in (parse_diag_json, parse_health_json):
        with contextlib.suppress(DcgmError):
            parse(text)
