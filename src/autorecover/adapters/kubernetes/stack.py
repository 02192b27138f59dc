"""Everything the engine needs from one Kubernetes cluster, built on one session.

`KubeStack.connect` loads the kubeconfig (or the in-cluster service account), starts the
node, pod, PyTorchJob and (where the cluster serves them) JobSet and TrainJob informers
(pods and jobs in the watched namespaces, or in all of them) and builds the ports on them:
`nodes` (hardware recovery's scheduler), `jobs` (job recovery's scheduler: `KubeWorkloads`
over every kind), `diagnostics` (dcgmi diag pods; with `nccl_image` set, validation under
load adds the NCCL pair test, an MPIJob: `LoadValidation`), and `lease(namespace, name)` for
leader election. `open_stack` is the scheduler registry's way in (`adapters.schedulers`);
`KubeSettings` and its flag parsers live in `settings.py` (no cluster client there).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightkube.resources.core_v1 import Node, Pod

from autorecover.adapters.kubernetes.client import KubeSession, load_config, serves
from autorecover.adapters.kubernetes.diagnostics import KubeDiagnostics
from autorecover.adapters.kubernetes.events import EventRecorder
from autorecover.adapters.kubernetes.informers import Informer, Informers
from autorecover.adapters.kubernetes.jobs import KubeJobs, PyTorchJob
from autorecover.adapters.kubernetes.jobset_restarts import JobSet
from autorecover.adapters.kubernetes.jobsets import KubeJobSets
from autorecover.adapters.kubernetes.leases import KubeLease
from autorecover.adapters.kubernetes.logs import LogSpool
from autorecover.adapters.kubernetes.names import valid_namespace
from autorecover.adapters.kubernetes.nodes import KubeNodes

# Re-exported: callers that build the settings from flags have always found them here.
from autorecover.adapters.kubernetes.settings import KubeSettings as KubeSettings
from autorecover.adapters.kubernetes.settings import domain_labels_from as domain_labels_from
from autorecover.adapters.kubernetes.settings import namespaces_from as namespaces_from
from autorecover.adapters.kubernetes.trainjobs import KubeTrainJobs, TrainJob
from autorecover.adapters.kubernetes.validation import KubePairValidation
from autorecover.adapters.kubernetes.workloads import KubeWorkloads
from autorecover.adapters.notifiers import LogNotifier
from autorecover.adapters.schedulers import SchedulerOptions, SchedulerStack
from autorecover.adapters.validating import LoadValidation
from autorecover.controllers.hardware.ports import DiagnosticsPort
from autorecover.controllers.ports import Clock
from autorecover.domain.failure_domains import DomainKind, Topology
from autorecover.domain.jobs.settings import SitePolicy

SYNC_S = 60.0


class KubeStack:
    """A session, its informers and the ports built on them."""

    def __init__(self, session: KubeSession, settings: KubeSettings, clock: Clock,
                 site: SitePolicy | None = None) -> None:  # fmt: skip
        self.session = session
        self.settings = settings
        namespaces: list[str | None] = [valid_namespace(n) for n in settings.namespaces]
        namespaces = namespaces or [None]
        self.node_informer: Informer[Node] = Informer(session, Node)
        self.pod_informer = Informers([Informer(session, Pod, namespace=n) for n in namespaces])
        self.job_informer = Informers(
            [Informer[Any](session, PyTorchJob, namespace=n) for n in namespaces]
        )
        # JobSets only where the cluster serves them: an informer of a kind the API does not
        # know would never sync, and the engine would not start.
        self.jobset_informer: Informers[Any] | None = None
        self.trainjob_informer: Informers[Any] | None = None
        if serves(session, JobSet, namespaces[0]):
            self.jobset_informer = Informers(
                [Informer[Any](session, JobSet, namespace=n) for n in namespaces]
            )
            if serves(session, TrainJob, namespaces[0]):  # a TrainJob runs as a JobSet
                self.trainjob_informer = Informers(
                    [Informer[Any](session, TrainJob, namespace=n) for n in namespaces]
                )
        for informer in self._informers():
            informer.start()
        spool = settings.spool or Path(tempfile.mkdtemp(prefix="autorecover-logs-"))
        self.spool = LogSpool(session, spool, clock, max_total_bytes=settings.spool_max_mib << 20,
                              max_file_bytes=(settings.spool_max_mib << 20) // 4,
                              grace_s=settings.pod_log_grace_s)  # fmt: skip
        events = EventRecorder(session, settings.instance)
        self.nodes = KubeNodes(session, self.node_informer, self.pod_informer, clock,
                               taint_effect=settings.taint_effect, events=events)  # fmt: skip
        self.pytorchjobs = KubeJobs(session, self.job_informer, self.pod_informer, clock,
                                    self.spool, site, events=events)  # fmt: skip
        self.jobsets = None
        if self.jobset_informer is not None:
            self.jobsets = KubeJobSets(session, self.jobset_informer, self.pod_informer, clock,
                                       self.spool, site, events=events)  # fmt: skip
        self.trainjobs = None
        if self.jobset_informer is not None and self.trainjob_informer is not None:
            self.trainjobs = KubeTrainJobs(session, self.jobset_informer, self.pod_informer,
                                           clock, self.spool, site, events=events,
                                           trainjobs=self.trainjob_informer)  # fmt: skip
        self.jobs = KubeWorkloads(self.pytorchjobs, self.jobsets, self.spool, self.trainjobs)
        dcgm = KubeDiagnostics(session, clock, settings.diagnostics_namespace,
                               settings.dcgm_image)  # fmt: skip
        self.dcgm, self.pair = dcgm, None
        self.diagnostics: DiagnosticsPort = dcgm
        if settings.nccl_image:
            where = settings.nccl_namespace or settings.diagnostics_namespace
            self.pair = KubePairValidation(session, clock, where, settings.nccl_image,
                                           settings.nccl, self.topology)  # fmt: skip
            self.diagnostics = LoadValidation(inner=dcgm, pair=self.pair)

    @classmethod
    def connect(cls, settings: KubeSettings, clock: Clock,
                site: SitePolicy | None = None) -> KubeStack:  # fmt: skip
        """Load the configuration, start the informers, wait for their first lists."""
        session = KubeSession(load_config(settings.kubeconfig))
        stack = cls(session, settings, clock, site)
        try:
            for informer in stack._informers():
                informer.wait_synced(SYNC_S)
        except Exception:
            session.close()
            raise
        return stack

    def _informers(self) -> list[Informer[Any] | Informers[Any]]:
        found: list[Informer[Any] | Informers[Any]] = [
            self.node_informer, self.pod_informer, self.job_informer]  # fmt: skip
        found += [i for i in (self.jobset_informer, self.trainjob_informer) if i is not None]
        return found

    def topology(self) -> Topology:
        """The nodes' failure domains, from their labels as they are now."""
        return topology_from([n.to_dict() for n in self.node_informer.items()],
                             self.settings.domain_labels)  # fmt: skip

    def lease(self, namespace: str, name: str) -> KubeLease:
        """A Lease for leader election."""
        return KubeLease(self.session, namespace, name)

    def close(self) -> None:
        """Stop the informers and the session."""
        self.session.close()


