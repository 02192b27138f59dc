"""The knowledge catalog: XIDs and log signatures as versioned data, merged by key.

The built-in catalog ships as TOML in `domain/data/`. Operators override it with their own
TOML documents of the same shape: a table for a key that exists replaces only the fields it
names; a new key adds an entry; `enabled = false` switches an entry off. Nothing is ever
replaced wholesale, so a partial override cannot silently drop the built-in entries.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from importlib import resources
from typing import Any, TypeVar

from autorecover.domain.records import Blame, NodeAction, Source

CATALOG_SCHEMA = 1

_E = TypeVar("_E", Blame, NodeAction, Source)

# Context rules an XID entry may carry; attribution knows what each one means.
XID_RULES = frozenset(
    {
        "sympathetic",  # 45: ignore when it follows another XID on the node; alone it is teardown
        "app_if_all_nodes",  # 13/31: on every node of the job it is the application
        "driver_handled",  # 63: the driver handled it (row remap); informational
        "recovery_action_text",  # 154: follow the driver's recovery-action text
        "registers",  # 74, 144-150: keep the register details
        "contained",  # 94: the driver contained the memory error; an ECC error is the app's
    }
)


class CatalogError(ValueError):
    """A catalog document is malformed; the message names the document, key and field."""


@dataclass(frozen=True, slots=True)
class XidEntry:
    """One NVIDIA XID: the catalog's actions and what autorecover makes of it."""

    xid: int
    mnemonic: str
    blame: Blame
    node_action: NodeAction
    weight: int
    immediate: str  # the catalog's immediate action, copied exactly
    investigatory: str  # the catalog's investigatory action, copied exactly
    description: str
    example: str = ""
    rules: frozenset[str] = frozenset()
    enabled: bool = True


def reads_xid(key: str) -> bool:
    """A signature whose match is an XID, read through the XID catalog: the driver's own
    `kernel.xid` line, or a tool restating one (keys ending `.xid`, with a group `xid`)."""
    return key == "kernel.xid" or key.endswith(".xid")


@dataclass(frozen=True, slots=True)
class Signature:
    """A log signature: a pattern, where it applies, and what a match means."""

    key: str
    pattern: str  # Python regex searched in the line's message (prefixes stripped)
    anchors: tuple[str, ...]  # literals, one of which must occur in the raw line
    blame: Blame
    weight: int
    description: str
    node_action: NodeAction = NodeAction.NONE
    sources: frozenset[Source] = frozenset({Source.SYSTEM, Source.LOGS})
    example: str = ""
    expect: tuple[tuple[str, str], ...] = ()  # named captures the example must yield
    ignore_case: bool = False
    enabled: bool = True

    def compiled(self) -> re.Pattern[str]:
        """The signature's regex, compiled."""
        return re.compile(self.pattern, re.IGNORECASE if self.ignore_case else 0)


@dataclass(frozen=True, slots=True)
class Catalog:
    """All known XIDs and log signatures, keyed; the result of merging documents."""

    version: str
    xids: Mapping[int, XidEntry]
    signatures: Mapping[str, Signature]

    def xid(self, number: int) -> XidEntry | None:
        """The enabled entry for an XID, if any."""
        entry = self.xids.get(number)
        return entry if entry is not None and entry.enabled else None

    def active_signatures(self) -> tuple[Signature, ...]:
        """Enabled signatures, in key order (stable across runs)."""
        return tuple(s for _, s in sorted(self.signatures.items()) if s.enabled)

    def merged(self, document: Mapping[str, Any], origin: str) -> Catalog:
        """Return a catalog with one more document merged in by key."""
        _check_keys(document, {"schema", "version", "xid", "signature"}, origin, "")
        schema = document.get("schema", CATALOG_SCHEMA)
        if schema != CATALOG_SCHEMA:
            raise CatalogError(f"{origin}: schema {schema!r} is not supported (expected 1)")
        xids = dict(self.xids)
        for raw_key, table in _tables(document, "xid", origin):
            try:
                number = int(raw_key)
            except ValueError:
                raise CatalogError(f"{origin}: [xid.{raw_key}]: XID must be a number") from None
            xids[number] = _merge_xid(xids.get(number), number, table, f"{origin}: [xid.{raw_key}]")
        signatures = dict(self.signatures)
        for key, table in _tables(document, "signature", origin):
            where = f'{origin}: [signature."{key}"]'
            signatures[key] = _merge_signature(signatures.get(key), key, table, where)
        version = str(document.get("version", self.version))
        if self.version and version != self.version:
            version = f"{self.version}+{version}"
        return Catalog(version=version, xids=xids, signatures=signatures)


EMPTY = Catalog(version="", xids={}, signatures={})


def builtin_documents() -> list[tuple[str, Mapping[str, Any]]]:
    """The catalog documents that ship with autorecover, as (origin, parsed TOML)."""
    docs: list[tuple[str, Mapping[str, Any]]] = []
    data = resources.files("autorecover.domain") / "data"
    # One file per emitter family (signatures-<family>.toml) after the core signatures.toml.
    families = sorted(
        entry.name
        for entry in data.iterdir()
        if entry.name.startswith("signatures-") and entry.name.endswith(".toml")
    )
    for name in ("xids.toml", "signatures.toml", *families):
        text = (data / name).read_text(encoding="utf-8")
        docs.append((f"builtin:{name}", parse_document(text, f"builtin:{name}")))
    return docs


