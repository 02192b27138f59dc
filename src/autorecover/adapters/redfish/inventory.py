"""The operator's BMC inventory: which BMC powers each node, and where its credentials are.

A TOML file (`serve --bmc-inventory FILE`), one table per node:

    [[bmc]]
    node = "gpu01"                   # the scheduler's node name
    url = "https://10.0.0.11"        # the BMC's Redfish service
    system = "1"                     # the ComputerSystem id under /redfish/v1/Systems/
    credentials = "file:/etc/autorecover/bmc/gpu01"   # or "env:GPU01_BMC"; holds user:password
    ca_file = "/etc/autorecover/bmc/ca.pem"           # optional: trust this CA for the BMC
    verify = true                    # optional: false turns TLS verification off (not advised)

Credentials are a reference, never a value: the file (or variable) is read when a BMC is
called, so a rotated password needs no restart, and the secret never sits in the inventory,
the store, a log line or an error message. A bad entry is an `InventoryError` naming the file,
the entry and the field.
"""

from __future__ import annotations

import os
import re
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")
SYSTEM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_FIELDS = frozenset({"node", "url", "system", "credentials", "ca_file", "verify"})


class InventoryError(ValueError):
    """The inventory (or a credentials reference) is malformed or cannot be read."""


@dataclass(frozen=True, slots=True)
class Bmc:
    """One node's BMC: where it answers, which system is the node, where its secret is."""

    node: str
    url: str
    system: str
    credentials: str  # "file:/path" or "env:NAME": a reference, never the secret
    ca_file: Path | None = None
    verify: bool = True

    def login(self) -> tuple[str, str]:
        """The account's user and password, read now from the reference."""
        kind, _, where = self.credentials.partition(":")
        what = f"credentials of {self.node} ({self.credentials})"
        if kind == "file":
            try:
                text = Path(where).read_text(encoding="utf-8")
            except OSError as exc:
                raise InventoryError(f"{what}: cannot read: {exc.strerror}") from None
        else:
            text = os.environ.get(where, "")
            if not text:
                raise InventoryError(f"{what}: the variable is not set")
        user, sep, password = text.strip().partition(":")
        if not sep or not user or not password:
            raise InventoryError(f"{what}: must hold user:password")  # never echo the content
        return user, password


@dataclass(frozen=True, slots=True)
class Inventory:
    """Every node's BMC, by node name."""

    bmcs: Mapping[str, Bmc]
    origin: str = ""

    def of(self, node: str) -> Bmc | None:
        """The node's BMC, if the inventory has one."""
        return self.bmcs.get(node)


def load_inventory(path: Path) -> Inventory:
    """Read and check an inventory file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InventoryError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_inventory(text, str(path))


def parse_inventory(text: str, origin: str) -> Inventory:
    """Check an inventory document; errors name `origin`, the entry and the field."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InventoryError(f"{origin}: not valid TOML: {exc}") from None
    unknown = sorted(set(document) - {"bmc"})
    if unknown:
        raise InventoryError(f"{origin}: unknown table {unknown[0]!r} (expected [[bmc]])")
    entries = document.get("bmc", [])
    if not isinstance(entries, list):
        raise InventoryError(f"{origin}: bmc must be an array of tables ([[bmc]])")
    bmcs: dict[str, Bmc] = {}
    for i, raw in enumerate(entries):
        where = f"{origin}: bmc[{i}]"
        if not isinstance(raw, dict):
            raise InventoryError(f"{where}: must be a table")
        bmc = _entry(raw, where)
        if bmc.node in bmcs:
            raise InventoryError(f"{where} ({bmc.node}): field 'node': listed twice")
        bmcs[bmc.node] = bmc
    return Inventory(bmcs, origin)


def _entry(raw: Mapping[str, Any], where: str) -> Bmc:
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        raise InventoryError(
            f"{where}: unknown field {unknown[0]!r} (allowed: {', '.join(sorted(_FIELDS))})"
        )
    node = _text(raw, "node", where)
    if not NODE_NAME.fullmatch(node):
        raise InventoryError(f"{where}: field 'node': {node!r} is not a valid node name")
    where = f"{where} ({node})"
    url = _text(raw, "url", where).rstrip("/")
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or parsed.username:
        raise InventoryError(
            f"{where}: field 'url': must be https://host[:port] (no user or password in it)"
        )
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise InventoryError(f"{where}: field 'url': the BMC's address only, no path")
    system = _text(raw, "system", where) if "system" in raw else "1"
    if not SYSTEM_ID.fullmatch(system):
        raise InventoryError(f"{where}: field 'system': {system!r} is not a system id")
    credentials = _text(raw, "credentials", where)
    kind, _, ref = credentials.partition(":")
    if kind == "file" and not Path(ref).is_absolute():
        raise InventoryError(f"{where}: field 'credentials': file: needs an absolute path")
    if kind == "env" and not ENV_NAME.fullmatch(ref):
        raise InventoryError(f"{where}: field 'credentials': env: needs a variable name")
    if kind not in ("file", "env"):
        raise InventoryError(
            f"{where}: field 'credentials': a reference, file:/path or env:NAME (never the "
            "password itself)"
        )
    ca_file = Path(_text(raw, "ca_file", where)) if "ca_file" in raw else None
    if ca_file is not None and not ca_file.is_file():
        raise InventoryError(f"{where}: field 'ca_file': {ca_file} is not a file")
    verify = raw.get("verify", True)
    if not isinstance(verify, bool):
        raise InventoryError(f"{where}: field 'verify': must be true or false")
    return Bmc(node, url, system, credentials, ca_file, verify)


def _text(raw: Mapping[str, Any], name: str, where: str) -> str:
    if name not in raw:
        raise InventoryError(f"{where}: field {name!r} is missing")
    value = raw[name]
    if not isinstance(value, str) or not value:
        raise InventoryError(f"{where}: field {name!r}: must be a non-empty string")
    return value
