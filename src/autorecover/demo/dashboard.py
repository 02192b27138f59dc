"""The demonstration's engine on the web dashboard: the same app `serve` runs (`create_app`),
served by uvicorn on a thread, without authentication, on loopback only.

The demo's loop steps the engine itself (`Demo.tick`), so uvicorn's lifespan is off: the
server only reads the store and records people's requests, which the demo's next round acts on.
The socket is bound before the thread starts, so a port in use is an error the demo can report.
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn

from autorecover.server.auth import Auth
from autorecover.server.engine import Engine
from autorecover.server.serving import parse_listen, server_config

START_S = 10.0


class DashboardServer:
    """The dashboard of one engine on `listen` (HOST:PORT, a loopback address)."""

    def __init__(self, engine: Engine, listen: str) -> None:
        host, port = parse_listen(listen)
        config = server_config(engine, host, port, "warning", auth=Auth.disabled(),
                               lifespan="off")  # fmt: skip
        self._socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))  # OSError when the port is taken
        except OSError:
            self._socket.close()
            raise
        self.url = f"http://{listen}/ui/fleet"
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True,
            name="dashboard",
        )  # fmt: skip

    def start(self) -> DashboardServer:
        """Serve in the background; RuntimeError when it does not start."""
        self._thread.start()
        deadline = time.monotonic() + START_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the dashboard did not start on {self.url}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving (open pages' live streams end; they reconnect to the next one)."""
        self._server.should_exit = True
        self._thread.join(START_S)
        self._socket.close()
