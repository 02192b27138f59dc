"""Emitter audit (session 14): entries whose line read two situations the emitter itself tells
apart, one of which means something else. Each split is pinned on both sides with a real line
from the public thread cited beside it (or the emitter's format rendered, said so beside it):
the side that keeps the old entry, and the side that a narrower entry (or another existing one)
now reads instead.
"""

from __future__ import annotations

import pytest

from domain.golden import hits

# (real line, the key that must read it, the key that must not)
SPLITS: list[tuple[str, str, str | None]] = [
    # kubelet pkg/kubelet/eviction: node pressure (transient) against the pod's own ephemeral
    # storage limit (application), both with the reason Evicted.
    # FederatedAI/KubeFATE issue #64 (kubectl get events, node pressure)
    ("4m11s       Warning   Evicted               pod/egg-<id here>    The node was low on "
     "resource: memory. Container egg was using 5053216Ki, which exceeds its request of 0.",
     "k8s.evicted", "cloud.k8s_storage_limit_eviction"),
    # kubernetes/kubernetes issue #122160 (kubectl describe events, the pod's own limit)
    ("Warning  Evicted              2m57s  kubelet            Pod ephemeral local storage "
     "usage exceeds the total limit of containers 5Mi.",
     "cloud.k8s_storage_limit_eviction", "k8s.evicted"),
    # rendered: containerEphemeralStorageMessageFmt after a describe event's reason
    ('  Warning  Evicted  2m  kubelet  Container runner exceeded its local ephemeral storage '
     'limit "4Gi". ', "cloud.k8s_storage_limit_eviction", "k8s.evicted"),
    # rendered: the emptyDir limit message after a describe event's reason
    ('  Warning  Evicted  2m  kubelet  Usage of EmptyDir volume "dshm" exceeds the limit '
     '"1Gi". ', "cloud.k8s_storage_limit_eviction", "k8s.evicted"),
    # rendered: Lustre ptlrpc import.c, the server dropped this client (not the kubelet)
    ("Lustre: Evicted from MGS (at 10.1.0.10@o2ib) after server handle changed from 0x5b1c "
     "to 0x8e27", "storage.lustre_evicted", "k8s.evicted"),
    # rendered: Kueue workload_controller.go reconcileCheckBasedEviction (not the kubelet)
    ("    message: 'Evicted due to AdmissionCheck in Retry state: \"multikueue\"'",
     "kueue.admission_check_rejected", "k8s.evicted"),
    # kubelet's UnexpectedAdmissionError: "Allocate failed due to %v, which is unexpected".
    # kubernetes/kubernetes issue #96519 (the device plugin not ready yet in an e2e run)
    (r's: "pod \"nvidia-gpu-13237348-f464-496a-9e10-7d2bd90a5aad\" failed with reason: '
     r'\"UnexpectedAdmissionError\", message: \"Pod Allocate failed due to requested number '
     r'of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is '
     r'unexpected\"",',
     "k8s.unexpected_admission", None),
    # NVIDIA/k8s-device-plugin issue #2038 (a GPU fallen off the bus on one node)
    ("Warning  UnexpectedAdmissionError  pod/detr-ddp-worker-1  Allocate failed due to "
     "device plugin GetPreferredAllocation rpc failed",
     "k8s.device_plugin_rpc_failed", "k8s.unexpected_admission"),
    # a cluster runbook's NVLink error in one node (signatures-nvstack.toml's comment)
    ("Warning  UnexpectedAdmissionError  3m25s  kubelet  Allocate failed due to device plugin "
     "GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = error "
     "getting list of preferred allocation devices: unable to get device link information: "
     "error getting NVLink for devices (0, 1)",
     "k8s.device_plugin_rpc_failed", "k8s.unexpected_admission"),
    # urllib3 names the pool's host: an outside service (transient) against a server on the
    # job's own host (a symptom of that server not being up).
    # AUTOMATIC1111/stable-diffusion-webui issue #17165 (huggingface_hub's retry warning)
    ("WARNING:huggingface_hub.utils._http:'(MaxRetryError(\"HTTPSConnectionPool(host="
     "'huggingface.co', port=443): Max retries exceeded with url: /openai/clip-vit-large-"
     "patch14/resolve/main/merges.txt (Caused by NewConnectionError('<urllib3.connection."
     "HTTPSConnection object at 0x7fc30f2ea230>: Failed to establish a new connection: [Errno "
     "101] Network is unreachable'))\"), '(Request ID: 5f7287e5-2203-46b5-9dcf-e03db5035a99)')' "
     "thrown while requesting HEAD https://huggingface.co/openai/clip-vit-large-patch14/resolve/"
     "main/merges.txt",
     "service.http_connection_failed", "service.local_server_unreachable"),
    # vllm-project/vllm issue #5082 (the client asked a local vLLM server on the wrong port)
    ("requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8898): Max "
     "retries exceeded with url: /v1/completions (Caused by NewConnectionError('<urllib3."
     "connection.HTTPConnection object at 0x7f2d9c1e1c90>: Failed to establish a new "
     "connection: [Errno 111] Connection refused'))",
     "service.local_server_unreachable", "service.http_connection_failed"),
    # CerebriumAI/examples issue #39 (the job's own vLLM server not up yet)
    ("Send Result: {'run_id': '71d6c236-fe7a-961f-9548-120375ac8377', 'result': {'error': "
     "\"HTTPConnectionPool(host='127.0.0.1', port=5000): Max retries exceeded with url: "
     "/v1/models (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at "
     "0x7fc7730c5490>: Failed to establish a new connection: [Errno 111] Connection "
     "refused'))\"}, 'run_time_ms': 7026.292324066162}",
     "service.local_server_unreachable", "service.http_connection_failed"),
    # requests' raise_for_status names the URL: a 5xx from the job's own host is that server's
    # trouble (a symptom), from anywhere else an outside outage (transient).
    ("requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: "
     "http://localhost:5000/api/water-quality",
     "service.local_server_error", "net.service_unavailable"),
    ("requests.exceptions.HTTPError: 500 Server Error: INTERNAL SERVER ERROR for url: "
     "http://127.0.0.1:8000/update_named_param/",
     "service.local_server_error", "service.internal_server_error"),
    ("requests.exceptions.HTTPError: 503 Server Error: Service Temporarily Unavailable for url: "
     "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json",
     "net.service_unavailable", "service.local_server_error"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "key", "not_key"), SPLITS)
def test_split_sides(line: str, key: str, not_key: str | None) -> None:
    matched = hits(line)
    assert key in matched, matched
    if not_key is not None:
        assert not_key not in matched, matched
