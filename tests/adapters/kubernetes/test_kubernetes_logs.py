"""`LogSpool`'s API followers against a stand-in API server (a local HTTP server): a
container that answers `pods/log` with 400 for a long while (not started yet, as a kubelet
says, or no kwok `Logs` object yet) is asked again every `RETRY_S`, and each of those answers
must give its connection back, or the session's pool (100 connections) runs dry and the log
is never read once it is there."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from lightkube import KubeConfig

from autorecover.adapters import keepalive
from autorecover.adapters.clock import SystemClock
from autorecover.adapters.kubernetes import logs
from autorecover.adapters.kubernetes.client import KubeSession
from autorecover.adapters.kubernetes.logs import LogSource, LogSpool

REFUSED = 150  # past the pool's 100 connections
LINE = '{"telemetry": "autorecover/1", "event": "step", "step": 12}'


class PodLogs(BaseHTTPRequestHandler):
    """`pods/log`: 400 (a Status, as the API server relays it) `REFUSED` times, then the
    container's log, whole (the stream ends)."""

    protocol_version = "HTTP/1.1"  # keep-alive: connections are pooled as with the API server
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms wait each
    asked = 0
    lock = threading.Lock()

    def do_GET(self) -> None:
        with PodLogs.lock:
            PodLogs.asked += 1
            refused = PodLogs.asked <= REFUSED
        if refused:
            body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                               "reason": "BadRequest", "code": 400,
                               "message": 'container "node" is waiting to start'}).encode()  # fmt: skip
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
        else:
            body = f"{LINE}\n".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Streams(BaseHTTPRequestHandler):
    """`pods/log?follow=true`, one answer per request from `ANSWERS`: the lines it streams
    (chunked) and whether the stream then ends (the container exited) or breaks (the
    connection cut mid-body, as an API server restart does). The query each request asked
    is kept in `asked`."""

    protocol_version = "HTTP/1.1"
    ANSWERS: ClassVar[list[tuple[list[str], bool]]] = []
    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Streams.asked.append(self.path)
        lines, ends = Streams.ANSWERS.pop(0) if Streams.ANSWERS else ([], True)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for line in lines:
            data = f"{line}\n".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        if ends:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True  # a break: no last chunk, the connection closes

    def log_message(self, format: str, *args: object) -> None:
        pass


