"""The allow-list: every command the agent may run for an order, as an argument list.

Arguments are validated here (a diagnostic level 1..4, PCI bus ids like 0000:18:00.0, times
as datetimes) and nothing reaches a shell. Binaries are looked up on PATH when a command is
built (so stand-ins first on PATH replace them in tests), unless configured as absolute paths.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

Argv = tuple[str, ...]

# `nvidia-smi` prints an 8-digit PCI domain (00000000:18:00.0); lspci and sysfs print 4.
BUS_ID = re.compile(r"(?:[0-9a-fA-F]{4}|[0-9a-fA-F]{8}):[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]")
DIAG_LEVELS = range(1, 5)
MAX_GPUS = 64
COMPUTE_APPS = "--query-compute-apps=pid,process_name,gpu_bus_id"


class CommandError(ValueError):
    """An argument the allow-list does not accept."""


def valid_bus_id(value: object) -> bool:
    """A PCI bus id `DDDD:BB:DD.F` (or nvidia-smi's `DDDDDDDD:BB:DD.F`)."""
    return isinstance(value, str) and BUS_ID.fullmatch(value) is not None


def bus_key(bus_id: str) -> str:
    """One spelling for a bus id: `00000000:1A:00.0` and `0000:1a:00.0` compare equal."""
    domain, _, rest = bus_id.strip().partition(":")
    try:
        return f"{int(domain, 16):04x}:{rest.lower()}"
    except ValueError:
        return bus_id.strip().lower()


@dataclass(frozen=True, slots=True)
class Binaries:
    """The executables, by name (looked up on PATH) or by absolute path."""

    dcgmi: str = "dcgmi"
    nvidia_smi: str = "nvidia-smi"
    systemctl: str = "systemctl"
    journalctl: str = "journalctl"
    dmesg: str = "dmesg"
    # In a container with the host's PID namespace: reboot with the host's own systemctl, in
    # the host's mount namespace (`nsenter --target 1 --mount -- systemctl reboot`, as kured
    # does), so the host's systemd is asked, not a systemctl the image may not even carry.
    nsenter: str | None = None


class Commands:
    """Builds the allow-listed argument lists."""

    def __init__(
        self,
        binaries: Binaries | None = None,
        which: Callable[[str], str | None] = shutil.which,
    ) -> None:
        self.binaries = binaries or Binaries()
        self.which = which

    def resolve(self, name: str) -> str:
        """An absolute path as configured; a name as PATH finds it now (or the bare name,
        which the child then reports as not installed)."""
        if name.startswith("/"):
            return name
        return self.which(name) or name

    def installed(self, name: str) -> bool:
        """Whether the executable can be found now."""
        if name.startswith("/"):
            return os.access(name, os.X_OK)
        return self.which(name) is not None

    def diag(self, level: object) -> Argv:
        """`dcgmi diag -r N -j`."""
        if isinstance(level, bool) or not isinstance(level, int) or level not in DIAG_LEVELS:
            raise CommandError(f"a DCGM diagnostic level is 1..4, not {level!r}")
        return (self.resolve(self.binaries.dcgmi), "diag", "-r", str(level), "-j")

    def compute_apps(self) -> Argv:
        """Who holds the GPUs: `nvidia-smi --query-compute-apps=... --format=csv,noheader`."""
        return (self.resolve(self.binaries.nvidia_smi), COMPUTE_APPS, "--format=csv,noheader")

    def gpu_list(self) -> Argv:
        """The node's GPUs by bus id (a reset of "all GPUs" names each one)."""
        exe = self.resolve(self.binaries.nvidia_smi)
        return (exe, "--query-gpu=pci.bus_id", "--format=csv,noheader")

    def gpu_reset(self, bus_id: object) -> Argv:
        """`nvidia-smi --gpu-reset -i BUS_ID` (one GPU; it must be idle)."""
        if not valid_bus_id(bus_id):
            raise CommandError(f"{str(bus_id)[:40]!r} is not a PCI bus id like 0000:18:00.0")
        return (self.resolve(self.binaries.nvidia_smi), "--gpu-reset", "-i", str(bus_id))

    def reboot(self) -> Argv:
        """`systemctl reboot`: the init system stops services and reboots (through
        `nsenter --target 1 --mount --` into the host's mount namespace when configured)."""
        if self.binaries.nsenter is not None:
            # systemctl is looked up in the host's file system, not the container's.
            enter = (self.resolve(self.binaries.nsenter), "--target", "1", "--mount", "--")
            return (*enter, self.binaries.systemctl, "reboot")
        return (self.resolve(self.binaries.systemctl), "reboot")

    def kernel_log(self, since: datetime, until: datetime) -> Argv:
        """The kernel log of a window: journalctl when present, else `dmesg --time-format iso`
        (whose lines the caller filters to the window)."""
        if self.installed(self.binaries.journalctl):
            return (
                self.resolve(self.binaries.journalctl), "-k", "--since", journal_time(since),
                "--until", journal_time(until), "-o", "short-iso", "--no-pager",
            )  # fmt: skip
        return (self.resolve(self.binaries.dmesg), "--time-format", "iso")

    def nvidia_smi_q(self) -> Argv:
        """The NVML snapshot: `nvidia-smi -q`."""
        return (self.resolve(self.binaries.nvidia_smi), "-q")

    def dcgm_health(self) -> Argv:
        """`dcgmi health -c -j`."""
        return (self.resolve(self.binaries.dcgmi), "health", "-c", "-j")


def journal_time(at: datetime) -> str:
    """A time as journalctl reads it (systemd.time(7)): `2026-03-02 09:40:11 UTC`."""
    if at.tzinfo is None:
        raise CommandError("a time without a UTC offset is ambiguous")
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def command_line(argv: Argv) -> str:
    """An argument list as a person reads it (for reports; never executed)."""
    return " ".join(a if a and " " not in a else repr(a) for a in argv)
