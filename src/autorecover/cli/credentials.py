"""The options a client of the engine gives its credentials with (docs/security.md).

A bearer token from `--token-file` (re-read on every request) or AUTORECOVER_TOKEN (the
token itself, kept out of the command line and `ps`), the CA to verify an https engine by,
and a client certificate and key for mutual TLS. Shared by the views and `agent run`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from autorecover.adapters.http.credentials import ClientCredentials

_FILE = click.Path(path_type=Path, dir_okay=False)


def credential_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """`--token-file`, `--ca-file`, `--client-cert`, `--client-key` (and their variables)."""
    for decorate in reversed([
        click.option("--token-file", type=_FILE, envvar="AUTORECOVER_TOKEN_FILE",
                     help="A file holding the bearer token (also AUTORECOVER_TOKEN_FILE; "
                     "or the token itself in AUTORECOVER_TOKEN)."),
        click.option("--ca-file", type=_FILE, envvar="AUTORECOVER_CA_FILE",
                     help="Verify an https engine by this CA (PEM; also AUTORECOVER_CA_FILE)."),
        click.option("--client-cert", type=_FILE, envvar="AUTORECOVER_CLIENT_CERT",
                     help="A client certificate for mutual TLS (PEM; with --client-key)."),
        click.option("--client-key", type=_FILE, envvar="AUTORECOVER_CLIENT_KEY",
                     help="The client certificate's key (PEM)."),
    ]):  # fmt: skip
        f = decorate(f)
    return f


def credentials_from(
    token_file: Path | None, ca_file: Path | None, client_cert: Path | None,
    client_key: Path | None,
) -> ClientCredentials:  # fmt: skip
    """The credentials the options and AUTORECOVER_TOKEN give."""
    import os

    from autorecover.adapters.http.credentials import ClientCredentials, CredentialsError

    try:
        return ClientCredentials(
            token=None if token_file else os.environ.get("AUTORECOVER_TOKEN"),
            token_file=token_file, ca_file=ca_file, cert_file=client_cert, key_file=client_key,
        )  # fmt: skip
    except CredentialsError as exc:
        raise click.UsageError(str(exc)) from None
