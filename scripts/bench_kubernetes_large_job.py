#!/usr/bin/env python3
"""End to end at fleet scale: a 1,250-pod PyTorchJob recovered with its output read at the nodes.

    uv run --frozen python scripts/bench_kubernetes_large_job.py              # 1,250 pods
    uv run --frozen python scripts/bench_kubernetes_large_job.py --pods 64    # a quick run

Issue 16, part 1: a 10,000-GPU job (1,250 pods of 8 GPUs) on the test control plane
(scripts/kube-binaries: etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok,
the Kubeflow training operator) with `--pods + --spare` kwok nodes of 8 GPUs each. The engine
is the real `autorecover serve --scheduler kubernetes` process. Every node has an agent's
pod-log shipper (`agent/logs/shipping.py`, the code `agent run --pod-logs` runs, each with
its own node-bound agent token, posting over HTTP); they run in this script's process, not
as 1,250 processes, and do nothing else an agent does. The script writes each pod's
container log where a kubelet would (`<root>/<ns>_<pod>_<uid>/pytorch/0.log`, CRI format)
and leaves the files kwok serves through `pods/log` empty, so the fault can reach job
recovery only through an agent. One rank's log gets a CUDA ECC error; its pod then fails.

Checked (exit 1 otherwise): the job is requeued whole, every pod of the new attempt runs, none
on the faulty node, the job's exclusion annotation names exactly that node, and the engine
holds no per-pod log stream: its TCP connections to the API server stay a handful (counted
from /proc), not one per pod.

Reported: the times (gang running; failure to the exclusion on the job; the engine's own
timeline from the failure: detected, decided, stopped = the requeue's API calls done; failure
to the new gang running), the engine's CPU (user + system from /proc over the run) and peak
RSS (VmHWM), its API-server connections, the excerpt bytes it took (its spool), and the
shippers' CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lightkube.resources.core_v1 import Pod

from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.pod_logs_client import PodLogsClient
from autorecover.agent.logs.shipping import LogShipper
from autorecover.domain.catalog import builtin_catalog
from autorecover.parsing.scanning import Scanner
from autorecover.server.tokens import Role, entry_text, new_token, token_hash
from autorecover.testing.kubernetes.cluster import KubeTestCluster, build_binaries, free_port
from autorecover.testing.kubernetes.harness import KubeHarness

ECC = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
ROOMY = "[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n"
ATTEMPT = "autorecover.io/attempt"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pods", type=int, default=1250, help="pods of the job (1 master)")
    parser.add_argument("--spare", type=int, default=6, help="nodes beyond the job's")
    parser.add_argument("--timeout-s", type=float, default=1200.0, help="per phase")
    parser.add_argument("--keep", action="store_true", help="keep the folder (logs)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # clean up on `kill` too
    base = Path(tempfile.mkdtemp(prefix="ar-large-"))
    t0 = time.monotonic()
    cluster = KubeTestCluster(base / "kube", build_binaries(), nodes=args.pods + args.spare)
    engine: Engine | None = None
    fleet: Shippers | None = None
    try:
        cluster.start()
        print(f"control plane with {cluster.nodes} kwok nodes up in {time.monotonic() - t0:.0f} s")
        kube = KubeHarness(cluster, base / "harness")
        engine = Engine(cluster, kube.namespace, base)
        engine.wait_leader(120)
        root = base / "pods"
        root.mkdir()
        fleet = Shippers(engine, root)
        fleet.start()
        result = scenario(kube, engine, root, args.pods, args.timeout_s)
        result["shippers_cpu_s"] = round(fleet.cpu_s, 1)
        print(json.dumps(result, indent=2))
        return 0 if result["ok"] else 1
    finally:
        if fleet is not None:
            fleet.stop()
        if engine is not None:
            engine.stop()
        cluster.stop()
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def scenario(
    kube: KubeHarness, engine: Engine, root: Path, n: int, timeout_s: float
) -> dict[str, Any]:
    """Submit, write every rank's output, the fault, fail its pod; measure the recovery."""
    submitted = time.monotonic()
    kube.submit(workers=n - 1)
    first = until(lambda: running(kube, 0, n), f"{n} pods running", timeout_s)
    up_s = time.monotonic() - submitted
    print(f"attempt 0: {n} pods running after {up_s:.0f} s")
    pods = {p["metadata"]["name"]: p for p in kube.pods()}
    for name in first:
        write(root, kube.namespace, pods[name], f"[rank0]: {name} starting")
    bad_pod = "train-worker-1"
    bad = first[bad_pod]
    write(root, kube.namespace, pods[bad_pod], ECC)
    spooled = time.monotonic()
    until(lambda: engine.spooled(ECC), "the fault's excerpt in the engine's spool", timeout_s)
    excerpt_s = time.monotonic() - spooled
    connections = engine.apiserver_connections(kube.cluster.ports["apiserver"])
    kube.fail_pod(bad_pod, exit_code=1)
    failed = time.monotonic()
    excluded = until(lambda: exclusion(kube), "the exclusion on the job", timeout_s)
    requeue_s = time.monotonic() - failed
    second = until(lambda: running(kube, 1, n), f"{n} pods of attempt 1 running", timeout_s)
    bound_s = time.monotonic() - failed
    marks = engine.timeline()
    ok = excluded == [bad] and bad not in second.values() and len(second) == n
    ok &= all(kube.log_path(p).read_text() == "" for p in first)  # pods/log never had a byte
    ok &= connections <= 20
    return {
        "ok": ok, "pods": n, "nodes": kube.cluster.nodes, "faulty_node": bad,
        "excluded": excluded, "gang_running_s": round(up_s, 1),
        "fault_to_excerpt_in_spool_s": round(excerpt_s, 1),
        "failed_to_requeue_recorded_s": round(requeue_s, 1),
        "failed_to_new_gang_running_s": round(bound_s, 1),
        "engine_timeline_s": marks,
        "engine_apiserver_connections": connections,
        "engine_cpu_s": round(engine.cpu_s(), 1), "engine_peak_rss_mib": engine.peak_rss_mib(),
        "engine_spool_bytes": engine.spool_bytes(),
    }  # fmt: skip


