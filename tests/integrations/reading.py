"""Reading what a real run wrote: the project's parser, and what job recovery makes of it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from autorecover.controllers.jobs.watching import AttemptWatch
from autorecover.parsing.scanning import Scanner
from autorecover.parsing.telemetry_records import TelemetryRecord, parse_telemetry


def records(path: Path, event: str | None = None) -> list[TelemetryRecord]:
    """Every line of ``path`` parsed (each must be a telemetry record), optionally one event."""
    text = path.read_text()
    parsed = [parse_telemetry(line) for line in text.splitlines()]
    assert parsed and all(r is not None and r.supported for r in parsed), text
    return [r for r in parsed if r is not None and (event is None or r.event == event)]


def spans(path: Path, name: str) -> list[TelemetryRecord]:
    """The ``span_end`` records of spans called ``name``."""
    return [r for r in records(path, "span_end") if r.name == name]


def watched(scanner: Scanner, outputs: dict[str, Path]) -> AttemptWatch:
    """What job recovery reads from these outputs (node name -> file), read to the end."""
    watch = AttemptWatch(job="test", attempt=1, started=datetime.now(UTC), scanner=scanner)
    for node, path in outputs.items():
        watch.feed(node, path.read_bytes(), final=True)
    return watch
