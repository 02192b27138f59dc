"""The streaming scanner: right lines, right numbers, bounded, never crashing."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover.domain.catalog import Catalog
from autorecover.domain.records import Blame, Source
from autorecover.parsing.scanning import Scanner

REF = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
XID79 = "Mar  2 11:31:52 gpu-a03 kernel: NVRM: Xid (PCI:0000:ba:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
NOISE = "gpu-a01:62039:63139 [0] NCCL INFO comm 0x55d4c8a00000 rank 0 nranks 32 - Init COMPLETE"


def scan(scanner: Scanner, data: bytes, source: Source = Source.SYSTEM, chunk: int = 1 << 20):
    return scanner.scan(
        io.BytesIO(data), node="gpu-a03", source=source, reference=REF, chunk_bytes=chunk
    )


def test_xid_line_becomes_an_xid_finding(scanner: Scanner) -> None:
    data = "\n".join([NOISE] * 5 + [XID79] + [NOISE] * 3).encode() + b"\n"
    result = scan(scanner, data)
    xids = [f for f in result.findings if f.signal == "xid.79"]
    assert len(xids) == 1
    f = xids[0]
    assert f.line == 6
    assert f.blame is Blame.HARDWARE
    assert f.detail("pci") == "0000:ba:00"
    assert f.at == datetime(2026, 3, 2, 11, 31, 52, tzinfo=UTC)
    assert result.activity.lines == 9


@pytest.mark.parametrize("chunk", [16, 64, 100, 1 << 20])
def test_line_numbers_survive_chunk_boundaries(scanner: Scanner, chunk: int) -> None:
    lines = [NOISE if i % 7 else XID79 for i in range(60)]
    result = scan(scanner, ("\n".join(lines) + "\n").encode(), chunk=chunk)
    got = sorted(f.line for f in result.findings if f.signal == "xid.79")
    assert got == [i + 1 for i in range(60) if i % 7 == 0]


def test_line_without_time_takes_its_neighbours(scanner: Scanner) -> None:
    data = (
        b'{"telemetry":"autorecover/1","ts":"2026-03-04T05:17:20Z","rank":8,"event":"step","step":1}\n'
        b"gpu-a02:71174:72905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        b"10.20.0.13<40029> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n"
    )
    result = scan(scanner, data, Source.LOGS)
    (f,) = [f for f in result.findings if f.signal == "nccl.ib_completion_error"]
    assert f.at == datetime(2026, 3, 4, 5, 17, 20, tzinfo=UTC)
    assert f.detail("status") == "12"


def test_a_pdsh_line_without_time_takes_its_own_hosts_neighbours(scanner: Scanner) -> None:
    """A combined pdsh log interleaves hosts: gpu-a02's untimed ECC line takes gpu-a02's last
    time, not that of gpu-a01's line printed just before it."""
    data = (
        b"gpu-a02: [2026-03-02 10:40:00,100] [INFO] [engine.py:1:step] step=120\n"
        b"gpu-a01: [2026-03-02 11:55:00,000] [INFO] [engine.py:1:step] step=121\n"
        b"gpu-a02: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
    )
    result = scanner.scan(
        io.BytesIO(data), node="gpu-a01", source=Source.LOGS, reference=REF,
        hosts=("gpu-a01", "gpu-a02"),
    )  # fmt: skip
    (f,) = [f for f in result.findings if f.signal == "cuda.ecc_uncorrectable"]
    assert (f.detail("via"), f.at) == (
        "gpu-a02",
        datetime(2026, 3, 2, 10, 40, 0, 100000, tzinfo=UTC),
    )


def test_terminal_colours_do_not_hide_a_line(scanner: Scanner) -> None:
    # Ray and rich colour prefixes and words; the escape codes split what signatures read
    data = (
        b"\x1b[36m(RayTrainWorker pid=2231, ip=10.0.0.7)\x1b[0m [rank1]: RuntimeError: CUDA "
        b"error: uncorrectable \x1b[1mECC\x1b[0m error encountered\n"
    )
    result = scan(scanner, data, Source.LOGS)
    (f,) = [f for f in result.findings if f.signal == "cuda.ecc_uncorrectable"]
    assert (f.rank, f.detail("via")) == (1, "10.0.0.7")


