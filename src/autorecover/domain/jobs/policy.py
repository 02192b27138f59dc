"""Job-recovery policy as data: retry budgets per cause, ceilings, backoff, exclusion decay.

The built-in policy ships as `domain/data/job-policy.toml`; sites override it with TOML of the
same shape (merged by field), and a job may carry its own overrides (a Slurm comment or a
Kubernetes annotation, parsed by the adapters into the same field names). A site caps what a
job may ask for with `Ceilings` (`[job.ceilings]` in a site policy): a job's value above its
ceiling is lowered to it, and the clamp is said, never silent.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from types import MappingProxyType
from typing import Any


class PolicyError(ValueError):
    """A policy document is malformed; the message names the origin and the field."""


@dataclass(frozen=True, slots=True)
class JobPolicy:
    """How job recovery treats one job."""

    enabled: bool = True
    dry_run: bool = False
    # Restarts caused by infrastructure (hardware, transient) never spend the user's budget.
    infrastructure_restarts: int = 10
    user_restarts: int = 2  # unknown causes and confirmation retries
    same_cause_ceiling: int = 3  # the same root cause this many times: stop
    crash_loop_failures: int = 4  # this many failures ...
    crash_loop_window_s: float = 900.0  # ... within this window: stop
    no_progress_restarts: int = 3  # no completed checkpoint across this many restarts: stop
    transient_backoff_s: tuple[float, ...] = (10.0, 30.0, 90.0, 270.0)
    confirm_weak_application: bool = True  # one retry when the application evidence is weak
    weak_evidence_below: int = 70
    exclusion_ttl_s: float = 86_400.0  # a job's exclusions decay after a day
    suspicion_half_life_s: float = 7 * 86_400.0
    suspicion_threshold: float = 2.5  # a node named this often (decayed) is handed over as suspect
    # The job is placed by whole NVLink cliques (domain/jobs/cliques.py): a suspect's exclusion
    # takes its whole clique unless the clique has a spare node.
    whole_cliques: bool = False
    # Checkpoint-aware proactive migration (domain/jobs/migration.py): a node of the running
    # job raises a health warning -> requeue the job without it right after its next completed
    # checkpoint, at most `migration_budget` times per job; no checkpoint within
    # `migration_deadline_s` of the warning: the job runs on, as without it.
    migrate_on_warning: bool = False
    migration_budget: int = 2
    migration_deadline_s: float = 1800.0
    migration_min_weight: int = 30  # weaker warnings (single corrected ECC errors) move nothing
    # The site's limit for all jobs together (its own policy only: a job cannot set these).
    migration_fleet_limit: int = 4
    migration_fleet_window_s: float = 3600.0
    # Unexplained failures of this many different jobs starting on one node within the window
    # name that node (domain/jobs/recurrence.py); 0 turns it off. The site's policy only.
    recurrence_jobs: int = 3
    recurrence_window_s: float = 86_400.0

    def merged(self, overrides: Mapping[str, Any], origin: str) -> JobPolicy:
        """A policy with some fields replaced; unknown fields and wrong types are errors."""
        known = {f.name: f for f in fields(self)}
        values: dict[str, Any] = {}
        for name, raw in overrides.items():
            if name not in known:
                raise PolicyError(
                    f"{origin}: field {name!r}: unknown (allowed: {', '.join(known)})"
                )
            values[name] = _coerce(getattr(self, name), raw, origin, name)
        return replace(self, **values)


def _coerce(default: Any, raw: Any, origin: str, name: str) -> Any:
    if isinstance(default, bool):
        if not isinstance(raw, bool):
            raise PolicyError(f"{origin}: field {name!r}: must be true or false")
        return raw
    if isinstance(default, int):
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise PolicyError(f"{origin}: field {name!r}: must be a whole number >= 0")
        return raw
    if isinstance(default, float):
        if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
            raise PolicyError(f"{origin}: field {name!r}: must be a number >= 0")
        return float(raw)
    if isinstance(default, tuple):
        if not isinstance(raw, list | tuple) or not raw:
            raise PolicyError(f"{origin}: field {name!r}: must be a non-empty list of numbers")
        return tuple(_coerce(0.0, v, origin, name) for v in raw)
    raise PolicyError(f"{origin}: field {name!r}: unsupported")  # pragma: no cover


def builtin_job_policy() -> JobPolicy:
    """The shipped default policy (`domain/data/job-policy.toml`)."""
    text = (resources.files("autorecover.domain") / "data" / "job-policy.toml").read_text("utf-8")
    return policy_from_toml(text, "builtin:job-policy.toml")


def policy_from_toml(text: str, origin: str, base: JobPolicy | None = None) -> JobPolicy:
    """Merge a TOML policy document (its `[job]` table) onto `base`."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{origin}: not valid TOML: {exc}") from None
    table = doc.get("job", {})
    if not isinstance(table, dict):
        raise PolicyError(f"{origin}: [job] must be a table")
    return (base or JobPolicy()).merged(table, origin)


_NUMERIC = {
    f.name: type(getattr(JobPolicy(), f.name))
    for f in fields(JobPolicy)
    if not isinstance(getattr(JobPolicy(), f.name), bool)
}  # the fields a ceiling may cap: whole numbers, numbers, lists of numbers


@dataclass(frozen=True, slots=True)
class Ceilings:
    """The most a job's own settings may ask for, per numeric field of the policy."""

    limits: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def clamp(self, asked: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
        """A job's overrides with values above their ceiling lowered to it, and one note per
        clamp (`user_restarts=50 asked, site ceiling 5: clamped`). Values of the wrong kind are
        left for `JobPolicy.merged` to refuse."""
        out, notes = dict(asked), []
        for name, limit in self.limits.items():
            value = out.get(name)
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, int | float) and value > limit:
                out[name] = int(limit) if _NUMERIC[name] is int else float(limit)
            elif isinstance(value, list | tuple) and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value
            ):
                if not any(v > limit for v in value):
                    continue
                out[name] = tuple(min(float(v), limit) for v in value)
            else:
                continue
            notes.append(f"{name}={_text(value)} asked, site ceiling {_text(limit)}: clamped")
        return out, tuple(notes)


NO_CEILINGS = Ceilings()


def ceilings_from(table: Mapping[str, Any], origin: str, base: Ceilings = NO_CEILINGS) -> Ceilings:
    """`[job.ceilings]` of a site policy merged by key onto `base`; errors name the field."""
    limits = dict(base.limits)
    for name, raw in table.items():
        if name not in _NUMERIC:
            raise PolicyError(
                f"{origin}: [job.ceilings] field {name!r}: not a numeric job setting "
                f"(allowed: {', '.join(sorted(_NUMERIC))})"
            )
        if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
            raise PolicyError(f"{origin}: [job.ceilings] field {name!r}: must be a number >= 0")
        if _NUMERIC[name] is int and raw != int(raw):
            raise PolicyError(f"{origin}: [job.ceilings] field {name!r}: must be a whole number")
        limits[name] = float(raw)
    return Ceilings(MappingProxyType(limits))


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "/".join(_text(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)
