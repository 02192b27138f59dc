"""`autorecover token new|hash`: bearer tokens for the engine's tokens file (docs/security.md).

`new` prints a fresh token once, on stdout (so `> alice.token` keeps it), and the entry to
add to the tokens file on stderr; `hash` reads a token on stdin and prints its entry (or
just its `sha256 = ...` line). The tokens file holds hashes only, never a token.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from autorecover.server.tokens import Role

ROLES = ("agent", "viewer", "evidence", "operator")

_role_option = click.option(
    "--role",
    "roles",
    multiple=True,
    type=click.Choice(ROLES),
    help="A role (repeatable): agent, viewer, evidence, operator.",
)
_node_option = click.option("--node", help="An agent's node: it may report for this node only.")


@click.group("token")
def token_group() -> None:
    """Bearer tokens for the engine: make one, or hash one for the tokens file.

    \b
      autorecover token new alice --role operator > alice.token
      autorecover token new gpu-01 --role agent --node gpu-01 > gpu-01.token
      autorecover token hash < alice.token
    """


@token_group.command("new")
@click.argument("name")
@_role_option
@_node_option
def new_cmd(name: str, roles: tuple[str, ...], node: str | None) -> None:
    """Make a token for NAME: the token on stdout (shown once), the entry on stderr."""
    from autorecover.server.tokens import entry_text, new_token, token_hash

    checked = _checked(name, roles, node)
    token = new_token()
    click.echo(token)
    click.echo(
        "# Add to the engine's tokens file (it holds only the hash); give the token above to "
        f"{name} and keep it nowhere else:\n{entry_text(name, checked, node, token_hash(token))}",
        err=True,
    )


@token_group.command("hash")
@click.option("--name", help="Print a whole entry for this client (with --role).")
@_role_option
@_node_option
def hash_cmd(name: str | None, roles: tuple[str, ...], node: str | None) -> None:
    """Read a token on stdin; print its `sha256 = ...` line, or its entry with --name."""
    from autorecover.server.tokens import entry_text, token_hash

    token = sys.stdin.read().strip()
    if not token:
        raise click.UsageError("no token on stdin")
    digest = token_hash(token)
    if name is None:
        if roles or node:
            raise click.UsageError("--role and --node need --name")
        click.echo(f'sha256 = "{digest}"')
        return
    click.echo(entry_text(name, _checked(name, roles, node), node, digest), nl=False)


def _checked(name: str, roles: tuple[str, ...], node: str | None) -> frozenset[Role]:
    from autorecover.server.tokens import Role, TokensError, check_entry

    if not roles:
        raise click.UsageError("give at least one --role")
    parsed = frozenset(Role(r) for r in roles)
    try:
        check_entry(name, parsed, node, "token")
    except TokensError as exc:
        raise click.UsageError(str(exc)) from None
    return parsed
