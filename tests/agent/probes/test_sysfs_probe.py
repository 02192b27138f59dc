"""What the sysfs probes share: a read's errors become the probe's status, never raised."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pytest

from agent.support import at
from autorecover.agent.probes.base import ProbeStatus
from autorecover.agent.probes.sysfs import SysfsProbe
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.signals import NodeSignal, Probe


class NothingHereError(Exception):
    """The adapter's "no such devices on this node"."""


class Failing(SysfsProbe[str]):
    kind = Probe.PCIE
    unavailable = NothingHereError
    error: Exception = OSError()

    def _read(self) -> Sequence[str]:
        raise self.error

    def _interpret(self, found: Sequence[str], now: datetime) -> list[NodeSignal]:
        raise AssertionError("nothing was read")


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NothingHereError("no PCI device tree"), ProbeStatus.UNAVAILABLE),
        (PermissionError("aer_dev_fatal: permission denied"), ProbeStatus.ERROR),
    ],
)
def test_a_failed_read_is_the_probes_status(
    error: Exception, status: ProbeStatus, thresholds: Thresholds, catalog: Catalog
) -> None:
    probe = Failing(node="n1", root=Path("/nowhere"), thresholds=thresholds, catalog=catalog)
    probe.error = error
    result = probe.poll(at(0))
    assert (result.probe, result.status, result.signals, result.reason) == (
        Probe.PCIE, status, (), str(error),
    )  # fmt: skip
