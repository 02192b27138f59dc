"""TCP keep-alive for the engine's long-lived connections.

A connection whose peer vanished without a word (a network partition, a host powered off, a
load balancer's idle timeout dropping state) stays open on this side for as long as nothing is
sent; with something sent, the kernel retransmits for about 15 minutes before it gives up. The
engine holds such connections where it waits without a timeout: watches and `pods/log` follows
to the Kubernetes API server, the store's one PostgreSQL connection, and the agents' and
operators' connections to its own HTTP server. Each carries keep-alive probes after
`IDLE_S` of silence, `INTERVAL_S` apart, `PROBES` unanswered ones ending it, and (Linux) a
`USER_TIMEOUT_MS` bound on unacknowledged data: a dead peer is noticed in about a minute.
client-go dials the API server with a 30 s keep-alive too.
"""

from __future__ import annotations

import socket

IDLE_S = 30
INTERVAL_S = 10
PROBES = 3
USER_TIMEOUT_MS = 60_000


def socket_options() -> list[tuple[int, int, int]]:
    """(level, option, value) for `setsockopt`: keep-alive on, with the values above where the
    platform has the option."""
    options = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    tcp = {
        "TCP_KEEPIDLE": IDLE_S,
        "TCP_KEEPINTVL": INTERVAL_S,
        "TCP_KEEPCNT": PROBES,
        "TCP_USER_TIMEOUT": USER_TIMEOUT_MS,
    }
    for name, value in tcp.items():
        if hasattr(socket, name):  # not every platform has each
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


def apply(sock: socket.socket) -> None:
    """Set `socket_options()` on a socket (a listening socket passes them to each connection it
    accepts: Linux copies them)."""
    for level, option, value in socket_options():
        sock.setsockopt(level, option, value)
