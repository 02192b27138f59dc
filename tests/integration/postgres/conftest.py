"""The PostgreSQL tier's fixtures: one real server per session, one fresh database per test,
and every store kind behind one parameter, so the same contract runs on all of them."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from autorecover.adapters.store.base import EngineStore
from autorecover.adapters.store.url import open_store
from autorecover.testing.postgres import Cluster, start

KINDS = ["memory", "sqlite", "postgres"]
_names = itertools.count(1)

Opener = Callable[[], EngineStore]


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    cluster = start()  # raises when PostgreSQL is missing: this tier is never skipped
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    name = f"autorecover_t{next(_names)}"
    url = postgres_cluster.create_database(name)
    yield url
    postgres_cluster.drop_database(name)


@pytest.fixture(params=KINDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of each kind: one empty store per test."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state.db'}"
    return "memory://"


@pytest.fixture
def opener(store_url: str) -> Iterator[Opener]:
    """Opens the test's store again and again (memory: the same one), closing all at the end."""
    opened: list[EngineStore] = []
    shared: list[EngineStore] = []

    def open_() -> EngineStore:
        if store_url == "memory://":
            if not shared:
                shared.append(open_store(store_url))
            return shared[0]
        store = open_store(store_url)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def store(opener: Opener) -> EngineStore:
    return opener()
