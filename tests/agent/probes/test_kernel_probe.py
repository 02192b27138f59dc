"""The kernel-log probe: catalog interpretation, storm folding, cursors across restarts."""

from __future__ import annotations

from pathlib import Path

from agent.support import FIXTURES, T0, at
from autorecover.adapters.host.kernel_follow import FileSource, KmsgSource
from autorecover.agent.probes.base import ProbeStatus, effective_action
from autorecover.agent.probes.kernel import KernelProbe
from autorecover.agent.probes.kernel_reading import KernelReader, StampedLine, normalize_pci
from autorecover.agent.probes.storms import StormFolder
from autorecover.domain.catalog import Catalog, build_catalog, builtin_documents
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe
from autorecover.parsing.scanning import Scanner

XID79 = (
    "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
)


def kmsg_probe(
    tmp_path: Path, records: list[str], catalog: Catalog, window_s: float = 60
) -> KernelProbe:
    dev = tmp_path / "dev"
    dev.mkdir(exist_ok=True)
    (dev / "kmsg").write_text("".join(records))
    return KernelProbe(
        node="gpu-h02",
        source=KmsgSource(dev / "kmsg", tmp_path / "proc"),
        reader=KernelReader(catalog),
        folder=StormFolder(window_s),
    )


def rec(seq: int, msg: str) -> str:
    return f"3,{seq},{seq * 10},-;{msg}\n"


def append(tmp_path: Path, *records: str) -> None:
    with (tmp_path / "dev" / "kmsg").open("a") as fh:
        fh.write("".join(records))


def test_recorded_kmsg_with_an_xid79(catalog: Catalog) -> None:
    probe = KernelProbe(
        node="gpu-h02",
        source=KmsgSource(FIXTURES / "kernel" / "kmsg-xid79", FIXTURES / "missing-proc"),
        reader=KernelReader(catalog),
    )
    result = probe.poll(T0)
    assert result.status is ProbeStatus.OK
    [sig] = result.signals
    assert (sig.probe, sig.signal, sig.component) == (Probe.KERNEL, "xid.79", "0000:5d:00")
    assert (sig.blame, sig.node_action, sig.weight) == (Blame.HARDWARE, NodeAction.REBOOT, 100)
    assert sig.node == "gpu-h02" and "fallen off the bus" in sig.text


def test_syslog_file_read_through_the_catalog(catalog: Catalog) -> None:
    src = FileSource(FIXTURES / "kernel" / "kern.log")
    probe = KernelProbe(node="gpu-h02", source=src, reader=KernelReader(catalog))
    signals = {s.signal: s for s in probe.poll(T0).signals}
    probe.close()
    assert set(signals) == {"xid.48", "xid.63", "kernel.oom_kill", "kernel.hung_task"}
    assert signals["xid.48"].node_action is NodeAction.RESET_GPU
    assert signals["xid.63"].detail("context") == "handled by the driver"
    # An OOM kill is the application's: it must never fail the node's health check.
    assert signals["kernel.oom_kill"].blame is Blame.APPLICATION
    assert effective_action(signals["kernel.oom_kill"]) is NodeAction.NONE
    assert signals["xid.48"].at.isoformat() == "2026-03-02T09:40:11+00:00"  # the line's own time


def test_node_local_context_rules(catalog: Catalog) -> None:
    reader = KernelReader(catalog)
    lines = [
        "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
        "NVRM: Xid (PCI:0008:01:00): 45, pid=3110, name=python3, Ch 00000010",
    ]
    got = {s.signal: s for s in reader.read_lines("n1", [StampedLine(t, T0) for t in lines], T0)}
    assert got["xid.154"].node_action is NodeAction.REBOOT
    assert got["xid.45"].blame is Blame.INFO  # sympathetic to the other XID


def test_an_xid_the_operator_switched_off_is_not_reported() -> None:
    docs = [*builtin_documents(), ("site", {"xid": {"79": {"enabled": False}}})]
    reader = KernelReader(build_catalog(docs))
    assert reader.read_lines("n1", [StampedLine(XID79, T0)], T0) == []


def test_a_storm_is_one_signal_with_a_count(tmp_path: Path, catalog: Catalog) -> None:
    probe = kmsg_probe(tmp_path, [rec(i, XID79) for i in range(1, 5001)], catalog)
    [sig] = probe.poll(T0).signals
    assert (sig.signal, sig.count) == ("xid.79", 5000)


