"""The engine client: the wire format, and POSTs to a real local HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from autorecover.adapters.http.engine_client import EngineClient, EngineError, signals_url
from autorecover.adapters.http.wire import (
    WireError,
    batch_document,
    signal_from_dict,
    signal_to_dict,
)
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

SIGNAL = NodeSignal(
    node="gpu-h02",
    probe=Probe.KERNEL,
    signal="xid.79",
    blame=Blame.HARDWARE,
    weight=100,
    node_action=NodeAction.REBOOT,
    at=datetime(2026, 3, 2, 9, 40, 11, tzinfo=UTC),
    count=2,
    component="0000:5d:00",
    text="NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.",
    details=(("pci", "0000:5d:00"), ("xid", "79")),
)


@pytest.fixture
def server() -> Iterator[tuple[str, list[Any], list[tuple[int, dict[str, str]]]]]:
    bodies: list[Any] = []
    answers: list[tuple[int, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            bodies.append((self.path, self.headers["Content-Type"], json.loads(body)))
            status, headers = answers.pop(0) if answers else (204, {})
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", bodies, answers
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def test_signal_round_trips_through_json() -> None:
    assert signal_from_dict(json.loads(json.dumps(signal_to_dict(SIGNAL)))) == SIGNAL


@pytest.mark.parametrize(
    "change",
    [{"probe": "telepathy"}, {"at": "2026-03-02T09:40:11"}, {"weight": "heavy"}, {"node": None}],
)
def test_malformed_signals_are_refused(change: dict[str, Any]) -> None:
    data = {**signal_to_dict(SIGNAL), **change}
    if change.get("node", "") is None:
        del data["node"]
    with pytest.raises(WireError):
        signal_from_dict(data)


@pytest.mark.parametrize("url", ["ftp://engine", "file:///etc/passwd", "engine:8080", "http://"])
def test_only_http_urls(url: str) -> None:
    with pytest.raises(ValueError):
        signals_url(url)


def test_posts_a_batch(server: tuple[str, list[Any], list[Any]]) -> None:
    url, bodies, _ = server
    doc = batch_document("gpu-h02", [SIGNAL], sent_at=SIGNAL.at, dropped=3)
    EngineClient(url).post(doc)
    path, content_type, body = bodies[0]
    assert (path, content_type) == ("/api/v1/signals", "application/json")
    assert body["format"] == "autorecover.signals/1" and body["dropped"] == 3
    assert body["signals"][0]["signal"] == "xid.79"


def test_server_errors_are_transient_with_retry_after(
    server: tuple[str, list[Any], list[Any]],
) -> None:
    url, _, answers = server
    answers.append((503, {"Retry-After": "30"}))
    with pytest.raises(EngineError) as err:
        EngineClient(url).post({"signals": []})
    assert err.value.transient and err.value.status == 503 and err.value.retry_after_s == 30


def test_client_errors_are_permanent(server: tuple[str, list[Any], list[Any]]) -> None:
    url, _, answers = server
    answers.append((400, {}))
    with pytest.raises(EngineError) as err:
        EngineClient(url).post({"signals": []})
    assert not err.value.transient and err.value.status == 400


def test_nobody_listening_is_transient() -> None:
    probe = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = probe.server_address[1]
    probe.server_close()  # the port is now free: connection refused
    with pytest.raises(EngineError) as err:
        EngineClient(f"http://127.0.0.1:{port}", timeout_s=2).post({"signals": []})
    assert err.value.transient
