"""Docker's json-file log records turned into the CRI records the reader already knows.

Docker's default log driver (and the kubelet's files on nodes that ran dockershim, before
Kubernetes 1.24) writes one JSON object per line of a container's output:
`{"log":"<text>\\n","stream":"stderr","time":"2024-05-01T10:00:00.123456789Z"}`. The text
is JSON-escaped (Go's encoder also writes `<`, `>` and `&` as `\\u003c`, `\\u003e`, `\\u0026`),
so a signature's words and anchors are not in the raw line. A file whose first line is such a
record has each record rewritten as `<time> <stream> <F|P> <text>` (a record without its
newline is a piece of a longer line: `P`, as the CRI format marks it); the time is the
collector's, with its zone, read like any CRI line's (`parsing.lines`). A line that is not a
record is left as it is. Pure: text in, text out, the same number of lines.
"""

from __future__ import annotations

import json

_START = '{"log":'


def from_docker_json(text: str) -> str:
    """`text` with Docker's json-file records as CRI records; `text` itself if it has none."""
    if not text.lstrip().startswith(_START):
        return text
    return "\n".join(_record(line) for line in text.split("\n"))


def _record(line: str) -> str:
    if not line.startswith(_START):
        return line
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    log, stream, time = record.get("log"), record.get("stream"), record.get("time")
    if not isinstance(log, str) or stream not in ("stdout", "stderr") or not isinstance(time, str):
        return line
    whole = log.endswith("\n")
    text = log[:-1] if whole else log
    text = text.replace("\r", "").replace("\n", " ")  # one line stays one line
    return f"{time} {stream} {'F' if whole else 'P'} {text}"
