"""End-to-end recovery on the real cluster, composed in-process as the engine would compose it.

`Rig` puts together, on one temporary SQLite file: `SlurmScheduler` (the harness's), the
`SlurmJobs` port over it, `SqliteJobStore` + `SqliteStore`, `JobRecoveryController`,
`HardwareController` (with `FakeDiagnostics`: validation passes), and the node agent's real
kernel probe (`agent.wiring.build_probes`, `--kernel-source file`) on each node's kernel-log
file, whose signals go to `hardware.ingest`. `step()` is one pass of everything, `until()`
repeats it, every wait bounded.

Jobs run `jobs/train_job.py` through a small wrapper (written next to the job scripts) that
writes each rank's PID to the job's flag folder and watches it: `nccl-<node>-<restart>` makes
that rank print a real NCCL watchdog-timeout line and exit 1; `app` makes every rank import a
module that does not exist (a real `ModuleNotFoundError` traceback); `segv-<node>-<restart>`
makes that rank die of a real SIGSEGV (Python's fault handler prints its line first).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.fakes.cluster import FakeDiagnostics, FakeNotifier
from autorecover.adapters.slurm.jobs import SlurmJobs
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.agent.probes.base import NodeProbe
from autorecover.agent.thresholds import load_thresholds
from autorecover.agent.wiring import AgentConfig, build_probes
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.domain import catalog as catalog_module
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.hardware.policy_loading import load_policy
from autorecover.domain.jobs.policy import builtin_job_policy
from autorecover.domain.signals import Probe
from autorecover.testing.passes import one_pass
from autorecover.testing.slurm.cluster import SlurmTestCluster
from autorecover.testing.slurm.harness import _SERIAL, TRAIN_JOB, SlurmHarness, TrainingJob
from autorecover.testing.waiting import wait

T = TypeVar("T")
XIDS = Path(catalog_module.__file__).parent / "data" / "xids.toml"
XID_79 = tomllib.loads(XIDS.read_text())["xid"]["79"]["example"]  # the catalog's real line
# The catalog's example, with its glog time stamp (E<MMDD> <time>) made current: a line that
# says it was logged months ago is outside the failure's window and is rightly ignored.
NCCL_WATCHDOG = (
    "[rank{rank}]:[E{stamp} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, "
    "NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds "
    "before timing out."
)
WRAPPER = f"""\
import os, runpy, signal, sys, threading, time
from datetime import datetime, timezone
from pathlib import Path

flags, train = Path(sys.argv[1]), sys.argv[2]
node = os.environ.get("SLURMD_NODENAME", "?")
rank = os.environ.get("SLURM_PROCID", "0")
restart = os.environ.get("SLURM_RESTART_COUNT", "0")
(flags / f"pid-{{node}}-{{restart}}").write_text(str(os.getpid()))

def application_error(signum, frame):
    import autorecover_e2e_missing_module  # noqa: F401  (raises ModuleNotFoundError)

signal.signal(signal.SIGUSR1, application_error)

def watch():
    while True:
        time.sleep(0.05)
        if (flags / f"nccl-{{node}}-{{restart}}").exists():
            stamp = datetime.now(timezone.utc).strftime("%m%d %H:%M:%S.%f")
            print({NCCL_WATCHDOG!r}.format(rank=rank, stamp=stamp), flush=True)
            os._exit(1)
        if (flags / "app").exists():
            os.kill(os.getpid(), signal.SIGUSR1)
            return
        if (flags / f"segv-{{node}}-{{restart}}").exists():
            import faulthandler
            faulthandler.enable()  # "Fatal Python error: Segmentation fault", then the signal
            os.kill(os.getpid(), signal.SIGSEGV)

