"""The allow-list and the readers of what its commands print (agent_actions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from agent.acting.support import ACTIONS
from autorecover.agent.acting.commands import CommandError, Commands, bus_key, journal_time
from autorecover.agent.acting.outputs import (
    OutputError,
    busy_reason,
    compute_apps,
    gpu_bus_ids,
    holders,
    window,
)

FOUND = Commands(which=lambda name: f"/usr/bin/{name}")
NOTHING = Commands(which=lambda name: None)


def test_agent_actions_argv_are_the_documented_command_lines() -> None:
    assert FOUND.diag(3) == ("/usr/bin/dcgmi", "diag", "-r", "3", "-j")
    assert FOUND.gpu_reset("0000:18:00.0") == (
        "/usr/bin/nvidia-smi", "--gpu-reset", "-i", "0000:18:00.0",
    )  # fmt: skip
    assert FOUND.compute_apps()[1:] == (
        "--query-compute-apps=pid,process_name,gpu_bus_id", "--format=csv,noheader",
    )  # fmt: skip
    assert FOUND.reboot() == ("/usr/bin/systemctl", "reboot")
    assert FOUND.dcgm_health()[1:] == ("health", "-c", "-j")
    assert FOUND.nvidia_smi_q()[1:] == ("-q",)
    since = datetime(2026, 3, 2, 10, 40, 11, tzinfo=timezone(timedelta(hours=1)))
    assert FOUND.kernel_log(since, since + timedelta(hours=1)) == (
        "/usr/bin/journalctl", "-k", "--since", "2026-03-02 09:40:11 UTC",
        "--until", "2026-03-02 10:40:11 UTC", "-o", "short-iso", "--no-pager",
    )  # fmt: skip


def test_agent_actions_kernel_log_falls_back_to_dmesg_without_journalctl() -> None:
    at = datetime(2026, 3, 2, tzinfo=UTC)
    assert NOTHING.kernel_log(at, at) == ("dmesg", "--time-format", "iso")


def test_agent_actions_configured_absolute_paths_are_kept() -> None:
    from autorecover.agent.acting.commands import Binaries

    commands = Commands(Binaries(dcgmi="/opt/dcgm/bin/dcgmi"), which=lambda name: None)
    assert commands.diag(1)[0] == "/opt/dcgm/bin/dcgmi"


def test_agent_actions_reboot_in_the_hosts_mount_namespace_uses_the_hosts_systemctl() -> None:
    from autorecover.agent.acting.commands import Binaries

    # In a container (the chart's DaemonSet, hostPID): the host's systemctl asks its systemd.
    commands = Commands(Binaries(nsenter="nsenter"), which=lambda name: f"/usr/bin/{name}")
    assert commands.reboot() == (
        "/usr/bin/nsenter", "--target", "1", "--mount", "--", "systemctl", "reboot",
    )  # fmt: skip
    pinned = Commands(Binaries(nsenter="nsenter", systemctl="/bin/systemctl"), which=lambda n: None)
    assert pinned.reboot() == ("nsenter", "--target", "1", "--mount", "--", "/bin/systemctl",
                               "reboot")  # fmt: skip


@pytest.mark.parametrize("level", [0, 5, "3", True, None, 2.0])
def test_agent_actions_diag_levels_outside_1_to_4_are_refused(level: object) -> None:
    with pytest.raises(CommandError):
        FOUND.diag(level)


@pytest.mark.parametrize(
    "bus", ["0000:18:00.8", "18:00.0", "0000:18:00.0; reboot", "../../x", "", 18, "0000:1g:00.0"]
)
def test_agent_actions_bus_ids_are_validated(bus: object) -> None:
    with pytest.raises(CommandError):
        FOUND.gpu_reset(bus)


def test_agent_actions_times_need_an_offset() -> None:
    with pytest.raises(CommandError):
        journal_time(datetime(2026, 3, 2))


def test_agent_actions_bus_ids_compare_across_spellings() -> None:
    assert bus_key("00000000:2A:00.0") == bus_key("0000:2a:00.0") == "0000:2a:00.0"


def test_agent_actions_compute_apps_reads_the_recorded_csv() -> None:
    busy = compute_apps((ACTIONS / "compute-apps-busy.csv").read_text())
    assert [(p.pid, p.name, p.bus_id) for p in busy] == [
        (31337, "python3", "00000000:18:00.0"), (31338, "python3", "00000000:2A:00.0"),
    ]  # fmt: skip
    assert compute_apps((ACTIONS / "compute-apps-idle.csv").read_text()) == ()
    # a process name with a comma in it: pid first, bus id last
    assert compute_apps("7, /opt/a,b/train, 00000000:18:00.0\n")[0].name == "/opt/a,b/train"


def test_agent_actions_unreadable_process_lists_are_not_guessed() -> None:
    with pytest.raises(OutputError):
        compute_apps("[Insufficient Permissions], python3, 00000000:18:00.0\n")
    with pytest.raises(OutputError):
        gpu_bus_ids("No devices were found\n")


def test_agent_actions_holders_name_the_gpus_and_processes() -> None:
    busy = compute_apps((ACTIONS / "compute-apps-busy.csv").read_text())
    held = holders(busy, ("0000:18:00.0", "0000:3b:00.0"))
    assert list(held) == ["0000:18:00.0"]
    reason = busy_reason(held)
    assert "GPU 0000:18:00.0 is held by pid 31337 (python3)" in reason
    assert "needs the GPU idle" in reason


def test_agent_actions_dmesg_lines_are_cut_to_the_window() -> None:
    text = (ACTIONS / "dmesg-iso.txt").read_text()
    since = datetime(2026, 3, 2, 9, 40, tzinfo=UTC)
    kept = window(text, since, since + timedelta(minutes=10)).splitlines()
    assert len(kept) == 2
    assert all("fallen off the bus" in line for line in kept)
