"""`[job.ceilings]` in a site policy file: merged by key, errors named, shown by the API."""

from __future__ import annotations

import pytest

from autorecover.server.policies import load_policies, policies_json


def test_a_site_policy_file_sets_ceilings_merged_by_key_and_shown() -> None:
    first = "[job]\nuser_restarts = 2\n[job.ceilings]\nuser_restarts = 4\ncrash_loop_failures = 6\n"
    second = "[job.ceilings]\nuser_restarts = 3\n"
    policies = load_policies([("a.toml", first), ("b.toml", second)])
    assert dict(policies.job_ceilings.limits) == {"user_restarts": 3.0, "crash_loop_failures": 6.0}
    assert policies.jobs.user_restarts == 2
    assert policies_json(policies)["job_ceilings"] == {
        "crash_loop_failures": 6.0,
        "user_restarts": 3.0,
    }
    with pytest.raises(ValueError, match=r"b\.toml.*ceilings"):
        load_policies([("b.toml", "[job]\nceilings = 3\n")])
