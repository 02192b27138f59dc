"""Per-job opt-in and policy through the job's `--comment`, over a site-wide default.

The convention (docs/slurm.md), a strict grammar:

    directive = "autorecover:" mode *( "," setting )
    mode      = "on" | "off"
    setting   = key "=" value                   ; at most once per key; only with "on"
    key       = a field of the job policy       ; user_restarts, infrastructure_restarts, ...
    value     = "true" | "false"                ; for yes/no fields
              | 1*DIGIT                          ; for whole numbers
              | number                           ; for seconds and thresholds (1.5, 30)
              | number *( "/" number )           ; for lists (transient_backoff_s=10/30/90)

The directive is one word of the comment (words are separated by spaces or `;`), so the rest
of the comment stays the user's: `sbatch --comment "ckpt every 1h; autorecover:on,user_restarts=3"`.
A comment without a directive gets the site's default (opt-in: off; opt-out: on). A comment
whose directive is malformed — or that says `autorecover` any other way (`AutoRecover:on`,
`autorecover=on`, two directives) — gets a clear error and autorecover stays OFF for the job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from autorecover.domain.jobs.policy import PolicyError
from autorecover.domain.jobs.settings import (
    KINDS,
    JobSettings,
    SettingError,
    SitePolicy,
    Source,
    Value,
    format_value,
    parse_settings,
)

__all__ = [
    "KINDS",
    "MAX_DIRECTIVE",
    "PREFIX",
    "CommentError",
    "CommentPolicy",
    "JobSettings",
    "SitePolicy",
    "Source",
    "Value",
    "format_comment",
    "parse_comment",
    "resolve",
]

PREFIX = "autorecover:"
MAX_DIRECTIVE = 512
_WORD_SPLIT = re.compile(r"[\s;]+")
_MENTION = re.compile(r"auto[-_ ]?recover", re.IGNORECASE)


class CommentError(SettingError):
    """The comment's autorecover directive is not valid; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class CommentPolicy:
    """What a job's comment asks of autorecover."""

    enabled: bool
    settings: tuple[tuple[str, Value], ...] = ()  # sorted by key


def parse_comment(comment: str) -> CommentPolicy | None:
    """The directive in a comment; None when there is none; `CommentError` when malformed."""
    words = [w for w in _WORD_SPLIT.split(comment or "") if w]
    found = [w for w in words if w.startswith(PREFIX)]
    stray = [w for w in words if _MENTION.search(w) and not w.startswith(PREFIX)]
    if stray:
        raise CommentError(
            f"{stray[0][:60]!r} is not an autorecover directive: write "
            f"'{PREFIX}on' or '{PREFIX}off' (lower case, a colon, no spaces)"
        )
    if len(found) > 1:
        raise CommentError("more than one autorecover directive in the comment")
    if not found:
        return None
    directive = found[0]
    if len(directive) > MAX_DIRECTIVE:
        raise CommentError(f"the autorecover directive is longer than {MAX_DIRECTIVE} characters")
    mode, *items = directive[len(PREFIX) :].split(",")
    if mode not in ("on", "off"):
        raise CommentError(f"mode must be 'on' or 'off', not {mode[:40]!r}")
    if mode == "off" and items:
        raise CommentError("'autorecover:off' takes no settings")
    try:
        settings = parse_settings(items)
    except SettingError as exc:
        raise CommentError(str(exc)) from None
    return CommentPolicy(mode == "on", tuple(sorted(settings.items())))


def format_comment(policy: CommentPolicy) -> str:
    """The directive for a policy (what `parse_comment` reads back as the same policy)."""
    if not policy.enabled:
        return f"{PREFIX}off"
    items = [f"{key}={format_value(value)}" for key, value in policy.settings]
    return ",".join([f"{PREFIX}on", *items])


def resolve(comment: str, site: SitePolicy | None = None) -> JobSettings:
    """The policy for a job with this comment under the site's default; never raises."""
    site = site or SitePolicy()
    try:
        asked = parse_comment(comment)
        if asked is None:
            enabled = not site.opt_in and site.base.enabled
            return JobSettings(enabled, replace(site.base, enabled=enabled), Source.SITE)
        policy, clamped = site.merged(dict(asked.settings), "job comment")
    except (CommentError, PolicyError) as exc:
        return JobSettings(False, replace(site.base, enabled=False), Source.INVALID, str(exc))
    return JobSettings(
        asked.enabled, replace(policy, enabled=asked.enabled), Source.COMMENT, clamped=clamped
    )
