"""What the agent keeps of a container's output: a finding with its context (across reads),
progress sampled per rank, every other telemetry record, the last line; nothing else."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from autorecover.agent.logs.excerpts import ContainerExcerpts, ExcerptSettings, marks
from autorecover.domain.catalog import builtin_catalog
from autorecover.parsing.scanning import Scanner

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
XID = "[   12.345678] NVRM: Xid (PCI:0000:5d:00): 79, pid=1234, GPU has fallen off the bus."
SCANNER = Scanner(builtin_catalog())


def noise(n: int, tag: str = "n") -> list[str]:
    return [f"[rank0]: {tag} {i} loss 2.{i % 100:02d}" for i in range(n)]


def lines(*parts: list[str]) -> bytes:
    return "".join(f"{t}\n" for p in parts for t in p).encode()


def step(rank: int, n: int) -> str:
    return f'{{"telemetry":"autorecover/1","rank":{rank},"event":"step","step":{n}}}'


def excerpts(context: int = 3) -> ContainerExcerpts:
    return ContainerExcerpts("n1", SCANNER, ExcerptSettings(context=context))


def test_a_finding_keeps_its_context_and_nothing_else_but_the_last_line() -> None:
    ex = excerpts().take(lines(noise(50, "a"), [XID], noise(50, "b")), NOW)
    kept = ex.text.decode().splitlines()
    assert kept == [*noise(50, "a")[-3:], XID, *noise(50, "b")[:3], noise(50, "b")[-1]]
    assert (ex.lines, ex.kept, ex.findings) == (101, 8, 1)


def test_context_runs_across_reads() -> None:
    e = excerpts()
    first = e.take(lines(noise(10, "a")), NOW)
    assert first.text.decode().splitlines() == [noise(10, "a")[-1]]  # only the last line
    second = e.take(lines([XID], noise(10, "b")), NOW)
    # Before: the first read's lines before its last (that one was shipped already).
    assert second.text.decode().splitlines() == [*noise(10, "a")[-3:-1], XID,
                                                 *noise(10, "b")[:3], noise(10, "b")[-1]]  # fmt: skip
    e2 = excerpts()
    e2.take(lines(noise(10, "a"), [XID], noise(1, "b")), NOW)
    third = e2.take(lines(noise(10, "c")), NOW)
    assert third.text.decode().splitlines() == [*noise(10, "c")[:2], noise(10, "c")[-1]]


def test_progress_is_sampled_per_rank_and_other_records_are_all_kept() -> None:
    e = excerpts()
    hang = '{"telemetry":"autorecover/1","rank":1,"event":"hang","waited_s":300}'
    out = e.take(lines([step(0, 1), step(1, 1), step(0, 2), hang, step(1, 2)], noise(1)), NOW)
    # Each rank's latest progress in the read, and every other record.
    assert out.text.decode().splitlines() == [step(0, 2), hang, step(1, 2), noise(1)[0]]
    soon = e.take(lines([step(0, 3), hang], noise(1)), NOW + timedelta(seconds=1))
    assert soon.text.decode().splitlines() == [hang, noise(1)[0]]
    later = e.take(lines([step(0, 4)], noise(1)), NOW + timedelta(seconds=5))
    assert step(0, 4) in later.text.decode()


def test_an_excerpt_is_bounded() -> None:
    e = ContainerExcerpts("n1", SCANNER, ExcerptSettings(context=3, max_lines=2,
                                                         max_line_bytes=40))  # fmt: skip
    long_xid = XID + " " + "x" * 200
    ex = e.take(lines(noise(5), [long_xid], noise(5)), NOW)
    assert ex.kept == 2 and ex.dropped == 6
    assert all(len(line) <= 40 for line in ex.text.splitlines(keepends=True))


def test_marks_scans_from_several_threads_at_once() -> None:
    """A Hyperscan database scans on one thread at a time: each thread gets its own."""
    data = b"".join(
        b'{"telemetry": "autorecover/1", "event": "step"}\nplain output line\n' for _ in range(2000)
    )
    expected = marks(data)
    errors: list[BaseException] = []

    def scan() -> None:
        try:
            for _ in range(200):
                assert marks(data) == expected
        except BaseException as exc:  # reported below, from the main thread
            errors.append(exc)

    threads = [threading.Thread(target=scan) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
