"""`autorecover agent`: the node agent's commands (run, check, record-nvml).

Exit status of `check`: 0 healthy, 1 unhealthy (the drain reason is printed), 2 a usage error,
3 the check could not be set up (a malformed catalog or thresholds file). A probe that cannot
read its interface does not make the node unhealthy; `--json` shows each probe's status.

The probes, NVML, the engine client and Slurm are imported when a mode runs, not when
`autorecover` starts.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from autorecover.cli.credentials import credential_options, credentials_from
from autorecover.cli.deferred import Deferred, DeferredChoice
from autorecover.domain.signals import Probe

if TYPE_CHECKING:
    from autorecover.agent.probes.base import NodeProbe
    from autorecover.agent.thresholds import Thresholds
    from autorecover.agent.wiring import AgentConfig
    from autorecover.domain.catalog import Catalog
    from autorecover.domain.signals import HealthReport

EXIT_HEALTHY, EXIT_UNHEALTHY, EXIT_SETUP = 0, 1, 3
DEFAULT_STATE_DIR = Path("/var/lib/autorecover/agent")


class SetupError(click.ClickException):
    """The agent cannot be set up; exit 3 so that it is not mistaken for an unhealthy node."""

    exit_code = EXIT_SETUP


def _pairs(every: Mapping[Probe, float]) -> tuple[str, ...]:
    """Intervals as `--interval` spells them: PROBE=SECONDS."""
    return tuple(f"{p}={s:g}" for p, s in every.items())


def _options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options every mode shares: where each probe reads and what it expects."""
    probes = [p.value for p in Probe if p is not Probe.JOB]
    decorators = [
        click.option("--node", help="This node's name (default: the short hostname)."),
        click.option(
            "--expected-gpus",
            type=click.IntRange(0, 1024),
            help="GPUs this node should have; fewer seen by NVML is a signal.",
        ),
        click.option(
            "--root",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            default=Path("/"),
            show_default=True,
            help="Read dev/kmsg, proc/ and sys/ under this directory (a fixture tree).",
        ),
        click.option(
            "--kernel-source",
            type=DeferredChoice("autorecover.agent.wiring:KERNEL_SOURCES"),
            default="kmsg",
            show_default=True,
            help="Where the kernel log comes from.",
        ),
        click.option(
            "--kernel-log",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Follow this plain file instead (implies --kernel-source file).",
        ),
        click.option("--journalctl", default="journalctl", show_default=True),
        click.option(
            "--nvml-replay",
            type=click.Path(path_type=Path, dir_okay=False, exists=True),
            help="Replay a recorded NVML snapshot (agent record-nvml) instead of the driver.",
        ),
        click.option("--dcgmi", default="dcgmi", show_default=True),
        click.option(
            "--dcgm-replay",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            help="Replay recorded dcgmi output (health.json, diag-rN.json) from a directory.",
        ),
        click.option(
            "--fabric-replay",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            help="Replay recorded nvidia-smi -q and nvidia-imex-ctl output from a directory.",
        ),
        click.option("--skip", multiple=True, type=click.Choice(probes), help="Leave a probe out."),
        click.option(
            "--state-dir",
            type=click.Path(path_type=Path, file_okay=False),
            help="Keep cursors and counter baselines here between runs.",
        ),
        click.option(
            "--catalog",
            "catalogs",
            multiple=True,
            type=click.Path(path_type=Path, dir_okay=False),
            envvar="AUTORECOVER_CATALOG",
            help="A catalog override, merged by key (repeatable).",
        ),
        click.option(
            "--thresholds",
            "threshold_files",
            multiple=True,
            type=click.Path(path_type=Path, dir_okay=False, exists=True),
            help="A thresholds override (agent.toml shape), merged by key (repeatable).",
        ),
    ]
    for decorate in reversed(decorators):
        f = decorate(f)
    return f


