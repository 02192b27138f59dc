"""The `--comment` convention: a strict grammar, clear errors, off when in doubt."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.slurm.policy import (
    KINDS,
    CommentError,
    CommentPolicy,
    SitePolicy,
    Source,
    format_comment,
    parse_comment,
    resolve,
)
from autorecover.domain.jobs.policy import JobPolicy


def test_slurm_comment_directive_and_the_users_own_text() -> None:
    settings = resolve("ckpt hourly; autorecover:on,user_restarts=3,transient_backoff_s=5/20")
    assert settings.enabled and settings.source is Source.COMMENT and settings.error is None
    assert settings.policy.user_restarts == 3
    assert settings.policy.transient_backoff_s == (5.0, 20.0)
    assert settings.policy.enabled


@pytest.mark.parametrize(
    ("comment", "message"),
    [("autorecover:yes", "mode must be 'on' or 'off'"),
     ("autorecover:on,max_restarts=3", "unknown setting 'max_restarts'"),
     ("autorecover:on,user_restarts=three", "must be a whole number"),
     ("autorecover:on,user_restarts=1,user_restarts=2", "given twice"),
     ("autorecover:on,dry_run=yes", "true or false"),
     ("autorecover:off,user_restarts=1", "takes no settings"),
     ("autorecover:on autorecover:off", "more than one"),
     ("AutoRecover:on", "not an autorecover directive"),
     ("autorecover=on", "not an autorecover directive"),
     ("autorecover:on,enabled=true", "unknown setting 'enabled'"),
     ("autorecover:on,user_restarts", "not key=value")],
)  # fmt: skip
def test_slurm_invalid_comments_are_errors_and_off(comment: str, message: str) -> None:
    with pytest.raises(CommentError, match=message):
        parse_comment(comment)
    for site in (SitePolicy(opt_in=True), SitePolicy(opt_in=False)):
        settings = resolve(comment, site)
        assert not settings.enabled and not settings.policy.enabled
        assert settings.source is Source.INVALID and message.split("'")[0] in (settings.error or "")


def test_slurm_site_default_decides_without_a_directive() -> None:
    site = SitePolicy(opt_in=False, base=JobPolicy(user_restarts=5))
    assert resolve("", site).enabled and resolve("", site).policy.user_restarts == 5
    assert not resolve("", SitePolicy()).enabled
    assert resolve("autorecover:off", site).enabled is False
    assert resolve("autorecover:on", SitePolicy()).source is Source.COMMENT


def _never_crashes(comment: str) -> None:
    with contextlib.suppress(CommentError):
        parse_comment(comment)
    settings = resolve(comment)
    assert settings.enabled is settings.policy.enabled


@given(st.text(max_size=200))
def test_slurm_comment_parsing_never_crashes(comment: str) -> None:
    _never_crashes(comment)


@given(st.text(alphabet="autorecvn:of,=_0123456789./ ;", max_size=60))
def test_slurm_near_miss_comments_never_crash(comment: str) -> None:
    _never_crashes("autorecover:" + comment)
    _never_crashes(comment)


def _value(kind: type) -> st.SearchStrategy[object]:
    number = st.decimals(min_value=0, max_value=999_999_999, places=3,
                         allow_nan=False, allow_infinity=False).map(float)  # fmt: skip
    if kind is bool:
        return st.booleans()
    if kind is int:
        return st.integers(min_value=0, max_value=999_999_999)
    if kind is float:
        return number
    return st.lists(number, min_size=1, max_size=5).map(tuple)


_settings = st.dictionaries(st.sampled_from(sorted(KINDS)), st.none(), max_size=4).flatmap(
    lambda keys: st.fixed_dictionaries({k: _value(KINDS[k]) for k in keys})
)


@given(st.booleans(), _settings)
def test_slurm_comment_round_trips(enabled: bool, settings: dict[str, object]) -> None:
    policy = CommentPolicy(enabled, tuple(sorted(settings.items())) if enabled else ())  # type: ignore[arg-type]
    text = format_comment(policy)
    assert parse_comment(text) == policy
    assert parse_comment(f"my notes; {text}; more notes") == policy
