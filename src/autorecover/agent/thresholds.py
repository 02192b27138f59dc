"""The agent's thresholds as data: `domain/data/agent.toml`, with operator overrides merged by key.

The built-in document ships beside the XID catalog. An override is a TOML document of the same
shape; tables merge key by key, so a partial override changes the fields it names and keeps
every built-in entry (an override can never silently drop one).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from typing import Any

from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe

SCHEMA = 1


class ThresholdError(ValueError):
    """A thresholds document is malformed; the message names the document and the key."""


class Kind(StrEnum):
    """How a counter rule reads its counter (see agent.toml)."""

    NONZERO = "nonzero"
    ABOVE = "above"
    ANY_INCREASE = "any_increase"
    RATE = "rate"
    WINDOW = "window"


@dataclass(frozen=True, slots=True)
class Meaning:
    """What a signal says: who is to blame, what to do with the node, how decisive it is."""

    blame: Blame
    node_action: NodeAction
    weight: int
    description: str = ""


@dataclass(frozen=True, slots=True)
class CounterRule:
    """When a reading raises a signal."""

    key: str
    probe: Probe
    source: str
    kind: Kind
    limit: float = 0.0
    per_s: float = 1.0
    window_s: float = 0.0
    baseline_zero: bool = False
    escalate_after: int = 0  # 0: never escalates
    escalate_window_s: float = 0.0
    escalate_node_action: NodeAction | None = None
    escalate_weight: int = 0


@dataclass(frozen=True, slots=True)
class NvmlSettings:
    """Throttle-reason masks, the thermal sample count and the recovery-action table."""

    thermal_consecutive: int
    idle_reason_mask: int
    thermal_reason_mask: int
    power_brake_reason_mask: int
    recovery_actions: Mapping[int, tuple[str, Meaning]]


@dataclass(frozen=True, slots=True)
class InfinibandSettings:
    """Which port states are healthy and which devices to skip."""

    healthy_state: str
    healthy_phys_state: str
    ignored_phys_states: frozenset[str]
    ignore_devices: frozenset[str]


@dataclass(frozen=True, slots=True)
class PcieSettings:
    """Which PCI devices the agent watches."""

    vendors: frozenset[int]
    gpu_classes: frozenset[int]
    nic_classes: frozenset[int]
    check_gpu_speed: bool


@dataclass(frozen=True, slots=True)
class DcgmSettings:
    """DCGM severities and result words, as meanings."""

    severities: Mapping[int, tuple[str, Meaning]]
    results: Mapping[str, Meaning]


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Everything agent.toml says, validated."""

    version: str
    signals: Mapping[str, Meaning]
    counters: tuple[CounterRule, ...]
    nvml: NvmlSettings
    infiniband: InfinibandSettings
    pcie: PcieSettings
    dcgm: DcgmSettings
    # Fabric registration and IMEX readiness must be off this many looks in a row: both pass
    # through "in progress" / "waiting for peers" while a node boots.
    fabric_consecutive: int = 3

    def rules_for(self, probe: Probe) -> tuple[CounterRule, ...]:
        """The counter rules one probe evaluates, in key order."""
        return tuple(r for r in self.counters if r.probe is probe)

    def meaning(self, key: str, catalog: Catalog) -> Meaning:
        """A signal's meaning: this document's, else the catalog signature of the same key."""
        found = self.signals.get(key)
        if found is not None:
            return found
        sig = catalog.signatures.get(key)
        if sig is None:
            raise ThresholdError(f"signal {key!r} has no meaning in agent.toml or the catalog")
        return Meaning(sig.blame, sig.node_action, sig.weight, sig.description)

    def check_against(self, catalog: Catalog) -> None:
        """Every counter has a meaning, and no signal key shadows a catalog signature."""
        for key in self.signals:
            if key in catalog.signatures:
                raise ThresholdError(f"[signal.{key!r}] repeats a catalog signature's key")
        for rule in self.counters:
            self.meaning(rule.key, catalog)


def builtin_document() -> dict[str, Any]:
    """The built-in agent.toml, parsed."""
    text = (resources.files("autorecover.domain") / "data" / "agent.toml").read_text("utf-8")
    return parse_document(text, "builtin:agent.toml")


def parse_document(text: str, origin: str) -> dict[str, Any]:
    """Parse one thresholds document, naming its origin on error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ThresholdError(f"{origin}: not valid TOML: {exc}") from None


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Merge `override` onto `base` table by table; scalars and lists are replaced."""
    out = dict(base)
    for key, value in override.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge(old, value)
        else:
            out[key] = value
    return out


