"""Golden tests for the entries added or widened by sweep I2 (issue 14): real failure lines from
the Kubernetes schedulers (kube-scheduler, Volcano), the node GPU-health agents (DCGM, NVSentinel,
gpud), the fabric manager, the mlx5 driver and FUSE object-store mounts (s3fs, Mountpoint).

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a scheduler's wait for capacity a symptom, an agent's XID read
through the XID catalog, a node's IB ports or adapter below the hardware threshold alone, a dead
FUSE mount a transient). Look-alikes must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, assert_application_only_if_meant, assert_matches, found
from domain.golden import hits as _hits

BLAME: dict[str, Blame] = {
    "storage.fuse_disconnected": Blame.TRANSIENT,
    "cloud.k8s_gpu_unschedulable": Blame.SYMPTOM,
    "cloud.volcano_gang_unschedulable": Blame.SYMPTOM,
    "dcgm.xid": Blame.INFO,
    "gpud.ib_ports_unhealthy": Blame.HARDWARE,
    "fabricmanager.nvswitch_query_failed": Blame.HARDWARE,
    "nic.mlx5_probe_failed": Blame.HARDWARE,
    "container.driver_rpc_failed": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # s3fs-fuse/s3fs-fuse issue #635 (coreutils after the s3fs daemon died)
    (
        "ls: cannot access /mnt/naip: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # s3fs-fuse/s3fs-fuse issue #373 (df quotes the path)
    (
        "df: \u2018/backup/tapes\u2019: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # s3fs-fuse/s3fs-fuse issue #2176 (s3fs's own syslog line)
    (
        "May 29 09:16:58 prod-main-zemtu s3fs[2017306]: s3fs: unable to access MOUNTPOINT "
        "/var/www/zemtu/public/media: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # awslabs/mountpoint-s3 issue #930
    (
        "ls: cannot open directory /mnt/applications/classtream/archives: Transport endpoint is "
        "not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # kubeflow/kubeflow issue #794 (kubectl describe events)
    (
        "  Warning  FailedScheduling  2s (x57 over 15m)  default-scheduler  0/6 nodes are "
        "available: 6 Insufficient nvidia.com/gpu.",
        "cloud.k8s_gpu_unschedulable",
        {"count": "6", "resource": "nvidia.com/gpu"},
    ),
    # NVIDIA/k8s-device-plugin issue #430
    (
        "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are "
        "available: 1 No preemption victims found for incoming pod..",
        "cloud.k8s_gpu_unschedulable",
        {"count": "1", "resource": "nvidia.com/gpu"},
    ),
    # GoogleCloudPlatform/container-engine-accelerators issue #104 (GKE's PodUnschedulable)
    (
        "PodUnschedulable Cannot schedule pods: Insufficient nvidia.com/gpu",
        "cloud.k8s_gpu_unschedulable",
        {"resource": "nvidia.com/gpu"},
    ),
    # volcano-sh/volcano issue #519 (pod events)
    (
        "  Warning  FailedScheduling  111s  volcano  10/6 tasks in gang unschedulable: job is not "
        "ready, 10 minAvailable, 6 Pending.",
        "cloud.volcano_gang_unschedulable",
        {"pending": "10", "tasks": "6"},
    ),
    # volcano-sh/volcano issue #2930
    (
        "default:job-1 unschedule,reason: 1/0 tasks in gang unschedulable: pod group is not ready, "
        "1 minAvailable",
        "cloud.volcano_gang_unschedulable",
        {"pending": "1", "tasks": "0"},
    ),
    # NVIDIA/NVSentinel issue #1357 (preflight-dcgm-diag's health event)
    (
        '"isFatal":true,"message":"Detected XID 145 for GPU 0 Please consult the documentation '
        'for details of this XID.","errorCode":["DCGM_FR_XID_ERROR"]',
        "dcgm.xid",
        {"xid": "145"},
    ),
    # NVIDIA/NVSentinel pull request #714 (gpu-health-monitor, DCGM_FR_UNCONTAINED_ERROR)
    (
        '"message":"GPU had an uncontained error (XID 95) Drain the GPU and reset it or reboot '
        'the node.","recommendedAction":15,"errorCode":["DCGM_FR_UNCONTAINED_ERROR"]',
        "dcgm.xid",
        {"xid": "95"},
    ),
    # NVIDIA/NVSentinel pull request #953
    (
        '"message":"GPU has fallen off the bus (XID 79). Node requires reboot.",'
        '"recommendedAction":15,"errorCode":["DCGM_FR_GPU_FALLEN_OFF_BUS"]',
        "dcgm.xid",
        {"xid": "79"},
    ),
    # leptonai/gpud pull request #482 (the infiniband component's reason)
    (
        "only 2 LinkUp ports found (expected at least 4); 2 'Disabled' or 'Polling' devices "
        "found (mlx5_1, mlx5_3)",
        "gpud.ib_ports_unhealthy",
        {"up": "2", "expected": "4"},
    ),
    # leptonai/gpud pull request #295 (the older wording)
    (
        "not enough LinkUp ports, only 0 LinkUp out of 18, expected at least 8 ports and 400 "
        "Gb/sec rate; some ports must be missing",
        "gpud.ib_ports_unhealthy",
        {"up_old": "0", "ports": "18"},
    ),
    # gpud components/accelerator/nvidia/infiniband (evaluate_threshold.go's drop reason)
    (
        "ib port drop -- mlx5_3 dropped 6 minutes ago",
        "gpud.ib_ports_unhealthy",
        {"kind": "drop", "device": "mlx5_3"},
    ),
    # NVIDIA/gpu-operator issue #610 (journal of the fabric manager service)
    (
        "11\u6708 15 14:15:47 leon-NF5468M6 nv-fabricmanager[4177]: request to query NVSwitch "
        "device information from NVSwitch driver failed with error:WARNING Nothing to do "
        "[NV_WARN_NOTHING_TO_DO]",
        "fabricmanager.nvswitch_query_failed",
        {"error": "WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]"},
    ),
    # data-infra/cube-studio issue #29 (the same from nvidia-fabricmanager-start.sh)
    (
        "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: request to query "
        "NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to "
        "do [NV_WARN_NOTHING_TO_DO]",
        "fabricmanager.nvswitch_query_failed",
        {},
    ),
    # pocopico/rp-ext issue #129
    (
        "[    5.662202] mlx5_core 0000:01:00.0: mlx5_load_one failed with error code -22",
        "nic.mlx5_probe_failed",
        {"code": "-22"},
    ),
    (
        "[    5.663152] mlx5_core: probe of 0000:01:00.0 failed with error -22",
        "nic.mlx5_probe_failed",
        {"pci": "0000:01:00.0", "error": "-22"},
    ),
    # PeterSuh-Q3/tinycore-redpill issue #9
    (
        "[   14.059052] mlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22",
        "nic.mlx5_probe_failed",
        {"code": "-22"},
    ),
    # NVIDIA/nvidia-container-toolkit issue #556 (docker run --gpus all)
    (
        "docker: Error response from daemon: failed to create shim task: OCI runtime create "
        "failed: runc create failed: unable to start container process: error during container "
        "init: error running hook #0: error running hook: exit status 1, stdout: , stderr: "
        "Auto-detected mode as 'legacy' nvidia-container-cli: initialization error: driver rpc "
        "error: failed to process request: unknown.",
        "container.driver_rpc_failed",
        {"reason": "failed to process request"},
    ),
    # NVIDIA/nvidia-container-toolkit issue #236 (an SXM host with one GPU that failed to init)
    (
        "nvidia-container-cli: initialization error: driver rpc error: timed out: unknown",
        "container.driver_rpc_failed",
        {"reason": "timed out"},
    ),
    # NVIDIA/nvidia-docker issue #726 (the older wording)
    (
        "nvidia-container-cli: initialization error: driver error: timed out",
        "container.driver_rpc_failed",
        {"reason": "timed out"},
    ),
    # NVIDIA/gpu-operator issue #130 (the driver daemonset's own container)
    (
        "stderr: nvidia-container-cli.real: initialization error: driver error: failed to "
        "process request: unknown",
        "container.driver_rpc_failed",
        {"reason": "failed to process request"},
    ),
    # NVIDIA/libnvidia-container issue #103
    (
        "nvidia-container-cli: initialization error: cuda error: unknown error",
        "container.driver_rpc_failed",
        {"reason": "unknown error"},
    ),
]

# (key, a line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # Lustre's ESHUTDOWN is another errno (whamcloud/integrated-manager-for-lustre issue #230)
    (
        "storage.fuse_disconnected",
        "mount.lustre failed: Cannot send after transport endpoint shutdown",
    ),
    # a socket's ENOTCONN names no path
    (
        "storage.fuse_disconnected",
        "sshd[811]: error: getpeername: Transport endpoint is not connected",
    ),
    # CPU or memory shortage is not an accelerator wait
    (
        "cloud.k8s_gpu_unschedulable",
        "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory.",
    ),
    # Kueue's quota message is admission, not the scheduler's placement
    (
        "cloud.k8s_gpu_unschedulable",
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu "
        "in flavor on-demand, 1 more needed",
    ),
    ("cloud.volcano_gang_unschedulable", "Warning  Unschedulable  podgroup  volcano  0/1 nodes"),
    # DCGM's other field violations are not XIDs
    ("dcgm.xid", "Detected 12 volatile DBE errors for GPU 3"),
    ("dcgm.xid", "XID errors detected: 0"),
    # gpud's healthy reason
    ("gpud.ib_ports_unhealthy", "ok; no infiniband port issue"),
    # the fabric manager coming up
    (
        "fabricmanager.nvswitch_query_failed",
        "nv-fabricmanager[1120]: Successfully configured all the available NVSwitches to route "
        "GPU NVLink traffic.",
    ),
    # the nvcgo helper timing out under load (NVIDIA/nvidia-container-toolkit issue #2102) and
    # a driver not loaded at all (nvml.driver_unreachable) are other texts
    (
        "container.driver_rpc_failed",
        "nvidia-container-cli: initialization error: nvcgo rpc error: timed out",
    ),
    (
        "container.driver_rpc_failed",
        "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
    ),
    # a healthy mlx5 probe and another driver's failed probe
    (
        "nic.mlx5_probe_failed",
        "[   12.926115] mlx5_core 0000:03:00.0: firmware version: 14.32.1010",
    ),
    ("nic.mlx5_probe_failed", "[    3.1] ahci: probe of 0000:00:17.0 failed with error -22"),
]


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_golden_line_yields_its_signal(line: str, key: str, captures: dict[str, str]) -> None:
    hits = assert_matches(key, line, captures)
    assert "python.exception" not in hits or CATALOG.signatures[key].blame is Blame.APPLICATION


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_only_application_lines_read_as_the_application(
    line: str, key: str, captures: dict[str, str]
) -> None:
    assert_application_only_if_meant(key, line)


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_negative_line(key: str, line: str) -> None:
    assert key not in _hits(line), f"{key} must not match {line!r}"


@pytest.mark.parametrize(("key", "blame"), sorted(BLAME.items()))
def test_blame(key: str, blame: Blame) -> None:
    assert CATALOG.signatures[key].blame is blame


def test_every_entry_pinned_here_has_a_golden_line() -> None:
    assert set(BLAME) == {key for _, key, _ in GOLDEN}


def test_waiting_for_capacity_decides_nothing() -> None:
    """A scheduler that cannot place the pods says the job waits, not why: never decisive."""
    for key in ("cloud.k8s_gpu_unschedulable", "cloud.volcano_gang_unschedulable"):
        sig = CATALOG.signatures[key]
        assert sig.weight < 50, key
        assert sig.node_action.value == "none", key


def test_node_fabric_and_adapter_lines_stay_below_the_hardware_threshold() -> None:
    """Each may be configuration (a wrong expected port count, a node without NVSwitches, a
    driver/firmware mismatch, persistence mode off): alone they name no node."""
    for key in ("gpud.ib_ports_unhealthy", "fabricmanager.nvswitch_query_failed",
                "nic.mlx5_probe_failed", "container.driver_rpc_failed"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < 60, key
        assert sig.node_action.value == "inspect", key


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        (
            '"message":"GPU has fallen off the bus (XID 79). Node requires reboot."',
            "xid.79",
            Blame.HARDWARE,
        ),
        ("Detected XID 13 for GPU 2", "xid.13", Blame.APPLICATION),
    ],
)
def test_dcgm_xids_are_read_through_the_xid_catalog(line: str, signal: str, blame: Blame) -> None:
    assert (signal, blame) in {(s, b) for s, b, _ in found(line, Source.SYSTEM)}
