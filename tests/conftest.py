"""Shared fixtures: the built-in catalog and a scanner, built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.domain.catalog import Catalog, builtin_catalog
from autorecover.parsing.scanning import Scanner

TESTS = Path(__file__).parent
SAMPLES = TESTS / "samples"
CORPUS = TESTS / "corpus"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return builtin_catalog()


@pytest.fixture(scope="session")
def scanner(catalog: Catalog) -> Scanner:
    return Scanner(catalog)
