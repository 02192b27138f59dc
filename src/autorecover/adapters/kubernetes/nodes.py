"""Hardware recovery's `SchedulerPort` on Kubernetes: cordon, taint, drain, resume nodes.

Reads come from the node and pod informers (no API call per pass); every mutation reads
the node fresh, computes its patch with `marks` (pure), and sends it with the node's
resource version, retrying a conflict twice before leaving it to the next pass. Drain uses
the Eviction API, so PodDisruptionBudgets are honoured: pods a budget protects are retried
on later passes and, past `drain_timeout_s`, reported by name in a `PermanentError` (the
action fails and a person hears of it). DaemonSet pods, mirror pods and finished pods stay.

Kubernetes has no API to reset a GPU or reboot a machine: those two raise `PermanentError`
naming what to do instead, and the remediation ladder escalates (docs/kubernetes.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from lightkube.core.exceptions import ApiError
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Node, Pod
from lightkube.types import PatchType

from autorecover.adapters.kubernetes import marks
from autorecover.adapters.kubernetes.client import ConflictError, KubeSession, api_code, mapped
from autorecover.adapters.kubernetes.events import EventRecorder, Regarding
from autorecover.adapters.kubernetes.informers import ObjectCache
from autorecover.adapters.kubernetes.names import valid_node_name
from autorecover.controllers.hardware.ports import SchedulerNode
from autorecover.controllers.ports import Clock, PermanentError, Provenance, TransientError

log = logging.getLogger(__name__)
_ACTIVE_PHASES = ("Pending", "Running")
_CONFLICT_TRIES = 3


@dataclass(frozen=True, slots=True)
class DrainReport:
    """One drain pass: what was evicted, what a budget kept, what was left alone."""

    node: str
    evicted: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()  # "namespace/pod: why"
    skipped: tuple[str, ...] = ()  # DaemonSet, mirror and finished pods


@dataclass
class KubeNodes:
    """`SchedulerPort` for Kubernetes nodes."""

    session: KubeSession
    nodes: ObjectCache[Node]
    pods: ObjectCache[Pod]
    clock: Clock
    owner: str = "autorecover"
    taint_effect: str = "NoSchedule"
    drain_timeout_s: float = 600.0
    events: EventRecorder | None = None
    _blocked_since: dict[str, datetime] = field(default_factory=dict)

    # --- reads ---------------------------------------------------------------------------------

    def observe(self, nodes: Sequence[str]) -> Mapping[str, SchedulerNode]:
        """The scheduler's view of these nodes (unknown nodes are left out)."""
        wanted = set(nodes)
        running = self._running()
        return {
            name: marks.scheduler_node(node, self.owner, running.get(name, 0))
            for name, node in self._cached().items()
            if name in wanted
        }

    def cordoned(self) -> Mapping[str, SchedulerNode]:
        """Every unschedulable node, with who holds it out."""
        running = self._running()
        out = {}
        for name, node in self._cached().items():
            view = marks.scheduler_node(node, self.owner, running.get(name, 0))
            if view.cordoned_by:
                out[name] = view
        return out

    # --- mutations -----------------------------------------------------------------------------

    def cordon(self, node: str, provenance: Provenance) -> None:
        """`spec.unschedulable` with our annotations, and our condition set True."""
        self._edit(node, lambda n: marks.cordon_patch(n, provenance, self.owner))
        self._condition(node, marks.condition(provenance, held=True))
        self._event(node, "Cordon", "Quarantine", provenance, warning=True)

    def taint(self, node: str, key: str, provenance: Provenance) -> None:
        """Our quarantine taint (NoSchedule, or NoExecute when the site asks for it)."""
        self._edit(node, lambda n: marks.taint_patch(n, key, self.taint_effect, provenance,
                                                     self.owner))  # fmt: skip
        self._event(node, "Taint", "Quarantine", provenance, warning=True)

    def drain(self, node: str, provenance: Provenance) -> None:
        """Evict the node's pods; budgets that refuse are retried until the timeout."""
        report = self.evict_all(node)
        if not report.blocked:
            self._blocked_since.pop(provenance.action_id, None)
            self._event(node, "Drain", "Quarantine", provenance, warning=True)
            return
        since = self._blocked_since.setdefault(provenance.action_id, self.clock.now())
        waited = (self.clock.now() - since).total_seconds()
        detail = "; ".join(report.blocked)
        if waited >= self.drain_timeout_s:
            self._blocked_since.pop(provenance.action_id, None)
            raise PermanentError(f"drain {node}: not evicted after {waited:.0f} s: {detail}")
        raise TransientError(f"drain {node}: waiting on disruption budgets: {detail}")

    def resume(self, node: str, provenance: Provenance) -> None:
        """Remove exactly our marks; a person's cordon stays."""
        self._edit(node, lambda n: marks.resume_patch(n, self.owner))
        self._condition(node, {"type": marks.CONDITION, "$patch": "delete"})
        self._event(node, "Resume", "Returned", provenance)

    def reset_gpu(self, node: str, component: str | None, provenance: Provenance) -> None:
        """Not a Kubernetes operation: refused, so the ladder escalates."""
        raise PermanentError(
            f"reset_gpu {node} {component or 'all'}: Kubernetes has no API to reset a GPU; "
            "the GPU operator's or a person's reset applies (the ladder escalates)"
        )

    def reboot(self, node: str, provenance: Provenance) -> None:
        """Not a Kubernetes operation: refused, so the ladder escalates to a person."""
        raise PermanentError(
            f"reboot {node}: Kubernetes has no API to reboot a machine; the node stays "
            "cordoned and tainted for a person (or a cloud provider's repair) to reboot"
        )

    # --- drain -----------------------------------------------------------------------------------

    def evict_all(self, node: str) -> DrainReport:
        """One pass of evictions on the node's pods."""
        name = valid_node_name(node)
        return self.session.call(self._evict_all(name))

    async def _evict_all(self, node: str) -> DrainReport:
        evicted: list[str] = []
        blocked: list[str] = []
        skipped: list[str] = []
        try:
            pods = [p async for p in self.session.client.list(
                Pod, namespace="*", fields={"spec.nodeName": node})]  # fmt: skip
        except Exception as exc:
            raise mapped(exc, f"list pods on {node}") from exc
        for pod in pods:
            meta = pod.metadata
            assert meta is not None and meta.name is not None
            ref = f"{meta.namespace}/{meta.name}"
            if _left_alone(pod):
                skipped.append(ref)
                continue
            eviction = Pod.Eviction(metadata=ObjectMeta(name=meta.name, namespace=meta.namespace))
            try:
                await self.session.client.create(eviction, meta.name, namespace=meta.namespace)
                evicted.append(ref)
            except ApiError as exc:
                code = api_code(exc)
                if code == 404:
                    continue  # gone already
                if code in (429, 500, 503):  # a budget refuses, or several budgets match
                    blocked.append(f"{ref}: {exc.status.message if exc.status else exc}")
                    continue
                raise mapped(exc, f"evict {ref}") from exc
            except Exception as exc:
                raise mapped(exc, f"evict {ref}") from exc
        return DrainReport(node, tuple(evicted), tuple(blocked), tuple(skipped))

    # --- internals -------------------------------------------------------------------------------

    def _event(self, node: str, action: str, reason: str, prov: Provenance,
               warning: bool = False) -> None:  # fmt: skip
        if self.events is not None:
            self.events.record(Regarding("Node", node), action, reason, prov, warning)

    def _cached(self) -> dict[str, dict[str, Any]]:
        self.nodes.wait_synced()
        return {
            n.metadata.name: n.to_dict()
            for n in self.nodes.items()
            if n.metadata and n.metadata.name
        }

    def _running(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for pod in self.pods.items():
            node = pod.spec.nodeName if pod.spec else None
            phase = pod.status.phase if pod.status else None
            if node and phase in _ACTIVE_PHASES:
                counts[node] = counts.get(node, 0) + 1
        return counts

    def _edit(
        self, node: str, patch_for: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> None:
        name = valid_node_name(node)

        async def edit() -> None:
            for _ in range(_CONFLICT_TRIES):
                try:
                    current = (await self.session.client.get(Node, name)).to_dict()
                    patch = patch_for(current)
                    if patch is None:
                        return
                    await self.session.client.patch(Node, name, patch, patch_type=PatchType.MERGE)
                    return
                except ApiError as exc:
                    if api_code(exc) == 409:
                        continue  # changed since we read it: read again
                    raise mapped(exc, f"patch node {name}") from exc
                except Exception as exc:
                    raise mapped(exc, f"patch node {name}") from exc
            raise ConflictError(f"patch node {name}: changed by others {_CONFLICT_TRIES} times")

        self.session.call(edit())

    def _condition(self, node: str, condition: dict[str, Any]) -> None:
        name = valid_node_name(node)

        async def patch() -> None:
            try:
                await self.session.client.patch(
                    Node.Status, name, {"status": {"conditions": [condition]}},
                    patch_type=PatchType.STRATEGIC,
                )  # fmt: skip
            except Exception as exc:
                raise mapped(exc, f"patch node {name} status") from exc

        self.session.call(patch())


def _left_alone(pod: Pod) -> bool:
    meta, status = pod.metadata, pod.status
    if status is not None and status.phase in ("Succeeded", "Failed"):
        return True
    if meta is None or meta.deletionTimestamp is not None:
        return True
    if "kubernetes.io/config.mirror" in (meta.annotations or {}):
        return True
    return any(ref.kind == "DaemonSet" for ref in meta.ownerReferences or [])
