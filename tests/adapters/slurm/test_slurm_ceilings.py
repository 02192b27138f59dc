"""A Slurm comment asking for more than the site's ceilings runs at the ceilings, said."""

from __future__ import annotations

from autorecover.adapters.slurm.policy import resolve
from autorecover.domain.jobs.policy import ceilings_from
from autorecover.domain.jobs.settings import SitePolicy, Source

CEILINGS = ceilings_from({"user_restarts": 3}, "site.toml")


def test_a_slurm_comment_above_the_ceiling_runs_at_the_ceiling() -> None:
    site = SitePolicy(ceilings=CEILINGS)
    settings = resolve("autorecover:on,user_restarts=50,infrastructure_restarts=7", site)
    assert settings.source is Source.COMMENT and settings.enabled
    assert (settings.policy.user_restarts, settings.policy.infrastructure_restarts) == (3, 7)
    assert settings.clamped == ("user_restarts=50 asked, site ceiling 3: clamped",)
