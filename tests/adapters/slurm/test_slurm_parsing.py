"""Parsers on answers recorded from the real cluster (tests/fixtures/slurm, see capture.py)."""

from __future__ import annotations

import contextlib
import json
import string
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.slurm.names import InvalidNameError, expand_hostlist
from autorecover.adapters.slurm.parsing import (
    SlurmParseError,
    expand_output_pattern,
    parse_oneliner,
    parse_scontrol_jobs,
    parse_scontrol_nodes,
    parse_sinfo_json,
    parse_squeue_json,
    split_reason,
)
from autorecover.adapters.slurm.states import JobPhase, job_phase, node_status, parse_sinfo_state

FIXTURES = Path(__file__).parents[2] / "fixtures" / "slurm"
IDS = json.loads((FIXTURES / "jobs.json").read_text())


def test_slurm_json_and_scontrol_recordings_parse_to_the_same_records() -> None:
    by_json = parse_squeue_json((FIXTURES / "squeue.json").read_text())
    by_scontrol = parse_scontrol_jobs((FIXTURES / "scontrol-jobs.txt").read_text())
    assert sorted(by_json, key=lambda j: j.job_id) == sorted(by_scontrol, key=lambda j: j.job_id)
    nodes_json = parse_sinfo_json((FIXTURES / "sinfo.json").read_text())
    nodes_scontrol = parse_scontrol_nodes((FIXTURES / "scontrol-nodes.txt").read_text())
    assert sorted(nodes_json, key=lambda n: n.name) == sorted(nodes_scontrol, key=lambda n: n.name)


def test_slurm_recorded_jobs_carry_what_recovery_needs() -> None:
    jobs = {j.job_id: j for j in parse_squeue_json((FIXTURES / "squeue.json").read_text())}
    run = jobs[IDS["running"]]
    assert run.state == "RUNNING" and run.nodes == ("gpu01", "gpu02")
    assert run.excluded == ("gpu05",) and run.requeue and run.batch
    assert run.comment == "autorecover:on,user_restarts=3"
    assert run.stdout == f"{IDS['base']}/jobs/train-{run.job_id}.out"
    assert run.end_time is None and run.start_time is not None
    expected = {"timeout": ("TIMEOUT", JobPhase.FAILED), "node_fail": ("NODE_FAIL", JobPhase.FAILED),
                "failed": ("FAILED", JobPhase.FAILED), "cancelled": ("CANCELLED", JobPhase.CANCELLED),
                "completed": ("COMPLETED", JobPhase.SUCCEEDED), "held": ("PENDING", JobPhase.HELD),
                "pending": ("PENDING", JobPhase.PENDING)}  # fmt: skip
    for name, (state, phase) in expected.items():
        job = jobs[IDS[name]]
        assert (job.state, job_phase(job.state, job.reason)) == (state, phase), name
    assert jobs[IDS["failed"]].exit_status == 3
    assert jobs[IDS["timeout"]].exit_signal == 15 and jobs[IDS["timeout"]].time_limit_min == 0
    assert jobs[IDS["held"]].restarts == 1 and jobs[IDS["held"]].reason == (
        "job_requeued_in_held_state"
    )
    tasks = [j for j in jobs.values() if j.array_job_id == IDS["array"]]
    assert sorted(j.array_task_id for j in tasks) == ["1", "2"]
    assert {j.stdout for j in tasks} == {f"{IDS['base']}/jobs/arr-{IDS['array']}_1.out",
                                         f"{IDS['base']}/jobs/arr-{IDS['array']}_2.out"}  # fmt: skip
    assert jobs[IDS["timeout"]].stdout.endswith(f"/to-{IDS['timeout']}-%N.out")  # per node: kept


