"""`scripts/rewrap_corpus.py`'s bundle variations (issue 14) on a few tune bundles: each keeps
the incident (names, instants, messages) and the verdict stays, suspects renamed with it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest

from autorecover.adapters.bundles import explain, read_job
from autorecover.domain.catalog import builtin_catalog
from autorecover.parsing.lines import parse_line
from autorecover.parsing.scanning import Scanner

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
CORPUS = Path(__file__).resolve().parent / "corpus"
# tune bundles only: a Slurm node failure, a Kubernetes eviction, a hang with nothing behind it
# (unknown), a peer named by gloo
BUNDLES = (
    "hw-m4-srun-node-failure",
    "tr-k8s-evicted-ephemeral-storage",
    "unknown-jz-a100-40-node-100b-hangs-after-iteration-1-no-error-cuda-launch-blocking-workaround",
    "hw-gloo-peer-closed-xid79",
)
NEW = (
    "rename", "rename-gke", "fqdn", "reorder", "rotate", "sparse", "tz", "tz-west", "tail",
    "kubectl", "pdsh", "combined", "local", "local-west",
)  # fmt: skip


@pytest.fixture(scope="module")
def rewrap() -> ModuleType:
    name = "rewrap_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def engine() -> tuple[object, Scanner]:
    catalog = builtin_catalog()
    return catalog, Scanner(catalog)


def test_every_new_variation_is_offered(rewrap: ModuleType) -> None:
    required = {"nosys", "nosys-quiet", "cri", "nostamp", "fold80", "fold120", "wrap72", "wrap100"}
    required |= {"blockquote", "smartquotes", "nbsp"}
    assert set(NEW) | required <= set(rewrap.VARIATIONS)


@pytest.mark.parametrize("bundle", BUNDLES)
def test_the_verdict_survives_every_new_variation(
    rewrap: ModuleType, engine: tuple[object, Scanner], bundle: str
) -> None:
    catalog, scanner = engine
    path = CORPUS / bundle
    expected = json.loads((path / "expected.json").read_text())
    assert expected["split"] == "tune"
    before = explain(path, catalog, scanner)  # type: ignore[arg-type]
    assert before.verdict.cause.value == expected["cause"]
    tried = 0
    for name in NEW:
        names, after = rewrap.vary(path, before, name, catalog, scanner)
        if names is None:
            continue
        tried += 1
        suspects = sorted(names[n] for n in before.verdict.suspect_nodes)
        assert (after.cause, sorted(after.suspect_nodes)) == (before.verdict.cause, suspects), name
    assert tried >= 6


def test_rename_renames_every_mention_and_no_longer_name(
    rewrap: ModuleType, tmp_path: Path
) -> None:
    copy = tmp_path / "b"
    shutil.copytree(CORPUS / "hw-m4-srun-node-failure", copy)
    before = explain(CORPUS / "hw-m4-srun-node-failure", builtin_catalog())
    names = rewrap.VARIATIONS["rename"](copy, before)
    job = read_job(copy)
    assert job.nodes == tuple(names[n] for n in before.job.nodes)
    assert {p.stem for p in (copy / "logs").glob("*.log")} <= set(job.nodes)
    text = "\n".join(p.read_text() for p in copy.glob("*/*.log"))
    for old in before.job.nodes:
        assert old not in text.replace(names[old], "")  # no stray old name (nor part of one)


def test_tz_keeps_each_instant(rewrap: ModuleType, tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    (bundle / "logs").mkdir(parents=True)
    (bundle / "logs" / "n1.log").write_text(
        "2026-03-02T23:30:00Z step 1\n2026-03-02 10:00:01.5 step 2\nckpt-2026-03-02T10:00:00 x\n"
    )
    before = explain(CORPUS / "hw-m4-srun-node-failure", builtin_catalog())
    assert rewrap.VARIATIONS["tz"](bundle, before) is not None
    lines = (bundle / "logs" / "n1.log").read_text().splitlines()
    assert lines[:2] == ["2026-03-03T07:30:00+08:00 step 1", "2026-03-02 18:00:01.5+08:00 step 2"]
    assert lines[2] == "ckpt-2026-03-02T10:00:00 x"  # a name, not a time: left alone
    ref = datetime(2026, 3, 2, tzinfo=UTC)
    assert parse_line(lines[0], ref).at == datetime(2026, 3, 2, 23, 30, tzinfo=UTC)
    assert parse_line(lines[1], ref).at == datetime(2026, 3, 2, 10, 0, 1, 500000, tzinfo=UTC)


def test_local_moves_the_jobs_record_and_skips_logs_that_say_their_zone(
    rewrap: ModuleType, tmp_path: Path
) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(CORPUS / "hw-gloo-peer-closed-xid79", bundle)
    before = explain(bundle, builtin_catalog())
    assert rewrap.VARIATIONS["local"](bundle, before) is not None
    moved = read_job(bundle)
    assert moved.started == before.job.started - timedelta(hours=8)
    assert moved.collected == before.job.collected - timedelta(hours=8)
    zoned = tmp_path / "z"
    shutil.copytree(CORPUS / "hw-gloo-peer-closed-xid79", zoned)
    log = next((zoned / "logs").glob("*.log"))
    log.write_text("2026-03-02T10:00:00Z start\n" + log.read_text())
    assert rewrap.VARIATIONS["local"](zoned, before) is None


def test_combined_puts_every_nodes_log_in_one_file_in_time_order(
    rewrap: ModuleType, tmp_path: Path
) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(CORPUS / "hw-gloo-peer-closed-xid79", bundle)
    before = explain(bundle, builtin_catalog())
    nodes = [n for n in before.job.nodes if (bundle / "logs" / f"{n}.log").exists()]
    count = sum(len((bundle / "logs" / f"{n}.log").read_text().splitlines()) for n in nodes)
    assert rewrap.VARIATIONS["combined"](bundle, before) is not None
    [only] = list((bundle / "logs").glob("*.log"))
    lines = only.read_text().splitlines()
    assert only.stem == nodes[0] and len(lines) == count
    assert all(any(line.startswith(f"{n}: ") for n in nodes) for line in lines)
    ref = before.job.started
    times = [t for line in lines if (t := parse_line(line, ref, frozenset(nodes)).at)]
    assert times == sorted(times)


@pytest.mark.parametrize(
    "bundle",
    [
        "hw-vllm-ray-ecc-uncorrectable-k8s",  # Ray's banner printed under another node's prefix
        "hw-bloom176b-cuda-unknown-error",  # forwarded lines count in the shape rules
        "unknown-dataloader-bus-error-shm",  # untimed lines take their own host's times
    ],
)
def test_a_combined_log_reads_like_one_file_per_node(
    rewrap: ModuleType, engine: tuple[object, Scanner], bundle: str
) -> None:
    catalog, scanner = engine
    path = CORPUS / bundle
    before = explain(path, catalog, scanner)  # type: ignore[arg-type]
    names, after = rewrap.vary(path, before, "combined", catalog, scanner)
    assert names is not None
    assert (after.cause, after.suspect_nodes) == (
        before.verdict.cause,
        before.verdict.suspect_nodes,
    ), after.summary


def test_mpirun_tags_each_line_with_the_rank_that_wrote_it(rewrap: ModuleType) -> None:
    f = rewrap._File(datetime(2026, 3, 2, tzinfo=UTC))
    lines = [
        "[rank3]: Traceback (most recent call last):",
        '  File "train.py", line 1, in <module>',
        "[E ProcessGroupNCCL.cpp:475] [Rank 6] Watchdog caught collective operation timeout",
        "RuntimeError: boom",
    ]
    tagged = [rewrap.WRAPPERS["mpirun"](line, i, f) for i, line in enumerate(lines)]
    assert [t.split("]", 1)[0] for t in tagged] == ["[1,3", "[1,3", "[1,6", "[1,6"]


def test_nostamp_keeps_a_time_inside_a_forwarders_prefix(rewrap: ModuleType) -> None:
    f = rewrap._File(datetime(2026, 3, 2, tzinfo=UTC))
    ray = "(RayTrainWorker pid=12, ip=10.0.0.7) 2026-03-02 10:00:01,000 ERROR x.py:1 -- boom"
    assert rewrap.WRAPPERS["nostamp"](ray, 0, f) == ray
    assert rewrap.WRAPPERS["nostamp"]("[rank2]:[E302 10:00:01.000] boom", 1, f).startswith(
        "[rank2]: "
    )
