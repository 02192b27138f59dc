"""Bearer tokens: the tokens file (TOML, SHA-256 hashes only), minting, hashing and matching.

The file names each client, its roles and, for an agent, its node, with the SHA-256 of its
token; the token itself is never stored. Rotation without a restart: add an entry with the
new token's hash (the same name may appear more than once), move the client to the new
token, remove the old entry; the engine re-reads the file when it changes
(`adapters.reloading`). Standard library only: `autorecover token` imports this.

    [[token]]
    name = "gpu-01"
    roles = ["agent"]
    node = "gpu-01"
    sha256 = "3f1c...64 hex digits"
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import tomllib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

TOKEN_PREFIX = "ar_"  # noqa: S105 - a prefix, not a secret
# A client's name and an agent's node: a hostname's characters (as the agent's node names).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,252}")
NODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")
_HEX = re.compile(r"[0-9a-f]{64}")
_KEYS = frozenset({"name", "roles", "node", "sha256"})


class Role(StrEnum):
    """What a caller may do (docs/security.md): persisted in tokens files, never rename."""

    AGENT = "agent"  # post signals for its own node
    VIEWER = "viewer"  # read states, incidents, actions, jobs, policies, metrics
    EVIDENCE = "evidence"  # read what carries log lines (evidence); implies viewer
    OPERATOR = "operator"  # every change under /api/v1 but signals; implies viewer, evidence


# The roles each role includes (itself too). An agent reads nothing.
IMPLIED: Mapping[Role, frozenset[Role]] = {
    Role.AGENT: frozenset({Role.AGENT}),
    Role.VIEWER: frozenset({Role.VIEWER}),
    Role.EVIDENCE: frozenset({Role.EVIDENCE, Role.VIEWER}),
    Role.OPERATOR: frozenset({Role.OPERATOR, Role.EVIDENCE, Role.VIEWER}),
}


class TokensError(ValueError):
    """A tokens file or a role list is malformed; the message names the entry and field."""


@dataclass(frozen=True, slots=True)
class TokenEntry:
    """One client: its name, roles, node (agents only) and its token's SHA-256."""

    name: str
    roles: frozenset[Role]
    node: str | None
    digest: bytes  # SHA-256 of the token's UTF-8 bytes


@dataclass(frozen=True, slots=True)
class TokenTable:
    """The entries of one tokens file, indexed by digest."""

    entries: tuple[TokenEntry, ...] = ()
    by_digest: Mapping[bytes, TokenEntry] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, entries: Iterable[TokenEntry]) -> TokenTable:
        """A table of these entries (their digests are distinct)."""
        listed = tuple(entries)
        return cls(listed, {e.digest: e for e in listed})

    def match(self, token: str) -> TokenEntry | None:
        """The entry whose hash is this token's, or None.

        The presented token is hashed and looked up by its digest: the lookup's timing
        depends only on the hash of what the caller sent, which says nothing about any
        stored token; the final comparison is constant-time (`hmac.compare_digest`)."""
        digest = token_digest(token)
        found = self.by_digest.get(digest)
        if found is None or not hmac.compare_digest(found.digest, digest):
            return None
        return found


def token_digest(token: str) -> bytes:
    """The SHA-256 of a token (surrounding whitespace, as a file's newline, is not part)."""
    return hashlib.sha256(token.strip().encode("utf-8")).digest()


def token_hash(token: str) -> str:
    """The hex SHA-256 a tokens file stores for `token`."""
    return token_digest(token).hex()


