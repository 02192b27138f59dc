"""The orders client against a real local HTTP server: the contract's shapes and errors
(agent_actions)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.orders_client import (
    OrderFormatError,
    OrderGoneError,
    OrderRefusedError,
    OrdersClient,
    OrdersUnavailableError,
    order_from_dict,
    report_document,
)
from autorecover.controllers.ports import PermanentError, TransientError

ORDER = {
    "id": "gpu-h02/3/reset_gpu#bundle", "node": "gpu-h02", "kind": "reset_gpu",
    "args": {"gpus": ["0000:18:00.0"]}, "status": "queued",
    "placed_at": "2026-03-02T10:00:00+00:00", "deadline": "2026-03-02T10:30:00+00:00",
    "dry_run": False, "by": "autorecover-engine", "why": "xid 79", "incident": "hw-gpu-h02-3",
}  # fmt: skip

Seen = list[tuple[str, str, dict[str, str], Any]]


@pytest.fixture
def server() -> Iterator[tuple[str, Seen, list[tuple[int, Any, dict[str, str]]]]]:
    seen: Seen = []
    answers: list[tuple[int, Any, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length)) if length else None
            seen.append((self.command, self.path, dict(self.headers), body))
            status, doc, headers = answers.pop(0) if answers else (200, {"orders": []}, {})
            data = json.dumps(doc).encode()
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", seen, answers
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def test_agent_actions_fetch_reads_orders_with_the_agents_token(server: Any) -> None:
    url, seen, answers = server
    bad = {**ORDER, "id": "../../etc/passwd"}
    done = {**ORDER, "id": "x", "status": "done"}
    answers.append((200, {"orders": [ORDER, bad, done]}, {}))
    client = OrdersClient(url, credentials=ClientCredentials(token="s3cret"))
    orders = client.fetch("gpu-h02")
    assert [o.id for o in orders] == ["gpu-h02/3/reset_gpu#bundle"]
    assert orders[0].args == {"gpus": ["0000:18:00.0"]} and orders[0].incident == "hw-gpu-h02-3"
    assert client.malformed == 1
    method, path, headers, _ = seen[0]
    assert (method, path) == ("GET", "/api/v1/agent/orders?node=gpu-h02")
    assert headers["Authorization"] == "Bearer s3cret"


def test_agent_actions_report_quotes_the_id_and_bounds_the_body(server: Any) -> None:
    url, seen, answers = server
    answers.append((200, {"id": ORDER["id"], "status": "done"}, {}))
    doc = report_document(
        "gpu-h02", "done", "x" * 5000, evidence=tuple("e" * 400 for _ in range(80)),
        attachments={"kernel.log": "é" * 300_000},
    )  # fmt: skip
    assert OrdersClient(url).report(ORDER["id"], doc) == "done"
    method, path, _, body = seen[0]
    assert (method, path) == (
        "POST",
        "/api/v1/agent/orders/gpu-h02%2F3%2Freset_gpu%23bundle/report",
    )
    assert len(body["detail"]) == 2000 and len(body["evidence"]) == 50
    assert all(len(e) == 300 for e in body["evidence"])
    assert len(body["attachments"]["kernel.log"].encode()) <= 256 * 1024
    assert body["verdict"] is None


@pytest.mark.parametrize(
    ("status", "error", "base"),
    [
        (503, OrdersUnavailableError, TransientError),
        (401, OrdersUnavailableError, TransientError),
        (409, OrderGoneError, PermanentError),
        (404, OrderGoneError, PermanentError),
        (403, OrderRefusedError, PermanentError),
        (422, OrderRefusedError, PermanentError),
    ],
)
def test_agent_actions_errors_map_to_transient_or_permanent(
    server: Any, status: int, error: type[Exception], base: type[Exception]
) -> None:
    url, _, answers = server
    answers.append((status, {"detail": "why"}, {"Retry-After": "7"}))
    with pytest.raises(error) as caught:
        OrdersClient(url).report("a", report_document("gpu-h02", "done", ""))
    assert isinstance(caught.value, base) and "why" in str(caught.value)
    if status == 503:
        assert isinstance(caught.value, OrdersUnavailableError)
        assert caught.value.retry_after_s == 7.0


def test_agent_actions_an_absent_engine_is_transient() -> None:
    with pytest.raises(OrdersUnavailableError):
        OrdersClient("http://127.0.0.1:9", timeout_s=2).fetch("gpu-h02")


@pytest.mark.parametrize(
    "change", [{"id": ""}, {"id": "a b"}, {"args": []}, {"deadline": "2026-03-02T10:30:00"}]
)
def test_agent_actions_malformed_orders_are_refused(change: dict[str, Any]) -> None:
    with pytest.raises(OrderFormatError):
        order_from_dict({**ORDER, **change})
