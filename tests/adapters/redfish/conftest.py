from __future__ import annotations

from collections.abc import Iterator

import pytest

from autorecover.testing import redfish


@pytest.fixture(scope="module")
def bmc() -> Iterator[redfish.RedfishRig]:
    """sushy-tools' emulator, really running, with fake systems gpu01..gpu04."""
    rig = redfish.start(["gpu01", "gpu02", "gpu03", "gpu04"])
    try:
        yield rig
    finally:
        rig.stop()
