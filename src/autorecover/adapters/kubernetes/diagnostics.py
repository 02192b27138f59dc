"""Hardware recovery's `DiagnosticsPort` on Kubernetes: `dcgmi diag` in a pod on the node.

`start(node, level)` creates one pod per action id (its name derived from the id, so a
repeat after a crash finds the pod it made instead of starting a second run): bound to the
node by `nodeName` (no scheduler: the node is cordoned), tolerating our quarantine taint and
the cordon, asking for every GPU the node has, running `dcgmi diag -r 1 -j` (quick) or
`-r 3 -j` (under load) from the DCGM image the site names. `result(id)` reads the pod:
still running -> None; past `timeout_s` -> ERROR; ended -> its log parsed as `dcgmi diag`
JSON (adapters/host/dcgm.py): every test passed -> PASS, any failure -> FAIL with DCGM's own
warnings as evidence; output that is not dcgmi's, or a pod that vanished -> ERROR (the
check broke: that says nothing about the node).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from lightkube.core.exceptions import ApiError
from lightkube.resources.core_v1 import Node, Pod

from autorecover.adapters.host.dcgm import DcgmError, parse_diag_json
from autorecover.adapters.kubernetes.client import KubeSession, api_code, mapped
from autorecover.adapters.kubernetes.names import valid_namespace, valid_node_name
from autorecover.adapters.kubernetes.settings import DCGM_IMAGE as DCGM_IMAGE
from autorecover.controllers.ports import Clock, Provenance
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.domain.hardware.remediation import DiagnosticLevel, DiagnosticResult, Verdict

LABEL = "autorecover.io/diagnostic"  # persisted: the level, on every diagnostic pod
ACTION = "autorecover.io/action"
NODE = "autorecover.io/node"
RUNS = {DiagnosticLevel.QUICK: "1", DiagnosticLevel.LOAD: "3"}
TIMEOUT_S = {DiagnosticLevel.QUICK: 600.0, DiagnosticLevel.LOAD: 3600.0}
_FAILED = frozenset({"fail", "failed", "error"})
_LOG_BYTES = 4 << 20


def pod_name(action_id: str) -> str:
    """The diagnostic pod of one action: the same name however often it is started."""
    return "autorecover-diag-" + hashlib.sha256(action_id.encode()).hexdigest()[:16]


@dataclass
class KubeDiagnostics:
    """`DiagnosticsPort`: DCGM diagnostics as pods on the nodes they check."""

    session: KubeSession
    clock: Clock
    namespace: str
    image: str = DCGM_IMAGE
    _started: dict[str, tuple[str, DiagnosticLevel]] = field(default_factory=dict)

    def start(self, node: str, level: DiagnosticLevel, provenance: Provenance) -> None:
        """Create the diagnostic pod once per action id."""
        name = pod_name(provenance.action_id)
        node = valid_node_name(node)
        self._started[provenance.action_id] = (node, level)
        self.session.call(self._create(name, node, level, provenance))

    def result(self, action_id: str) -> DiagnosticResult | None:
        """The diagnostic's result, or None while its pod runs."""
        return self.session.call(self._result(action_id))

    async def _create(self, name: str, node: str, level: DiagnosticLevel, prov: Provenance) -> None:
        client = self.session.client
        try:
            gpus = (await client.get(Node, node)).status
            count = (gpus.allocatable or {}).get("nvidia.com/gpu", "0") if gpus else "0"
        except Exception as exc:
            raise mapped(exc, f"get node {node}") from exc
        pod = Pod.from_dict({
            "metadata": {
                "name": name, "namespace": valid_namespace(self.namespace),
                "labels": {LABEL: level.value},
                "annotations": {ACTION: prov.action_id[:1024], NODE: node,
                                "autorecover.io/reason": prov.why[:1024],
                                "autorecover.io/incident": (prov.incident or "")[:1024]},
            },
            "spec": {
                "nodeName": node,
                "restartPolicy": "Never",
                "tolerations": [
                    {"key": QUARANTINE_TAINT, "operator": "Exists"},
                    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
                ],
                "containers": [{
                    "name": "dcgm-diag", "image": self.image,
                    "command": ["dcgmi", "diag", "-r", RUNS[level], "-j"],
                    "resources": {"limits": {"nvidia.com/gpu": str(count)}},
                }],
            },
        })  # fmt: skip
        try:
            await client.create(pod)  # type: ignore[call-overload]
        except ApiError as exc:
            if api_code(exc) != 409:  # 409: made before this restart; read its result
                raise mapped(exc, f"create diagnostic pod {name} on {node}") from exc
        except Exception as exc:
            raise mapped(exc, f"create diagnostic pod {name} on {node}") from exc

    async def _result(self, action_id: str) -> DiagnosticResult | None:
        name = pod_name(action_id)
        client = self.session.client
        try:
            pod = (await client.get(Pod, name, namespace=self.namespace)).to_dict()
        except ApiError as exc:
            if api_code(exc) != 404:
                raise mapped(exc, f"get diagnostic pod {name}") from exc
            node, level = self._started.get(action_id, ("", DiagnosticLevel.QUICK))
            return self._answer(action_id, node, level, Verdict.ERROR,
                                (f"diagnostic pod {name} is gone",))  # fmt: skip
        meta, status = pod.get("metadata", {}), pod.get("status", {})
        node = meta.get("annotations", {}).get(NODE, "")
        level = DiagnosticLevel(meta.get("labels", {}).get(LABEL, DiagnosticLevel.QUICK.value))
        phase = status.get("phase")
        if phase not in ("Succeeded", "Failed"):
            created = _time(meta.get("creationTimestamp"))
            if created and (self.clock.now() - created).total_seconds() > TIMEOUT_S[level]:
                return self._answer(action_id, node, level, Verdict.ERROR,
                                    (f"diagnostic pod {name} still {phase} after "
                                     f"{TIMEOUT_S[level]:.0f} s",))  # fmt: skip
            return None
        try:
            lines = [line async for line in client.log(name, namespace=self.namespace)]
        except ApiError as exc:
            if api_code(exc) not in (400, 404):
                raise mapped(exc, f"log of diagnostic pod {name}") from exc
            lines = []  # the kubelet kept no log (400): judged as no report below
        except Exception as exc:
            raise mapped(exc, f"log of diagnostic pod {name}") from exc
        text = "".join(lines)[-_LOG_BYTES:]
        return self._judge(action_id, node, level, phase, text, _exit_code(pod))

    def _judge(
        self, action_id: str, node: str, level: DiagnosticLevel, phase: str, text: str,
        code: int | None,
    ) -> DiagnosticResult:  # fmt: skip
        try:
            run = parse_diag_json(text)
        except DcgmError as exc:
            why = f"pod {phase} (exit {code}); output is not dcgmi diag JSON: {exc}"
            return self._answer(action_id, node, level, Verdict.ERROR, (why,))
        failed = [r for r in run.results if r.status.lower() in _FAILED]
        if run.runtime_error:
            return self._answer(action_id, node, level, Verdict.ERROR,
                                (f"dcgmi diag: {run.runtime_error}",))  # fmt: skip
        if failed:
            evidence = tuple(
                f"{r.test} on {r.entity}: {r.status}"
                + "".join(f"; {w.message}" for w in r.warnings)
                for r in failed
            )
            return self._answer(action_id, node, level, Verdict.FAIL, evidence)
        if phase == "Failed":
            why = f"dcgmi diag exited {code} with no failed test in its report"
            return self._answer(action_id, node, level, Verdict.ERROR, (why,))
        return self._answer(action_id, node, level, Verdict.PASS,
                            (f"dcgmi diag -r {RUNS[level]}: {len(run.results)} results, "
                             f"none failed (DCGM {run.version or '?'})",))  # fmt: skip

    def _answer(
        self, action_id: str, node: str, level: DiagnosticLevel, verdict: Verdict,
        evidence: tuple[str, ...],
    ) -> DiagnosticResult:  # fmt: skip
        return DiagnosticResult(action_id, node, level, verdict, self.clock.now(),
                                evidence=evidence)  # fmt: skip


def _exit_code(pod: dict[str, Any]) -> int | None:
    for status in pod.get("status", {}).get("containerStatuses") or []:
        terminated = (status.get("state") or {}).get("terminated")
        if terminated:
            return int(terminated.get("exitCode", 0))
    return None


def _time(text: str | datetime | None) -> datetime | None:
    if not text:
        return None
    at = text if isinstance(text, datetime) else datetime.fromisoformat(text.replace("Z", "+00:00"))
    return at if at.tzinfo else at.replace(tzinfo=UTC)
