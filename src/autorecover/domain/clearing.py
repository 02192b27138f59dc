"""Suspects that something other than their hardware explains, and where hang stacks point.

* **Fabric-wide.** The same kind of network error naming three or more nodes (or most of a
  job's) is the fabric they share, not that many adapters.
* **Cleared.** A node the cloud reclaimed, with only second-hand evidence against it; a node
  that merely stopped first while the job was stalled on shared storage.
* **Hang outliers** (`domain/hangs.py`: by the stacks or by the flight recorder) name their
  node only with a hardware line of its own, and never on more than a third of the nodes.

Pure functions of the findings; `domain/attribution.py` uses them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from autorecover.domain.hangs import COLLECTIVE_OUTLIER, STACK_OUTLIER
from autorecover.domain.records import Blame, Finding, JobRecord
from autorecover.domain.shape import family, own_line

# What takes a node away without any fault of its hardware, and the evidence that is only
# second-hand (others saying it failed or went quiet) or a stall on shared storage.
RECLAIM_PREFIXES = ("cloud.",)
RECLAIM_WEIGHT = 80
SECOND_HAND = frozenset({
    "node.reported_failed", "nccl.peer_blamed", "node.stopped_first", "job.progress_stopped",
})  # fmt: skip
STORAGE_STALLS = frozenset({
    "kernel.hung_task", "storage.shared_fs_wait", "storage.nfs_not_responding",
    "storage.lustre_connection_lost", "storage.lustre_request_expired",
    "storage.lustre_rpc_failed", "storage.lustre_evicted",
    # the other shared file systems' clients losing their servers (catalog round 8)
    "storage.ceph_evicted", "storage.ceph_mds_unresponsive", "storage.ceph_osd_request_timeout",
    "storage.beegfs_comm_error", "storage.beegfs_unreachable",
    "storage.gpfs_lost_membership", "storage.gpfs_daemon_down",
})  # fmt: skip


def fabric_wide(
    job: JobRecord, suspects: Sequence[str], cases: Mapping[str, Sequence[Finding]]
) -> bool:
    """Three or more nodes (or most of a job's) suspected for network errors alone: several
    adapters failing at once is far less likely than the fabric they share."""
    if len(suspects) < 3 and not (len(suspects) >= 2 and len(suspects) * 2 > len(job.nodes)):
        return False
    for node in suspects:
        case = cases.get(node)
        if not case:
            return False
        if family(max(case, key=lambda f: f.weight).signal) != "network":
            return False
    return True


def cleared(
    job: JobRecord,
    seen: Sequence[Finding],
    cases: Mapping[str, Sequence[Finding]],
    suspects: Sequence[str],
) -> list[str]:
    """Suspects whose only case against them is explained by something that is no fault of
    their hardware:

    * **reclaimed**: the cloud or cluster took the node away (a spot or preemption notice,
      an autoscaler or Karpenter removing it, weight >= 80) and what points at it is only
      second-hand (the scheduler saying it failed, peers losing it, its output stopping);
    * **stalled on storage**: a process of the job is blocked in the kernel or a shared file
      system (a hung task, NFS/Lustre/GPFS waits) on any node (the storage is shared, so
      which node stopped first is chance) and the node has no hardware line of weight
      >= 60 of its own.
    """
    reclaimed: set[str] = set()
    stalled: set[str] = set()
    for f in seen:
        if (
            f.blame is Blame.TRANSIENT
            and f.weight >= RECLAIM_WEIGHT
            and f.signal.startswith(RECLAIM_PREFIXES)
        ):
            reclaimed.add(f.node)
            named = job.node_named(f.detail("node"))
            if named is not None:
                reclaimed.add(named)
        if f.signal in STORAGE_STALLS:
            stalled.update(job.nodes)
    out = []
    for node in suspects:
        case = cases.get(node, ())
        if node in reclaimed and all(f.signal in SECOND_HAND for f in case):
            continue
        if node in stalled and not any(f.weight >= 60 and f.signal not in SECOND_HAND
                                       for f in case):  # fmt: skip
            continue
        out.append(node)
    return out


def corroborated_outliers(
    job: JobRecord, outliers: Sequence[Finding], seen: Sequence[Finding]
) -> list[str]:
    """Nodes of ranks the hang stacks or flight recorders single out that also show a hardware
    line of their own (any weight): the stall sits there. Never more than a third of the
    job's nodes."""
    nodes = sorted({f.node for f in outliers})
    if not nodes or len(nodes) * 3 > len(job.nodes):
        return []
    return [
        n for n in nodes
        if any(f.node == n and f.blame is Blame.HARDWARE and f.line > 0 and own_line(f)
               for f in seen)
    ]  # fmt: skip


def outlier_reason(outliers: Sequence[Finding]) -> str:
    """Which ranks the hang stacks and the flight recorders single out, in words."""
    parts = []
    stacks = [f for f in outliers if f.signal == STACK_OUTLIER][:3]
    if stacks:
        ranks = ", ".join(
            f"rank {f.rank} on {f.node}" + (f" in {f.detail('where')}" if f.detail("where") else "")
            for f in stacks
        )
        parts.append(f"the hang stacks single out {ranks}: the others wait for it in a collective")
    flight = [f for f in outliers if f.signal == COLLECTIVE_OUTLIER][:3]
    if flight:
        ranks = ", ".join(f"rank {f.rank} on {f.node} ({f.detail('where')})" for f in flight)
        parts.append(f"the flight recorder singles out {ranks}")
    return "; ".join(parts)