threading.Thread(target=watch, daemon=True).start()
sys.argv = [train, *sys.argv[3:]]
runpy.run_path(train, run_name="__main__")
"""
POLL_S = 0.1
POLICY = load_policy()
# Four nodes: one out is 25 % of the fleet, past the default blast-radius limits.
ROOMY = replace(POLICY, breaker=replace(POLICY.breaker, max_fraction=1.0, max_out_fraction=1.0))


@dataclass(frozen=True)
class E2EJob:
    """A submitted wrapped training job and its flag folder."""

    train: TrainingJob
    flags: Path

    @property
    def job_id(self) -> str:
        """The Slurm job id."""
        return self.train.job_id


class Rig:
    """Job and hardware recovery on the real cluster, on one SQLite file."""

    def __init__(self, slurm: SlurmHarness, db: Path) -> None:
        self.slurm = slurm
        self.cluster = slurm.cluster
        self.clock = SystemClock()
        self.hw_store = SqliteStore(db)
        self.job_store = SqliteJobStore(db)
        self.port = SlurmJobs(slurm.scheduler)
        self.diagnostics = FakeDiagnostics(self.clock)
        self.notifier = FakeNotifier()
        self.hardware = HardwareController(
            store=self.hw_store, scheduler=slurm.scheduler, diagnostics=self.diagnostics,
            notifier=self.notifier, clock=self.clock, policy=ROOMY,
            fleet_size=len(self.cluster.node_names),
        )  # fmt: skip
        self.hardware.start()
        self.jobs = JobRecoveryController(
            self.job_store, self.port, self.job_store, self.clock, builtin_job_policy(),
            builtin_catalog(), dry_run=False, notifier=self.notifier,
        )  # fmt: skip
        skip = frozenset({Probe.NVML, Probe.INFINIBAND, Probe.PCIE, Probe.DCGM, Probe.FABRIC})
        since = self.clock.now() - timedelta(seconds=1)
        self.probes: list[NodeProbe] = []
        for node in self.cluster.node_names:
            config = AgentConfig(node=node, kernel_source="file",
                                 kernel_log=self.cluster.kernel_log(node), skip=skip,
                                 kernel_not_before=since)  # fmt: skip
            self.probes.extend(build_probes(config, builtin_catalog(), load_thresholds()))
        for probe in self.probes:  # lines earlier tests left in the kernel logs are history
            probe.poll(self.clock.now())

    # --- the jobs --------------------------------------------------------------------------

    def submit(
        self, *, nodes: int = 2, comment: str = "autorecover:on", sbatch: tuple[str, ...] = ()
    ) -> E2EJob:
        """`sbatch` the wrapped training job with this comment, as `submit_training` does."""
        return submit_e2e(self.cluster, nodes=nodes, comment=comment, sbatch=sbatch)

    def pid(self, job: E2EJob, node: str, restart: int = 0) -> int:
        """The PID of the job's rank on `node` in that attempt."""
        return rank_pid(job, node, restart)

    def kill_rank(self, job: E2EJob, node: str) -> None:
        """SIGKILL the rank on `node`, as a GPU that fell off the bus takes it down."""
        os.kill(self.pid(job, node), 9)

    def close(self) -> None:
        """Close the probes' files and both stores."""
        for probe in self.probes:
            probe.close()
        self.job_store.close()
        self.hw_store.close()

    def sinfo_reason(self, node: str) -> str:
        """The node's reason as `sinfo -R` prints it."""
        return sinfo_reason(self.cluster, node)

    # --- the engine ------------------------------------------------------------------------

    def fault(self, node: str, line: str = XID_79) -> None:
        """Append a kernel line to the node's kernel log (what the driver would print)."""
        fault(self.cluster, node, line)

    def step(self, *, hardware: bool = True) -> None:
        """One pass: node agents -> hardware.ingest, job recovery, hand-overs, hardware tick."""
        one_pass(self.probes, self.hardware, self.jobs, self.job_store, self.clock,
                 tick_hardware=hardware)  # fmt: skip

    def until(
        self, check: Callable[[], T | None], what: str, timeout_s: float = 60.0,
        *, hardware: bool = True,
    ) -> T:  # fmt: skip
        """Run passes until `check()` gives something; fail after `timeout_s`."""

        def one() -> T | None:
            self.step(hardware=hardware)
            return check()

        return wait(one, what, timeout_s)


def submit_e2e(
    cluster: SlurmTestCluster, *, nodes: int = 2, comment: str = "autorecover:on",
    sbatch: tuple[str, ...] = (),
) -> E2EJob:  # fmt: skip
    """`sbatch` the wrapped training job (every rank through `WRAPPER`) with this comment."""
    jobs = cluster.base / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    serial = next(_SERIAL)
    name = "e2e"
    ckpt, flags = jobs / f"{name}-{serial}-ckpt", jobs / f"{name}-{serial}-flags"
    flags.mkdir()
    wrapper = jobs / "e2e_wrap.py"
    wrapper.write_text(WRAPPER)
    out = jobs / f"{name}-{serial}-%j.out"
    train = [sys.executable, str(wrapper), str(flags), str(TRAIN_JOB),
             "--checkpoint-dir", str(ckpt), "--step-s", "0.05",
             "--checkpoint-every", "10"]  # fmt: skip
    script = jobs / f"{name}-{serial}.sh"
    script.write_text(
        "#!/bin/bash\n"
        'echo "batch restart=${SLURM_RESTART_COUNT:-0} nodes=$SLURM_JOB_NODELIST"\n'
        f"exec srun -l --kill-on-bad-exit=1 {shlex.join(train)}\n"
    )
    job_id = cluster.submit(
        [f"--nodes={nodes}", "--ntasks-per-node=1", "--gres=gpu:h100:8", "--requeue",
         "--open-mode=append", f"--output={out}", f"--job-name={name}",
         f"--comment={comment}", *sbatch], script,
    )  # fmt: skip
    output = Path(str(out).replace("%j", job_id))
    return E2EJob(TrainingJob(job_id, output, ckpt, nodes), flags)


def rank_pid(job: E2EJob, node: str, restart: int = 0) -> int:
    """The PID of the job's rank on `node` in that attempt (waits for the wrapper to write it)."""
    path = job.flags / f"pid-{node}-{restart}"
    return wait(lambda: int(path.read_text()) if path.exists() else None,
                f"{path.name} to be written", 20.0)  # fmt: skip


def sinfo_reason(cluster: SlurmTestCluster, node: str) -> str:
    """The node's reason as `sinfo -R` prints it (`NODE|REASON`)."""
    done = subprocess.run(["sinfo", "-R", "-h", "-n", node, "-o", "%n|%E"],  # noqa: S603, S607
                          env=cluster.env, capture_output=True, text=True,
                          check=True, timeout=10)  # fmt: skip
    return done.stdout.strip()


def fault(cluster: SlurmTestCluster, node: str, line: str = XID_79) -> None:
    """Append a kernel line to the node's kernel log (what the driver would print)."""
    with cluster.kernel_log(node).open("a") as f:
        f.write(line + "\n")
