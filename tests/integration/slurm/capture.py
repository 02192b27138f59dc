"""Record Slurm's answers from a real cluster into tests/fixtures/slurm/ (run by hand).

    uv run python tests/integration/slurm/capture.py            # starts its own cluster, ~40 s

Sets up jobs and nodes in every state the parsers must know (running with exclusions and a
policy comment, pending, held after a requeue, cancelled, completed, failed, node-failed,
timed out, an array; drained by us and by a person, draining, down, not responding, reboot
requested), then saves `squeue --json` next to `scontrol show job -o` (and `sinfo --json`
next to `scontrol show node -o`) taken back to back, plus the stderr of refused commands.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autorecover.testing.slurm.cluster import SlurmTestCluster, ensure_installed

FIXTURES = Path(__file__).parents[2] / "fixtures" / "slurm"


def main() -> int:
    ensure_installed()
    base = Path(tempfile.mkdtemp(prefix="ar-capture-"))
    cluster = SlurmTestCluster(base, nodes=6)
    cluster.start()
    env = cluster.env

    def sh(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if check and done.returncode != 0:
            queue = subprocess.run(
                ["squeue", "-a", "-t", "all"], env=env, capture_output=True, text=True, check=False
            ).stdout
            raise SystemExit(f"{argv}: {done.stderr}\n{queue}")
        return done

    jobs = base / "jobs"
    try:
        sub = cluster.submit
        out = str(jobs / "train-%j.out")
        running = sub(["-N2", "-w", "gpu01,gpu02", "-x", "gpu05", "--gres=gpu:h100:8",
                       "--ntasks-per-node=1", "--requeue", "--open-mode=append", "-o", out,
                       "-J", "train", "--comment", "autorecover:on,user_restarts=3",
                       "--wrap", "srun -l sleep 300"])  # fmt: skip
        timeout = sub(["-N1", "-w", "gpu03", "-J", "to", "-o", str(jobs / "to-%j-%N.out"),
                       "--wrap", "sleep 300"])  # fmt: skip
        cancelled = sub(["-N1", "-w", "gpu04", "-J", "cancelme", "--wrap", "sleep 300"])
        done_ok = sub(["-N1", "-J", "ok", "--wrap", "true"])
        failed = sub(["-N1", "-J", "bad", "--wrap", "exit 3"])
        nodefail = sub(["-N1", "-w", "gpu05", "--no-requeue", "-J", "nf", "--wrap", "sleep 300"])
        held = sub(["-N1", "-w", "gpu04", "--requeue", "-J", "held", "--wrap", "sleep 300"])
        array = sub(["-N1", "--array=1-2", "-J", "arr", "-o", str(jobs / "arr-%A_%a.out"),
                     "--wrap", "sleep 300"])  # fmt: skip
        time.sleep(2.5)
        cluster.kill_slurmd("gpu06")  # not responding after ~30 s
        pending = sub(["-N6", "-J", "toolarge", "--wrap", "sleep 1"])  # last: it blocks the queue
        sh("scontrol", "update", f"JobId={timeout}", "TimeLimit=0")
        sh("scancel", cancelled)
        sh("scontrol", "requeuehold", held)
        sh("scontrol", "update", "NodeName=gpu05", "State=DOWN", "Reason=test down")
        sh(
            "scontrol",
            "update",
            "NodeName=gpu01",
            "State=DRAIN",
            "Reason=autorecover: inc-7 xid 79 on gpu01",
        )  # busy: draining
        sh("scontrol", "update", "NodeName=gpu02", "AdminComment=x", check=False)
        sh(
            "scontrol",
            "reboot",
            "ASAP",
            "nextstate=RESUME",
            "reason=autorecover: inc-8 reboot",
            "gpu02",
        )  # busy: reboot requested
        errors = []
        for argv in (
            ["scontrol", "update", f"JobId={running}", "ExcNodeList=gpu04"],
            ["scontrol", "update", "JobId=999999", "ExcNodeList=gpu04"],
            ["scontrol", "requeue", "999999"],
            ["scontrol", "requeuehold", "999999"],
            ["scontrol", "update", "NodeName=gpu03", "State=RESUME"],
            ["scontrol", "update", "NodeName=nosuch", "State=DRAIN", "Reason=x"],
            ["scontrol", "update", "NodeName=gpu03", "State=DRAIN"],
            ["scontrol", "show", "job", "999999"],
            ["scontrol", "show", "node", "nosuch"],
            ["scontrol", "update", f"JobId={done_ok}", "ExcNodeList=gpu04"],
            ["scontrol", "requeue", pending],
            ["scontrol", "reboot", "ASAP", "nextstate=BOGUS", "gpu03"],
            ["squeue", "--bogus-option"],
        ):
            d = sh(*argv, check=False)
            errors.append({"argv": argv, "returncode": d.returncode, "stderr": d.stderr})
        # A person's drain on an idle node, last, so that nothing lands on it.
        sh("scontrol", "update", "NodeName=gpu04", "State=DRAIN", "Reason=person: bad fan")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = sh("squeue", "-h", "-a", "-t", "all", "-o", "%i %T").stdout
            nodes = sh("sinfo", "-h", "-N", "-o", "%N %T").stdout
            if f"{timeout} TIMEOUT" in states and "gpu06 down*" in nodes:
                break
            time.sleep(1)
        FIXTURES.mkdir(exist_ok=True)
        for name, argv in (
            ("squeue.json", ["squeue", "--json"]),
            ("scontrol-jobs.txt", ["scontrol", "show", "job", "--oneliner"]),
            ("sinfo.json", ["sinfo", "--json"]),
            ("scontrol-nodes.txt", ["scontrol", "show", "node", "--oneliner"]),
            ("sinfo-R.txt", ["sinfo", "-R", "-h", "-o", "%N|%E|%u|%H"]),
            ("sinfo-N.txt", ["sinfo", "-h", "-N", "-o", "%N|%T|%E"]),
        ):
            (FIXTURES / name).write_text(sh(*argv).stdout)
        (FIXTURES / "errors.json").write_text(json.dumps(errors, indent=1) + "\n")
        ids = {"running": running, "timeout": timeout, "pending": pending,
               "cancelled": cancelled, "completed": done_ok, "failed": failed,
               "node_fail": nodefail, "held": held, "array": array, "base": str(base)}  # fmt: skip
        (FIXTURES / "jobs.json").write_text(json.dumps(ids, indent=1) + "\n")
        print(json.dumps(ids, indent=1))
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
