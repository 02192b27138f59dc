"""Reading bundles: malformed input gets an error that names the file and field."""

from __future__ import annotations

import json
import shutil
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.adapters.bundles import BundleError, find_bundles, read_job
from conftest import SAMPLES

GOOD = {
    "scheduler": "slurm",
    "job": "1",
    "nodes": ["gpu-a01", "gpu-a02"],
    "started": "2026-03-02T10:00:00Z",
    "ended": "2026-03-02T11:00:00Z",
    "collected": "2026-03-02T11:05:00Z",
    "state": "FAILED",
}


def write(tmp_path: Path, job: object) -> Path:
    (tmp_path / "job.json").write_text(json.dumps(job) if not isinstance(job, str) else job)
    return tmp_path


def test_reads_a_good_job(tmp_path: Path) -> None:
    job = read_job(write(tmp_path, GOOD))
    assert job.nodes == ("gpu-a01", "gpu-a02")
    assert job.ended is not None and not job.running


def test_running_job_has_no_end(tmp_path: Path) -> None:
    assert read_job(write(tmp_path, {**GOOD, "ended": None})).running


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ("{not json", "line 1: not valid JSON"),
        ([1, 2], "must hold a JSON object"),
        ({k: v for k, v in GOOD.items() if k != "nodes"}, "field 'nodes': missing"),
        ({**GOOD, "scheduler": "pbs"}, "field 'scheduler'"),
        ({**GOOD, "started": "yesterday"}, "field 'started': 'yesterday' is not an ISO-8601 time"),
        ({**GOOD, "nodes": "gpu-a01"}, "field 'nodes': must be a list"),
        ({**GOOD, "nodes": ["gpu a01; rm -rf /"]}, "field 'nodes[0]'"),
        ({**GOOD, "nodes": []}, "field 'nodes': lists no node"),
        ({**GOOD, "exit_codes": {"gpu-a09": 1}}, "field 'exit_codes.gpu-a09': not a node"),
        (
            {**GOOD, "exit_codes": {"gpu-a01": "1"}},
            "field 'exit_codes.gpu-a01': must be an integer",
        ),
        ({**GOOD, "colour": "red"}, "field 'colour': unknown field"),
        ({**GOOD, "ended": "2026-03-01T00:00:00Z"}, "field 'ended': before 'started'"),
    ],
)
def test_bad_job_json_names_file_and_field(tmp_path: Path, job: object, message: str) -> None:
    with pytest.raises(BundleError) as err:
        read_job(write(tmp_path, job))
    assert str(tmp_path / "job.json") in str(err.value)
    assert message in str(err.value)


def test_missing_job_json(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match=r"job\.json: missing"):
        read_job(tmp_path)


def test_log_for_a_node_the_job_does_not_list(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    from autorecover.adapters.bundles import explain

    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "slurm-preempted", bundle)
    (bundle / "logs" / "gpu-z99.log").write_text("hello\n")
    with pytest.raises(BundleError, match=r"gpu-z99.log: log for node 'gpu-z99'"):
        explain(bundle, catalog)


def test_missing_log_files_are_evidence_not_errors(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    from autorecover.adapters.bundles import explain

    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "xid79-fell-off-bus", bundle)
    (bundle / "logs" / "gpu-a01.log").unlink()
    result = explain(bundle, catalog)
    assert result.verdict.suspect_nodes == ("gpu-a03",)
    assert any(not a.present for a in result.activity)


def test_find_bundles(tmp_path: Path) -> None:
    assert find_bundles(SAMPLES / "slurm-preempted") == [SAMPLES / "slurm-preempted"]
    assert len(find_bundles(SAMPLES)) == 8
    with pytest.raises(BundleError, match="no such bundle"):
        find_bundles(tmp_path / "nope")


def test_unreadable_log_is_an_error_naming_the_file(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    from autorecover.adapters.bundles import explain

    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "slurm-preempted", bundle)
    (bundle / "system" / "gpu-a02.log").unlink()
    (bundle / "system" / "gpu-a02.log").mkdir()  # a directory where a file should be
    with pytest.raises(BundleError, match=r"system/gpu-a02\.log: not a regular file \(a direc"):
        explain(bundle, catalog)


