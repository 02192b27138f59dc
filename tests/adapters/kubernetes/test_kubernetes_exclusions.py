"""Requeue with exclusions on a PyTorchJob: every term keeps the job off our nodes and the
user's, our own are told apart by the annotation, and the user's affinity is left alone."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover.adapters.kubernetes.exclusions import (
    EXCLUDED_ANNOTATION,
    HOSTNAME_KEY,
    exclusions_of,
    ours,
    with_exclusions,
)
from autorecover.adapters.kubernetes.names import InvalidNameError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "kubernetes"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def load(name: str) -> list[dict[str, Any]]:
    with (FIXTURES / name).open() as f:
        return list(yaml.safe_load_all(f))


def replicas(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return job["spec"]["pytorchReplicaSpecs"]


def terms(replica: dict[str, Any]) -> list[dict[str, Any]]:
    spec = replica["template"]["spec"]
    return (
        spec.get("affinity", {})
        .get("nodeAffinity", {})
        .get(REQUIRED, {})
        .get("nodeSelectorTerms", [])
    )


def not_in(term: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        e for e in term.get("matchExpressions", [])
        if e["key"] == HOSTNAME_KEY and e["operator"] == "NotIn"
    ]  # fmt: skip


def others(term: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in term.get("matchExpressions", []) if e not in not_in(term)]


def excluded(term: dict[str, Any]) -> set[str]:
    return {v for e in not_in(term) for v in e["values"]}


def live(term: dict[str, Any]) -> bool:
    return bool(term.get("matchExpressions") or term.get("matchFields"))


def assert_valid_pods(job: dict[str, Any]) -> None:
    """Each replica's pod template is a pod the API server's schema accepts."""
    for kind, replica in replicas(job).items():
        spec = {"containers": [{"name": "pytorch", "image": "x"}], **replica["template"]["spec"]}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": kind.lower()}, "spec": spec}
        kubernetes_validate.validate(pod, "1.33", strict=True)
        for term in terms(replica):
            assert all(e.get("values") for e in not_in(term))  # NotIn needs values
        required = spec.get("affinity", {}).get("nodeAffinity", {}).get(REQUIRED)
        assert required is None or required["nodeSelectorTerms"]  # never an empty list


# --- the fixtures ---------------------------------------------------------------------------


def test_kubernetes_requeue_replaces_ours_and_keeps_the_users() -> None:
    job = load("pytorchjob-oom.yaml")[0]
    original = copy.deepcopy(job)
    out = with_exclusions(job, ["gpu-node-03"])
    assert job == original  # a copy: the input is not touched
    assert out["metadata"]["annotations"][EXCLUDED_ANNOTATION] == "gpu-node-03"
    for kind in ("Master", "Worker"):
        (term,) = terms(replicas(out)[kind])
        (expr,) = not_in(term)  # merged into the user's, not a second one
        assert expr["values"] == ["gpu-node-03", "gpu-node-09"]  # gpu-node-05 was ours
        assert others(term) == others(terms(replicas(original)[kind])[0])  # A100 kept
        spec, before = replicas(out)[kind]["template"]["spec"], replicas(job)[kind]["template"]
        assert spec["tolerations"] == before["spec"]["tolerations"]
        assert spec["containers"] == before["spec"]["containers"]
    assert exclusions_of(out) == ("gpu-node-03", "gpu-node-09")
    assert ours(out) == ("gpu-node-03",)
    assert out["status"] == job["status"] and out["spec"]["runPolicy"] == job["spec"]["runPolicy"]
    assert_valid_pods(out)


def test_kubernetes_lifting_ours_leaves_the_users_exclusion() -> None:
    job = load("pytorchjob-oom.yaml")[0]
    out = with_exclusions(job, [])
    for replica in replicas(out).values():
        (term,) = terms(replica)
        assert excluded(term) == {"gpu-node-09"}
    assert EXCLUDED_ANNOTATION not in out["metadata"]["annotations"]
    assert out["metadata"]["annotations"]["autorecover.io/recovery"] == "on"
    assert exclusions_of(out) == ("gpu-node-09",) and ours(out) == ()
    assert_valid_pods(out)


def test_kubernetes_a_job_without_affinity_gets_one_term_and_gives_it_back() -> None:
    job = load("pytorchjob-running.yaml")[0]
    out = with_exclusions(job, ["gpu-node-02", "gpu-node-01", "gpu-node-02"])
    for replica in replicas(out).values():
        assert terms(replica) == [
            {"matchExpressions": [
                {"key": HOSTNAME_KEY, "operator": "NotIn", "values": ["gpu-node-01", "gpu-node-02"]}
            ]}
        ]  # fmt: skip
    assert out["metadata"]["annotations"] == {EXCLUDED_ANNOTATION: "gpu-node-01,gpu-node-02"}
    assert_valid_pods(out)
    assert with_exclusions(out, []) == job  # the block was only ours: all of it goes


def test_kubernetes_every_term_of_every_replica_is_excluded() -> None:
    job = load("pytorchjob-running.yaml")[0]
    worker = replicas(job)["Worker"]["template"]["spec"]
    zone_a = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}
    by_name = {"key": "metadata.name", "operator": "NotIn", "values": ["gpu-node-99"]}
    preferred = [{"weight": 10, "preference": {"matchExpressions": [zone_a]}}]
    pod_affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": HOSTNAME_KEY}]}}  # fmt: skip
    worker["affinity"] = {
        "nodeAffinity": {
            REQUIRED: {
                "nodeSelectorTerms": [{"matchExpressions": [zone_a]}, {"matchFields": [by_name]}]
            },
            PREFERRED: preferred,
        },
        **pod_affinity,
    }
    worker["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
    out = with_exclusions(job, ["gpu-node-07"])
    spec = replicas(out)["Worker"]["template"]["spec"]
    first, second = terms(replicas(out)["Worker"])
    assert others(first) == [zone_a] and excluded(first) == {"gpu-node-07"}
    assert second["matchFields"] == [by_name] and excluded(second) == {"gpu-node-07"}
    assert spec["affinity"]["nodeAffinity"][PREFERRED] == preferred
    assert spec["affinity"]["podAntiAffinity"] == pod_affinity["podAntiAffinity"]
    assert spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert exclusions_of(out) == ("gpu-node-07",)
    assert_valid_pods(out)
    back = with_exclusions(out, [])
    assert back == job  # user's terms kept as written, ours taken out of each


def test_kubernetes_a_node_the_user_already_excludes_is_not_ours() -> None:
    job = load("pytorchjob-oom.yaml")[0]
    del job["metadata"]["annotations"][EXCLUDED_ANNOTATION]  # gpu-node-05 is the user's now
    out = with_exclusions(job, ["gpu-node-05", "gpu-node-06"])
    assert ours(out) == ("gpu-node-06",)
    assert exclusions_of(out) == ("gpu-node-05", "gpu-node-06", "gpu-node-09")
    back = with_exclusions(out, [])
    assert exclusions_of(back) == ("gpu-node-05", "gpu-node-09")  # the user's stay
    assert back == job


def test_kubernetes_invalid_node_names_are_refused_before_anything_changes() -> None:
    job = load("pytorchjob-running.yaml")[0]
    with pytest.raises(InvalidNameError, match="GPU_NODE"):
        with_exclusions(job, ["gpu-node-01", "GPU_NODE"])


def test_kubernetes_exclusions_are_what_every_term_enforces() -> None:
    job = load("pytorchjob-oom.yaml")[0]
    assert exclusions_of(job) == ("gpu-node-05", "gpu-node-09")
    terms(replicas(job)["Worker"]).append(
        {
            "matchExpressions": [
                {"key": HOSTNAME_KEY, "operator": "NotIn", "values": ["gpu-node-09"]}
            ]
        }
    )
    assert exclusions_of(job) == ("gpu-node-09",)  # the second term allows gpu-node-05
    del replicas(job)["Master"]["template"]["spec"]["affinity"]
    assert exclusions_of(job) == ()  # the master may run anywhere
    assert exclusions_of({}) == () and exclusions_of({"spec": {"pytorchReplicaSpecs": {}}}) == ()


def test_kubernetes_ours_reads_the_annotation_forgivingly() -> None:
    job = {"metadata": {"annotations": {EXCLUDED_ANNOTATION: " b, a,,a "}}}
    assert ours(job) == ("a", "b")
    assert ours({}) == () and ours({"metadata": {"annotations": None}}) == ()


def test_kubernetes_an_empty_term_matches_nothing_and_is_left_so() -> None:
    job = load("pytorchjob-running.yaml")[0]
    spec = replicas(job)["Master"]["template"]["spec"]
    zone = {"key": "zone", "operator": "In", "values": ["a"]}
    spec["affinity"] = {
        "nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [{}, {"matchExpressions": [zone]}]}}
    }
    out = with_exclusions(job, ["n1"])
    empty, zoned = terms(replicas(out)["Master"])
    assert empty == {} and excluded(zoned) == {"n1"}
    assert exclusions_of(out) == ("n1",)
    assert with_exclusions(out, []) == job


def test_kubernetes_only_our_annotation_is_removed_with_our_exclusions() -> None:
    job = load("pytorchjob-running.yaml")[0]
    job["metadata"]["annotations"] = {"team": "nlp"}
    out = with_exclusions(job, ["n1"])
    assert out["metadata"]["annotations"] == {"team": "nlp", EXCLUDED_ANNOTATION: "n1"}
    assert with_exclusions(out, [])["metadata"]["annotations"] == {"team": "nlp"}


# --- properties ----------------------------------------------------------------------------

NODES = [f"n{i}" for i in range(6)]
_nodes = st.lists(st.sampled_from(NODES), min_size=1, max_size=4, unique=True).map(sorted)
_hostname_not_in = _nodes.map(lambda v: {"key": HOSTNAME_KEY, "operator": "NotIn", "values": v})
_other = st.sampled_from(
    [{"key": "zone", "operator": "In", "values": ["a", "b"]},
     {"key": HOSTNAME_KEY, "operator": "In", "values": ["n1", "n2", "n3"]},
     {"key": "gpu", "operator": "Exists"}]
)  # fmt: skip
_term = st.one_of(
    st.lists(st.one_of(_hostname_not_in, _other), min_size=1, max_size=3).map(
        lambda e: {"matchExpressions": e}
    ),
    st.just({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n5"]}]}),
    st.just({}),
)


@st.composite
def _spec(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "pytorch", "image": "x"}]}
    if draw(st.booleans()):
        spec["nodeSelector"] = {"gpu": "a100"}
    affinity: dict[str, Any] = {}
    if draw(st.booleans()):
        affinity["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": []}
    node: dict[str, Any] = {}
    terms_ = draw(st.lists(_term, min_size=0, max_size=3))
    if terms_:
        node[REQUIRED] = {"nodeSelectorTerms": terms_}
    if draw(st.booleans()):
        node[PREFERRED] = [
            {"weight": 1, "preference": {"matchExpressions": [{"key": "z", "operator": "Exists"}]}}
        ]
    if node:
        affinity["nodeAffinity"] = node
    if affinity:
        spec["affinity"] = affinity
    return spec


@st.composite
def jobs(draw: st.DrawFn) -> dict[str, Any]:
    kinds = draw(
        st.lists(st.sampled_from(["Master", "Worker"]), min_size=1, max_size=2, unique=True)
    )
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "j", "namespace": "ns"},
        "spec": {
            "pytorchReplicaSpecs": {
                k: {"replicas": 1, "template": {"spec": draw(_spec())}} for k in kinds
            }
        },
    }


_exclude = st.lists(st.sampled_from(NODES), max_size=4)


def _consistent(job: dict[str, Any], exclude: list[str]) -> bool:
    """No node of `exclude` is the user's in some live terms and not in others."""
    sets = []
    for replica in replicas(job).values():
        live_terms = [t for t in terms(replica) if live(t)]
        sets += [excluded(t) for t in live_terms] or [set()]  # no terms: excludes nothing
    return all(len({n in s for s in sets}) <= 1 for n in exclude)