def running(kube: KubeHarness, attempt: int, n: int) -> dict[str, str] | None:
    """Pod -> node once `n` pods of the attempt run (one list call; polled every 2 s)."""
    pods = [p for p in kube.client.list(Pod, namespace=kube.namespace)
            if not p.metadata.deletionTimestamp and p.status and p.status.phase == "Running"
            and (p.metadata.annotations or {}).get(ATTEMPT, "0") == str(attempt)]  # fmt: skip
    if len(pods) < n:
        return None
    return {p.metadata.name: p.spec.nodeName for p in pods}


def exclusion(kube: KubeHarness) -> list[str] | None:
    notes = kube.job()["metadata"].get("annotations", {})
    text = notes.get("autorecover.io/excluded-nodes")
    return text.split(",") if text else None


def write(root: Path, namespace: str, pod: dict[str, Any], line: str) -> None:
    """Append a CRI line to the pod's container log, where a kubelet keeps it."""
    meta = pod["metadata"]
    folder = root / f"{namespace}_{meta['name']}_{meta['uid']}" / "pytorch"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with (folder / "0.log").open("a") as f:
        f.write(f"{stamp} stderr F {line}\n")


def until(check: Any, what: str, timeout_s: float, poll_s: float = 2.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(poll_s)
    raise SystemExit(f"FAIL: timed out waiting for {what}")


class Engine:
    """`autorecover serve --scheduler kubernetes`, a token per node's agent."""

    def __init__(self, cluster: KubeTestCluster, namespace: str, base: Path) -> None:
        self.operator = new_token()
        self.agents = {n: new_token() for n in cluster.node_names}
        tokens = base / "tokens.toml"
        tokens.write_text(
            entry_text("ops", {Role.OPERATOR}, None, token_hash(self.operator))
            + "".join(entry_text(f"agent-{n}", {Role.AGENT}, n, token_hash(t))
                      for n, t in self.agents.items())
        )  # fmt: skip
        (base / "policy.toml").write_text(ROOMY)
        self.url = f"http://127.0.0.1:{free_port()}"
        self.spool = base / "spool"
        self.db = base / "engine.db"
        self.log = (base / "engine.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autorecover", "serve", "--scheduler", "kubernetes",
             "--kubeconfig", str(cluster.kubeconfig), "--namespaces", namespace,
             "--lease-namespace", namespace, "--store", f"sqlite:///{base / 'engine.db'}",
             "--listen", self.url.removeprefix("http://"), "--policy", str(base / "policy.toml"),
             "--spool-dir", str(self.spool), "--pod-log-grace-s", "3600", "--tick-s", "0.5",
             "--log-level", "warning", "--tokens-file", str(tokens)],
            stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def wait_leader(self, timeout_s: float) -> None:
        def leading() -> bool:
            if self.proc.poll() is not None:
                raise SystemExit(f"FAIL: the engine exited {self.proc.returncode}")
            try:
                return bool(self.get("/readyz").get("role") == "leader")
            except OSError:
                return False

        until(leading, "the engine to lead", timeout_s, poll_s=0.5)

    def get(self, path: str) -> Any:
        request = urllib.request.Request(
            self.url + path, headers={"Authorization": f"Bearer {self.operator}"}
        )
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())

    def timeline(self) -> dict[str, float]:
        """The job incident's marks (detected, decided, stopped: the requeue's API calls
        done) in seconds from its `failed` mark, read from the engine's store."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT stage, at FROM job_timeline ORDER BY at").fetchall()
        at = {stage: datetime.fromisoformat(when) for stage, when in rows}
        start = at.get("failed")
        if start is None:
            return {}
        return {stage: round((t - start).total_seconds(), 1) for stage, t in at.items()
                if t >= start}  # fmt: skip

    def spooled(self, text: str) -> bool:
        return any(text.encode() in f.read_bytes() for f in self.spool.glob("*.log"))

    def spool_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.spool.glob("*") if f.is_file())

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
        return -1

    def apiserver_connections(self, port: int) -> int:
        """The engine's established TCP connections to the API server's port."""
        inodes = set()
        for fd in Path(f"/proc/{self.proc.pid}/fd").iterdir():
            target = os.readlink(fd)  # noqa: PTH115
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        count = 0
        for table in ("tcp", "tcp6"):
            for row in Path(f"/proc/{self.proc.pid}/net/{table}").read_text().splitlines()[1:]:
                cols = row.split()
                remote_port = int(cols[2].rsplit(":", 1)[1], 16)
                if cols[3] == "01" and remote_port == port and cols[9] in inodes:
                    count += 1
        return count

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class Shippers:
    """Every node's agent pod-log shipper, each ticked once a second; `threads` threads share
    them (agents run side by side on their nodes: one thread would wait on each request)."""

    def __init__(self, engine: Engine, root: Path, threads: int = 32) -> None:
        catalog = builtin_catalog()
        scanners = [Scanner(catalog) for _ in range(threads)]  # one per thread: scratch space
        self.shippers = [
            LogShipper(node=node, root=root, scanner=scanners[i % threads],
                       engine=PodLogsClient(engine.url,
                                            credentials=ClientCredentials(token=token)))
            for i, (node, token) in enumerate(engine.agents.items())
        ]  # fmt: skip
        self._cpu: list[float] = [0.0] * threads
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(i, self.shippers[i::threads]),
                             name=f"shippers-{i}", daemon=True)
            for i in range(threads)
        ]  # fmt: skip

    @property
    def cpu_s(self) -> float:
        return sum(self._cpu)

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def _run(self, index: int, shippers: list[LogShipper]) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            cpu = time.thread_time()
            for shipper in shippers:
                try:
                    shipper.tick(datetime.now(UTC))
                except Exception as exc:  # an agent logs and goes on; so does this one
                    print(f"shipper {shipper.node}: {exc}", file=sys.stderr)
            self._cpu[index] += time.thread_time() - cpu
            self._stop.wait(max(0.0, 1.0 - (time.monotonic() - started)))

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)
        for shipper in self.shippers:
            shipper.close()


if __name__ == "__main__":
    sys.exit(main())
