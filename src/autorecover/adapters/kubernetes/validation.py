"""Validation under load on Kubernetes: an NCCL all-reduce MPIJob between a node and a peer.

`KubePairValidation` is a `DiagnosticsPort` for `DiagnosticLevel.LOAD`. For node N it picks
a known-good peer P (Ready, schedulable, none of our taints, no taint its pods would not
tolerate, not already in another pair test; its GPUs free first) in N's tightest failure
domain (NVLink, then IB leaf, then rack: the node labels the stack reads), and creates one
Kubeflow MPIJob (`kubeflow.org/v1`, the training operator's) per action id, named from a
hash of the id:

- two workers, one on N and one on P (required node affinity on `kubernetes.io/hostname`
  and anti-affinity between the pair's workers), each asking for `gpus_per_node` GPUs,
  tolerating our quarantine taint and the cordon, so the one on N lands on a node that stays
  cordoned (a pod that tolerates `node.kubernetes.io/unschedulable` may be scheduled there,
  as DaemonSet pods are); no host network;
- a launcher, bound to N by `nodeName`, asking for no GPU, that runs
  `mpirun --allow-run-as-root --tag-output -np 2 --bind-to none all_reduce_perf -b .. -e ..
  -f 2 -g <gpus> -n .. -w .. -c 1` (an argument list: numbers from the policy, the binary a
  validated name) from the image the site names; the operator reaches the workers through
  `kubectl exec`, so every rank's output lands in the launcher's log.

`result` reads the MPIJob and its launcher pod: running -> None; past `timeout_s` (plus a
grace) -> ERROR; ended -> the launcher's log, read through the API, parsed
(`adapters/host/nccl.py`) with its exit code and judged (`domain/hardware/validation.py`)
against the bandwidth the policy expects for the domain N and P share. Whatever the outcome,
the MPIJob is deleted (its pods, ConfigMap and RBAC go with it: they are owned by it). The
MPIJob's labels and annotations name the action, N and P, so an engine that restarts finds
it by name and carries on; starting again creates nothing twice. N stays cordoned throughout:
the engine uncordons it after a PASS, as after any validation.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from lightkube.core.exceptions import ApiError
from lightkube.generic_resource import create_namespaced_resource
from lightkube.resources.core_v1 import Node, Pod

from autorecover.adapters.host.nccl import MAX_TEXT, parse_all_reduce
from autorecover.adapters.kubernetes.client import KubeSession, api_code, mapped
from autorecover.adapters.kubernetes.names import MAX_LABEL, valid_namespace, valid_node_name
from autorecover.controllers.ports import Clock, PermanentError, Provenance
from autorecover.domain.failure_domains import DomainKind, FailureDomain, Topology
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict
from autorecover.domain.hardware.validation import CLUSTER, NcclSettings, judge, shared_domain

MPIJob = create_namespaced_resource("kubeflow.org", "v1", "MPIJob", "mpijobs")
PREFIX = "autorecover-val-"
# Persisted names (chosen once): on the MPIJob and every pod it makes.
VALIDATION = "autorecover.io/validation"  # "pair"
PAIR = "autorecover.io/pair"  # the MPIJob's name
ROLE = "autorecover.io/pair-role"  # "launcher" | "worker"
NODE = "autorecover.io/node"  # the node under test (label when a valid value; annotation)
PEER = "autorecover.io/peer"
ACTION = "autorecover.io/action"  # annotation: the action id (ids are no label values)
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
HOSTNAME = "kubernetes.io/hostname"
GPU = "nvidia.com/gpu"
GRACE_S = 120.0  # past the MPIJob's own deadline before we give up on it ourselves
_RANK = {DomainKind.NVLINK: 0, DomainKind.IB_LEAF: 1, DomainKind.RACK: 2}
_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_ENDED = frozenset({"Succeeded", "Failed"})
_LIVE = frozenset({"Pending", "Running"})


def pair_name(action_id: str) -> str:
    """The MPIJob of one action's pair test (its pods: `-launcher`, `-worker-0`, `-worker-1`)."""
    return PREFIX + hashlib.sha256(action_id.encode()).hexdigest()[:12]


def launcher_name(name: str) -> str:
    """The launcher pod the training operator makes for MPIJob `name`."""
    return f"{name}-launcher"


