"""Incident bundles whose evidence is what the telemetry library wrote, from real torchrun runs.

Each scenario starts one real `torchrun` per simulated node (as `torchrun_incidents.py` does:
c10d rendezvous on localhost, gloo on CPU) running `telemetry_incidents_train.py`, whose ranks
report through `autorecover.telemetry` (this checkout's `src/` on PYTHONPATH). What each node
printed is kept unchanged as `logs/<node>.log`; for `fatal-record-only` the launcher's output
is dropped and the library's own file is the node's log, so the fatal `error` record is the
only evidence. `expected.json` holds the verdict docs/attribution.md gives for what was done.

    /work/torchenv/bin/python scripts/telemetry_incidents.py --out tests/telemetry-bundles

The structure (scenarios, node names, ranks, steps) is fixed; times and PIDs are real.
Needs torch in the interpreter that runs it; not a project dependency.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from torchrun_incidents import (
    RUN_DEADLINE_S,
    TORCH_VERSION,
    Job,
    Scenario,
    _iso,
    _now,
    node_name,
    write_job,
)

SCRIPT = "scripts/telemetry_incidents.py"
TRAIN = Path(__file__).with_name("telemetry_incidents_train.py")
SRC = Path(__file__).resolve().parent.parent / "src"
HANG_FLOOR_S = 20  # the library's hang threshold in the hang scenario (its HangPolicy floor)
HANG_AFTER_RECORD_S = 12  # the hang bundle is collected this long after the first hang record
HANG_MARKER = '"event":"hang"'
STEP_4 = '"event":"step","step":4,'  # rank 0 finished step 4: the stall comes next


@dataclass(frozen=True, slots=True)
class Case:
    """A scenario and the verdict that follows from it."""

    scenario: Scenario
    cause: str
    why: str
    telemetry_file: bool = False  # the library writes to a file, which is the node's log


CASES: tuple[Case, ...] = (
    Case(
        Scenario(
            "fatal-record-only",
            "1 node x 1 rank; the data loader raises ValueError on a malformed shard at step 5. "
            "The library writes to a file; the launcher's output was not kept, so the file is "
            "the node's whole log.",
            1,
            1,
            ("--fault=bad-shard", "--fault-rank=0", "--fault-step=5", "--steps=40"),
        ),
        "application",
        "The training code raised ValueError (a malformed data shard) and the exception killed "
        "the only rank; the library's fatal error record is the only evidence: stop.",
        telemetry_file=True,
    ),
    Case(
        Scenario(
            "ddp-crash-key-error",
            "2 nodes x 2 ranks, DDP; global rank 3 (cpu-n02) raises KeyError at step 5; the "
            "other ranks then fail in gloo (Connection closed by peer) and write fatal records "
            "too.",
            2,
            2,
            ("--fault=key-error", "--fault-rank=3", "--fault-step=5", "--steps=40"),
        ),
        "application",
        "Rank 3 raised KeyError in the training code first (its fatal error record is the "
        "earliest); its peers' gloo errors are symptoms of its death: stop.",
    ),
    Case(
        Scenario(
            "live-hang-stuck-loader",
            "2 nodes x 2 ranks, DDP; global rank 3's data loader (cpu-n02) blocks forever at "
            "step 5 while the others wait for its gradients in backward (DDP's all-reduce, gloo "
            "timeout 600 s). The library's "
            f"watchdog (floor {HANG_FLOOR_S} s) writes hang records with every thread's stack; "
            "the bundle is taken while the job still runs, then the job is ended.",
            2,
            2,
            (
                "--fault=stuck-loader",
                "--fault-rank=3",
                "--fault-step=5",
                "--steps=400",
                "--timeout-s=600",
                f"--hang-floor-s={HANG_FLOOR_S}",
            ),
            trigger=(0, STEP_4),
            hang=True,
            state="RUNNING",
        ),
        "transient",
        "The job hung: rank 3 on cpu-n02 never left its data loader while the three other "
        "ranks waited for its gradients in backward, and the library's watchdog said so on "
        "every rank. "
        "Nothing shows a hardware fault or an application error: requeue (from the last "
        "checkpoint) on the same nodes; the same hang again would be the job's own.",
    ),
    Case(
        Scenario(
            "live-hang-mismatched-collective",
            "2 nodes x 2 ranks, DDP; after each step every rank all-reduces its loss for "
            "logging, but at step 5 global rank 3 (cpu-n02) broadcasts it instead, so every "
            "rank waits in a collective its peers never match (gloo timeout 600 s). The "
            f"library's watchdog (floor {HANG_FLOOR_S} s) writes hang records with every "
            "thread's stack and the flight recorder's summary (torch 2.15 records gloo's "
            "collectives by default); the bundle is taken while the job still runs, then the "
            "job is ended.",
            2,
            2,
            (
                "--fault=mismatched-collective",
                "--fault-rank=3",
                "--fault-step=5",
                "--steps=400",
                "--timeout-s=600",
                f"--hang-floor-s={HANG_FLOOR_S}",
            ),
            trigger=(0, STEP_4),
            hang=True,
            state="RUNNING",
        ),
        "application",
        "The job hung: every rank's stack is in a collective, so the stacks name nobody, but "
        "the flight recorders show rank 3 on cpu-n02 in a broadcast at the collective where "
        "the three other ranks all-reduce. Ranks in different collectives at one sequence "
        "number took different code paths: the job's own bug, which a restart reaches again: "
        "stop.",
    ),
)


def run(case: Case, torchrun: str, out: Path) -> str:
    """Run one case and write its bundle; returns a summary line."""
    sc = case.scenario
    with tempfile.TemporaryDirectory(prefix=f"telemetry-{sc.name}-") as tmp:
        work = Path(tmp)
        tel = work / "telemetry-{node}.jsonl"
        args = (f"--telemetry-output={tel}",) if case.telemetry_file else ()
        job = Job(replace(sc, train_args=(*sc.train_args, *args)), torchrun, work, train=TRAIN)
        job.start()
        if sc.hang:
            collected = _collect_hang(job)
        else:
            job.wait(RUN_DEADLINE_S)
            collected = _now()
        if case.telemetry_file:
            for i, path in job.logs.items():
                shutil.copyfile(work / f"telemetry-{node_name(i)}.jsonl", path)
        _write_bundle(case, job, out / sc.name, collected)
    return f"{sc.name}: {'running' if sc.hang else job.exit_codes()} -> {case.cause}"


def _collect_hang(job: Job) -> datetime:
    """Wait for the library's first hang record, a little longer, snapshot the logs, end."""
    assert job.sc.trigger is not None
    node, pattern = job.sc.trigger
    if not job.wait_for(node, pattern, RUN_DEADLINE_S):
        job.end()
        raise RuntimeError(f"{job.sc.name}: never saw {pattern!r}")
    if not job.wait_for(node, HANG_MARKER, RUN_DEADLINE_S):
        job.end()
        raise RuntimeError(f"{job.sc.name}: the library wrote no hang record")
    time.sleep(HANG_AFTER_RECORD_S)
    collected = _now()
    snapshot = {i: p.read_bytes() for i, p in job.logs.items()}
    alive = all(p.poll() is None for p in job.procs.values())
    job.events.append(f"{collected:%H:%M:%S}Z bundle collected; then the job is ended")
    job.end()
    if not alive:
        raise RuntimeError(f"{job.sc.name}: the job ended before it was collected")
    for i, data in snapshot.items():
        job.logs[i].write_bytes(data)
    return collected


