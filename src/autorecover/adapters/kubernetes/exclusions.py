"""Keeping a PyTorchJob off nodes: hostname `NotIn` node affinity, told apart from the user's.

A requeue that avoids nodes rewrites each replica's pod template: every term of
`nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms` gets a
`kubernetes.io/hostname NotIn [...]` expression. Terms are ORed, so a node is kept off only
when every term of every replica excludes it; each term gets the full list. An existing
hostname `NotIn` in a term is merged into, and whatever else the user wrote (other
expressions, `matchFields`, preferred affinity, pod affinity, `nodeSelector`, tolerations)
is left as it was.

The annotation `autorecover.io/excluded-nodes` lists the nodes autorecover added, so a later
requeue (or lifting the exclusions) takes back ours and only ours. A node the user already
kept off is the user's, not ours: it is not listed, and lifting our exclusions leaves it
excluded. A node the user excludes in some terms (or replicas) but not in others is treated
as the user's too: after lifting it stays excluded wherever we put it. That is the safe side
of an ambiguity the merged expressions cannot resolve; taking it back could drop a node the
user meant to avoid.

An empty term matches no node in Kubernetes (it is skipped, not "match all"), so empty terms
are left alone: they exclude every node already, and a term of ours would make them match.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict, cast

from autorecover.adapters.kubernetes.names import valid_node_name

HOSTNAME_KEY = "kubernetes.io/hostname"
EXCLUDED_ANNOTATION = "autorecover.io/excluded-nodes"
NOT_IN = "NotIn"

# --- raw JSON at the edge (kubeflow.org/v1 PyTorchJob): only the fields we read -------------


class NodeSelectorRequirement(TypedDict, total=False):
    """One `matchExpressions` / `matchFields` entry."""

    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: list[str]


class NodeSelectorTerm(TypedDict, total=False):
    """One term: its requirements are ANDed."""

    matchExpressions: list[NodeSelectorRequirement]
    matchFields: list[NodeSelectorRequirement]


class NodeSelector(TypedDict, total=False):
    """A required node selector: its terms are ORed."""

    nodeSelectorTerms: list[NodeSelectorTerm]


class NodeAffinity(TypedDict, total=False):
    """A pod's node affinity (the preferred part is never touched)."""

    requiredDuringSchedulingIgnoredDuringExecution: NodeSelector
    preferredDuringSchedulingIgnoredDuringExecution: list[dict[str, Any]]


class Affinity(TypedDict, total=False):
    """A pod's affinity."""

    nodeAffinity: NodeAffinity
    podAffinity: dict[str, Any]
    podAntiAffinity: dict[str, Any]


class PodSpec(TypedDict, total=False):
    """A pod's spec, as far as placement goes."""

    affinity: Affinity
    nodeSelector: dict[str, str]
    nodeName: str
    tolerations: list[dict[str, Any]]


class PodTemplate(TypedDict, total=False):
    """A replica's pod template."""

    metadata: dict[str, Any]
    spec: PodSpec


class ReplicaSpec(TypedDict, total=False):
    """One replica type (Master, Worker) of a PyTorchJob."""

    replicas: int
    restartPolicy: str
    template: PodTemplate


class ObjectMeta(TypedDict, total=False):
    """An object's metadata."""

    name: str
    namespace: str
    uid: str
    resourceVersion: str
    labels: dict[str, str]
    annotations: dict[str, str]
    deletionTimestamp: str


class PyTorchJobSpec(TypedDict, total=False):
    """A PyTorchJob's spec."""

    pytorchReplicaSpecs: dict[str, ReplicaSpec]
    runPolicy: dict[str, Any]


class PyTorchJob(TypedDict, total=False):
    """A `kubeflow.org/v1` PyTorchJob (its status is read in `states`)."""

    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: PyTorchJobSpec


# --- reading ------------------------------------------------------------------------------


def ours(job: Mapping[str, Any]) -> tuple[str, ...]:
    """The nodes autorecover keeps the job off, from its annotation; sorted."""
    annotations = cast(PyTorchJob, job).get("metadata", {}).get("annotations") or {}
    return _split(annotations.get(EXCLUDED_ANNOTATION, ""))


def exclusions_of(job: Mapping[str, Any]) -> tuple[str, ...]:
    """The nodes the job is kept off now (the user's and ours): sorted.

    A node is kept off when it is a hostname `NotIn` value in every live term of every
    replica, which is what the scheduler enforces; a replica without required terms may run
    anywhere, so then no node is kept off.
    """
    return excluded_in(_replicas(cast(PyTorchJob, job)))


