"""Bundles whose evidence is what the telemetry library wrote (tests/telemetry-bundles).

Made by `scripts/telemetry_incidents.py` from real torchrun runs with the pinned torch, every
rank reporting through `autorecover.telemetry`. Each checks what issue 15 found missing: the
library's fatal `error` record alone decides; in a DDP crash the rank that raised first is
cited first, not its peers' gloo errors; a hang the library raised is a hang at once, with the
rank the stacks single out and, from the hang records' flight-recorder summaries (torch 2.15
records gloo's collectives), the rank that never entered the collective the others wait in or
called another op there (issue 14, item 5). With `AUTORECOVER_TORCHRUN=1` and torch in /work/torchenv (or
`AUTORECOVER_TORCH_PYTHON`), the quickest case is run again for real and checked too.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from autorecover.adapters.bundles import Explanation, explain
from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Cause, Evidence
from autorecover.parsing.scanning import Scanner
from autorecover.parsing.telemetry_records import parse_telemetry
from conftest import TESTS
from test_torchrun_incidents import _pinned_version, _torch_python, _verdict, _want

BUNDLES_DIR = TESTS / "telemetry-bundles"
SCRIPT = TESTS.parent / "scripts" / "telemetry_incidents.py"
BUNDLES = sorted(p for p in BUNDLES_DIR.iterdir() if (p / "expected.json").exists())


def _explained(name: str, catalog: Catalog, scanner: Scanner) -> Explanation:
    return explain(BUNDLES_DIR / name, catalog, scanner)


def _record_of(bundle: Path, e: Evidence) -> dict[str, object]:
    """The telemetry record on an evidence line, as the library wrote it."""
    line = (bundle / "logs" / f"{e.node}.log").read_text().splitlines()[e.line - 1]
    rec = parse_telemetry(line)
    assert rec is not None, line
    return {"event": rec.event, "rank": rec.rank, "ts": rec.ts, **rec.as_dict()}


def test_the_four_cases_are_there() -> None:
    names = [b.name for b in BUNDLES]
    assert names == ["ddp-crash-key-error", "fatal-record-only",
                     "live-hang-mismatched-collective", "live-hang-stuck-loader"]  # fmt: skip


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_verdict_matches_expected(bundle: Path, catalog: Catalog, scanner: Scanner) -> None:
    got, summary = _verdict(bundle, catalog, scanner)
    assert got == _want(bundle), summary


def test_the_fatal_record_alone_decides_and_names_rank_node_and_time(
    catalog: Catalog, scanner: Scanner
) -> None:
    x = _explained("fatal-record-only", catalog, scanner)
    [first] = x.verdict.evidence
    assert (first.node, first.signal) == ("cpu-n01", "telemetry.fatal_error")
    record = _record_of(x.bundle, first)
    assert record["event"] == "error" and record["fatal"] is True
    assert isinstance(record["ts"], datetime)
    stamp = record["ts"].isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert f"rank 0 on cpu-n01 at {stamp}" in first.text and "ValueError: shard" in first.text
    assert "the job's first fatal error" in x.verdict.summary


def test_the_rank_that_raised_first_is_cited_before_its_peers_gloo_errors(
    catalog: Catalog, scanner: Scanner
) -> None:
    x = _explained("ddp-crash-key-error", catalog, scanner)
    first, *rest = x.verdict.evidence
    record = _record_of(x.bundle, first)
    assert (first.node, first.signal, record["rank"], record["type"]) == (
        "cpu-n02", "telemetry.fatal_error", 3, "KeyError")  # fmt: skip
    peers = [e for e in rest if e.signal == "gloo.peer_closed"]
    assert peers and all(_record_of(x.bundle, e)["ts"] > record["ts"] for e in peers)  # type: ignore[operator]
    assert "rank 3 on cpu-n02" in x.verdict.summary and "KeyError" in x.verdict.summary


def test_a_hang_the_library_raised_is_a_hang_at_once_naming_the_outlier(
    catalog: Catalog, scanner: Scanner
) -> None:
    x = _explained("live-hang-stuck-loader", catalog, scanner)
    assert x.job.running
    hang_records = [f for f in x.findings if f.signal == "telemetry.hang"]
    stalled = min(f.at for f in hang_records if f.at is not None)
    assert x.job.collected - stalled < timedelta(minutes=1)  # no 10-minute floor waited out
    first, second, third, *_ = x.verdict.evidence
    assert (first.node, first.signal) == ("cpu-n02", "hang.stack_outlier")
    assert "rank 3 on cpu-n02 is in next_batch" in first.text and "backward" in first.text
    # the flight recorders agree: rank 3's newest collective is the one before the others'
    assert "the flight recorder agrees: it never entered collective #" in first.text
    assert (second.node, second.signal) == ("cpu-n02", "hang.collective_outlier")
    assert "rank 3 on cpu-n02 never entered" in second.text and "its stack agrees" in second.text
    assert (third.node, third.signal) == ("cpu-n02", "telemetry.hang")
    assert _record_of(x.bundle, third)["rank"] == 3
    assert x.verdict.summary.startswith("hung: the telemetry library's watchdog on 4 rank(s)")
    assert "rank 3 on cpu-n02" in x.verdict.summary
    assert x.hang is not None and x.hang.collectives is not None
    assert x.hang.agreement() == "the stacks and the flight recorder agree"


def test_a_mismatched_collective_is_named_by_the_flight_recorder_alone(
    catalog: Catalog, scanner: Scanner
) -> None:
    x = _explained("live-hang-mismatched-collective", catalog, scanner)
    assert x.job.running and x.verdict.suspect_nodes == ()
    # every rank's Python stack is inside a torch.distributed collective: the stacks name nobody
    assert x.hang is not None and x.hang.outliers == () and len(x.hang.waiting) == 4
    [named] = [e for e in x.verdict.evidence if e.signal.startswith("hang.")]
    assert (named.node, named.signal) == ("cpu-n02", "hang.collective_outlier")
    assert "rank 3 on cpu-n02 is in gloo:broadcast at collective #" in named.text
    assert "3 of 4 ranks are in gloo:all_reduce" in named.text
    assert "its stack is in a collective too" in named.text
    [desync] = [e for e in x.verdict.evidence if e.signal == "c10d.collective_desync"]
    assert x.verdict.cause is Cause.APPLICATION and desync.node == "cpu-n02"
    agreement = x.hang.agreement()
    assert agreement is not None and agreement.startswith("the stacks disagree")
    records = [_record_of(x.bundle, e) for e in x.verdict.evidence if e.signal == "telemetry.hang"]
    assert records and all("collectives.0.seq" in r for r in records)  # what the library wrote


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_bundle_is_a_real_run_of_the_pinned_torch(bundle: Path) -> None:
    made_by = json.loads((bundle / "expected.json").read_text())["generated_by"]
    assert made_by == {"torch": _pinned_version(), "script": "scripts/telemetry_incidents.py"}
    job = json.loads((bundle / "job.json").read_text())
    assert (job["ended"] is None) == (job["state"] == "RUNNING")
    texts = [p.read_text() for p in (bundle / "logs").glob("*.log")]
    assert texts and all('{"telemetry":"autorecover/1"' in t for t in texts)
    assert not (bundle / "system").exists()


@pytest.mark.skipif(
    os.environ.get("AUTORECOVER_TORCHRUN") != "1" or _torch_python() is None,
    reason="opt-in (AUTORECOVER_TORCHRUN=1) and needs torch in /work/torchenv",
)
def test_regenerated_case_gets_its_verdict(
    tmp_path: Path, catalog: Catalog, scanner: Scanner
) -> None:
    python = _torch_python()
    assert python is not None
    name = "fatal-record-only"
    subprocess.run(
        [str(python), str(SCRIPT), "--out", str(tmp_path), "--only", name], check=True, timeout=300
    )
    got, summary = _verdict(tmp_path / name, catalog, scanner)
    assert got == _want(tmp_path / name) == _want(BUNDLES_DIR / name), summary
