"""Golden lines from sweep 20 over NVIDIA's rack-scale NVLink systems (signatures-nvl72.toml):
the IMEX daemon's log, the NVIDIA DRA driver's ComputeDomain daemon and kubelet plugin,
nvidia-smi -q's Fabric section, systemd on the IMEX unit and NCCL's device runtime on NVLink
domains.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a GPU whose fabric registration failed or
whose fabric health reads unhealthy weakly the node's (or its rack's), a node whose IMEX service
or container runtime cannot serve the domain weakly the node's, a claim in the wrong namespace
and a multicast team on a system without NVLS the job's, lost IMEX peers and readiness waits
restatements. Look-alikes (healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    family_contract,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "imexd.started": Blame.INFO,
    "imexd.no_matching_interface": Blame.HARDWARE,
    "imexd.node_disconnected": Blame.SYMPTOM,
    "imexd.peer_response_missing": Blame.SYMPTOM,
    "imexd.service_failed": Blame.HARDWARE,
    "imexd.daemon_not_ready": Blame.SYMPTOM,
    "computedomain.node_not_ready": Blame.SYMPTOM,
    "computedomain.fabric_not_attached": Blame.HARDWARE,
    "computedomain.fabric_registration_error": Blame.HARDWARE,
    "computedomain.clique_mismatch": Blame.HARDWARE,
    "computedomain.namespace_mismatch": Blame.APPLICATION,
    "computedomain.cdi_not_enabled": Blame.HARDWARE,
    "computedomain.channel_already_allocated": Blame.SYMPTOM,
    "nvml.smi_fabric_registration_pending": Blame.SYMPTOM,
    "nvml.smi_fabric_unhealthy": Blame.HARDWARE,
    "mnnvl.nccl_multicast_unavailable": Blame.APPLICATION,
    "mnnvl.nccl_fabric_export_failed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # kubernetes-sigs/dra-driver-nvidia-gpu pull request #1465 (the compute-domain daemon's IMEX)
    (
        "[Sep 18 2026 06:40:33] [INFO] [tid 77] IMEX version 580.159.04 is running with the "
        "following configuration options:",
        "imexd.started",
        {"version": "580.159.04"},
    ),
    # kubernetes-sigs/dra-driver-nvidia-gpu pull request #298 (a production daemon's log)
    (
        "[Mar 26 2025 16:41:27] [INFO] [tid 40] IMEX version 570.124.06 is running with the "
        "following configuration options",
        "imexd.started",
        {"version": "570.124.06"},
    ),
    # kubernetes-sigs/dra-driver-nvidia-gpu issue #289 and pull request #298 (daemon start-up)
    (
        "No matching network interface found for any IP addresses in the node configuration "
        "file /etc/nvidia-imex/nodes_config.cfg.",
        "imexd.no_matching_interface",
        {"path": "/etc/nvidia-imex/nodes_config.cfg"},
    ),
    # a public GB200 triage runbook found through the code index (IMEX up before DHCP)
    (
        "ERROR: No matching network interface found for any IP addresses in nodes_config.cfg",
        "imexd.no_matching_interface",
        {"path": "nodes_config.cfg"},
    ),
    # rendered from the pattern a public nvidia-bug-report IMEX analyzer reads (code index)
    (
        "[Dec 30 2025 00:11:39] [ERROR] [tid 3312] Node disconnect event detected for node 10 "
        "with address 10.114.2.19, attempting to reconnect",
        "imexd.node_disconnected",
        {"node_id": "10", "address": "10.114.2.19", "action": "reconnect"},
    ),
    # rendered from the same analyzer's summary example ("... sent to node id 10 (x 11260)")
    (
        "[Dec 30 2025 00:11:41] [WARNING] [tid 3315] Response not received for unimport event "
        "with id 48213 sent to node id 10",
        "imexd.peer_response_missing",
        {"event": "unimport", "node_id": "10"},
    ),
    # rendered from systemd's formats for nvidia-imex.service (the IMEX guide's unit)
    (
        "Dec 30 00:11:39 gb200-n01 systemd[1]: nvidia-imex.service: Main process exited, "
        "code=exited, status=1/FAILURE",
        "imexd.service_failed",
        {"status": "1/FAILURE"},
    ),
    (
        "Dec 30 00:11:39 gb200-n01 systemd[1]: nvidia-imex.service: Failed with result "
        "'exit-code'.",
        "imexd.service_failed",
        {"result": "exit-code"},
    ),
    # rendered from cmd/compute-domain-daemon/main.go ("IMEX daemon not ready: %s")
    (
        "Error: IMEX daemon not ready: WAITING_FOR_PEERS",
        "imexd.daemon_not_ready",
        {"state": "WAITING_FOR_PEERS"},
    ),
    # kubernetes-sigs/dra-driver-nvidia-gpu issue #1162 (the kubelet plugin's retries)
    (
        "I0523 22:44:58.336698       1 workqueue.go:171] Reconcile: error preparing devices for "
        "claim '<namespace>/<pod-name>-compute-domain-channel-8gwxw:4914da61-1a20-42b3-bf26-"
        "981025df4289': prepare devices failed: error applying config: error asserting "
        "ComputeDomain Ready: current node not ready in ComputeDomain (attempt 1)",
        "computedomain.node_not_ready",
        {"attempt": "1"},
    ),
    (
        "I0523 22:44:59.860455       1 workqueue.go:171] Reconcile: error preparing devices for "
        "claim '<namespace>/<pod-name>-compute-domain-channel-8gwxw:4914da61-1a20-42b3-bf26-"
        "981025df4289': prepare devices failed: error applying config: error asserting "
        "ComputeDomain Ready: current node not ready in ComputeDomain (attempt 3)",
        "computedomain.node_not_ready",
        {"attempt": "3"},
    ),
    # rendered from cmd/compute-domain-kubelet-plugin/nvlib.go (state=2 as in issue #1264)
    (
        "Error: error creating driver: error starting ComputeDomain manager: NVLink fabric not "
        "attached (device 0/GPU-6328b923-c487-281a-fd27-291f5d278893): state=2, refusing to start",
        "computedomain.fabric_not_attached",
        {"device": "0", "uuid": "GPU-6328b923-c487-281a-fd27-291f5d278893", "state": "2"},
    ),
    # rendered from nvlib.go (the status Azure/azhpc-images pull request #506 saw on a GB200)
    (
        "NVLink fabric registration error (device 3/GPU-6328b923-c487-281a-fd27-291f5d278893): "
        "status=Insufficient Resources, refusing to start",
        "computedomain.fabric_registration_error",
        {"device": "3", "status": "Insufficient Resources"},
    ),
    # rendered from nvlib.go ("unexpected number of unique CliqueIDs found on devices")
    (
        "error getting cliqueID: unexpected number of unique CliqueIDs found on devices",
        "computedomain.clique_mismatch",
        {"what": "CliqueIDs"},
    ),
    # rendered from computedomain.go and driver.go (a permanent Prepare error)
    (
        "I0523 22:44:58.336698       1 driver.go:273] Permanent error preparing devices for "
        "claim 4914da61-1a20-42b3-bf26-981025df4289: prepare devices failed: error applying "
        "config: error asserting ComputeDomain's namespace: the ResourceClaim's namespace is "
        "different than the ComputeDomain's namespace",
        "computedomain.namespace_mismatch",
        {},
    ),
    # rendered from cmd/compute-domain-daemon/main.go
    (
        "Error: CDI container edits did not apply -- is CDI enabled in your container runtime?",
        "computedomain.cdi_not_enabled",
        {},
    ),
    # rendered from device_state.go (assertImexChannelNotAllocated; issue #1162's stale claim)
    (
        "channel 0 already allocated by claim 4914da61-1a20-42b3-bf26-981025df4289 (according to "
        "checkpoint)",
        "computedomain.channel_already_allocated",
        {"channel": "0", "claim": "4914da61-1a20-42b3-bf26-981025df4289"},
    ),
    # NVIDIA/gpu-operator issue #2511 (a GB200 node whose fabric stayed In Progress)
    (
        "        State                                          : In Progress",
        "nvml.smi_fabric_registration_pending",
        {"state": "In Progress"},
    ),
    # kubernetes-sigs/dra-driver-nvidia-gpu issue #626 (attached, but unhealthy)
    (
        "            Summary                       : Unhealthy",
        "nvml.smi_fabric_unhealthy",
        {"summary": "Unhealthy"},
    ),
    # rendered from NCCL src/dev_runtime.cc
    (
        "gb200-a01:3021:3021 [0] NCCL WARN Multicast support requested for team but none "
        "available on system.",
        "mnnvl.nccl_multicast_unavailable",
        {},
    ),
    # rendered from NCCL src/mem_manager.cc
    (
        "gb200-a01:3021:3021 [0] NCCL WARN MemManager: cuMemExportToShareableHandle (FABRIC) "
        "failed for ptr=0x7f2a40000000",
        "mnnvl.nccl_fabric_export_failed",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the IMEX daemon's healthy start (dra-driver-nvidia-gpu pull request #1465)
    (
        "imexd.no_matching_interface",
        "[Sep 18 2026 06:40:33] [INFO] [tid 77] Treating node config entry "
        "'compute-domain-daemon-7555db58d7-0000' as a host name.",
    ),
    ("imexd.started", "[Sep 18 2026 06:40:33] [INFO] [tid 77] Logging level = 4"),
    (
        "imexd.service_failed",
        "May 16 15:10:10 gb200-n01 systemd[1]: Started nvidia-imex.service - NVIDIA IMEX service.",
    ),
    (
        "imexd.service_failed",
        "nvidia-imex.service: Main process exited, code=killed, status=15/TERM",
    ),
    ("imexd.daemon_not_ready", "check succeeded (noop, clique ID is empty)"),
    # the kubelet plugin's happy path (dra-driver-nvidia-gpu pull request #630)
    (
        "computedomain.fabric_not_attached",
        "I0929 12:40:26.277236       1 nvlib.go:243] identified fabric clique UUID/ID (device "
        "0/GPU-6328b923-c487-281a-fd27-291f5d278893): 6a130f54-faaa-4b8f-847f-be44ab70f917/32766",
    ),
    (
        "computedomain.fabric_registration_error",
        "no-clique fallback: cluster UUID is zero, treat as fabric not attached (device "
        "0/GPU-6328b923-c487-281a-fd27-291f5d278893)",
    ),
    # the controller's routine count (dra-driver-nvidia-gpu issue #524)
    (
        "computedomain.node_not_ready",
        "I0902 09:57:32.838156       1 computedomain.go:200] numNodes: 2, nodes seen: 1",
    ),
    # nvidia-smi -q's healthy Fabric section (dra-driver-nvidia-gpu issue #626, gpu-operator #2511)
    (
        "nvml.smi_fabric_registration_pending",
        "        State                             : Completed",
    ),
    ("nvml.smi_fabric_unhealthy", "            Bandwidth                     : Full"),
    (
        "nvml.smi_fabric_unhealthy",
        "            Route Unhealthy                            : N/A",
    ),
    ("nvml.smi_fabric_unhealthy", "            Summary                       : Healthy"),
    # NCCL's routine NVLS and MNNVL lines (src/transport/nvls.cc, src/init.cc)
    (
        "mnnvl.nccl_multicast_unavailable",
        "gb200-a01:3021:3021 [0] NCCL INFO NVLS multicast support is available on dev 0",
    ),
    (
        "mnnvl.nccl_fabric_export_failed",
        "gb200-a01:3021:3021 [0] NCCL INFO NVLS importing shareableHandle 0x7f2a40000000 from rank 1",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract(
    {"signatures-nvl72.toml": frozenset({"imexd", "computedomain", "nvml", "mnnvl"})}, BLAME
)


def test_no_fabric_line_names_a_node_alone() -> None:
    """A GPU's fabric registration or health, an IMEX service that did not start and a runtime
    without CDI read the same for a compute tray, its switch trays or a wait: inspect, never
    decide."""
    for key, pinned in BLAME.items():
        if pinned is Blame.HARDWARE:
            sig = CATALOG.signatures[key]
            assert 0 < sig.weight < STRONG, key
            assert sig.node_action.value == "inspect", key


def test_imex_and_readiness_restatements_stay_below_the_collective_weight() -> None:
    """Lost IMEX peers are about the peer, readiness waits about a daemon still starting: only
    the disconnect (and NCCL's export failure, like its import) reaches a complaint's weight."""
    complaints = {"imexd.node_disconnected", "mnnvl.nccl_fabric_export_failed"}
    for key, pinned in BLAME.items():
        sig = CATALOG.signatures[key]
        if pinned is Blame.SYMPTOM:
            assert sig.node_action.value == "none", key
            if key in complaints:
                assert sig.weight == COLLECTIVE, key
            else:
                assert sig.weight < COLLECTIVE, key