def _write_bundle(case: Case, job: Job, dest: Path, collected: datetime) -> None:
    sc = case.scenario
    codes = {} if sc.hang else job.exit_codes()
    write_job(dest, job, str(71000 + CASES.index(case)), sc, collected, codes)
    action = {"hardware": "requeue_excluding", "application": "stop"}.get(case.cause, "requeue")
    expected = {
        "cause": case.cause,
        "suspect_nodes": [],
        "action": action,
        "why": case.why,
        "generated_by": {"torch": TORCH_VERSION, "script": SCRIPT},
    }
    (dest / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    where = (
        "the telemetry library's own file (`output=` a path); the launcher's output was not kept"
        if case.telemetry_file
        else "each node's torchrun stdout and stderr, unchanged (`--tee 3`), the library's "
        "lines among them"
    )
    lines = [
        f"# {sc.name}",
        "",
        f"Generated by `{SCRIPT}` with torch {TORCH_VERSION}: real `torchrun` processes, one per "
        "simulated node, on one machine (c10d rendezvous on localhost, gloo on CPU), every rank "
        "reporting through `autorecover.telemetry`.",
        "",
        f"What was done: {sc.what}",
        "",
        "Timeline (UTC):",
        f"- {_iso(job.started)} job started",
        *(f"- {e}" for e in job.events),
        *([] if sc.hang else [f"- {_iso(collected)} bundle collected"]),
        "",
        f"`logs/<node>.log` is {where}. There is no `system/` folder: nothing happened on the "
        "nodes' kernel side.",
        "",
        f"Expected: {case.cause}. {case.why}",
    ]
    (dest / "README.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    """Run the chosen cases (all by default) and write their bundles under --out."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("tests/telemetry-bundles"))
    p.add_argument("--torchrun", default=str(Path(sys.executable).with_name("torchrun")))
    p.add_argument("--only", action="append", default=[], help="case name (repeatable)")
    args = p.parse_args()

    import torch  # only to check the pin

    version = torch.__version__.split("+", 1)[0]
    if version != TORCH_VERSION:
        print(f"torch is {version}, the pin is {TORCH_VERSION}", file=sys.stderr)
        return 2
    unknown = sorted(set(args.only) - {c.scenario.name for c in CASES})
    if unknown:
        print(f"unknown case: {', '.join(unknown)}", file=sys.stderr)
        return 2
    chosen = [c for c in CASES if not args.only or c.scenario.name in args.only]
    # The ranks import the library from this checkout (it is standard library only).
    paths = (str(SRC), os.environ.get("PYTHONPATH", ""))
    os.environ["PYTHONPATH"] = os.pathsep.join(path for path in paths if path)
    for case in chosen:
        print(run(case, args.torchrun, args.out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
