"""The real engine process on the real control plane: `autorecover serve --scheduler
kubernetes --leadership kubernetes`, signals from the node agent's own client, a GPU fault
on a PyTorchJob's node -> the node cordoned and tainted, the gang requeued elsewhere; on
SIGTERM the Lease is given up."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lightkube import ApiError

from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.engine_client import EngineClient
from autorecover.adapters.kubernetes.leases import KubeLease
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.server.tokens import Role, entry_text, new_token, token_hash
from autorecover.testing.kubernetes.harness import KubeHarness
from server.support import document, free_port, xid79

# A cold CI run compiles the test clusters' Go components (an empty ~/.cache/go-build) beside
# these tests: the requeue after a failed pod once took longer than 60 s to begin there (alone,
# warm, it begins within seconds).
DEADLINE_S = 120.0
ROOMY = "[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n"
OPERATOR = new_token()
AGENTS: dict[str, str] = {}  # node -> its agent's token


def tokens_file(kube: KubeHarness, tmp: Path) -> Path:
    """An operator's token and one agent token per node (hashes only)."""
    for node in kube.cluster.node_names:
        AGENTS.setdefault(node, new_token())
    path = tmp / "tokens.toml"
    path.write_text(
        entry_text("ops", {Role.OPERATOR}, None, token_hash(OPERATOR))
        + "".join(
            entry_text(f"agent-{n}", {Role.AGENT}, n, token_hash(t)) for n, t in AGENTS.items()
        )
    )
    return path  # fmt: skip


