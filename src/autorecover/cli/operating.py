"""Operator controls from the command line, through the engine's HTTP API (docs/engine.md).

`autorecover node release`, `maintenance start|end|list`, `breaker show|reset`,
`acting pause|resume|status`, `acknowledge`, `job retry|stop` and `audit`. Each control
sends `why` and a request id (a fresh one unless `--request-id` names one, so a retry is
the same request) and prints how the engine recorded it; `--wait` follows a pending request
until the leader has settled it. A refused request exits with status 1.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from autorecover.cli.credentials import credential_options, credentials_from
from autorecover.cli.views import _read as _read_as
from autorecover.cli.views import _when, engine_option, json_option, table

if TYPE_CHECKING:
    from autorecover.adapters.http.credentials import ClientCredentials

why_option = click.option(
    "--why", required=True, help="Why (recorded in the audit with who, when and from where)."
)
request_option = click.option(
    "--request-id",
    default=None,
    help="Name the request: sending it again is the same request. Default: a fresh id.",
)
wait_option = click.option(
    "--wait",
    "wait_s",
    type=click.FloatRange(0, 3600),
    default=0.0,
    show_default=True,
    help="Seconds to wait for the leader to settle a pending request.",
)


@dataclass(frozen=True, slots=True)
class Target:
    """The engine a command talks to, and the credentials it calls with."""

    url: str
    credentials: ClientCredentials


def engine_target(f: Callable[..., Any]) -> Callable[..., Any]:
    """`--engine` and the credential options, given to the command as one `Target`."""

    @functools.wraps(f)
    def command(
        *args: Any, engine_url: str, token_file: Path | None, ca_file: Path | None,
        client_cert: Path | None, client_key: Path | None, **kwargs: Any,
    ) -> Any:  # fmt: skip
        credentials = credentials_from(token_file, ca_file, client_cert, client_key)
        return f(*args, engine=Target(engine_url, credentials), **kwargs)

    return engine_option(credential_options(command))


def _read(engine: Target, path: str) -> Any:
    return _read_as(engine.url, path, engine.credentials)


def _send(engine: Target, method: str, path: str, body: dict[str, Any]) -> Any:
    from autorecover.adapters.http.engine_api import EngineApi, EngineApiError

    try:
        return EngineApi(engine.url, credentials=engine.credentials).send(method, path, body)
    except EngineApiError as exc:
        raise click.ClickException(str(exc)) from None


def _control(
    engine: Target,
    method: str,
    path: str,
    body: dict[str, Any],
    as_json: bool,
    wait_s: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    from autorecover.adapters.http.engine_api import quoted

    body = {**body, "request_id": body.get("request_id") or uuid.uuid4().hex}
    found = _send(engine, method, path, body)
    deadline = clock() + wait_s
    while found["status"] == "pending" and clock() < deadline:
        time.sleep(min(0.5, max(0.0, deadline - clock())))
        found = _read(engine, f"/api/v1/requests/{quoted(found['id'])}")
    if as_json:
        click.echo(json.dumps(found, indent=2))
    else:
        click.echo(_line(found))
    if found["status"] == "refused":
        raise SystemExit(1)


def _line(r: dict[str, Any]) -> str:
    what = f"{r['kind']} {r['target']}".rstrip()
    how = {
        "pending": "recorded, pending: the leader acts on its next pass",
        "done": "done",
        "refused": "refused",
    }[r["status"]]
    result = f": {r['result']}" if r["result"] else ""
    return f"{what}: {how}{result} (request {r['id']}, by {r['by']})"


def _requests_table(found: list[dict[str, Any]], empty: str) -> str:
    if not found:
        return empty
    rows = [
        (_when(r["at"]), r["kind"], r["target"] or "-", r["by"], r["source"] or "-",
         r["status"], r["why"] + (f" ({r['result']})" if r["result"] else ""))
        for r in found
    ]  # fmt: skip
    return table(rows, ("AT", "KIND", "TARGET", "BY", "FROM", "STATUS", "WHY"))


# --- nodes ----------------------------------------------------------------------------------


@click.group("node")
def node_group() -> None:
    """One node: hand it back to service."""


@node_group.command("release")
@click.argument("node")
@why_option
@click.option(
    "--validate-first",
    is_flag=True,
    help="From needs_attention: validate (a diagnostic under load) before it returns.",
)
@request_option
@wait_option
@engine_target
@json_option
def release_cmd(
    node: str, why: str, validate_first: bool, request_id: str | None, wait_s: float,
    engine: Target, as_json: bool,
) -> None:  # fmt: skip
    """Release NODE from any state of ours (needs_attention, quarantine, ...) to service."""
    from autorecover.adapters.http.engine_api import quoted

    body = {"why": why, "request_id": request_id, "validate_first": validate_first}
    _control(engine, "POST", f"/api/v1/nodes/{quoted(node)}/release", body, as_json, wait_s)


# --- maintenance ----------------------------------------------------------------------------


@click.group("maintenance")
def maintenance_group() -> None:
    """Maintenance: the engine keeps its hands off a node or a whole failure domain.

    TARGET is a node (NAME or node:NAME) or a failure domain as the topology names it:
    rack:NAME, nvlink:NAME or ib_leaf:NAME. Signals are still recorded; nothing is decided,
    done or counted against the breaker for it until maintenance ends.
    """


def _maintenance(method: str, target: str, why: str, request_id: str | None, engine: Target,
                 as_json: bool) -> None:  # fmt: skip
    from autorecover.adapters.http.engine_api import quoted

    body = {"why": why, "request_id": request_id}
    _control(engine, method, f"/api/v1/maintenance/{quoted(target)}", body, as_json)


@maintenance_group.command("start")
@click.argument("target")
@why_option
@request_option
@engine_target
@json_option
def maintenance_start_cmd(
    target: str, why: str, request_id: str | None, engine: Target, as_json: bool
) -> None:
    """Put TARGET into maintenance."""
    _maintenance("PUT", target, why, request_id, engine, as_json)


@maintenance_group.command("end")
@click.argument("target")
@why_option
@request_option
@engine_target
@json_option
def maintenance_end_cmd(
    target: str, why: str, request_id: str | None, engine: Target, as_json: bool
) -> None:
    """Take TARGET out of maintenance."""
    _maintenance("DELETE", target, why, request_id, engine, as_json)


@maintenance_group.command("list")
@engine_target
@json_option
def maintenance_list_cmd(engine: Target, as_json: bool) -> None:
    """What is in maintenance, who put it there and why."""
    found = _read(engine, "/api/v1/maintenance")
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    click.echo(_requests_table(found, "nothing in maintenance"))


# --- the breaker ----------------------------------------------------------------------------


@click.group("breaker")
def breaker_group() -> None:
    """The circuit breaker on taking nodes out of service."""


@breaker_group.command("show")
@engine_target
@json_option
def breaker_show_cmd(engine: Target, as_json: bool) -> None:
    """The breaker (and dry-run's would-have one), with who reset it last."""
    found = _read(engine, "/api/v1/breaker")
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    click.echo(f"mode: {found['mode']}")
    for name in ("live", "dry_run"):
        b = found[name]
        state = (
            f"TRIPPED since {_when(b['tripped_at'])}: {b['reason']}" if b["tripped"] else "closed"
        )
        reset = (
            f"; last reset by {b['reset_by']} at {_when(b['reset_at'])}: {b['reset_why']}"
            if b["reset_by"]
            else ""
        )
        click.echo(f"{name.replace('_', '-')}: {state}{reset}")


@breaker_group.command("reset")
@why_option
@request_option
@wait_option
@engine_target
@json_option
def breaker_reset_cmd(
    why: str, request_id: str | None, wait_s: float, engine: Target, as_json: bool
) -> None:
    """Close the tripped breaker: new quarantines are allowed again."""
    body = {"why": why, "request_id": request_id}
    _control(engine, "POST", "/api/v1/breaker/reset", body, as_json, wait_s)


# --- acting ---------------------------------------------------------------------------------


@click.group("acting")
def acting_group() -> None:
    """Pause or resume all acting, without a restart."""


@acting_group.command("pause")
@why_option
@request_option
@engine_target
@json_option
def pause_cmd(why: str, request_id: str | None, engine: Target, as_json: bool) -> None:
    """Pause: decisions are recorded as held, nothing is executed."""
    body = {"why": why, "request_id": request_id}
    _control(engine, "POST", "/api/v1/acting/pause", body, as_json)


@acting_group.command("resume")
@why_option
@request_option
@engine_target
@json_option
def resume_cmd(why: str, request_id: str | None, engine: Target, as_json: bool) -> None:
    """Resume: the next passes execute what waits and decide what was held."""
    body = {"why": why, "request_id": request_id}
    _control(engine, "POST", "/api/v1/acting/resume", body, as_json)


@acting_group.command("status")
@engine_target
@json_option
def acting_status_cmd(engine: Target, as_json: bool) -> None:
    """Whether the engine acts, and what is in maintenance."""
    found = _read(engine, "/api/v1/acting")
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    paused = found["request"]
    if paused:
        click.echo(f"acting: PAUSED by {paused['by']} at {_when(paused['at'])}: {paused['why']}")
    else:
        click.echo("acting: active")
    click.echo(f"maintenance: {', '.join(r['target'] for r in found['maintenance']) or 'none'}")


# --- incidents, jobs, the audit -------------------------------------------------------------


@click.command("acknowledge")
@click.argument("incident_id")
@why_option
@request_option
@engine_target
@json_option
def acknowledge_cmd(
    incident_id: str, why: str, request_id: str | None, engine: Target, as_json: bool
) -> None:
    """Acknowledge an incident (hardware or job): a person has it; shown in its history."""
    from autorecover.adapters.http.engine_api import quoted

    body = {"why": why, "request_id": request_id}
    path = f"/api/v1/incidents/{quoted(incident_id)}/acknowledge"
    _control(engine, "POST", path, body, as_json)


@click.group("job")
def job_group() -> None:
    """One job's recovery: retry it now, or stop recovering it."""


def _job(kind: str, job: str, why: str, request_id: str | None, wait_s: float, engine: Target,
         as_json: bool) -> None:  # fmt: skip
    from autorecover.adapters.http.engine_api import quoted

    body = {"why": why, "request_id": request_id}
    _control(engine, "POST", f"/api/v1/jobs/{quoted(job)}/{kind}", body, as_json, wait_s)


@job_group.command("retry")
@click.argument("job")
@why_option
@request_option
@wait_option
@engine_target
@json_option
def job_retry_cmd(
    job: str, why: str, request_id: str | None, wait_s: float, engine: Target, as_json: bool
) -> None:
    """Requeue JOB now (its exclusions kept, no budget spent); recover it again if stopped."""
    _job("retry", job, why, request_id, wait_s, engine, as_json)


@job_group.command("stop")
@click.argument("job")
@why_option
@request_option
@wait_option
@engine_target
@json_option
def job_stop_cmd(
    job: str, why: str, request_id: str | None, wait_s: float, engine: Target, as_json: bool
) -> None:
    """Stop recovering JOB: job recovery leaves it alone until a retry is asked for."""
    _job("stop", job, why, request_id, wait_s, engine, as_json)


@click.command("audit")
@click.option("--target", default=None, help="Only requests about this node, incident or job.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
@engine_target
@json_option
def audit_cmd(target: str | None, limit: int, engine: Target, as_json: bool) -> None:
    """Every operator request: who, when, from where, why, and how it ended."""
    from urllib.parse import urlencode

    query = urlencode({k: v for k, v in (("target", target), ("limit", limit)) if v is not None})
    found = _read(engine, f"/api/v1/audit?{query}")
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    click.echo(_requests_table(found, "no operator requests yet"))


CONTROLS = (
    node_group, maintenance_group, breaker_group, acting_group, acknowledge_cmd, job_group,
    audit_cmd,
)  # fmt: skip
