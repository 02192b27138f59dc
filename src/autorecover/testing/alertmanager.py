"""A real Alertmanager for the tests, Prometheus's `promtool`, and a webhook sink.

`ensure_installed` installs Debian's `prometheus-alertmanager` and `prometheus` (which brings
`promtool`) when a binary is missing (`apt-get install`, then `apt-get update` and again),
and raises `RigError` when it cannot: the tests that need them fail, never skip.
`start(config)` runs one Alertmanager on a free loopback port with its own configuration and
data folder (gossip off: `--cluster.listen-address=`), waits until it is ready, and
`Alertmanager.stop` ends it and removes its files. `WebhookSink` is a tiny HTTP server that
keeps every JSON body posted to it — what Alertmanager's webhook receiver delivers.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PACKAGES = ("prometheus-alertmanager", "prometheus")
ALERTMANAGER = ("prometheus-alertmanager", "alertmanager")  # Debian's name, upstream's name
PROMTOOL = ("promtool",)


class RigError(Exception):
    """Alertmanager or promtool is missing and could not be installed, or did not start."""


def _which(names: Sequence[str]) -> str | None:
    for name in names:
        found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
        if found:
            return found
    return None


def ensure_installed(packages: Sequence[str] = PACKAGES) -> str:
    """Install Alertmanager and promtool when missing; returns what was done."""
    missing = [names[0] for names in (ALERTMANAGER, PROMTOOL) if _which(names) is None]
    if not missing:
        return "already installed"
    if os.geteuid() != 0:
        raise RigError(f"{', '.join(missing)} missing and not root: apt-get install {packages}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    apt = _which(("apt-get",)) or "/usr/bin/apt-get"
    install = [apt, "install", "-y", "-q", "--no-install-recommends", *packages]
    first = subprocess.run(install, capture_output=True, text=True, env=env, check=False)  # noqa: S603
    if first.returncode != 0:
        update = subprocess.run(  # noqa: S603
            [apt, "update", "-q"], capture_output=True, text=True, env=env, check=False
        )
        again = subprocess.run(install, capture_output=True, text=True, env=env, check=False)  # noqa: S603
        if again.returncode != 0:
            raise RigError(
                "cannot install " + " ".join(install) + "\n"
                + (update.stderr or "")[-2000:] + (again.stdout + again.stderr)[-4000:]
            )  # fmt: skip
    still = [names[0] for names in (ALERTMANAGER, PROMTOOL) if _which(names) is None]
    if still:
        raise RigError(f"installed {', '.join(packages)} but still missing: {still}")
    return "installed " + " ".join(packages)


def promtool(*args: str, timeout_s: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run promtool (installed by `ensure_installed`)."""
    tool = _which(PROMTOOL)
    if tool is None:
        raise RigError("promtool not found: apt-get install prometheus")
    return subprocess.run(  # noqa: S603
        [tool, *args], capture_output=True, text=True, timeout=timeout_s, check=False
    )


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def webhook_config(url: str, *, group_by: Sequence[str] = ("alertname", "node")) -> str:
    """An Alertmanager configuration routing every alert to one webhook, quickly, resolved
    messages included."""
    return json.dumps(
        {
            "route": {
                "receiver": "test",
                "group_by": list(group_by),
                "group_wait": "1s",
                "group_interval": "1s",
                "repeat_interval": "1h",
            },
            "receivers": [
                {"name": "test", "webhook_configs": [{"url": url, "send_resolved": True}]}
            ],
        }
    )  # JSON is YAML


@dataclass
class Alertmanager:
    """One running Alertmanager."""

    root: Path
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        """Its base URL."""
        return f"http://127.0.0.1:{self.port}"

    def alerts(self, **filters: str) -> list[dict[str, Any]]:
        """GET /api/v2/alerts (filters as query parameters: active, silenced, ...)."""
        query = urllib.parse.urlencode(filters)
        url = f"{self.url}/api/v2/alerts" + (f"?{query}" if query else "")
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 (our loopback)
            found: list[dict[str, Any]] = json.load(answer)
        return found

    def log(self) -> str:
        """What it wrote so far."""
        path = self.root / "alertmanager.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, keep: bool = False) -> None:
        """End the process; remove its files unless `keep`."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if not keep:
            shutil.rmtree(self.root, ignore_errors=True)


def start(config: str, *, timeout_s: float = 30.0) -> Alertmanager:
    """Run an Alertmanager with this configuration; raises RigError when it does not start."""
    binary = _which(ALERTMANAGER)
    if binary is None:
        raise RigError("Alertmanager not found: apt-get install prometheus-alertmanager")
    root = Path(tempfile.mkdtemp(prefix="ar-alertmanager-"))
    (root / "alertmanager.yml").write_text(config)
    (root / "data").mkdir()
    port = free_port()
    argv = [
        binary, f"--config.file={root / 'alertmanager.yml'}", f"--storage.path={root / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address=",
    ]  # fmt: skip
    with (root / "alertmanager.log").open("wb") as log:
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603
    am = Alertmanager(root, port, process)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = am.log()[-3000:]
            am.stop()
            raise RigError(f"alertmanager exited {process.returncode}:\n{text}")
        try:
            with urllib.request.urlopen(f"{am.url}/-/ready", timeout=2) as answer:  # noqa: S310
                if answer.status == 200:
                    return am
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    text = am.log()[-3000:]
    am.stop()
    raise RigError(f"alertmanager not ready after {timeout_s:g} s:\n{text}")


@dataclass
class WebhookSink:
    """An HTTP server on loopback that keeps every JSON body posted to it."""

    received: list[dict[str, Any]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        """Where to post."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def start(self) -> WebhookSink:
        """Listen on a free loopback port."""
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with sink._lock:
                    sink.received.append(json.loads(body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def wait_for(self, test: Any, timeout_s: float = 20.0) -> dict[str, Any]:
        """The first body `test(body)` accepts; RigError after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                for body in self.received:
                    if test(body):
                        return body
            time.sleep(0.05)
        raise RigError(f"no matching webhook body after {timeout_s:g} s: {self.received}")

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