def load_thresholds(overrides: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> Thresholds:
    """The built-in thresholds with overrides merged in, in order, then validated."""
    doc: dict[str, Any] = builtin_document()
    origin = "builtin:agent.toml"
    for name, override in overrides:
        doc = merge(doc, override)
        origin = f"{origin}+{name}"
    return build(doc, origin)


def build(doc: Mapping[str, Any], origin: str) -> Thresholds:
    """Validate a merged document into typed settings."""
    r = _Reader(origin)
    if doc.get("schema", SCHEMA) != SCHEMA:
        raise ThresholdError(f"{origin}: schema {doc.get('schema')!r} is not supported")
    signals = {str(k): r.meaning(v, f"signal.{k}") for k, v in r.table(doc, "signal").items()}
    counters = tuple(
        r.counter(str(k), v, f"counter.{k}") for k, v in sorted(r.table(doc, "counter").items())
    )
    nv = r.table(doc, "nvml")
    ib = r.table(doc, "infiniband")
    pc = r.table(doc, "pcie")
    dc = r.table(doc, "dcgm")
    fa = r.table(doc, "fabric")
    return Thresholds(
        version=str(doc.get("version", "")),
        signals=signals,
        counters=counters,
        nvml=NvmlSettings(
            thermal_consecutive=max(1, r.int_(nv, "thermal_consecutive", "nvml")),
            idle_reason_mask=r.int_(nv, "idle_reason_mask", "nvml"),
            thermal_reason_mask=r.int_(nv, "thermal_reason_mask", "nvml"),
            power_brake_reason_mask=r.int_(nv, "power_brake_reason_mask", "nvml"),
            recovery_actions=r.named_meanings(nv, "recovery_action", "nvml"),
        ),
        infiniband=InfinibandSettings(
            healthy_state=r.str_(ib, "healthy_state", "infiniband"),
            healthy_phys_state=r.str_(ib, "healthy_phys_state", "infiniband"),
            ignored_phys_states=frozenset(r.strs(ib, "ignored_phys_states", "infiniband")),
            ignore_devices=frozenset(r.strs(ib, "ignore_devices", "infiniband")),
        ),
        pcie=PcieSettings(
            vendors=frozenset(r.hex_(v, "pcie.vendors") for v in r.strs(pc, "vendors", "pcie")),
            gpu_classes=frozenset(r.hex_(v, "pcie") for v in r.strs(pc, "gpu_classes", "pcie")),
            nic_classes=frozenset(r.hex_(v, "pcie") for v in r.strs(pc, "nic_classes", "pcie")),
            check_gpu_speed=bool(pc.get("check_gpu_speed", False)),
        ),
        dcgm=DcgmSettings(
            severities=r.named_meanings(dc, "severity", "dcgm"),
            results={
                str(k): r.meaning(v, f"dcgm.result.{k}") for k, v in r.table(dc, "result").items()
            },
        ),
        fabric_consecutive=max(1, r.int_(fa, "consecutive", "fabric")),
    )


class _Reader:
    """Typed field access that names the document and key on error."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, where: str, message: str) -> ThresholdError:
        return ThresholdError(f"{self.origin}: [{where}]: {message}")

    def table(self, doc: Mapping[str, Any], key: str) -> dict[str, Any]:
        value = doc.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table")
        return value

    def int_(self, t: Mapping[str, Any], key: str, where: str) -> int:
        value = t.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, f"{key!r} must be an integer")
        return value

    def num(self, t: Mapping[str, Any], key: str, where: str, default: float) -> float:
        value = t.get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise self.fail(where, f"{key!r} must be a non-negative number")
        return float(value)

    def str_(self, t: Mapping[str, Any], key: str, where: str) -> str:
        value = t.get(key)
        if not isinstance(value, str):
            raise self.fail(where, f"{key!r} must be a string")
        return value

    def strs(self, t: Mapping[str, Any], key: str, where: str) -> list[str]:
        value = t.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(where, f"{key!r} must be a list of strings")
        return value

    def hex_(self, text: str, where: str) -> int:
        try:
            return int(text, 16)
        except ValueError:
            raise self.fail(where, f"{text!r} is not a hexadecimal number") from None

    def meaning(self, t: Any, where: str) -> Meaning:
        if not isinstance(t, dict):
            raise self.fail(where, "must be a table")
        try:
            blame = Blame(str(t.get("blame")))
            action = NodeAction(str(t.get("node_action")))
        except ValueError as exc:
            raise self.fail(where, str(exc)) from None
        weight = self.int_(t, "weight", where)
        if not 0 <= weight <= 100:
            raise self.fail(where, "'weight' must be between 0 and 100")
        return Meaning(blame, action, weight, str(t.get("description", "")))

    def named_meanings(
        self, t: Mapping[str, Any], key: str, where: str
    ) -> dict[int, tuple[str, Meaning]]:
        out: dict[int, tuple[str, Meaning]] = {}
        for raw, entry in self.table(t, key).items():
            here = f"{where}.{key}.{raw}"
            try:
                number = int(raw)
            except ValueError:
                raise self.fail(here, "the key must be a number") from None
            out[number] = (str(entry.get("name", raw)), self.meaning(entry, here))
        return out

    def counter(self, key: str, t: Any, where: str) -> CounterRule:
        if not isinstance(t, dict):
            raise self.fail(where, "must be a table")
        try:
            probe = Probe(str(t.get("probe")))
            kind = Kind(str(t.get("kind")))
            escalate = t.get("escalate_node_action")
            escalate_action = NodeAction(escalate) if escalate is not None else None
        except ValueError as exc:
            raise self.fail(where, str(exc)) from None
        rule = CounterRule(
            key=key,
            probe=probe,
            source=self.str_(t, "source", where),
            kind=kind,
            limit=self.num(t, "limit", where, 0.0),
            per_s=self.num(t, "per_s", where, 1.0),
            window_s=self.num(t, "window_s", where, 0.0),
            baseline_zero=bool(t.get("baseline_zero", False)),
            escalate_after=int(self.num(t, "escalate_after", where, 0)),
            escalate_window_s=self.num(t, "escalate_window_s", where, 0.0),
            escalate_node_action=escalate_action,
            escalate_weight=int(self.num(t, "escalate_weight", where, 0)),
        )
        if kind is Kind.RATE and rule.per_s <= 0:
            raise self.fail(where, "a rate rule needs 'per_s' > 0")
        if kind is Kind.WINDOW and rule.window_s <= 0:
            raise self.fail(where, "a window rule needs 'window_s' > 0")
        if rule.escalate_after and (
            rule.escalate_node_action is None or not rule.escalate_window_s
        ):
            raise self.fail(where, "escalation needs escalate_node_action and escalate_window_s")
        return rule
