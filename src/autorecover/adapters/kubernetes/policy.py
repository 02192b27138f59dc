"""Per-job opt-in and policy through a job's annotations, over a site-wide default.

The same annotations on every kind of job (PyTorchJob, JobSet):

    metadata:
      annotations:
        autorecover.io/recovery: "on"                       # or "off"; absent: the site's default
        autorecover.io/policy: "user_restarts=3,transient_backoff_s=10/30/90"

The policy's settings are the Slurm comment's (`domain/jobs/settings.py`: same keys, same
values), separated by commas; spaces around items are allowed, as YAML invites them. A job
that says nothing gets the site's default (opt-in: off; opt-out: on); "off" turns recovery
off and the policy is not read, so a job can be switched off without deleting its settings.
A malformed annotation — or one that looks like ours but is misspelt, such as
`autorecover.io/recover` — turns recovery off for the job with an error naming the
annotation and what is wrong: a job is never recovered under a policy it did not ask for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from autorecover.adapters.kubernetes.exclusions import PyTorchJob
from autorecover.adapters.kubernetes.states import job_status
from autorecover.controllers.jobs.records import JobStatus, WatchedJob
from autorecover.domain.jobs.policy import PolicyError
from autorecover.domain.jobs.settings import (
    JobSettings,
    SettingError,
    SitePolicy,
    Source,
    Value,
    parse_settings,
)

RECOVERY_ANNOTATION = "autorecover.io/recovery"
POLICY_ANNOTATION = "autorecover.io/policy"
ORIGIN = f"annotation {POLICY_ANNOTATION}"
SCHEDULER = "kubernetes"
MAX_POLICY = 512
_MODES = {"on": True, "off": False}
# Our prefix (or a near spelling of it) with a name like ours: a misspelt opt-in, not the user's.
_LOOKALIKE = re.compile(r"auto[-_.]?recover[^/]*/(?:recover|polic)", re.IGNORECASE)


class AnnotationError(SettingError):
    """An autorecover annotation is not valid; the message names it and what is wrong."""


def parse_annotations(annotations: Mapping[str, str]) -> tuple[bool | None, dict[str, Value]]:
    """(on/off, or None when not said; the policy's settings); `AnnotationError` if malformed.

    With recovery "off" the policy is not read (and the settings are empty).
    """
    lookalikes = sorted(
        k
        for k in annotations
        if _LOOKALIKE.match(k) and k not in (RECOVERY_ANNOTATION, POLICY_ANNOTATION)
    )
    if lookalikes:
        raise AnnotationError(
            f"annotation {lookalikes[0][:80]!r} is not autorecover's: write "
            f"{RECOVERY_ANNOTATION} or {POLICY_ANNOTATION}"
        )
    mode: bool | None = None
    raw_mode = annotations.get(RECOVERY_ANNOTATION)
    if raw_mode is not None:
        if raw_mode not in _MODES:
            raise AnnotationError(
                f"annotation {RECOVERY_ANNOTATION}: must be 'on' or 'off', "
                f"not {str(raw_mode)[:40]!r}"
            )
        mode = _MODES[raw_mode]
    if mode is False:
        return False, {}
    return mode, _policy(annotations.get(POLICY_ANNOTATION))


def _policy(text: str | None) -> dict[str, Value]:
    if text is None:
        return {}
    if not isinstance(text, str) or len(text) > MAX_POLICY:
        raise AnnotationError(
            f"annotation {POLICY_ANNOTATION}: longer than {MAX_POLICY} characters"
        )
    items = [item.strip() for item in text.split(",")]
    if items == [""]:
        return {}  # an empty policy: no settings
    try:
        return parse_settings(items)
    except SettingError as exc:
        raise AnnotationError(f"annotation {POLICY_ANNOTATION}: {exc}") from None


def resolve_annotations(
    annotations: Mapping[str, str], site: SitePolicy | None = None
) -> JobSettings:
    """The policy for a job with these annotations under the site's default; never raises."""
    site = site or SitePolicy()
    try:
        mode, settings = parse_annotations(annotations)
        if mode is None and POLICY_ANNOTATION not in annotations:
            enabled = not site.opt_in and site.base.enabled
            return JobSettings(enabled, replace(site.base, enabled=enabled), Source.SITE)
        enabled = mode if mode is not None else not site.opt_in and site.base.enabled
        policy, clamped = site.merged(dict(settings), ORIGIN)
    except (AnnotationError, PolicyError) as exc:
        return JobSettings(False, replace(site.base, enabled=False), Source.INVALID, str(exc))
    return JobSettings(
        enabled, replace(policy, enabled=enabled), Source.ANNOTATION, clamped=clamped
    )


def job_settings(job: Mapping[str, Any], site: SitePolicy | None = None) -> JobSettings:
    """`resolve_annotations` over a PyTorchJob's own annotations."""
    annotations = cast(PyTorchJob, job).get("metadata", {}).get("annotations") or {}
    return resolve_annotations(annotations, site)


def watched_job(
    job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]], site: SitePolicy | None = None,
    status: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], JobStatus] = job_status,
) -> WatchedJob | None:  # fmt: skip
    """The job as job recovery watches it, or None when it is not in (off, or invalid).

    `status` reads the job's kind (a PyTorchJob's by default, `jobset_status` for a JobSet):
    the annotations and their policy are the same on every kind."""
    settings = job_settings(job, site)
    if not settings.enabled:
        return None
    annotations = cast(PyTorchJob, job).get("metadata", {}).get("annotations") or {}
    overrides: dict[str, object] = {}
    if settings.source is Source.ANNOTATION:
        overrides = dict(parse_annotations(annotations)[1])
    if POLICY_ANNOTATION in annotations:
        origin = ORIGIN
    elif RECOVERY_ANNOTATION in annotations:
        origin = f"annotation {RECOVERY_ANNOTATION}"
    else:
        origin = "site default"
    return WatchedJob(status(job, pods), SCHEDULER, overrides, origin)
