"""What autorecover writes on a Node, and how it tells its own marks from a person's (pure).

Names here are persisted on users' clusters: chosen once, never renamed.

* Cordon: `spec.unschedulable: true`, plus `autorecover.io/cordoned-by: <owner>` and
  `autorecover.io/cordon-set: "true"` when autorecover flipped it, `"false"` when the node
  was already unschedulable (a person's cordon: it stays when autorecover lets go).
* Quarantine taint `autorecover.io/quarantined` (persisted as `QUARANTINE_TAINT`), effect
  `NoSchedule`, or `NoExecute` when the site's policy says running pods must leave.
* Provenance annotations: the action, reason, incident, time and evidence of the last
  mutation (`autorecover.io/action`, `/reason`, `/incident`, `/at`, `/evidence`).
* A node condition `AutorecoverQuarantine` (True while held out) for `kubectl describe`.

`resume_patch` undoes exactly those: our taint (any effect), our annotations, the condition,
and `unschedulable` only when autorecover set it. Patches are JSON merge patches carrying the
node's `resourceVersion`, so a concurrent change makes the API answer 409 and the port reads
the node again instead of overwriting somebody's edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from autorecover.controllers.hardware.ports import SchedulerNode
from autorecover.controllers.ports import Provenance
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT

PREFIX = "autorecover.io/"
CORDONED_BY = "autorecover.io/cordoned-by"
CORDON_SET = "autorecover.io/cordon-set"
ACTION = "autorecover.io/action"
REASON = "autorecover.io/reason"
INCIDENT = "autorecover.io/incident"
AT = "autorecover.io/at"
EVIDENCE = "autorecover.io/evidence"
NODE_ANNOTATIONS = (CORDONED_BY, CORDON_SET, ACTION, REASON, INCIDENT, AT, EVIDENCE)
CONDITION = "AutorecoverQuarantine"
PERSON = "not-autorecover"  # who cordoned a node that was unschedulable before we came
EFFECTS = ("NoSchedule", "NoExecute")
_MAX_VALUE = 1024  # annotations are small; the store keeps the full text

Node = Mapping[str, Any]  # a Node as the API returns it (camelCase JSON)


def _meta(node: Node) -> Mapping[str, Any]:
    return node.get("metadata") or {}


def node_annotations(node: Node) -> Mapping[str, str]:
    """The node's annotations (empty when none)."""
    return _meta(node).get("annotations") or {}


def taints(node: Node) -> list[dict[str, Any]]:
    """The node's taints (empty when none)."""
    return list((node.get("spec") or {}).get("taints") or [])


def unschedulable(node: Node) -> bool:
    """Whether the node is cordoned (by anyone)."""
    return bool((node.get("spec") or {}).get("unschedulable"))


def provenance_annotations(prov: Provenance) -> dict[str, str]:
    """The annotations that say why autorecover last touched the node."""
    return {
        ACTION: prov.action_id[:_MAX_VALUE],
        REASON: prov.why[:_MAX_VALUE],
        INCIDENT: (prov.incident or "")[:_MAX_VALUE],
        AT: prov.at.isoformat(),
        EVIDENCE: ", ".join(prov.evidence)[:_MAX_VALUE],
    }


def _patch(node: Node, meta: dict[str, Any], spec: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"metadata": {"resourceVersion": _meta(node).get("resourceVersion"),
                                        **meta}}  # fmt: skip
    if spec:
        out["spec"] = spec
    return out


def cordon_patch(node: Node, prov: Provenance, owner: str) -> dict[str, Any] | None:
    """The merge patch that cordons the node for us; None when it is ours already."""
    have = node_annotations(node)
    if have.get(CORDONED_BY) == owner and unschedulable(node):
        return None
    notes = {**provenance_annotations(prov), CORDONED_BY: owner}
    if unschedulable(node) and have.get(CORDONED_BY) != owner:
        notes[CORDON_SET] = "false"  # a person's cordon: theirs to lift
        return _patch(node, {"annotations": notes})
    notes[CORDON_SET] = "true"
    return _patch(node, {"annotations": notes}, {"unschedulable": True})


def taint_patch(
    node: Node, key: str, effect: str, prov: Provenance, owner: str
) -> dict[str, Any] | None:
    """The merge patch that adds our taint; None when it is there already."""
    if effect not in EFFECTS:
        raise ValueError(f"taint effect {effect!r}: expected one of {', '.join(EFFECTS)}")
    have = taints(node)
    if any(t.get("key") == key and t.get("effect") == effect for t in have):
        return None
    ours = {"key": key, "value": owner, "effect": effect, "timeAdded": _rfc3339(prov.at)}
    notes = provenance_annotations(prov)
    return _patch(node, {"annotations": notes}, {"taints": [*have, ours]})


def resume_patch(node: Node, owner: str) -> dict[str, Any] | None:
    """The merge patch that removes exactly our marks; None when there are none."""
    have = node_annotations(node)
    ours_cordon = have.get(CORDONED_BY) == owner
    kept = [t for t in taints(node) if t.get("key") != QUARANTINE_TAINT]
    ours_taint = len(kept) != len(taints(node))
    ours_notes = [k for k in NODE_ANNOTATIONS if k in have]
    if not (ours_cordon or ours_taint or ours_notes):
        return None
    spec: dict[str, Any] = {}
    if ours_taint:
        spec["taints"] = kept or None
    if ours_cordon and have.get(CORDON_SET) == "true" and unschedulable(node):
        spec["unschedulable"] = None
    return _patch(node, {"annotations": dict.fromkeys(ours_notes)}, spec)


def condition(prov: Provenance, held: bool) -> dict[str, Any]:
    """Our node condition, for a strategic merge patch of `status.conditions` (by type)."""
    return {
        "type": CONDITION,
        "status": "True" if held else "False",
        "reason": "AutorecoverQuarantine" if held else "AutorecoverReturned",
        "message": f"{prov.why} (incident {prov.incident or '-'}, action {prov.action_id})"[
            :_MAX_VALUE
        ],
        "lastTransitionTime": _rfc3339(prov.at),
        "lastHeartbeatTime": _rfc3339(prov.at),
    }


def scheduler_node(node: Node, owner: str, running: int = 0) -> SchedulerNode:
    """The scheduler's view of the node for hardware recovery: who holds it out, its taints."""
    have = node_annotations(node)
    owners: set[str] = set()
    if unschedulable(node):
        if have.get(CORDONED_BY) == owner:
            owners.add(owner)
            if have.get(CORDON_SET) == "false":
                owners.add(PERSON)
        else:
            owners.add(PERSON)
    keys = frozenset(str(t.get("key")) for t in taints(node) if t.get("key"))
    shows = "unschedulable" if unschedulable(node) else "schedulable"
    if not unschedulable(node) and have.get(CORDONED_BY) == owner:
        # Our annotations stay, the cordon went: somebody ran `kubectl uncordon` (or edited it).
        shows += f", {CORDONED_BY}={owner} still set: uncordoned outside autorecover"
    if keys:
        shows += f", taints {', '.join(sorted(keys))}"
    ready = next(
        (c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"),
        None,
    )  # the kubelet's heartbeat: False or Unknown (node lease expired) says the host is gone
    responding = ready is None or ready.get("status") == "True"
    if not responding:
        shows += f", Ready={ready.get('status') if ready else '?'}"
    name = str(_meta(node).get("name", ""))
    return SchedulerNode(name, frozenset(owners), keys, running, shows, responding)


def _rfc3339(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")
