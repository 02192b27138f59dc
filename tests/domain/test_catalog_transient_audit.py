"""Golden lines for the audit of the catalog's `transient` blame (issue 14, round 5).

`transient` says the cause is outside the job and every node, and a retry gets past it. The
engine's largest bias on real failures was answering it where the thread established the job's
own setup or nothing, so the transient entries most often seen in a training job's output
(sockets, the c10d store and rendezvous, names, HTTP services, mounts) were read against their
emitters and against public threads quoting them (tallies in the comments above each entry).
A text that only says a bind, mount, name or connection failed, and whose threads mostly found
the setup, is a symptom of weight 20-30: the engine then decides by timing (before the job got
going: unknown; after it ran: transient). A text that says the failure is temporary or the
service's (EAI_AGAIN, a 5xx, a read in flight) stays transient, and so do those whose change made
the corpus worse (the comments say which).

Each line is real, cited beside it, and goes through the scanner's own matcher and a full scan.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, found, golden_line_checks

SYMPTOM_WEIGHTS = range(20, 31)  # a collective symptom's weight (docs/attribution.md §5)

# The entries the audit changed to symptoms, and those it kept transient.
CHANGED = frozenset(
    {
        "c10d.store_listen_failed",
        "storage.fuse_disconnected",
        "service.dns_unknown_host",
        "service.endpoint_unreachable",
        "xla.tpu_init_waiting_for_hosts",
    }
)
KEPT = frozenset(
    {
        "c10d.store_connect_failed",
        "c10d.store_host_not_found",
        "elastic.rendezvous_failed",
        "service.http_connection_failed",
        "service.dns_failure",
        "service.hf_hub_unreachable",
        "service.wandb_init_timeout",
        "service.mlflow_request_failed",
        "service.azure_request_failed",
        "storage.stale_handle",
        "storage.remote_io_error",
        "nvml.container_lost_devices",
    }
)
BLAME: dict[str, Blame] = {
    **{key: Blame.SYMPTOM for key in CHANGED},
    **{key: Blame.TRANSIENT for key in KEPT},
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # meta-pytorch/torchtune#392: two fine-tunes on one host, both on the default port
    (
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address "
        "already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - "
        "Address already in use).",
        "c10d.store_listen_failed",
        {},
    ),
    # open-mmlab/mmpretrain#960: the job asked for port 22, sshd's
    (
        "[E socket.cpp:435] [c10d] The server socket has failed to listen on any local network "
        "address.",
        "c10d.store_listen_failed",
        {},
    ),
    # googlecolab/colabtools#5641: the Drive mount dropped under a training run
    ("OSError: [Errno 107] Transport endpoint is not connected", "storage.fuse_disconnected", {}),
    # rclone/rclone#2982: a stale mount entry left by an earlier mount
    (
        "2019/02/25 19:25:38 mount helper error: fusermount: failed to access mountpoint "
        "/mnt/gdrive: Transport endpoint is not connected",
        "storage.fuse_disconnected",
        {},
    ),
    # dcharatan/pixelsplat#95: a Slurm compute node without internet access
    ("socket.gaierror: [Errno -2] Name or service not known", "service.dns_unknown_host", {}),
    # alievk/avatarify-python#276: deployed on an intranet
    (
        "urllib.error.URLError:<urlopen error [Errno -2] Name or service not known>",
        "service.dns_unknown_host",
        {},
    ),
    # aws-samples/amazon-custom-entity-recognition-textract-comprehend#2: no such service there
    (
        'EndpointConnectionError: Could not connect to the endpoint URL: "https://comprehend.'
        'us-west-1.amazonaws.com/"',
        "service.endpoint_unreachable",
        {"url": "https://comprehend.us-west-1.amazonaws.com/"},
    ),
    # aws-deepracer-community/deepracer-for-cloud#108: the local MinIO was not running
    (
        'botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "http:'
        '//localhost:9000/bucket/custom_files/reward_function.py"',
        "service.endpoint_unreachable",
        {"url": "http://localhost:9000/bucket/custom_files/reward_function.py"},
    ),
    # google-research/t5x#997: the program was not started on every host of a v3-128
    (
        "UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run "
        "your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/multi_process.html "
        "for more information.",
        "xla.tpu_init_waiting_for_hosts",
        {},
    ),
    # pytorch/pytorch#105782 (a maintainer: IP conflicts or inconsistent /etc/hosts)
    (
        "[E108 20:04:34.467642512 socket.cpp:957] [c10d] The client socket has timed out after "
        "900s while trying to connect to (33.145.124.128, 29500).",
        "c10d.store_connect_failed",
        {"store": "33.145.124.128", "port": "29500"},
    ),
    # pytorch/pytorch#64990: two EC2 instances, the master's name not resolving
    (
        "ValueError: host not found: Temporary failure in name resolution",
        "c10d.store_host_not_found",
        {},
    ),
    # pytorch/pytorch#107021: torchrun's c10d rendezvous on several nodes
    (
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the "
        "C10d store has failed. See inner exception for details.",
        "elastic.rendezvous_failed",
        {"kind": "Connection"},
    ),
    # tobias-kirschstein/nersemble-data#6: the download server's fault, fixed on its side
    (
        "http.client.RemoteDisconnected: Remote end closed connection without response",
        "service.http_connection_failed",
        {},
    ),
    # NVIDIA/nccl#844: an Azure ML job fetching pretrained weights
    ("socket.gaierror: [Errno -3] Temporary failure in name resolution", "service.dns_failure", {}),
    # yuruotong1/autoMate#104
    (
        "huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate "
        "the file on the Hub and we cannot find the requested files in the local cache. Please "
        "check your connection and try again or make sure your Internet connection is on.",
        "service.hf_hub_unreachable",
        {},
    ),
    # GAIR-NLP/DeepResearcher#7
    (
        "wandb.errors.errors.CommError: Run initialization has timed out after 90.0 sec. Please "
        "try increasing the timeout with the `init_timeout` setting: "
        "`wandb.init(settings=wandb.Settings(init_timeout=120))`.",
        "service.wandb_init_timeout",
        {},
    ),
    # mlflow/mlflow#12154: no tracking server on localhost
    (
        "MlflowException: API request to http://localhost:5000/api/2.0/mlflow/experiments/"
        "get-by-name failed with exception HTTPConnectionPool(host='localhost', port=5000): Max "
        "retries exceeded with url:",
        "service.mlflow_request_failed",
        {"url": "http://localhost:5000/api/2.0/mlflow/experiments/get-by-name"},
    ),
    # Azure/azure-sdk-for-python#20447: a blob upload's write timing out
    (
        "ServiceResponseError: ('Connection aborted.', timeout('The write operation timed out'))",
        "service.azure_request_failed",
        {"error": "ServiceResponseError"},
    ),
    # huggingface/transformers#9732: saving the optimizer's state in a checkpoint
    ("OSError: [Errno 116] Stale file handle", "storage.stale_handle", {}),
    # pesser/edflow#92: listing the checkpoints on a network file system
    (
        "OSError: [Errno 121] Remote I/O error: 'logs/2019-07-01T17:49:45_coords_1_pretrain_"
        "deepfashion/train/checkpoints'",
        "storage.remote_io_error",
        {},
    ),
    # NVIDIA/nvidia-docker#1671: a container's GPUs gone after hours, the host's still there
    ("Failed to initialize NVML: Unknown Error", "nvml.container_lost_devices", {}),
]

# (key, a line that must not be read as that key)
NEGATIVE: list[tuple[str, str]] = [
    # ModelTC/LightCompress#365: the store's own wait, retried
    (
        "c10d.store_listen_failed",
        "[W416 15:12:21.131066630 socket.cpp:933] [c10d] The server socket on "
        "[::ffff:36.xxx.xxx.13]:38405 has timed out, will retry.",
    ),
    (
        "c10d.store_connect_failed",
        "[W416 15:12:21.131066630 socket.cpp:933] [c10d] The server socket on "
        "[::ffff:36.xxx.xxx.13]:38405 has timed out, will retry.",
    ),
    # Lustre's ESHUTDOWN is another errno
    (
        "storage.fuse_disconnected",
        "LustreError: 11-0: lustre-OST0000-osc: Cannot send after transport endpoint shutdown",
    ),
    # nyu-systems/Grendel-GS#9 (the -2 form): c10d's IPv6 lookup, retried over IPv4
    (
        "service.dns_unknown_host",
        "[W socket.cpp:601] [c10d] The IPv6 network addresses of (user, 53821) cannot be "
        "retrieved (gai error: -2 - Name or service not known).",
    ),
    # a slow endpoint is endpoint_timeout's
    (
        "service.endpoint_unreachable",
        'botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://s3.'
        'amazonaws.com/"',
    ),
    # vllm-project/tpu-inference#2257: a device another process holds
    (
        "xla.tpu_init_waiting_for_hosts",
        "RuntimeError: Unable to initialize backend 'tpu': FAILED_PRECONDITION: TPU "
        "initialization failed: open(/dev/vfio/0): Device or resource busy",
    ),
    # pytorch/pytorch#116974: another agent left, a symptom of its own
    ("elastic.rendezvous_failed", "torch.distributed.elastic.rendezvous.api.RendezvousClosedError"),
    # wandb's retry loop goes on training
    ("service.wandb_init_timeout", "wandb: Network error (ConnectTimeout), entering retry loop."),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


@pytest.mark.parametrize("key", sorted(CHANGED))
def test_a_changed_entry_weighs_as_a_symptom(key: str) -> None:
    """A symptom the early-cascade rule can read: heavy enough to count, never decisive."""
    assert CATALOG.signatures[key].weight in SYMPTOM_WEIGHTS


@pytest.mark.parametrize(
    ("line", "key"), [(line, key) for line, key, _ in GOLDEN if key in CHANGED]
)
def test_a_full_scan_finds_the_line_as_a_symptom(line: str, key: str) -> None:
    """Through the scanner's own steps the line is the symptom alone, not the application's."""
    findings = found(line, Source.LOGS)
    assert (key, Blame.SYMPTOM, CATALOG.signatures[key].weight) in findings
    assert all(blame is not Blame.APPLICATION for _, blame, _ in findings), findings