def parse_document(text: str, origin: str) -> Mapping[str, Any]:
    """Parse one TOML catalog document, naming the origin on error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{origin}: not valid TOML: {exc}") from None


def build_catalog(documents: Iterable[tuple[str, Mapping[str, Any]]]) -> Catalog:
    """Merge documents, in order, onto an empty catalog and validate the result."""
    catalog = EMPTY
    for origin, doc in documents:
        catalog = catalog.merged(doc, origin)
    return catalog


@functools.cache
def builtin_catalog() -> Catalog:
    """The built-in catalog alone, built once per process (a `Catalog` is never changed in
    place: `merged` returns a new one)."""
    return build_catalog(builtin_documents())


def _tables(document: Mapping[str, Any], section: str, origin: str) -> list[tuple[str, Any]]:
    value = document.get(section, {})
    if not isinstance(value, dict):
        raise CatalogError(f"{origin}: [{section}] must be a table of tables")
    out = []
    for key, table in value.items():
        if not isinstance(table, dict):
            raise CatalogError(f"{origin}: [{section}.{key}] must be a table")
        out.append((str(key), table))
    return out


def _check_keys(table: Mapping[str, Any], allowed: set[str], origin: str, where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise CatalogError(
            f"{origin}{where}: unknown field {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})"
        )


def _enum(kind: type[_E], value: Any, where: str, name: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(m.value for m in kind)
        raise CatalogError(f"{where}: field {name!r}: {value!r} is not one of {choices}") from None


def _typed(value: Any, kind: type, where: str, name: str) -> Any:
    if kind is int and isinstance(value, bool):
        raise CatalogError(f"{where}: field {name!r} must be an integer")
    if not isinstance(value, kind):
        raise CatalogError(f"{where}: field {name!r} must be of type {kind.__name__}")
    return value


def _weight(raw: Any, where: str) -> int:
    value = _typed(raw, int, where, "weight")
    if not 0 <= value <= 100:
        raise CatalogError(f"{where}: field 'weight' must be between 0 and 100")
    return int(value)


# How each field of an entry's table is read: (raw, where, name) -> value. Text by default.
_Read = Callable[[Any, str, str], Any]


def _text(raw: Any, where: str, name: str) -> str:
    return str(_typed(raw, str, where, name))


def _flag(raw: Any, where: str, name: str) -> bool:
    return bool(_typed(raw, bool, where, name))


def _xid_rules(raw: Any, where: str, name: str) -> frozenset[str]:
    rules = frozenset(_typed(r, str, where, name) for r in _typed(raw, list, where, name))
    if rules - XID_RULES:
        bad = sorted(rules - XID_RULES)[0]
        raise CatalogError(f"{where}: field 'rules': unknown rule {bad!r}")
    return rules


def _anchors(raw: Any, where: str, name: str) -> tuple[str, ...]:
    anchors = tuple(_typed(a, str, where, name) for a in _typed(raw, list, where, name))
    if not anchors or any(not a for a in anchors):
        raise CatalogError(f"{where}: field 'anchors' needs at least one non-empty literal")
    return anchors


def _sources(raw: Any, where: str, name: str) -> frozenset[Source]:
    return frozenset(_enum(Source, s, where, name) for s in _typed(raw, list, where, name))


def _expect(raw: Any, where: str, name: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), str(v)) for k, v in _typed(raw, dict, where, name).items()))


_COMMON: dict[str, _Read] = {
    "blame": lambda raw, where, name: _enum(Blame, raw, where, name),
    "node_action": lambda raw, where, name: _enum(NodeAction, raw, where, name),
    "weight": lambda raw, where, name: _weight(raw, where),
    "enabled": _flag,
}
_XID_READ = {**_COMMON, "rules": _xid_rules}
_SIG_READ = {
    **_COMMON,
    "ignore_case": _flag,
    "anchors": _anchors,
    "sources": _sources,
    "expect": _expect,
}
_XID_FIELDS = {f.name for f in fields(XidEntry)} - {"xid"}
_SIG_FIELDS = {f.name for f in fields(Signature)} - {"key"}


def _field_values(
    table: Mapping[str, Any], allowed: set[str], read: Mapping[str, _Read], where: str
) -> dict[str, Any]:
    """The fields an entry's table names, each checked and read, in the table's order."""
    _check_keys(table, allowed, where, "")
    return {name: (read.get(name) or _text)(raw, where, name) for name, raw in table.items()}


def _require(values: Mapping[str, Any], required: set[str], where: str) -> None:
    missing = sorted(required - set(values))
    if missing:
        raise CatalogError(f"{where}: new entry lacks field {missing[0]!r}")


def _merge_xid(
    base: XidEntry | None, number: int, table: Mapping[str, Any], where: str
) -> XidEntry:
    values = _field_values(table, _XID_FIELDS, _XID_READ, where)
    if base is not None:
        return replace(base, **values)
    _require(
        values, {"mnemonic", "blame", "node_action", "weight", "immediate", "investigatory"}, where
    )
    values.setdefault("description", "")
    return XidEntry(xid=number, **values)


def _merge_signature(
    base: Signature | None, key: str, table: Mapping[str, Any], where: str
) -> Signature:
    values = _field_values(table, _SIG_FIELDS, _SIG_READ, where)
    sig = replace(base, **values) if base is not None else _new_signature(key, values, where)
    try:
        sig.compiled()
    except re.error as exc:
        raise CatalogError(f"{where}: field 'pattern' is not a valid regex: {exc}") from None
    return sig


def _new_signature(key: str, values: dict[str, Any], where: str) -> Signature:
    _require(values, {"pattern", "anchors", "blame", "weight", "description"}, where)
    return Signature(key=key, **values)
