"""Every kind of job the engine recovers on one cluster, as one `JobSchedulerPort`.

Job recovery has one scheduler port; on Kubernetes a job is a PyTorchJob (`namespace/name`),
a JobSet (`jobset:namespace/name`) or a Kubeflow TrainJob (`trainjob:namespace/name`,
`names.py`). `KubeWorkloads` lists them all and hands
each call to the port of the job's kind. They share one log spool, which forgets a job only
when no kind watches it any more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from autorecover.adapters.kubernetes.logs import LogSpool, forget_others
from autorecover.adapters.kubernetes.names import JOBSET_PREFIX, TRAINJOB_PREFIX
from autorecover.controllers.jobs.records import WatchedJob
from autorecover.controllers.ports import PermanentError, Provenance


class KindPort(Protocol):
    """One kind's port, listing without pruning the shared spool."""

    def collect(self) -> list[WatchedJob]:
        """The kind's watched jobs."""
        ...

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """What the attempt wrote on `node`."""
        ...

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Requeue one job of this kind."""
        ...

    def stop(self, job: str, provenance: Provenance) -> None:
        """Stop one job of this kind."""
        ...


@dataclass
class KubeWorkloads:
    """`JobSchedulerPort` over PyTorchJobs and, where they are installed, JobSets and
    TrainJobs."""

    pytorchjobs: KindPort
    jobsets: KindPort | None
    spool: LogSpool
    trainjobs: KindPort | None = None

    def watched(self) -> Sequence[WatchedJob]:
        """Every watched job of every kind."""
        out = list(self.pytorchjobs.collect())
        for kind in (self.jobsets, self.trainjobs):
            if kind is not None:
                out += kind.collect()
        forget_others(self.spool, {w.job for w in out})
        return out

    def read_output(self, job: str, attempt: int, node: str, offset: int, limit: int) -> bytes:
        """The spooled output of the attempt's pods on `node`."""
        return self.spool.read(job, attempt, node, offset, limit)

    def requeue(
        self, job: str, exclude: Sequence[str], delay_s: float, provenance: Provenance
    ) -> None:
        """Requeue through the job's kind."""
        self._port(job).requeue(job, exclude, delay_s, provenance)

    def stop(self, job: str, provenance: Provenance) -> None:
        """Stop through the job's kind."""
        self._port(job).stop(job, provenance)

    def _port(self, job: str) -> KindPort:
        for prefix, kind, port in ((JOBSET_PREFIX, "JobSet", self.jobsets),
                                   (TRAINJOB_PREFIX, "TrainJob", self.trainjobs)):  # fmt: skip
            if job.startswith(prefix):
                if port is None:
                    raise PermanentError(f"{job}: {kind} is not served by this cluster")
                return port
        return self.pytorchjobs
