"""Serving the engine over HTTP(S) with uvicorn; SIGTERM and SIGINT shut it down gracefully.

With `TlsFiles` the listener speaks TLS only (1.2 or later). With a client CA it asks every
client for a certificate and verifies one that is sent (a client without one may still use a
bearer token); the verified certificate's subject reaches the app as the ASGI TLS extension
(`scope["extensions"]["tls"]["client_cert_name"]`), where `auth` reads the agent's node from
its CN. A renewed certificate and key (cert-manager rewrites the Secret's files) are loaded
for new connections without a restart; a changed client CA needs one.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from autorecover.adapters import keepalive
from autorecover.server.app import create_app
from autorecover.server.auth import Auth, is_loopback
from autorecover.server.engine import Engine

RECHECK_S = 30.0  # how often a new connection looks whether the certificate was renewed


def parse_listen(listen: str) -> tuple[str, int]:
    """`127.0.0.1:8080` or `[::1]:8080` -> (host, port); ValueError when malformed."""
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--listen {listen!r}: expected HOST:PORT, e.g. 127.0.0.1:8080")
    return host.strip("[]"), int(port)


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The listener's certificate and key (PEM), and the CA that signs agents' client
    certificates (mutual TLS), if any."""

    cert: Path
    key: Path
    client_ca: Path | None = None


def check_listen(host: str, auth: Auth) -> None:
    """ValueError when the engine would serve without authentication beyond loopback."""
    if not auth.enabled and not is_loopback(host):
        raise ValueError(
            f"--insecure-no-auth serves everyone with every role: it listens on a loopback "
            f"address only (127.0.0.1 or ::1), not {host!r}"
        )


class ServerTls:
    """The listener's SSL context, its certificate re-loaded when the files change."""

    def __init__(self, files: TlsFiles, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.files = files
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self._stamp = self._stamps()
        self.context.load_cert_chain(str(files.cert), str(files.key))
        if files.client_ca is not None:
            self.context.load_verify_locations(cafile=str(files.client_ca))
            self.context.verify_mode = ssl.CERT_OPTIONAL
        self._checked = monotonic()
        self.reloads = 0

    def _stamps(self) -> tuple[int, ...]:
        stats = [self.files.cert.stat(), self.files.key.stat()]
        return tuple(x for st in stats for x in (st.st_mtime_ns, st.st_size))

    def refresh(self) -> None:
        """Load a renewed certificate and key for the next connections (checked at most
        every RECHECK_S; a pair that does not load keeps the old one)."""
        now = self._monotonic()
        if now - self._checked < RECHECK_S:
            return
        with self._lock:
            self._checked = now
            try:
                stamp = self._stamps()
                if stamp != self._stamp:
                    self.context.load_cert_chain(str(self.files.cert), str(self.files.key))
                    self._stamp = stamp
                    self.reloads += 1
            except (OSError, ssl.SSLError):
                pass  # mid-rewrite, or a bad pair: keep serving the old one, try again later


def tls_protocol(tls: ServerTls) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol that puts the verified client certificate into the scope."""

    class TlsProtocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            tls.refresh()
            ssl_object = transport.get_extra_info("ssl_object")
            if ssl_object is None:
                return
            extension: dict[str, Any] = {
                "client_cert_chain": [], "client_cert_name": None, "client_cert_error": None,
            }  # fmt: skip
            peer = ssl_object.getpeercert()
            if peer:  # a dict only when the certificate was sent and verified
                extension["client_cert_name"] = rfc4514(peer.get("subject", ()))
                der = ssl_object.getpeercert(binary_form=True)
                extension["client_cert_chain"] = [ssl.DER_cert_to_PEM_cert(der)] if der else []
            self.app = _with_tls(self.app, extension)

    return TlsProtocol


def _with_tls(app: Any, extension: dict[str, Any]) -> Any:
    async def with_tls(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope.setdefault("extensions", {})["tls"] = extension
        await app(scope, receive, send)

    return with_tls


_SHORT = {
    "commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU",
    "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST",
    "domainComponent": "DC", "userId": "UID", "streetAddress": "STREET",
}  # fmt: skip


def rfc4514(subject: Any) -> str:
    """A certificate subject as `ssl.getpeercert` gives it, as an RFC 4514 string
    (most specific first, special characters escaped)."""
    rdns = []
    for rdn in reversed(subject):
        rdns.append("+".join(f"{_SHORT.get(k, k)}={_escape(str(v))}" for k, v in rdn))
    return ",".join(rdns)


def _escape(value: str) -> str:
    out = "".join("\\" + c if c in ',+"\\<>;=' else c for c in value)
    if out.startswith(("#", " ")):
        out = "\\" + out
    if out.endswith(" ") and not out.endswith("\\ "):
        out = out[:-1] + "\\ "
    return out


def server_config(
    engine: Engine,
    host: str,
    port: int,
    log_level: str = "info",
    *,
    auth: Auth,
    tls: TlsFiles | None = None,
    lifespan: str = "on",
) -> uvicorn.Config:
    """uvicorn's configuration for the engine's app (`serve` runs it; tests too)."""
    check_listen(host, auth)
    options: dict[str, Any] = {}
    if tls is not None:
        server_tls = ServerTls(tls)
        options = {
            "http": tls_protocol(server_tls),
            "ssl_context_factory": lambda config, default: server_tls.context,
        }
    return uvicorn.Config(
        create_app(engine, auth=auth),
        host=host,
        port=port,
        log_level=log_level,
        lifespan=lifespan,  # type: ignore[arg-type]
        timeout_graceful_shutdown=30,
        access_log=False,  # agents post every minute: the intake counters say more
        **options,
    )


def serve(
    engine: Engine,
    host: str,
    port: int,
    log_level: str = "info",
    *,
    auth: Auth,
    tls: TlsFiles | None = None,
) -> None:
    """Serve until a signal: the lifespan then stops the runner and gives the lease up."""
    config = server_config(engine, host, port, log_level, auth=auth, tls=tls)
    uvicorn.Server(config).run(sockets=[listening_socket(host, port)])


class ListenError(ValueError):
    """The server's address cannot be bound."""


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound as uvicorn binds one, with TCP keep-alive: every connection it
    accepts inherits the options, so an agent's connection left half-open by a partition or a
    node powered off mid-request is closed within about a minute instead of holding its
    request open for good (`adapters/keepalive.py`). `ListenError` when it cannot bind."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        keepalive.apply(sock)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
