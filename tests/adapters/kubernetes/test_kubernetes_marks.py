"""What autorecover writes on a Node and how it tells its marks from a person's (pure)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from autorecover.adapters.kubernetes import marks
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT

PROV = Provenance("hw/gpu-01/1/cordon", "autorecover", "suspect: XID 79",
                  datetime(2026, 11, 30, 1, 2, 3, tzinfo=UTC), ("ev-1", "ev-2"), "hw/gpu-01/1")  # fmt: skip


def node(**spec: Any) -> dict[str, Any]:
    notes = spec.pop("annotations", {})
    return {"metadata": {"name": "gpu-01", "resourceVersion": "42", "annotations": notes},
            "spec": spec}  # fmt: skip


def apply(n: dict[str, Any], patch: dict[str, Any] | None) -> dict[str, Any]:
    """A JSON merge patch, as the API server applies it (None deletes)."""
    if patch is None:
        return n

    def merge(a: Any, b: Any) -> Any:
        if not isinstance(b, dict):
            return b
        out = dict(a) if isinstance(a, dict) else {}
        for k, v in b.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = merge(out.get(k), v)
        return out

    return dict(merge(n, patch))


def test_cordon_sets_unschedulable_with_provenance_and_the_resource_version() -> None:
    patch = marks.cordon_patch(node(), PROV, "autorecover")
    assert patch is not None and patch["metadata"]["resourceVersion"] == "42"
    after = apply(node(), patch)
    assert after["spec"]["unschedulable"] is True
    notes = after["metadata"]["annotations"]
    assert notes[marks.CORDON_SET] == "true" and notes[marks.INCIDENT] == "hw/gpu-01/1"
    assert notes[marks.EVIDENCE] == "ev-1, ev-2" and notes[marks.AT].startswith("2026-11-30")
    assert marks.cordon_patch(after, PROV, "autorecover") is None  # ours already


def test_a_persons_cordon_is_recorded_as_theirs_and_survives_resume() -> None:
    theirs = node(unschedulable=True)
    assert marks.scheduler_node(theirs, "autorecover").cordoned_by == {marks.PERSON}
    after = apply(theirs, marks.cordon_patch(theirs, PROV, "autorecover"))
    assert after["metadata"]["annotations"][marks.CORDON_SET] == "false"
    assert marks.scheduler_node(after, "autorecover").cordoned_by == {"autorecover",
                                                                      marks.PERSON}  # fmt: skip
    back = apply(after, marks.resume_patch(after, "autorecover"))
    assert back["spec"]["unschedulable"] is True
    assert not set(marks.NODE_ANNOTATIONS) & set(back["metadata"]["annotations"])


def test_taint_is_added_beside_others_and_resume_removes_only_ours() -> None:
    other = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
    n = node(taints=[other])
    after = apply(n, marks.taint_patch(n, QUARANTINE_TAINT, "NoExecute", PROV, "autorecover"))
    assert after["spec"]["taints"][0] == other
    assert after["spec"]["taints"][1]["effect"] == "NoExecute"
    assert marks.taint_patch(after, QUARANTINE_TAINT, "NoExecute", PROV, "autorecover") is None
    assert QUARANTINE_TAINT in marks.scheduler_node(after, "autorecover").taints
    back = apply(after, marks.resume_patch(after, "autorecover"))
    assert back["spec"]["taints"] == [other]
    with pytest.raises(ValueError, match="NoPanic"):
        marks.taint_patch(n, QUARANTINE_TAINT, "NoPanic", PROV, "autorecover")


def test_resume_of_an_untouched_node_does_nothing() -> None:
    assert marks.resume_patch(node(taints=[{"key": "x", "effect": "NoSchedule"}]),
                              "autorecover") is None  # fmt: skip


def test_condition_names_the_incident_and_the_action() -> None:
    cond = marks.condition(PROV, held=True)
    assert cond["type"] == marks.CONDITION and cond["status"] == "True"
    assert "hw/gpu-01/1" in cond["message"] and PROV.action_id in cond["message"]
    assert cond["lastTransitionTime"] == "2026-11-30T01:02:03Z"


def test_kubectl_uncordon_of_our_cordon_shows_as_lifted_outside_autorecover() -> None:
    ours = apply(node(), marks.cordon_patch(node(), PROV, "autorecover"))
    ours = apply(ours, marks.taint_patch(ours, QUARANTINE_TAINT, "NoSchedule", PROV, "autorecover"))
    held = marks.scheduler_node(ours, "autorecover")
    assert held.cordoned_by == {"autorecover"} and held.shows.startswith("unschedulable")
    uncordoned = apply(ours, {"spec": {"unschedulable": None}})  # what kubectl uncordon does
    view = marks.scheduler_node(uncordoned, "autorecover")
    assert view.cordoned_by == frozenset()
    assert view.shows == (
        f"schedulable, {marks.CORDONED_BY}=autorecover still set: uncordoned outside "
        f"autorecover, taints {QUARANTINE_TAINT}"
    )
    back = apply(uncordoned, marks.resume_patch(uncordoned, "autorecover"))
    assert not back["spec"].get("taints") and not back["spec"].get("unschedulable")


def test_kubernetes_ready_condition_says_whether_the_host_responds() -> None:
    def node(status: str | None) -> dict[str, Any]:
        conditions = [] if status is None else [{"type": "Ready", "status": status}]
        return {"metadata": {"name": "gpu01"}, "spec": {}, "status": {"conditions": conditions}}

    assert marks.scheduler_node(node("True"), "autorecover").responding
    assert marks.scheduler_node(node(None), "autorecover").responding  # nothing said: no claim
    for gone in ("False", "Unknown"):
        view = marks.scheduler_node(node(gone), "autorecover")
        assert not view.responding and f"Ready={gone}" in view.shows
