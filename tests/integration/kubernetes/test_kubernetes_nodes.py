"""`KubeNodes` on the real control plane: cordon, taint, condition, drain, resume; informers."""

from __future__ import annotations

from typing import Any

import pytest
from lightkube.resources.core_v1 import Node, Pod
from lightkube.resources.policy_v1 import PodDisruptionBudget

from autorecover.adapters.kubernetes import marks
from autorecover.adapters.kubernetes.client import KubeSession, load_config
from autorecover.adapters.kubernetes.events import Regarding, event_name
from autorecover.adapters.kubernetes.informers import Informer
from autorecover.controllers.ports import PermanentError, TransientError
from autorecover.domain.hardware.lifecycle import QUARANTINE_TAINT
from autorecover.testing.kubernetes.harness import KubeHarness, wait


def _condition(node: dict[str, Any]) -> dict[str, Any] | None:
    for cond in node.get("status", {}).get("conditions", []):
        if cond["type"] == marks.CONDITION:
            return dict(cond)
    return None


def test_kubernetes_cordon_and_taint_carry_provenance_and_resume_undoes_them(
    kube: KubeHarness,
) -> None:
    node = kube.cluster.node_names[0]
    prov = kube.provenance("quarantine: XID 79 (GPU fell off the bus)", "hw/gpu-01/1")
    kube.nodes.cordon(node, prov)
    kube.nodes.taint(node, QUARANTINE_TAINT, prov)
    seen = kube.node(node)
    assert seen["spec"]["unschedulable"] is True
    assert {"key": QUARANTINE_TAINT, "value": "autorecover", "effect": "NoSchedule"}.items() <= (
        next(t for t in seen["spec"]["taints"] if t["key"] == QUARANTINE_TAINT).items()
    )
    notes = seen["metadata"]["annotations"]
    assert notes[marks.CORDONED_BY] == "autorecover" and notes[marks.CORDON_SET] == "true"
    assert notes[marks.ACTION] == prov.action_id and notes[marks.INCIDENT] == "hw/gpu-01/1"
    assert "XID 79" in notes[marks.REASON] and notes[marks.EVIDENCE] == "ev-1"
    cond = _condition(seen)
    assert cond is not None and cond["status"] == "True" and "hw/gpu-01/1" in cond["message"]
    # Ready and kwok's other conditions are untouched by ours (a strategic merge by type).
    assert any(c["type"] == "Ready" for c in seen["status"]["conditions"])

    view = wait(lambda: kube.nodes.observe([node]).get(node), "the informer to see it")
    wait(lambda: "autorecover" in kube.nodes.observe([node])[node].cordoned_by, "ours")
    view = kube.nodes.observe([node])[node]
    assert view.cordoned_by == {"autorecover"} and QUARANTINE_TAINT in view.taints

    # Again with the same provenance: nothing changes (idempotent by action id).
    version = seen["metadata"]["resourceVersion"]
    kube.nodes.cordon(node, prov)
    kube.nodes.taint(node, QUARANTINE_TAINT, prov)
    assert len(kube.node(node)["spec"]["taints"]) == 1
    assert kube.node(node)["metadata"]["resourceVersion"] != ""  # still readable
    del version

    # ... and Events where people look (`kubectl get events`), one per action and kind.
    # (Nodes' events live in `default` and outlast tests: this test's are named by its action.)
    ours = {event_name(Regarding("Node", node), a, prov) for a in ("Cordon", "Taint", "Drain")}
    events = {e["action"]: e for e in kube.events("Node", node) if e["metadata"]["name"] in ours}
    assert set(events) == {"Cordon", "Taint"}, events
    assert events["Cordon"]["type"] == "Warning" and "hw/gpu-01/1" in events["Cordon"]["note"]
    assert "XID 79" in events["Cordon"]["note"] and events["Cordon"]["reason"] == "Quarantine"

    resumed = kube.provenance("validated")
    kube.nodes.resume(node, resumed)
    name = event_name(Regarding("Node", node), "Resume", resumed)
    assert [e["action"] for e in kube.events("Node", node) if e["metadata"]["name"] == name] == [
        "Resume"
    ]
    back = kube.node(node)
    assert not back["spec"].get("unschedulable") and not back["spec"].get("taints")
    assert not set(marks.NODE_ANNOTATIONS) & set(back["metadata"].get("annotations") or {})
    assert _condition(back) is None


def test_kubernetes_a_persons_cordon_stays_when_autorecover_lets_go(kube: KubeHarness) -> None:
    node = kube.cluster.node_names[1]
    kube.client.patch(Node, node, {"spec": {"unschedulable": True}})  # kubectl cordon
    wait(lambda: kube.nodes.cordoned().get(node), "the person's cordon seen")
    assert kube.nodes.cordoned()[node].cordoned_by == {marks.PERSON}

    prov = kube.provenance("suspect: XID 48")
    kube.nodes.cordon(node, prov)
    kube.nodes.taint(node, QUARANTINE_TAINT, prov)
    wait(lambda: "autorecover" in kube.nodes.cordoned()[node].cordoned_by, "ours added")
    assert kube.nodes.cordoned()[node].cordoned_by == {"autorecover", marks.PERSON}
    assert kube.node(node)["metadata"]["annotations"][marks.CORDON_SET] == "false"

    kube.nodes.resume(node, kube.provenance("validated"))
    back = kube.node(node)
    assert back["spec"]["unschedulable"] is True  # the person's cordon stays
    assert not back["spec"].get("taints")  # our taint went
    assert marks.CORDONED_BY not in (back["metadata"].get("annotations") or {})


