"""Golden tests for the container-runtime family (signatures-containers.toml, issue 14).

Real lines from runc and the containerd shim (Docker, Kubernetes), Docker's and podman's image
pulls, the CRI runtimes under kubelet and Apptainer (each cited) go through the scanner's own
matcher. The runtime's wrapper ("OCI runtime create failed", RunContainerError) only restates;
the reason after it decides: the job's image or command is the application's, the node's
image store full is the node's, a registry that does not answer is transient. Look-alikes must
not match, and every entry of the family file has a golden line.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from domain.golden import (
    Golden,
    family_contract,
    found,
    golden_line_checks,
)

FAMILY_FILE = "signatures-containers.toml"
NAMESPACES = frozenset({"oci", "registry", "cri", "apptainer", "buildkit"})

BLAME: dict[str, Blame] = {
    "oci.runtime_create_failed": Blame.SYMPTOM,
    "oci.exec_not_found": Blame.APPLICATION,
    "oci.exec_permission_denied": Blame.APPLICATION,
    "oci.exec_format_error": Blame.APPLICATION,
    "oci.image_store_full": Blame.HARDWARE,
    "oci.network_pools_exhausted": Blame.HARDWARE,
    "buildkit.connection_lost": Blame.TRANSIENT,
    "buildkit.context_missing": Blame.APPLICATION,
    "buildkit.step_failed": Blame.SYMPTOM,
    "registry.pull_timeout": Blame.TRANSIENT,
    "registry.image_not_found": Blame.APPLICATION,
    "cri.request_stuck": Blame.SYMPTOM,
    "apptainer.creation_failed": Blame.SYMPTOM,
    "apptainer.bind_destination_missing": Blame.APPLICATION,
    "apptainer.build_no_space": Blame.APPLICATION,
    "apptainer.no_nv_files": Blame.SYMPTOM,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # containerd/containerd issue #7388
    ("RunContainerError: failed to create containerd task: failed to create shim task: OCI "
     "runtime create failed: runc create failed: unable to create new parent process",
     "oci.runtime_create_failed", {}),
    # NVIDIA GPU Operator CDI page, known issues (CRI-O on OpenShift, a pod event)
    ("Warning  Failed  pod/bert-large-ddp-master-0  Error: container create failed: read status "
     "from sync socket: No such process", "oci.runtime_create_failed", {}),
    # moby/moby issue #44155
    ("docker: Error response from daemon: failed to create shim task: OCI runtime create failed: "
     "runc create failed: unable to start container process: can't get final child's PID from "
     "pipe: EOF: unknown.", "oci.runtime_create_failed", {}),
    # infiniflow/ragflow issue #605
    ("Error response from daemon: failed to create task for container: failed to create shim "
     "task: OCI runtime create failed: unable to retrieve OCI runtime error (open /run/containerd/"
     "io.containerd.runtime.v2.task/moby/fbafdfe8/log.json: no such file or directory): runc did "
     "not terminate successfully: exit status 127: unknown", "oci.runtime_create_failed", {}),
    # open-edge-platform/geti_v2 issue #1876 (kubectl describe pod: the terminated reason)
    ("      Reason:       StartError", "oci.runtime_create_failed", {}),
    # containerd/rust-extensions issue #183
    ("thread 'main' panicked at 'Failed to create task: Status { code: Unknown, message: \"OCI "
     "runtime create failed: container_linux.go:367: starting container process caused: exec: "
     "\\\"echo\\\": executable file not found in $PATH: unknown\"", "oci.exec_not_found",
     {"program": "echo"}),
    ('starting container process caused: exec: "python": executable file not found in $PATH',
     "oci.exec_not_found", {"program": "python"}),
    # ThreeDotsLabs/wild-workouts-go-ddd-example issue #60
    ('Error response from daemon: failed to create shim task: OCI runtime create failed: runc '
     'create failed: unable to start container process: exec: "./start.sh": permission denied: '
     "unknown", "oci.exec_permission_denied", {"program": "./start.sh"}),
    # ottomated/CrewLink-server issue #74, containerd/containerd issue #12243
    ('standard_init_linux.go:211: exec user process caused "exec format error"',
     "oci.exec_format_error", {}),
    ("exec /bin/sh: exec format error", "oci.exec_format_error", {"program": "/bin/sh"}),
    # play-with-docker issue #249, claritylab/lucida issue #119, usestrix/strix issue #483
    ("docker: failed to register layer: Error processing tar file(exit status 1): write "
     "/lib/x86_64-linux-gnu/libdns-export.so.162.1.3: no space left on device.",
     "oci.image_store_full", {}),
    ("failed to register layer: ApplyLayer exit status 1 stdout:  stderr: write /usr/local/"
     "lucida/lucida/speechrecognition/common/src/gmmbin/gmm-rescore-lattice: no space left on "
     "device", "oci.image_store_full", {}),
    ("failed to extract layer (application/vnd.oci.image.layer.v1.tar+gzip sha256:0465d356eb1d) "
     'to overlayfs as "extract-260106421-WDeK sha256:dc6b5af8281a": write /var/lib/desktop-'
     "containerd/daemon/io.containerd.snapshotter.v1.overlayfs/snapshots/105/fs/home/pentester/"
     ".cache/go-build/27/27085a9d-d: no space left on device", "oci.image_store_full", {}),
    # kubernetes/kubernetes issue #107340, docker/hub-feedback issue #1195
    ('Failed to pull image "busybox": rpc error: code = Unknown desc = Error response from '
     "daemon: Get https://registry-1.docker.io/v2/: net/http: TLS handshake timeout",
     "registry.pull_timeout", {}),
    ("docker: Error response from daemon: Get https://registry-1.docker.io/v2/library/ubuntu/"
     "manifests/latest: net/http: TLS handshake timeout.", "registry.pull_timeout", {}),
    # kubernetes/minikube issue #9580
    ("ErrImagePull: rpc error: code = Unknown desc = Error response from daemon: Get "
     "https://k8s.gcr.io/v2/: dial tcp: lookup k8s.gcr.io on 192.168.49.1:53: read udp "
     "192.168.49.2:47348->192.168.49.1:53: i/o timeout", "registry.pull_timeout", {}),
    # cri-o/cri-o pull request #189
    ("spec.containers{nginx} Warning Failed Failed to pull image \"nginx\": rpc error: code = 4 "
     "desc = context deadline exceeded", "registry.pull_timeout", {}),
    # podman-container-tools/podman issue #6595, ricoberger/script_exporter issue #182
    ("Error: error pulling image \"registry.gitlab.com/lightmeter/controlcenter\": unable to pull "
     "registry.gitlab.com/lightmeter/controlcenter: unable to pull image: Error initializing "
     "source docker://registry.gitlab.com/lightmeter/controlcenter:latest: Error reading manifest "
     "latest in registry.gitlab.com/lightmeter/controlcenter: manifest unknown: manifest unknown",
     "registry.image_not_found",
     {"tag": "latest", "repo": "registry.gitlab.com/lightmeter/controlcenter"}),
    ("Error: initializing source docker://ghcr.io/ricoberger/script_exporter:dev: reading "
     "manifest dev in ghcr.io/ricoberger/script_exporter: manifest unknown",
     "registry.image_not_found", {"tag": "dev", "repo": "ghcr.io/ricoberger/script_exporter"}),
    # ciiiii/cloudflare-docker-proxy issue #90
    ("Error response from daemon: manifest for docker.14790897.xyz/14790897/openwrt:86_64 not "
     "found: manifest unknown: manifest unknown", "registry.image_not_found",
     {"image": "docker.14790897.xyz/14790897/openwrt:86_64"}),
    # containerd/containerd issue #4604, senthilrch/kube-fledged issue #194
    ('  Warning  Failed     7s (x2 over 19s)    kubelet            Error: failed to reserve '
     'container name "web-77c979f8bf-px4v9_default_0": name "web-77c979f8bf-px4v9_default_0" '
     'is reserved for "818fcfef09165d91ac8c86ed88714bb159a8358c3eca473ec07611a51d72b140"',
     "cri.request_stuck", {}),
    ("Warning   FailedCreatePodSandBox    5s    kubelet    Failed to create pod sandbox: rpc "
     "error: code = DeadlineExceeded desc = context deadline exceeded", "cri.request_stuck", {}),
    # apptainer/apptainer issue #1037, apptainer/singularity issue #4017
    ("FATAL:   container creation failed: mount hook function failure: mount /proc/self/fd/3->"
     "/var/lib/apptainer/mnt/session/rootfs error: while mounting image /proc/self/fd/3: "
     "squashfuse_ll exited with status 255:", "apptainer.creation_failed", {}),
    ("FATAL   [U=0,P=37]         Master()                      container creation failed: "
     "mount /tmp failed: invalid argument", "apptainer.creation_failed", {}),
    # apptainer/apptainer issue #1895
    ("FATAL:   container creation failed: mount hook function failure: mount /var/apptainer/mnt/"
     "session/storage->/storage error: while mounting /var/apptainer/mnt/session/storage: "
     "destination /storage doesn't exist in container", "apptainer.bind_destination_missing",
     {"destination": "/storage"}),
    # RegnerM2015/scBreast_scRNA_scATAC_2024 issue #1, MASILab/Synb0-DISCO issue #75
    ("FATAL:   While making image from oci registry: error copying image out of cache: could "
     "not copy file: write ./tmp-copy-3780389766: no space left on device",
     "apptainer.build_no_space", {}),
    ("FATAL:   While making image from oci registry: error fetching image to cache: while "
     "building SIF from layers: packer failed to pack: while unpacking tmpfs: error unpacking "
     "rootfs: unpack entry: extra/fsl/x.py: unpack to regular file: short write: write "
     "/tmp/build-temp-1651613624/rootfs/extra/fsl/x.py: no space left on device",
     "apptainer.build_no_space", {}),
    # apptainer/singularity issue #6356
    ("INFO:    Could not find any nv files on this host!", "apptainer.no_nv_files", {}),
    # pytorch/helion pull request #3018 (a CI host's container initialisation)
    ("all predefined address pools have been fully subnetted", "oci.network_pools_exhausted", {}),
    # microsoft/vscode-remote-release issue #8005; docker/buildx issue #2380
    ("ERROR: failed to solve: Unavailable: error reading from server: EOF",
     "buildkit.connection_lost", {}),
    ("ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from "
     "server: EOF", "buildkit.connection_lost", {}),
    # nickpending/mcp-recon issue #1; tolyo/open-outcry issue #2
    ("ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref "
     '96f8e948-8d3e-4051-998a-f354ef0fde2f::nz4ef33ak2rv2mpfwwvt8w2a1: "/go.sum": not found',
     "buildkit.context_missing", {"path": "/go.sum"}),
    ("failed to solve: failed to compute cache key: failed to calculate checksum of ref "
     'moby::cyg61taxcu8c9skxxzv7qtf6i: "/.docker": not found', "buildkit.context_missing",
     {"path": "/.docker"}),
    # moby/buildkit's Dockerfile frontend, a failed RUN step (rendered from its format)
    ('ERROR: failed to solve: process "/bin/sh -c pip install -r requirements.txt" did not '
     "complete successfully: exit code: 1", "buildkit.step_failed", {"code": "1"}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # a permission error that is not the container's command (nvidia-docker issue #1736)
    ("oci.exec_permission_denied", "fork/exec /tmp/.X11-unix: permission denied: <nil>: unknown."),
    # the job's own writes filling a disk are storage.no_space, not the node's image store
    ("oci.image_store_full", "OSError: [Errno 28] No space left on device: '/ckpt/step_900.pt'"),
    ("oci.image_store_full", "tar: write error: no space left on device"),
    # a registry that refused the image is not a timeout
    ("registry.pull_timeout", 'Failed to pull image "nginx:nope": rpc error: code = NotFound '
     'desc = failed to pull and unpack image "docker.io/library/nginx:nope": not found'),
    # a training process's own connection timeout is not an image pull
    ("registry.pull_timeout", "requests.exceptions.ConnectionError: dial tcp 10.0.0.5:443: "
     "i/o timeout"),
    ("registry.image_not_found", "Writing manifest to image destination"),
    ("cri.request_stuck", "I0304 kubelet: Created container sandbox for pod train-0"),
    ("apptainer.build_no_space", "INFO:    Creating SIF file..."),
    # a build's own successful steps and a gRPC status that is not the daemon going away
    ("buildkit.connection_lost", "ERROR: failed to solve: DeadlineExceeded: context deadline "
     "exceeded"),
    ("buildkit.step_failed", "#8 DONE 12.3s"),
    ("oci.network_pools_exhausted", "Creating network \"train_default\" with the default driver"),
    ("apptainer.bind_destination_missing", "WARNING: By using --writable, Apptainer can't create "
     "/storage destination automatically without overlay or underlay"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_the_wrapper_gives_way_to_its_reason() -> None:
    """One Docker line carries the wrapper and the reason: the reason decides."""
    line = ('Error response from daemon: failed to create shim task: OCI runtime create failed: '
            'runc create failed: unable to start container process: exec: "train.sh": '
            "executable file not found in $PATH: unknown")  # fmt: skip
    found_ = {s: (b, w) for s, b, w in found(line, Source.LOGS)}
    assert found_["oci.runtime_create_failed"][0] is Blame.SYMPTOM
    assert found_["oci.exec_not_found"] == (Blame.APPLICATION, 65)
    assert "python.exception" not in found_


def test_only_the_nodes_own_stores_name_it() -> None:
    """Only the node's full image store or its exhausted network pools may name a node in this
    family, and only with inspect."""
    from domain.golden import CATALOG

    for key, blame in BLAME.items():
        sig = CATALOG.signatures[key]
        if blame is Blame.HARDWARE:
            assert key in {"oci.image_store_full", "oci.network_pools_exhausted"}
            assert sig.node_action.value == "inspect"
        else:
            assert sig.node_action.value == "none", key
