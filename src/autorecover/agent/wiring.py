"""Building the agent's probes from its configuration: every path under one injectable root.

With `root=/` the agent reads the node; with `root=tests/fixtures/agent/<case>` it reads a
fixture tree through the very same probes (`dev/kmsg`, `proc/`, `sys/class/infiniband/`,
`sys/bus/pci/devices/`), plus a replayed NVML snapshot and replayed dcgmi output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from autorecover.adapters.host.agent_state import StateFile
from autorecover.adapters.host.dcgm import Dcgmi, RecordedRunner, Runner, run_command
from autorecover.adapters.host.detached import Launcher
from autorecover.adapters.host.fabric import Imex, NvmlFabric, RecordedTools, SmiFabric
from autorecover.adapters.host.kernel_follow import FileSource, KmsgSource, boot_time
from autorecover.adapters.host.kernel_journal import JournalSource
from autorecover.adapters.host.nvml import PynvmlBackend
from autorecover.adapters.host.nvml_snapshots import NvmlBackend, ReplayBackend
from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.engine_client import EngineClient
from autorecover.adapters.http.orders_client import OrdersClient
from autorecover.adapters.http.pod_logs_client import PodLogsClient
from autorecover.agent.acting.actor import Actor
from autorecover.agent.acting.commands import Binaries, Commands
from autorecover.agent.acting.journal import BOOT_ID, Journal, read_boot_id
from autorecover.agent.daemon import Agent, Scheduled
from autorecover.agent.logs.shipping import LogShipper
from autorecover.agent.probes.base import NodeProbe
from autorecover.agent.probes.boots import BootProbe
from autorecover.agent.probes.dcgm import DcgmProbe
from autorecover.agent.probes.fabric import FabricProbe, GpuFabricSource
from autorecover.agent.probes.infiniband import InfinibandProbe
from autorecover.agent.probes.kernel import KernelProbe, LineSource
from autorecover.agent.probes.kernel_reading import KernelReader
from autorecover.agent.probes.nvml import NvmlProbe
from autorecover.agent.probes.pcie import PcieProbe
from autorecover.agent.probes.storms import StormFolder
from autorecover.agent.sending import Outbox
from autorecover.agent.thresholds import Thresholds
from autorecover.domain.catalog import Catalog
from autorecover.domain.signals import Probe
from autorecover.parsing.scanning import Scanner

KERNEL_SOURCES = ("kmsg", "journal", "file", "none")
# How often the daemon polls each probe, in seconds; DCGM's health check is the heaviest.
DEFAULT_INTERVALS_S: Mapping[Probe, float] = {
    Probe.KERNEL: 5.0,
    Probe.NVML: 10.0,
    Probe.INFINIBAND: 30.0,
    Probe.PCIE: 60.0,
    Probe.DCGM: 300.0,
    Probe.FABRIC: 30.0,
    Probe.BOOT: 3600.0,  # it looks once, as the agent starts
}


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """Where each probe reads, and what it expects."""

    node: str
    root: Path = Path("/")
    kernel_source: str = "kmsg"  # kmsg | journal | file | none
    kernel_log: Path | None = None  # a plain file (implies kernel_source="file")
    journalctl: tuple[str, ...] = ("journalctl",)
    follow: bool = False  # the daemon keeps journalctl running
    nvml_replay: Path | None = None
    expected_gpus: int | None = None
    dcgmi: str = "dcgmi"
    dcgm_replay: Path | None = None
    dcgm_diag_level: int | None = None
    nvidia_smi: str = "nvidia-smi"  # the fabric probe's fallback when NVML lacks the call
    imex_ctl: str = "nvidia-imex-ctl"
    fabric_replay: Path | None = None  # nvidia-smi-q.txt, imex-q.txt, imex-N.json
    storm_window_s: float = 60.0
    # Kernel lines logged before this are ignored when their time is known (default: boot).
    kernel_not_before: datetime | None = None
    skip: frozenset[Probe] = field(default_factory=frozenset)  # probes left out


def kernel_source(config: AgentConfig) -> LineSource | None:
    """The kernel log the configuration names."""
    if config.kernel_log is not None or config.kernel_source == "file":
        if config.kernel_log is None:
            raise ValueError("kernel source 'file' needs a kernel log path")
        return FileSource(config.kernel_log)
    if config.kernel_source == "kmsg":
        return KmsgSource(config.root / "dev/kmsg", config.root / "proc")
    if config.kernel_source == "journal":
        return JournalSource(config.journalctl, follow=config.follow)
    if config.kernel_source == "none":
        return None
    raise ValueError(f"kernel source must be one of {', '.join(KERNEL_SOURCES)}")


def build_probes(
    config: AgentConfig,
    catalog: Catalog,
    thresholds: Thresholds,
    *,
    runner: Runner | None = None,
    nvml_module: Any = None,
) -> list[NodeProbe]:
    """Every probe the configuration enables, in a fixed order."""
    thresholds.check_against(catalog)
    reader = KernelReader(catalog)
    probes: list[NodeProbe] = []
    source = kernel_source(config) if Probe.KERNEL not in config.skip else None
    if source is not None:
        not_before = config.kernel_not_before or boot_time(config.root / "proc/stat")
        probes.append(
            KernelProbe(
                node=config.node,
                source=source,
                reader=reader,
                folder=StormFolder(config.storm_window_s),
                not_before=not_before,
            )
        )
    if Probe.NVML not in config.skip:
        backend: NvmlBackend = (
            ReplayBackend(config.nvml_replay)
            if config.nvml_replay is not None
            else PynvmlBackend(nvml_module)
        )
        probes.append(
            NvmlProbe(
                node=config.node,
                backend=backend,
                thresholds=thresholds,
                catalog=catalog,
                expected_gpus=config.expected_gpus,
                reader=reader,
                folder=StormFolder(config.storm_window_s),
            )
        )
    if Probe.INFINIBAND not in config.skip:
        probes.append(
            InfinibandProbe(
                node=config.node, root=config.root, thresholds=thresholds, catalog=catalog
            )
        )
    if Probe.PCIE not in config.skip:
        probes.append(
            PcieProbe(node=config.node, root=config.root, thresholds=thresholds, catalog=catalog)
        )
    if Probe.DCGM not in config.skip:
        if runner is None:
            runner = RecordedRunner(config.dcgm_replay) if config.dcgm_replay else run_command
        probes.append(
            DcgmProbe(
                node=config.node,
                dcgmi=Dcgmi(runner, config.dcgmi),
                thresholds=thresholds,
                diag_level=config.dcgm_diag_level,
            )
        )
    if Probe.FABRIC not in config.skip:
        probes.append(fabric_probe(config, thresholds, catalog, nvml_module))
    if Probe.BOOT not in config.skip:
        boot_id, stat = config.root / "proc/sys/kernel/random/boot_id", config.root / "proc/stat"
        probes.append(
            BootProbe(
                node=config.node,
                boot_id=lambda: read_boot_id(boot_id),
                booted_at=lambda: boot_time(stat),
                thresholds=thresholds,
                catalog=catalog,
            )
        )
    return probes


def fabric_probe(
    config: AgentConfig, thresholds: Thresholds, catalog: Catalog, nvml_module: Any = None
) -> FabricProbe:
    """NVML's fabric info first, `nvidia-smi -q` where NVML cannot answer; IMEX's control tool.

    A replay directory stands in for both commands (and for NVML: recordings are of
    `nvidia-smi -q`, the format a person can capture and read)."""
    if config.fabric_replay is not None:
        tools = RecordedTools(config.fabric_replay)
        sources: list[GpuFabricSource] = [SmiFabric(tools, config.nvidia_smi)]
        imex = Imex(tools, config.imex_ctl)
    else:
        sources = [NvmlFabric(nvml_module), SmiFabric(run_command, config.nvidia_smi)]
        imex = Imex(run_command, config.imex_ctl)
    return FabricProbe(
        node=config.node, sources=sources, imex=imex, thresholds=thresholds, catalog=catalog
    )


def build_agent(
    config: AgentConfig,
    catalog: Catalog,
    thresholds: Thresholds,
    *,
    engine_url: str,
    credentials: ClientCredentials | None = None,
    state_file: StateFile | None,
    intervals: Mapping[Probe, float] = DEFAULT_INTERVALS_S,
    buffer: int = 10_000,
    batch_size: int = 500,
    heartbeat_s: float | None = 60.0,
    actions: ActionsConfig | None = None,
    pod_logs: Path | None = None,
) -> Agent:
    """The daemon: every enabled probe on its interval, feeding an outbox to the engine."""
    outbox = Outbox(
        node=config.node,
        client=EngineClient(engine_url, credentials=credentials),
        capacity=buffer,
        batch_size=batch_size,
        heartbeat_s=heartbeat_s,
    )
    every = {**DEFAULT_INTERVALS_S, **intervals}
    probes = [Scheduled(p, every[p.kind]) for p in build_probes(config, catalog, thresholds)]
    actor = None
    if actions is not None:
        actor = build_actor(config.node, actions, engine_url=engine_url, credentials=credentials)
    shipper = None
    if pod_logs is not None:
        shipper = LogShipper(
            node=config.node,
            root=pod_logs,
            engine=PodLogsClient(engine_url, credentials=credentials),
            scanner=Scanner(catalog),
        )
    return Agent(config.node, probes, outbox, state_file, actor=actor, logs=shipper)


@dataclass(frozen=True, slots=True)
class ActionsConfig:
    """How the agent acts on the engine's orders for its node (docs/agent.md, "Actions")."""

    enabled: bool = True  # False: every order is refused ("actions disabled on this node")
    dry_run: bool = False  # run nothing; report what would have run
    every_s: float = 5.0  # how often the orders are fetched
    state_dir: Path = Path("/var/lib/autorecover/agent")
    boot_id_file: Path = BOOT_ID
    binaries: Binaries = field(default_factory=Binaries)


def build_actor(
    node: str,
    actions: ActionsConfig,
    *,
    engine_url: str,
    credentials: ClientCredentials | None = None,
) -> Actor:
    """The actor: this node's orders from the engine, run detached, journaled in the state dir."""
    return Actor(
        node=node,
        client=OrdersClient(engine_url, credentials=credentials),
        journal=Journal(actions.state_dir / "orders"),
        processes=Launcher(),
        commands=Commands(actions.binaries),
        boot_id=lambda: read_boot_id(actions.boot_id_file),
        enabled=actions.enabled,
        dry_run=actions.dry_run,
        every_s=actions.every_s,
    )
