"""The engine's policies: the built-in hardware and job policies with the operator's files.

One `--policy` file may hold both: its `[job]` table is merged onto the job policy, every
other table onto the hardware policy, each by key (ADR 0004), in the order given. A
`[job.ceilings]` table caps what a job's own settings may ask for (merged by key too).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from typing import Any

from autorecover.domain.hardware.policy import HardwarePolicy
from autorecover.domain.hardware.policy_loading import load_policy, merged, parse_policy
from autorecover.domain.jobs.policy import (
    NO_CEILINGS,
    Ceilings,
    JobPolicy,
    builtin_job_policy,
    ceilings_from,
)


@dataclass(frozen=True, slots=True)
class Policies:
    """What the engine decides by, and where it came from."""

    hardware: HardwarePolicy
    jobs: JobPolicy
    origins: tuple[str, ...] = ()
    job_ceilings: Ceilings = NO_CEILINGS  # the most a job's own settings may ask for


def load_policies(documents: Iterable[tuple[str, str]] = ()) -> Policies:
    """The built-in policies with (origin, TOML text) documents merged in order."""
    hardware, jobs, origins = load_policy(), builtin_job_policy(), []
    ceilings = NO_CEILINGS
    for origin, text in documents:
        document = dict(parse_policy(text, origin))
        table = document.pop("job", None)
        if table is not None:
            if not isinstance(table, dict):
                raise ValueError(f"{origin}: [job] must be a table")
            table = dict(table)
            caps = table.pop("ceilings", None)
            if caps is not None:
                if not isinstance(caps, dict):
                    raise ValueError(f"{origin}: [job.ceilings] must be a table")
                ceilings = ceilings_from(caps, origin, ceilings)
            jobs = jobs.merged(table, origin)
        hardware = merged(hardware, document, origin)
        origins.append(origin)
    return Policies(hardware, jobs, tuple(origins), ceilings)


def as_json(value: Any) -> Any:
    """A policy (or any frozen record) as JSON values: durations in seconds, enums by value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Mapping):
        return {str(as_json(k)): as_json(v) for k, v in sorted(value.items(), key=str)}
    if isinstance(value, list | tuple | set | frozenset):
        items = [as_json(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return value


def policies_json(policies: Policies) -> dict[str, Any]:
    """The merged policies as the API shows them."""
    return {
        "origins": list(policies.origins),
        "hardware": as_json(policies.hardware),
        "jobs": as_json(policies.jobs),
        "job_ceilings": as_json(policies.job_ceilings.limits),
    }