def test_slurm_recorded_nodes_and_sinfo_words_agree() -> None:
    nodes = {n.name: n for n in parse_scontrol_nodes((FIXTURES / "scontrol-nodes.txt").read_text())}
    assert nodes["gpu01"].reason == "autorecover: inc-7 xid 79 on gpu01"
    assert nodes["gpu01"].reason_user == "root" and nodes["gpu01"].reason_at is not None
    assert nodes["gpu02"].flags == {"DRAIN", "REBOOT_REQUESTED"}
    assert nodes["gpu06"].flags == {"NOT_RESPONDING"} and nodes["gpu06"].state == "down"
    assert nodes["gpu03"].reason == "" and nodes["gpu03"].reason_at is None
    for line in (FIXTURES / "sinfo-N.txt").read_text().splitlines():
        name, word, reason = line.split("|")
        base, flags = parse_sinfo_state(word)
        seen = nodes[name]
        from_sinfo = replace(seen, state=base, flags=flags)
        assert node_status(seen).condition == node_status(from_sinfo).condition, word
        assert reason in (seen.reason, "none")


def test_slurm_oneliner_values_with_spaces() -> None:
    line = ("NodeName=gpu03 Arch=x86_64 OS=Linux 6.1.0 #1 SMP PREEMPT_DYNAMIC Debian 6.1.4 "
            "RealMemory=4000 State=MIXED+DRAIN Comment=see ticket=12 now Partitions=gpu  "
            "Reason=xid 79 on gpu03: fell off the bus [root@2026-11-29T21:08:21]")  # fmt: skip
    pairs = parse_oneliner(line)
    assert pairs["OS"] == "Linux 6.1.0 #1 SMP PREEMPT_DYNAMIC Debian 6.1.4"
    assert pairs["Comment"] == "see ticket=12 now"
    assert pairs["Partitions"] == "gpu"
    reason, user, at = split_reason(pairs["Reason"])
    assert (reason, user) == ("xid 79 on gpu03: fell off the bus", "root")
    assert at == datetime(2026, 11, 29, 21, 8, 21).astimezone(UTC)


def test_slurm_output_patterns_fill_per_job_fields_only() -> None:
    fields = {"j": "42", "x": "train", "u": "alice", "A": "42", "a": "4294967294"}
    assert expand_output_pattern("/o/%x-%j-%N-%t-%4j-%%.out", fields) == (
        "/o/train-42-%N-%t-0042-%.out"
    )


@pytest.mark.parametrize(
    ("expr", "names"),
    [("gpu[01-03,07]", ("gpu01", "gpu02", "gpu03", "gpu07")),
     ("gpu01,cpu[8-10]", ("gpu01", "cpu8", "cpu9", "cpu10")),
     ("a[1-2]-ib", ("a1-ib", "a2-ib")), ("(null)", ()), ("", ())],
)  # fmt: skip
def test_slurm_hostlists_expand(expr: str, names: tuple[str, ...]) -> None:
    assert expand_hostlist(expr) == names


@pytest.mark.parametrize("expr", ["gpu[1-", "gpu[3-1]", "gpu[a-b]", "gpu[[1]]", "gpu[1-99999999]"])
def test_slurm_bad_hostlists_are_refused(expr: str) -> None:
    with pytest.raises(InvalidNameError):
        expand_hostlist(expr)


@given(st.text(max_size=400))
def test_slurm_scontrol_parsers_never_crash(text: str) -> None:
    for parse in (parse_scontrol_jobs, parse_scontrol_nodes):
        with contextlib.suppress(SlurmParseError):
            parse(text)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=4),
    max_leaves=20,
)  # fmt: skip
_job_keys = st.sampled_from(["job_id", "job_state", "nodes", "excluded_nodes", "restart_cnt",
                             "exit_code", "standard_output", "start_time", "time_limit",
                             "array_task_id", "comment", "requeue"])  # fmt: skip


@given(st.lists(st.dictionaries(_job_keys, _json_values, max_size=6), max_size=3),
       st.text(max_size=200))  # fmt: skip
def test_slurm_json_parsers_never_crash(items: list[dict[str, object]], junk: str) -> None:
    for text in (json.dumps({"jobs": items, "nodes": items}), junk):
        for parse in (parse_squeue_json, parse_sinfo_json):
            with contextlib.suppress(SlurmParseError):
                parse(text)


@given(st.lists(st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=8)
                .filter(lambda n: n[0].isalnum()), max_size=8))  # fmt: skip
def test_slurm_plain_hostlists_round_trip(names: list[str]) -> None:
    assert expand_hostlist(",".join(names)) == tuple(names)
