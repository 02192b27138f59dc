"""How the engine talks to its Kubernetes cluster, and the `serve` flags that say so.

Plain data and flag parsing, no cluster client: the scheduler registry's options record
names `KubeSettings`, and importing the registry must not import lightkube.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autorecover.adapters.kubernetes.names import valid_namespace
from autorecover.domain.failure_domains import DomainKind
from autorecover.domain.hardware.validation import NcclSettings

DCGM_IMAGE = "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04"


@dataclass(frozen=True, slots=True)
class KubeSettings:
    """How the engine talks to its cluster (from `serve`'s flags and the Helm values)."""

    kubeconfig: Path | None = None  # None: in-cluster service account, then ~/.kube/config
    namespaces: tuple[str, ...] = ()  # where jobs are watched; () = every namespace
    taint_effect: str = "NoSchedule"  # "NoExecute" when running pods must leave at once
    diagnostics_namespace: str = "default"  # where dcgmi diag pods run (the engine's own)
    dcgm_image: str = DCGM_IMAGE
    spool: Path | None = None  # where pod logs are spooled (a temporary folder when None)
    spool_max_mib: int = 48  # the whole spool's bound: below the volume it lives on
    pod_log_grace_s: float = 30.0  # after start, pods wait this long for their node's agent
    instance: str = "autorecover"  # `reportingInstance` of our Events: the replica's name
    # (domain kind, node label): which label names each node's rack, NVLink domain, IB leaf.
    # GPU feature discovery labels a multi-node NVLink domain `nvidia.com/gpu.clique`.
    domain_labels: tuple[tuple[str, str], ...] = (("nvlink", "nvidia.com/gpu.clique"),)
    # The NCCL pair test (adapters/kubernetes/validation.py): an image with mpirun and
    # all_reduce_perf on its PATH. None: no pair test, validation is the DCGM pod alone.
    nccl_image: str | None = None
    nccl_namespace: str | None = None  # where pair MPIJobs run; None: diagnostics_namespace
    nccl: NcclSettings = field(default_factory=NcclSettings)  # `[validation.nccl]`


def namespaces_from(text: str | None) -> tuple[str, ...]:
    """`a,b` (the Helm chart's AUTORECOVER_NAMESPACES) as validated namespace names."""
    return tuple(valid_namespace(n.strip()) for n in (text or "").split(",") if n.strip())


def domain_labels_from(items: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """`KIND=LABEL` flags (`rack=topology.kubernetes.io/rack`) as pairs; a clear error."""
    out = []
    for item in items:
        kind, sep, label = item.partition("=")
        if not sep or not label or kind not in {k.value for k in DomainKind}:
            allowed = ", ".join(k.value for k in DomainKind)
            raise ValueError(f"--domain-label {item!r}: expected KIND=LABEL, KIND one of {allowed}")
        out.append((kind, label))
    return tuple(out)