def test_stray_file_in_logs_is_an_error(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    from autorecover.adapters.bundles import explain

    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "slurm-preempted", bundle)
    (bundle / "logs" / "notes.txt").write_text("hi\n")
    with pytest.raises(BundleError, match=r"notes\.txt: unexpected file"):
        explain(bundle, catalog)


def _hang_record(rank: int, at: str, frames: list[tuple[str, int, str]]) -> str:
    stack = "".join(f'  File "{f}", line {n}, in {fn}\n    pass\n' for f, n, fn in frames)
    return json.dumps({"telemetry": "autorecover/1", "ts": at, "event": "hang", "rank": rank,
                       "idle_s": 700.0, "threshold_s": 600.0, "in_checkpoint": False,
                       "stacks": {"MainThread": stack, "pt_watchdog": '  File "t.py", line 1, in run\n'}},
                      separators=(",", ":"))  # fmt: skip


def test_explain_names_the_rank_the_hang_stacks_single_out(tmp_path: Path) -> None:
    """A hung job whose ranks wrote hang records: three wait in all_reduce, rank 3 (on
    gpu-a02) is in its data loader; the explanation places the hang there."""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog

    c10d = "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
    train = [("/job/train.py", 210, "<module>"), ("/job/train.py", 120, "step")]
    wait = [*train, (c10d, 2806, "all_reduce")]
    stuck = [
        *train,
        ("/job/data.py", 44, "next_batch"),
        ("/usr/lib/python3.11/queue.py", 180, "get"),
    ]
    write(
        tmp_path, {**GOOD, "ended": None, "state": "RUNNING", "collected": "2026-03-02T10:40:00Z"}
    )
    (tmp_path / "logs").mkdir()
    for node, ranks in (("gpu-a01", (0, 1)), ("gpu-a02", (2, 3))):
        lines = [json.dumps({"telemetry": "autorecover/1", "ts": f"2026-03-02T10:{m:02d}:00Z",
                             "event": "step", "rank": r, "step": m, "step_time_s": 1.0})
                 for m in range(0, 20) for r in ranks]  # fmt: skip
        lines += [_hang_record(r, "2026-03-02T10:30:00Z", stuck if r == 3 else wait) for r in ranks]
        (tmp_path / "logs" / f"{node}.log").write_text("\n".join(lines) + "\n")
    found = explain(tmp_path, builtin_catalog())
    assert found.hang is not None
    assert [(s.rank, s.node) for s in found.hang.outliers] == [(3, "gpu-a02")]
    outliers = [f for f in found.findings if f.signal == "hang.stack_outlier"]
    assert [(f.node, f.rank, f.detail("record_line")) for f in outliers] == [("gpu-a02", 3, "42")]
    assert any(e.signal == "hang.stack_outlier" for e in found.verdict.evidence)


def test_job_history_in_job_json_is_read_and_checked(tmp_path: Path) -> None:
    """An unexplained crash that the job's earlier attempt also died of, the same way, is the
    job's own (docs/attribution.md, job history); a malformed history names its field."""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog
    from conftest import CORPUS

    bundle = tmp_path / "b"
    shutil.copytree(CORPUS / "unknown-dataloader-bus-error-shm", bundle)
    first = explain(bundle, builtin_catalog()).verdict
    assert first.cause.value == "unknown" and first.evidence
    decisive = first.evidence[0]
    job = json.loads((bundle / "job.json").read_text())
    job["history"] = [{"cause": "unknown", "signal": decisive.signal, "node": decisive.node}]
    (bundle / "job.json").write_text(json.dumps(job))
    again = explain(bundle, builtin_catalog()).verdict
    assert again.cause.value == "application" and again.suspect_nodes == ()
    job["history"] = [{"cause": "broken"}]
    (bundle / "job.json").write_text(json.dumps(job))
    with pytest.raises(BundleError, match=r"job.json: field history\[0\].cause"):
        explain(bundle, builtin_catalog())


