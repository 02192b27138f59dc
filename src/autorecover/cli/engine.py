"""`autorecover serve` and the views people read from a running engine.

`serve` runs the engine: hardware recovery (and job recovery, once wired) on one store, the
signal intake, the HTTP API. `nodes`, `jobs`, `incidents` and `incident ID` read that API
(`--engine`, default http://127.0.0.1:8080) and print tables, or `--json` for machines.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from autorecover.adapters.clock import SystemClock
from autorecover.adapters.http.engine_api import DEFAULT_ENGINE, EngineApi, EngineApiError, quoted
from autorecover.adapters.kubernetes.diagnostics import DCGM_IMAGE
from autorecover.adapters.kubernetes.stack import (
    KubeSettings,
    domain_labels_from,
    namespaces_from,
)
from autorecover.adapters.store.url import (
    DEFAULT_STORE_URL,
    StoreUrlError,
    open_store,
    redact,
)
from autorecover.controllers.jobs.controller import JobSettings
from autorecover.controllers.ports import PermanentError, TransientError
from autorecover.server.engine import EngineSettings
from autorecover.server.leadership import LEASE_NAME
from autorecover.server.policies import load_policies
from autorecover.server.serving import parse_listen, serve
from autorecover.server.wiring import CLUSTERS, build_engine, cluster_for

engine_option = click.option(
    "--engine",
    "engine_url",
    default=DEFAULT_ENGINE,
    envvar="AUTORECOVER_ENGINE",
    show_default=True,
    help="The engine's base URL (also AUTORECOVER_ENGINE).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")


@click.command("serve")
@click.option(
    "--store",
    "store_url",
    default=DEFAULT_STORE_URL,
    envvar="AUTORECOVER_STORE",
    show_default=True,
    help="sqlite:///PATH, postgresql://... or memory://.",
)
@click.option("--listen", default="127.0.0.1:8080", show_default=True, help="HOST:PORT.")
@click.option("--dry-run", is_flag=True, help="Record every action as would-have; do none.")
@click.option(
    "--policy",
    "policies",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="A TOML policy override (hardware tables and [job]); repeatable, in order.",
)
@click.option(
    "--scheduler",
    type=click.Choice(CLUSTERS),
    default="fake",
    show_default=True,
    help="The cluster to act on.",
)
@click.option(
    "--local-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="With --scheduler local: where the local scheduler keeps its jobs' files.",
)
@click.option(
    "--local-nodes",
    default="",
    help="With --scheduler local: the node names, comma-separated (node-1,node-2,...).",
)
@click.option(
    "--fake-state",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Journal of the fake cluster, so it outlives restarts (default: memory).",
)
@click.option(
    "--fake-diagnostics-s",
    type=float,
    default=0.0,
    show_default=True,
    help="How long a fake diagnostic runs.",
)
@click.option("--tick-s", type=float, default=5.0, show_default=True)
@click.option(
    "--settle-s",
    type=float,
    default=1.0,
    show_default=True,
    help="Job recovery waits this long after a job fails for late output and agent signals.",
)
@click.option("--reconcile-s", type=float, default=60.0, show_default=True)
@click.option(
    "--intake-s",
    type=float,
    default=0.5,
    show_default=True,
    help="How often the leader records waiting signal batches.",
)
@click.option(
    "--lease-ttl-s",
    type=float,
    default=15.0,
    show_default=True,
    help="A standby takes over this long after the leader stops renewing.",
)
@click.option(
    "--max-waiting",
    type=int,
    default=10_000,
    show_default=True,
    help="Signal batches waiting before the intake answers 429.",
)
@click.option("--replica", default=None, help="This replica's name in the lease.")
@click.option(
    "--leadership",
    type=click.Choice(["store", "kubernetes"]),
    default="store",
    show_default=True,
    help="Elect the leader on the store's lease, or on a coordination.k8s.io Lease.",
)
@click.option(
    "--lease-namespace",
    default="default",
    show_default=True,
    envvar="POD_NAMESPACE",
    help="With --leadership kubernetes: the Lease's namespace.",
)
@click.option(
    "--lease-name",
    default=LEASE_NAME,
    show_default=True,
    help="With --leadership kubernetes: the Lease's name.",
)
@click.option(
    "--kubeconfig",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    envvar="KUBECONFIG",
    help="With --scheduler kubernetes: a kubeconfig (default: the in-cluster service account).",
)
@click.option(
    "--namespaces",
    default="",
    envvar="AUTORECOVER_NAMESPACES",
    help="With --scheduler kubernetes: where PyTorchJobs are watched, comma-separated "
    "(default: every namespace).",
)
@click.option(
    "--taint-effect",
    type=click.Choice(["NoSchedule", "NoExecute"]),
    default="NoSchedule",
    show_default=True,
    help="With --scheduler kubernetes: the quarantine taint's effect (NoExecute: pods leave).",
)
@click.option(
    "--domain-label",
    "domain_labels",
    multiple=True,
    default=("nvlink=nvidia.com/gpu.clique",),
    show_default=True,
    help="With --scheduler kubernetes: KIND=LABEL, the node label naming each node's rack, "
    "nvlink domain or ib_leaf (repeatable; read at start).",
)
@click.option(
    "--dcgm-image",
    default=DCGM_IMAGE,
    show_default=True,
    help="With --scheduler kubernetes: the image diagnostic pods run dcgmi diag from.",
)
@click.option(
    "--spool-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="With --scheduler kubernetes: where pod logs are spooled (default: a temp folder).",
)
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(["debug", "info", "warning", "error"]),
)
def serve_cmd(
    store_url: str, listen: str, dry_run: bool, policies: tuple[Path, ...], scheduler: str,
    local_root: Path | None, local_nodes: str, fake_state: Path | None,
    fake_diagnostics_s: float, tick_s: float, settle_s: float, reconcile_s: float,
    intake_s: float, lease_ttl_s: float, max_waiting: int, replica: str | None,
    leadership: str, lease_namespace: str, lease_name: str, kubeconfig: Path | None,
    namespaces: str, taint_effect: str, domain_labels: tuple[str, ...], dcgm_image: str,
    spool_dir: Path | None, log_level: str,
) -> None:  # fmt: skip
    """Run the engine: recovery controllers, signal intake and the HTTP API."""
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        host, port = parse_listen(listen)
        loaded = load_policies([(str(p), p.read_text(encoding="utf-8")) for p in policies])
        store = open_store(store_url)
    except (ValueError, OSError, StoreUrlError) as exc:
        raise click.ClickException(str(exc)) from None
    clock = SystemClock()
    settings = EngineSettings(
        dry_run=dry_run,
        tick_s=tick_s,
        reconcile_s=reconcile_s,
        intake_s=intake_s,
        lease_ttl_s=lease_ttl_s,
        max_waiting=max_waiting,
    )
    try:
        kube = KubeSettings(
            kubeconfig=kubeconfig, namespaces=namespaces_from(namespaces),
            taint_effect=taint_effect, diagnostics_namespace=lease_namespace,
            dcgm_image=dcgm_image, spool=spool_dir,
            domain_labels=domain_labels_from(domain_labels),
            instance=replica or "autorecover",
        )  # fmt: skip
        cluster, jobs = cluster_for(
            scheduler,
            clock,
            loaded,
            store=store if store_url.split(":", 1)[0].lower() == "memory" else store_url,
            dry_run=dry_run,
            fake_state=fake_state,
            diagnostics_s=fake_diagnostics_s,
            local_root=local_root,
            local_nodes=[n for n in local_nodes.split(",") if n],
            kube=kube,
            jobs_settings=JobSettings(settle_s=settle_s),
        )
        cluster_lease = None
        if leadership == "kubernetes":
            if cluster.leases is None:
                raise ValueError("--leadership kubernetes needs --scheduler kubernetes")
            cluster_lease = cluster.leases(lease_namespace, lease_name)
    except (ValueError, StoreUrlError, TransientError, PermanentError) as exc:
        raise click.ClickException(str(exc)) from None
    engine = build_engine(store, clock, cluster, loaded, settings, replica=replica, jobs=jobs,
                          cluster_lease=cluster_lease)  # fmt: skip
    click.echo(
        f"autorecover engine on http://{listen} store={redact(store_url)} "
        f"replica={engine.leadership.holder}{' dry-run' if dry_run else ''}",
        err=True,
    )
    try:
        serve(engine, host, port, log_level)
    finally:
        cluster.close()  # the Kubernetes session's watches and loop; nothing for the others


def _read(engine_url: str, path: str) -> Any:
    try:
        return EngineApi(engine_url).get(path)
    except EngineApiError as exc:
        raise click.ClickException(str(exc)) from None


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    """Left-aligned columns, two spaces apart."""
    rows = [tuple(header), *[tuple(r) for r in rows]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def _when(value: str | None) -> str:
    return (value or "-")[:19].replace("T", " ")


def _view(
    path: str, header: Sequence[str], row: Callable[[Any], Sequence[str]], empty: str
) -> Callable[..., None]:
    @engine_option
    @json_option
    def command(engine_url: str, as_json: bool) -> None:
        found = _read(engine_url, path)
        if as_json:
            click.echo(json.dumps(found, indent=2))
        elif not found:
            click.echo(empty)
        else:
            click.echo(table([row(x) for x in found], header))

    return command


nodes_cmd = click.command("nodes", help="Every node hardware recovery knows: state and why.")(
    _view(
        "/api/v1/nodes",
        ("NODE", "STATE", "SINCE", "LAST SEEN", "REASON"),
        lambda n: (n["name"], n["state"], _when(n["since"]), _when(n["last_seen"]), n["reason"]),
        "no nodes yet",
    )
)
jobs_cmd = click.command("jobs", help="Jobs job recovery watches: restarts, causes, exclusions.")(
    _view(
        "/api/v1/jobs",
        ("JOB", "RESTARTS", "LAST CAUSE", "LAST ACTION", "EXCLUDED", "OPEN INCIDENTS"),
        lambda j: (
            j["job"],
            str(j["restarts"]),
            j["last_cause"] or "-",
            j["last_action"] or "-",
            ",".join(j["exclusions"]) or "-",
            ",".join(j["open_incidents"]) or "-",
        ),
        "no jobs yet",
    )
)
incidents_cmd = click.command("incidents", help="Every incident, hardware and job, oldest first.")(
    _view(
        "/api/v1/incidents",
        ("INCIDENT", "SOURCE", "CAUSE", "STATE", "OPENED", "NODES", "SUMMARY"),
        lambda i: (
            i["id"],
            i["source"],
            i["cause"],
            i["state"],
            _when(i["opened_at"]),
            ",".join(i["nodes"]) or "-",
            i["summary"],
        ),
        "no incidents",
    )
)


@click.command("incident")
@click.argument("incident_id")
@engine_option
@json_option
def incident_cmd(incident_id: str, engine_url: str, as_json: bool) -> None:
    """One incident: what, where, the evidence and the timeline."""
    found = _read(engine_url, f"/api/v1/incidents/{quoted(incident_id)}")
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    click.echo(click.style(found["id"], bold=True) + f"  ({found['source']} {found['kind']})")
    click.echo(f"  cause:   {found['cause']}   state: {found['state']}")
    click.echo(f"  nodes:   {', '.join(found['nodes']) or '-'}")
    click.echo(f"  opened:  {_when(found['opened_at'])}   updated: {_when(found['updated_at'])}")
    click.echo(f"  summary: {found['summary']}")
    click.echo("  evidence:")
    for line in found["evidence"] or ["(none recorded)"]:
        click.echo(f"    {line}")
    click.echo("  timeline:")
    for e in found["timeline"]:
        where = f" {e['node']}" if e["node"] else ""
        click.echo(f"    {_when(e['at'])}  {e['what']}{where}: {e['text']}")


ENGINE_COMMANDS = (serve_cmd, nodes_cmd, jobs_cmd, incidents_cmd, incident_cmd)


@click.group("engine")
def engine_group() -> None:
    """The engine and its views (`python -m autorecover.cli.engine`; also in `autorecover`)."""


for _command in ENGINE_COMMANDS:
    engine_group.add_command(_command)

if __name__ == "__main__":
    engine_group()
