"""Serving the engine over HTTP with uvicorn; SIGTERM and SIGINT shut it down gracefully."""

from __future__ import annotations

import uvicorn

from autorecover.server.app import create_app
from autorecover.server.engine import Engine


def parse_listen(listen: str) -> tuple[str, int]:
    """`127.0.0.1:8080` or `[::1]:8080` -> (host, port); ValueError when malformed."""
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--listen {listen!r}: expected HOST:PORT, e.g. 127.0.0.1:8080")
    return host.strip("[]"), int(port)


def serve(engine: Engine, host: str, port: int, log_level: str = "info") -> None:
    """Serve until a signal: the lifespan then stops the runner and gives the lease up."""
    config = uvicorn.Config(
        create_app(engine),
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        timeout_graceful_shutdown=30,
        access_log=False,  # agents post every minute: the intake counters say more
    )
    uvicorn.Server(config).run()