def test_explain_puts_a_pdsh_prefixed_line_on_the_host_it_names(tmp_path: Path) -> None:
    """DeepSpeed's multi-node runner (pdsh) prints every host's lines on the launching node,
    each after `<host>: `: the ECC error of gpu-a02's rank is gpu-a02's, not gpu-a01's."""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.records import Cause

    write(tmp_path, GOOD)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "gpu-a01.log").write_text(
        "gpu-a01: [2026-03-02 10:00:05,000] [INFO] [launch.py:146:main] nnodes=2\n"
        "gpu-a02: [2026-03-02 10:00:05,100] [INFO] [launch.py:146:main] nnodes=2\n"
        "gpu-a02: [rank1]:[E302 10:40:01.000000000 ProcessGroupNCCL.cpp:1] x\n"
        "gpu-a02: [rank1]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
        "gpu-a01: [rank0]:[E302 10:50:01.327100192 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n"
    )
    found = explain(tmp_path, builtin_catalog())
    assert (found.verdict.cause, found.verdict.suspect_nodes) == (Cause.HARDWARE, ("gpu-a02",))
    [ecc] = [e for e in found.verdict.evidence if e.signal == "cuda.ecc_uncorrectable"]
    assert (ecc.node, ecc.line) == ("gpu-a01", 4)  # evidence points at the file that holds it
    [f] = [f for f in found.findings if f.signal == "cuda.ecc_uncorrectable"]
    assert (f.rank, f.detail("via")) == (1, "gpu-a02")  # the verdict puts it on gpu-a02


def test_explain_puts_a_pdsh_line_of_free_text_on_the_job_node_it_names(tmp_path: Path) -> None:
    """A worker's traceback under pdsh has no rank prefix or time after `<host>: `: the host
    is one of the job's nodes, so the line is still that node's, not the launching node's."""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.records import Cause

    write(tmp_path, GOOD)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "gpu-a01.log").write_text(
        "gpu-a01: [2026-03-02 10:00:05,000] [INFO] [launch.py:146:main] nnodes=2\n"
        "gpu-a02: [2026-03-02 10:40:00,100] [INFO] [engine.py:1:step] step=120\n"
        "gpu-a02: Traceback (most recent call last):\n"
        "gpu-a02: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
        "gpu-a01: [rank0]:[E302 10:50:01.327100192 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n"
    )
    found = explain(tmp_path, builtin_catalog())
    assert (found.verdict.cause, found.verdict.suspect_nodes) == (Cause.HARDWARE, ("gpu-a02",))
    [f] = [f for f in found.findings if f.signal == "cuda.ecc_uncorrectable"]
    assert (f.node, f.detail("via")) == ("gpu-a01", "gpu-a02")  # held by gpu-a01's file


def test_explain_reads_a_library_wrapper_by_the_service_error_under_it(tmp_path: Path) -> None:
    """A library raising its own exception while handling requests' failed connection to the
    Hub: the outage is the cause (transient), not the job's code; the same exception with no
    chained cause stays the application's. (transformers' own "Can't load tokenizer for" is a
    symptom either way: it swallows connection errors, so it reads the same for a wrong name and
    an unreachable hub; signatures-modelload.toml.)"""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.records import Cause

    def verdict(chained: bool) -> Cause:
        write(tmp_path, GOOD | {"nodes": ["gpu-a01"]})
        (tmp_path / "logs").mkdir(exist_ok=True)
        service = [
            "Traceback (most recent call last):",
            '  File "/venv/urllib3/connectionpool.py", line 703, in urlopen',
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', "
            "port=443): Max retries exceeded with url: /bert/resolve/main/config.json",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
        ]
        (tmp_path / "logs" / "gpu-a01.log").write_text(
            "\n".join(
                [
                    "2026-03-02 10:40:00 INFO loading tokenizer",
                    *(service if chained else []),
                    "Traceback (most recent call last):",
                    '  File "/workspace/train.py", line 10, in <module>',
                    "RuntimeError: could not load the tokenizer for 'bert'",
                ]
            )
            + "\n"
        )
        return explain(tmp_path, builtin_catalog()).verdict.cause

    assert verdict(chained=True) is Cause.TRANSIENT
    assert verdict(chained=False) is Cause.APPLICATION


CORPUS = Path(__file__).resolve().parent.parent / "corpus"