def test_the_generic_exception_gives_way_to_a_specific_one(scanner: Scanner) -> None:
    line = "3: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
    signals = {f.signal for f in scan(scanner, line.encode(), Source.LOGS).findings}
    assert "cuda.ecc_uncorrectable" in signals
    assert "python.exception" not in signals


def test_exception_carries_its_innermost_frame(scanner: Scanner) -> None:
    data = (
        b"[rank2]: Traceback (most recent call last):\n"
        b'[rank2]:   File "/workspace/train.py", line 88, in <module>\n'
        b'[rank2]:   File "/workspace/data.py", line 12, in load\n'
        b"[rank2]: KeyError: 'input_ids'\n"
    )
    (f,) = [f for f in scan(scanner, data, Source.LOGS).findings if f.signal == "python.exception"]
    assert f.rank == 2
    assert f.detail("frame") == "/workspace/data.py:12 in load"


@pytest.mark.parametrize(
    ("sentence", "chained"),
    [
        ("During handling of the above exception, another exception occurred:", "context"),
        ("The above exception was the direct cause of the following exception:", "cause"),
    ],
)
def test_exception_says_it_was_raised_over_an_earlier_one(
    scanner: Scanner, sentence: str, chained: str
) -> None:
    """CPython prints the earlier exception's traceback, a sentence, then the later one's."""
    data = (
        "Traceback (most recent call last):\n"
        '  File "/venv/urllib3/connectionpool.py", line 703, in urlopen\n'
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', "
        "port=443): Max retries exceeded with url: /bert/resolve/main/config.json\n"
        "\n"
        f"{sentence}\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 10, in <module>\n'
        "RuntimeError: could not load the tokenizer for 'bert'\n"
        "ValueError: a second, unchained line\n"
    ).encode()
    found = scan(scanner, data, Source.LOGS).findings
    [wrapper] = [f for f in found if f.detail("type") == "RuntimeError"]
    assert (wrapper.detail("chained"), wrapper.detail("frame")) == (
        chained,
        "/workspace/train.py:10 in <module>",
    )
    [plain] = [f for f in found if f.detail("type") == "ValueError"]
    assert plain.detail("chained") is None


def test_an_exception_named_for_a_lost_connection_is_not_the_jobs_bug(scanner: Scanner) -> None:
    """The second generic tier: the class name says the failure came from elsewhere."""
    signals = [
        {f.signal for f in scan(scanner, line.encode(), Source.LOGS).findings}
        for line in (
            "httpx.ConnectError: All connection attempts failed\n",
            "tensorflow.python.framework.errors_impl.UnavailableError: Socket closed\n",
            "KeyError: 'input_ids'\n",
            "networkx.exception.NetworkXError: Graph has no nodes\n",  # the job's graph
            "RuntimeError: Socket Timeout\n",  # the type is RuntimeError: the message decides
        )
    ]
    assert signals[0] == signals[1] == {"python.exception_elsewhere"}
    assert signals[2] == signals[3] == {"python.exception"}
    assert "python.exception_elsewhere" not in signals[4]


def test_a_bare_exception_is_generic_too(scanner: Scanner) -> None:
    """`Exception: ...` (python.base_exception) gives way to a specific entry on its line, as
    `python.exception` does: vLLM's restatement of a worker's failure is not the job's bug."""
    restated = (
        "Exception: WorkerProc initialization failed due to an exception in a background "
        "process. See stack trace for root cause.\n"
    )
    signals = [
        {f.signal for f in scan(scanner, line.encode(), Source.LOGS).findings}
        for line in (restated, "Exception: the job's own message\n")
    ]
    assert signals == [{"vllm.engine_restatement"}, {"python.base_exception"}]


def test_signature_limited_to_its_sources(scanner: Scanner) -> None:
    # A job-output signature (CUDA OOM) is not looked for in kernel logs.
    line = b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB.\n"
    assert any(f.signal == "cuda.oom" for f in scan(scanner, line, Source.LOGS).findings)
    assert not any(f.signal == "cuda.oom" for f in scan(scanner, line, Source.SYSTEM).findings)


def test_disabled_xid_is_ignored(catalog: Catalog) -> None:
    off = catalog.merged({"xid": {"79": {"enabled": False}}}, "test")
    result = scan(Scanner(off), (XID79 + "\n").encode())
    assert not [f for f in result.findings if f.signal == "xid.79"]


