"""The real clock: the one place outside tests that reads the time."""

from __future__ import annotations

from datetime import UTC, datetime


class SystemClock:
    """Timezone-aware UTC wall time (implements `controllers.ports.Clock`)."""

    def now(self) -> datetime:
        """The current time."""
        return datetime.now(UTC)
