"""Kubernetes Events for what autorecover did, where people already look (`kubectl get events`,
`kubectl describe node|pytorchjob`): the action, the reason, the incident and why.

An event is named after the action id and what was done, so a repeat after a crash is the
same event (409, ignored) rather than a second one. Events are a courtesy: the store holds
the record; a failure to write one is logged and never fails the action it describes.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from lightkube.core.exceptions import ApiError
from lightkube.models.core_v1 import ObjectReference
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.events_v1 import Event

from autorecover.adapters.kubernetes.client import KubeSession, api_code
from autorecover.controllers.ports import Provenance

log = logging.getLogger(__name__)
CONTROLLER = "autorecover.io/engine"  # persisted: `reportingController` of every event
NODE_EVENTS_NAMESPACE = "default"  # where Kubernetes keeps events about nodes
_NOTE = 1024  # the API's limit on `note`
EVENT_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class Regarding:
    """The object an event is about."""

    kind: str
    name: str
    namespace: str = ""  # "" for a node
    api_version: str = "v1"
    uid: str | None = None


def event_name(regarding: Regarding, action: str, prov: Provenance) -> str:
    """One name per (object, action, action id): a repeat is the same event."""
    digest = hashlib.sha256(f"{prov.action_id}\0{action}".encode()).hexdigest()[:16]
    return f"{regarding.name[:200]}.autorecover-{digest}"


def note_of(prov: Provenance) -> str:
    """The event's text: why, on what evidence, which incident."""
    parts = [prov.why]
    if prov.incident:
        parts.append(f"incident {prov.incident}")
    if prov.evidence:
        parts.append(f"evidence: {prov.evidence[0]}")
    return "; ".join(parts)[:_NOTE]


class EventRecorder:
    """Writes `events.k8s.io/v1` Events, best effort."""

    def __init__(self, session: KubeSession, instance: str = "autorecover") -> None:
        self.session = session
        self.instance = instance[:128]

    def record(
        self, regarding: Regarding, action: str, reason: str, prov: Provenance,
        warning: bool = False,
    ) -> None:  # fmt: skip
        """Write one event from a port's thread; log (never raise) when it cannot."""
        try:
            self.session.call(self.write(regarding, action, reason, prov, warning),
                              timeout_s=EVENT_TIMEOUT_S)  # fmt: skip
        except Exception as exc:  # a courtesy: the action it describes stands regardless
            log.warning("event %s on %s %s not written: %s", action, regarding.kind,
                        regarding.name, exc)  # fmt: skip

    async def write(
        self, regarding: Regarding, action: str, reason: str, prov: Provenance,
        warning: bool = False,
    ) -> None:  # fmt: skip
        """Write one event on the session's loop; log (never raise) when the API refuses."""
        namespace = regarding.namespace or NODE_EVENTS_NAMESPACE
        event = Event(
            metadata=ObjectMeta(name=event_name(regarding, action, prov), namespace=namespace),
            eventTime=prov.at, action=action, reason=reason, note=note_of(prov),
            type="Warning" if warning else "Normal",
            reportingController=CONTROLLER, reportingInstance=self.instance,
            regarding=ObjectReference(kind=regarding.kind, name=regarding.name,
                                      namespace=regarding.namespace or None,
                                      apiVersion=regarding.api_version, uid=regarding.uid),
        )  # fmt: skip
        try:
            await self.session.client.create(event)
        except ApiError as exc:
            if api_code(exc) != 409:  # 409: written before (a repeat of the same action)
                log.warning("event %s on %s %s not written: %s", action, regarding.kind,
                            regarding.name, exc)  # fmt: skip
        except Exception as exc:  # a courtesy: the action it describes stands regardless
            log.warning("event %s on %s %s not written: %s", action, regarding.kind,
                        regarding.name, exc)  # fmt: skip


def job_regarding(job: dict[str, Any], kind: str = "PyTorchJob",
                  api_version: str = "kubeflow.org/v1") -> Regarding:  # fmt: skip
    """A job (a PyTorchJob unless told) as an event's subject."""
    meta = job.get("metadata") or {}
    return Regarding(kind, meta.get("name", ""), meta.get("namespace", ""), api_version,
                     meta.get("uid"))  # fmt: skip
