"""Helpers for the agent-actions tests: the orders contract's engine side, in memory and
over HTTP (a fake of our own API; the real engine's end-to-end test comes with the engine
side), stand-ins loaded with the recorded outputs, and a loop that ticks an actor."""

from __future__ import annotations

import json
import shutil
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from autorecover.adapters.host.detached import Launcher
from autorecover.adapters.http.orders_client import (
    AgentOrder,
    OrderGoneError,
    OrderRefusedError,
    OrdersUnavailableError,
    order_from_dict,
)
from autorecover.agent.acting.actor import Actor
from autorecover.agent.acting.commands import Commands
from autorecover.agent.acting.journal import Journal, read_boot_id
from autorecover.testing.standins import StandIns

FIXTURES = Path(__file__).parents[2] / "fixtures" / "agent"
ACTIONS = FIXTURES / "actions"
DCGM = FIXTURES / "dcgm"
NODE = "gpu-h02"
FINAL = frozenset({"done", "failed", "refused", "expired"})


def order(kind: str, args: dict[str, Any] | None = None, **over: Any) -> dict[str, Any]:
    """An ORDER document of the contract."""
    now = datetime.now(UTC)
    doc = {
        "id": f"{NODE}/1/{kind}", "node": NODE, "kind": kind, "args": args or {},
        "status": "queued", "placed_at": now.isoformat(),
        "deadline": (now + timedelta(hours=1)).isoformat(), "dry_run": False,
        "by": "autorecover-engine", "why": "test", "incident": None,
    }  # fmt: skip
    doc.update(over)
    return doc


@dataclass
class ContractEngine:
    """The engine's side of the orders contract, in memory (status rules as specified)."""

    orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    reports: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    unavailable: int = 0  # answer the next N fetches with 503
    unavailable_reports: int = 0  # answer the next N reports with 503
    expire: set[str] = field(default_factory=set)  # expire these once listed (deadline passed)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def place(self, doc: dict[str, Any]) -> None:
        with self.lock:
            self.orders.setdefault(doc["id"], dict(doc))

    def listed(self, node: str) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(o) for o in self.orders.values()
                    if o["node"] == node and o["status"] in ("queued", "running")]  # fmt: skip

    def take_report(self, order_id: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(HTTP status, answer) for a report, by the contract's rules."""
        with self.lock:
            o = self.orders.get(order_id)
            if o is None:
                return 404, {"detail": "no such order"}
            if body.get("node") != o["node"]:
                return 403, {"detail": "another node's order"}
            self.reports.append((order_id, body))
            new, old = body["status"], o["status"]
            if old in FINAL:
                if new == old:
                    return 200, {"id": order_id, "status": old}
                return 409, {"detail": f"order is {old}"}
            o["status"] = new
            return 200, {"id": order_id, "status": new}

    def finals(self, order_id: str) -> list[dict[str, Any]]:
        return [b for i, b in self.reports if i == order_id and b["status"] in FINAL]

    # -- the OrdersPort, in memory --------------------------------------------------------

    def fetch(self, node: str) -> list[AgentOrder]:
        if self.unavailable:
            self.unavailable -= 1
            raise OrdersUnavailableError("engine answered 503", status=503)
        listed = [order_from_dict(o) for o in self.listed(node)]
        for oid in self.expire & set(self.orders):
            self.orders[oid]["status"] = "expired"
        return listed

    def report(self, order_id: str, document: dict[str, Any]) -> str:
        if self.unavailable_reports:
            self.unavailable_reports -= 1
            raise OrdersUnavailableError("engine answered 503", status=503)
        status, answer = self.take_report(order_id, json.loads(json.dumps(document)))
        if status == 200:
            return str(answer["status"])
        if status in (404, 409):
            raise OrderGoneError(answer["detail"], status=status)
        raise OrderRefusedError(answer["detail"], status=status)


class ContractServer:
    """The contract's HTTP routes over a ContractEngine, plus a signals intake that says 204."""

    def __init__(self, engine: ContractEngine) -> None:
        self.engine = engine
        self.signal_batches = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                if url.path != "/api/v1/agent/orders":
                    return self._answer(404, {"detail": "not found"})
                node = urllib.parse.parse_qs(url.query).get("node", [""])[0]
                self._answer(200, {"orders": server.engine.listed(node)})

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                path = urllib.parse.urlsplit(self.path).path
                if path == "/api/v1/signals":
                    server.signal_batches += 1
                    return self._answer(204, None)
                prefix, suffix = "/api/v1/agent/orders/", "/report"
                if not (path.startswith(prefix) and path.endswith(suffix)):
                    return self._answer(404, {"detail": "not found"})
                oid = urllib.parse.unquote(path[len(prefix) : -len(suffix)])
                self._answer(*server.engine.take_report(oid, json.loads(body)))

            def _answer(self, status: int, doc: Any) -> None:
                data = b"" if doc is None else json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def standins(root: Path) -> StandIns:
    """Stand-ins for every allow-listed command, answering with the recorded outputs."""
    kit = StandIns(root)
    kit.answer("dcgmi", r"^diag -r \d -j$", stdout=DCGM / "diag-4x-pass.json")
    kit.answer("dcgmi", r"^health -c -j$", stdout=DCGM / "health-healthy.json")
    kit.answer("nvidia-smi", r"--query-compute-apps", stdout=ACTIONS / "compute-apps-idle.csv")
    kit.answer("nvidia-smi", r"--query-gpu=pci.bus_id", stdout=ACTIONS / "gpu-list.csv")
    kit.answer("nvidia-smi", r"--gpu-reset -i 0000:18:00.0", stdout=ACTIONS / "gpu-reset-ok-18.txt")
    kit.answer(
        "nvidia-smi", r"--gpu-reset -i 0+:2[aA]:00.0", stdout=ACTIONS / "gpu-reset-ok-2a.txt"
    )
    kit.answer("nvidia-smi", r"^-q$", stdout=ACTIONS / "nvidia-smi-q.txt")
    kit.answer("journalctl", r"^-k ", stdout=ACTIONS / "journalctl-k.txt")
    kit.answer("dmesg", r"--time-format iso", stdout=ACTIONS / "dmesg-iso.txt")
    return kit


def only_standins(kit: StandIns) -> Callable[[str], str | None]:
    """A `which` that finds the stand-ins and nothing else (no real journalctl, dmesg...)."""
    return lambda name: shutil.which(name, path=str(kit.bin))


def make_actor(tmp: Path, kit: StandIns, engine: ContractEngine, **kw: Any) -> Actor:
    boot = tmp / "boot_id"
    tmp.mkdir(parents=True, exist_ok=True)
    if not boot.exists():
        boot.write_text("boot-a\n")
    kw.setdefault("every_s", 0.05)
    return Actor(
        node=NODE, client=engine, journal=Journal(tmp / "state" / "orders"),
        processes=Launcher(), commands=Commands(which=only_standins(kit)),
        boot_id=lambda: read_boot_id(boot), jitter=None, **kw,
    )  # fmt: skip


def tick_until(actor: Actor, done: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Tick with the real clock (the steps are real processes) until `done()`."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        actor.tick(datetime.now(UTC))
        if done():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def wait_for(check: Callable[[], Any], timeout_s: float = 30.0, what: str = "it") -> Any:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
