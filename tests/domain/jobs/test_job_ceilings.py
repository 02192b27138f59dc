"""Operator ceilings: a site caps what a job's annotations or Slurm comment may ask for."""

from __future__ import annotations

import pytest

from autorecover.domain.jobs.policy import NO_CEILINGS, PolicyError, ceilings_from

CEILINGS = ceilings_from(
    {"user_restarts": 3, "infrastructure_restarts": 20, "transient_backoff_s": 120,
     "suspicion_threshold": 4.5},
    "site.toml",
)  # fmt: skip


def test_values_above_their_ceiling_are_clamped_and_said() -> None:
    asked = {"user_restarts": 50, "infrastructure_restarts": 5, "dry_run": True,
             "transient_backoff_s": (10.0, 600.0), "suspicion_threshold": 9}  # fmt: skip
    capped, notes = CEILINGS.clamp(asked)
    assert capped == {"user_restarts": 3, "infrastructure_restarts": 5, "dry_run": True,
                      "transient_backoff_s": (10.0, 120.0), "suspicion_threshold": 4.5}  # fmt: skip
    assert isinstance(capped["user_restarts"], int)
    assert notes == (
        "user_restarts=50 asked, site ceiling 3: clamped",
        "transient_backoff_s=10/600 asked, site ceiling 120: clamped",
        "suspicion_threshold=9 asked, site ceiling 4.5: clamped",
    )
    assert CEILINGS.clamp({"user_restarts": 2}) == ({"user_restarts": 2}, ())
    assert CEILINGS.clamp({"user_restarts": "lots"}) == ({"user_restarts": "lots"}, ())
    assert NO_CEILINGS.clamp(asked) == (asked, ())


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"nonsense": 1}, "'nonsense': not a numeric job setting"),
        ({"dry_run": 1}, "'dry_run': not a numeric job setting"),
        ({"user_restarts": -1}, "'user_restarts': must be a number >= 0"),
        ({"user_restarts": True}, "must be a number >= 0"),
        ({"user_restarts": 2.5}, "'user_restarts': must be a whole number"),
    ],
)
def test_a_bad_ceiling_is_an_error_naming_the_field(table: dict[str, object], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        ceilings_from(table, "site.toml")
