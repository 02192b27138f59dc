"""Per-job policy settings, scheduler-neutral: the keys a job may set and how values are read.

A job asks for its own policy in whatever its scheduler lets it carry (a Slurm `--comment`, a
Kubernetes annotation); each adapter finds the text, and this module reads the settings in it
with one grammar, so a setting means the same on every scheduler:

    setting   = key "=" value                   ; at most once per key
    key       = a field of the job policy       ; user_restarts, infrastructure_restarts, ...
    value     = "true" | "false"                ; for yes/no fields
              | 1*DIGIT                          ; for whole numbers
              | number                           ; for seconds and thresholds (1.5, 30)
              | number *( "/" number )           ; for lists (transient_backoff_s=10/30/90)

`SitePolicy` (the site's default) and `JobSettings` (what one job runs under, and why) are
shared too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from autorecover.domain.jobs.policy import NO_CEILINGS, Ceilings, JobPolicy

_KEY = re.compile(r"[a-z][a-z0-9_]{0,39}")
_NUMBER = re.compile(r"\d{1,9}(?:\.\d{1,6})?")  # 15 digits: exact through a float
_WHOLE = re.compile(r"\d{1,9}")
MAX_LIST = 16

Value = bool | int | float | tuple[float, ...]


class SettingError(ValueError):
    """A job's setting is not valid; the message names the key or the text."""


# Fleet-wide limits: the site's policy sets them, a job's own settings cannot.
SITE_ONLY = frozenset(
    {"migration_fleet_limit", "migration_fleet_window_s", "recurrence_jobs", "recurrence_window_s"}
)


def _kinds() -> dict[str, type]:
    """Each settable field and the type of its default (bool before int: bool is an int)."""
    out: dict[str, type] = {}
    for f in fields(JobPolicy):
        if f.name == "enabled" or f.name in SITE_ONLY:  # the opt-in is said apart
            continue
        default = getattr(JobPolicy(), f.name)
        out[f.name] = next(t for t in (bool, int, float, tuple) if isinstance(default, t))
    return out


KINDS = _kinds()


def parse_settings(items: Iterable[str]) -> dict[str, Value]:
    """`["user_restarts=3", "dry_run=true"]` -> {"user_restarts": 3, "dry_run": True}.

    Raises `SettingError` for an item that is not key=value, an unknown key, a key given
    twice or a value of the wrong kind.
    """
    settings: dict[str, Value] = {}
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or not _KEY.fullmatch(key):
            raise SettingError(f"setting {item[:60]!r} is not key=value")
        if key not in KINDS:
            raise SettingError(f"unknown setting {key!r} (known: {', '.join(sorted(KINDS))})")
        if key in settings:
            raise SettingError(f"setting {key!r} given twice")
        settings[key] = parse_value(key, raw)
    return settings


def parse_value(key: str, raw: str) -> Value:
    """The value of one known setting; `SettingError` when it is not of the key's kind."""
    kind = KINDS[key]
    if kind is bool:
        if raw not in ("true", "false"):
            raise SettingError(f"{key} must be true or false, not {raw[:40]!r}")
        return raw == "true"
    if kind is int:
        if not _WHOLE.fullmatch(raw):
            raise SettingError(f"{key} must be a whole number, not {raw[:40]!r}")
        return int(raw)
    if kind is float:
        if not _NUMBER.fullmatch(raw):
            raise SettingError(f"{key} must be a number, not {raw[:40]!r}")
        return float(raw)
    parts = raw.split("/")
    if not all(_NUMBER.fullmatch(p) for p in parts) or len(parts) > MAX_LIST:
        raise SettingError(f"{key} must be numbers separated by '/', not {raw[:40]!r}")
    return tuple(float(p) for p in parts)


def format_value(value: Value) -> str:
    """A value as `parse_value` reads it back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "/".join(format_value(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return str(value)


class Source(StrEnum):
    """Where a job's policy came from (persisted: never rename a value)."""

    COMMENT = "comment"  # a Slurm job's --comment
    ANNOTATION = "annotation"  # a Kubernetes object's annotations
    SITE = "site"
    INVALID = "invalid"  # the job's own text was malformed: autorecover is off for the job


@dataclass(frozen=True, slots=True)
class SitePolicy:
    """The site-wide default: whether jobs that say nothing are in, the base policy, and the
    ceilings on what a job's own settings may ask for."""

    opt_in: bool = True  # True: only jobs that ask for autorecover
    base: JobPolicy = field(default_factory=JobPolicy)
    ceilings: Ceilings = NO_CEILINGS

    def merged(self, asked: Mapping[str, Any], origin: str) -> tuple[JobPolicy, tuple[str, ...]]:
        """The base policy with a job's settings, clamped to the ceilings; the clamps said."""
        capped, clamped = self.ceilings.clamp(asked)
        return self.base.merged(capped, origin), clamped


@dataclass(frozen=True, slots=True)
class JobSettings:
    """The policy one job runs under, and why."""

    enabled: bool
    policy: JobPolicy
    source: Source
    error: str | None = None
    clamped: tuple[str, ...] = ()  # settings the site's ceilings lowered
