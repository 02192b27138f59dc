"""Shared fixtures: the built-in catalog and a scanner, built once per session.

`./scripts/test` (and so CI) runs the suite on two pytest-xdist workers, `--dist loadgroup`
(`AUTORECOVER_TEST_WORKERS=0` runs it serially). Each test is put in a group: a real system's
whole folder (its session fixture starts the system once, on one worker), else its own file
(module fixtures are built once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.domain.catalog import Catalog, builtin_catalog
from autorecover.parsing.scanning import Scanner
from autorecover.testing.stopping import interrupt_on_sigterm

TESTS = Path(__file__).parent
SAMPLES = TESTS / "samples"
CORPUS = TESTS / "corpus"
# Folders whose tests share one real system started per session (see each one's conftest.py).
SYSTEMS = (
    "integration/slurm",
    "integration/kubernetes",
    "integration/postgres",
    "integration/alertmanager",
    "integrations",
    "deploy",
    "adapters/redfish",
    "agent",
)


def pytest_configure(config: pytest.Config) -> None:
    """A run stopped with SIGTERM (a CI timeout) tears its real systems down, as on Ctrl-C."""
    interrupt_on_sigterm()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """One xdist group per real system's folder, else per file (ignored without xdist).

    First among the hooks: xdist's own (its worker plugin, registered after this conftest and
    so called before it otherwise) turns the marks into the node ids `--dist loadgroup` splits
    on. Until 2026-12-05 it ran first and found none (and under pytest 9.2 it cannot change a
    node id at all: pyproject.toml keeps pytest below 9.2): each test was its own group and
    both workers started each real system."""
    for item in items:
        where = item.path.relative_to(TESTS).as_posix()
        group = next((s for s in SYSTEMS if where.startswith(f"{s}/")), where)
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return builtin_catalog()


@pytest.fixture(scope="session")
def scanner(catalog: Catalog) -> Scanner:
    return Scanner(catalog)
