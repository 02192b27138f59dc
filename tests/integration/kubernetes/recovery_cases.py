"""What the end-to-end recovery tests share, whatever the workload (PyTorchJob, JobSet,
TrainJob): the lines a rank prints, and how a test reads the outcome off the composed rig."""

from __future__ import annotations

from autorecover.controllers.jobs.records import IncidentPhase, JobIncident
from autorecover.testing.kubernetes.rig import Rig

# The catalog's NCCL watchdog line (transient), with its glog stamp made current.
NCCL_WATCHDOG = (
    "[rank2]:[E{stamp} ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, "
    "NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out."
)
# An application error: the same traceback from every rank `r`.
TRACEBACK = [
    "[rank{r}]: Traceback (most recent call last):",
    '[rank{r}]:   File "/workspace/train.py", line 14, in <module>',
    "[rank{r}]:     from flash_attn import flash_attn_varlen_func",
    "[rank{r}]: ModuleNotFoundError: No module named 'flash_attn'",
]
QUEUE = {"kai.scheduler/queue": "default-queue"}  # KAI's queue label, on the pods


def closed_incident(rig: Rig, job: str) -> JobIncident | None:
    """The job's newest incident once it is closed."""
    found = rig.job_store.incidents(job)
    return found[0] if found and found[0].phase is IncidentPhase.CLOSED else None


def out_of_service(rig: Rig) -> list[str]:
    """The nodes cordoned now."""
    return sorted(n for n in rig.kube.cluster.node_names
                  if rig.kube.node(n)["spec"].get("unschedulable"))  # fmt: skip