@settings(max_examples=150, deadline=None)
@given(jobs(), _exclude)
def test_kubernetes_property_every_live_term_excludes_every_node(
    job: dict[str, Any], exclude: list[str]
) -> None:
    out = with_exclusions(job, exclude)
    for replica in replicas(out).values():
        live_terms = [t for t in terms(replica) if live(t)]
        assert live_terms or not exclude
        for term in live_terms:
            assert set(exclude) <= excluded(term)
    assert set(exclude) <= set(exclusions_of(out))
    assert set(ours(out)) <= set(exclude)
    assert_valid_pods(out)


@settings(max_examples=150, deadline=None)
@given(jobs(), _exclude)
def test_kubernetes_property_the_users_affinity_survives(
    job: dict[str, Any], exclude: list[str]
) -> None:
    out = with_exclusions(job, exclude)
    for kind, replica in replicas(job).items():
        spec, new_spec = replica["template"]["spec"], replicas(out)[kind]["template"]["spec"]
        assert new_spec.get("nodeSelector") == spec.get("nodeSelector")
        assert new_spec.get("affinity", {}).get("podAffinity") == spec.get("affinity", {}).get(
            "podAffinity"
        )
        new_node, node = (
            new_spec.get("affinity", {}).get("nodeAffinity", {}),
            spec.get("affinity", {}).get("nodeAffinity", {}),
        )
        assert new_node.get(PREFERRED) == node.get(PREFERRED)
        before, after = terms(replica), terms(replicas(out)[kind])
        if not any(live(t) for t in before) and exclude:
            after = after[len(before) :]  # a term of ours was added after the (dead) user's
            assert len(after) == 1 and excluded(after[0]) == set(exclude)
            continue
        assert len(after) == len(before)
        for old, new in zip(before, after, strict=True):
            assert excluded(old) <= excluded(new)
            assert len(not_in(new)) <= max(1, len(not_in(old)))  # merged, not added
            assert others(new) == others(old) and new.get("matchFields") == old.get("matchFields")


@settings(max_examples=150, deadline=None)
@given(jobs(), _exclude, _exclude)
def test_kubernetes_property_idempotent_and_reversible(
    job: dict[str, Any], a: list[str], b: list[str]
) -> None:
    once = with_exclusions(job, a)
    assert with_exclusions(once, a) == once
    assert with_exclusions(once, list(reversed(a))) == once
    back = with_exclusions(once, [])
    for kind, replica in replicas(job).items():
        before, after = terms(replica), terms(replicas(back)[kind])
        if not any(live(t) for t in before):
            # at most a term of ours the user's other replicas made ambiguous (kept: safe)
            assert all(excluded(t) <= set(a) for t in after[len(before) :])
            continue
        for old, new in zip(before, after, strict=True):
            # the user's own, and at most nodes of `a` the user keeps off elsewhere
            assert excluded(old) <= excluded(new) <= excluded(old) | set(a)
    if _consistent(job, a):
        assert back == job  # exactly the user's own exclusions again, and nothing else
        assert with_exclusions(once, b) == with_exclusions(job, b)  # history does not matter