def test_over_long_lines_stay_bounded(scanner: Scanner) -> None:
    data = b"x" * (3 << 20) + b" " + XID79.encode() + b"\n" + NOISE.encode() + b"\n"
    result = scan(scanner, data, chunk=1 << 16)
    assert result.activity.lines == 2
    assert all(len(f.text) <= 2000 for f in result.findings)


def test_progress_is_read_from_telemetry(scanner: Scanner) -> None:
    rows = [
        f'{{"telemetry":"autorecover/1","ts":"2026-03-08T02:{m:02d}:28Z","rank":0,"event":"step","step":{m * 40}}}'
        for m in range(10)
    ]
    result = scan(scanner, ("\n".join(rows) + "\n").encode(), Source.LOGS)
    assert result.activity.last_step == 360
    assert result.activity.last_progress_at == datetime(2026, 3, 8, 2, 9, 28, tzinfo=UTC)
    assert result.activity.median_step_interval_s == 60.0


def test_re_and_hyperscan_prefilters_agree(catalog: Catalog) -> None:
    pytest.importorskip("hyperscan")
    data = "\n".join([NOISE, XID79, "[rank1]: ValueError: bad", "Link DOWN", NOISE]).encode()
    fast = scan(Scanner(catalog, engine="hyperscan"), data, Source.LOGS)
    slow = scan(Scanner(catalog, engine="re"), data, Source.LOGS)
    assert fast == slow


def test_prefilters_agree_on_lines_with_other_than_ascii(catalog: Catalog) -> None:
    """A line with non-ASCII bytes is tried against its anchors' signatures and the caseless
    ones only (case folding is the one thing ASCII anchors can miss): `re` tries every one."""
    pytest.importorskip("hyperscan")
    lines = [
        "训练日志 " + XID79,
        "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered 错误",
        "gpu-a01:62039:63139 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.3<43210> "
        "with status=12 opcode=0 len=0 vendor err 129 (Recv) — 网络",
        "ℹ️ Ünïcödé only, nothing to read",
        NOISE,
    ]
    data = ("\n".join(lines) + "\n").encode()
    fast = scan(Scanner(catalog, engine="hyperscan"), data, Source.LOGS)
    slow = scan(Scanner(catalog, engine="re"), data, Source.LOGS)
    assert fast == slow
    assert {f.signal for f in fast.findings} >= {"xid.79", "cuda.illegal_memory_access"}


def test_prefilters_agree_on_chunks_dense_with_telemetry(catalog: Catalog) -> None:
    """After a chunk crowded with telemetry records Hyperscan runs its anchors-only pass,
    compiled on first use: it finds what `re` finds."""
    pytest.importorskip("hyperscan")
    step = '{"telemetry":"autorecover/1","ts":"2026-03-02T11:30:00Z","event":"step","step":7}'
    data = ("\n".join([step, XID79, step, "[rank1]: ValueError: bad", step] * 20) + "\n").encode()
    fast = scan(Scanner(catalog, engine="hyperscan"), data, Source.LOGS, chunk=600)
    slow = scan(Scanner(catalog, engine="re"), data, Source.LOGS, chunk=600)
    assert fast == slow
    assert len(fast.findings) >= 20 and fast.activity.progress_records == 60


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4000), st.sampled_from([7, 64, 4096]))
def test_never_crashes_on_arbitrary_bytes(scanner: Scanner, data: bytes, chunk: int) -> None:
    result = scan(scanner, data, Source.LOGS, chunk=chunk)
    assert result.activity.lines == data.count(b"\n") + (
        0 if not data or data.endswith(b"\n") else 1
    )
    for f in result.findings:
        assert 1 <= f.line <= result.activity.lines


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from([NOISE, XID79, "", "\x00\xff garbage"]), max_size=40),
    st.sampled_from([5, 50, 500]),
)
def test_findings_do_not_depend_on_chunking(scanner: Scanner, lines: list[str], chunk: int) -> None:
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    whole = scan(scanner, data, chunk=1 << 20)
    pieces = scan(scanner, data, chunk=chunk)
    assert [(f.signal, f.line) for f in whole.findings] == [
        (f.signal, f.line) for f in pieces.findings
    ]