def test_a_storm_across_polls_is_held_back_then_summarised(
    tmp_path: Path, catalog: Catalog
) -> None:
    probe = kmsg_probe(tmp_path, [rec(1, XID79)], catalog, window_s=60)
    assert [s.count for s in probe.poll(at(0)).signals] == [1]  # the first goes out at once
    append(tmp_path, *(rec(i, XID79) for i in range(2, 1002)))
    assert probe.poll(at(10)).signals == ()  # inside the window: counted, not sent
    append(tmp_path, *(rec(i, XID79) for i in range(1002, 2002)))
    assert probe.poll(at(30)).signals == ()
    [summary] = probe.poll(at(61)).signals
    assert summary.count == 2000 and summary.detail("storm") == "2000 more within 60 s"
    append(tmp_path, rec(3000, XID79))
    assert [s.count for s in probe.poll(at(62)).signals] == [1]  # a new window


def test_different_gpus_are_different_storms(tmp_path: Path, catalog: Catalog) -> None:
    other = XID79.replace("0000:5d:00", "0000:18:00")
    probe = kmsg_probe(tmp_path, [rec(1, XID79), rec(2, other), rec(3, XID79)], catalog)
    got = sorted((s.component, s.count) for s in probe.poll(T0).signals)
    assert got == [("0000:18:00", 1), ("0000:5d:00", 2)]


def test_cursor_across_a_restart_neither_replays_nor_misses(
    tmp_path: Path, catalog: Catalog
) -> None:
    xid48 = XID79.replace(": 79,", ": 48,").replace("GPU has fallen off the bus.", "DBE")
    first = kmsg_probe(tmp_path, [rec(1, XID79)], catalog)
    assert [s.signal for s in first.poll(at(0)).signals] == ["xid.79"]
    saved = first.state()
    first.close()
    append(tmp_path, rec(2, xid48))  # logged while the agent was down
    second = kmsg_probe(tmp_path, [], catalog)
    (tmp_path / "dev" / "kmsg").write_text(rec(1, XID79) + rec(2, xid48))
    second.restore(saved)
    assert [s.signal for s in second.poll(at(120)).signals] == ["xid.48"]
    assert second.poll(at(180)).signals == ()


def test_lines_from_before_the_boot_are_ignored(tmp_path: Path, catalog: Catalog) -> None:
    log = tmp_path / "kern.log"
    log.write_text(
        f"Feb 27 03:00:00 gpu-h02 kernel: {XID79}\nMar  2 09:59:00 gpu-h02 kernel: {XID79}\n"
    )
    probe = KernelProbe(
        node="gpu-h02",
        source=FileSource(log),
        reader=KernelReader(catalog),
        not_before=at(-3600),
    )
    [sig] = probe.poll(T0).signals
    probe.close()
    assert sig.count == 1 and sig.at.day == 2


def test_missing_log_is_unavailable(tmp_path: Path, catalog: Catalog) -> None:
    probe = KernelProbe(
        node="n", source=FileSource(tmp_path / "none"), reader=KernelReader(catalog)
    )
    assert probe.poll(T0).status is ProbeStatus.UNAVAILABLE


def test_nvml_xid_events_share_the_catalog(catalog: Catalog, scanner: Scanner) -> None:
    from autorecover.agent.probes.kernel_reading import XidEvent

    reader = KernelReader(catalog, scanner)
    [sig] = reader.read_xid_events("n1", [XidEvent("00000000:5D:00.0", 79, T0)], T0)
    assert (sig.probe, sig.signal, sig.component, sig.node_action) == (
        Probe.NVML,
        "xid.79",
        "0000:5d:00",
        NodeAction.REBOOT,
    )


def test_pci_addresses_name_one_gpu_one_way() -> None:
    assert normalize_pci("PCI:0000:5d:00") == normalize_pci("00000000:5D:00.0") == "0000:5d:00"
    assert normalize_pci("garbage") is None


def test_restated_xids_are_read_and_context_lines_are_not_signals(catalog: Catalog) -> None:
    reader = KernelReader(catalog)
    lines = [
        "[    0.000000] Linux version 5.15.0-101-generic (buildd@lcy02-amd64-031) (gcc 11.4.0) #111",
        "gpud[2211]: XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00",
        "nfs: server storage01 OK",
    ]
    got = reader.read_lines("n1", [StampedLine(t, T0) for t in lines], T0)
    assert [s.signal for s in got] == ["xid.79"]
    assert got[0].blame is Blame.HARDWARE
