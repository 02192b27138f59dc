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

from autorecover.adapters.engine_client import EngineClient
from autorecover.adapters.kubernetes.leases import KubeLease
from autorecover.domain.lifecycle import QUARANTINE_TAINT
from server.support import document, free_port, xid79

from .harness import KubeHarness

DEADLINE_S = 60.0
ROOMY = "[breaker]\nmax_fraction = 1.0\nmax_out_fraction = 1.0\n"


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


def test_kubernetes_engine_process_recovers_a_pytorchjob_and_leads_on_a_lease(
    kube: KubeHarness, tmp_path: Path
) -> None:
    (tmp_path / "policy.toml").write_text(ROOMY)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (tmp_path / "engine.log").open("ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "autorecover.engine_cli", "serve",
         "--scheduler", "kubernetes", "--kubeconfig", str(kube.cluster.kubeconfig),
         "--namespaces", kube.namespace, "--leadership", "kubernetes",
         "--lease-namespace", kube.namespace, "--lease-name", "autorecover-engine",
         "--replica", "engine-0", "--store", f"sqlite:///{tmp_path / 'engine.db'}",
         "--listen", f"127.0.0.1:{port}", "--policy", str(tmp_path / "policy.toml"),
         "--spool-dir", str(tmp_path / "spool"), "--tick-s", "0.2", "--intake-s", "0.2",
         "--lease-ttl-s", "3", "--log-level", "warning"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip

    def get(path: str) -> Any:
        with urllib.request.urlopen(url + path, timeout=5) as r:
            return json.loads(r.read())

    lease = KubeLease(kube.session, kube.namespace, "autorecover-engine")
    clock = kube.clock
    try:
        _until(proc, "the engine to lead", lambda: get("/readyz")["role"] == "leader")
        seen = lease.view()
        assert seen is not None and seen.holder == "engine-0"

        job = kube.submit(workers=3)
        first = kube.placement()
        bad = first["train-worker-0"]
        EngineClient(url).post(
            document(bad, xid79(bad, clock), clock=clock)
        )  # the node agent on `bad` reports the XID
        kube.fail_pod("train-worker-0")  # ... and the rank dies with its GPU

        second = kube.placement(attempt=1, timeout_s=DEADLINE_S)
        assert bad not in second.values()
        node = _until(proc, f"{bad} cordoned",
                      lambda: (n := kube.node(bad))["spec"].get("unschedulable") and n)  # fmt: skip
        assert any(t["key"] == QUARANTINE_TAINT for t in node["spec"].get("taints", []))
        jobs = _until(proc, "the job in the engine's view", lambda: get("/api/v1/jobs"))
        assert jobs[0]["job"] == job and bad in jobs[0]["exclusions"], jobs
        incidents = get("/api/v1/incidents")
        assert {i["source"] for i in incidents} >= {"jobs", "hardware"}, incidents
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(60)
        log.close()
    assert code in (0, -signal.SIGTERM), (tmp_path / "engine.log").read_text()[-3000:]
    released = lease.view()
    assert released is not None and released.holder is None  # a standby takes over at once
