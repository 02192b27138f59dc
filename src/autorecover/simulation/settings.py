"""The simulator's inputs as data: a published failure study and the world's assumptions.

Both ship in `simulation/data/` (`llama3-405b.toml`, `world.toml`) and a site passes its own
files of the same shape. A malformed file is an error naming the file and the field.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

CURES = ("none", "reset", "reboot", "rma")
SCOPES = ("node", "job")


class SettingsError(ValueError):
    """A data file is malformed; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class Category:
    """One row of a failure study, with how the simulator makes it happen."""

    key: str
    component: str
    group: str
    count: int
    scope: str  # node | job
    cure: tuple[tuple[str, float], ...]  # (cure, probability), summing to 1
    hang: float
    observed: float
    agent_line: str
    job_lines: tuple[str, ...]
    warned: float
    warning_line: str
    host_down: bool
    leaf_fraction: float

    @property
    def hardware(self) -> bool:
        """A fault of a node's hardware (not of the job's software)."""
        return self.scope == "node"


@dataclass(frozen=True, slots=True)
class Study:
    """A published failure study: fleet size, period and its categories."""

    name: str
    source: str
    gpus: int
    days: float
    interruptions: int
    published_ettr_min: float
    categories: tuple[Category, ...]

    def rate_per_gpu_s(self, category: Category) -> float:
        """The category's interruptions per GPU-second at the study's rates."""
        return category.count / (self.gpus * self.days * 86_400.0)


@dataclass(frozen=True, slots=True)
class World:
    """The world's assumptions (`world.toml`): one flat table per section."""

    fleet: Mapping[str, float]
    job: Mapping[str, float]
    person: Mapping[str, float]
    repair: Mapping[str, float]
    lemon: Mapping[str, float]
    warning: Mapping[str, float]
    straggler: Mapping[str, float]


_WORLD_SECTIONS = ("fleet", "job", "person", "repair", "lemon", "warning", "straggler")


def _read(path: Path | None, builtin: str) -> tuple[dict[str, Any], str]:
    if path is None:
        ref = resources.files("autorecover.simulation") / "data" / builtin
        return tomllib.loads(ref.read_text("utf-8")), f"builtin:{builtin}"
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text), str(path)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None


def _field(table: Mapping[str, Any], name: str, kind: type, where: str, default: Any = None) -> Any:
    if name not in table:
        if default is not None:
            return default
        raise SettingsError(f"{where}: field {name!r} is missing")
    value: Any = table[name]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool):
        raise SettingsError(f"{where}: field {name!r} must be {kind.__name__}, not {value!r}")
    if kind in (int, float) and table[name] < 0:
        raise SettingsError(f"{where}: field {name!r} must be >= 0, not {value!r}")
    return value


def _fraction(table: Mapping[str, Any], name: str, where: str) -> float:
    value: float = _field(table, name, float, where, 0.0)
    if value > 1.0:
        raise SettingsError(f"{where}: field {name!r} must be a fraction in [0, 1], not {value}")
    return value


def _category(key: str, table: Any, where: str) -> Category:
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: must be a table")
    scope = _field(table, "scope", str, where)
    if scope not in SCOPES:
        raise SettingsError(f"{where}: field 'scope' must be one of {', '.join(SCOPES)}")
    cure = _field(table, "cure", dict, where)
    for name, p in cure.items():
        if name not in CURES or isinstance(p, bool) or not isinstance(p, int | float) or p < 0:
            raise SettingsError(
                f"{where}: field 'cure': {name!r} = {p!r} (cures: {', '.join(CURES)}, p >= 0)"
            )
    if abs(sum(cure.values()) - 1.0) > 1e-6:
        raise SettingsError(f"{where}: field 'cure': probabilities sum to {sum(cure.values())}")
    lines = _field(table, "job_lines", list, where, [])
    if not all(isinstance(x, str) for x in lines):
        raise SettingsError(f"{where}: field 'job_lines' must be a list of signature keys")
    return Category(
        key=key,
        component=_field(table, "component", str, where),
        group=_field(table, "group", str, where),
        count=_field(table, "count", int, where),
        scope=scope,
        cure=tuple((k, float(v)) for k, v in cure.items()),
        hang=_fraction(table, "hang", where),
        observed=_fraction(table, "observed", where),
        agent_line=_field(table, "agent_line", str, where, ""),
        job_lines=tuple(lines),
        warned=_fraction(table, "warned", where),
        warning_line=_field(table, "warning_line", str, where, ""),
        host_down=_field(table, "host_down", bool, where, False),
        leaf_fraction=_fraction(table, "leaf_fraction", where),
    )


def load_study(path: Path | None = None) -> Study:
    """A failure study (the built-in Llama 3 one when `path` is None)."""
    doc, origin = _read(path, "llama3-405b.toml")
    cats = doc.get("category")
    if not isinstance(cats, dict) or not cats:
        raise SettingsError(f"{origin}: needs at least one [category.NAME] table")
    categories = tuple(
        _category(k, v, f"{origin}: [category.{k}]") for k, v in sorted(cats.items())
    )
    for c in categories:
        if c.warned and not c.warning_line:
            raise SettingsError(f"{origin}: [category.{c.key}]: warned > 0 needs a warning_line")
        if c.observed and not c.agent_line:
            raise SettingsError(f"{origin}: [category.{c.key}]: observed > 0 needs an agent_line")
    return Study(
        name=_field(doc, "name", str, origin),
        source=_field(doc, "source", str, origin),
        gpus=_field(doc, "gpus", int, origin),
        days=_field(doc, "days", float, origin),
        interruptions=_field(doc, "interruptions", int, origin),
        published_ettr_min=_fraction(doc, "published_ettr_min", origin),
        categories=categories,
    )


def load_world(path: Path | None = None) -> World:
    """The world's assumptions (the built-in `world.toml` when `path` is None)."""
    doc, origin = _read(path, "world.toml")
    builtin, _ = _read(None, "world.toml")
    sections: dict[str, dict[str, float]] = {}
    for name in _WORLD_SECTIONS:
        merged = dict(builtin[name])  # a site's partial file overrides by key
        table = doc.get(name, {})
        if not isinstance(table, dict):
            raise SettingsError(f"{origin}: [{name}] must be a table")
        for key in table:
            if key not in merged:
                raise SettingsError(
                    f"{origin}: [{name}] field {key!r}: unknown (known: {', '.join(merged)})"
                )
            merged[key] = _field(table, key, float, f"{origin}: [{name}]")
        sections[name] = {k: float(v) for k, v in merged.items()}
    return World(**sections)
