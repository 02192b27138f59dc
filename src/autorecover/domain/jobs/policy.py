"""Job-recovery policy as data: retry budgets per cause, ceilings, backoff, exclusion decay.

The built-in policy ships as `domain/data/job-policy.toml`; sites override it with TOML of the
same shape (merged by field), and a job may carry its own overrides (a Slurm comment or a
Kubernetes annotation, parsed by the adapters into the same field names).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from importlib import resources
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
