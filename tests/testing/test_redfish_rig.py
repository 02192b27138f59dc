"""The Redfish rig's emulator does not outlive the process that started it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

CHILD = """
from autorecover.testing import redfish
rig = redfish.start(["gpu01"])
print(rig.process.pid, flush=True)
"""  # ends without rig.stop(): as a test worker that ends before its fixtures' teardown


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_the_emulator_ends_with_the_process_that_started_it() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, check=True
    )
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(pid, 9)
    pytest.fail(f"emulator {pid} still running 15 s after its parent ended")
