"""`autorecover token new|hash`: bearer tokens for the engine's tokens file (docs/security.md).

`new` prints a fresh token once, on stdout (so `> alice.token` keeps it), and either appends
its entry to the tokens file itself (`--add-to FILE`: the file is checked first, made 0600 if
new, and nothing is written or printed when anything is wrong) or prints the entry on stderr;
`hash` reads a token on stdin and prints its entry (or just its `sha256 = ...` line). The
tokens file holds hashes only, never a token.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
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
      autorecover token new alice --role operator --add-to tokens.toml > alice.token
      autorecover token new gpu-01 --role agent --node gpu-01 > gpu-01.token
      autorecover token hash < alice.token
    """


@token_group.command("new")
@click.argument("name")
@_role_option
@_node_option
@click.option(
    "--add-to",
    "add_to",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append the entry to this tokens file (made 0600 if absent) instead of printing it.",
)
def new_cmd(name: str, roles: tuple[str, ...], node: str | None, add_to: Path | None) -> None:
    """Make a token for NAME: the token on stdout (shown once), its entry on stderr or --add-to."""
    from autorecover.server.tokens import entry_text, new_token, token_hash

    checked = _checked(name, roles, node)
    token = new_token()
    entry = entry_text(name, checked, node, token_hash(token))
    if add_to is not None:
        _append_entry(add_to, entry)
        click.echo(token)
        click.echo(f"added {name}'s entry to {add_to}", err=True)
        return
    click.echo(token)
    click.echo(
        "# Add to the engine's tokens file (it holds only the hash); give the token above to "
        f"{name} and keep it nowhere else:\n{entry}",
        err=True,
    )


def _append_entry(path: Path, entry: str) -> None:
    """Append ENTRY to the tokens file at PATH, refusing a file that is not one already.

    The file is read and parsed first, so a malformed file is named and left as it was (no
    token is printed for an entry that was never stored); a new file is created 0600.
    """
    from autorecover.server.tokens import TokensError, parse_tokens

    try:
        before = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"--add-to {path}: cannot read it: {exc}") from None
    # a blank line between entries, and a line end the file may lack
    sep = "" if not before.strip() else ("\n" if before.endswith("\n") else "\n\n")
    text = sep + entry
    try:
        parse_tokens(before + text, str(path))
    except TokensError as exc:
        raise click.UsageError(f"--add-to: {exc}; nothing was written") from None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise click.UsageError(f"--add-to {path}: cannot write it: {exc}") from None


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
