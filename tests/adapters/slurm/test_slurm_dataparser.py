"""The `--json` readers on the data_parser forms of Slurm 23.02-25.05 (tests/fixtures/slurm/json).

Each version's documents hold the same jobs and nodes as the real 22.05 recording; the records
must come out identical, field for field.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.slurm import dataparser as dp
from autorecover.adapters.slurm.commands import Commands, Completed
from autorecover.adapters.slurm.parsing import (
    GroupedSinfoError,
    SlurmParseError,
    parse_sinfo_json,
    parse_squeue_json,
)
from autorecover.adapters.slurm.reading import Reader
from autorecover.adapters.slurm.records import SlurmNode
from autorecover.adapters.slurm.states import JobPhase, NodeCondition, job_phase, node_status

FIXTURES = Path(__file__).parents[2] / "fixtures" / "slurm"
VERSIONS = ["v0.0.39", "v0.0.40", "v0.0.41", "v0.0.42", "v0.0.43"]


def _jobs_2205() -> list[object]:
    return sorted(parse_squeue_json((FIXTURES / "squeue.json").read_text()), key=lambda j: j.job_id)


def _nodes_2205() -> list[SlurmNode]:
    return sorted(parse_sinfo_json((FIXTURES / "sinfo.json").read_text()), key=lambda n: n.name)


@pytest.mark.parametrize("version", VERSIONS)
def test_slurm_newer_squeue_json_gives_the_2205_jobs(version: str) -> None:
    text = (FIXTURES / "json" / version / "squeue.json").read_text()
    assert dp.data_parser(json.loads(text)) == version
    jobs = sorted(parse_squeue_json(text), key=lambda j: j.job_id)
    assert len(jobs) == 11
    for new, old in zip(jobs, _jobs_2205(), strict=True):
        assert new == old


@pytest.mark.parametrize("version", VERSIONS)
def test_slurm_newer_scontrol_node_json_gives_the_2205_nodes(version: str) -> None:
    text = (FIXTURES / "json" / version / "scontrol-nodes.json").read_text()
    nodes = sorted(parse_sinfo_json(text), key=lambda n: n.name)
    assert nodes == _nodes_2205()
    gpu02 = next(n for n in nodes if n.name == "gpu02")
    assert gpu02.flags == {"DRAIN", "REBOOT_REQUESTED"} and gpu02.state == "mixed"


class _Replay:
    """A runner answering each argv with a recorded document; records the calls."""

    def __init__(self, answers: dict[tuple[str, ...], str]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout_s: float) -> Completed:
        args = tuple(argv)
        self.calls.append(args)
        return Completed(args, 0, self.answers[args], "", 0.01)


@pytest.mark.parametrize("version", VERSIONS)
def test_slurm_grouped_sinfo_json_switches_the_reader_to_scontrol(version: str) -> None:
    folder = FIXTURES / "json" / version
    with pytest.raises(GroupedSinfoError):
        parse_sinfo_json((folder / "sinfo.json").read_text())
    runner = _Replay({("sinfo", "--json"): (folder / "sinfo.json").read_text(),
                      ("scontrol", "show", "node", "--json"):
                          (folder / "scontrol-nodes.json").read_text()})  # fmt: skip
    reader = Reader(Commands(runner))
    assert sorted(reader.nodes(), key=lambda n: n.name) == _nodes_2205()
    assert sorted(reader.nodes(), key=lambda n: n.name) == _nodes_2205()
    assert runner.calls == [("sinfo", "--json")] + [("scontrol", "show", "node", "--json")] * 2


def test_slurm_2205_sinfo_json_stays_on_sinfo() -> None:
    runner = _Replay({("sinfo", "--json"): (FIXTURES / "sinfo.json").read_text()})
    reader = Reader(Commands(runner))
    reader.nodes()
    reader.nodes()
    assert runner.calls == [("sinfo", "--json")] * 2
    assert dp.data_parser(json.loads((FIXTURES / "sinfo.json").read_text())) == "v0.0.38"


@pytest.mark.parametrize(
    ("state", "word", "phase"),
    [(["RUNNING"], "RUNNING", JobPhase.RUNNING),
     (["PENDING", "REQUEUED"], "REQUEUED", JobPhase.REQUEUEING),
     (["PENDING", "REQUEUE_HOLD"], "REQUEUE_HOLD", JobPhase.HELD),
     (["COMPLETED", "COMPLETING"], "COMPLETING", JobPhase.COMPLETING),
     (["NODE_FAIL", "LAUNCH_FAILED"], "NODE_FAIL", JobPhase.FAILED),
     (["PENDING", "SPECIAL_EXIT"], "SPECIAL_EXIT", JobPhase.HELD),
     ([], "UNKNOWN", JobPhase.UNKNOWN), ("TIMEOUT", "TIMEOUT", JobPhase.FAILED)],
)  # fmt: skip
def test_slurm_job_state_lists_read_as_scontrol_shows_them(
    state: object, word: str, phase: JobPhase
) -> None:
    assert dp.job_state({"job_state": state}) == word
    assert job_phase(word) is phase


@pytest.mark.parametrize(
    ("state", "condition"),
    [(["IDLE", "DRAIN"], NodeCondition.DRAINED), (["MIXED", "DRAIN"], NodeCondition.DRAINING),
     (["DOWN", "NOT_RESPONDING"], NodeCondition.DOWN),
     (["IDLE", "DRAIN", "REBOOT_REQUESTED"], NodeCondition.REBOOTING),
     (["ALLOCATED"], NodeCondition.UP), (["FUTURE"], NodeCondition.UNKNOWN)],
)  # fmt: skip
def test_slurm_node_state_lists_give_the_same_conditions(
    state: list[str], condition: NodeCondition
) -> None:
    doc = {"nodes": [{"name": "gpu01", "state": state}]}
    (node,) = parse_sinfo_json(json.dumps(doc))
    assert node_status(node).condition is condition


@pytest.mark.parametrize(
    ("value", "status_signal"),
    [(768, (3, 0)), (15, (0, 15)), ({"set": True, "infinite": False, "number": 36608}, (143, 0)),
     ({"status": "ERROR", "return_code": {"set": True, "infinite": False, "number": 3}}, (3, 0)),
     ({"status": ["SIGNALED"], "return_code": {"set": False, "infinite": False, "number": 0},
       "signal": {"id": {"set": True, "infinite": False, "number": 9}, "name": "KILL"}}, (0, 9)),
     ({"status": ["PENDING"], "return_code": {"set": False, "infinite": False, "number": 0}},
      (0, 0))],
)  # fmt: skip
def test_slurm_exit_codes_in_every_form(value: object, status_signal: tuple[int, int]) -> None:
    assert dp.exit_code({"exit_code": value}) == status_signal


def test_slurm_unlimited_and_unset_numbers() -> None:
    unlimited = {"set": False, "infinite": True, "number": 0}
    unset = {"set": False, "infinite": False, "number": 0}
    doc = {"jobs": [{"job_id": 5, "time_limit": unlimited, "start_time": unset,
                     "array_job_id": {"set": True, "infinite": False, "number": 4},
                     "array_task_id": {"set": True, "infinite": False, "number": 1}}]}  # fmt: skip
    (job,) = parse_squeue_json(json.dumps(doc))
    assert job.time_limit_min is None and job.start_time is None
    assert (job.array_job_id, job.array_task_id) == ("4", "1")


@pytest.mark.parametrize(
    ("field", "value"),
    [("time_limit", {"set": "yes"}), ("job_state", [1]), ("exit_code", {"status": 3}),
     ("start_time", {"set": True, "infinite": False, "number": "x"}), ("node_count", True)],
)  # fmt: skip
def test_slurm_bad_fields_are_named(field: str, value: object) -> None:
    with pytest.raises(SlurmParseError, match=field):
        parse_squeue_json(json.dumps({"jobs": [{"job_id": 1, field: value}]}))


_numbers = st.fixed_dictionaries(
    {"set": st.booleans() | st.integers(), "infinite": st.booleans() | st.none(),
     "number": st.integers() | st.text(max_size=3) | st.none()}
)  # fmt: skip
_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12) | _numbers,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=4),
    max_leaves=16,
)  # fmt: skip
_keys = st.sampled_from(
    ["job_id", "job_state", "exit_code", "time_limit", "start_time", "end_time", "node_count",
     "array_job_id", "array_task_id", "restart_cnt", "nodes", "state", "state_flags",
     "partitions", "reason", "reason_changed_at", "boot_time", "port", "cpus", "alloc_cpus"]
)  # fmt: skip


@given(st.lists(st.dictionaries(_keys, _values, max_size=8), max_size=3),
       st.sampled_from(["jobs", "nodes", "sinfo"]))  # fmt: skip
def test_slurm_newer_json_never_crashes(items: list[dict[str, object]], key: str) -> None:
    for doc in ({key: items}, {"meta": {"plugin": items}, key: items}):
        for parse in (parse_squeue_json, parse_sinfo_json):
            with contextlib.suppress(SlurmParseError):
                parse(json.dumps(doc))
        with contextlib.suppress(SlurmParseError):
            dp.data_parser(doc)
