"""Golden tests for the outside-services family (signatures-services.toml).

Real lines from public issues (named beside each) must match the expected signature through
the scanner's own matcher, without the generic Python-exception entry winning (an outage is
not the job's bug); a refusal for the job's own reasons (credentials, a missing object) must
read as the application, and distributed-training socket lines must stay with their own
families.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import (
    assert_matches,
    assert_no_match,
    family_contract,
    family_keys,
)

FAMILY_FILE = "signatures-services.toml"
NAMESPACES = frozenset({"service"})

REQUIRED: dict[str, Blame] = {
    # an outside service failing: retry, never a node
    "service.s3_throttled": Blame.TRANSIENT,
    "service.endpoint_timeout": Blame.TRANSIENT,
    "service.endpoint_unreachable": Blame.SYMPTOM,
    "service.gcp_unavailable": Blame.TRANSIENT,
    "service.gcp_grpc_unavailable": Blame.TRANSIENT,
    "service.gce_metadata_server_error": Blame.TRANSIENT,
    "service.azure_request_failed": Blame.TRANSIENT,
    "service.internal_server_error": Blame.TRANSIENT,
    "service.llm_api_unavailable": Blame.TRANSIENT,
    "service.rate_limited": Blame.TRANSIENT,
    "service.registry_rate_limited": Blame.TRANSIENT,
    "service.registry_unavailable": Blame.TRANSIENT,
    "service.http_connection_failed": Blame.TRANSIENT,
    "service.local_server_unreachable": Blame.SYMPTOM,
    "service.local_server_error": Blame.SYMPTOM,
    "service.http_retries_exhausted": Blame.TRANSIENT,
    "service.dns_failure": Blame.TRANSIENT,
    "service.dns_unknown_host": Blame.SYMPTOM,
    "service.hf_hub_unreachable": Blame.TRANSIENT,
    "service.wandb_network_retry": Blame.TRANSIENT,
    "service.wandb_init_timeout": Blame.TRANSIENT,
    "service.mlflow_request_failed": Blame.TRANSIENT,
    "service.stream_disconnected": Blame.TRANSIENT,
    "service.stream_truncated": Blame.TRANSIENT,
    # sweep round 6 (issue 14): Go object-store clients, S3's clock-skew refusal
    "service.go_sdk_request_failed": Blame.TRANSIENT,
    "service.request_time_skewed": Blame.SYMPTOM,
    # the service refuses the job's own request: configuration
    "service.access_denied": Blame.APPLICATION,
    "service.not_found": Blame.APPLICATION,
    "service.hf_offline_not_cached": Blame.APPLICATION,
    # sweep L4 (issue 14): golden lines in test_catalog_tracker_platforms.py
    "service.credentials_missing": Blame.APPLICATION,
    # the bottom of a chained traceback
    "service.socket_error": Blame.SYMPTOM,
    # cloud client libraries' own wording of a server error (twentieth session)
    "service.google_api_server_error": Blame.TRANSIENT,
    "service.gcs_resumable_server_error": Blame.TRANSIENT,
    # gcsfs and google-auth's metadata client (twenty-first session)
    "service.gcsfs_server_error": Blame.TRANSIENT,
    # Cloud Storage's per-object write limit: the job's write pattern (thirty-fourth session)
    "service.gcs_object_mutation_rate": Blame.APPLICATION,
    "service.gcsfs_request_refused": Blame.APPLICATION,
    "service.gce_metadata_unavailable": Blame.TRANSIENT,
    "service.gce_metadata_refused": Blame.APPLICATION,
    "service.gce_metadata_retrying": Blame.INFO,
    # depth review (session 22): refusals inside urllib3's MaxRetryError
    # (tests/domain/test_catalog_depth_dstore.py)
    "service.tls_verify_failed": Blame.APPLICATION,
    "service.proxy_refused": Blame.APPLICATION,
    # real-line mining (session 23), golden lines in tests/domain/test_catalog_mined_mstore.py
    "service.blobfile_retry": Blame.TRANSIENT,
    "service.gcs_resumable_refused": Blame.APPLICATION,
}

POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # tensorflow/tfx issue #5870 (the Vertex AI Trainer's poll; Cloud Logging's prefix)
        "service.gcp_grpc_unavailable",
        "ERROR 2026-07-09T17:37:32.681441481Z [resource.labels.taskName: workerpool0-0] details = "
        '"The service is currently unavailable."',
        {},
    ),
    (  # googleapis/google-auth-library-python issue #1285
        "service.gce_metadata_server_error",
        'google.auth.exceptions.RefreshError: ("Failed to retrieve http://metadata.google.internal/'
        "computeMetadata/v1/instance/service-accounts/default/token from the Google Compute Engine "
        "metadata service. Status: 500 Response:\\nb'Internal Server Error\\n'\", None)",
        {"status": "500"},
    ),
    (  # sgl-project/sglang pull request #24910 (uv pip install from the project's wheel index)
        "service.http_retries_exhausted",
        "error: Request failed after 3 retries in 86.3s",
        {"retries": "3", "seconds": "86.3"},
    ),
    (  # astral-sh/uv pull request #4725 (reqwest-retry's wording, nested under uv's own error)
        "service.http_retries_exhausted",
        "  Caused by: Request failed after 3 retries",
        {"retries": "3"},
    ),
    (  # ceph/ceph-csi issue #2029 (kubelet events of CI pods)
        "service.registry_rate_limited",
        'Failed to pull image "docker.io/library/busybox:1.29": rpc error: code = Unknown desc = '
        "Error response from daemon: toomanyrequests: You have reached your pull rate limit. You "
        "may increase the limit by authenticating and upgrading: "
        "https://www.docker.com/increase-rate-limit",
        {},
    ),
    (  # NVIDIA/deepops issue #974
        "service.registry_unavailable",
        "Error response from daemon: login attempt to https://nvcr.io/v2/ failed with status: 502 "
        "Bad Gateway",
        {"registry": "https://nvcr.io/v2/", "status": "502"},
    ),
    (  # triton-inference-server/server issue #5958
        "service.registry_unavailable",
        "Error response from daemon: received unexpected HTTP status: 502 Bad Gateway",
        {"status": "502"},
    ),
    (  # cockpit-project/bots issue #3991 (S3 rate limit through urllib)
        "service.s3_throttled",
        "urllib.error.HTTPError: HTTP Error 503: Slow Down",
        {},
    ),
    (  # flightstats/hub issue #291 (Java SDK wording)
        "service.s3_throttled",
        "com.amazonaws.services.s3.model.AmazonS3Exception: Please reduce your request rate. "
        "(Service: Amazon S3; Status Code: 503; Error Code: SlowDown; Request ID: 03D8D00FA3AD0455)",
        {},
    ),
    (  # aws/aws-cli issue #6450 (botocore's retry handler)
        "service.endpoint_timeout",
        "2021-10-05 17:10:05,133 - MainThread - botocore.retryhandler - DEBUG - retry needed, "
        'retryable exception caught: Read timeout on endpoint URL: "https://ec2.us-west-2.amazonaws.com/"',
        {"kind": "Read", "url": "https://ec2.us-west-2.amazonaws.com/"},
    ),
    (  # Arize-ai/phoenix issue #1925
        "service.endpoint_timeout",
        "botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "
        '"https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-v2/invoke"',
        {"kind": "Read"},
    ),
    (  # nccgroup/Scout2 issue #196
        "service.endpoint_unreachable",
        "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "
        '"https://sts.amazonaws.com/"',
        {"url": "https://sts.amazonaws.com/"},
    ),
    (  # huggingface/transformers issue #34841
        "service.rate_limited",
        "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for URL: "
        "https://huggingface.co/meta-llama/Meta-Llama-3-8B/resolve/main/config.json",
        {},
    ),
    (  # pytorch/torchtitan issue #2239 (huggingface_hub's retry warning, every rank at once)
        "service.rate_limited",
        "HTTP Error 429 thrown while requesting GET https://huggingface.co/api/datasets/allenai/"
        "c4/tree/1588ec454efa1a09f29cd18ddd04fe05fc8653a2/en?expand=false&recursive=true&limit=1000",
        {},
    ),
    (  # tenstorrent/tt-torch issue #607: torch.hub's check against GitHub's API, rate-limited
        "service.rate_limited",
        "E   urllib.error.HTTPError: HTTP Error 403: rate limit exceeded",
        {},
    ),
    (  # rendered: GitHub's REST API body for an exhausted primary rate limit
        "service.rate_limited",
        '{"message":"API rate limit exceeded for 203.0.113.7. (But here\'s the good news: '
        'Authenticated requests get a higher rate limit.)"}',
        {},
    ),
    (  # huggingface/smolagents pull request #599 (CI failure line)
        "service.rate_limited",
        "FAILED tests/test_models.py::ModelTests::test_get_hfapi_message_no_tool - "
        "huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: "
        "https://api-inference.huggingface.co/models/Qwen/Qwen2.5-Coder-32B-Instruct/v1/chat/"
        "completions (Request ID: BBblp7)",
        {},
    ),
    (  # agentscope-ai/QwenPaw issue #217 (the OpenAI SDK's 5xx)
        "service.llm_api_unavailable",
        "openai.InternalServerError: Error code: 502",
        {"status": "502"},
    ),
    (  # langchain-ai/local-deep-researcher issue #94 (its title quotes the exception's repr)
        "service.llm_api_unavailable",
        "generate_query 时报错 InternalServerError('Error code: 502')",
        {"status": "502"},
    ),
    (  # huggingface/huggingface_hub issue #1211
        "service.internal_server_error",
        "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: "
        "https://huggingface.co/api/models",
        {},
    ),
    (  # mlflow/mlflow issue #12154 (tracking server not up on localhost: no outside service)
        "service.local_server_unreachable",
        "ConnectionError: HTTPConnectionPool(host='localhost', port=5000): Max retries exceeded "
        "with url: /api/2.0/mlflow/experiments/get-by-name?experiment_name=MLflow_Quickstart "
        "(Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at "
        "0x7e710e575310>: Failed to establish a new connection: [Errno 111] Connection refused'))",
        {"host": "localhost", "port": "5000"},
    ),
    (  # pytorch/pytorch issue #101873 (torchvision's CIFAR-10 download through urllib)
        "service.http_connection_failed",
        "urllib.error.URLError: <urlopen error [Errno 110] Connection timed out>",
        {},
    ),
    (  # boto/botocore issue #1711
        "service.http_connection_failed",
        "urllib3.exceptions.ReadTimeoutError: AWSHTTPSConnectionPool(host='ec2.us-east-1."
        "amazonaws.com', port=443): Read timed out. (read timeout=60)",
        {},
    ),
    (  # h2oai/h2ogpt issue #533 (urllib3 response.py: the body stopped mid-download)
        "service.http_connection_failed",
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='cdn-lfs.huggingface.co', "
        "port=443): Read timed out.",
        {},
    ),
    (  # the same catcher's wording for a connection cut mid-body (urllib3 response.py)
        "service.http_connection_failed",
        "urllib3.exceptions.ProtocolError: ('Connection broken: IncompleteRead(1048576 bytes read, "
        "2097152 more expected)', IncompleteRead(1048576 bytes read, 2097152 more expected))",
        {},
    ),
    (  # aiohttp client_proto.py (HF datasets streaming through fsspec's http file system)
        "service.stream_disconnected",
        "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed",
        {"kind": "ClientPayloadError"},
    ),
    (  # aiohttp client_exceptions.py
        "service.stream_disconnected",
        "aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected",
        {"kind": "ServerDisconnectedError"},
    ),
    ("service.stream_disconnected", "fsspec.exceptions.FSTimeoutError", {}),
    (  # CPython ssl (SSLEOFError), the bottom of a TLS download
        "service.stream_disconnected",
        "ssl.SSLError: [SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol "
        "(_ssl.c:2426)",
        {},
    ),
    (  # OverTheWireOrg/OverTheWire-website issue #70
        "service.dns_failure",
        "socket.gaierror: [Errno -3] Temporary failure in name resolution",
        {},
    ),
    (  # csyezheng/edx-helper issue #13 (title)
        "service.dns_failure",
        "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
        {},
    ),
    (  # haoheliu/AudioLDM2 issue #46
        "service.hf_hub_unreachable",
        "huggingface_hub.utils._errors.LocalEntryNotFoundError: An error happened while trying to "
        "locate the file on the Hub and we cannot find the requested files in the local cache. "
        "Please check your connection and try again or make sure your Internet connection is on.",
        {},
    ),
    (  # SHI-Labs/Matting-Anything issue #16 (huggingface_hub < 0.20)
        "service.hf_hub_unreachable",
        "huggingface_hub.utils._errors.LocalEntryNotFoundError: Connection error, and we cannot "
        "find the requested files in the disk cache. Please try again or make sure your Internet "
        "connection is on.",
        {},
    ),
    (  # huggingface/text-generation-inference issue #3192 (HF_HUB_OFFLINE=1 set)
        "service.hf_offline_not_cached",
        "huggingface_hub.errors.OfflineModeIsEnabled: Cannot reach https://huggingface.co/api/"
        "models/meta-llama/Meta-Llama-3.1-8B-Instruct/tree/main?recursive=True&expand=False: "
        "offline mode is enabled. To disable it, please unset the `HF_HUB_OFFLINE` environment "
        "variable.",
        {},
    ),
    (  # treeverse/dvc issue #6433 (title)
        "service.access_denied",
        "Unexpected error - Forbidden: An error occurred (403) when calling the HeadObject "
        "operation: Forbidden",
        {"code": "403"},
    ),
    (  # rendeirolab/LazySlide issue #52
        "service.access_denied",
        "GatedRepoError: 401 Client Error. (Request ID: Root=1-6800c1a8-69511c6166fc8c3076cf474d;"
        "b91c310c-e96a-4855-88a6-1d10b06d8e80)",
        {},
    ),
    (  # IBM/ibm-cos-sdk-js issue #62 (title)
        "service.not_found",
        "CLIENT ERROR: An error occurred (NoSuchKey) when calling the GetObject operation: The "
        "specified key does not exist while running python get_item",
        {"code": "NoSuchKey"},
    ),
    (  # wandb/wandb issue #4568
        "service.wandb_network_retry",
        "wandb: Network error (TransientError), entering retry loop",
        {"error": "TransientError"},
    ),
    (  # wandb/wandb issue #10044
        "service.wandb_network_retry",
        "wandb: Network error (ConnectTimeout), entering retry loop.",
        {"error": "ConnectTimeout"},
    ),
    (  # Azure/blobxfer issue #77
        "service.socket_error",
        "2018-06-29 04:46:58,222 ERROR - ConnectionError: ('Connection aborted.', error(104, "
        "'Connection reset by peer'))",
        {},
    ),
    (  # webdataset/webdataset issue #112 (the exception a streamed shard's pipe ended with)
        "service.socket_error",
        "Epoch 0: : 371it [2:20:27, 22.72s/it, loss=5.85, v_num=19r8]OSError: Connection reset by "
        "peer.",
        {},
    ),
    (  # webdataset/webdataset issue #112 (zstd decompressing the shard the pipe cut short)
        "service.stream_truncated",
        "Epoch 0: : 380it [2:23:57, 22.73s/it, loss=5.82, v_num=19r8]/*stdin*\\ : Read error (39) "
        ": premature end ",
        {},
    ),
    # sweep round 6 (issue 14): checkpoints and data pipelines against object stores
    (  # peak/s5cmd issue #674 (500 workers through a proxy)
        "service.go_sdk_request_failed",
        'ERROR "cp s3://BUCKET/KEY": RequestError: send request failed caused by: Get '
        '"https://BUCKET.s3.REGION.amazonaws.com/KEY": proxyconnect tcp: dial tcp '
        "172.17.0.215:80: i/o timeout",
        {"cause": "i/o timeout"},
    ),
    (  # peak/s5cmd issue #875 (Go's resolver: the bucket alias does not resolve)
        "service.dns_unknown_host",
        'ERROR "cp s3://bdsp-credentialed-ac-psbrsg8wcmky4w5tbtn3b31yh4otause1b-s3alias/PSG/x.tsv '
        '/sshfs/x.tsv": RequestError: send request failed caused by: Get "https://bdsp-credentialed'
        '-ac-psbrsg8wcmky4w5tbtn3b31yh4otause1b-s3alias.s3.amazonaws.com/PSG/x.tsv": dial tcp: '
        "lookup bdsp-credentialed-ac-psbrsg8wcmky4w5tbtn3b31yh4otause1b-s3alias.s3.amazonaws.com: "
        "no such host",
        {},
    ),
    (  # aws-deepracer-community/deepracer-core issue #81 (checkpoint upload of a training run)
        "service.request_time_skewed",
        "botocore.exceptions.ClientError: An error occurred (RequestTimeTooSkewed) when calling the"
        " PutObject operation: The difference between the request time and the server's time is "
        "too large.",
        {},
    ),
    (  # aws/aws-cli issue #1065 (the old CLI's wording; an upload longer than 15 minutes)
        "service.request_time_skewed",
        '"A client error (RequestTimeTooSkewed) occurred when calling the UploadPart operation: The'
        ' difference between the request time and the current time is too large."',
        {},
    ),
    (  # concourse/s3-resource issue #34 (aws-sdk-go's wording; a 16-minute upload)
        "service.request_time_skewed",
        "error running command: RequestTimeTooSkewed: The difference between the request time and "
        "the current time is too large.",
        {},
    ),
    (  # huggingface/datasets pull request #3050 (streaming for 8 hours, then the retries ran out)
        "service.stream_disconnected",
        "ConnectionError: Server Disconnected",
        {},
    ),
    (  # fsspec/adlfs issue #494 (aiohttp 3.10's SocketTimeoutError under azure-core)
        "service.stream_disconnected",
        "SocketTimeoutError: Timeout on reading data from socket",
        {},
    ),
    (  # fsspec/adlfs issue #375 (dask reading CSVs from Azure Blob)
        "service.stream_disconnected",
        "aiohttp.client_exceptions.ServerTimeoutError: Timeout on reading data from socket",
        {"kind": "ServerTimeoutError"},
    ),
    (  # botocore's message with an empty endpoint URL (sillsdev/silnlp issue #565, checkpoint
        # uploads under load)
        "service.endpoint_unreachable",
        "botocore.exceptions.ConnectionClosedError: Connection was closed before we received a "
        "valid response from endpoint URL:",
        {},
    ),
    (  # tienfuc/gdcmdtools issue #20 (googleapiclient's HttpError, a Drive upload)
        "service.google_api_server_error",
        "apiclient.errors.HttpError: HttpError 503 when requesting https://www.googleapis.com/"
        "upload/drive/v2/files?uploadType=resumable&convert=false&alt=json returned "
        '"Service Unavailable"',
        {"status": "503"},
    ),
    (  # a load test's report in a public repository (google-resumable-media under GCS uploads)
        "service.gcs_resumable_server_error",
        "google.resumable_media.common.InvalidResponse: ('Request failed with status code', 503, "
        "'Expected one of', <HTTPStatus.OK: 200>)",
        {"status": "503"},
    ),
    (  # rendered from gcsfs/retry.py HttpError (message + ", " + code), Cloud Storage's 503 text
        "service.gcsfs_server_error",
        "gcsfs.retry.HttpError: We encountered an internal error. Please try again., 503",
        {"status": "503"},
    ),
    (  # ZettaAI/zetta_utils issue #636 (every worker rewrote one run record)
        "service.gcs_object_mutation_rate",
        "gcsfs.retry.HttpError: The object zetta_utils_runs/nkem/hissing-piquant-bear-of-honeydew"
        ".json exceeded the rate limit for object mutation operations (create, update, and "
        "delete). Please reduce your request rate. See https://cloud.google.com/storage/docs/"
        "gcs429., 429",
        {},
    ),
    (  # Cloud Storage's wording before 2020, as a TFJob's checkpoint upload logged it
        "service.gcs_object_mutation_rate",
        '"message": "The total number of changes to the object code-search-demo/models/model.ckpt-'
        "8000_temp exceeds the rate limit. Please reduce the rate of create, update, and delete "
        'requests."',
        {},
    ),
    (  # rendered from gcsfs/retry.py retry_request's logger after its last retry
        "service.gcsfs_server_error",
        "ERROR:gcsfs:_call out of retries on exception: Internal error. Please try again., 500",
        {"status": "500", "message": "Internal error. Please try again."},
    ),
    (  # a dataset loader's public FAQ (an anonymous read of a private bucket)
        "service.gcsfs_request_refused",
        "gcsfs.retry.HttpError: Anonymous caller does not have storage.objects.get access to the "
        "Google Cloud Storage object. Permission 'storage.objects.get' denied on resource (or it "
        "may not exist)., 401",
        {"status": "401"},
    ),
    (  # a public project log (a checkpoint path configured as null)
        "service.gcsfs_request_refused",
        "gcsfs.retry.HttpError: Invalid bucket name: 'None', 400",
        {"status": "400", "message": "Invalid bucket name: 'None'"},
    ),
    (  # rendered from google-auth compute_engine/_metadata.py get() after its retries
        "service.gce_metadata_unavailable",
        "google.auth.exceptions.TransportError: Failed to retrieve http://metadata.google.internal"
        "/computeMetadata/v1/instance/service-accounts/default/?recursive=true from the Google "
        "Compute Engine metadata service. Compute Engine Metadata server unavailable",
        {
            "url": "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts"
            "/default/?recursive=true"
        },
    ),
    (  # rendered from the same function's status form (a 503 from the metadata server)
        "service.gce_metadata_unavailable",
        'google.auth.exceptions.RefreshError: ("Failed to retrieve http://metadata.google.internal'
        "/computeMetadata/v1/instance/service-accounts/default/token from the Google Compute "
        "Engine metadata service. Status: 503 Response:\\nb'Service Unavailable'\", None)",
        {"status": "503"},
    ),
    (  # a public question (gcloud on a VM whose service account IAM did not know)
        "service.gce_metadata_refused",
        "ERROR: (gcloud.endpoints.services.list) There was a problem refreshing your current auth "
        'tokens: ("Failed to retrieve http://metadata.google.internal/computeMetadata/v1/instance'
        "/service-accounts/flock@dev-bytetoko.iam.gserviceaccount.com/token from the Google Compute"
        " Engine metadata service. Status: 404 Response:\\nb'Unable to generate access token; IAM "
        "returned 404 Not Found'\", None)",
        {"status": "404"},
    ),
    (  # rendered from google-auth's retry warning (Python's default logging format)
        "service.gce_metadata_retrying",
        "WARNING:google.auth.compute_engine._metadata:Compute Engine Metadata server unavailable "
        "on attempt 1 of 3. Reason: timed out",
        {"attempt": "1", "attempts": "3"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # a service account the VM lacks is the job's setup, not the platform's failure
    (
        "service.gce_metadata_server_error",
        "RefreshError: Failed to retrieve http://metadata.google.internal/computeMetadata/v1/"
        "instance/service-accounts/x/token from the Google Compute Engine metadata service. "
        "Status: 404 Response:",
    ),
    # a plain 403 is a refusal (credentials, permissions), not a rate limit
    ("service.rate_limited", "urllib.error.HTTPError: HTTP Error 403: Forbidden"),
    # torchft's quorum retries are its own family's, not an HTTP request's
    ("service.http_retries_exhausted", "RuntimeError: lighthouse quorum failed after 3 retries."),
    # a name that does not resolve is not a broken connection: left to the DNS entry
    (
        "service.go_sdk_request_failed",
        'ERROR "cp s3://b/k /x": RequestError: send request failed caused by: Get '
        '"https://b.s3.amazonaws.com/k": dial tcp: lookup b.s3.amazonaws.com: no such host',
    ),
    # s5cmd's own refusal of a missing local object is no request at all
    ("service.go_sdk_request_failed", 'ERROR "cp . s3://bucket": given object not found'),
    # a socket server of some other program going away is no streaming read giving up
    ("service.stream_disconnected", "ConnectionError: server disconnected"),
    # the S3 error text for a bad signature is not a clock skew
    (
        "service.request_time_skewed",
        "botocore.exceptions.ClientError: An error occurred (SignatureDoesNotMatch) when calling "
        "the PutObject operation: The request signature we calculated does not match the "
        "signature you provided.",
    ),
    # c10d's IPv6 lookup warning (torch/csrc/distributed/c10d/socket.cpp): it goes on over IPv4
    (
        "service.dns_unknown_host",
        "[W socket.cpp:663] [c10d] The IPv6 network addresses of (b8e4f1b0b9d1, 29500) cannot be "
        "retrieved (gai error: -2 - Name or service not known).",
    ),
    # a registry refusing the job's credentials is not an outage
    (
        "service.registry_unavailable",
        "Error response from daemon: login attempt to https://nvcr.io/v2/ failed with status: 401 "
        "Unauthorized",
    ),
    ("service.registry_rate_limited", "toomanyrequests_total counter reset"),
    # survivors' socket lines about a lost training peer belong to gloo / c10d, not to a service
    (  # RVC-Project/Retrieval-based-Voice-Conversion-WebUI issue #1882 (tests/corpus)
        "*",
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error "
        "[10.30.0.13]:25266: Connection reset by peer",
    ),
    (  # gensyn-ai/rl-swarm issue #197 (tests/corpus)
        "*",
        "[W506 14:02:16.149509694 socket.cpp:752] [c10d] The client socket has failed to connect "
        "to [cpu-b01]:29500 (errno: 110 - Connection timed out).",
    ),
    # an outage is not a refusal, and a refusal is not an outage
    (
        "service.access_denied",
        "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the "
        "CompleteMultipartUpload operation",
    ),
    (
        "service.s3_throttled",
        "An error occurred (NoSuchKey) when calling the GetObject operation: The specified key "
        "does not exist.",
    ),
    (
        "service.not_found",
        "Unexpected error - Forbidden: An error occurred (403) when calling the HeadObject "
        "operation: Forbidden",
    ),
    (
        "service.hf_hub_unreachable",
        "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in the "
        "disk cache and outgoing traffic has been disabled. To enable hf.co look-ups and "
        "downloads online, set 'local_files_only' to False.",
    ),
    # the transient DNS failure is not the unknown-host one
    (
        "service.dns_unknown_host",
        "socket.gaierror: [Errno -3] Temporary failure in name resolution",
    ),
    # a truncated compressed *file* is the data's problem, not a cut download
    ("service.stream_truncated", "shard-000123.tar.zst : Read error (39) : premature end "),
    # W&B's ordinary progress lines
    ("*", "wandb: Syncing run eternal-sun-12"),
    ("*", "wandb: Tracking run with wandb version 0.16.0"),
    # a refused request is the caller's, not the service failing
    (
        "service.google_api_server_error",
        "googleapiclient.errors.HttpError: <HttpError 403 when requesting "
        'https://www.googleapis.com/drive/v3/files?alt=json returned "Forbidden">',
    ),
    (
        "service.gcs_resumable_server_error",
        "InvalidResponse: ('Request failed with status code', 404, 'Expected one of', "
        "<HTTPStatus.OK: 200>)",
    ),
    # gcsfs's refusal is not the service failing, nor its server error the job's request
    ("service.gcsfs_server_error", "gcsfs.retry.HttpError: Invalid bucket name: 'None', 400"),
    (
        "service.gcsfs_request_refused",
        "gcsfs.retry.HttpError: We encountered an internal error. Please try again., 503",
    ),
    # a 404 after gcsfs's retries is a missing object, not an outage
    (
        "service.gcsfs_server_error",
        "ERROR:gcsfs:_call out of retries on exception: No such object: bkt/ckpt/step_100, 404",
    ),
    (
        "service.gce_metadata_unavailable",
        "Failed to retrieve http://metadata.google.internal/computeMetadata/v1/instance/"
        "service-accounts/default/token from the Google Compute Engine metadata service. "
        "Status: 403 Response:",
    ),
    # Open MPI's pml_ucx.c: a UCX connection to a rank failed, no host name was looked up
    (
        "service.dns_unknown_host",
        "[hpci5201:103648] pml_ucx.c:472  Error: Failed to resolve UCX endpoint for rank 1",
    ),
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