def in_service(node: Mapping[str, Any]) -> bool:
    """Ready, schedulable, and no NoSchedule/NoExecute taint (ours or anyone's)."""
    spec, status = node.get("spec") or {}, node.get("status") or {}
    if spec.get("unschedulable"):
        return False
    if any(t.get("effect") in ("NoSchedule", "NoExecute") or t.get("key") == QUARANTINE_TAINT
           for t in spec.get("taints") or []):  # fmt: skip
        return False
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in status.get("conditions") or [])  # fmt: skip


def choose_peer(
    node: str,
    nodes: Sequence[Mapping[str, Any]],
    topology: Topology,
    settings: NcclSettings,
    *,
    busy: Mapping[str, int] | None = None,
    taken: frozenset[str] = frozenset(),
) -> tuple[str, FailureDomain | None] | None:
    """The best peer for `node` and the domain they share, or None (pure).

    In service, not `taken` by another pair test, with `gpus_per_node` GPUs allocatable;
    tightest shared domain first, then one whose GPUs no pod holds (`busy`: GPUs in use per
    node), then by name. A node sharing no domain is a peer only if the policy sets an
    expectation for `cluster`."""
    busy = busy or {}
    ranked: list[tuple[int, int, str, FailureDomain | None]] = []
    for seen in nodes:
        name = (seen.get("metadata") or {}).get("name", "")
        if not name or name == node or name in taken or not in_service(seen):
            continue
        allocatable = ((seen.get("status") or {}).get("allocatable") or {}).get(GPU, "0")
        if _int(allocatable) < settings.gpus_per_node:
            continue
        domain = shared_domain(topology.of(node), topology.of(name))
        if domain is None and CLUSTER not in settings.busbw_gbps:
            continue
        rank = _RANK.get(domain.kind, 3) if domain is not None else 3
        ranked.append((rank, 1 if busy.get(name, 0) else 0, name, domain))
    if not ranked:
        return None
    best = min(ranked, key=lambda r: r[:3])
    return best[2], best[3]


def launcher_argv(settings: NcclSettings) -> list[str]:
    """`mpirun ... all_reduce_perf ...`: one rank per worker, every rank's output tagged."""
    return ["mpirun", "--allow-run-as-root", "--tag-output", "-np", "2", "--bind-to", "none",
            *settings.argv()]  # fmt: skip