@click.group("agent")
def agent_group() -> None:
    """The node agent: probes the kernel log, NVML, InfiniBand, PCIe and DCGM.

    \b
      autorecover agent check --once         Slurm HealthCheckProgram / Prolog
      autorecover agent check --json         the node's health, for people
      autorecover agent run --engine URL     the daemon: signals to the engine
    """


@agent_group.command("check")
@click.option("--once", is_flag=True, help="Check once and exit (the default; for slurm.conf).")
@click.option("--json", "as_json", is_flag=True, help="Print the health report as JSON.")
@click.option(
    "--dcgm-diag-level",
    type=click.IntRange(1, 4),
    help="Also run `dcgmi diag -r LEVEL` (minutes to hours of GPU load: not between jobs).",
)
@click.option(
    "--drain",
    is_flag=True,
    help="When unhealthy, drain this node in Slurm with the reason (for HealthCheckProgram, "
    "which must drain the node itself; in a Prolog the non-zero exit is enough).",
)
@_options
def check_cmd(
    once: bool, as_json: bool, dcgm_diag_level: int | None, drain: bool, **opts: Any
) -> None:
    """Check this node once: exit 0 if healthy, 1 if not (with a one-line drain reason)."""
    from autorecover.adapters.host.agent_state import StateFile
    from autorecover.agent.checking import check_once
    from autorecover.agent.reports import drain_reason, report_to_dict
    from autorecover.controllers.ports import PermanentError, TransientError

    config = _config(opts, diag_level=dcgm_diag_level, follow=False)
    # A one-shot check ends in order every time: it cannot tell a crash from a shutdown
    # between two checks, so the boot probe is the daemon's only (agent/probes/boots.py).
    config = replace(config, skip=config.skip | {Probe.BOOT})
    catalog, thresholds = _knowledge(opts)
    probes = _build(config, catalog, thresholds)
    state = StateFile(opts["state_dir"] / "check-state.json") if opts["state_dir"] else None
    report, results = check_once(config.node, probes, datetime.now(UTC), state)
    if as_json:
        click.echo(json.dumps(report_to_dict(report, results), indent=2))
    elif not report.healthy:
        click.echo(drain_reason(report))
    if drain and not report.healthy:
        try:
            drain_in_slurm(report)
        except (TransientError, PermanentError, ValueError) as exc:
            click.echo(f"error: could not drain {report.node} in Slurm: {exc}", err=True)
    sys.exit(EXIT_HEALTHY if report.healthy else EXIT_UNHEALTHY)


