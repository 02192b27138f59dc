"""Opt-in and policy through annotations: the Slurm comment's settings, clear errors, off
when in doubt."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.kubernetes.policy import (
    ORIGIN,
    POLICY_ANNOTATION,
    RECOVERY_ANNOTATION,
    AnnotationError,
    job_settings,
    parse_annotations,
    resolve_annotations,
    watched_job,
)
from autorecover.controllers.jobs.records import JobPhase
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.domain.jobs.settings import KINDS, SitePolicy, Source, format_value

FIXTURES = Path(__file__).parents[2] / "fixtures" / "kubernetes"
OPT_OUT = SitePolicy(opt_in=False)


def load(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with (FIXTURES / name).open() as f:
        job, *pods = yaml.safe_load_all(f)
    return job, pods


def test_kubernetes_on_with_a_policy() -> None:
    settings = resolve_annotations(
        {RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "user_restarts=3, transient_backoff_s=10/30"}
    )
    assert settings.enabled and settings.policy.enabled and settings.error is None
    assert settings.source is Source.ANNOTATION
    assert settings.policy.user_restarts == 3 and settings.policy.transient_backoff_s == (
        10.0,
        30.0,
    )


@pytest.mark.parametrize(
    ("annotations", "message"),
    [({RECOVERY_ANNOTATION: "yes"}, "autorecover.io/recovery: must be 'on' or 'off', not 'yes'"),
     ({RECOVERY_ANNOTATION: "On"}, "must be 'on' or 'off'"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "max_restarts=3"},
      "autorecover.io/policy: unknown setting 'max_restarts'"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "user_restarts=three"},
      "autorecover.io/policy: user_restarts must be a whole number, not 'three'"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "user_restarts=1,user_restarts=2"}, "given twice"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "dry_run=yes"}, "dry_run must be true or false"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "user_restarts"}, "'user_restarts' is not key=value"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "user_restarts=1,"}, "'' is not key=value"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "enabled=true"}, "unknown setting 'enabled'"),
     ({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "x" * 600}, "longer than 512"),
     ({"autorecover.io/recover": "on"}, "'autorecover.io/recover' is not autorecover's"),
     ({"autorecover.io/Recovery": "on"}, "is not autorecover's"),
     ({"auto-recover.io/policy": "user_restarts=1"}, "is not autorecover's")],
)  # fmt: skip
def test_kubernetes_invalid_annotations_are_errors_and_off(
    annotations: dict[str, str], message: str
) -> None:
    with pytest.raises(AnnotationError) as err:
        parse_annotations(annotations)
    assert message in str(err.value)
    for site in (SitePolicy(), OPT_OUT):
        settings = resolve_annotations(annotations, site)
        assert not settings.enabled and not settings.policy.enabled
        assert settings.source is Source.INVALID and message in (settings.error or "")


def test_kubernetes_site_default_decides_when_the_job_says_nothing() -> None:
    site = SitePolicy(opt_in=False, base=JobPolicy(user_restarts=5))
    settings = resolve_annotations({"team": "nlp"}, site)
    assert (
        settings.enabled and settings.policy.user_restarts == 5 and settings.source is Source.SITE
    )
    assert not resolve_annotations({}, SitePolicy()).enabled
    assert resolve_annotations({}, SitePolicy()).source is Source.SITE
    assert not resolve_annotations(
        {}, SitePolicy(opt_in=False, base=JobPolicy(enabled=False))
    ).enabled


def test_kubernetes_off_wins_and_leaves_the_policy_unread() -> None:
    settings = resolve_annotations(
        {RECOVERY_ANNOTATION: "off", POLICY_ANNOTATION: "nonsense"}, OPT_OUT
    )
    assert not settings.enabled and settings.error is None and settings.source is Source.ANNOTATION


def test_kubernetes_a_policy_without_the_opt_in_follows_the_site() -> None:
    annotations = {POLICY_ANNOTATION: "user_restarts=4"}
    assert not resolve_annotations(annotations, SitePolicy()).enabled
    settings = resolve_annotations(annotations, OPT_OUT)
    assert settings.enabled and settings.policy.user_restarts == 4
    assert resolve_annotations({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: " "}).enabled


def test_kubernetes_watched_job_from_the_fixture() -> None:
    job, pods = load("pytorchjob-oom.yaml")
    watched = watched_job(job, pods)
    assert watched is not None
    assert watched.scheduler == "kubernetes" and watched.origin == ORIGIN
    assert watched.job == "research/gpt-neox" and watched.status.phase is JobPhase.FAILED
    assert dict(watched.overrides) == {
        "user_restarts": 3,
        "transient_backoff_s": (10.0, 30.0, 90.0),
    }
    assert JobPolicy().merged(watched.overrides, "test").user_restarts == 3  # the field names


def test_kubernetes_jobs_that_did_not_opt_in_are_not_watched() -> None:
    job, pods = load("pytorchjob-running.yaml")
    assert watched_job(job, pods) is None  # opt-in site, no annotation
    watched = watched_job(job, pods, OPT_OUT)
    assert watched is not None and watched.overrides == {} and watched.origin == "site default"
    bad = copy.deepcopy(job)
    bad["metadata"]["annotations"] = {
        RECOVERY_ANNOTATION: "on",
        POLICY_ANNOTATION: "user_restarts=-1",
    }
    assert watched_job(bad, pods, OPT_OUT) is None
    assert "user_restarts" in (job_settings(bad).error or "")


def test_kubernetes_opt_in_alone_has_no_overrides() -> None:
    job, pods = load("pytorchjob-evicted.yaml")
    watched = watched_job(job, pods)
    assert watched is not None and watched.overrides == {}
    assert watched.origin == f"annotation {RECOVERY_ANNOTATION}"


def test_kubernetes_list_settings_take_numbers_only() -> None:
    settings = resolve_annotations(
        {RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: "transient_backoff_s=a/b"}
    )
    assert settings.source is Source.INVALID and "transient_backoff_s" in (settings.error or "")


_values = {
    bool: st.booleans(),
    int: st.integers(0, 10**6),
    float: st.integers(0, 10**6).map(float),
    tuple: st.lists(st.integers(0, 1000).map(float), min_size=1, max_size=4).map(tuple),
}


@given(st.dictionaries(st.sampled_from(sorted(KINDS)), st.none(), max_size=5).flatmap(
    lambda keys: st.fixed_dictionaries({k: _values[KINDS[k]] for k in keys})))  # fmt: skip
def test_kubernetes_property_any_valid_policy_reads_back(settings: dict[str, Any]) -> None:
    text = ", ".join(f"{k}={format_value(v)}" for k, v in settings.items())
    mode, got = parse_annotations({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: text})
    assert mode is True and got == settings
    resolved = resolve_annotations({RECOVERY_ANNOTATION: "on", POLICY_ANNOTATION: text})
    assert resolved.enabled and all(getattr(resolved.policy, k) == v for k, v in settings.items())


_keys = st.one_of(
    st.sampled_from([RECOVERY_ANNOTATION, POLICY_ANNOTATION, "autorecover.io/recover", "team"]),
    st.text(max_size=40),
)
_texts = st.one_of(
    st.sampled_from(["on", "off", "user_restarts=2", "dry_run=true,"]), st.text(max_size=80)
)


@given(st.dictionaries(_keys, _texts, max_size=4))
def test_kubernetes_property_resolve_never_raises(annotations: dict[str, str]) -> None:
    for site in (SitePolicy(), OPT_OUT):
        settings = resolve_annotations(annotations, site)
        assert settings.enabled == settings.policy.enabled
        assert settings.error is None or (
            not settings.enabled and settings.source is Source.INVALID
        )
        if annotations.get(RECOVERY_ANNOTATION) == "off":
            assert not settings.enabled
