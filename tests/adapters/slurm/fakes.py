"""A fake of our own `Runner` port: a tiny Slurm in memory that speaks `scontrol show -o`.

It knows jobs and nodes as `Key=value` dicts, answers `scontrol show job|node -o`, and carries
out the few mutations the adapter sends (requeuehold, update, release, scancel, node
updates, reboot), recording every command. Unknown commands fail loudly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from autorecover.adapters.slurm.commands import Completed

T0 = datetime(2026, 11, 29, 22, 0, 0, tzinfo=UTC)
READS = ("show",)


def _stamp(at: datetime) -> str:
    return at.astimezone().strftime("%Y-%m-%dT%H:%M:%S")


class FakeTimer:
    """Virtual time: `sleep` moves it."""

    def __init__(self, start: datetime = T0) -> None:
        self.t = 0.0
        self.start = start

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.t)

    def monotonic(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class FakeSlurm:
    """The runner: `run(argv)` against jobs and nodes held here."""

    timer: FakeTimer = field(default_factory=FakeTimer)
    jobs: dict[str, dict[str, str]] = field(default_factory=dict)
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)
    free: list[str] = field(default_factory=lambda: ["gpu03", "gpu04", "gpu05"])
    on_release: Callable[[dict[str, str]], None] | None = None  # what the scheduler does

    def add_job(self, job_id: str, **fields: str) -> dict[str, str]:
        job = {"JobId": job_id, "JobName": "train", "UserId": "alice(1000)",
               "JobState": "RUNNING", "Reason": "None", "Requeue": "1", "Restarts": "0",
               "BatchFlag": "1", "ExitCode": "0:0", "TimeLimit": "UNLIMITED",
               "SubmitTime": _stamp(T0), "EligibleTime": _stamp(T0), "StartTime": _stamp(T0),
               "EndTime": "Unknown", "Partition": "gpu", "ReqNodeList": "(null)",
               "ExcNodeList": "(null)", "NodeList": "gpu[01-02]", "BatchHost": "gpu01",
               "NumNodes": "2", "WorkDir": "/w", "StdOut": f"/w/slurm-{job_id}.out"}  # fmt: skip
        job.update(fields)
        self.jobs[job_id] = job
        return job

    def add_node(self, name: str, state: str = "IDLE", reason: str = "") -> None:
        node = {"NodeName": name, "State": state, "CPUTot": "8", "CPUAlloc": "0",
                "Gres": "gpu:h100:8", "NodeAddr": "127.0.0.1", "Port": "17001"}  # fmt: skip
        if reason:
            node["Reason"] = f"{reason} [bob@{_stamp(T0)}]"
        self.nodes[name] = node

    # --- the Runner port -------------------------------------------------------------------

    def run(self, argv: Sequence[str], *, timeout_s: float) -> Completed:
        args = tuple(argv)
        self.calls.append(args)
        self.timer.t += 0.002
        try:
            out = self._dispatch(args)
        except _RefusedError as exc:
            return Completed(args, 1, "", str(exc) + "\n")
        return Completed(args, 0, out, "")

    @property
    def mutations(self) -> list[tuple[str, ...]]:
        """Every command that was not a read."""
        return [c for c in self.calls if not (c[0] == "scontrol" and c[1] in READS)
                and c[0] not in ("squeue", "sinfo")]  # fmt: skip

    def _dispatch(self, a: tuple[str, ...]) -> str:
        if "--json" in a:  # an old Slurm: the adapter falls back to `scontrol show -o`
            raise _RefusedError(f"{a[0]}: unrecognized option '--json'")
        if a[:3] == ("scontrol", "show", "job"):
            jobs = [self.jobs[a[-1]]] if a[-1] in self.jobs else []
            if a[-1].isdigit() and not jobs:
                raise _RefusedError("slurm_load_jobs error: Invalid job id specified")
            return "".join(_line(j) for j in (jobs or self.jobs.values()))
        if a[:3] == ("scontrol", "show", "node"):
            if a[-1] in self.nodes:
                return _line(self.nodes[a[-1]])
            if a[-1] == "--oneliner":
                return "".join(_line(n) for n in self.nodes.values())
            raise _RefusedError(f"Node {a[-1]} not found")
        if a[:2] == ("scontrol", "requeuehold"):
            job = self._job(a[2])
            if job["JobState"] == "PENDING":
                raise _RefusedError(f"Job is pending execution for job {a[2]}")
            job.update(JobState="PENDING", Reason="job_requeued_in_held_state",
                       Restarts=str(int(job["Restarts"]) + 1), NodeList="(null)",
                       EligibleTime=_stamp(self.timer.now() + timedelta(seconds=121)),
                       StartTime="Unknown", Held="1")  # fmt: skip
            return ""
        if a[:2] == ("scontrol", "update") and a[2].startswith("JobId="):
            job = self._job(a[2].split("=", 1)[1])
            for item in a[3:]:
                key, _, value = item.partition("=")
                if key == "ExcNodeList":
                    if job["JobState"] != "PENDING":
                        raise _RefusedError(
                            f"Job is no longer pending execution for job {job['JobId']}"
                        )
                    job["ExcNodeList"] = value or "(null)"
                elif key == "StartTime":
                    plus = int(value.partition("+")[2] or 0)
                    job["EligibleTime"] = _stamp(self.timer.now() + timedelta(seconds=plus))
                    self._maybe_start(job)
                else:
                    job[key] = value
            return ""
        if a[:2] == ("scontrol", "release"):
            job = self._job(a[2])
            job.pop("Held", None)
            job["Reason"] = "None"
            self._maybe_start(job)
            return ""
        if a[0] == "scancel":
            job = self._job(a[1])
            job.update(JobState="CANCELLED", EndTime=_stamp(self.timer.now()))
            return ""
        if a[:2] == ("scontrol", "update") and a[2].startswith("NodeName="):
            node = self.nodes[a[2].split("=", 1)[1]]
            state = dict(x.split("=", 1) for x in a[3:])
            if state["State"] == "DRAIN":
                node["State"] = node["State"].split("+")[0] + "+DRAIN"
                node["Reason"] = f"{state['Reason']} [root@{_stamp(T0)}]"
            elif state["State"] == "RESUME":
                if "+" not in node["State"] and node["State"] != "DOWN":
                    raise _RefusedError("slurm_update error: Invalid node state specified")
                node["State"] = "IDLE"
                node.pop("Reason", None)
            return ""
        if a[:2] == ("scontrol", "reboot"):
            node = self.nodes[a[-1]]
            node["State"] = node["State"].split("+")[0] + "+DRAIN+REBOOT_REQUESTED"
            node["Reason"] = a[4].split("=", 1)[1] + f" [root@{_stamp(T0)}]"
            return ""
        if a[:2] == ("scontrol", "cancel_reboot"):
            self.nodes[a[2]]["State"] = "IDLE"
            return ""
        raise AssertionError(f"the fake does not know {a}")

    def _job(self, job_id: str) -> dict[str, str]:
        if job_id not in self.jobs:
            raise _RefusedError(f"Invalid job id specified for job {job_id}")
        return self.jobs[job_id]

    def _maybe_start(self, job: dict[str, str]) -> None:
        if job["JobState"] != "PENDING" or "Held" in job:
            return
        if self.on_release is not None:
            self.on_release(job)
            return
        eligible = datetime.strptime(job["EligibleTime"], "%Y-%m-%dT%H:%M:%S").astimezone(UTC)
        if eligible > self.timer.now():
            return
        excluded = set(job["ExcNodeList"].split(",")) if job["ExcNodeList"] != "(null)" else set()
        nodes = [n for n in self.free if n not in excluded][: int(job["NumNodes"])]
        job.update(JobState="RUNNING", NodeList=",".join(nodes), BatchHost=nodes[0],
                   StartTime=_stamp(self.timer.now()))  # fmt: skip


class _RefusedError(Exception):
    pass


def _line(pairs: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in pairs.items() if k != "Held") + "\n"