def test_a_storm_of_identical_lines_stays_bounded(scanner: Scanner) -> None:
    data = ((XID79 + "\n") * 20_000).encode()
    result = scan(scanner, data, chunk=1 << 16)
    xids = [f for f in result.findings if f.signal == "xid.79"]
    assert len(xids) <= 33
    assert xids[0].line == 1 and xids[-1].line == 20_000  # the first ones and the latest
    assert dict(result.repeats)["xid.79"] + len(xids) == 20_000


def coll_trace(host: str, pid: int, op: str, opcount: int, count: int = 1024) -> str:
    return (
        f"{host}:{pid}:{pid} [0] NCCL INFO {op}: opCount {opcount:x} sendbuff 0x7f00 recvbuff "
        f"0x7f00 count {count} datatype 7 op 0 root 0 comm 0x55{pid} [nranks=4] stream 0x56"
    )


def test_a_trace_storm_keeps_each_processs_latest_line(scanner: Scanner) -> None:
    """Past the first lines of a signal, a line naming its emitter (NCCL's host:pid) keeps the
    latest of each emitter, so where every rank stood last survives a long trace."""
    pids = (101, 102, 103, 104)
    lines = [coll_trace("gpu-a03", pid, "AllReduce", n) for n in range(500) for pid in pids]
    lines.append(coll_trace("gpu-a03", 103, "AllGather", 500))
    result = scan(scanner, ("\n".join(lines) + "\n").encode(), Source.LOGS, chunk=1 << 14)
    traces = [f for f in result.findings if f.signal == "nccl.coll_trace"]
    last = {f.detail("emitter"): f.detail("opcount") for f in traces}
    assert last == {"gpu-a03:101": "1f3", "gpu-a03:102": "1f3", "gpu-a03:103": "1f4",
                    "gpu-a03:104": "1f3"}  # fmt: skip
    assert len(traces) == 32 + len(pids)
    assert dict(result.repeats)["nccl.coll_trace"] + len(traces) == len(lines)


def test_a_trace_storm_reads_the_same_through_either_prefilter(catalog: Catalog) -> None:
    """Hyperscan's pass sets trace lines past the first ones aside and makes their findings
    at the end; the `re` pass makes each at once: the same findings and counts either way."""
    pytest.importorskip("hyperscan")
    lines = [coll_trace("gpu-a03", pid, "AllReduce", n) for n in range(60) for pid in (1, 2, 3)]
    lines[-5:-5] = [XID79, "[rank1]: ValueError: bad"]
    data = ("\n".join(lines) + "\n").encode()
    fast = scan(Scanner(catalog, engine="hyperscan"), data, Source.LOGS, chunk=4096)
    slow = scan(Scanner(catalog, engine="re"), data, Source.LOGS, chunk=4096)
    assert fast == slow


def test_emitter_tails_are_bounded(scanner: Scanner) -> None:
    lines = [coll_trace("gpu-a03", pid, "AllReduce", 1) for pid in range(1000, 1400)]
    result = scan(scanner, ("\n".join(lines) + "\n").encode(), Source.LOGS)
    traces = [f for f in result.findings if f.signal == "nccl.coll_trace"]
    assert len(traces) == 32 + 64 + 1  # the first ones, 64 emitters' latest, one shared tail
    assert traces[-1].line == len(lines)


def test_nv_one_logger_metrics_updates_are_progress(scanner: Scanner) -> None:
    """An nv-one-logger `training_metrics_update` line (milliseconds since the epoch) dates the
    file's last progress, as NVIDIA's older `training_iterations` records do."""
    lines = [
        f'[type="event" | span_id="8c1f" | pid=9 | event.name="training_metrics_update"'
        f" | event.attributes.timestamp_msec={ms} | event.attributes.current_iteration={it}"
        f" | count={it}]"
        for it, ms in ((100, 1772445600000), (200, 1772445660000))
    ]
    activity = scan(scanner, ("\n".join(lines) + "\n").encode(), Source.LOGS).activity
    assert activity.progress_records == 2 and activity.last_step == 200
    assert activity.last_progress_at == datetime(2026, 3, 2, 10, 1, tzinfo=UTC)
    assert activity.median_step_interval_s == 60.0
