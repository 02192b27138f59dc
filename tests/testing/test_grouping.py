"""`--dist loadgroup` really keeps a real system's tests on one worker (tests/conftest.py).

Once it did not: xdist's hook read the group marks before the conftest added them, and under
pytest 9.2 it could not change a node id at all, so both workers started every real system.
This runs the suite's own collection on two workers and reads the node ids a worker sends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parents[1]
PLUGIN = """
import os

def pytest_collection_finish(session):
    if os.environ.get("PYTEST_XDIST_WORKER") == "gw0":
        with open(os.environ["GROUPING_OUT"], "w") as out:
            out.write("\\n".join(item.nodeid for item in session.items) + "\\n")
        raise SystemExit(0)  # read the ids, run nothing
"""


def test_a_real_systems_tests_carry_its_folder_as_their_xdist_group(tmp_path: Path) -> None:
    (tmp_path / "grouping_probe.py").write_text(PLUGIN)
    out = tmp_path / "ids.txt"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "GROUPING_OUT": str(out)}
    folders = [TESTS / "adapters" / "redfish", TESTS / "domain" / "test_catalog.py"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
         "-p", "grouping_probe", "-p", "no:cacheprovider", *map(str, folders)],
        cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.exists(), f"no worker reported its ids:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
    ids = out.read_text().splitlines()
    redfish = [i for i in ids if i.startswith("tests/adapters/redfish/")]
    catalog = [i for i in ids if i.startswith("tests/domain/test_catalog.py")]
    assert redfish and catalog, ids[:5]
    assert all(i.endswith("@adapters/redfish") for i in redfish), redfish[:3]
    assert all(i.endswith("@domain/test_catalog.py") for i in catalog), catalog[:3]
