"""`autorecover serve`: the engine, hardware and job recovery on one store, the signal
intake and the HTTP API (docs/engine.md). `cli/views.py` reads what it serves.

The server, uvicorn, the stores and the cluster clients are imported when `serve` runs, not
when `autorecover` starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from autorecover.cli.deferred import Deferred, DeferredChoice

if TYPE_CHECKING:
    from autorecover.controllers.ports import Clock
    from autorecover.server.alerting import Alerting
    from autorecover.server.serving import TlsFiles
    from autorecover.server.wiring import Cluster


@click.command("serve")
@click.option(
    "--store",
    "store_url",
    type=str,
    default=Deferred("autorecover.adapters.store.url:DEFAULT_STORE_URL"),
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
    type=DeferredChoice("autorecover.server.wiring:SCHEDULER_CHOICES"),
    default="auto",
    show_default=True,
    envvar="AUTORECOVER_SCHEDULER",
    help="The cluster to act on. auto: kubernetes inside a pod (KUBERNETES_SERVICE_HOST), "
    "slurm where `scontrol` is on the PATH, otherwise an error asking for a name; fake and "
    "local (simulated clusters, to try the engine out) only when named.",
)
@click.option(
    "--slurm-conf",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="With --scheduler slurm: the slurm.conf Slurm's tools read (default: SLURM_CONF "
    "from the environment, else Slurm's own default).",
)
@click.option(
    "--slurm-domain-feature",
    "slurm_domain_features",
    multiple=True,
    help="With --scheduler slurm: KIND=PREFIX, node features naming each node's rack, nvlink "
    "domain or ib_leaf (rack=rack_: feature rack_r1 is rack r1; repeatable; read at start).",
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
@click.option(
    "--node-actions",
    type=DeferredChoice("autorecover.server.wiring:NODE_ACTIONS"),
    default="none",
    show_default=True,
    help="Who runs the actions that must run on a node (GPU reset, reboot, DCGM diagnostics, "
    "a diagnostic bundle): 'agent' hands them to each node's agent as orders it pulls "
    "(`autorecover agent run` on every node; Slurm still reboots with scontrol reboot); "
    "'none' leaves them to the scheduler's own ports.",
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
    help="How often the leader drains the inbox (each pass records what waits, in chunks).",
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
@click.option(
    "--fleet-size",
    type=click.IntRange(min=1),
    default=None,
    help="The fleet the breaker's fractions are of (default: the nodes on record or in the "
    "topology; with --scheduler kubernetes, every node). Reports alone never count.",
)
@click.option(
    "--retain-signals-days",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    envvar="AUTORECOVER_RETAIN_SIGNALS_DAYS",
    help="Forget recorded agent signals older than this, hourly (0: keep them all). "
    "Decisions keep their own evidence; the audit is never pruned.",
)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(min=1024),
    default=4 * 1024 * 1024,
    show_default=True,
    help="A request body over this is refused (413) before it is parsed.",
)
@click.option(
    "--rate-per-s",
    type=click.FloatRange(min=0),
    default=20.0,
    show_default=True,
    help="Requests a second each client may make under /api/ on average (0: no limit); "
    "more answer 429 with Retry-After.",
)
@click.option(
    "--rate-burst",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Requests each client may make at once.",
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
    type=str,
    default=Deferred("autorecover.server.leadership:LEASE_NAME"),
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
    type=str,
    default=Deferred("autorecover.adapters.kubernetes.diagnostics:DCGM_IMAGE"),
    show_default=True,
    help="With --scheduler kubernetes: the image diagnostic pods run dcgmi diag from.",
)
@click.option(
    "--nccl-image",
    type=str,
    default=None,
    help="With --scheduler kubernetes: an image with mpirun and all_reduce_perf (nccl-tests); "
    "set, validation under load adds an NCCL pair test (an MPIJob) after the DCGM pod.",
)
@click.option(
    "--nccl-spool",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="With --scheduler slurm: run the NCCL pair test (all_reduce_perf, nccl-tests, on the "
    "nodes' PATH) before a node returns, as a job in a maintenance reservation writing its "
    "output under this folder, shared by this host and the nodes.",
)
@click.option(
    "--spool-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="With --scheduler kubernetes: where pod logs are spooled (default: a temp folder).",
)
@click.option(
    "--spool-max-mib",
    type=click.IntRange(1, 1 << 20),
    default=48,
    show_default=True,
    help="With --scheduler kubernetes: the most the pod-log spool may hold (keep it below the "
    "size of the volume --spool-dir is on; one spool file holds at most a quarter).",
)
@click.option(
    "--pod-log-grace-s",
    type=click.FloatRange(0),
    default=30.0,
    show_default=True,
    help="With --scheduler kubernetes: after the engine starts, a pod waits this long for its "
    "node's agent to read its log before the engine streams it through the API (agents ask "
    "every 10 s); 0 where no agent reads pod logs.",
)
@click.option(
    "--alertmanager-url",
    "alertmanager_urls",
    multiple=True,
    envvar="AUTORECOVER_ALERTMANAGER_URLS",
    help="Send alerts to this Alertmanager (http(s)://HOST:PORT[/prefix]); repeatable: "
    "name every peer of an Alertmanager cluster.",
)
@click.option(
    "--alert-webhook",
    "alert_webhooks",
    multiple=True,
    envvar="AUTORECOVER_ALERT_WEBHOOKS",
    help="POST each alert's firing and resolved message as JSON to this URL; repeatable "
    "(or space-separated in AUTORECOVER_ALERT_WEBHOOKS, for URLs that are secrets).",
)
@click.option(
    "--alert-webhook-secret-file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Sign webhook bodies with HMAC-SHA256 under the key in this file.",
)
@click.option(
    "--external-url",
    default="",
    help="The engine's API as people reach it (https://autorecover.example): alerts link "
    "to their node or incident under it.",
)
@click.option(
    "--alert-out-of-service-s",
    type=click.FloatRange(min=0, min_open=True),
    default=86_400.0,
    show_default=True,
    help="Alert on a node out of service longer than this.",
)
@click.option(
    "--tokens-file",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="AUTORECOVER_TOKENS_FILE",
    help="Bearer tokens (TOML, SHA-256 hashes only; `autorecover token new`), re-read when "
    "it changes (docs/security.md).",
)
@click.option(
    "--kube-auth",
    is_flag=True,
    help="Check Kubernetes ServiceAccount tokens with TokenReview (roles by --kube-role).",
)
@click.option(
    "--kube-role",
    "kube_roles",
    multiple=True,
    help="With --kube-auth: SUBJECT=ROLE[,ROLE], SUBJECT being serviceaccount:NS:NAME, "
    "group:NAME or user:NAME (repeatable).",
)
@click.option(
    "--kube-audience",
    default="autorecover",
    show_default=True,
    help="With --kube-auth: the audience tokens must be issued for.",
)
@click.option("--tls-cert", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Serve HTTPS with this certificate (PEM; with --tls-key).")  # fmt: skip
@click.option("--tls-key", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="The certificate's private key (PEM).")  # fmt: skip
@click.option(
    "--tls-client-ca",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Mutual TLS: verify client certificates signed by this CA; a certificate's CN is "
    "an agent's node (use a CA for agents only).",
)
@click.option(
    "--bmc-inventory",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Nodes' BMCs (TOML: [[bmc]] node, url, system, credentials = file:PATH or env:NAME): "
    "a silent node is power-cycled through Redfish. Without it a power cycle goes to a person.",
)
@click.option(
    "--insecure-no-auth",
    is_flag=True,
    help="No authentication: everyone may do everything. Local trials only: listens on "
    "loopback only.",
)
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(["debug", "info", "warning", "error"]),
)
def serve_cmd(
    store_url: str, listen: str, dry_run: bool, policies: tuple[Path, ...], scheduler: str,
    slurm_conf: Path | None, slurm_domain_features: tuple[str, ...], local_root: Path | None,
    local_nodes: str, fake_state: Path | None,
    fake_diagnostics_s: float, tick_s: float, settle_s: float, reconcile_s: float,
    intake_s: float, lease_ttl_s: float, max_waiting: int, fleet_size: int | None,
    retain_signals_days: float, max_body_bytes: int, rate_per_s: float, rate_burst: int,
    replica: str | None,
    leadership: str, lease_namespace: str, lease_name: str, kubeconfig: Path | None,
    namespaces: str, taint_effect: str, domain_labels: tuple[str, ...], dcgm_image: str,
    nccl_image: str | None, nccl_spool: Path | None, spool_dir: Path | None, spool_max_mib: int,
    pod_log_grace_s: float,
    tokens_file: Path | None, kube_auth: bool,
    kube_roles: tuple[str, ...], kube_audience: str, tls_cert: Path | None,
    tls_key: Path | None, tls_client_ca: Path | None, bmc_inventory: Path | None,
    insecure_no_auth: bool, log_level: str,
    alertmanager_urls: tuple[str, ...], alert_webhooks: tuple[str, ...],
    alert_webhook_secret_file: Path | None, alert_out_of_service_s: float, external_url: str,
    node_actions: str,
) -> None:  # fmt: skip
    """Run the engine: recovery controllers, signal intake and the HTTP API."""
    import logging
    import os

    from autorecover.adapters.clock import SystemClock
    from autorecover.adapters.kubernetes.stack import (
        KubeSettings,
        domain_labels_from,
        namespaces_from,
    )
    from autorecover.adapters.store.url import StoreUrlError, open_store, redact
    from autorecover.controllers.jobs.controller import JobSettings
    from autorecover.controllers.ports import PermanentError, TransientError
    from autorecover.server.engine import EngineSettings
    from autorecover.server.failpoints import ENV as FAILPOINT_ENV
    from autorecover.server.failpoints import failpoint_from, hooks_for
    from autorecover.server.identities import open_auth
    from autorecover.server.policies import load_policies
    from autorecover.server.serving import ListenError, check_listen, parse_listen, serve
    from autorecover.server.wiring import build_engine, cluster_for

    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        host, port = parse_listen(listen)
        tls = _tls_files(tls_cert, tls_key, tls_client_ca)
        auth, close_auth = open_auth(
            tokens_file=tokens_file, kube=kube_auth, kube_roles=kube_roles,
            kube_audiences=(kube_audience,), kubeconfig=kubeconfig,
            client_certs=tls_client_ca is not None, insecure=insecure_no_auth,
        )  # fmt: skip
        check_listen(host, auth)
    except (ValueError, OSError, TransientError) as exc:
        raise click.ClickException(str(exc)) from None
    try:
        loaded = load_policies([(str(p), p.read_text(encoding="utf-8")) for p in policies])
        store = open_store(store_url)
    except (ValueError, OSError, StoreUrlError) as exc:
        close_auth()
        raise click.ClickException(str(exc)) from None
    clock = SystemClock()
    settings = EngineSettings(
        dry_run=dry_run,
        tick_s=tick_s,
        reconcile_s=reconcile_s,
        intake_s=intake_s,
        lease_ttl_s=lease_ttl_s,
        max_waiting=max_waiting,
        fleet_size=fleet_size,
        retain_signals_days=retain_signals_days,
        max_body_bytes=max_body_bytes,
        rate_per_s=rate_per_s,
        rate_burst=rate_burst,
    )
    try:
        scheduler = _scheduler(scheduler)
        hardware_hooks, job_hooks = hooks_for(failpoint_from(os.environ.get(FAILPOINT_ENV)))
        kube = KubeSettings(
            kubeconfig=kubeconfig, namespaces=namespaces_from(namespaces),
            taint_effect=taint_effect, diagnostics_namespace=lease_namespace,
            dcgm_image=dcgm_image, spool=spool_dir, spool_max_mib=spool_max_mib,
            pod_log_grace_s=pod_log_grace_s,
            nccl_image=nccl_image,
            nccl=loaded.hardware.validation.nccl,
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
            slurm_conf=slurm_conf,
            slurm_domain_features=slurm_domain_features,
            nccl_spool=nccl_spool,
            jobs_settings=JobSettings(settle_s=settle_s),
            node_actions=node_actions,
            orders=store.orders,
            job_hooks=job_hooks,
        )
        alerting = _alerting(
            clock, dry_run, alertmanager_urls, alert_webhooks, alert_webhook_secret_file,
            alert_out_of_service_s, external_url,
        )  # fmt: skip
        if bmc_inventory is not None:
            cluster = _with_power(cluster, bmc_inventory)
        cluster_lease = None
        if leadership == "kubernetes":
            if cluster.leases is None:
                raise ValueError("--leadership kubernetes needs --scheduler kubernetes")
            cluster_lease = cluster.leases(lease_namespace, lease_name)
    except (ValueError, OSError, StoreUrlError, TransientError, PermanentError) as exc:
        close_auth()
        raise click.ClickException(str(exc)) from None
    engine = build_engine(store, clock, cluster, loaded, settings, replica=replica, jobs=jobs,
                          cluster_lease=cluster_lease, alerting=alerting,
                          hardware_hooks=hardware_hooks)  # fmt: skip
    scheme = "https" if tls else "http"
    click.echo(
        f"autorecover engine on {scheme}://{listen} scheduler={scheduler} "
        f"store={redact(store_url)} "
        f"replica={engine.leadership.holder}{' dry-run' if dry_run else ''}"
        f"{' NO AUTHENTICATION (--insecure-no-auth)' if insecure_no_auth else ''}",
        err=True,
    )
    click.echo(f"dashboard: {scheme}://{listen}/ui/", err=True)
    try:
        serve(engine, host, port, log_level, auth=auth, tls=tls)
    except ListenError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        cluster.close()  # the Kubernetes session's watches and loop; nothing for the others
        close_auth()


def _with_power(cluster: Cluster, inventory: Path) -> Cluster:
    """The cluster with out-of-band power through the BMCs the inventory names."""
    from dataclasses import replace

    from autorecover.adapters.redfish.inventory import load_inventory
    from autorecover.adapters.redfish.power import RedfishPower

    return replace(cluster, power=RedfishPower(load_inventory(inventory)))


def _scheduler(name: str) -> str:
    """The scheduler `--scheduler NAME` means here (`auto`: detected; ValueError if none)."""
    import os
    import shutil

    from autorecover.adapters.schedulers import AUTO, detect

    return detect(os.environ, shutil.which) if name == AUTO else name


def _alerting(
    clock: Clock, dry_run: bool, alertmanagers: tuple[str, ...], webhooks: tuple[str, ...],
    secret_file: Path | None, out_of_service_s: float, external_url: str,
) -> Alerting:  # fmt: skip
    """Where `serve`'s alerts go (ValueError names a bad URL or an empty secret)."""
    from datetime import timedelta

    from autorecover.adapters.alerting.posting import check_url
    from autorecover.domain.alerts import AlertSettings
    from autorecover.server.alerting import AlertConfig, open_alerting

    secret = None
    if secret_file is not None:
        secret = secret_file.read_bytes().strip()
        if not secret:
            raise ValueError(f"--alert-webhook-secret-file {secret_file}: the file is empty")
    if external_url:
        check_url(external_url, "--external-url")
    settings = AlertSettings(
        out_of_service_budget=timedelta(seconds=out_of_service_s), dry_run=dry_run,
        link=external_url,
    )  # fmt: skip
    config = AlertConfig(alertmanagers, webhooks, secret, settings)
    return open_alerting(config, clock)


def _tls_files(cert: Path | None, key: Path | None, client_ca: Path | None) -> TlsFiles | None:
    from autorecover.server.serving import TlsFiles

    if (cert is None) != (key is None):
        raise ValueError("--tls-cert and --tls-key go together")
    if cert is None or key is None:
        if client_ca is not None:
            raise ValueError("--tls-client-ca needs --tls-cert and --tls-key")
        return None
    return TlsFiles(cert, key, client_ca)