# tune bundles whose verdicts a cut at 120 columns (a wrap at 100) changed before broken lines
# were rejoined
@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize(
    "name",
    [
        "tr-master-port-in-use-stale-processes",
        "app-horovod-duplicate-gpu-detected-every-rank-both-nodes-invalid-usage",
        "hw-tpu-v5p-8-vfio-busy-failed-to-initialize-tpu-system-no-accelerator-node-deleted-k8s",
    ],
)
def test_a_bundle_cut_at_a_terminals_width_explains_as_it_did(
    tmp_path: Path,
    catalog,  # type: ignore[no-untyped-def]
    name: str,
    wrap: bool,
) -> None:
    def broken(text: str) -> str:
        pieces = (_wrap(line, 100) if wrap else _fold(line, 120) for line in text.split("\n"))
        return "\n".join(p for each in pieces for p in each)

    before, after = _rewritten(tmp_path, catalog, name, broken)
    assert (after.verdict.cause, after.verdict.suspect_nodes) == (
        before.verdict.cause,
        before.verdict.suspect_nodes,
    )
    assert after.verdict.evidence[0].signal == before.verdict.evidence[0].signal


def _rewritten(tmp_path: Path, catalog, name: str, rewrite):  # type: ignore[no-untyped-def]
    """What `explain` makes of corpus bundle `name` before and after each job log's text is
    passed through `rewrite` (in a copy under `tmp_path`)."""
    from autorecover.adapters.bundles import explain

    bundle = tmp_path / "b"
    shutil.copytree(CORPUS / name, bundle)
    before = explain(bundle, catalog)
    for path in bundle.glob("logs/*.log"):
        path.write_text(rewrite(path.read_text()))
    return before, explain(bundle, catalog)


def _fold(line: str, width: int) -> list[str]:
    return [line[k : k + width] for k in range(0, len(line) or 1, width)]


def _wrap(line: str, width: int) -> list[str]:
    return textwrap.wrap(line, width, break_on_hyphens=False) if len(line) > width else [line]


def local_time_bundle(tmp_path: Path, zone: str = "") -> Path:
    """GOOD's job (10:00-11:00 UTC) whose job logs and gpu-a02's syslog were written at
    UTC+8 without a zone (`zone` adds one to the job logs' stamps); gpu-a01's syslog is the
    day before's, an old XID 79 in it."""
    write(tmp_path, GOOD)
    (tmp_path / "logs").mkdir()
    (tmp_path / "system").mkdir()
    for node, rank in (("gpu-a01", 0), ("gpu-a02", 1)):
        (tmp_path / "logs" / f"{node}.log").write_text(
            f"2026-03-02 18:00:04{zone} INFO starting rank {rank}\n"
            f"2026-03-02 18:20:00{zone} INFO step 100 loss 2.31\n"
            f"[rank{rank}]:[E302 18:50:01.327100192 ProcessGroupNCCL.cpp:616] [Rank {rank}] "
            "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, "
            "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before "
            "timing out.\n"
            f"2026-03-02 18:59:58{zone} ERROR rank {rank} exiting\n"
        )
    (tmp_path / "system" / "gpu-a02.log").write_text(
        "Mar  2 17:58:00 gpu-a02 systemd[1]: Started Slurm node daemon.\n"
        "Mar  2 18:40:00 gpu-a02 kernel: NVRM: Xid (PCI:0000:ba:00): 79, pid=4123, "
        "GPU has fallen off the bus.\n"
        "Mar  2 19:01:00 gpu-a02 slurmd[2231]: done with job 1\n"
    )
    (tmp_path / "system" / "gpu-a01.log").write_text(
        "Mar  1 07:58:00 gpu-a01 kernel: Linux version 6.8.0\n"
        "Mar  1 08:10:00 gpu-a01 kernel: NVRM: Xid (PCI:0000:1a:00): 79, pid=77, "
        "GPU has fallen off the bus.\n"
        "Mar  1 09:00:00 gpu-a01 systemd[1]: Reached target Multi-User System.\n"
    )
    return tmp_path


def test_explain_reads_logs_written_in_local_time_in_their_zone(tmp_path: Path) -> None:
    """Job output and a syslog kept in local time (UTC+8) without a zone: every line is 8 h
    after the job's UTC record, outside its window. The job's output starts with the job and
    ends with it only at UTC+8, so it is read there, and so is the syslog that reads right
    only there; the other node's syslog of the day before stays outside (its old XID is no
    evidence)."""
    from autorecover.adapters.bundles import explain
    from autorecover.cli.explain import render
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.records import Cause, Source

    found = explain(local_time_bundle(tmp_path), builtin_catalog())
    assert (found.verdict.cause, found.verdict.suspect_nodes) == (Cause.HARDWARE, ("gpu-a02",))
    zones = {(z.node, z.source): z.describe() for z in found.local_times}
    assert zones == {
        ("gpu-a01", Source.LOGS): "UTC+08:00",
        ("gpu-a02", Source.LOGS): "UTC+08:00",
        ("gpu-a02", Source.SYSTEM): "UTC+08:00",
    }
    [xid] = [f for f in found.findings if f.signal == "xid.79" and f.node == "gpu-a02"]
    assert xid.at == datetime(2026, 3, 2, 10, 40, tzinfo=UTC)
    shown = [line for line in render(found).splitlines() if line.startswith("  times:")]
    assert shown == [
        "  times:    read as UTC+08:00 (stamps without a zone that fit the job's run only there): "
        "logs/gpu-a01.log, logs/gpu-a02.log, system/gpu-a02.log"
    ]


