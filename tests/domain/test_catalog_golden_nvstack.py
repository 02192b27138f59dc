"""Golden lines for NVIDIA's node software stack (signatures-nvstack.toml): NVML,
libnvidia-container, the device plugin, kubelet admission, and agents restating XIDs."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, found, hits


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # agents restating an XID: read through the XID catalog, like the driver's own line
        ("XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00", "xid.79", Blame.HARDWARE),
        ("XID 74 (NVLINK Error) detected on PCI:0000:04:00", "xid.74", Blame.HARDWARE),
        ("I0304 11:41:58.102113       1 health.go:177] XidCriticalError: Xid=48 on "
         "Device=GPU-d23d91a3; marking device as unhealthy.", "xid.48", Blame.HARDWARE),
        ("XID 13(Graphics Engine Exception) detected on PCI:0000:9b:00", "xid.13",
         Blame.APPLICATION),
        # the EKS node monitoring agent: rendered from its reason formats
        # (aws/eks-node-monitoring-agent reasons.yaml, dcgm tests; sweep round 6, no public line)
        ("AcceleratedHardwareReady   False   NvidiaXID79Error   GPU 0 has fallen off the bus",
         "xid.79", Blame.HARDWARE),
        ("Warning  NvidiaXID13Warning  node/ip-10-0-1-2.ec2.internal  XID 13 on GPU 0",
         "xid.13", Blame.APPLICATION),
        ('{"Reason":"NvidiaDeviceCountMismatch","Message":"DCGM detected 8 GPUs but 7 nvidia '
         'device files were detected at /dev","Severity":"Fatal"}',
         "eksagent.accelerated_hardware_fault", Blame.HARDWARE),
        # NVML and the driver
        ("Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the "
         "system to recover this GPU", "nvml.gpu_is_lost", Blame.HARDWARE),
        ("failed to get device remapped rows: ERROR_GPU_IS_LOST", "nvml.gpu_is_lost",
         Blame.HARDWARE),
        ("Failed to initialize NVML: Driver/library version mismatch", "nvml.version_mismatch",
         Blame.HARDWARE),
        # NVIDIA's Go components wrap go-nvml's return: fmt.Errorf("failed to initialize NVML: %v")
        ('error modifying OCI spec: failed to create the automatic CDI modifier: failed to '
         'generate CDI spec for mode "auto": failed to construct device spec generators: failed '
         "to initialize NVML: Driver/library version mismatch", "nvml.version_mismatch",
         Blame.HARDWARE),
        ("failed to initialize NVML: Driver Not Loaded", "nvml.driver_unreachable", Blame.HARDWARE),
        ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make "
         "sure that the latest NVIDIA driver is installed and running.",
         "nvml.driver_unreachable", Blame.HARDWARE),
        ("Failed to initialize NVML: Unknown Error", "nvml.container_lost_devices",
         Blame.TRANSIENT),
        # libnvidia-container and kubelet
        ("stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, "
         "please update your driver to a newer version, or use an earlier cuda container: "
         "unknown.", "container.cuda_requirement", Blame.APPLICATION),
        ("nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
         "cannot open shared object file: no such file or directory: unknown",
         "container.driver_libraries_missing", Blame.HARDWARE),
        # NVIDIA/enroot#234 (libnvidia-container 1.17.7 on the host), #88 (SELinux), #231
        ("slurmstepd: error: pyxis:   nvidia-container-cli: container error: file lookup failed: "
         "/proc/421042/root/fsx/enroot/data/user-1111/pyxis_nemo_2502_x/etc/debian_version: "
         "permission denied", "container.cli_host_setup_failed", Blame.HARDWARE),
        ("nvidia-container-cli: permission error: capability change failed: operation not "
         "permitted", "container.cli_host_setup_failed", Blame.HARDWARE),
        ("nvidia-container-cli: detection error: path error: ///var/run/nvidia-fabricmanager/"
         "socket: permission denied", "container.cli_host_setup_failed", Blame.HARDWARE),
        # awslabs/amazon-eks-ami#2062, pytorch/test-infra#5852 (toolkit 1.17.0 on the host);
        # opendatahub-io/distributed-workloads#271 (the GPU operator's .real binary)
        ("stderr: Auto-detected mode as 'legacy' nvidia-container-cli: error parsing IMEX info: "
         "unsupported IMEX channel value: all: unknown", "container.toolkit_imex_parse",
         Blame.HARDWARE),
        ('runc create failed: unable to start container process: error during container init: '
         'error running hook #0: error running hook: exit status 1, stdout: , stderr: '
         'nvidia-container-cli.real: error parsing IMEX info: unsupported IMEX channel value: '
         'all\\n"', "container.toolkit_imex_parse", Blame.HARDWARE),
        # round-6 sweep (container runtimes): libnvidia-container's other failures, CDI, Docker
        # NVIDIA/nvidia-docker issue #825: the image ships nvidia-smi itself
        ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
         "bd4f3570d4eb99d9df1117bd3751a00c8c0eb63429e65eba2a196c6c543cc52f/merged/usr/bin/"
         "nvidia-smi: file exists", "container.image_ships_driver_files", Blame.APPLICATION),
        # NVIDIA/nvidia-docker issues #1068, #1300, #1660; nvidia-container-toolkit #678, #416
        ("stderr: nvidia-container-cli: mount error: mount operation failed: /home/znxj/"
         "dockerRootDir/overlay2/b9f5/merged/proc/driver/nvidia/params/version/registry: no such "
         "file or directory", "container.cli_host_setup_failed", Blame.HARDWARE),
        ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
         "d5771d7f73e2/merged/run/nvidia-persistenced/socket: no such device or address",
         "container.cli_host_setup_failed", Blame.HARDWARE),
        ("nvidia-container-cli: container error: cgroup subsystem devices not found: unknown",
         "container.cli_host_setup_failed", Blame.HARDWARE),
        # the pyxis wiki's "Pyxis / Enroot Error Reference" (a device node missing on the host)
        ("pyxis:     nvidia-container-cli: mount error: stat failed: /dev/nvidia-modeset: no such "
         "file or directory", "container.cli_host_setup_failed", Blame.HARDWARE),
        ("nvidia-container-cli: mount error: failed to add device rules: unable to find any "
         "existing device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) "
         "failed: operation not permitted: unknown.", "container.cli_host_setup_failed",
         Blame.HARDWARE),
        ("nvidia-container-cli: detection error: nvml error: unknown error",
         "container.cli_host_setup_failed", Blame.HARDWARE),
        # NVIDIA/enroot issue #238 (the host's AppArmor)
        ("nvidia-container-cli: initialization error: open failed: /proc/self/ns/mnt: permission "
         "denied", "container.cli_host_setup_failed", Blame.HARDWARE),
        # NVIDIA/nvidia-container-toolkit issues #632 and #108
        ("nvidia-container-cli: device error: 2: unknown device: unknown",
         "container.cli_unknown_device", Blame.SYMPTOM),
        ("Sep 08 08:58:07 node1 k3s[8174]:         nvidia-container-cli: device error: "
         "/var/run/nvidia-container-devices: unknown device: unknown",
         "container.cli_unknown_device", Blame.SYMPTOM),
        # NVIDIA/nvidia-docker issue #1352, infiniflow/ragflow issue #9573
        ('docker: Error response from daemon: could not select device driver "" with '
         "capabilities: [[gpu]].", "container.no_gpu_device_driver", Blame.HARDWARE),
        ('Error response from daemon: could not select device driver "nvidia" with capabilities: '
         "[[gpu]]", "container.no_gpu_device_driver", Blame.HARDWARE),
        # sgl-project/sglang-omni issue #510 (runc, the line wrapped after the mount request);
        # CentaurusInfra/alnair's device-plugin notes (libnvidia-container's mount error)
        ("open /run/nvidia-persistenced/socket: no such file or directory",
         "container.persistenced_socket_missing", Blame.HARDWARE),
        ("OCI runtime create failed: runc create failed: unable to start container process: error "
         "during container init: failed to fulfil mount request: open /run/nvidia-persistenced/"
         "socket: no such file or directory", "container.persistenced_socket_missing",
         Blame.HARDWARE),
        ("stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/"
         "overlay2/XXXX/merged/run/nvidia-persistenced/socket: no such device or address: "
         "unknown", "container.persistenced_socket_missing", Blame.HARDWARE),
        # NixOS/nixpkgs issue #420638 (podman), NVIDIA/nvidia-container-toolkit issue #1239
        ("Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
         "container.cdi_unresolvable", Blame.HARDWARE),
        ("  Warning  Failed     10s (x2 over 10s)  kubelet            Error: failed to create "
         "containerd task: failed to create shim task: OCI runtime create failed: could not apply "
         "required modification to OCI specification: error modifying OCI spec: failed to inject "
         "CDI devices: unresolvable CDI devices management.nvidia.com/gpu=GPU-e78e68c0-4e6a-737e-"
         "f9cc-4223fe50aead", "container.cdi_unresolvable", Blame.HARDWARE),
        ("Warning  UnexpectedAdmissionError  12s  kubelet  Allocate failed due to no healthy "
         "devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is "
         "unexpected", "k8s.unexpected_admission", Blame.TRANSIENT),
        # NVIDIA/k8s-device-plugin issue #2038 (a GPU fallen off the bus; `kubectl describe`
        # wrapped the event after "rpc failed") and a cluster runbook's NVLink error in a node
        ("Warning  UnexpectedAdmissionError  pod/detr-ddp-worker-1  Allocate failed due to "
         "device plugin GetPreferredAllocation rpc failed", "k8s.device_plugin_rpc_failed",
         Blame.HARDWARE),
        ("Warning  UnexpectedAdmissionError  3m25s  kubelet  Allocate failed due to device plugin "
         "GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = error "
         "getting list of preferred allocation devices: unable to get device link information: "
         "error getting NVLink for devices (0, 1)", "k8s.device_plugin_rpc_failed",
         Blame.HARDWARE),
    ],
)  # fmt: skip
def test_stack_lines(line: str, signal: str, blame: Blame) -> None:
    signals = {s: b for s, b, _ in found(line)}
    assert signals.get(signal) is blame, signals


@pytest.mark.parametrize(
    "line",
    [
        "GPU 0: NVIDIA A10 (UUID: GPU-0b4ae1d2-83bd-4c5b-2a7f-2d6f1b6c9e01)",
        "NVML initialized successfully",
        "Device plugin registered with kubelet: nvidia.com/gpu",
        # a plugin that answered: the kubelet's race after a reboot is another entry's
        "Allocate failed due to requested number of devices unavailable for nvidia.com/gpu.",
        "the data loader lost its worker; is lost a word you would log?",
        # the agent failing to reach DCGM is no fault of the GPU (aws/containers-roadmap #2555)
        '{"level":"error","ts":"2025-03-04T07:57:23Z","msg":"failed to reconcile DCGM state",'
        '"hostname":"ip-10-10-15-1.eu-west-1.compute.internal","monitor":"nvidia","error":'
        '"failed to initialize DCGM: Error connecting to nv-hostengine: Host engine connection '
        'invalid/disconnected"}',
    ],
)
def test_stack_neighbours_do_not_match(line: str) -> None:
    assert found(line) == []


@pytest.mark.parametrize(
    "line",
    [
        "h100-s02:41230:41230 [3] transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'",
        "gpu7:2212:2290 [7] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error'",
    ],
)
def test_nvls_setup_failures_point_at_the_node_fabric(line: str) -> None:
    signals = {s: b for s, b, _ in found(line, Source.LOGS)}
    assert signals.get("nccl.nvls_setup_failure") is Blame.HARDWARE, signals
    assert signals.get("nccl.cuda_failure") is Blame.SYMPTOM  # the generic reading stays


def test_a_driver_file_in_the_image_is_not_the_host() -> None:
    """The image's own file in the toolkit's way reads as the job's, never as the node's."""
    line = ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/aufs/mnt/"
            "e5827a97/usr/bin/nvidia-smi: file exists")  # fmt: skip
    signals = {s: b for s, b, _ in found(line)}
    assert signals == {"container.image_ships_driver_files": Blame.APPLICATION}, signals


@pytest.mark.parametrize(
    "line",
    [
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update "
        "your driver to a newer version, or use an earlier cuda container",
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
        "cannot open shared object file: no such file or directory",
        "enroot-mount: failed to mount: /proc/driver/nvidia at /tmp/x: file exists",
    ],
)
def test_container_host_setup_leaves_other_toolkit_lines(line: str) -> None:
    assert "container.cli_host_setup_failed" not in {s for s, _, _ in found(line)}


@pytest.mark.parametrize(
    ("line", "program"),
    [
        # NVIDIA/gpu-operator#707 (a pod on a node that had just rebooted)
        ('Error: failed to start container "gpu-check": failed to create containerd task: failed '
         "to create shim task: OCI runtime create failed: runc create failed: unable to start "
         'container process: exec: "nvidia-smi": executable file not found in $PATH: unknown',
         "nvidia-smi"),
        # Docker's escaped rendering of the same runc error
        ('OCI runtime create failed: container_linux.go:380: starting container process caused: '
         'exec: \\"nvidia-smi\\": executable file not found in $PATH: unknown',
         "nvidia-smi"),
        ('exec: "nvidia-cuda-mps-control": executable file not found in $PATH',
         "nvidia-cuda-mps-control"),
    ],
)  # fmt: skip
def test_a_missing_driver_utility_is_the_hosts_mount_not_the_image(line: str, program: str) -> None:
    """The toolkit mounts the driver's utilities from the host: runc not finding one is no
    broken image (a symptom: the pod's GPU request, the node's runtime or driver decide)."""
    matched = hits(line)
    assert "oci.exec_not_found" not in matched, matched
    assert matched["container.driver_utility_missing"]["program"] == program, matched
    assert CATALOG.signatures["container.driver_utility_missing"].blame is Blame.SYMPTOM


def test_a_missing_program_of_the_image_stays_the_images() -> None:
    line = 'exec: "nvidia-smi-wrapper.sh": executable file not found in $PATH'
    signals = {s: b for s, b, _ in found(line)}
    assert signals == {"oci.exec_not_found": Blame.APPLICATION}, signals


def test_toolkit_host_failures_name_the_node_cdi_and_docker_driver_do_not() -> None:
    """libnvidia-container failing on the host's side (its driver state, cgroup, namespaces,
    permissions, its IMEX parsing) names the node: no GPU container starts there until its
    runtime is fixed (nineteenth session). CDI and Docker GPU-driver failures, a daemon's
    configuration as often as a node's, stay below the naming weight."""
    for key in ("container.cli_host_setup_failed", "container.toolkit_imex_parse"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and sig.weight >= 60, key
        assert sig.node_action.value == "inspect", key
    for key in ("container.no_gpu_device_driver", "container.cdi_unresolvable"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and sig.weight < 60, key
