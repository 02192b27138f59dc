"""Whole processes: uncaught exceptions, fork, import side effects, the stdlib-only claim.

Each case runs a small script in a fresh interpreter (``subprocess`` with a timeout) and
reads what it left behind with the parsers in autorecover.parsing.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autorecover.parsing.telemetry_records import TelemetryRecord, parse_telemetry

TIMEOUT_S = 60


def _run(tmp: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` from a file (so tracebacks show source lines)."""
    path = tmp / "script.py"
    path.write_text(textwrap.dedent(script))
    return subprocess.run(
        [sys.executable, str(path), *args],
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip


def _records(path: Path) -> list[TelemetryRecord]:
    records = [parse_telemetry(line) for line in path.read_text().splitlines()]
    assert all(r is not None for r in records), path.read_text()
    return [r for r in records if r is not None]


def test_uncaught_exception_in_the_main_thread(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    proc = _run(
        tmp_path,
        """
        import sys
        from autorecover import telemetry

        def previous(kind, exc, tb):
            print("PREVIOUS HOOK", kind.__name__, file=sys.stderr)

        sys.excepthook = previous
        rec = telemetry.init(output=sys.argv[1], formats=("autorecover", "nvidia"), env={})
        for i in range(7):
            rec.step(i)
        raise RuntimeError("boom at step 6")
        """,
        str(out),
    )
    assert proc.returncode == 1
    assert "PREVIOUS HOOK RuntimeError" in proc.stderr  # chained to the hook it replaced
    records = _records(out)
    errors = [r for r in records if r.event == "error"]
    ours, theirs = (next(r for r in errors if r.format == f) for f in ("autorecover", "nvidia"))
    assert (ours.error_type, ours.error_message, ours.step) == ("RuntimeError",
                                                                "boom at step 6", 6)  # fmt: skip
    assert ours.get_bool("uncaught") is True and ours.get_bool("fatal") is True
    assert ours.get_str("thread") == "MainThread"
    traceback = ours.get_str("traceback")
    assert traceback is not None and 'raise RuntimeError("boom at step 6")' in traceback
    assert (theirs.error_type, theirs.error_message) == ("RuntimeError", "boom at step 6")
    # after the error, exit still reported the partial window
    assert [r.step for r in records if r.event == "summary" and r.format == "autorecover"] == [6]


def test_uncaught_exception_in_a_worker_thread(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    proc = _run(
        tmp_path,
        """
        import sys, threading
        from autorecover import telemetry

        rec = telemetry.init(output=sys.argv[1], env={})
        rec.step(0)

        def work():
            raise ValueError("bad shard 17")

        t = threading.Thread(target=work, name="loader-3", daemon=True)
        t.start()
        t.join(10)
        rec.step(1)
        print("main thread finished")
        """,
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert "main thread finished" in proc.stdout
    assert "Exception in thread loader-3" in proc.stderr  # the default hook still ran
    (error,) = [r for r in _records(out) if r.event == "error"]
    assert (error.error_type, error.error_message, error.get_str("thread")) == (
        "ValueError", "bad shard 17", "loader-3")  # fmt: skip
    assert error.get_bool("uncaught") is True and error.get_bool("fatal") is False
    assert "work" in (error.get_str("traceback") or "")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_forked_child_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    proc = _run(
        tmp_path,
        """
        import os, sys
        from autorecover import telemetry

        rec = telemetry.init(output=sys.argv[1], env={}, log_interval=1)
        rec.step(0)
        rec.flush()
        pid = os.fork()
        if pid == 0:  # a DataLoader-style worker: telemetry must stay silent here
            rec.step(99)
            rec.error(message="from the child")
            rec.close()
            os._exit(0)
        os.waitpid(pid, 0)
        rec.step(1)
        """,
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    records = [r for r in _records(out) if r.format == "autorecover"]
    assert [r.event for r in records].count("init") == 1
    assert [r.step for r in records if r.event == "step"] == [0, 1]
    assert not [r for r in records if r.event == "error"]


def test_import_has_no_side_effects(tmp_path: Path) -> None:
    proc = _run(
        tmp_path,
        """
        import os, sys, threading
        before = (sys.excepthook, threading.excepthook, threading.active_count())
        os.environ["RANK"] = "not read at import"
        import autorecover.telemetry
        import autorecover.telemetry.integrations.lightning
        import autorecover.telemetry.integrations.huggingface
        after = (sys.excepthook, threading.excepthook, threading.active_count())
        assert before == after, (before, after)
        assert autorecover.telemetry.current() is None
        assert "lightning" not in sys.modules and "transformers" not in sys.modules
        print("ok")
        """,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_standard_library_only(tmp_path: Path) -> None:
    """Import and use the library with every non-stdlib import blocked."""
    out = tmp_path / "t.jsonl"
    proc = _run(
        tmp_path,
        """
        import sys

        preloaded = set(sys.modules)  # site and .pth imports happen before this script

        class Block:
            def find_spec(self, name, path=None, target=None):
                top = name.partition(".")[0]
                if top in sys.stdlib_module_names or name == "autorecover":
                    return None  # let the normal finders handle it
                if name == "autorecover.telemetry" or name.startswith("autorecover.telemetry."):
                    return None
                raise ImportError(f"blocked non-stdlib import: {name}")

        sys.meta_path.insert(0, Block())
        from autorecover import telemetry

        rec = telemetry.init(output=sys.argv[1], formats=("autorecover", "nvidia"),
                             log_interval=2, env={"RANK": "1", "LOCAL_RANK": "1",
                             "GROUP_RANK": "0", "WORLD_SIZE": "2"})
        for i in range(5):
            with rec.phase("forward"):
                pass
            rec.step(i, tokens=10, loss=0.5)
        with rec.checkpoint_save(sys.argv[1] + ".ckpt"):
            open(sys.argv[1] + ".ckpt", "w").write("x")
        rec.error(message="explicit")
        rec.close()
        blocked = [m for m in set(sys.modules) - preloaded
                   if m.partition(".")[0] not in sys.stdlib_module_names
                   and not m.startswith("autorecover")]
        assert not blocked, blocked
        print("clean exit")
        """,
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "clean exit"
    events = {(r.format, r.event) for r in _records(out)}
    assert {("autorecover", "init"), ("autorecover", "step"), ("autorecover", "summary"),
            ("autorecover", "span_end"), ("nvidia", "step")} <= events  # fmt: skip