def test_explain_places_a_syslog_in_local_time_by_its_line_starting_the_job(
    tmp_path: Path,
) -> None:
    """Job output without stamps gives no zone; gpu-a02's syslog (UTC+8, no zone) has slurmd
    launching the job's step at its start by the node's clock: read at UTC+8 by that line, its
    XID is inside the window and names the node. Without a line naming this job, nothing."""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog
    from autorecover.domain.records import Cause, Source

    write(tmp_path, GOOD)
    (tmp_path / "logs").mkdir()
    (tmp_path / "system").mkdir()
    for node, rank in (("gpu-a01", 0), ("gpu-a02", 1)):
        (tmp_path / "logs" / f"{node}.log").write_text(
            f"starting rank {rank}\n[rank{rank}]: RuntimeError: NCCL communicator was aborted\n"
        )
    syslog = tmp_path / "system" / "gpu-a02.log"
    syslog.write_text(
        "Mar  2 17:59:58 gpu-a02 slurmd[2231]: slurmd: launch task StepId=1.0 request from "
        "UID:1000 GID:1000 HOST:10.0.0.1 PORT:40123\n"
        "Mar  2 18:40:00 gpu-a02 kernel: NVRM: Xid (PCI:0000:ba:00): 79, pid=4123, "
        "GPU has fallen off the bus.\n"
        "Mar  2 19:01:00 gpu-a02 slurmd[2231]: done with job 1\n"
    )
    found = explain(tmp_path, builtin_catalog())
    assert (found.verdict.cause, found.verdict.suspect_nodes) == (Cause.HARDWARE, ("gpu-a02",))
    assert [(z.node, z.source, z.describe()) for z in found.local_times] == [
        ("gpu-a02", Source.SYSTEM, "UTC+08:00")
    ]
    syslog.write_text(syslog.read_text().replace("StepId=1.0", "StepId=2.0"))  # another job's
    assert explain(tmp_path, builtin_catalog()).verdict.suspect_nodes == ()


def test_explain_keeps_stamps_that_say_their_zone(tmp_path: Path) -> None:
    """The same job output stamped `+08:00`: read by its zone, nothing guessed; the syslog
    without one is not moved (the job's output, read as it says, is the job's)."""
    from autorecover.adapters.bundles import explain
    from autorecover.domain.catalog import builtin_catalog

    found = explain(local_time_bundle(tmp_path, zone="+08:00"), builtin_catalog())
    assert found.local_times == ()
    assert found.verdict.suspect_nodes == ()


@pytest.mark.parametrize(
    "name",
    [
        "app-ckpt-convert-tp4-size-mismatch",
        "app-gpt-neox-parallel-sizes-not-whole-number",
        "hw-gloo-peer-closed-xid79",
    ],
)
def test_a_bundle_in_dockers_json_file_records_explains_as_it_did(
    tmp_path: Path,
    catalog,  # type: ignore[no-untyped-def]
    name: str,
) -> None:
    at = read_job(CORPUS / name).started.strftime("%Y-%m-%dT%H:%M:%S.000000001Z")  # the collector's

    def records(text: str) -> str:
        return "".join(
            json.dumps({"log": line + "\n", "stream": "stderr", "time": at})
            .replace("<", "\\u003c")  # as Go's encoder writes them
            .replace(">", "\\u003e")
            + "\n"
            for line in text.splitlines()
        )

    before, after = _rewritten(tmp_path, catalog, name, records)
    assert (after.verdict.cause, after.verdict.suspect_nodes) == (
        before.verdict.cause,
        before.verdict.suspect_nodes,
    )
