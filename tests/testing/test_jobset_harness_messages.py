"""The JobSet and TrainJob harnesses' failure messages, without a cluster."""

from __future__ import annotations

from autorecover.testing.kubernetes.jobset_harness import _conditions


def test_conditions_read_one_line_each_and_tolerate_missing_fields() -> None:
    status = {
        "conditions": [
            {"type": "Suspended", "status": "True", "reason": "JobSetSuspended"},
            {"type": "Completed", "status": "False"},
        ]
    }
    assert _conditions(status) == [
        "Suspended=True (JobSetSuspended)",
        "Completed=False (None)",
    ]
    assert _conditions({}) == []
    assert _conditions({"conditions": None}) == []