def _until(proc: subprocess.Popen[bytes], what: str, check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"engine exited {proc.returncode}"
        try:
            got = check()
            if got:
                return got
        except OSError:
            pass  # not listening yet
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class EngineProcess:
    """One `autorecover serve --scheduler kubernetes --leadership kubernetes` process."""

    def __init__(self, kube: KubeHarness, tmp: Path, *extra: str, replica: str = "engine-0",
                 settle_s: float = 1.0) -> None:  # fmt: skip
        (tmp / "policy.toml").write_text(ROOMY)
        self.tmp = tmp
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = (tmp / "engine.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autorecover", "serve",
             "--scheduler", "kubernetes", "--kubeconfig", str(kube.cluster.kubeconfig),
             "--namespaces", kube.namespace, "--leadership", "kubernetes",
             "--lease-namespace", kube.namespace, "--lease-name", "autorecover-engine",
             "--replica", replica, "--settle-s", str(settle_s), "--store", f"sqlite:///{tmp / 'engine.db'}",
             "--listen", self.url.removeprefix("http://"),
             "--policy", str(tmp / "policy.toml"), "--spool-dir", str(tmp / "spool"), "--pod-log-grace-s", "0",
             "--tick-s", "0.2", "--intake-s", "0.2", "--lease-ttl-s", "3",
             "--log-level", "warning", "--domain-label", "rack=topology.kubernetes.io/zone",
             "--tokens-file", str(tokens_file(kube, tmp)), *extra],
            stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def get(self, path: str) -> Any:
        request = urllib.request.Request(self.url + path,
                                         headers={"Authorization": f"Bearer {OPERATOR}"})  # fmt: skip
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.loads(r.read())

    def agent(self, node: str) -> EngineClient:
        """The node agent's own client, with its node's token."""
        return EngineClient(self.url, credentials=ClientCredentials(token=AGENTS[node]))

    def until(self, what: str, check: Callable[[], Any]) -> Any:
        return _until(self.proc, what, check)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """SIGTERM: passes finish, the Lease is given up; SIGKILL: it just dies."""
        self.proc.send_signal(sig)
        code = self.proc.wait(60)
        self.log.close()
        return code


def test_kubernetes_engine_process_recovers_a_pytorchjob_and_leads_on_a_lease(
    kube: KubeHarness, tmp_path: Path
) -> None:
    engine = EngineProcess(kube, tmp_path)
    lease = KubeLease(kube.session, kube.namespace, "autorecover-engine")
    clock = kube.clock
    try:
        engine.until("the engine to lead", lambda: engine.get("/readyz")["role"] == "leader")
        seen = lease.view()
        assert seen is not None and seen.holder == "engine-0"

        job = kube.submit(workers=3)
        first = kube.placement()
        bad = first["train-worker-0"]
        # The node agent on `bad` reports the XID ... and the rank dies with its GPU.
        engine.agent(bad).post(document(bad, xid79(bad, clock), clock=clock))
        kube.fail_pod("train-worker-0")

        second = kube.placement(attempt=1, timeout_s=DEADLINE_S)
        assert bad not in second.values()
        node = engine.until(f"{bad} cordoned",
                            lambda: (n := kube.node(bad))["spec"].get("unschedulable") and n)  # fmt: skip
        assert any(t["key"] == QUARANTINE_TAINT for t in node["spec"].get("taints", []))
        jobs = engine.until("the job in the engine's view", lambda: engine.get("/api/v1/jobs"))
        assert jobs[0]["job"] == job and bad in jobs[0]["exclusions"], jobs
        incidents = engine.get("/api/v1/incidents")
        assert {i["source"] for i in incidents} >= {"jobs", "hardware"}, incidents
    finally:
        code = engine.stop()
    assert code in (0, -signal.SIGTERM), (tmp_path / "engine.log").read_text()[-3000:]
    released = lease.view()
    assert released is not None and released.holder is None  # a standby takes over at once


def test_kubernetes_engine_dry_run_records_what_it_would_do_and_touches_nothing(
    kube: KubeHarness, tmp_path: Path
) -> None:
    engine = EngineProcess(kube, tmp_path, "--dry-run")
    clock = kube.clock
    try:
        engine.until("the engine to lead", lambda: engine.get("/readyz")["role"] == "leader")
        kube.submit(workers=3)
        first = kube.placement()
        bad = first["train-worker-0"]
        engine.agent(bad).post(document(bad, xid79(bad, clock), clock=clock))
        kube.fail_pod("train-worker-0")

        would = engine.until("the would-have cordon recorded", lambda: [
            a for a in engine.get("/api/v1/actions")
            if a["node"] == bad and a["kind"] == "cordon" and a["status"] == "would"])  # fmt: skip
        assert would
        incident = engine.until("the job's incident decided", lambda: [
            i for i in engine.get("/api/v1/incidents")
            if i["source"] == "jobs" and i["cause"] == "hardware"])  # fmt: skip
        assert incident
        time.sleep(1.0)  # several more passes
        node = kube.node(bad)
        assert not node["spec"].get("unschedulable") and not node["spec"].get("taints")
        job = kube.job()
        assert "autorecover.io/attempt" not in job["metadata"].get("annotations", {})
        assert not job["spec"].get("runPolicy", {}).get("suspend")
        phases = {p["metadata"]["name"]: p["status"]["phase"] for p in kube.pods()}
        assert phases["train-worker-0"] == "Failed"  # left exactly as it failed
    finally:
        engine.stop()


def test_kubernetes_engine_killed_mid_requeue_converges_on_restart(
    kube: KubeHarness, tmp_path: Path
) -> None:
    first = EngineProcess(kube, tmp_path, settle_s=0.0)
    clock = kube.clock
    try:
        first.until("the engine to lead", lambda: first.get("/readyz")["role"] == "leader")
        kube.submit(workers=3)
        placed = kube.placement()
        bad = placed["train-worker-2"]
        # The rank on the bad node says something, and the engine has spooled it: a pass has
        # seen the attempt running there (the XID's drain may evict the pod before the next).
        kube.log("train-worker-2", "worker 2 started", stream="stdout")
        first.until("the engine to read the bad node's rank", lambda: any(
            b"worker 2 started" in f.read_bytes() for f in (tmp_path / "spool").glob("*.log")
        ))  # fmt: skip
        first.agent(bad).post(document(bad, xid79(bad, clock), clock=clock))
        # With no settle wait, the job's failure is decided on what is recorded then: let the
        # intake record the XID first (under load it may lag the job's pass).
        first.until("the XID recorded", lambda: [
            n for n in first.get("/api/v1/nodes") if n["name"] == bad and n["state"] != "healthy"
        ])  # fmt: skip
        notes = lambda: kube.job()["metadata"].get("annotations", {})  # noqa: E731
        try:
            kube.fail_pod("train-worker-2")
        except ApiError as error:
            # A recorded XID 79 on a running job's node may already have started the requeue
            # that moves the job off it (the pod is gone): that is the requeue this test kills.
            if error.status.code != 404:
                raise
        except AssertionError:
            # ... or the pod is being deleted (the requeue, or the drain off the XID's node),
            # and a pod in deletion never reports Failed: the requeue below still must begin.
            if not kube.terminating("train-worker-2"):
                raise
        # The moment the requeue's first write lands on the job, the engine dies.
        first.until("the requeue to begin", lambda: "autorecover.io/requeue-action" in notes())
    finally:
        first.stop(signal.SIGKILL)
    second = EngineProcess(kube, tmp_path, replica="engine-1", settle_s=0.0)
    try:
        # The dead leader never gave the Lease up: the new one takes it when it runs out.
        second.until("the restarted engine to lead",
                     lambda: second.get("/readyz")["role"] == "leader")  # fmt: skip
        after = kube.placement(attempt=1, timeout_s=DEADLINE_S)
        assert bad not in after.values()
        second.until("the engine to count one restart", lambda: [
            j for j in second.get("/api/v1/jobs") if j["restarts"] == 1 and bad in j["exclusions"]
        ])  # fmt: skip
        time.sleep(1.0)  # more passes: nothing more happens
        done = kube.job()["metadata"]["annotations"]
        assert done["autorecover.io/attempt"] == "1"  # requeued once, not twice
        assert done["autorecover.io/requeued"] == done["autorecover.io/requeue-action"]
        jobs = [i for i in second.get("/api/v1/incidents") if i["source"] == "jobs"]
        assert len(jobs) == 1, jobs  # no second incident for the attempt being requeued
        assert [j["restarts"] for j in second.get("/api/v1/jobs")] == [1]
        assert kube.node(bad)["spec"].get("unschedulable") is True
    finally:
        second.stop()
