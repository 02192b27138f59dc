"""A real Kubernetes control plane on this machine, for tests and benchmarks.

Built from Go modules by `scripts/kube-binaries` (cached outside the repository, keyed by
version) and started in one folder: etcd, kube-apiserver (TLS, client certificates, RBAC),
kube-scheduler, kube-controller-manager (garbage collector and disruption controller: pods
go with their job, PodDisruptionBudgets get their status), kwok (turns Node objects into
fake running nodes with GPUs and runs the pods bound to them through its stages, see
`kwok-stages.yaml`) and the Kubeflow training operator (PyTorchJobs and MPIJobs become
pods). Ports are free loopback ports chosen at start; every process writes its log under
`DIR/log`.

    python -m autorecover.testing.kubernetes.cluster start DIR [--nodes 6]
    python -m autorecover.testing.kubernetes.cluster stop DIR

Nothing here reaches a shell: every command is an argument list.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autorecover.testing.kubernetes.pki import PkiError, TestPki

STAGES = Path(__file__).with_name("kwok-stages.yaml")
REPO = Path(__file__).resolve().parents[4]
BUILD_SCRIPT = REPO / "scripts" / "kube-binaries"
STATE_FILE = "cluster.json"
GPUS_PER_NODE = 8
NODE_LABELS = {"type": "kwok", "nvidia.com/gpu.present": "true"}
OPERATOR_NAMESPACE = "kubeflow"
WEBHOOK_CERTS = Path("/tmp/k8s-webhook-server/serving-certs")  # noqa: S108  (the operator's fixed path)
# How long each component may take to come up on a loaded 2-core machine.
START_S = 120.0


class ClusterError(RuntimeError):
    """The control plane could not be built, started or stopped; the message says why."""


def place_webhook_certs(crt: Path, key: Path, into: Path = WEBHOOK_CERTS) -> None:
    """Give the operators' fixed webhook path (`WEBHOOK_CERTS`) a key pair, unless it has one.

    Any valid pair will do (no webhook is registered), and the path is the machine's, not the
    cluster's: a running operator watches the files and reloads them when they change. Writing
    a second cluster's pair there (two test runs at once, or a run and a benchmark) once let an
    operator read the new certificate beside the old key between the two writes, and it exited
    ("tls: private key does not match public key"). So an existing pair that loads as a pair is
    left alone; otherwise (none, or one torn by such a write) a new one is written under
    temporary names and renamed into place, the key first.
    """
    into.mkdir(parents=True, exist_ok=True)
    placed_crt, placed_key = into / "tls.crt", into / "tls.key"
    with contextlib.suppress(OSError, ssl.SSLError):
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(placed_crt, placed_key)
        return
    for src, dst in ((key, placed_key), (crt, placed_crt)):
        partial = dst.with_name(f".{dst.name}.{os.getpid()}")
        partial.write_bytes(src.read_bytes())
        partial.replace(dst)


def build_binaries(script: Path = BUILD_SCRIPT, extras: Sequence[str] = ()) -> Path:
    """Build (or find cached) binaries, with `extras` (`jobset`) too; returns their folder.
    Minutes the first time."""
    if not script.exists():
        raise ClusterError(f"{script} not found (run from a checkout of autorecover)")
    done = subprocess.run(  # noqa: S603
        [str(script), *extras], capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise ClusterError(f"{script} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class KubeTestCluster:
    """etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok, training operator."""

    base: Path
    binaries: Path
    nodes: int = 6
    ports: dict[str, int] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    # --- where things are ------------------------------------------------------------------

    @property
    def kubeconfig(self) -> Path:
        """The admin kubeconfig (client certificate in system:masters)."""
        return self.base / "admin.kubeconfig"

    @property
    def server(self) -> str:
        """The API server's URL."""
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    @property
    def node_names(self) -> list[str]:
        """The kwok nodes, in order."""
        return [f"gpu-{i + 1:02d}" for i in range(self.nodes)]

    @property
    def pki(self) -> TestPki:
        """The control plane's certificates."""
        return TestPki(self.base / "pki")

    def _pki(self, name: str) -> Path:
        return self.pki.path(name)

    # --- starting and stopping ---------------------------------------------------------------

    def start(self) -> None:
        """Start every component and create the nodes; raises `ClusterError` with the log."""
        (self.base / "log").mkdir(parents=True, exist_ok=True)
        self.ports = {name: free_port() for name in ("etcd", "etcd-peer", "apiserver", "kwok")}
        try:
            self.pki.create()
        except PkiError as exc:
            raise ClusterError(str(exc)) from None
        pki = self.pki
        pki.kubeconfig(self.kubeconfig, self.server, pki.path("admin.crt"), pki.path("admin.key"))
        self._start_etcd()
        self._start_apiserver()
        self._bootstrap_objects()
        self._spawn("kube-scheduler", [
            "--kubeconfig", str(self.kubeconfig), "--leader-elect=false", "--secure-port=0",
        ])  # fmt: skip
        self.start_controller_manager()
        self._spawn("kwok", [
            "--kubeconfig", str(self.kubeconfig), "--config", str(STAGES),
            "--manage-all-nodes=false", "--manage-nodes-with-label-selector=type=kwok",
            "--cidr", "10.64.0.0/16", "--enable-crds", "Logs",
            # Nodes' kubelet endpoint is kwok's server, so `pods/log` works through the API.
            "--node-ip", "127.0.0.1", "--node-port", str(self.ports["kwok"]),
            "--server-address", f"127.0.0.1:{self.ports['kwok']}",
            "--tls-cert-file", str(self._pki("apiserver.crt")),
            "--tls-private-key-file", str(self._pki("apiserver.key")),
        ])  # fmt: skip
        # The operator waits for its webhook certificate files, which a kubelet would mount
        # from its Secret; any valid key pair will do, as no webhook is registered.
        place_webhook_certs(self._pki("apiserver.crt"), self._pki("apiserver.key"))
        self._spawn(
            "training-operator.v1",
            ["--kubeconfig", str(self.kubeconfig), "--enable-scheme", "pytorchjob",
             "--enable-scheme", "mpijob",
             "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
             "--webhook-server-port", str(free_port())],
            env={"MY_POD_NAMESPACE": OPERATOR_NAMESPACE},
        )  # fmt: skip
        self.create_nodes()
        self._wait("kwok nodes Ready", self._nodes_ready)
        self._save_state()

    def stop(self) -> None:
        """Stop every component this object (or a saved state file) started."""
        pids = {name: p.pid for name, p in self.processes.items()}
        if not pids:
            with contextlib.suppress(OSError, ValueError):
                pids = json.loads((self.base / STATE_FILE).read_text())["pids"]
        for pid in pids.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for name, pid in pids.items():
            process = self.processes.get(name)
            while time.monotonic() < deadline and _alive(pid, process):
                time.sleep(0.05)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            if process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=5)
        self.processes.clear()

    def start_kai(self) -> None:
        """NVIDIA's KAI scheduler beside kube-scheduler: its CRDs and default queues, the
        scheduler, the binder and the pod grouper (which makes a PodGroup per PyTorchJob:
        the gang). Pods that name `schedulerName: kai-scheduler` are KAI's."""
        if "kai-scheduler" in self.processes:
            return
        import yaml

        kai = self.binaries / "kai"
        for crd in sorted((kai / "crds").glob("*_*.yaml")):
            self.apply(yaml.safe_load(crd.read_text()))
        for api in ("scheduling.run.ai/v2/queues", "scheduling.run.ai/v2alpha2/podgroups"):
            self._wait(f"{api} served", lambda a=api: self.get(f"/apis/{a}") is not None)  # type: ignore[misc]
        for queue in yaml.safe_load_all((kai / "crds" / "default-queues.yaml").read_text()):
            if queue:
                self.apply(queue)
        # The pod grouper gives training PodGroups this priority class.
        self.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": "train"}, "value": 50})  # fmt: skip
        env = {"KUBECONFIG": str(self.kubeconfig)}  # KAI reads no --kubeconfig flag
        self._spawn("kai-scheduler", [
            str(kai / "scheduler"), f"--listen-address=127.0.0.1:{free_port()}",
            f"--plugin-server-port={free_port()}",
        ], env=env, binary=False)  # fmt: skip
        for name in ("binder", "podgrouper"):
            self._spawn(f"kai-{name}", [str(kai / name), "--metrics-bind-address=0",
                                        "--health-probe-bind-address=0"],
                        env=env, binary=False)  # fmt: skip
        self._save_state()

    def start_controller_manager(self, *extra: str) -> None:
        """kube-controller-manager with the garbage collector, the disruption controller and
        `extra` controllers (`job-controller` for JobSet's child Jobs), replacing a running
        one: only the tests that need a controller pay for it."""
        running = self.processes.pop("kube-controller-manager", None)
        if running is not None:
            os.killpg(running.pid, signal.SIGTERM)
            running.wait(timeout=30)
        controllers = ",".join(("garbage-collector-controller", "disruption-controller", *extra))
        self._spawn("kube-controller-manager", [
            "--kubeconfig", str(self.kubeconfig), "--leader-elect=false", "--secure-port=0",
            f"--controllers={controllers}", "--use-service-account-credentials=false",
        ])  # fmt: skip
        self._save_state()

    def start_jobset(self) -> None:
        """The JobSet controller (and kube-controller-manager's job controller for its child
        Jobs), with its admission webhooks registered: `jobset_controller.start`."""
        from autorecover.testing.kubernetes import jobset_controller

        jobset_controller.start(self)

    def start_trainer(self) -> None:
        """Kubeflow Trainer v2's controller (after JobSet's), its CRDs and two runtimes:
        `trainer_controller.start`."""
        from autorecover.testing.kubernetes import trainer_controller

        trainer_controller.start(self)

    def restart_apiserver(self) -> None:
        """Kill kube-apiserver and start it again on the same port (watches must survive)."""
        process = self.processes.pop("kube-apiserver")
        os.killpg(process.pid, signal.SIGKILL)  # a crash; a graceful stop drains for a minute
        process.wait(timeout=30)
        self._start_apiserver()

    def log(self, name: str) -> str:
        """The tail of one component's log."""
        path = self.base / "log" / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else "(no log)"

    # --- the components ----------------------------------------------------------------------

    def _start_etcd(self) -> None:
        client = f"http://127.0.0.1:{self.ports['etcd']}"
        peer = f"http://127.0.0.1:{self.ports['etcd-peer']}"
        self._spawn("etcd", [
            "--data-dir", str(self.base / "etcd"), "--name", "default",
            "--listen-client-urls", client, "--advertise-client-urls", client,
            "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
            "--initial-cluster", f"default={peer}", "--unsafe-no-fsync",
            "--log-level", "warn",
        ])  # fmt: skip
        self._wait("etcd healthy", lambda: _get(f"{client}/health") is not None, "etcd")

    def _start_apiserver(self) -> None:
        pki = self._pki
        self._spawn("kube-apiserver", [
            "--etcd-servers", f"http://127.0.0.1:{self.ports['etcd']}",
            "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
            "--secure-port", str(self.ports["apiserver"]),
            "--tls-cert-file", str(pki("apiserver.crt")),
            "--tls-private-key-file", str(pki("apiserver.key")),
            "--client-ca-file", str(pki("ca.crt")),
            "--service-account-key-file", str(pki("sa.pub")),
            "--service-account-signing-key-file", str(pki("sa.key")),
            "--service-account-issuer", "https://kubernetes.default.svc",
            "--service-cluster-ip-range", "10.96.0.0/16",
            "--authorization-mode", "RBAC",
            "--allow-privileged=true",  # as kubeadm and managed clusters run it
            "--disable-admission-plugins", "ServiceAccount,TaintNodesByCondition",
            "--enable-priority-and-fairness=false", "--profiling=false",
            "--endpoint-reconciler-type", "none",
            "--kubelet-preferred-address-types", "InternalIP",
            "--kubelet-client-certificate", str(pki("admin.crt")),
            "--kubelet-client-key", str(pki("admin.key")),
        ])  # fmt: skip
        self._wait("kube-apiserver ready", lambda: self.get("/readyz", raw=True) == b"ok",
                   "kube-apiserver")  # fmt: skip

    def _bootstrap_objects(self) -> None:
        """The operator's namespace, its webhook bits, the PyTorchJob and MPIJob CRDs."""
        self.apply({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": OPERATOR_NAMESPACE}})  # fmt: skip
        # The operator's certificate rotator keeps its serving certificate in this Secret and
        # injects its CA into this webhook configuration; with no webhooks listed the API
        # server never calls it (there is no Service network to reach it by here).
        self.apply(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {
                    "name": "training-operator-webhook-cert",
                    "namespace": OPERATOR_NAMESPACE,
                },
            }
        )
        self.apply({"apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "ValidatingWebhookConfiguration",
                    "metadata": {"name": "validator.training-operator.kubeflow.org"},
                    "webhooks": []})  # fmt: skip
        import yaml  # the CRDs are YAML; PyYAML comes with lightkube

        for crd in ("kubeflow.org_pytorchjobs.yaml", "kubeflow.org_mpijobs.yaml"):
            self.apply(yaml.safe_load((self.binaries / "crds" / crd).read_text()))
        self.apply(yaml.safe_load((self.binaries / "crds" / "kwok.x-k8s.io_logs.yaml").read_text()))
        self._wait("PyTorchJob CRD established", lambda: self.get(
            "/apis/kubeflow.org/v1/pytorchjobs") is not None)  # fmt: skip
        self._wait("MPIJob CRD established", lambda: self.get(
            "/apis/kubeflow.org/v1/mpijobs") is not None)  # fmt: skip

    def create_nodes(self) -> None:
        """The kwok nodes: 8 GPUs each, two racks, a hostname label as kubelets set it."""
        for i, name in enumerate(self.node_names):
            labels = {**NODE_LABELS, "kubernetes.io/hostname": name,
                      "topology.kubernetes.io/zone": f"rack-{i // 3 + 1}"}  # fmt: skip
            capacity = {"cpu": "96", "memory": "1Ti", "pods": "110",
                        "nvidia.com/gpu": str(GPUS_PER_NODE)}  # fmt: skip
            self.apply({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels,
                             "annotations": {"kwok.x-k8s.io/node": "fake"}},
                "status": {"capacity": capacity, "allocatable": capacity},
            })  # fmt: skip

    def _nodes_ready(self) -> bool:
        nodes = self.get("/api/v1/nodes")
        ready = 0
        for node in (nodes or {}).get("items", []):
            for cond in node.get("status", {}).get("conditions", []):
                if cond.get("type") == "Ready" and cond.get("status") == "True":
                    ready += 1
        return ready >= self.nodes

    # --- a tiny admin client for the set-up (tests use the adapter's client) ---------------

    def _ssl(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self._pki("ca.crt")))
        context.load_cert_chain(str(self._pki("admin.crt")), str(self._pki("admin.key")))
        return context

    def get(self, path: str, raw: bool = False) -> Any:
        """GET a path as admin (JSON, or the bytes when `raw`); None when it fails."""
        try:
            with urllib.request.urlopen(self.server + path, context=self._ssl(),  # noqa: S310
                                        timeout=5) as resp:  # fmt: skip
                body = resp.read()
                return body if raw else json.loads(body or b"null")
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def apply(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """Create one object as admin (server-side apply, so a second start is harmless);
        `dry_run`: the API server validates and admits it, and stores nothing. Returns the
        object as the server has it (after defaulting and mutating admission)."""
        kind, meta = obj["kind"], obj["metadata"]
        group, _, version = obj["apiVersion"].rpartition("/")
        plural = _PLURALS[kind]
        prefix = f"/apis/{group}/{version}" if group else f"/api/{version}"
        ns = f"/namespaces/{meta['namespace']}" if "namespace" in meta else ""
        url = f"{self.server}{prefix}{ns}/{plural}/{meta['name']}"
        url += "?fieldManager=autorecover-test&force=true" + ("&dryRun=All" if dry_run else "")
        apply = {"Content-Type": "application/apply-patch+yaml"}
        request = urllib.request.Request(  # noqa: S310  (https, our own server)
            url, data=json.dumps(obj).encode(), method="PATCH", headers=apply
        )
        try:
            opened = urllib.request.urlopen(request, context=self._ssl(), timeout=10)  # noqa: S310
            with opened as resp:
                admitted: dict[str, Any] = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise ClusterError(
                f"apply {kind}/{meta['name']}: {exc.code} {exc.read()[:500]!r}"
            ) from None
        if kind == "Node" and "status" in obj and not dry_run:
            status = urllib.request.Request(  # noqa: S310
                f"{self.server}/api/v1/nodes/{meta['name']}/status",
                data=json.dumps({"status": obj["status"]}).encode(), method="PATCH",
                headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
            with urllib.request.urlopen(status, context=self._ssl(), timeout=10):  # noqa: S310
                pass
        return admitted

    # --- plumbing ------------------------------------------------------------------------------

    def _spawn(
        self, name: str, args: Sequence[str], env: dict[str, str] | None = None,
        binary: bool = True,
    ) -> None:  # fmt: skip
        command = [str(self.binaries / name), *args] if binary else list(args)
        log = (self.base / "log" / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(  # noqa: S603
            command, stdout=log, stderr=subprocess.STDOUT, cwd=self.base,
            env={**os.environ, **(env or {})}, start_new_session=True,
        )  # fmt: skip
        log.close()

    def _wait(self, what: str, ready: Callable[[], bool], component: str = "") -> None:
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if ready():
                return
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise ClusterError(f"{name} exited ({process.returncode}) while waiting "
                                       f"for {what}:\n{self.log(name)}")  # fmt: skip
            time.sleep(0.1)
        raise ClusterError(f"timed out waiting for {what}:\n{self.log(component)}"
                           if component else f"timed out waiting for {what}")  # fmt: skip

    def user_kubeconfig(self, user: str, groups: Sequence[str] = ()) -> Path:
        """A kubeconfig that authenticates as `user` (a client certificate's CN), for RBAC
        tests: `system:serviceaccount:NS:NAME` is that service account to the authorizer."""
        cert, key = self.pki.user(user, groups)
        return self.pki.kubeconfig(self.base / f"{cert.stem}.kubeconfig", self.server, cert, key)

    def _save_state(self) -> None:
        state = {"ports": self.ports, "pids": {n: p.pid for n, p in self.processes.items()},
                 "kubeconfig": str(self.kubeconfig), "nodes": self.node_names}  # fmt: skip
        (self.base / STATE_FILE).write_text(json.dumps(state, indent=2))


_PLURALS = {
    "Namespace": "namespaces", "Secret": "secrets", "Node": "nodes",
    "ServiceAccount": "serviceaccounts", "ClusterRole": "clusterroles",
    "ClusterRoleBinding": "clusterrolebindings", "Role": "roles", "RoleBinding": "rolebindings",
    "PriorityClass": "priorityclasses", "Queue": "queues",
    "Deployment": "deployments", "DaemonSet": "daemonsets", "Service": "services",
    "ConfigMap": "configmaps", "PodDisruptionBudget": "poddisruptionbudgets",
    "NetworkPolicy": "networkpolicies", "PersistentVolumeClaim": "persistentvolumeclaims",
    "StorageClass": "storageclasses",
    "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
    "CustomResourceDefinition": "customresourcedefinitions",
    "MutatingWebhookConfiguration": "mutatingwebhookconfigurations", "JobSet": "jobsets",
    "ClusterTrainingRuntime": "clustertrainingruntimes",
}  # fmt: skip


def _alive(pid: int, process: subprocess.Popen[bytes] | None) -> bool:
    if process is not None:
        return process.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310
            return bytes(resp.read())
    except (urllib.error.URLError, OSError):
        return None


def main(argv: Sequence[str] | None = None) -> int:
    """`start DIR [--nodes N]` or `stop DIR`."""
    parser = argparse.ArgumentParser(prog="python -m autorecover.testing.kubernetes.cluster")
    parser.add_argument("command", choices=("start", "stop"))
    parser.add_argument("dir", type=Path)
    parser.add_argument("--nodes", type=int, default=6)
    args = parser.parse_args(argv)
    if args.command == "stop":
        KubeTestCluster(args.dir, Path()).stop()
        return 0
    cluster = KubeTestCluster(args.dir, build_binaries(), nodes=args.nodes)
    try:
        cluster.start()
    except ClusterError as exc:
        cluster.stop()
        print(exc, file=sys.stderr)
        return 1
    print(f"KUBECONFIG={cluster.kubeconfig}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