def test_kubernetes_reset_and_reboot_are_refused_so_the_ladder_escalates(
    kube: KubeHarness,
) -> None:
    node = kube.cluster.node_names[2]
    with pytest.raises(PermanentError, match="no API to reboot"):
        kube.nodes.reboot(node, kube.provenance("reboot"))
    with pytest.raises(PermanentError, match="no API to reset a GPU"):
        kube.nodes.reset_gpu(node, "0000:3b:00.0", kube.provenance("reset"))


def _bare_pod(kube: KubeHarness, name: str, node: str, labels: dict[str, str]) -> None:
    kube.client.create(Pod.from_dict({
        "metadata": {"name": name, "namespace": kube.namespace, "labels": labels},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]},
    }))  # fmt: skip


def test_kubernetes_drain_evicts_honours_budgets_and_reports_what_stayed(
    kube: KubeHarness,
) -> None:
    node = kube.cluster.node_names[3]
    _bare_pod(kube, "free", node, {"app": "free"})
    _bare_pod(kube, "guarded", node, {"app": "guarded"})
    kube.client.create(PodDisruptionBudget.from_dict({
        "metadata": {"name": "guard", "namespace": kube.namespace},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
    }))  # fmt: skip

    def budget_counted() -> bool:
        pdb = kube.client.get(PodDisruptionBudget, "guard", namespace=kube.namespace)
        return pdb.status is not None and pdb.status.currentHealthy == 1

    wait(budget_counted, "the disruption controller to count the guarded pod")
    prov = kube.provenance("quarantine: drain")
    kube.nodes.drain_timeout_s = 0.5
    with pytest.raises(TransientError, match="guarded"):
        kube.nodes.drain(node, prov)
    wait(lambda: [p.metadata.name for p in kube.client.list(Pod, namespace=kube.namespace)]
         == ["guarded"], "the free pod evicted, the guarded one kept")  # fmt: skip
    import time

    time.sleep(0.6)
    with pytest.raises(PermanentError, match=rf"not evicted after .*{kube.namespace}/guarded"):
        kube.nodes.drain(node, prov)
    report = kube.nodes.evict_all(node)
    assert report.evicted == () and len(report.blocked) == 1


def test_kubernetes_informer_survives_an_api_server_restart(kube: KubeHarness) -> None:
    node = kube.cluster.node_names[4]
    informer = kube.node_informer
    kube.cluster.restart_apiserver()
    kube.client.patch(Node, node, {"metadata": {"labels": {"autorecover.test/after": "restart"}}})
    wait(lambda: (informer.get("", node) or Node()).metadata and
         (informer.get("", node).metadata.labels or {}).get("autorecover.test/after")
         == "restart", "the change after the restart seen", 60)  # fmt: skip
    assert informer.stats.resumes >= 1
    assert informer.stats.lists == 1  # resumed from its resource version, not listed again
    kube.client.patch(Node, node, {"metadata": {"labels": {"autorecover.test/after": None}}})


def test_kubernetes_informer_lists_again_after_410_gone(kube: KubeHarness) -> None:
    # A fresh API server's watch cache starts near revision 1 and serves a watch from there
    # until its buffer of events turns over: only then is version 1 gone. One started now
    # starts at the current revision, so version 1 is gone at once, whatever ran before.
    kube.cluster.restart_apiserver()
    session = KubeSession(load_config(kube.cluster.kubeconfig))
    try:
        informer: Informer[Node] = Informer(session, Node)
        informer.resource_version = "1"  # long compacted away: the API answers 410 Gone
        informer.start()
        informer.wait_synced()
        assert informer.stats.gone == 1 and informer.stats.lists == 1
        assert {n.metadata.name for n in informer.items()} >= set(kube.cluster.node_names)
    finally:
        session.close()


def test_kubernetes_informer_converts_an_object_to_a_dict_once_per_version(
    kube: KubeHarness,
) -> None:
    """A pass reads every pod as a dict each tick: unchanged objects keep their dict, an
    event's new version gets a new one."""
    changed, *others = kube.cluster.node_names
    session = KubeSession(load_config(kube.cluster.kubeconfig))
    try:
        informer: Informer[Node] = Informer(session, Node)
        informer.start()
        informer.wait_synced()
        before = {d["metadata"]["name"]: d for d in informer.dicts()}
        again = {d["metadata"]["name"]: d for d in informer.dicts()}
        assert all(again[n] is before[n] for n in before)
        kube.client.patch(Node, changed, {"metadata": {"labels": {"autorecover.test/x": "1"}}})

        def relabelled() -> dict[str, dict[str, Any]] | None:
            now = {d["metadata"]["name"]: d for d in informer.dicts()}
            labels = now[changed]["metadata"].get("labels") or {}
            return now if labels.get("autorecover.test/x") == "1" else None

        after = wait(relabelled, "the label in the informer's dict", 10)
        assert after[changed] is not before[changed]
        assert all(after[n] is before[n] for n in others)
    finally:
        kube.client.patch(Node, changed, {"metadata": {"labels": {"autorecover.test/x": None}}})
        session.close()
