"""`autorecover nodes|jobs|incidents|incident ID`: what a running engine sees and did.

Each reads the engine's HTTP API (`--engine`, default http://127.0.0.1:8080) and prints a
table, or `--json` for machines. Credentials (docs/security.md): a bearer token from
`--token-file` or AUTORECOVER_TOKEN (the token itself, kept out of the command line), the CA
to verify an https engine by (`--ca-file`), a client certificate (`--client-cert`/`--client-key`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from autorecover.cli.credentials import credential_options, credentials_from
from autorecover.cli.deferred import Deferred

if TYPE_CHECKING:
    from autorecover.adapters.http.credentials import ClientCredentials

engine_option = click.option(
    "--engine",
    "engine_url",
    type=str,
    default=Deferred("autorecover.adapters.http.engine_api:DEFAULT_ENGINE"),
    envvar="AUTORECOVER_ENGINE",
    show_default=True,
    help="The engine's base URL (also AUTORECOVER_ENGINE).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")


def _read(engine_url: str, path: str, credentials: ClientCredentials) -> Any:
    from autorecover.adapters.http.engine_api import EngineApi, EngineApiError

    try:
        return EngineApi(engine_url, credentials=credentials).get(path)
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
    @credential_options
    def command(engine_url: str, as_json: bool, **creds: Any) -> None:
        found = _read(engine_url, path, credentials_from(**creds))
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


def _incident_row(i: Any) -> Sequence[str]:
    return (i["id"], i["source"], i["cause"], i["state"], _when(i["opened_at"]),
            ",".join(i["nodes"]) or "-", i["summary"])  # fmt: skip


@click.command("incidents", help="The newest incidents, hardware and job, oldest first.")
@click.option("--limit", type=click.IntRange(1, 100_000), default=1000, show_default=True,
              help="How many of the newest to list.")  # fmt: skip
@click.option("--open", "open_only", is_flag=True,
              help="Every open incident instead, however old: what waits on someone.")  # fmt: skip
@engine_option
@json_option
@credential_options
def incidents_cmd(
    limit: int, open_only: bool, engine_url: str, as_json: bool, **creds: Any
) -> None:
    asked = min(limit + 1, 100_000)  # one more than shown: whether the list was cut
    query = f"limit={asked}" + ("&state=open" if open_only else "")
    found = _read(engine_url, f"/api/v1/incidents?{query}", credentials_from(**creds))
    cut = not open_only and len(found) > limit
    found = found[len(found) - limit :] if cut else found
    if as_json:
        click.echo(json.dumps(found, indent=2))
    elif not found:
        click.echo("no open incidents" if open_only else "no incidents")
    else:
        header = ("INCIDENT", "SOURCE", "CAUSE", "STATE", "OPENED", "NODES", "SUMMARY")
        click.echo(table([_incident_row(i) for i in found], header))
        if cut:
            click.echo(f"(the newest {limit}; --limit for more)", err=True)


@click.command("incident")
@click.argument("incident_id")
@engine_option
@json_option
@credential_options
def incident_cmd(incident_id: str, engine_url: str, as_json: bool, **creds: Any) -> None:
    """One incident: what, where, the evidence and the timeline."""
    from autorecover.adapters.http.engine_api import quoted

    found = _read(engine_url, f"/api/v1/incidents/{quoted(incident_id)}", credentials_from(**creds))
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


VIEWS = (nodes_cmd, jobs_cmd, incidents_cmd, incident_cmd)