def excluded_in(holders: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """The nodes every live term of every pod template excludes (sorted): `holders` are
    objects with a pod `template` (a PyTorchJob's replicas, a JobSet's child Jobs' specs)."""
    common: set[str] | None = None
    for replica in cast(Iterable[ReplicaSpec], holders):
        terms = _live(_terms(replica))
        if not terms:
            return ()
        for term in terms:
            values = _not_in_values(term)
            common = values if common is None else common & values
    return tuple(sorted(common or ()))


# --- writing ------------------------------------------------------------------------------


def with_exclusions(job: Mapping[str, Any], exclude: Sequence[str]) -> dict[str, Any]:
    """A deep copy of the job that is kept off `exclude` (ours) and the user's own exclusions.

    Our previous exclusions (the annotation's) are replaced by `exclude`; `exclude` empty
    takes ours back and leaves the user's affinity as the user wrote it. Node names are
    validated (`InvalidNameError`).
    """
    wanted = sorted({valid_node_name(n) for n in exclude})
    before = set(ours(job))
    out = copy.deepcopy(dict(job))
    typed = cast(PyTorchJob, out)
    users: set[str] = set()
    for replica in _replicas(typed):
        users |= _rewrite(replica, before, wanted)
    _annotate(typed, [n for n in wanted if n not in users])
    return out


def exclude_in(holder: dict[str, Any], exclude: Sequence[str],
               before: Iterable[str] = ()) -> set[str]:  # fmt: skip
    """Keep one pod template (`holder["template"]`, changed in place) off `exclude`, taking
    `before` (ours from an earlier rewrite) out first; returns the user's own excluded nodes
    found there. Node names are validated (`InvalidNameError`)."""
    wanted = sorted({valid_node_name(n) for n in exclude})
    return _rewrite(cast(ReplicaSpec, holder), set(before), wanted)


def _rewrite(replica: ReplicaSpec, before: set[str], wanted: list[str]) -> set[str]:
    """Put `wanted` in every live term of one replica; the user's own values found there."""
    users: set[str] = set()
    if not wanted and not _terms(replica):
        return users  # nothing of ours can be there: create nothing
    spec = replica.setdefault("template", {}).setdefault("spec", {})
    node = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    required = node.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.get("nodeSelectorTerms") or []
    kept: list[NodeSelectorTerm] = []
    for term in terms:
        if not _is_live(term):
            kept.append(term)  # matches nothing: leave it so
            continue
        own = _without(term, before)
        users |= _not_in_values(own)
        if wanted:
            kept.append(_with(own, wanted))
        elif _is_live(own):
            kept.append(own)
        # else: the term held only ours; an empty term would match nothing, so it goes
    if wanted and not _live(kept):
        kept.append({"matchExpressions": [_expression(wanted)]})
    if kept:
        required["nodeSelectorTerms"] = kept
    else:  # an empty `nodeSelectorTerms` is invalid: the block was only ours
        del node["requiredDuringSchedulingIgnoredDuringExecution"]
        if not node:
            del spec["affinity"]["nodeAffinity"]
        if not spec["affinity"]:
            del spec["affinity"]
    return users


def _without(term: NodeSelectorTerm, before: set[str]) -> NodeSelectorTerm:
    """The term with our previous values taken out of its hostname `NotIn` expressions."""
    out = dict(term)
    exprs: list[NodeSelectorRequirement] = []
    for expr in term.get("matchExpressions") or []:
        if _is_hostname_not_in(expr):
            values = [v for v in expr.get("values") or [] if v not in before]
            if not values:
                continue  # `NotIn` with no values is invalid
            expr = {**expr, "values": values}
        exprs.append(expr)
    if exprs:
        out["matchExpressions"] = exprs
    else:
        out.pop("matchExpressions", None)
    return cast(NodeSelectorTerm, out)


def _with(term: NodeSelectorTerm, wanted: list[str]) -> NodeSelectorTerm:
    """The term with `wanted` merged into its first hostname `NotIn` (or a new one)."""
    missing = [n for n in wanted if n not in _not_in_values(term)]
    if not missing:
        return term  # already kept off (by the user): leave the user's expressions as written
    exprs = list(term.get("matchExpressions") or [])
    for i, expr in enumerate(exprs):
        if _is_hostname_not_in(expr):
            values = sorted({*(expr.get("values") or []), *missing})
            exprs[i] = {**expr, "values": values}
            break
    else:
        exprs.append(_expression(missing))
    return cast(NodeSelectorTerm, {**term, "matchExpressions": exprs})


def _annotate(job: PyTorchJob, nodes: list[str]) -> None:
    """Set (or, when there are none, remove) our annotation."""
    meta = job.setdefault("metadata", {})
    annotations = meta.get("annotations") or {}
    if nodes:
        meta["annotations"] = {**annotations, EXCLUDED_ANNOTATION: ",".join(nodes)}
    elif EXCLUDED_ANNOTATION in annotations:
        rest = {k: v for k, v in annotations.items() if k != EXCLUDED_ANNOTATION}
        if rest:
            meta["annotations"] = rest
        else:
            del meta["annotations"]


# --- helpers ------------------------------------------------------------------------------


def _replicas(job: PyTorchJob) -> list[ReplicaSpec]:
    specs = job.get("spec", {}).get("pytorchReplicaSpecs") or {}
    return [specs[k] for k in sorted(specs) if isinstance(specs[k], dict)]


def _terms(replica: ReplicaSpec) -> list[NodeSelectorTerm]:
    spec = replica.get("template", {}).get("spec", {})
    node = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    return list(required.get("nodeSelectorTerms") or [])


def _is_live(term: NodeSelectorTerm) -> bool:
    return bool(term.get("matchExpressions") or term.get("matchFields"))


def _live(terms: Iterable[NodeSelectorTerm]) -> list[NodeSelectorTerm]:
    return [t for t in terms if _is_live(t)]


def _is_hostname_not_in(expr: NodeSelectorRequirement) -> bool:
    return expr.get("key") == HOSTNAME_KEY and expr.get("operator") == NOT_IN


def _not_in_values(term: NodeSelectorTerm) -> set[str]:
    out: set[str] = set()
    for expr in term.get("matchExpressions") or []:
        if _is_hostname_not_in(expr):
            out.update(expr.get("values") or [])
    return out


def _expression(nodes: list[str]) -> NodeSelectorRequirement:
    return {"key": HOSTNAME_KEY, "operator": NOT_IN, "values": list(nodes)}


def _split(text: str) -> tuple[str, ...]:
    return tuple(sorted({n.strip() for n in text.split(",") if n.strip()}))
