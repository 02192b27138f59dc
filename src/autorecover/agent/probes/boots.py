"""The node restarted without the agent being stopped: the previous boot ended in a crash.

An orderly shutdown or reboot stops the agent first (systemd stops its services, the kubelet
its pods, with SIGTERM), and the agent's last saved state says so. A kernel panic, a hardware
watchdog, a lost power supply or a tripped breaker give it no chance: the next boot finds a
state saved while it ran, under another boot id (`/proc/sys/kernel/random/boot_id`, the host's
even inside a container). That is `node.hard_restart`, once, as the agent starts: weak hardware
evidence (the node went down under whatever it ran), which job recovery reads beside the job's
own lines and hardware recovery watches for a repeat (a second within a day stops new jobs).

The first run (nothing saved), a restart of the agent alone (the same boot id) and an agent that
could not read the boot id raise nothing. An agent killed outright (SIGKILL, its own crash)
before a clean reboot reads as a hard restart: the state cannot tell the two apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from autorecover.agent.probes.base import ProbeResult, ProbeStatus, make_signal
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.restarts import HARD_RESTART  # the key attribution reads from bundles
from autorecover.domain.signals import Probe


class BootProbe:
    """Compares this boot with the one the agent last ran under, once, as the agent starts."""

    kind = Probe.BOOT

    def __init__(
        self,
        *,
        node: str,
        boot_id: Callable[[], str],
        booted_at: Callable[[], datetime | None],
        thresholds: Thresholds,
        catalog: Catalog,
    ) -> None:
        self.node = node
        self._boot_id = boot_id
        self._booted_at = booted_at
        self._meaning = thresholds.meaning(HARD_RESTART, catalog)
        self._current = ""
        self._saved: str | None = None  # the boot id the last saved state was written under
        self._clean = False  # ... and whether that state was the agent's last, on a clean stop
        self._checked = False
        self._stopping = False

    def poll(self, now: datetime) -> ProbeResult:
        if self._checked:
            return ProbeResult(self.kind, ProbeStatus.OK)
        self._checked = True
        self._current = self._boot_id()
        if not self._current:
            return ProbeResult(self.kind, ProbeStatus.UNAVAILABLE, (), "no boot id to read")
        if self._saved is None or self._saved == self._current or self._clean:
            return ProbeResult(self.kind, ProbeStatus.OK)
        at = self._booted_at() or now
        text = (
            f"the node booted at {at:%Y-%m-%dT%H:%M:%SZ} (boot {self._current[:8]}) without "
            f"the agent being stopped in the boot before ({self._saved[:8]}): that boot ended "
            "in a crash, a watchdog reset or a power loss, not a shutdown"
        )
        boots = {"boot_id": self._current, "previous_boot_id": self._saved}
        signal = make_signal(node=self.node, probe=self.kind, key=HARD_RESTART,
                             meaning=self._meaning, at=at, text=text, details=boots)  # fmt: skip
        return ProbeResult(self.kind, ProbeStatus.OK, (signal,))

    def stopping(self) -> None:
        """The agent stops in order: its last state says so (a shutdown, not a crash)."""
        self._stopping = True

    def state(self) -> dict[str, Any]:
        current = self._current or self._boot_id()
        if not current:
            return {}
        return {"boot_id": current, "clean": self._stopping}

    def restore(self, state: Mapping[str, Any]) -> None:
        saved = state.get("boot_id")
        if isinstance(saved, str) and saved:
            self._saved = saved[:64]
            self._clean = state.get("clean") is True

    def close(self) -> None:
        return None
