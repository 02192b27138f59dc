"""Webhooks and the HTTP post against a real HTTP server in the test: the body, signature and
idempotency key; errors mapped (refused, away, busy with Retry-After); retries through the
queued sender; credentials from the URL as basic auth, never in names."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from autorecover.adapters.alerting.alertmanager import AlertmanagerDelivery
from autorecover.adapters.alerting.posting import RetryLaterError, check_url, post, redact
from autorecover.adapters.alerting.sending import Outbox, QueuedNotifier
from autorecover.adapters.alerting.webhook import (
    SIGNATURE,
    VERSION,
    WebhookDelivery,
    idempotency_key,
)
from autorecover.adapters.fakes.cluster import FakeClock
from autorecover.controllers.ports import Alert, PermanentError
from autorecover.domain.alerts import AlertName, Severity

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
SECRET = b"s3cret-key"
ALERT = Alert(
    "AutorecoverNodeNeedsAttention/n1/3", T0, "node n1 needs a person", "n1", "hw/n1/x",
    name=AlertName.NODE_NEEDS_ATTENTION, severity=Severity.WARNING, domain="rack:r1",
    description="repair it", link="http://ar/api/v1/nodes/n1",
)  # fmt: skip


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A real HTTP server that answers from a script (default 200) and keeps what it got."""

    answers: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    got: list[Received] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.got.append(Received(self.path, dict(self.headers.items()), body))
            code, headers = state.answers.pop(0) if state.answers else (200, {})
            self.send_response(code)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def test_a_webhook_gets_a_signed_json_body_with_an_idempotency_key(receiver: Receiver) -> None:
    hook = WebhookDelivery(receiver.url + "/hook", FakeClock(T0), secret=SECRET)
    hook.deliver([ALERT, ALERT.ended(T0)])
    firing, resolved = receiver.got
    assert firing.path == "/hook"
    doc = json.loads(firing.body)
    assert doc["version"] == VERSION and doc["status"] == "firing" and doc["id"] == ALERT.id
    assert doc["labels"] == ALERT.labels() and doc["fingerprint"] == ALERT.fingerprint()
    assert doc["annotations"] == {"summary": "node n1 needs a person", "description": "repair it"}
    assert doc["startsAt"] == "2026-01-05T08:00:00.000Z" and doc["endsAt"] is None
    assert doc["generatorURL"] == "http://ar/api/v1/nodes/n1"
    expected = "sha256=" + hmac.new(SECRET, firing.body, hashlib.sha256).hexdigest()
    assert firing.headers[SIGNATURE] == expected
    assert firing.headers["Idempotency-Key"] == idempotency_key(ALERT)
    assert json.loads(resolved.body)["status"] == "resolved"
    assert resolved.headers["Idempotency-Key"] != firing.headers["Idempotency-Key"]


def test_without_a_secret_nothing_is_signed(receiver: Receiver) -> None:
    WebhookDelivery(receiver.url, FakeClock(T0)).deliver([ALERT])
    assert SIGNATURE not in receiver.got[0].headers


def test_answers_map_to_retry_or_refusal(receiver: Receiver) -> None:
    receiver.answers = [(503, {}), (429, {"Retry-After": "7"}), (400, {})]
    with pytest.raises(RetryLaterError) as away:
        post(receiver.url, b"{}", {}, 5)
    assert "503" in str(away.value) and away.value.retry_after_s is None
    with pytest.raises(RetryLaterError) as busy:
        post(receiver.url, b"{}", {}, 5)
    assert busy.value.retry_after_s == 7.0
    with pytest.raises(PermanentError, match="400"):
        post(receiver.url, b"{}", {}, 5)


def test_nobody_listening_is_transient() -> None:
    with pytest.raises(RetryLaterError):
        post("http://127.0.0.1:9/", b"{}", {}, 2)


def test_credentials_in_the_url_become_basic_auth_and_stay_out_of_names(
    receiver: Receiver,
) -> None:
    url = receiver.url.replace("http://", "http://ops:p%40ss@") + "/am"
    delivery = AlertmanagerDelivery(url, FakeClock(T0))
    assert "p%40ss" not in delivery.name and "ops" not in delivery.name
    delivery.deliver([ALERT])
    got = receiver.got[0]
    assert got.path == "/am/api/v2/alerts"
    assert got.headers["Authorization"] == "Basic " + base64.b64encode(b"ops:p@ss").decode()


def test_a_webhook_is_retried_with_the_same_key_until_it_answers(receiver: Receiver) -> None:
    receiver.answers = [(503, {}), (502, {})]
    hook = WebhookDelivery(receiver.url, FakeClock(T0))
    notifier = QueuedNotifier(Outbox(hook, backoff_s=0.05, max_backoff_s=0.2))
    notifier.alert(ALERT)
    deadline = time.monotonic() + 10
    while notifier.stats().sent < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    notifier.close()
    assert notifier.stats().sent == 1 and notifier.stats().retries == 2
    keys = {r.headers["Idempotency-Key"] for r in receiver.got}
    assert len(receiver.got) == 3 and keys == {idempotency_key(ALERT)}


@pytest.mark.parametrize(
    "url", ["ftp://host/x", "host:9093", "http:///nohost", "http://h/x#frag", ""]
)
def test_bad_urls_are_refused_naming_the_option(url: str) -> None:
    with pytest.raises(ValueError, match="--alert-webhook"):
        WebhookDelivery(url, FakeClock(T0))


def test_redact_keeps_host_port_and_path_only() -> None:
    assert redact("https://u:p@am.example:9093/prefix?token=x") == "https://am.example:9093/prefix"
    assert check_url("http://[::1]:9093", "x") == "http://[::1]:9093"
    assert redact("http://[::1]:9093/") == "http://[::1]:9093/"


def test_alertmanager_documents_expire_a_firing_alert_and_carry_resolution() -> None:
    clock = FakeClock(T0)
    delivery = AlertmanagerDelivery("http://am:9093", clock, expire_s=240)
    firing = delivery.document(ALERT)
    assert firing == {
        "labels": ALERT.labels(), "annotations": ALERT.annotations(),
        "startsAt": "2026-01-05T08:00:00.000Z", "endsAt": "2026-01-05T08:04:00.000Z",
        "generatorURL": "http://ar/api/v1/nodes/n1",
    }  # fmt: skip
    clock.advance(600)
    assert delivery.document(ALERT)["endsAt"] == "2026-01-05T08:14:00.000Z"
    resolved = delivery.document(ALERT.ended(T0.replace(minute=3)))
    assert resolved["endsAt"] == "2026-01-05T08:03:00.000Z"