def _session(handler: type[BaseHTTPRequestHandler]) -> Iterator[KubeSession]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = KubeConfig.from_dict({
        "clusters": [{"name": "c", "cluster": {
            "server": f"http://127.0.0.1:{server.server_address[1]}"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
    })  # fmt: skip
    built = KubeSession(config)
    try:
        yield built
    finally:
        built.close()
        server.shutdown()
        server.server_close()


@pytest.fixture
def session() -> Iterator[KubeSession]:
    PodLogs.asked = 0
    yield from _session(PodLogs)


@pytest.fixture
def streams() -> Iterator[KubeSession]:
    Streams.ANSWERS, Streams.asked = [], []
    yield from _session(Streams)


def test_a_container_refused_for_long_is_read_once_it_starts(
    session: KubeSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "RETRY_S", 0.0)
    spool = LogSpool(session, tmp_path / "spool", SystemClock(), grace_s=0.0)
    source = LogSource("trainjob:t/train", 1, "gpu-04", "t", "train-node-0-0-bxwrs",
                       "0b6f3c7e-1d2a-4c5b-9e8f-112233445566", "node")  # fmt: skip
    spool.follow([source])
    deadline = time.monotonic() + 20  # each leaked connection would hold the pool for good
    while LINE.encode() not in spool.read(source.job, 1, source.node, 0, 1 << 20):
        assert time.monotonic() < deadline, (
            f"the log never read: {PodLogs.asked} asked, {REFUSED} refused"
        )
        time.sleep(0.05)
    # Opened once more after it ended: nothing new there, so the container has ended.
    deadline = time.monotonic() + 10
    while PodLogs.asked < REFUSED + 2:
        assert time.monotonic() < deadline, PodLogs.asked
        time.sleep(0.05)
    time.sleep(0.2)
    assert PodLogs.asked == REFUSED + 2
    assert spool.streams == 1


def test_every_connection_to_the_api_server_carries_tcp_keepalive(session: KubeSession) -> None:
    """Watches and log follows read without a timeout: without keep-alive a connection left
    half-open (a partition, a load balancer's idle timeout) would keep them waiting for good.
    The socket the session really used says what the kernel will do."""

    async def sock_of_a_call() -> socket.socket:
        http = session.client._client._client  # lightkube's httpx client
        async with http.stream("GET", "/api/v1/namespaces/x/pods/p/log") as answer:
            await answer.aread()
            sock: socket.socket = answer.extensions["network_stream"].get_extra_info("socket")
            return sock

    sock = session.call(sock_of_a_call())
    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == keepalive.IDLE_S
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL) == keepalive.INTERVAL_S
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == keepalive.PROBES
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == keepalive.USER_TIMEOUT_MS


def _spooled(spool: LogSpool, source: LogSource, want: bytes) -> bytes:
    deadline = time.monotonic() + 10
    while (got := spool.read(source.job, 1, source.node, 0, 1 << 20)) != want:
        assert time.monotonic() < deadline, got
        time.sleep(0.05)
    return got


SOURCE = LogSource("t/train", 1, "gpu-02", "t", "train-worker-0", "uid-1", "pytorch")


def test_a_stream_opened_again_after_the_kubelet_rotated_the_log_loses_nothing(
    streams: KubeSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kubelet serves a container's current log file only: after it rotated the file, the
    stream opened again begins with fewer bytes than were spooled. Skipping by bytes dropped
    the new lines (the failure among them); the kubelet's timestamps say what is new."""
    monkeypatch.setattr(logs, "RETRY_S", 0.0)
    Streams.ANSWERS = [
        (["2026-12-05T10:00:00.000000001Z step 1 " + "x" * 200,
          "2026-12-05T10:00:01.000000000Z step 2 " + "x" * 200], False),  # then it breaks
        (["2026-12-05T10:00:02.5Z NCCL error: unhandled system error"], True),  # rotated
    ]  # fmt: skip
    spool = LogSpool(streams, tmp_path / "spool", SystemClock(), grace_s=0.0)
    spool.follow([SOURCE])
    want = f"step 1 {'x' * 200}\nstep 2 {'x' * 200}\nNCCL error: unhandled system error\n"
    _spooled(spool, SOURCE, want.encode())
    assert all("timestamps=true" in q.lower() for q in Streams.asked)


def test_a_stream_that_ends_is_opened_again_until_it_has_nothing_new(
    streams: KubeSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follow also ends, cleanly, when the kubelet restarts or the API server's proxy lets
    go while the container runs on: opened again, it goes on; an ended container's log has
    nothing new, and that is its end."""
    monkeypatch.setattr(logs, "RETRY_S", 0.0)
    t1, t2 = "2026-12-05T10:00:01.000000000Z", "2026-12-05T10:00:02.000000000Z"
    Streams.ANSWERS = [([f"{t1} one"], True), ([f"{t1} one", f"{t2} two"], True)]
    spool = LogSpool(streams, tmp_path / "spool", SystemClock(), grace_s=0.0)
    spool.follow([SOURCE])
    _spooled(spool, SOURCE, b"one\ntwo\n")
    deadline = time.monotonic() + 10
    while len(Streams.asked) < 3:  # the third finds nothing new: the follower ends
        assert time.monotonic() < deadline, Streams.asked
        time.sleep(0.05)
    time.sleep(0.2)
    assert len(Streams.asked) == 3


def test_lines_of_one_write_share_a_timestamp_and_each_is_spooled_once_across_a_break(
    streams: KubeSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "RETRY_S", 0.0)
    t1, t2, t3 = (f"2026-12-05T10:00:0{i}.000000000Z" for i in (1, 2, 3))
    first = [f"{t1} a", f"{t2} Traceback (most recent call last):", f"{t2}   File x"]
    again = [*first, f"{t2} RuntimeError: boom", f"{t3} exit"]  # the same file, grown
    Streams.ANSWERS = [(first, False), (again, True)]
    spool = LogSpool(streams, tmp_path / "spool", SystemClock(), grace_s=0.0)
    spool.follow([SOURCE])
    want = "a\nTraceback (most recent call last):\n  File x\nRuntimeError: boom\nexit\n"
    _spooled(spool, SOURCE, want.encode())


@pytest.mark.parametrize(
    ("line", "key", "text"),
    [
        ("2026-12-05T10:00:02.123456789Z hi", (1796464802, 123456789), "hi"),
        ("2026-12-05T10:00:02.5Z hi", (1796464802, 500000000), "hi"),
        ("2026-12-05T10:00:02Z 2026-01-01T00:00:00Z app", (1796464802, 0),
         "2026-01-01T00:00:00Z app"),
        ("no stamp here", None, "no stamp here"),
        ("2026-13-45T10:00:02Z bad month", None, "2026-13-45T10:00:02Z bad month"),
    ],
)  # fmt: skip
def test_a_kubelet_timestamp_is_read_and_taken_off_the_line(
    line: str, key: tuple[int, int] | None, text: str
) -> None:
    assert logs.stamped(line) == (key, text)


def test_lines_without_a_timestamp_are_resumed_by_the_bytes_spooled() -> None:
    """A server that ignores `timestamps=true`: a log only grows, so the bytes spooled are
    the part of a stream opened again to skip (a rotation cannot be told there)."""
    spooled = logs.Resume()
    spooled.reopened()
    assert [spooled.new_part(x) for x in ("a\n", "bb\n")] == [b"a\n", b"bb\n"]
    spooled.reopened()
    assert [spooled.new_part(x) for x in ("a\n", "bb\n", "c\n")] == [b"", b"", b"c\n"]
