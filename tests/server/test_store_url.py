"""Opening the engine's store by URL, and the journaled fake cluster a serving engine uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.adapters.fakes.journaled import (
    Journal,
    JournalDiagnostics,
    JournalScheduler,
    effects,
)
from autorecover.adapters.store.memory_engine import MemoryEngineStore
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.adapters.store.url import StoreUrlError, open_store, redact, sqlite_path
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.remediation import DiagnosticLevel, Verdict


def test_sqlite_urls_name_relative_and_absolute_files(tmp_path: Path) -> None:
    assert sqlite_path("sqlite:///state.db") == "state.db"
    assert sqlite_path("sqlite:////var/lib/a b.db") == "/var/lib/a b.db"
    assert sqlite_path("sqlite:////var/lib/a%20b.db") == "/var/lib/a b.db"
    store = open_store(f"sqlite:///{tmp_path / 'x.db'}")
    assert isinstance(store, SqliteStore) and (tmp_path / "x.db").exists()
    store.close()
    assert isinstance(open_store("memory://"), MemoryEngineStore)


@pytest.mark.parametrize("url", ["mysql://db", "sqlite:///", "state.db", "sqlite://host/x"])
def test_other_urls_are_refused(url: str) -> None:
    with pytest.raises(StoreUrlError):
        open_store(url)


def test_passwords_never_reach_the_log() -> None:
    assert redact("postgresql://ar:s3cret@db:5432/ar") == "postgresql://ar:***@db:5432/ar"
    assert redact("postgresql://db/ar") == "postgresql://db/ar"


def _prov(aid: str, clock: FakeClock) -> Provenance:
    return Provenance(aid, "autorecover", "why", clock.now())


def test_the_fake_cluster_outlives_a_restart_and_ignores_a_torn_line(tmp_path: Path) -> None:
    path, clock = tmp_path / "cluster.jsonl", FakeClock()
    journal = Journal(path)
    scheduler = JournalScheduler(clock, journal)
    diagnostics = JournalDiagnostics(clock, journal, duration_s=10)
    scheduler.cordon("n1", _prov("n1/1/cordon", clock))
    scheduler.taint("n1", "autorecover.io/quarantined", _prov("n1/1/taint", clock))
    scheduler.cordon("n1", _prov("n1/1/cordon", clock))  # again after a crash: no effect
    diagnostics.start("n1", DiagnosticLevel.QUICK, _prov("n1/2/diagnose", clock))
    with path.open("a") as f:
        f.write('{"port": "scheduler", "kind": "reboot", "no')  # cut short by kill -9
    clock.advance(10)
    again = Journal(path)
    scheduler2 = JournalScheduler(clock, again)
    diagnostics2 = JournalDiagnostics(clock, again, duration_s=10)
    view = scheduler2.observe(["n1"])["n1"]
    assert view.cordoned_by == {"autorecover"} and view.taints == {"autorecover.io/quarantined"}
    result = diagnostics2.result("n1/2/diagnose")
    assert result is not None and result.verdict is Verdict.PASS
    scheduler2.cordon("n1", _prov("n1/1/cordon", clock))
    assert effects(path) == {"n1/1/cordon": 1, "n1/1/taint": 1, "n1/2/diagnose": 1}


def test_serve_names_a_sqlite_file_it_cannot_open_in_one_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from autorecover.cli.engine import serve_cmd

    missing = tmp_path / "no-such-folder" / "state.db"
    args = ["--store", f"sqlite:///{missing}", "--insecure-no-auth"]
    result = CliRunner().invoke(serve_cmd, args)
    assert result.exit_code == 1
    assert f"cannot open the SQLite store {missing}" in result.output
    assert "Traceback" not in result.output
