"""Loading the hardware policy: TOML documents merged by key onto the built-in one.

The built-in policy ships as `data/hardware-policy.toml`. An operator document has the same
shape; a table names only the fields it changes and a new key adds an entry, so a partial
override never silently drops the built-in entries (the catalog's rule, ADR 0004).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import timedelta
from enum import StrEnum
from importlib import resources
from types import MappingProxyType
from typing import Any

from autorecover.domain.failure_domains import DomainKind
from autorecover.domain.hardware.policy import HardwarePolicy, Rule, SignalClass
from autorecover.domain.hardware.remediation import Step
from autorecover.domain.hardware.validation import validation_policy
from autorecover.domain.records import NodeAction
from autorecover.domain.signals import Probe

POLICY_SCHEMA = 1


class PolicyError(ValueError):
    """A policy document is malformed; the message names the document, table and field."""


Convert = Callable[[Any, str], Any]


def _seconds(raw: Any, where: str) -> timedelta:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
        raise PolicyError(f"{where}: must be a positive number of seconds")
    return timedelta(seconds=raw)


def _count_of(low: int) -> Convert:
    def convert(raw: Any, where: str) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < low:
            raise PolicyError(f"{where}: must be an integer >= {low}")
        return raw

    return convert


def _fraction(raw: Any, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw <= 1:
        raise PolicyError(f"{where}: must be a fraction in (0, 1]")
    return float(raw)


def _rate(raw: Any, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
        raise PolicyError(f"{where}: must be a positive number")
    return float(raw)


def _flag(raw: Any, where: str) -> bool:
    if not isinstance(raw, bool):
        raise PolicyError(f"{where}: must be true or false")
    return raw


def _choice(kind: type[StrEnum]) -> Convert:
    def convert(raw: Any, where: str) -> Any:
        try:
            return kind(raw)
        except ValueError:
            choices = ", ".join(m.value for m in kind)
            raise PolicyError(f"{where}: {raw!r} is not one of {choices}") from None

    return convert


def _steps(raw: Any, where: str) -> tuple[Step, ...]:
    if not isinstance(raw, list) or not raw:
        raise PolicyError(f"{where}: must be a non-empty list of steps")
    return tuple(_choice(Step)(r, where) for r in raw)


def _budgets(kind: type[StrEnum]) -> Convert:
    def convert(raw: Any, where: str) -> Mapping[Any, int]:
        if not isinstance(raw, dict):
            raise PolicyError(f"{where}: must be a table")
        return {_choice(kind)(k, where): _count_of(0)(v, f"{where}.{k}") for k, v in raw.items()}

    return convert


_RULE: dict[str, tuple[str, Convert]] = {
    "class": ("cls", _choice(SignalClass)),
    "cap": ("cap", _choice(SignalClass)),
    "escalate_after": ("escalate_after", _count_of(0)),
    "escalate_window_s": ("escalate_window", _seconds),
    "escalate_to": ("escalate_to", _choice(SignalClass)),
    "enabled": ("enabled", _flag),
}
# section -> (attribute of HardwarePolicy or None for top level, {toml field: (attr, convert)})
_SECTIONS: dict[str, tuple[str | None, dict[str, tuple[str, Convert]]]] = {
    "detection": (
        None,
        {
            "repeat_gap_s": ("repeat_gap", _seconds),
            "suspect_clear_s": ("suspect_clear", _seconds),
            "hold_s": ("hold", _seconds),
            "silence_s": ("silence", _seconds),
        },
    ),
    "timeouts": (
        "timeouts",
        {f"{n}_s": (n, _seconds) for n in ("drain", "diagnose", "remediate", "validate")},
    ),
    "ladder": (
        "ladder",
        {
            "steps": ("steps", _steps),
            "attempts": ("attempts", _budgets(Step)),
            "budget_window_s": ("budget_window", _seconds),
            "max_returns": ("max_returns", _count_of(1)),
            "returns_window_s": ("returns_window", _seconds),
            "diagnostic_retries": ("diagnostic_retries", _count_of(0)),
        },
    ),
    "breaker": (
        "breaker",
        {
            "window_s": ("window", _seconds),
            "max_nodes": ("max_nodes", _count_of(1)),
            "max_fraction": ("max_fraction", _fraction),
            "max_out_fraction": ("max_out_fraction", _fraction),
            "domain_budget": ("domain_budget", _budgets(DomainKind)),
        },
    ),
    "domains": (
        "correlation",
        {
            "window_s": ("window", _seconds),
            "min_nodes": ("min_nodes", _count_of(2)),
            "fabric_min_nodes": ("fabric_min_nodes", _count_of(2)),
        },
    ),
    "rate": ("rate", {"mutations_per_s": ("per_s", _rate), "burst": ("burst", _count_of(1))}),
}
_RULE_TABLES = {"action": NodeAction, "signal": None, "probe": Probe}


def _values(table: Any, spec: Mapping[str, tuple[str, Convert]], where: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise PolicyError(f"{where}: must be a table")
    out: dict[str, Any] = {}
    for name, raw in table.items():
        if name not in spec:
            raise PolicyError(
                f"{where}: unknown field {name!r} (allowed: {', '.join(sorted(spec))})"
            )
        attr, convert = spec[name]
        out[attr] = convert(raw, f"{where}: field {name!r}")
    return out


def merged(policy: HardwarePolicy, document: Mapping[str, Any], origin: str) -> HardwarePolicy:
    """Return `policy` with one more document merged in by key."""
    allowed = {"schema", "version", "validation", *_SECTIONS, *_RULE_TABLES}
    unknown = sorted(set(document) - allowed)
    if unknown:
        raise PolicyError(f"{origin}: unknown table {unknown[0]!r}")
    if document.get("schema", POLICY_SCHEMA) != POLICY_SCHEMA:
        raise PolicyError(f"{origin}: schema {document['schema']!r} is not supported (expected 1)")
    changes: dict[str, Any] = {}
    for section, (attr, spec) in _SECTIONS.items():
        if section not in document:
            continue
        values = _values(document[section], spec, f"{origin}: [{section}]")
        if attr is None:
            changes.update(values)
        else:
            changes[attr] = replace(getattr(policy, attr), **values)
    for section, keys in _RULE_TABLES.items():
        attr = f"{section}s"
        rules = dict(getattr(policy, attr))
        tables = document.get(section, {})
        if not isinstance(tables, dict):
            raise PolicyError(f"{origin}: [{section}] must be a table of tables")
        for key, table in tables.items():
            where = f'{origin}: [{section}."{key}"]'
            if keys is not None:
                _choice(keys)(key, where)
            rules[key] = replace(rules.get(key, Rule()), **_values(table, _RULE, where))
        changes[attr] = MappingProxyType(rules)
    if "validation" in document:
        try:  # its own module reads it (a nested table); its errors name the field
            changes["validation"] = validation_policy(policy.validation, document["validation"],
                                                      origin)  # fmt: skip
        except ValueError as exc:
            raise PolicyError(str(exc)) from None
    version = str(document.get("version", ""))
    if version:
        changes["version"] = f"{policy.version}+{version}" if policy.version else version
    return replace(policy, **changes)


def parse_policy(text: str, origin: str) -> Mapping[str, Any]:
    """Parse one TOML policy document, naming the origin on error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{origin}: not valid TOML: {exc}") from None


def load_policy(overrides: Iterable[tuple[str, str]] = ()) -> HardwarePolicy:
    """The built-in policy with operator documents, as (origin, TOML text), merged in order."""
    name = "hardware-policy.toml"
    text = (resources.files("autorecover.domain") / "data" / name).read_text(encoding="utf-8")
    policy = merged(HardwarePolicy(), parse_policy(text, f"builtin:{name}"), f"builtin:{name}")
    for origin, override in overrides:
        policy = merged(policy, parse_policy(override, origin), origin)
    return policy