def mpijob_body(
    name: str, namespace: str, node: str, peer: str, image: str, settings: NcclSettings,
    provenance: Provenance, domain: FailureDomain | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The MPIJob of one pair test (pure): launcher on `node`, a worker on each node."""
    labels = {VALIDATION: "pair", PAIR: name}
    for key, value in ((NODE, node), (PEER, peer)):
        if len(value) <= MAX_LABEL and _LABEL_VALUE.fullmatch(value):
            labels[key] = value
    tolerations = [{"key": QUARANTINE_TAINT, "operator": "Exists"},
                   {"key": UNSCHEDULABLE, "operator": "Exists"}]  # fmt: skip
    worker_labels = {**labels, ROLE: "worker"}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": HOSTNAME, "operator": "In", "values": [node, peer]}]}]}},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {PAIR: name, ROLE: "worker"}},
            "topologyKey": HOSTNAME}]},
    }  # fmt: skip
    return {
        "apiVersion": "kubeflow.org/v1", "kind": "MPIJob",
        "metadata": {
            "name": name, "namespace": namespace, "labels": labels,
            "annotations": {ACTION: provenance.action_id[:1024], NODE: node, PEER: peer,
                            "autorecover.io/domain": str(domain) if domain else CLUSTER,
                            "autorecover.io/reason": provenance.why[:1024],
                            "autorecover.io/incident": (provenance.incident or "")[:1024]},
        },
        "spec": {
            "slotsPerWorker": 1,
            # No pod cleaned up by the operator, and no backoffLimit (0 reads as "reached" and
            # deletes every pod): it would delete a launcher that just failed before its log
            # is read (seen under load). A launcher that fails (restartPolicy Never) fails the
            # MPIJob; the MPIJob is deleted, pods and all, once the result is read.
            "runPolicy": {"cleanPodPolicy": "None",
                          "activeDeadlineSeconds": max(1, int(settings.timeout_s))},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": {
                    "metadata": {"labels": {**labels, ROLE: "launcher"}},
                    "spec": {"nodeName": node, "tolerations": tolerations,
                             "containers": [{"name": "launcher", "image": image,
                                             "command": launcher_argv(settings)}]},
                }},
                "Worker": {"replicas": 2, "restartPolicy": "Never", "template": {
                    "metadata": {"labels": worker_labels},
                    "spec": {"affinity": affinity, "tolerations": tolerations,
                             "containers": [{"name": "worker", "image": image, "resources": {
                                 "limits": {GPU: str(settings.gpus_per_node)}}}]},
                }},
            },
        },
    }  # fmt: skip


@dataclass
class KubePairValidation:
    """`DiagnosticsPort` (LOAD): an `all_reduce_perf` MPIJob between a node and a peer."""

    session: KubeSession
    clock: Clock
    namespace: str
    image: str
    settings: NcclSettings
    topology: Callable[[], Topology]  # the failure domains as the node labels say now
    _results: dict[str, DiagnosticResult] = field(default_factory=dict)
    _nodes: dict[str, str] = field(default_factory=dict)  # action id -> node under test

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Pick a peer and create the pair's MPIJob (once per action id)."""
        if level is not DiagnosticLevel.LOAD:
            raise PermanentError(f"the NCCL pair test runs under load only, not {level}")
        node = valid_node_name(node)
        aid = provenance.action_id
        self._nodes[aid] = node
        if aid in self._results:
            return
        self.session.call(self._start(node, provenance))

    def result(self, action_id: str) -> DiagnosticResult | None:
        """None while the pair runs; then its judged result, after deleting the MPIJob."""
        done = self._results.get(action_id)
        if done is not None:
            return done
        return self.session.call(self._result(action_id))

    # --- starting --------------------------------------------------------------------------

    async def _start(self, node: str, prov: Provenance) -> None:
        name = pair_name(prov.action_id)
        namespace = valid_namespace(self.namespace)
        if await self._get(name) is not None:
            return  # created before a restart: `result` follows it
        client = self.session.client
        try:
            nodes = [n.to_dict() async for n in client.list(Node)]
            pods = [p.to_dict() async for p in client.list(Pod, namespace="*")]
        except Exception as exc:
            raise mapped(exc, "list nodes and pods for a pair test") from exc
        if not any((n.get("metadata") or {}).get("name") == node for n in nodes):
            self._error(prov.action_id, node, f"node {node} does not exist")
            return
        topology = self.topology()
        found = choose_peer(node, nodes, topology, self.settings, busy=_gpus_in_use(pods),
                            taken=_in_pair_tests(pods))  # fmt: skip
        if found is None:
            where = ", ".join(map(str, topology.of(node))) or "no failure domain"
            self._error(prov.action_id, node, f"no known-good peer for {node} ({where}): none "
                        "in service with free GPUs shares its domain")  # fmt: skip
            return
        peer, domain = found
        body = mpijob_body(name, namespace, node, peer, self.image, self.settings, prov, domain)
        try:
            await client.create(MPIJob.from_dict(body))
        except ApiError as exc:
            if api_code(exc) != 409:  # 409: made meanwhile (another replica's pass)
                raise mapped(exc, f"create pair MPIJob {name} for {node} with {peer}") from exc
        except Exception as exc:
            raise mapped(exc, f"create pair MPIJob {name} for {node} with {peer}") from exc

    # --- reading ---------------------------------------------------------------------------

    async def _result(self, aid: str) -> DiagnosticResult | None:
        name = pair_name(aid)
        job = await self._get(name)
        if job is None:
            return None  # not created yet (or lost): `start` creates it, the timeout decides
        meta = job.get("metadata") or {}
        notes = meta.get("annotations") or {}
        node, peer = notes.get(NODE, self._nodes.get(aid, "")), notes.get(PEER, "")
        launcher = await self._pod(launcher_name(name))
        phase = ((launcher or {}).get("status") or {}).get("phase")
        if phase not in _ENDED:
            failed = _condition(job, "Failed")
            if failed is not None and launcher is None:
                return await self._finish(aid, name, node, Verdict.ERROR, (
                    f"pair MPIJob {name} with {peer} failed before its launcher ran: "
                    f"{failed}",))  # fmt: skip
            created = _time(meta.get("creationTimestamp"))
            limit = self.settings.timeout_s + GRACE_S
            if created is not None and (self.clock.now() - created).total_seconds() > limit:
                return await self._finish(aid, name, node, Verdict.ERROR, (
                    f"pair MPIJob {name} with {peer}: launcher still {phase or 'not created'} "
                    f"after {self.settings.timeout_s:.0f} s: deleted",))  # fmt: skip
            return None
        text = await self._log(launcher_name(name))
        code = _exit_code(launcher or {})
        report = parse_all_reduce(text, code) if text or code else None
        topology = self.topology()
        domain = shared_domain(topology.of(node), topology.of(peer)) if node and peer else None
        judged = judge(report, domain, self.settings, peer=peer)
        where = f"pair MPIJob {name} (launcher {phase}, exit {code}) on {node},{peer}"
        return await self._finish(aid, name, node, judged.verdict, (*judged.evidence, where))

    async def _finish(
        self, aid: str, name: str, node: str, verdict: Verdict, evidence: tuple[str, ...]
    ) -> DiagnosticResult:
        """Delete the MPIJob (and with it what it owns); keep the result."""
        try:
            await self.session.client.delete(MPIJob, name, namespace=self.namespace)
        except ApiError as exc:
            if api_code(exc) != 404:
                raise mapped(exc, f"delete pair MPIJob {name}") from exc
        except Exception as exc:
            raise mapped(exc, f"delete pair MPIJob {name}") from exc
        result = DiagnosticResult(aid, node, DiagnosticLevel.LOAD, verdict, self.clock.now(),
                                  evidence=evidence)  # fmt: skip
        self._results[aid] = result
        return result

    def _error(self, aid: str, node: str, why: str) -> None:
        self._results[aid] = DiagnosticResult(aid, node, DiagnosticLevel.LOAD, Verdict.ERROR,
                                              self.clock.now(), evidence=(why,))  # fmt: skip

    async def _get(self, name: str) -> dict[str, Any] | None:
        try:
            job = await self.session.client.get(MPIJob, name, namespace=self.namespace)
        except ApiError as exc:
            if api_code(exc) == 404:
                return None
            raise mapped(exc, f"get pair MPIJob {name}") from exc
        except Exception as exc:
            raise mapped(exc, f"get pair MPIJob {name}") from exc
        return dict(job.to_dict())  # type: ignore[no-untyped-call]

    async def _pod(self, name: str) -> dict[str, Any] | None:
        try:
            pod = await self.session.client.get(Pod, name, namespace=self.namespace)
        except ApiError as exc:
            if api_code(exc) == 404:
                return None
            raise mapped(exc, f"get pod {name}") from exc
        except Exception as exc:
            raise mapped(exc, f"get pod {name}") from exc
        return dict(pod.to_dict())

    async def _log(self, pod: str) -> str:
        try:
            lines = [line async for line in self.session.client.log(pod, namespace=self.namespace)]
        except ApiError as exc:
            if api_code(exc) not in (400, 404):
                raise mapped(exc, f"log of pod {pod}") from exc
            return ""  # the kubelet kept no log: judged as no output
        except Exception as exc:
            raise mapped(exc, f"log of pod {pod}") from exc
        return "".join(lines)[-MAX_TEXT:]


def _gpus_in_use(pods: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """GPUs asked for by live pods, per node."""
    used: dict[str, int] = {}
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if not node or ((pod.get("status") or {}).get("phase") or "Pending") not in _LIVE:
            continue
        for container in (pod.get("spec") or {}).get("containers") or []:
            limits = (container.get("resources") or {}).get("limits") or {}
            used[node] = used.get(node, 0) + _int(limits.get(GPU, "0"))
    return used


def _in_pair_tests(pods: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """Nodes a live pair test's pods run on or are meant for (another validation's pair)."""
    taken: set[str] = set()
    for pod in pods:
        labels = (pod.get("metadata") or {}).get("labels") or {}
        if labels.get(VALIDATION) != "pair":
            continue
        if ((pod.get("status") or {}).get("phase") or "Pending") not in _LIVE:
            continue
        for key in (NODE, PEER):
            if labels.get(key):
                taken.add(labels[key])
    return frozenset(taken)


def _condition(job: Mapping[str, Any], kind: str) -> str | None:
    for cond in (job.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind and cond.get("status") == "True":
            return str(cond.get("message") or cond.get("reason") or kind)
    return None


def _exit_code(pod: Mapping[str, Any]) -> int | None:
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        terminated = (status.get("state") or {}).get("terminated")
        if terminated:
            return int(terminated.get("exitCode", 0))
    return None


def _int(text: object) -> int:
    try:
        return int(str(text))
    except ValueError:
        return 0


def _time(text: str | datetime | None) -> datetime | None:
    if not text:
        return None
    at = text if isinstance(text, datetime) else datetime.fromisoformat(text.replace("Z", "+00:00"))
    return at if at.tzinfo else at.replace(tzinfo=UTC)
