"""The agent's state file: kernel-log cursors and counter baselines that survive a restart.

Written atomically (a temporary file renamed over the old one), so a crash mid-write leaves
the previous state, never half of one. A missing or unreadable file is an empty state: the
agent starts afresh rather than refusing to run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

STATE_FORMAT = "autorecover.agent-state/1"


class StateFile:
    """One JSON document of per-probe state, keyed by probe name."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.errors = 0  # unreadable or unwritable states met (logged by the caller)

    def load(self) -> dict[str, Any]:
        """The saved state, or {} when there is none or it cannot be read."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError):
            self.errors += 1
            return {}
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            self.errors += 1
            return {}
        probes = data.get("probes")
        return probes if isinstance(probes, dict) else {}

    def save(self, probes: dict[str, Any]) -> bool:
        """Replace the saved state; False (and counted) when it cannot be written."""
        document = {"format": STATE_FORMAT, "probes": probes}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".state-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(document, fh, sort_keys=True)
                    fh.flush()
                    os.fsync(fh.fileno())
                Path(tmp).replace(self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, TypeError, ValueError):
            self.errors += 1
            return False
        return True
