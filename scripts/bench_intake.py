#!/usr/bin/env python3
"""Benchmark: the served engine's signal intake over HTTP (issue 12).

    uv run python scripts/bench_intake.py                      # SQLite file and PostgreSQL
    uv run python scripts/bench_intake.py --store sqlite --nodes 2000 --steady-s 10 --json

`autorecover serve` runs as a real subprocess on loopback (fake cluster, SQLite file or a
throwaway PostgreSQL from `autorecover.testing.postgres`). A client of `--connections` HTTP/1.1
keep-alive connections plays the fleet:

1. **steady**: a heartbeat of `--nodes` agents, each posting once per `--interval-s` (spread
   evenly), for `--steady-s`; one batch in ten carries one signal (a monitor-level one that
   decides nothing), the rest none.
2. **burst**: `--burst-factor` batches per node (10 × 12,500 = 125,000 by default), each with
   `--burst-signals` signals, posted as fast as the engine takes them (as agents flushing
   what they buffered during an outage).
3. **fault**: right after the burst's last 202, one XID 79 for a node of the fleet.
4. **oversized**: `--oversized` concurrent 100 MB chunked bodies; the engine's peak RSS.
5. **backlog**: the same burst and a fault behind it, posted to an engine whose intake pass
   does not come round again (`--intake-s 3600`), which then stops; a freshly started engine
   on the same store leads and drains it all (as after a failover behind a slow leader).

Reported: accepted batches/s and signals/s (steady and burst); p50/p99 from a batch's first
byte posted to the intake pass recording it (steady); how long the backlog took to drain
after the burst's last 202; for the fault, post → read (the pass's recorded transition) →
acted on (its cordon done), and post → acted. A batch counts as recorded at the first poll of
`/metrics` (every 50 ms) where the inbox holds fewer batches than were acknowledged after it
(the inbox is first in, first out): conservative by up to the poll period.

Targets: the burst drains in under 10 s (after its last 202, and as a backlog), and the fault
is acted on under 2 s after it was read. The script exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DRAIN_TARGET_S = 2.0 * 5  # the burst drains in under 10 s
ACT_TARGET_S = 2.0  # the fault is acted on under 2 s after it is read
POLL_S = 0.05


# --- the engine ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Engine:
    """One `autorecover serve` process on loopback."""

    def __init__(
        self, store_url: str, args: argparse.Namespace, log: Path, intake_s: float | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = args.token_file.read_text().strip() if args.token_file else None
        cmd = [
            sys.executable, "-m", "autorecover", "serve", "--scheduler", "fake",
            "--store", store_url,
            "--listen", f"127.0.0.1:{self.port}", "--log-level", "warning",
            "--fleet-size", str(args.nodes), "--max-waiting", str(args.max_waiting),
            "--rate-per-s", "0",  # every simulated agent shares this one address
            "--intake-s", str(args.intake_s if intake_s is None else intake_s),
        ]  # fmt: skip
        if args.token_file is None and "--insecure-no-auth" in serve_help():
            cmd.append("--insecure-no-auth")
        self.command = " ".join(cmd[1:])
        self._log = log.open("ab")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT)
        self.wait_leading()

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str) -> Any:
        req = urllib.request.Request(self.url + path, headers=self.headers())
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if path != "/metrics" else body.decode()

    def wait_leading(self, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the engine exited {self.proc.returncode}")
            try:
                if self.get("/readyz")["role"] == "leader":
                    return
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("the engine did not lead within 60 s")

    def waiting(self) -> int:
        for line in self.get("/metrics").splitlines():
            if line.startswith("autorecover_intake_waiting "):
                return int(float(line.split()[1]))
        raise RuntimeError("no autorecover_intake_waiting in /metrics")

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def serve_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autorecover", "serve", "--help"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.stdout


# --- the fleet -----------------------------------------------------------------------------


def signal_doc(node: str, at: str, key: str = "pcie.aer_corrected") -> dict[str, Any]:
    return {
        "node": node, "probe": "pcie", "signal": key, "blame": "info", "weight": 5,
        "node_action": "monitor", "at": at, "count": 1, "component": "0000:3b:00.0",
        "text": "pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0",
        "details": [["source", "aer"]], "incident": None,
    }  # fmt: skip


def batch_body(node: str, signals: int) -> bytes:
    at = datetime.now(UTC).isoformat()
    doc = {
        "format": "autorecover.signals/1", "node": node, "agent": "bench", "sent_at": at,
        "dropped": 0, "signals": [signal_doc(node, at) for _ in range(signals)],
    }  # fmt: skip
    return json.dumps(doc, separators=(",", ":")).encode()


def fault_body(node: str) -> bytes:
    at = datetime.now(UTC).isoformat()
    xid = {
        "node": node, "probe": "kernel", "signal": "xid.79", "blame": "hardware", "weight": 95,
        "node_action": "reboot", "at": at, "count": 1, "component": "0000:3b:00.0",
        "text": "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
        "details": [], "incident": None,
    }  # fmt: skip
    doc = {"format": "autorecover.signals/1", "node": node, "agent": "bench", "sent_at": at,
           "dropped": 0, "signals": [xid]}  # fmt: skip
    return json.dumps(doc, separators=(",", ":")).encode()


@dataclass
class Post:
    """One batch: when its first byte went, when its answer came, the answer, its signals."""

    sent: float
    acked: float
    status: int
    signals: int


class Client:
    """Keep-alive HTTP/1.1 connections posting pre-encoded batches."""

    def __init__(self, port: int, headers: dict[str, str]) -> None:
        self.port = port
        self.extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())

    def request(self, body: bytes) -> bytes:
        head = (
            f"POST /api/v1/signals HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{self.extra}\r\n"
        )
        return head.encode() + body

    async def worker(self, jobs: asyncio.Queue[tuple[bytes, int] | None], out: list[Post]) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            while (job := await jobs.get()) is not None:
                body, signals = job
                sent = time.monotonic()  # the first try: refusals count in the latency
                while True:
                    writer.write(self.request(body))
                    await writer.drain()
                    status = await read_response(reader)
                    if status != 429 and status != 503:
                        break
                    await asyncio.sleep(0.05)  # a real agent follows Retry-After; keep going
                out.append(Post(sent, time.monotonic(), status, signals))
        finally:
            writer.close()


async def read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next(
        (int(x.split(":", 1)[1]) for x in lines[1:] if x.lower().startswith("content-length:")),
        0,
    )
    if length:
        await reader.readexactly(length)
    return status


@dataclass
class Poll:
    at: float
    waiting: int


class Poller:
    """`/metrics` every 50 ms: how many batches wait in the inbox."""

    def __init__(self, engine: Engine) -> None:
        self.engine, self.polls = engine, list[Poll]()
        self._stop = asyncio.Event()

    async def run(self) -> None:
        while not self._stop.is_set():
            waiting = await asyncio.to_thread(self.engine.waiting)
            self.polls.append(Poll(time.monotonic(), waiting))
            await asyncio.sleep(POLL_S)

    def stop(self) -> None:
        self._stop.set()


def recorded_times(posts: list[Post], polls: list[Poll]) -> list[float]:
    """When each accepted post was recorded: the first poll at which fewer batches wait than
    were acknowledged after it (first in, first out)."""
    accepted = sorted(p.acked for p in posts if p.status == 202)
    out = [float("nan")] * len(accepted)
    k = 0  # the batches known recorded so far, in order of acknowledgement
    for poll in polls:
        acked = bisect_left(accepted, poll.at)  # acknowledged before this poll
        done = max(0, acked - poll.waiting)
        while k < done:
            out[k] = poll.at
            k += 1
    return out


# --- the phases ----------------------------------------------------------------------------


@dataclass
class Result:
    store: str
    command: str
    nodes: int
    steady_batches: int = 0
    steady_batches_per_s: float = 0.0
    steady_signals_per_s: float = 0.0
    steady_p50_s: float = 0.0
    steady_p99_s: float = 0.0
    burst_batches: int = 0
    burst_post_s: float = 0.0
    burst_batches_per_s: float = 0.0
    burst_signals_per_s: float = 0.0
    burst_max_waiting: int = 0
    drain_s: float = 0.0  # from the burst's last 202 to an empty inbox
    fault_post_to_read_s: float = 0.0
    fault_read_to_acted_s: float = 0.0
    fault_post_to_acted_s: float = 0.0
    backlog_batches: int = 0
    backlog_start_s: float = 0.0  # from starting the process to it leading
    backlog_drain_s: float = 0.0  # from the restarted engine leading to an empty inbox
    backlog_batches_per_s: float = 0.0
    backlog_fault_read_s: float = 0.0  # from that first pass to the fault behind it read
    backlog_fault_read_to_acted_s: float = 0.0
    oversized_refused: int = 0
    rss_before_mb: float = 0.0
    rss_peak_mb: float = 0.0
    misses: list[str] = field(default_factory=list)


def paced(nodes: int, interval_s: float, seconds: float) -> Iterator[tuple[float, bytes, int]]:
    """The steady heartbeat: (when, body, signals), every node once per interval, spread."""
    gap = interval_s / nodes
    total = int(seconds / gap)
    bodies = {}
    for i in range(total):
        node = f"node-{i % nodes:05d}"
        signals = 1 if i % 10 == 0 else 0
        key = (node, signals)
        if key not in bodies:
            bodies[key] = batch_body(node, signals)
        yield i * gap, bodies[key], signals


async def steady(client: Client, args: argparse.Namespace, posts: list[Post]) -> None:
    jobs: asyncio.Queue[tuple[bytes, int] | None] = asyncio.Queue()
    workers = [asyncio.create_task(client.worker(jobs, posts)) for _ in range(args.connections)]
    start = time.monotonic()
    for at, body, signals in paced(args.nodes, args.interval_s, args.steady_s):
        delay = start + at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        jobs.put_nowait((body, signals))
    for _ in workers:
        jobs.put_nowait(None)
    await asyncio.gather(*workers)


async def burst(client: Client, args: argparse.Namespace, posts: list[Post]) -> None:
    jobs: asyncio.Queue[tuple[bytes, int] | None] = asyncio.Queue()
    bodies = [batch_body(f"node-{i:05d}", args.burst_signals) for i in range(args.nodes)]
    for _ in range(args.burst_factor):
        for body in bodies:
            jobs.put_nowait((body, args.burst_signals))
    for _ in range(args.connections):
        jobs.put_nowait(None)
    await asyncio.gather(*(client.worker(jobs, posts) for _ in range(args.connections)))


def until(check: Callable[[], bool], timeout_s: float, what: str, every_s: float = 0.02) -> float:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return time.monotonic()
        time.sleep(every_s)
    raise RuntimeError(f"timed out waiting for {what}")


def parse_at(text: str) -> float:
    """A server time (same host, same clock) on the monotonic scale of this process."""
    return datetime.fromisoformat(text).timestamp() - time.time() + time.monotonic()


async def oversized(engine: Engine, connections: int, size_mb: int) -> int:
    """Post `connections` chunked bodies of `size_mb` at once; how many were refused."""
    chunk = b"x" * (1 << 20)

    async def one() -> bool:
        reader, writer = await asyncio.open_connection("127.0.0.1", engine.port)
        extra = "".join(f"{k}: {v}\r\n" for k, v in engine.headers().items())
        writer.write(
            f"POST /api/v1/signals HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\n{extra}\r\n".encode()
        )
        try:
            for _ in range(size_mb):
                writer.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                await writer.drain()
                if reader.at_eof() or reader._buffer:  # type: ignore[attr-defined]  # answered
                    break
            status = await asyncio.wait_for(read_response(reader), 30)
            return status == 413
        except (ConnectionError, asyncio.IncompleteReadError):
            return True  # closed on us mid-body: refused, not read
        finally:
            writer.close()

    return sum(await asyncio.gather(*(one() for _ in range(connections))))


def bench_one(store: str, store_url: str, args: argparse.Namespace, tmp: Path) -> Result:
    engine = Engine(store_url, args, tmp / f"engine-{store}.log")
    result = Result(store, engine.command, args.nodes)
    try:
        client = Client(engine.port, engine.headers())
        # 1. the steady heartbeat
        posts: list[Post] = []
        poller = Poller(engine)

        async def steady_phase() -> None:
            task = asyncio.create_task(poller.run())
            await steady(client, args, posts)
            await asyncio.to_thread(until, lambda: engine.waiting() == 0, 120, "steady drain")
            await asyncio.sleep(2 * POLL_S)
            poller.stop()
            await task

        asyncio.run(steady_phase())
        ok = [p for p in posts if p.status == 202]
        span = max(p.acked for p in ok) - min(p.sent for p in ok)
        recorded = recorded_times(posts, poller.polls)
        by_ack = sorted(ok, key=lambda p: p.acked)
        latencies = sorted(r - p.sent for r, p in zip(recorded, by_ack, strict=True))
        result.steady_batches = len(ok)
        result.steady_batches_per_s = len(ok) / span
        result.steady_signals_per_s = sum(p.signals for p in ok) / span
        result.steady_p50_s = statistics.median(latencies)
        result.steady_p99_s = latencies[int(0.99 * (len(latencies) - 1))]

        # 2. the burst, and 3. the fault right behind it
        posts = []
        poller = Poller(engine)
        fault_node = "node-00001"
        marks: dict[str, float] = {}

        async def burst_phase() -> None:
            task = asyncio.create_task(poller.run())
            await burst(client, args, posts)
            marks["burst_done"] = time.monotonic()
            reader, writer = await asyncio.open_connection("127.0.0.1", engine.port)
            marks["fault_sent"] = time.monotonic()
            writer.write(client.request(fault_body(fault_node)))
            await writer.drain()
            assert await read_response(reader) == 202
            writer.close()
            marks["drained"] = await asyncio.to_thread(
                until, lambda: engine.waiting() == 0, 600, "the burst to drain"
            )
            poller.stop()
            await task

        asyncio.run(burst_phase())
        ok = [p for p in posts if p.status == 202]
        span = marks["burst_done"] - min(p.sent for p in ok)
        result.burst_batches = len(ok)
        result.burst_post_s = span
        result.burst_batches_per_s = len(ok) / span
        result.burst_signals_per_s = sum(p.signals for p in ok) / span
        result.burst_max_waiting = max(p.waiting for p in poller.polls)
        last_nonempty = max((p.at for p in poller.polls if p.waiting > 0), default=0.0)
        empty = min((p.at for p in poller.polls if p.at > last_nonempty), default=marks["drained"])
        result.drain_s = max(0.0, empty - marks["burst_done"])

        def acted() -> bool:
            detail = engine.get(f"/api/v1/nodes/{fault_node}")
            return any(a["kind"] == "cordon" and a["status"] == "done" for a in detail["actions"])

        until(lambda: _known(engine, fault_node) and acted(), 120, "the fault to be acted on")
        detail = engine.get(f"/api/v1/nodes/{fault_node}")
        read = parse_at(detail["transitions"][0]["at"])
        cordon = next(a for a in detail["actions"] if a["kind"] == "cordon")
        done = parse_at(cordon["updated_at"])
        result.fault_post_to_read_s = read - marks["fault_sent"]
        result.fault_read_to_acted_s = done - read
        result.fault_post_to_acted_s = done - marks["fault_sent"]

        # 4. oversized bodies
        if args.oversized:
            result.rss_before_mb = engine.rss_mb()
            result.oversized_refused = asyncio.run(oversized(engine, args.oversized, 100))
            result.rss_peak_mb = engine.peak_rss_mb()
    finally:
        engine.stop()
    if result.drain_s >= DRAIN_TARGET_S:
        result.misses.append(f"burst drained in {result.drain_s:.2f} s (target < 10 s)")
    if result.fault_read_to_acted_s >= ACT_TARGET_S:
        result.misses.append(
            f"fault acted on {result.fault_read_to_acted_s:.2f} s after read (target < 2 s)"
        )
    if args.oversized and result.oversized_refused != args.oversized:
        result.misses.append(f"{args.oversized - result.oversized_refused} oversized not refused")
    if args.backlog:
        backlog(store, store_url, args, tmp, result)
    return result


def backlog(store: str, store_url: str, args: argparse.Namespace, tmp: Path, r: Result) -> None:
    """A backlog behind a fault, drained by a freshly started leader: the burst and the fault
    are posted to an engine whose intake pass does not come round again (`--intake-s 3600`),
    which then stops; a normal engine on the same store leads and drains them."""
    first = Engine(store_url, args, tmp / f"engine-{store}-backlog.log", intake_s=3600)
    fault_node = "node-00002"
    try:
        time.sleep(1.0)  # its first intake pass (at leading) is done: from now on, nothing
        client = Client(first.port, first.headers())
        posts: list[Post] = []

        async def fill() -> None:
            await burst(client, args, posts)
            reader, writer = await asyncio.open_connection("127.0.0.1", first.port)
            writer.write(client.request(fault_body(fault_node)))
            await writer.drain()
            assert await read_response(reader) == 202
            writer.close()

        asyncio.run(fill())
        r.backlog_batches = first.waiting()
    finally:
        first.stop()
    second = Engine(store_url, args, tmp / f"engine-{store}-drain.log")
    try:
        led = time.monotonic()  # leading (readyz) at most 20 ms ago: its first pass is on
        r.backlog_start_s = led - second.started
        # Polled every 0.1 s: each poll of /metrics counts the inbox, in the engine's process.
        drained = until(lambda: second.waiting() == 0, 600, "the backlog to drain", 0.1)
        until(lambda: _known(second, fault_node), 60, "the fault's record")
        detail = second.get(f"/api/v1/nodes/{fault_node}")
        read = parse_at(detail["transitions"][0]["at"])
        cordon = next(a for a in detail["actions"] if a["kind"] == "cordon")
        r.backlog_drain_s = drained - led
        r.backlog_batches_per_s = r.backlog_batches / r.backlog_drain_s
        r.backlog_fault_read_s = read - led
        r.backlog_fault_read_to_acted_s = parse_at(cordon["updated_at"]) - read
    finally:
        second.stop()
    if r.backlog_drain_s >= DRAIN_TARGET_S:
        r.misses.append(f"the backlog drained in {r.backlog_drain_s:.2f} s (target < 10 s)")
    if r.backlog_fault_read_to_acted_s >= ACT_TARGET_S:
        r.misses.append(
            f"fault behind the backlog acted on {r.backlog_fault_read_to_acted_s:.2f} s after "
            "read (target < 2 s)"
        )


def _known(engine: Engine, node: str) -> bool:
    try:
        engine.get(f"/api/v1/nodes/{node}")
    except OSError:
        return False
    return True


def report(r: Result) -> str:
    return "\n".join([
        f"== {r.store}: {r.nodes} nodes",
        f"  engine: {r.command}",
        f"  steady: {r.steady_batches} batches, {r.steady_batches_per_s:,.0f} batches/s, "
        f"{r.steady_signals_per_s:,.1f} signals/s accepted; post -> recorded "
        f"p50 {r.steady_p50_s:.3f} s, p99 {r.steady_p99_s:.3f} s",
        f"  burst:  {r.burst_batches} batches in {r.burst_post_s:.1f} s: "
        f"{r.burst_batches_per_s:,.0f} batches/s, {r.burst_signals_per_s:,.0f} signals/s "
        f"accepted; inbox peak {r.burst_max_waiting}; drained {r.drain_s:.2f} s after the "
        "last 202",
        f"  fault:  post -> read {r.fault_post_to_read_s:.3f} s, read -> acted on "
        f"{r.fault_read_to_acted_s:.3f} s, post -> acted on {r.fault_post_to_acted_s:.3f} s",
        f"  backlog: {r.backlog_batches} batches (a fault last) drained by a restarted leader "
        f"in {r.backlog_drain_s:.2f} s after it led ({r.backlog_batches_per_s:,.0f} batches/s; "
        f"{r.backlog_start_s:.2f} s from its start to leading); the fault read "
        f"{r.backlog_fault_read_s:.2f} s after it led, acted on "
        f"{r.backlog_fault_read_to_acted_s:.3f} s after read",
        f"  oversized: {r.oversized_refused} of the 100 MB bodies refused; RSS "
        f"{r.rss_before_mb:.0f} MB before, peak {r.rss_peak_mb:.0f} MB",
        "  targets: " + ("met" if not r.misses else "MISSED: " + "; ".join(r.misses)),
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--nodes", type=int, default=12_500)
    parser.add_argument("--interval-s", type=float, default=60.0, help="agents' heartbeat")
    parser.add_argument("--steady-s", type=float, default=30.0)
    parser.add_argument("--burst-factor", type=int, default=10)
    parser.add_argument("--burst-signals", type=int, default=4, help="signals per burst batch")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--intake-s", type=float, default=0.5, help="serve --intake-s")
    parser.add_argument("--max-waiting", type=int, default=200_000, help="serve --max-waiting")
    parser.add_argument("--oversized", type=int, default=8, help="concurrent 100 MB bodies")
    parser.add_argument(
        "--no-backlog", dest="backlog", action="store_false",
        help="skip the backlog phase (a restarted leader draining the burst)",
    )  # fmt: skip
    parser.add_argument("--token-file", type=Path, default=None, help="a bearer token's file")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-intake-") as tmp_s:
        tmp = Path(tmp_s)
        if args.store in ("sqlite", "both"):
            results.append(bench_one("sqlite", f"sqlite:///{tmp / 'engine.db'}", args, tmp))
            print(report(results[-1]), flush=True)
        if args.store in ("postgres", "both"):
            from autorecover.testing.postgres import start

            cluster = start()
            try:
                url = cluster.create_database("bench")
                results.append(bench_one("postgresql", url, args, tmp))
                print(report(results[-1]), flush=True)
            finally:
                cluster.stop()
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
    return 1 if any(r.misses for r in results) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
