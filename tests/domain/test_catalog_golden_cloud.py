"""Golden tests for the cloud and cluster lifecycle family (signatures-cloud.toml).

A node taken away on purpose (spot or preemptible reclaim, scheduled maintenance, autoscaler
scale-down, consolidation, scheduler preemption) is transient and names no one: real lines
(named beside each; a few are the providers' documented formats) must match, and the
handlers' and autoscalers' ordinary chatter must not.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
)

FAMILY_FILE = "signatures-cloud.toml"
NAMESPACES = frozenset({"cloud"})

REQUIRED: dict[str, Blame] = {
    "cloud.aws_spot_interruption": Blame.TRANSIENT,
    "cloud.aws_scheduled_event": Blame.TRANSIENT,
    "cloud.aws_rebalance_recommendation": Blame.INFO,
    "cloud.gce_preempted": Blame.TRANSIENT,
    "cloud.gce_host_maintenance": Blame.TRANSIENT,
    "cloud.gce_live_migration": Blame.TRANSIENT,
    "cloud.azure_scheduled_event": Blame.TRANSIENT,
    "cloud.azure_freeze": Blame.TRANSIENT,
    "cloud.k8s_autoscaler_scale_down": Blame.TRANSIENT,
    "cloud.karpenter_disruption": Blame.TRANSIENT,
    "cloud.slurm_preempted_requeue": Blame.TRANSIENT,
    "cloud.ray_node_preempted": Blame.TRANSIENT,
    "cloud.skypilot_preempted": Blame.TRANSIENT,
    # golden lines of these two: test_catalog_tracker_clusters.py
    "cloud.azureml_preempted": Blame.TRANSIENT,
    "cloud.k8s_node_shutdown": Blame.TRANSIENT,
    "cloud.sagemaker_capacity": Blame.TRANSIENT,
    "cloud.k8s_storage_limit_eviction": Blame.APPLICATION,
    # golden lines of these two: test_catalog_tracker_clusters.py
    "cloud.k8s_gpu_unschedulable": Blame.SYMPTOM,
    "cloud.volcano_gang_unschedulable": Blame.SYMPTOM,
    # sweep L4 (issue 14): golden lines in test_catalog_tracker_platforms.py
    "cloud.capacity_unavailable": Blame.TRANSIENT,
    "cloud.quota_exceeded": Blame.APPLICATION,
    "cloud.k8s_image_not_found": Blame.APPLICATION,
    "cloud.k8s_image_pull_backoff": Blame.SYMPTOM,
    "cloud.k8s_config_missing": Blame.APPLICATION,
}


def test_a_reclaim_decides_and_names_no_node() -> None:
    """Every reclaim or preemption signature is above the transient threshold and carries no
    node action: the node it took away must never be excluded."""
    for key in FAMILY_KEYS:
        sig = CATALOG.signatures[key]
        assert sig.node_action.value == "none", key
        if (
            key not in {"cloud.gce_live_migration", "cloud.azure_freeze"}
            and sig.blame is Blame.TRANSIENT
        ):
            assert sig.weight >= 50, key


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # skypilot-org/skypilot pull request #804 (the managed spot job's controller)
        "cloud.skypilot_preempted",
        "(bert-qa pid=920210) I 05-04 00:52:46 controller.py:100] The cluster is preempted.",
        {},
    ),
    (  # skypilot-org/skypilot pull request #1500 (a later controller's wording, a spot TPU)
        "cloud.skypilot_preempted",
        "(sky-de99-weichiang, pid=734143) I 12-10 21:39:39 controller.py:118] Cluster is "
        "preempted (status: INIT). Recovering...",
        {"status": "INIT"},
    ),
    (  # sky/spot/controller.py of 2022 (logger.info('The cluster is Preempted.'))
        "cloud.skypilot_preempted",
        "I 03-02 11:40:02 controller.py:98] The cluster is Preempted.",
        {},
    ),
    (  # documented EventBridge event (docs.aws.amazon.com spot-instance-termination-notices)
        "cloud.aws_spot_interruption",
        '  "detail-type": "EC2 Spot Instance Interruption Warning",',
        {},
    ),
    (  # documented instance-metadata item (same page)
        "cloud.aws_spot_interruption",
        '{"action": "terminate", "time": "2017-09-18T08:22:00Z"}',
        {},
    ),
    (  # stackhpc/magnum-terraform README.md (three empty nodes removed in a row)
        "cloud.k8s_autoscaler_scale_down",
        "        I1017 14:00:17.891315       1 scale_down.go:882] Scale-down: removing empty "
        "node k8s-sb7k6mtqieim-minion-3",
        {"node": "k8s-sb7k6mtqieim-minion-3"},
    ),
    (  # kubernetes-sigs/karpenter issue #1256 (line cut short by the issue excerpt)
        "cloud.karpenter_disruption",
        '{"level":"INFO","time":"2024-05-14T10:19:48.204Z","logger":"controller.disruption",'
        '"message":"disrupting via consolidation delete, terminating 1 nodes (1 pods) '
        "ip-10-2-131-28.eu-central-1.compute.internal/c6gn",
        {},
    ),
    (  # documented Scheduled Events document (learn.microsoft.com scheduled-events)
        "cloud.azure_scheduled_event",
        '"EventType": "Redeploy",',
        {"event": "Redeploy"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # sky/jobs/utils.py's log tailer cannot tell a reclaim from a failure
    ("cloud.skypilot_preempted", "The job cluster is preempted or failed."),
    # documentation prose, not a controller's finding
    ("cloud.skypilot_preempted", "When a spot cluster is preempted, this strategy recovers by"),
    (  # ray-project/ray pull request #58638: Ray's list of possible causes is not a reclaim
        "cloud.ray_node_preempted",
        "Task failed because the node it was running on is dead or unavailable. Node IP: "
        "10.8.0.23, node ID: b157c93de9603b1458ae4bd22668b46a4f0ae249bf9467072ba6fd45. This can "
        "happen if the node was preempted, had a hardware failure, or its raylet crashed "
        "unexpectedly.",
    ),
    (  # aws/aws-node-termination-handler issue #207: start-up, no event
        "*",
        "2020/07/16 17:31:46 Kubernetes AWS Node Termination Handler has started successfully!",
    ),
    (  # aws/aws-node-termination-handler issue #146: a metadata poll failing is not an event
        "*",
        "2020/04/28 23:00:46 There was a problem monitoring for Scheduled Maintenance events: "
        "Unable to parse metadata response: Metadata request received http status code: 404",
    ),
    (  # kubernetes-retired/kube-aws issue #1302: the autoscaler deciding nothing
        "*",
        "I0514 08:53:03.149510       1 utils.go:398] Skipping ip-10-0-0-48.ec2.internal - no "
        "node group config",
    ),
    (  # aws/karpenter-provider-aws pull request #2123: cordon after the decision, not the decision
        "*",
        "karpenter-68d787db56-6x6q8 controller 2022-07-18T02:44:31.248Z\tINFO\t"
        'controller.termination\tCordoned node\t{"commit": "63daf4b", "node": '
        '"ip-192-168-166-214.us-west-2.compute.internal"}',
    ),
    # the Freeze pause is not a reclaim, and a reclaim is not a pause
    ("cloud.azure_scheduled_event", '      "EventType": "Freeze",'),
    ("cloud.azure_freeze", '      "EventType": "Preempt",'),
    # a rebalance recommendation is only a warning
    ("cloud.aws_spot_interruption", '  "detail-type": "EC2 Instance Rebalance Recommendation",'),
]

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    hits = assert_matches(key, line, expected)
    assert "python.exception" not in hits, "a specific signature must win over the generic one"


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