@agent_group.command("run")
@click.option("--engine", required=True, help="The engine's base URL, e.g. http://engine:8080.")
@click.option(
    "--interval",
    "intervals",
    multiple=True,
    type=str,
    default=Deferred("autorecover.agent.wiring:DEFAULT_INTERVALS_S", _pairs),
    show_default=True,
    help="PROBE=SECONDS, e.g. nvml=10 (repeatable; a probe not named keeps its default).",
)
@click.option("--buffer", type=click.IntRange(1), default=10_000, show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=500, show_default=True)
@click.option("--heartbeat-s", type=click.FloatRange(1), default=60.0, show_default=True)
@click.option(
    "--actions/--no-actions",
    default=True,
    show_default=True,
    help="Run the node actions the engine orders for this node (diagnose, reset_gpu, reboot, "
    "collect_bundle); --no-actions refuses every order.",
)
@click.option(
    "--orders-every-s",
    type=click.FloatRange(0.1),
    default=5.0,
    show_default=True,
    help="How often to fetch this node's orders from the engine.",
)
@click.option("--dry-run", is_flag=True, help="Run no order; report what would have run.")
@click.option(
    "--boot-id-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("/proc/sys/kernel/random/boot_id"),
    show_default=True,
    help="Where this boot's id is read (a reboot order is done once it changed).",
)
@click.option("--nvidia-smi", "nvidia_smi", default="nvidia-smi", show_default=True)
@click.option("--systemctl", default="systemctl", show_default=True)
@click.option(
    "--reboot-in-host",
    is_flag=True,
    help="Reboot with the host's systemctl in the host's mount namespace (nsenter --target 1 "
    "--mount -- systemctl reboot): for an agent in a container with the host's PID namespace.",
)
@click.option("--nsenter", default="nsenter", show_default=True)
@click.option(
    "--pod-logs",
    "pod_logs",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="On Kubernetes: read the watched jobs' container logs here (the kubelet's "
    "/var/log/pods) and ship excerpts to the engine, which then streams none of them.",
)
@credential_options
@_options
def run_cmd(
    engine: str,
    intervals: tuple[str, ...],
    buffer: int,
    batch_size: int,
    heartbeat_s: float,
    actions: bool,
    orders_every_s: float,
    dry_run: bool,
    boot_id_file: Path,
    nvidia_smi: str,
    systemctl: str,
    reboot_in_host: bool,
    nsenter: str,
    pod_logs: Path | None,
    token_file: Path | None,
    ca_file: Path | None,
    client_cert: Path | None,
    client_key: Path | None,
    **opts: Any,
) -> None:
    """Run the agent: poll the probes, send signals to the engine, run its orders until stopped."""
    import logging

    from autorecover.adapters.host.agent_state import StateFile
    from autorecover.adapters.host.nvml_snapshots import SnapshotError
    from autorecover.adapters.http.engine_client import signals_url
    from autorecover.agent.acting.commands import Binaries
    from autorecover.agent.thresholds import ThresholdError
    from autorecover.agent.wiring import ActionsConfig, build_agent

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    config = _config(opts, diag_level=None, follow=True)
    catalog, thresholds = _knowledge(opts)
    every = _intervals(intervals)
    try:
        signals_url(engine)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--engine") from None
    state_dir = opts["state_dir"] or DEFAULT_STATE_DIR
    credentials = credentials_from(token_file, ca_file, client_cert, client_key)
    binaries = Binaries(
        dcgmi=opts["dcgmi"], nvidia_smi=nvidia_smi, systemctl=systemctl,
        journalctl=opts["journalctl"], nsenter=nsenter if reboot_in_host else None,
    )  # fmt: skip
    acting = ActionsConfig(
        enabled=actions, dry_run=dry_run, every_s=orders_every_s, state_dir=state_dir,
        boot_id_file=boot_id_file, binaries=binaries,
    )  # fmt: skip
    try:
        agent = build_agent(
            config,
            catalog,
            thresholds,
            engine_url=engine,
            credentials=credentials,
            state_file=StateFile(state_dir / "agent-state.json"),
            intervals=every,
            buffer=buffer,
            batch_size=batch_size,
            heartbeat_s=heartbeat_s,
            actions=acting,
            pod_logs=pod_logs,
        )
    except (SnapshotError, ThresholdError, ValueError) as exc:
        raise SetupError(str(exc)) from None
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    agent.run(lambda: datetime.now(UTC), stop.wait)