def open_stack(options: SchedulerOptions, clock: Clock, site: SitePolicy) -> SchedulerStack:
    """`serve --scheduler kubernetes`: connect with `options.kube` and hand over the ports,
    the failure domains as the node labels say now, and Leases for leader election."""
    stack = KubeStack.connect(options.kube, clock, site)
    try:
        topology = stack.topology()
    except Exception:
        stack.close()
        raise
    return SchedulerStack(
        nodes=stack.nodes,
        diagnostics=stack.dcgm,
        pair=stack.pair,
        notifier=LogNotifier(),
        topology=topology,
        jobs=stack.jobs,
        leases=stack.lease,
        close=stack.close,
        pod_logs=stack.spool,
    )


def topology_from(
    nodes: Sequence[Mapping[str, Any]], domain_labels: Sequence[tuple[str, str]]
) -> Topology:
    """Failure domains from node labels: {node: {kind: the label's value}} (pure). Every
    node is listed, with or without domains: the breaker's fleet is the cluster's nodes."""
    kinds = {kind: label for kind, label in domain_labels}
    for kind in kinds:
        DomainKind(kind)  # raises ValueError naming a kind that does not exist
    found: dict[str, dict[str, str]] = {}
    for node in nodes:
        meta = node.get("metadata") or {}
        labels = meta.get("labels") or {}
        mine = {kind: labels[label] for kind, label in kinds.items() if labels.get(label)}
        if meta.get("name"):
            found[meta["name"]] = mine
    return Topology.from_labels(found)
