"""One pass of the composed engine, as the end-to-end rigs (Slurm, Kubernetes) run it."""

from __future__ import annotations

from collections.abc import Sequence

from autorecover.adapters.store.sqlite import SqliteJobStore
from autorecover.agent.probes.base import NodeProbe
from autorecover.controllers.hardware.controller import HardwareController
from autorecover.controllers.jobs.controller import JobRecoveryController, deliver_handovers
from autorecover.controllers.ports import Clock


def one_pass(
    probes: Sequence[NodeProbe], hardware: HardwareController, jobs: JobRecoveryController,
    job_store: SqliteJobStore, clock: Clock, *, tick_hardware: bool = True,
) -> None:  # fmt: skip
    """Node agents -> hardware.ingest, job recovery, hand-overs, then a hardware tick."""
    now = clock.now()
    signals = [s for p in probes for s in p.poll(now).signals]
    if signals:
        hardware.ingest(signals)
    jobs.run_once()
    deliver_handovers(job_store, hardware.ingest, clock.now())
    if tick_hardware:
        hardware.tick()