def new_token() -> str:
    """A fresh token: 256 random bits, URL-safe, with a prefix that secret scanners know."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def parse_roles(values: Iterable[str], where: str) -> frozenset[Role]:
    """Role names -> roles; TokensError naming `where` for an unknown or missing one."""
    roles = set()
    for value in values:
        try:
            roles.add(Role(str(value).strip()))
        except ValueError:
            known = ", ".join(r.value for r in Role)
            raise TokensError(f"{where}: unknown role {value!r} (roles: {known})") from None
    if not roles:
        raise TokensError(f"{where}: at least one role is needed")
    return frozenset(roles)


def check_entry(
    name: str, roles: Collection[Role], node: str | None, where: str
) -> tuple[str, frozenset[Role], str | None]:
    """The checks every entry passes (also before `autorecover token` prints one)."""
    if not NAME.fullmatch(name):
        raise TokensError(f"{where}.name: {name!r} is not a name (letters, digits, ._@-)")
    if Role.AGENT in roles and node is None:
        raise TokensError(f"{where}.node: an agent's token names its node")
    if node is not None and Role.AGENT not in roles:
        raise TokensError(f"{where}.node: only an agent's token names a node")
    if node is not None and not NODE.fullmatch(node):
        raise TokensError(f"{where}.node: {node!r} is not a node name")
    return name, frozenset(roles), node


def parse_tokens(text: str, source: str = "tokens file") -> TokenTable:
    """A tokens file's entries; TokensError names the entry and field that is wrong."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TokensError(f"{source}: not TOML: {exc}") from None
    unknown = sorted(set(doc) - {"token"})
    if unknown:
        raise TokensError(f"{source}: unknown table {unknown[0]!r} (expected [[token]])")
    raw = doc.get("token", [])
    if not isinstance(raw, list):
        raise TokensError(f"{source}: token must be an array of tables ([[token]])")
    entries: list[TokenEntry] = []
    seen: dict[bytes, str] = {}
    for i, item in enumerate(raw):
        where = f"{source}: token[{i}]"
        entry = _entry(item, where)
        if entry.digest in seen:
            raise TokensError(f"{where}.sha256: the same hash as {seen[entry.digest]}")
        seen[entry.digest] = f"token[{i}] ({entry.name})"
        entries.append(entry)
    return TokenTable.of(entries)


def _entry(item: Any, where: str) -> TokenEntry:
    if not isinstance(item, dict):
        raise TokensError(f"{where}: must be a table")
    extra = sorted(set(item) - _KEYS)
    if extra:
        raise TokensError(f"{where}.{extra[0]}: unknown field (fields: {', '.join(sorted(_KEYS))})")
    for key in ("name", "roles", "sha256"):
        if key not in item:
            raise TokensError(f"{where}.{key}: missing")
    name, roles_raw, digest_hex = item["name"], item["roles"], item["sha256"]
    node = item.get("node")
    if not isinstance(name, str):
        raise TokensError(f"{where}.name: must be a string")
    if not isinstance(roles_raw, list) or not all(isinstance(r, str) for r in roles_raw):
        raise TokensError(f"{where}.roles: must be a list of role names")
    if node is not None and not isinstance(node, str):
        raise TokensError(f"{where}.node: must be a string")
    if not isinstance(digest_hex, str) or not _HEX.fullmatch(digest_hex.lower()):
        raise TokensError(
            f"{where}.sha256: must be 64 hex digits (the token's SHA-256, never the token)"
        )
    roles = parse_roles(roles_raw, f"{where}.roles")
    name, roles, node = check_entry(name, roles, node, where)
    return TokenEntry(name, roles, node, bytes.fromhex(digest_hex.lower()))


def entry_text(name: str, roles: Collection[Role], node: str | None, digest_hex: str) -> str:
    """One `[[token]]` entry as a tokens file holds it (strings quoted as TOML wants)."""
    check_entry(name, roles, node, "entry")
    listed = ", ".join(json.dumps(r.value) for r in sorted(roles))
    lines = ["[[token]]", f"name = {json.dumps(name)}", f"roles = [{listed}]"]
    if node is not None:
        lines.append(f"node = {json.dumps(node)}")
    lines.append(f'sha256 = "{digest_hex}"')
    return "\n".join(lines) + "\n"
