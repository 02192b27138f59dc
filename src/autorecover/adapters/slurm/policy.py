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
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum

from autorecover.domain.job_policy import JobPolicy, PolicyError

PREFIX = "autorecover:"
MAX_DIRECTIVE = 512
_WORD_SPLIT = re.compile(r"[\s;]+")
_KEY = re.compile(r"[a-z][a-z0-9_]{0,39}")
_NUMBER = re.compile(r"\d{1,9}(?:\.\d{1,6})?")  # 15 digits: exact through a float
_WHOLE = re.compile(r"\d{1,9}")
_MENTION = re.compile(r"auto[-_ ]?recover", re.IGNORECASE)

Value = bool | int | float | tuple[float, ...]


class CommentError(ValueError):
    """The comment's autorecover directive is not valid; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class CommentPolicy:
    """What a job's comment asks of autorecover."""

    enabled: bool
    settings: tuple[tuple[str, Value], ...] = ()  # sorted by key


def _kinds() -> dict[str, type]:
    """Each settable field and the type of its default (bool before int: bool is an int)."""
    out: dict[str, type] = {}
    for f in fields(JobPolicy):
        if f.name == "enabled":
            continue
        default = getattr(JobPolicy(), f.name)
        out[f.name] = next(t for t in (bool, int, float, tuple) if isinstance(default, t))
    return out


KINDS = _kinds()


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
    settings: dict[str, Value] = {}
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or not _KEY.fullmatch(key):
            raise CommentError(f"setting {item[:60]!r} is not key=value")
        if key not in KINDS:
            raise CommentError(f"unknown setting {key!r} (known: {', '.join(sorted(KINDS))})")
        if key in settings:
            raise CommentError(f"setting {key!r} given twice")
        settings[key] = _value(key, raw)
    return CommentPolicy(mode == "on", tuple(sorted(settings.items())))


def _value(key: str, raw: str) -> Value:
    kind = KINDS[key]
    if kind is bool:
        if raw not in ("true", "false"):
            raise CommentError(f"{key} must be true or false, not {raw[:40]!r}")
        return raw == "true"
    if kind is int:
        if not _WHOLE.fullmatch(raw):
            raise CommentError(f"{key} must be a whole number, not {raw[:40]!r}")
        return int(raw)
    if kind is float:
        if not _NUMBER.fullmatch(raw):
            raise CommentError(f"{key} must be a number, not {raw[:40]!r}")
        return float(raw)
    parts = raw.split("/")
    if not all(_NUMBER.fullmatch(p) for p in parts) or len(parts) > 16:
        raise CommentError(f"{key} must be numbers separated by '/', not {raw[:40]!r}")
    return tuple(float(p) for p in parts)


def format_comment(policy: CommentPolicy) -> str:
    """The directive for a policy (what `parse_comment` reads back as the same policy)."""
    if not policy.enabled:
        return f"{PREFIX}off"
    items = [f"{key}={_format(value)}" for key, value in policy.settings]
    return ",".join([f"{PREFIX}on", *items])


def _format(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "/".join(_format(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return str(value)


class Source(StrEnum):
    """Where a job's policy came from (persisted: never rename a value)."""

    COMMENT = "comment"
    SITE = "site"
    INVALID = "invalid"  # the comment was malformed: autorecover is off for the job


@dataclass(frozen=True, slots=True)
class SitePolicy:
    """The site-wide default: whether jobs without a directive are in, and the base policy."""

    opt_in: bool = True  # True: only jobs whose comment says `autorecover:on`
    base: JobPolicy = field(default_factory=JobPolicy)


@dataclass(frozen=True, slots=True)
class JobSettings:
    """The policy one job runs under, and why."""

    enabled: bool
    policy: JobPolicy
    source: Source
    error: str | None = None


def resolve(comment: str, site: SitePolicy | None = None) -> JobSettings:
    """The policy for a job with this comment under the site's default; never raises."""
    site = site or SitePolicy()
    try:
        asked = parse_comment(comment)
        if asked is None:
            enabled = not site.opt_in and site.base.enabled
            return JobSettings(enabled, replace(site.base, enabled=enabled), Source.SITE)
        policy = site.base.merged(dict(asked.settings), "job comment")
    except (CommentError, PolicyError) as exc:
        return JobSettings(False, replace(site.base, enabled=False), Source.INVALID, str(exc))
    return JobSettings(asked.enabled, replace(policy, enabled=asked.enabled), Source.COMMENT)