@agent_group.command("record-nvml")
@click.argument("out", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--samples", type=click.IntRange(1, 1000), default=1, show_default=True)
@click.option("--interval-s", type=click.FloatRange(0), default=15.0, show_default=True)
def record_nvml_cmd(out: Path, samples: int, interval_s: float) -> None:
    """Record what NVML sees now as a replayable fixture (run it on a GPU node)."""
    from autorecover.adapters.host.nvml import PynvmlBackend, record

    gap = threading.Event()

    def pause() -> None:
        gap.wait(interval_s)

    last = record(PynvmlBackend(), out, samples, pause)
    if last.error is not None:
        raise click.ClickException(f"NVML {last.error}: {last.error_text} (written to {out})")
    click.echo(
        f"{out}: {samples} sample(s), {last.device_count} GPU(s), driver {last.driver_version}"
    )


def _config(opts: dict[str, Any], *, diag_level: int | None, follow: bool) -> AgentConfig:
    import platform

    from autorecover.agent.probes.base import valid_node
    from autorecover.agent.wiring import AgentConfig

    node = opts["node"] or platform.node().split(".")[0]
    if not valid_node(node):
        raise click.BadParameter(f"{node!r} is not a valid node name", param_hint="--node")
    return AgentConfig(
        node=node,
        root=opts["root"],
        kernel_source="file" if opts["kernel_log"] else opts["kernel_source"],
        kernel_log=opts["kernel_log"],
        journalctl=(opts["journalctl"],),
        follow=follow,
        nvml_replay=opts["nvml_replay"],
        expected_gpus=opts["expected_gpus"],
        dcgmi=opts["dcgmi"],
        dcgm_replay=opts["dcgm_replay"],
        dcgm_diag_level=diag_level,
        fabric_replay=opts["fabric_replay"],
        skip=frozenset(Probe(s) for s in opts["skip"]),
    )


def _knowledge(opts: dict[str, Any]) -> tuple[Catalog, Thresholds]:
    from autorecover.agent.thresholds import ThresholdError, load_thresholds, parse_document
    from autorecover.domain.catalog import CatalogError, build_catalog, builtin_documents
    from autorecover.domain.catalog import parse_document as parse_catalog

    try:
        docs = builtin_documents()
        for path in _catalog_paths(opts["catalogs"]):
            docs.append((str(path), parse_catalog(_read(path), str(path))))
        catalog = build_catalog(docs)
        overrides = [(str(p), parse_document(_read(p), str(p))) for p in opts["threshold_files"]]
        thresholds = load_thresholds(overrides)
        thresholds.check_against(catalog)
    except (CatalogError, ThresholdError) as exc:
        raise SetupError(str(exc)) from None
    return catalog, thresholds


def _catalog_paths(values: tuple[Path, ...]) -> list[Path]:
    # click splits an envvar for a multiple option on whitespace; AUTORECOVER_CATALOG is
    # colon-separated, as the main CLI reads it.
    out: list[Path] = []
    for value in values:
        out += [Path(p) for p in str(value).split(os.pathsep) if p]
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SetupError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _build(config: AgentConfig, catalog: Catalog, thresholds: Thresholds) -> list[NodeProbe]:
    from autorecover.adapters.host.nvml_snapshots import SnapshotError
    from autorecover.agent.thresholds import ThresholdError
    from autorecover.agent.wiring import build_probes

    try:
        return build_probes(config, catalog, thresholds)
    except (SnapshotError, ThresholdError, ValueError) as exc:
        raise SetupError(str(exc)) from None


def _intervals(values: tuple[str, ...]) -> dict[Probe, float]:
    from autorecover.agent.wiring import DEFAULT_INTERVALS_S

    every = dict(DEFAULT_INTERVALS_S)
    for value in values:
        name, _, seconds = value.partition("=")
        try:
            every[Probe(name)] = max(0.5, float(seconds))
        except ValueError:
            message = f"{value!r}: want PROBE=SECONDS"
            raise click.BadParameter(message, param_hint="--interval") from None
    return every


def drain_in_slurm(report: HealthReport) -> None:
    """Drain the node with the report's reason (`autorecover: hc-<node>-<time> <why>`)."""
    from autorecover.adapters.slurm import SlurmScheduler
    from autorecover.agent.reports import drain_reason
    from autorecover.controllers.ports import Provenance

    at = report.at
    why = drain_reason(report).removeprefix("autorecover ")
    provenance = Provenance(
        action_id=f"agent-check-{report.node}-{at:%Y%m%dT%H%M%S}",
        by="autorecover-agent",
        why=why,
        at=at,
        evidence=tuple(s.text for s in report.signals if s.text)[:3],
        incident=f"hc-{report.node}-{at:%Y%m%dT%H%M%S}",
    )
    SlurmScheduler().nodes.drain(report.node, None, provenance)
