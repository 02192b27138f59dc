"""Golden lines from the sixth tracker sweep over storage and outside services as a training job
prints them: the experiment trackers' own error and retry texts (W&B, Comet, MLflow), the Hugging
Face download paths beside plain HTTP (hf_transfer, Xet, the size check, the datasets library),
S3's RequestTimeout, a registry request timing out without the daemon's prefix, and ESHUTDOWN
from an evicted Lustre client.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a service's outage or a cut transfer transient, a param re-logged
with a new value the job's own). Look-alikes must not match: a 4xx from W&B, offline mode without
a cache, a local disk error Xet wraps, the lines a wrapper prints when it only stops tracking.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    golden_line_checks,
)

FAMILY_FILE = "signatures-storesvc.toml"
NAMESPACES = frozenset(
    {"wandb", "comet", "mlflow", "hub", "xet", "datasets", "s3", "registry", "fs"}
)

BLAME: dict[str, Blame] = {
    "wandb.api_server_error": Blame.TRANSIENT,
    "wandb.request_retry": Blame.TRANSIENT,
    "comet.connection_failed": Blame.TRANSIENT,
    "mlflow.param_changed": Blame.APPLICATION,
    "hub.download_incomplete": Blame.TRANSIENT,
    "hub.hf_transfer_failed": Blame.TRANSIENT,
    "xet.cas_error": Blame.TRANSIENT,
    "datasets.hub_unreachable": Blame.TRANSIENT,
    "s3.request_timeout": Blame.TRANSIENT,
    "registry.v2_request_timeout": Blame.TRANSIENT,
    "fs.transport_shutdown": Blame.TRANSIENT,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # wandb/wandb issue #4537 (syncing stops after training starts)
    (
        "wandb: ERROR Error while calling W&B API: internal database error (<Response [500]>)",
        "wandb.api_server_error",
        {"message": "internal database error", "status": "500"},
    ),
    # wandb/wandb issue #5372 (a storm of these beside "Network error (ReadTimeout)")
    (
        "wandb: ERROR Error while calling W&B API: context deadline exceeded (<Response [500]>)",
        "wandb.api_server_error",
        {"message": "context deadline exceeded", "status": "500"},
    ),
    # wandb/wandb issue #7267 and wandb/edu issue #138
    (
        "wandb: ERROR Error while calling W&B API: An internal error occurred. Please contact "
        "support. (<Response [500]>)",
        "wandb.api_server_error",
        {"status": "500"},
    ),
    # wandb/wandb issue #8683 (a job on two nodes with four GPUs each)
    (
        'wandb: 500 encountered ({"errors":[{"message":"An internal error occurred. Please '
        'contact support.","path":["upsertBucket"]}],"data":{"upsertBucket":null}}), retrying '
        "request",
        "wandb.request_retry",
        {"status": "500"},
    ),
    # comet-ml/issue-tracking issue #503 (an upload out of retries)
    (
        'COMET ERROR: File upload failed: ValueError("Uploading file failed with max retries: 4 '
        "on url 'https://www.comet.com/clientlib/asset/upload'\"), file: "
        "/var/folders/p3/gmy1j6gn02ncvqd5dpn_wpw80000gn/T/tmpkini6y0p/tmpald55tsq",
        "comet.connection_failed",
        {},
    ),
    # comet-ml/issue-tracking issue #31 (a job on Kubernetes; the experiment ended early)
    (
        "ValueError: Could not connect to server after multiple tries.",
        "comet.connection_failed",
        {},
    ),
    # comet-ml/issue-tracking issue #19 (a read timeout to www.comet.ml before it)
    ("comet.ml error: failed to report experiment status", "comet.connection_failed", {}),
    # everycure-org/matrix issue #270 (a re-run logging into the same run)
    (
        "mlflow.exceptions.MlflowException: INVALID_PARAMETER_VALUE: Changing param values is not "
        "allowed. Param with key='evaluation.continuous_ground_truth_classification.evaluation_"
        "options.generator.object' was already logged with value='' for run "
        "ID='642ca2514a5e4ffdbdd2cc741bbea6a5'. Attempted logging new value "
        "'matrix.datasets.pair_generator.GroundTruthTestPairs'.",
        "mlflow.param_changed",
        {},
    ),
    # Lightning-AI/pytorch-lightning issue #17830 (the lr finder changed lr after it was logged)
    (
        "mlflow.exceptions.RestException: INVALID_PARAMETER_VALUE: Changing param values is not "
        "allowed. Params were already logged='[{'key': 'lr', 'old_value': '0.0001', 'new_value': "
        "'1.9054607179632475e-07'}]' for run ID='c2a50c03d7514612936b1be8f735971f'.",
        "mlflow.param_changed",
        {},
    ),
    # ecmwf/WeatherGenerator issue #2437 (a resubmitted experiment)
    (
        "mlflow.exceptions.RestException: INVALID_PARAMETER_VALUE: Parameter with key general was "
        "already logged with a value of {'istep': 0, 'rank': '???', 'world_size': '???', "
        "'multiprocessing_method': 'fork', 'desc': '', 'run_id': '???', 'run_history': []}. The "
        "attempted new value was {'istep': 0, 'rank': '???', 'world_size': '???'}",
        "mlflow.param_changed",
        {},
    ),
    # Liu-Shihao/transformers-course issue #1 (a 9 GB shard cut short at 883 MB)
    (
        "OSError: Consistency check failed: file should be of size 9449717937 but has size "
        "883464076 ((…)l-00001-of-00002.bin).",
        "hub.download_incomplete",
        {"expected": "9449717937", "actual": "883464076"},
    ),
    # huggingface/huggingface_hub issue #1959 (always broken near the end)
    (
        "OSError: Consistency check failed: file should be of size 492265168 but has size "
        "447786685 (model.safetensors).",
        "hub.download_incomplete",
        {"expected": "492265168", "actual": "447786685"},
    ),
    # h2oai/h2ogpt issue #1554 (a 13B model stuck and failing mid-download)
    (
        "RuntimeError: An error occurred while downloading using `hf_transfer`. Consider "
        "disabling HF_HUB_ENABLE_HF_TRANSFER for better error handling.",
        "hub.hf_transfer_failed",
        {},
    ),
    # meta-pytorch/torchforge pull request #109 (vLLM workers fetching
    # weights; the retries spent)
    (
        "[0] [0] RuntimeError: Data processing error: CAS service error : ReqwestMiddleware "
        "Error: Request failed after 5 retries",
        "xet.cas_error",
        {},
    ),
    # huggingface/xet-core issue #444
    (
        "RuntimeError: Data processing error: CAS service error : IO Error: Timer expired",
        "xet.cas_error",
        {},
    ),
    # huggingface/huggingface_hub issue #3036 (a body cut short on a slow connection)
    (
        "RuntimeError: Data processing error: CAS service error : Error : single flight error: "
        "Real call failed: CasObjectError(InternalIOError(Custom { kind: Other, error: "
        "reqwest::Error { kind: Decode, source: hyper::Error(Body, Custom { kind: UnexpectedEof, "
        "error: IncompleteBody }) } }))",
        "xet.cas_error",
        {},
    ),
    # tanganke/fusion_bench issue #112 (a read timeout to the Hub mirror before it)
    (
        "ConnectionError(\"Couldn't reach 'tanganke/sun397' on the Hub (ConnectionError)\")",
        "datasets.hub_unreachable",
        {"path": "tanganke/sun397", "error": "ConnectionError"},
    ),
    # artidoro/qlora issue #165 (the older form, naming the URL)
    (
        "ConnectionError: Couldn't reach https://huggingface.co/datasets/tatsu-lab/alpaca/resolve/"
        "main/dataset_infos.json (ConnectTimeout(MaxRetryError(\"HTTPSConnectionPool(host='"
        "huggingface.co', port=443): Max retries exceeded with url: /datasets/tatsu-lab/alpaca/"
        "resolve/main/dataset_infos.json",
        "datasets.hub_unreachable",
        {"cause": "ConnectTimeout"},
    ),
    # minio/minio issue #9295 and nextcloud/server issue #20519 (multipart uploads)
    (
        "RequestTimeout (client): Your socket connection to the server was not read from or "
        'written to within the timeout period. - <?xml version="1.0" encoding="UTF-8"?>',
        "s3.request_timeout",
        {},
    ),
    # botocore's rendering of the same code, as scripts/catalog_emitters/storesvc.toml renders
    # it (no public line found)
    (
        "botocore.exceptions.ClientError: An error occurred (RequestTimeout) when calling the "
        "UploadPart operation: Your socket connection to the server was not read from or written "
        "to within the timeout period. Idle connections will be closed.",
        "s3.request_timeout",
        {"operation": "UploadPart"},
    ),
    # docker/hub-feedback issue #947 (docker-compose pulling an image)
    (
        "Get https://registry-1.docker.io/v2/progrium/consul/manifests/latest: net/http: TLS "
        "handshake timeout",
        "registry.v2_request_timeout",
        {"registry": "registry-1.docker.io"},
    ),
    # whamcloud/integrated-manager-for-lustre issue #230 (LU-9838)
    (
        "mount.lustre: mount /dev/sdb at /mnt/testfs-OST0001 failed: Cannot send after transport "
        "endpoint shutdown",
        "fs.transport_shutdown",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # a 4xx from W&B is the job's configuration (wandb/wandb pull request on deleted sweeps)
    (
        "wandb.api_server_error",
        "wandb: ERROR Error while calling W&B API: agent not found (<Response [404]>)",
    ),
    # W&B's retry callback on a successful answer prints the text alone
    ("wandb.request_retry", "wandb: 200 OK, run synced"),
    # Ultralytics catches this one and only stops tracking (ultralytics/ultralytics issue #10208)
    (
        "mlflow.param_changed",
        "MLflow: WARNING ⚠️ Failed to initialize: INVALID_PARAMETER_VALUE: Response: {'Error': "
        "{'Code': 'ValidationError', 'Severity': None, 'Message': 'A given key of Parameters can "
        "not modify its value after it is set'}}",
    ),
    # a download that went through
    ("hub.download_incomplete", "Download complete. Moving file to /data/hf/model.safetensors"),
    # hf_transfer's own Windows file lock (huggingface/hf_transfer issue #63): local, not network
    (
        "hub.hf_transfer_failed",
        "Exception: Error while removing corrupted file: The process cannot access the file "
        "because it is being used by another process. (os error 32)",
    ),
    # the local disk errors Xet wraps are the storage family's
    (
        "xet.cas_error",
        "RuntimeError: Data processing error: CAS service error : IO Error: Disk quota exceeded "
        "(os error 122)",
    ),
    (
        "xet.cas_error",
        '"error": "Data processing error: CAS service error : IO Error: No space left on device '
        '(os error 28)"',
    ),
    # offline mode without a cache is the job's configuration
    (
        "datasets.hub_unreachable",
        "ConnectionError: Couldn't reach 'wikitext' on the Hub (OfflineModeIsEnabled)",
    ),
    # another S3 error code
    (
        "s3.request_timeout",
        "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the PutObject "
        "operation (reached max retries: 4): Please reduce your request rate.",
    ),
    # the daemon-prefixed form is registry.pull_timeout's; a healthy request is nobody's
    (
        "registry.v2_request_timeout",
        'Error response from daemon: Head "https://registry-1.docker.io/v2/library/postgres/'
        'manifests/10": net/http: TLS handshake timeout',
    ),
    (
        "registry.v2_request_timeout",
        "GET https://registry-1.docker.io/v2/library/ubuntu/manifests/22.04 200 OK",
    ),
    (
        "registry.v2_request_timeout",
        "ERROR: error pulling image configuration: Get https://dseasb33srnrn.cloudfront.net/"
        "registry-v2/docker/registry/v2/blobs/sha256/0d/data: net/http: TLS handshake timeout",
    ),
    # a peer closing its end is another errno (107)
    ("fs.transport_shutdown", "OSError: [Errno 107] Transport endpoint is not connected"),
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
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)


def test_no_entry_names_a_node() -> None:
    """A service's outage, a cut download or an evicted client never acts on the node."""
    assert_no_node_action(BLAME)


def test_trackers_weigh_little_alone() -> None:
    """A tracker's trouble is printed while training goes on: never decisive by itself."""
    for key in ("wandb.api_server_error", "wandb.request_retry", "comet.connection_failed"):
        assert CATALOG.signatures[key].weight <= 25, key


def test_the_job_own_refusal_is_below_a_decisive_weight() -> None:
    """A wrapper may catch MLflow's refusal and only stop tracking: the job's, but not alone."""
    sig = CATALOG.signatures["mlflow.param_changed"]
    assert sig.blame is Blame.APPLICATION
    assert 0 < sig.weight < 60
