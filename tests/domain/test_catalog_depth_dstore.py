"""Depth review of the storage, service and platform families (session 22): entries that read
several codes of one emitter alike, split where the emitter's own source says a code means
something else. Each new entry is pinned with a real line (or its emitter's format rendered, said
so beside it), its blame and weight, the look-alikes it must leave alone, and the old entry that
keeps the codes it does not take.

- service.tls_verify_failed: CPython Modules/_ssl.c's CERTIFICATE_VERIFY_FAILED with an issuer or
  name code, inside urllib3's MaxRetryError (service.http_connection_failed read it as an outage).
- service.proxy_refused: CPython Lib/http/client.py _tunnel's "Tunnel connection failed: 407|403".
- service.gcs_resumable_refused: google-resumable-media's InvalidResponse with a status it never
  retries (401, 403, 404); service.gcs_resumable_server_error keeps 429 and 5xx.
- mountpoint.request_forbidden: Mountpoint for Amazon S3's "get|put request failed: Client error:
  Forbidden: Access Denied" (storage.mountpoint_s3_request_failed read every EIO alike).
- s3fs.wrong_region, s3fs.not_implemented: s3fs-fuse curl.cpp RequestPerform's 301 line (the
  bucket's region) and 501 line (a feature the store lacks).
- storage.safetensors_refused: safetensors' OS errors of kind PermissionDenied, NotFound and
  Unsupported (storage.safetensors_io read every errno alike).
- registry.pull_timeout (narrowed): Go's "no such host" (NXDOMAIN, not Temporary) is left to
  service.dns_unknown_host; service.http_connection_failed and service.azure_request_failed
  (narrowed) leave the untrusted certificate and the refused tunnel to the entries above.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, Golden, assert_matches, found, golden_line_checks, hits

NEW: dict[str, Blame] = {
    "service.tls_verify_failed": Blame.APPLICATION,
    "service.proxy_refused": Blame.APPLICATION,
    "mountpoint.request_forbidden": Blame.APPLICATION,
    "s3fs.wrong_region": Blame.APPLICATION,
    "storage.safetensors_refused": Blame.APPLICATION,
    "s3fs.not_implemented": Blame.APPLICATION,
    "service.gcs_resumable_refused": Blame.APPLICATION,
}

GOLDEN: Golden = [
    # huggingface/huggingface_hub issue #2312 (a trust store without the issuer)
    (
        "requests.exceptions.SSLError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co',"
        " port=443): Max retries exceeded with url: /api/whoami-v2 (Caused by SSLError("
        "SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
        "unable to get local issuer certificate (_ssl.c:1129)')))\"), '(Request ID: "
        "aa881b7a-68ba-4c48-ba16-c90f3468a90d)')",
        "service.tls_verify_failed",
        {"reason": "unable to get local issuer certificate"},
    ),
    # huggingface/transformers issue #17611 (a re-signing middlebox's chain)
    (
        "SSLError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with "
        "url: /api/models/sentence-transformers/all-MiniLM-L6-v2 (Caused by SSLError("
        "SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
        "self signed certificate in certificate chain (_ssl.c:1091)')))",
        "service.tls_verify_failed",
        {"reason": "self signed certificate in certificate chain"},
    ),
    # Comfy-Org/ComfyUI issue #2825 (the traceback's innermost exception)
    (
        "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
        "failed: unable to get local issuer certificate (_ssl.c:1006)",
        "service.tls_verify_failed",
        {"reason": "unable to get local issuer certificate"},
    ),
    # rendered from _ssl.c's hostname check as httpx relays it (an endpoint under another name)
    (
        "httpx.ConnectError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname "
        "mismatch, certificate is not valid for 'hf-mirror.example.com'. (_ssl.c:1000)",
        "service.tls_verify_failed",
        {"host": "hf-mirror.example.com"},
    ),
    # ytdl-org/youtube-dl issue #22842 (a proxy that wants credentials)
    (
        "WARNING: unable to fetch login page: <urlopen error Tunnel connection failed: 407 Proxy "
        "Authentication Required>",
        "service.proxy_refused",
        {"status": "407"},
    ),
    # mozilla/bugbot issue #2002 (title: the proxy's policy)
    (
        "Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 "
        "Forbidden'))",
        "service.proxy_refused",
        {"status": "403"},
    ),
    # kivy/kivy issue #6873 (title)
    (
        "OSError: Tunnel connection failed: 407 Proxy Authentication Required",
        "service.proxy_refused",
        {"status": "407"},
    ),
    # rendered from mountpoint-s3-fs fuse.rs and mountpoint-s3-client's S3RequestError::Forbidden
    # (no public line of a read refused mid-run found)
    (
        'WARN read{req=14 ino=2 fh=1 offset=0 size=131072 name="shard-00000.tar"}: '
        "mountpoint_s3_fs::fuse: read failed with errno 5: get request failed: Client error: "
        "Forbidden: Access Denied",
        "mountpoint.request_forbidden",
        {"op": "read", "errno": "5", "message": "Access Denied"},
    ),
    # rendered: the older chain (PrefetchReadError's "get object request failed" in between)
    (
        "mountpoint_s3::fuse: read failed with errno 5: get request failed: get object request "
        "failed: Client error: Forbidden: Access Denied",
        "mountpoint.request_forbidden",
        {"op": "read"},
    ),
    # rendered: a PutObject signed with a wrong secret key (upload.rs's "put request failed")
    (
        "mountpoint_s3_fs::fuse: write failed with errno 5: upload error: put request failed: "
        "Client error: Forbidden: The request signature we calculated does not match the "
        "signature you provided. Check your key and signing method.",
        "mountpoint.request_forbidden",
        {"op": "write", "message": "The request signature we calculated does not match"},
    ),
    # s3fs-fuse/s3fs-fuse issue #1195
    (
        "[ERR] curl.cpp:RequestPerform(2417): HTTP response code 301(Moved Permanently: also "
        "happens when bucket's region is incorrect), returning EIO. Body Text: <?xml "
        'version="1.0" encoding="UTF-8"?>',
        "s3fs.wrong_region",
        {},
    ),
    # s3fs-fuse/s3fs-fuse issue #2029 (the same, with syslog's timestamp)
    (
        "2023-01-16T17:11:28.537Z [ERR] curl.cpp:RequestPerform(2396): HTTP response code "
        "301(Moved Permanently: also happens when bucket's region is incorrect), returning EIO. "
        'Body Text: <?xml version="1.0" encoding="UTF-8"?>',
        "s3fs.wrong_region",
        {},
    ),
    # safetensors/safetensors issue #842 (saving to a FUSE mount; the issue wraps the message
    # over three lines, rendered here on one as lib.rs prints it)
    (
        "safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: "
        "Operation not supported (os error 95)",
        "storage.safetensors_refused",
        {"phase": "serializing", "error": "Operation not supported", "os_error": "95"},
    ),
    # Nerogar/OneTrainer issue #659 (title; Windows' ERROR_ACCESS_DENIED is code 5)
    (
        "[Bug]: Error while serializing: IoError(Os { code: 5, kind: PermissionDenied",
        "storage.safetensors_refused",
        {"code": "5", "kind": "PermissionDenied"},
    ),
    # rendered: the Debug form of a save into a directory that does not exist
    (
        "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 2, kind: "
        'NotFound, message: "No such file or directory" })',
        "storage.safetensors_refused",
        {"kind": "NotFound"},
    ),
    # rendered: the Display form of a directory the job may not write
    (
        "safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: "
        "Permission denied (os error 13)",
        "storage.safetensors_refused",
        {"error": "Permission denied", "os_error": "13"},
    ),
    # rendered from s3fs-fuse curl.cpp RequestPerform's 501 case (an info-level line; no
    # public line found)
    (
        "[INF]       curl.cpp:RequestPerform(2479): HTTP response code 501 was returned, "
        "returning ENOTSUP",
        "s3fs.not_implemented",
        {},
    ),
    # rendered from google-resumable-media _helpers.require_status_code (statuses outside
    # common.RETRYABLE; no public line of a refused upload found)
    (
        "google.resumable_media.common.InvalidResponse: ('Request failed with status code', 403, "
        "'Expected one of', <HTTPStatus.OK: 200>)",
        "service.gcs_resumable_refused",
        {"status": "403"},
    ),
    (
        "google.resumable_media.common.InvalidResponse: ('Request failed with status code', 404, "
        "'Expected one of', <HTTPStatus.OK: 200>, <HTTPStatus.PARTIAL_CONTENT: 206>)",
        "service.gcs_resumable_refused",
        {"status": "404"},
    ),
    # rendered: azure-core's ServiceRequestError carrying _ssl.c's message (the blob client
    # behind a TLS-inspecting proxy); service.azure_request_failed leaves it
    (
        "azure.core.exceptions.ServiceRequestError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate "
        "verify failed: unable to get local issuer certificate (_ssl.c:997)",
        "service.tls_verify_failed",
        {"reason": "unable to get local issuer certificate"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # the expiry codes: the server's certificate or this node's clock, not the trust store
    (
        "service.tls_verify_failed",
        "requests.exceptions.SSLError: HTTPSConnectionPool(host='huggingface.co', port=443): Max "
        "retries exceeded with url: /x (Caused by SSLError(SSLCertVerificationError(1, '[SSL: "
        "CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired "
        "(_ssl.c:1006)')))",
    ),
    # a TLS protocol failure is not a certificate the client refused
    ("service.tls_verify_failed", "ssl.SSLError: [SSL] protocol error (_ssl.c:1000)"),
    # a proxy's 5xx is its outage
    (
        "service.proxy_refused",
        "requests.exceptions.ProxyError: HTTPSConnectionPool(host='huggingface.co', port=443): "
        "Max retries exceeded with url: /x (Caused by ProxyError('Cannot connect to proxy.', "
        "OSError('Tunnel connection failed: 502 Bad Gateway')))",
    ),
    # psf/requests issue #6585 (title): a malformed CONNECT, not a refusal by policy
    (
        "service.proxy_refused",
        "(Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 400 "
        "Bad Request')))",
    ),
    # awslabs/mountpoint-s3 issue #974: an expired token recovered without a remount
    (
        "mountpoint.request_forbidden",
        "mountpoint_s3_fs::fuse: read failed with errno 5: get request failed: Client error: "
        "Forbidden: The provided token has expired.",
    ),
    (
        "mountpoint.request_forbidden",
        "mountpoint_s3_fs::fuse: read failed with errno 5: get request failed: Client error: "
        "Request throttled",
    ),
    # awslabs/mountpoint-s3 pull request #1334 (a GetObject race)
    (
        "mountpoint.request_forbidden",
        "mountpoint_s3_fs::fuse: read failed with errno 5: get request failed: get request "
        "terminated unexpectedly",
    ),
    # s3fs-fuse/s3fs-fuse issue #693: a 400 whose body (the region) is on the next line
    (
        "s3fs.wrong_region",
        "[ERR] curl.cpp:RequestPerform(2088): HTTP response code 400, returning EIO. Body Text: "
        '<?xml version="1.0" encoding="UTF-8"?>',
    ),
    (
        "s3fs.wrong_region",
        "curl.cpp:RequestPerform(2383): HTTP response code 503 was returned, returning EAGAIN",
    ),
    # hiyouga/LlamaFactory issue #5155: a full disk is storage.no_space's
    (
        "storage.safetensors_refused",
        "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: "
        'StorageFull, message: "No space left on device" })',
    ),
    (
        "storage.safetensors_refused",
        "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 5, kind: "
        'Uncategorized, message: "Input/output error" })',
    ),
    (
        "storage.safetensors_refused",
        "safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: "
        "Input/output error (os error 5)",
    ),
    # d8ahazard/sd_dreambooth_extension issue #1262 (Windows: a file mapped elsewhere)
    (
        "storage.safetensors_refused",
        "[Bug]: Exception training model: 'Error while serializing: IoError(Os { code: 1224, "
        'kind: Uncategorized, message: "x" })\'.',
    ),
    # rendered: a 416 (a read past the object's end) is not a missing feature
    (
        "s3fs.not_implemented",
        "[INF]       curl.cpp:RequestPerform(2455): HTTP response code 416 was returned, "
        "returning EIO",
    ),
    (
        "s3fs.not_implemented",
        "curl.cpp:RequestPerform(2383): HTTP response code 503 was returned, returning EAGAIN",
    ),
    # a dropped upload session (410) and the service's 503 are not refusals
    (
        "service.gcs_resumable_refused",
        "google.resumable_media.common.InvalidResponse: ('Request failed with status code', 410, "
        "'Expected one of', <HTTPStatus.OK: 200>)",
    ),
    (
        "service.gcs_resumable_refused",
        "google.resumable_media.common.InvalidResponse: ('Request failed with status code', 503, "
        "'Expected one of', <HTTPStatus.OK: 200>)",
    ),
    # rendered: the Azure client's expired certificate stays the service's
    (
        "service.tls_verify_failed",
        "azure.core.exceptions.ServiceRequestError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate "
        "verify failed: certificate has expired (_ssl.c:997)",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, NEW)


@pytest.mark.parametrize("key", sorted(NEW))
def test_new_entries_decide_and_name_no_node(key: str) -> None:
    """Each split-off code stops the job (application at or above 50) and acts on no node."""
    sig = CATALOG.signatures[key]
    assert 50 <= sig.weight <= 60, key
    assert sig.node_action.value == "none", key
    assert sig.sources, key


def test_an_untrusted_certificate_is_no_longer_an_outage_but_an_expired_one_still_is() -> None:
    untrusted = GOLDEN[0][0]
    expired = NEGATIVE[0][1]
    assert "service.http_connection_failed" not in hits(untrusted)
    assert [s for s, _, _ in found(untrusted, Source.LOGS)] == ["service.tls_verify_failed"]
    assert "service.http_connection_failed" in hits(expired)
    assert "service.tls_verify_failed" not in hits(expired)


def test_a_proxy_refusing_the_tunnel_is_not_an_outage_but_its_5xx_is() -> None:
    refused = (
        "requests.exceptions.ProxyError: HTTPSConnectionPool(host='huggingface.co', port=443): "
        "Max retries exceeded with url: /x (Caused by ProxyError('Cannot connect to proxy.', "
        "OSError('Tunnel connection failed: 407 Proxy Authentication Required')))"
    )
    assert_matches("service.proxy_refused", refused, {"status": "407"})
    assert "service.http_connection_failed" not in hits(refused)
    assert "service.http_connection_failed" in hits(NEGATIVE[2][1])


def test_the_old_entries_keep_the_codes_not_split_off() -> None:
    """The lumped entries still read what they read before, the split codes included where
    their blame is weaker (a symptom beside the application's entry)."""
    forbidden = GOLDEN[7][0]
    assert {"mountpoint.request_forbidden", "storage.mountpoint_s3_request_failed"} <= set(
        hits(forbidden)
    )
    throttled = NEGATIVE[5][1]
    assert "storage.mountpoint_s3_request_failed" in hits(throttled)
    not_found = GOLDEN[14][0]
    assert {"storage.safetensors_refused", "storage.safetensors_io"} <= set(hits(not_found))
    eio = NEGATIVE[10][1]
    assert "storage.safetensors_io" in hits(eio)
    catalog = CATALOG.signatures
    assert (
        catalog["storage.safetensors_io"].weight
        < 50
        <= catalog["storage.safetensors_refused"].weight
    )
    assert (
        catalog["storage.mountpoint_s3_request_failed"].weight
        < 50
        <= catalog["mountpoint.request_forbidden"].weight
    )


def test_an_azure_request_error_is_an_outage_unless_it_is_an_untrusted_certificate() -> None:
    untrusted = GOLDEN[-1][0]
    expired = NEGATIVE[-1][1]
    assert "service.azure_request_failed" not in hits(untrusted)
    assert "service.azure_request_failed" in hits(expired)


def test_an_image_pull_to_a_name_that_does_not_exist_is_no_registry_outage() -> None:
    """Go's resolver: "no such host" (NXDOMAIN, not Temporary) left registry.pull_timeout for
    the symptom every other Go NXDOMAIN line reads as; the resolver's timeout stays transient."""
    # rendered: kubelet's pull through containerd's resolver (no public line kept)
    nxdomain = (
        'Failed to pull image "nvcr.io/nvidia/pytorch:24.01-py3": rpc error: code = Unknown desc '
        '= failed to pull and unpack image "nvcr.io/nvidia/pytorch:24.01-py3": failed to resolve '
        'reference "nvcr.io/nvidia/pytorch:24.01-py3": failed to do request: Head "https://nvcr.io'
        '/v2/nvidia/pytorch/manifests/24.01-py3": dial tcp: lookup nvcr.io on 10.96.0.10:53: no '
        "such host"
    )
    read = hits(nxdomain)
    assert "registry.pull_timeout" not in read
    assert "service.dns_unknown_host" in read
    assert CATALOG.signatures["service.dns_unknown_host"].blame is Blame.SYMPTOM
    # kubernetes/minikube issue #9580: the resolver did not answer in time
    timeout = (
        "ErrImagePull: rpc error: code = Unknown desc = Error response from daemon: Get "
        "https://k8s.gcr.io/v2/: dial tcp: lookup k8s.gcr.io on 192.168.49.1:53: read udp "
        "192.168.49.2:47348->192.168.49.1:53: i/o timeout"
    )
    assert "registry.pull_timeout" in hits(timeout)


def test_a_tracking_server_behind_a_private_ca_is_no_outage() -> None:
    # rendered: mlflow/utils/rest_utils.py's "failed with exception" around urllib3's error
    line = (
        "mlflow.exceptions.MlflowException: API request to https://mlflow.example.com/api/2.0/"
        "mlflow/runs/create failed with exception HTTPSConnectionPool(host='mlflow.example.com', "
        "port=443): Max retries exceeded with url: /api/2.0/mlflow/runs/create (Caused by "
        "SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
        "failed: self signed certificate (_ssl.c:1006)')))"
    )
    assert set(hits(line)) == {"service.tls_verify_failed"}


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_no_outage_or_hardware_entry_reads_a_split_off_line(
    line: str, key: str, captures: dict[str, str]
) -> None:
    blames = {k: CATALOG.signatures[k].blame for k in hits(line)}
    assert not {Blame.TRANSIENT, Blame.HARDWARE} & set(blames.values()), blames
