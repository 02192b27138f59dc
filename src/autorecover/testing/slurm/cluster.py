"""A real Slurm cluster on this machine, for tests and demos: munged, slurmctld, N slurmd.

Debian's Slurm 22.05 packages (`slurmctld slurmd slurm-client munge`) run as root in one
folder of their own: a private munged on its own socket and key, a controller and several
`slurmd -N <node>` daemons on free loopback ports, each node declaring 8 GPUs as GRES backed
by fake character devices (`mknod c 195 N`; a `File=` that is not a device is refused). No
systemd and no cgroup enforcement are needed (proctrack/linuxproc, task/none). Every daemon
writes its pid file and log under the folder; `stop` ends exactly those processes, and any
left from their jobs (found by the cluster's `SLURM_CONF` in their environment).

    python -m autorecover.testing.slurm.cluster start DIR [--nodes 4]
    python -m autorecover.testing.slurm.cluster status DIR
    python -m autorecover.testing.slurm.cluster stop DIR

(`scripts/slurm-cluster` runs the same.) The recipes behind the configuration were measured
on this machine; see docs/slurm.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autorecover.adapters.slurm.commands import Commands, SubprocessRunner
from autorecover.adapters.slurm.reading import Reader
from autorecover.adapters.slurm.states import ENDED, NodeCondition, job_phase, node_status

PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
BINARIES = ("slurmctld", "slurmd", "sbatch", "scontrol", "squeue", "sinfo", "scancel", "srun",
            "munged", "mungekey")  # fmt: skip
GPU_MAJOR = 195  # the NVIDIA character device major number
STATE_FILE = "cluster.json"


class ClusterError(RuntimeError):
    """The test cluster could not be installed, started or stopped; the message says why."""


def ensure_installed(packages: Sequence[str] = PACKAGES) -> str:
    """Install Debian's Slurm and munge when a binary is missing; returns what was done."""
    missing = [b for b in BINARIES if _which(b) is None]
    if not missing:
        return "already installed"
    if os.geteuid() != 0:
        raise ClusterError(f"Slurm binaries missing ({', '.join(missing)}) and not root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    apt = _which("apt-get") or "/usr/bin/apt-get"
    install = [apt, "install", "-y", "--no-install-recommends", *packages]
    first = subprocess.run(install, capture_output=True, text=True, env=env, check=False)  # noqa: S603
    if first.returncode != 0:
        # Package lists missing or stale: update once, then try again.
        update = subprocess.run(  # noqa: S603
            [apt, "update"], capture_output=True, text=True, env=env, check=False
        )
        again = subprocess.run(install, capture_output=True, text=True, env=env, check=False)  # noqa: S603
        if again.returncode != 0:
            raise ClusterError(
                "cannot install Slurm: " + " ".join(install) + "\n"
                + (update.stderr or "")[-2000:] + (again.stdout + again.stderr)[-4000:]
            )  # fmt: skip
    still = [b for b in BINARIES if _which(b) is None]
    if still:
        raise ClusterError(f"installed {', '.join(packages)} but still missing: {still}")
    return "installed " + " ".join(packages)


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/bin")


def _free_ports(count: int) -> list[int]:
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass
class SlurmTestCluster:
    """One cluster in `base`: configuration, daemons, and helpers for tests."""

    base: Path
    nodes: int = 4
    gpus: int = 8
    cpus: int = 8
    prefix: str = "gpu"
    name: str = "artest"
    extra_conf: tuple[str, ...] = ()  # more slurm.conf lines (HealthCheckProgram, Prolog, ...)
    reboot_delay_s: float = 2.0  # how long an emulated reboot keeps the node's slurmd away
    ctld_port: int = 0
    node_ports: dict[str, int] = field(default_factory=dict)

    # --- layout ----------------------------------------------------------------------------

    @property
    def node_names(self) -> list[str]:
        """gpu01, gpu02, ..."""
        return [f"{self.prefix}{i:02d}" for i in range(1, self.nodes + 1)]

    @property
    def conf(self) -> Path:
        """slurm.conf (gres.conf beside it)."""
        return self.base / "etc" / "slurm.conf"

    @property
    def munge_socket(self) -> Path:
        """The private munged's socket."""
        return self.base / "munge" / "munge.sock"

    @property
    def env(self) -> dict[str, str]:
        """The environment Slurm commands need: ours, without any SLURM_* of a caller's job."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        env["SLURM_CONF"] = str(self.conf)
        env["PATH"] = env.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        return env

    def kernel_log(self, node: str) -> Path:
        """A file standing in for this node's kernel log (for the node agent in tests)."""
        return self.base / "nodes" / node / "kern.log"

    def commands(self, *, dry_run: bool = False) -> Commands:
        """A `Commands` on this cluster (real runner, this cluster's SLURM_CONF)."""
        return Commands(SubprocessRunner(self.env, inherit=False), dry_run=dry_run)

    def reader(self) -> Reader:
        """A `Reader` on this cluster."""
        return Reader(self.commands())

    # --- start and stop --------------------------------------------------------------------

    def start(self, timeout_s: float = 30.0, *, warm_up: bool = True) -> None:
        """Write the configuration, start munged, slurmctld and every slurmd; wait until idle."""
        if self.running():
            raise ClusterError(f"a cluster is already running in {self.base}")
        for sub in ("state", "log", "run"):
            shutil.rmtree(self.base / sub, ignore_errors=True)  # old drains would come back
        for sub in ("etc", "state/ctld", "log", "run", "dev", "munge", "jobs"):
            (self.base / sub).mkdir(parents=True, exist_ok=True)
        self.base.chmod(0o755)  # munged wants every folder on its socket's path searchable
        (self.base / "munge").chmod(0o755)
        ports = _free_ports(self.nodes + 1)
        self.ctld_port, self.node_ports = (
            ports[0],
            dict(zip(self.node_names, ports[1:], strict=True)),
        )
        self._devices()
        self._write_config()
        self._save()
        try:
            self._start_munge()
            self._run(["slurmctld", "-f", str(self.conf), "-i"], "slurmctld")
            for node in self.node_names:
                self.start_slurmd(node)
            self.wait_idle(timeout_s)
            if warm_up:
                self.warm_up(timeout_s)
        except BaseException:
            self.stop()
            raise

    def warm_up(self, timeout_s: float = 30.0) -> None:
        """Run a batch job on every node with all its GPUs, to its end: jobs really run.

        The controller's scheduler makes its first pass a few seconds after it starts; the
        tests should not each pay for that.
        """
        job = self.submit([f"--nodes={self.nodes}", f"--gres=gpu:h100:{self.gpus}",
                           "--job-name=warm-up", "--output=/dev/null", "--wrap",
                           "srun --quiet true"])  # fmt: skip
        reader = self.reader()
        deadline = time.monotonic() + timeout_s
        while True:
            state = reader.job(job).state
            if state == "COMPLETED":
                return
            if job_phase(state) in ENDED or time.monotonic() > deadline:
                raise ClusterError(f"a first job did not run: {state}\n{self.log_tail()}")
            time.sleep(0.05)

    def start_slurmd(self, node: str) -> None:
        """Start (or start again) one node's slurmd."""
        (self.base / "state" / f"d-{node}").mkdir(parents=True, exist_ok=True)
        self.kernel_log(node).parent.mkdir(parents=True, exist_ok=True)
        self.kernel_log(node).touch()
        self._run(["slurmd", "-f", str(self.conf), "-N", node], f"slurmd {node}")

    def boot_slurmd(self, node: str) -> None:
        """Start one node's slurmd as its host does after a boot (a power cycle the test
        plays): in a new time namespace whose boot time is now, as the RebootProgram's helper
        does. The old slurmd must be gone (`kill_slurmd`)."""
        up = int(float(Path("/proc/uptime").read_text().split()[0]))
        offsets = Path("/proc/self/timens_offsets")
        own = [int(w[1]) for w in (line.split() for line in offsets.read_text().splitlines())
               if w and w[0] == "boottime"] if offsets.exists() else []  # fmt: skip
        host = up - (own[0] if own else 0)  # the host's uptime, whatever namespace we are in
        (self.base / "state" / f"d-{node}").mkdir(parents=True, exist_ok=True)
        self._run(["unshare", "--time", "--boottime", f"-{host}", _which("slurmd") or "slurmd",
                   "-f", str(self.conf), "-N", node], f"slurmd {node} (booted)")  # fmt: skip

    def kill_slurmd(self, node: str, sig: int = signal.SIGKILL) -> None:
        """Kill one node's slurmd (its jobs' processes live on, as on a real node)."""
        pid = self._pid(self.base / "run" / f"slurmd-{node}.pid")
        if pid is None:
            raise ClusterError(f"slurmd of {node} is not running")
        os.kill(pid, sig)
        _wait_gone([pid], 5.0)

    def stop(self) -> None:
        """Stop every daemon of this cluster and whatever its jobs left running."""
        if self.running():
            # A slurmd with running steps takes its time over SIGTERM: end the jobs first.
            self._scontrol(["scancel", "--user", "root"], check=False)
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline and self._live_jobs():
                time.sleep(0.05)
        _terminate(self._job_processes(), sig=signal.SIGKILL)
        daemons = [self._pid(p) for p in sorted((self.base / "run").glob("slurmd-*.pid"))]
        daemons.append(self._pid(self.base / "run" / "slurmctld.pid"))
        _terminate([p for p in daemons if p is not None], timeout_s=3.0)
        _terminate(self._job_processes(), sig=signal.SIGKILL)
        munged = self._pid(self.base / "munge" / "munged.pid")
        if munged is not None:
            _terminate([munged])

    def _live_jobs(self) -> list[str]:
        try:
            jobs = self.reader().jobs()
        except Exception:  # a supervisor's look: a controller that does not answer has none
            return []
        return [j.job_id for j in jobs if job_phase(j.state, j.reason) not in ENDED]

    def running(self) -> bool:
        """True while this cluster's controller runs."""
        return self._pid(self.base / "run" / "slurmctld.pid") is not None

    def status(self) -> dict[str, object]:
        """Which daemons run, and the nodes as Slurm reports them."""
        run = self.base / "run"
        daemons = {"munged": self._pid(self.base / "munge" / "munged.pid") is not None,
                   "slurmctld": self.running()}  # fmt: skip
        for node in self.node_names:
            daemons[f"slurmd {node}"] = self._pid(run / f"slurmd-{node}.pid") is not None
        out: dict[str, object] = {"base": str(self.base), "SLURM_CONF": str(self.conf),
                                  "daemons": daemons}  # fmt: skip
        if self.running():
            out["nodes"] = {n.name: f"{n.state}{'+' if n.flags else ''}{'+'.join(sorted(n.flags))}"
                            for n in self.reader().nodes()}  # fmt: skip
        return out

    # --- between tests ---------------------------------------------------------------------

    def wait_idle(self, timeout_s: float = 20.0) -> None:
        """Wait until every node is idle and up."""
        deadline = time.monotonic() + timeout_s
        last = "no answer"
        while True:
            try:
                nodes = self.reader().nodes()
                last = ", ".join(f"{n.name}={n.state}+{'+'.join(sorted(n.flags))}" for n in nodes)
                if len(nodes) == self.nodes and all(
                    n.state == "idle" and not n.flags for n in nodes
                ):
                    return
            except Exception as exc:  # a supervisor loop: report the last error
                last = str(exc)
            if time.monotonic() > deadline:
                raise ClusterError(f"nodes not idle after {timeout_s:.0f} s: {last}\n"
                                   + self.log_tail())  # fmt: skip
            time.sleep(0.1)

    def reset(self, timeout_s: float = 30.0) -> None:
        """Cancel every job, restart dead slurmds, return every node to service."""
        reader = self.reader()
        live = [j.job_id for j in reader.jobs() if job_phase(j.state, j.reason) not in ENDED]
        if live:
            self._scontrol(["scancel", *live])
        for node in self.node_names:
            if self._pid(self.base / "run" / f"slurmd-{node}.pid") is None:
                self.start_slurmd(node)
        deadline = time.monotonic() + timeout_s
        while any(job_phase(j.state, j.reason) not in ENDED for j in reader.jobs()):
            if time.monotonic() > deadline:
                raise ClusterError("jobs still running after scancel")
            time.sleep(0.1)
        # A test that failed half-way may leave a reservation (a pair test's): it would keep
        # its nodes MAINTENANCE+RESERVED, and every later test's set-up would wait on them.
        shown = self._scontrol(["scontrol", "show", "reservation", "--oneliner"], check=False)
        for name in re.findall(r"(?m)^ReservationName=(\S+)", shown.stdout):
            self._scontrol(["scontrol", "delete", f"ReservationName={name}"], check=False)
        for seen in reader.nodes():
            status = node_status(seen)
            if "REBOOT_REQUESTED" in seen.flags:
                self._scontrol(["scontrol", "cancel_reboot", seen.name], check=False)
            if status.drain or status.condition in (NodeCondition.DOWN, NodeCondition.REBOOTING):
                self._scontrol(["scontrol", "update", f"NodeName={seen.name}", "State=RESUME"],
                               check=False)  # fmt: skip
        self.wait_idle(timeout_s)

    def submit(self, args: Iterable[str], script: str | Path | None = None) -> str:
        """`sbatch --parsable ARGS [SCRIPT]` on this cluster; the job id."""
        # Default output (slurm-%j.out) lands in the cluster's folder, never the caller's cwd.
        argv = ["sbatch", "--parsable", f"--chdir={self.base}", *args]
        if script is not None:
            argv.append(str(script))
        done = self._scontrol(argv)
        return done.stdout.strip().split(";")[0]

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of every daemon log, for error messages."""
        out = []
        logs = [*sorted((self.base / "log").glob("*.log")), self.base / "munge" / "munged.log"]
        for log in logs:
            if log.exists():
                tail = log.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- {log.name}\n" + "\n".join(tail))
        return "\n".join(out)

    # --- internals -------------------------------------------------------------------------

    def _devices(self) -> None:
        for i in range(self.gpus):
            dev = self.base / "dev" / f"nvidia{i}"
            if dev.exists():
                continue
            try:
                os.mknod(dev, 0o666 | 0o020000, os.makedev(GPU_MAJOR, i))  # S_IFCHR
            except OSError as exc:
                raise ClusterError(
                    f"cannot make fake GPU device {dev} ({exc}); Slurm's GRES needs character "
                    "devices, so the cluster needs root (CAP_MKNOD)"
                ) from None

    def _write_config(self) -> None:
        b = self.base
        node_list = f"{self.prefix}[01-{self.nodes:02d}]"
        lines = [
            f"ClusterName={self.name}",
            "SlurmctldHost=localhost(127.0.0.1)",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"SlurmctldPort={self.ctld_port}",
            f"StateSaveLocation={b}/state/ctld",
            f"SlurmdSpoolDir={b}/state/d-%n",
            f"SlurmctldPidFile={b}/run/slurmctld.pid",
            f"SlurmdPidFile={b}/run/slurmd-%n.pid",
            f"SlurmctldLogFile={b}/log/slurmctld.log",
            f"SlurmdLogFile={b}/log/slurmd-%n.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/filetxt",
            f"JobCompLoc={b}/log/jobcomp.txt",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SchedulerType=sched/backfill",
            # batch_sched_delay=0: schedule a new batch job at once. sched_interval=2: try a
            # pending job again within 2 s (default 60): a job submitted just after a resume,
            # while the node is still marked not responding, otherwise waits for a backfill
            # pass (30 s), longer than a test waits.
            "SchedulerParameters=batch_sched_delay=0,sched_interval=2",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "GresTypes=gpu",
            "SlurmdParameters=config_overrides",  # 8 CPUs per node on a 2-core machine
            "ReturnToService=1",  # not 2: that would undo a manual DOWN at the next ping
            "SlurmctldTimeout=30",
            "SlurmdTimeout=30",
            "MinJobAge=600",  # ended jobs stay readable for ten minutes
            "KillWait=2",
            f"RebootProgram={b}/etc/reboot.sh",
            *self.extra_conf,
        ]
        for node in self.node_names:
            lines.append(
                f"NodeName={node} NodeHostname=localhost NodeAddr=127.0.0.1 "
                f"Port={self.node_ports[node]} CPUs={self.cpus} RealMemory=4000 "
                f"Gres=gpu:h100:{self.gpus} State=UNKNOWN"
            )
        lines.append(f"PartitionName=gpu Nodes={node_list} Default=YES MaxTime=INFINITE State=UP")
        self.conf.write_text("\n".join(lines) + "\n")
        last = self.gpus - 1
        (b / "etc" / "gres.conf").write_text(
            f"AutoDetect=off\nNodeName={node_list} Name=gpu Type=h100 "
            f"File={b}/dev/nvidia[0-{last}]\n"
        )
        self._write_reboot_programs()

    def _write_reboot_programs(self) -> None:
        """`RebootProgram`: record the request, then "reboot" the node that asked.

        slurmd runs the program (through `sh -c`) and waits for it, so it only finds which
        node asked (the slurmd among its ancestors, by its `-N NODE`), records it in
        `log/reboots.txt` and hands the reboot to a detached helper (`setsid`): after
        `reboot_delay_s` that kills the node's slurmd and starts it again in a new time
        namespace whose boot time is now (`unshare --time --boottime -UPTIME`, the host's
        uptime: the new slurmd's /proc/uptime reads about 0). slurmctld sees the node come
        back booted after the reboot it issued and applies its `nextstate` (RESUME, or DOWN
        with the reason).
        The jobs' processes are not killed: a rebooted node ran none (ASAP waits for idle).
        """
        b = self.base
        slurmd = _which("slurmd") or "slurmd"
        unshare = _which("unshare") or "unshare"
        reboot = b / "etc" / "reboot.sh"
        reboot.write_text(f"""#!/bin/sh
# The test cluster's RebootProgram (testing/slurm/cluster.py): find the asking slurmd.
pid=$PPID node=""
while [ "${{pid:-1}}" -gt 1 ]; do
  set -- $(tr '\\0' ' ' < /proc/$pid/cmdline 2>/dev/null)
  case "$1" in
    *slurmd) while [ $# -gt 0 ]; do [ "$1" = -N ] && node=$2; shift; done ;;
  esac
  [ -n "$node" ] && break
  pid=$(cut -d' ' -f4 /proc/$pid/stat 2>/dev/null || echo 1)
done
echo "reboot $(date +%s) node=$node" >> {b}/log/reboots.txt
[ -n "$node" ] || exit 0
setsid {b}/etc/reboot-node.sh "$node" < /dev/null >> {b}/log/reboot-$node.log 2>&1 &
exit 0
""")
        helper = b / "etc" / "reboot-node.sh"
        helper.write_text(f"""#!/bin/sh
# Reboot one node of the test cluster: its slurmd goes, and comes back freshly "booted".
node=$1
sleep {self.reboot_delay_s}
pid=$(cat {b}/run/slurmd-$node.pid)
kill -9 "$pid" 2>/dev/null
while [ -e /proc/$pid ] && ! grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null; do
  sleep 0.05
done
# Offsets are from the host's clock, and this may run in the namespace of an earlier
# reboot: the host's uptime is ours less our own offset.
up=$(cut -d. -f1 /proc/uptime)
off=$(awk '$1 == "boottime" {{print $2}}' /proc/self/timens_offsets 2>/dev/null)
host=$((up - ${{off:-0}}))
echo "$(date +%s) restarting slurmd $node with boot time now (host uptime $host s)"
exec {unshare} --time --boottime -"$host" {slurmd} -f {self.conf} -N "$node"
""")
        for program in (reboot, helper):
            program.chmod(0o755)

    def _start_munge(self) -> None:
        m = self.base / "munge"
        key = m / "munge.key"
        if not key.exists():
            self._scontrol(["mungekey", "--create", "--keyfile", str(key), "--bits", "1024"])
        key.chmod(0o600)
        self._run(["munged", f"--socket={self.munge_socket}", f"--key-file={key}",
                   f"--pid-file={m / 'munged.pid'}", f"--log-file={m / 'munged.log'}",
                   f"--seed-file={m / 'munged.seed'}"], "munged")  # fmt: skip

    def _run(self, argv: list[str], what: str) -> None:
        """Start a daemon (it forks into the background itself)."""
        binary = _which(argv[0])
        if binary is None:
            raise ClusterError(f"{argv[0]} is not installed: run ensure_installed() first")
        done = subprocess.run([binary, *argv[1:]], env=self.env, capture_output=True,  # noqa: S603
                              text=True, timeout=30, check=False)  # fmt: skip
        if done.returncode != 0:
            said = (done.stdout + done.stderr)[-2000:]
            raise ClusterError(f"{what} did not start ({done.returncode}): {said}\n"
                               + self.log_tail())  # fmt: skip

    def _scontrol(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        binary = _which(argv[0]) or argv[0]
        done = subprocess.run([binary, *argv[1:]], env=self.env, capture_output=True,  # noqa: S603
                              text=True, timeout=30, check=False)  # fmt: skip
        if check and done.returncode != 0:
            raise ClusterError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
        return done

    def _pid(self, path: Path) -> int | None:
        """The pid in a pid file, if that process still runs (a zombie does not)."""
        try:
            pid = int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return pid if _alive(pid) else None

    def _job_processes(self) -> list[int]:
        """Processes started for this cluster (slurmstepd, job tasks): SLURM_CONF is ours."""
        marker = f"SLURM_CONF={self.conf}".encode()
        mine = {os.getpid(), os.getppid()}
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) in mine:
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if marker + b"\0" in environ + b"\0" and _alive(int(entry.name)):
                found.append(int(entry.name))
        return found

    def _save(self) -> None:
        state = {"nodes": self.nodes, "gpus": self.gpus, "cpus": self.cpus, "prefix": self.prefix,
                 "name": self.name, "extra_conf": list(self.extra_conf),
                 "ctld_port": self.ctld_port, "node_ports": self.node_ports}  # fmt: skip
        (self.base / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n")

    @classmethod
    def load(cls, base: Path) -> SlurmTestCluster:
        """The cluster a `start` left in `base`."""
        try:
            state = json.loads((base / STATE_FILE).read_text())
        except (OSError, ValueError) as exc:
            raise ClusterError(f"no test cluster in {base}: {exc}") from None
        return cls(base, state["nodes"], state["gpus"], state["cpus"], state["prefix"],
                   state["name"], tuple(state["extra_conf"]), ctld_port=state["ctld_port"],
                   node_ports=dict(state["node_ports"]))  # fmt: skip


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _wait_gone(pids: Sequence[int], timeout_s: float) -> list[int]:
    deadline = time.monotonic() + timeout_s
    left = [p for p in pids if _alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if _alive(p)]
    return left


def _terminate(pids: Sequence[int], sig: int = signal.SIGTERM, timeout_s: float = 5.0) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
    for pid in _wait_gone(pids, timeout_s):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _wait_gone(pids, 2.0)


def main(argv: list[str] | None = None) -> int:
    """`start|stop|status DIR`: a test cluster for demos and people."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("command", choices=["start", "stop", "status"])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--install", action="store_true", help="apt-get install Slurm if missing")
    args = ap.parse_args(argv)
    base: Path = args.dir.resolve()
    try:
        if args.command == "start":
            if args.install:
                print(ensure_installed(), file=sys.stderr)
            base.mkdir(parents=True, exist_ok=True)
            cluster = SlurmTestCluster(base, nodes=args.nodes)
            started = time.monotonic()
            cluster.start()
            print(f"started {cluster.nodes} nodes in {time.monotonic() - started:.1f} s",
                  file=sys.stderr)  # fmt: skip
            print(f"export SLURM_CONF={cluster.conf}")
        elif args.command == "stop":
            SlurmTestCluster.load(base).stop()
            print(f"stopped the cluster in {base}", file=sys.stderr)
        else:
            print(json.dumps(SlurmTestCluster.load(base).status(), indent=2))
    except ClusterError as exc:
        print(f"slurm-cluster: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
