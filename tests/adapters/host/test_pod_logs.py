"""The kubelet's CRI log files read back: prefixes, partial lines, rotation, truncation."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.host.pod_logs import ContainerLog, CriDecoder, container_folder

UID = "0b6f3c7e-1d2a-4c5b-9e8f-112233445566"


def rec(text: str, tag: str = "F", stream: str = "stdout") -> bytes:
    return f"2026-03-02T09:58:00.123456789Z {stream} {tag} {text}\n".encode()


def test_whole_records_lose_their_prefix() -> None:
    d = CriDecoder()
    assert d.feed(rec("one") + rec("two", stream="stderr")) == b"one\ntwo\n"


def test_partial_records_are_joined_with_the_next() -> None:
    d = CriDecoder()
    assert d.feed(rec("a long ", "P") + rec("line", "P") + rec(" ends")) == b"a long line ends\n"


def test_a_record_cut_by_a_read_waits_for_its_end() -> None:
    d = CriDecoder()
    data = rec("first") + rec("second")
    cut = len(rec("first")) + 12
    assert d.feed(data[:cut]) == b"first\n"
    assert d.feed(data[cut:]) == b"second\n"


def test_a_line_that_is_not_a_record_is_passed_on_and_counted() -> None:
    d = CriDecoder()
    assert d.feed(rec("ok") + b"garbage\n") == b"ok\ngarbage\n"
    assert d.malformed == 1


def folder(tmp_path: Path) -> Path:
    f = container_folder(tmp_path, "team-a", "job-worker-0", UID, "pytorch")
    f.mkdir(parents=True)
    return f


def test_names_that_could_leave_the_root_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="pod"):
        container_folder(tmp_path, "team-a", "../etc", UID, "pytorch")
    with pytest.raises(ValueError, match="uid"):
        container_folder(tmp_path, "team-a", "p", "x/..", "pytorch")


def test_rotation_finishes_the_renamed_file_then_reads_the_new_one(tmp_path: Path) -> None:
    f = folder(tmp_path)
    (f / "0.log").write_bytes(rec("one"))
    log = ContainerLog(f)
    assert log.output() == b"one\n"
    with (f / "0.log").open("ab") as out:
        out.write(rec("two"))
    (f / "0.log").rename(f / "0.log.20260302-095900")
    (f / "0.log").write_bytes(rec("three"))
    assert log.output() == b"two\n"  # the rest of the renamed file first
    assert log.output() == b"three\n"
    assert log.output() == b""
    assert log.rotations == 1
    # The kubelet gzips the rotated file: it is never opened again.
    old = f / "0.log.20260302-095900"
    (f / "0.log.20260302-095900.gz").write_bytes(gzip.compress(old.read_bytes()))
    old.unlink()
    with (f / "0.log").open("ab") as out:
        out.write(rec("four"))
    assert log.output() == b"four\n"
    log.close()


def test_a_truncated_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    f = folder(tmp_path)
    (f / "0.log").write_bytes(rec("one") + rec("two"))
    log = ContainerLog(f)
    assert log.output() == b"one\ntwo\n"
    with (f / "0.log").open("r+b") as out:
        out.truncate(0)
        out.write(rec("new"))
    assert log.output() == b"new\n"
    assert log.truncations == 1
    log.close()


def test_a_restarted_container_is_followed_into_its_next_file(tmp_path: Path) -> None:
    f = folder(tmp_path)
    (f / "0.log").write_bytes(rec("attempt zero"))
    log = ContainerLog(f)
    assert log.output() == b"attempt zero\n"
    (f / "1.log").write_bytes(rec("attempt one"))
    assert log.output() == b"attempt one\n"
    log.close()


def test_reads_are_bounded_and_resume_where_they_stopped(tmp_path: Path) -> None:
    f = folder(tmp_path)
    (f / "0.log").write_bytes(b"".join(rec(f"line {i}") for i in range(1000)))
    log = ContainerLog(f)
    got = b""
    while chunk := log.read(4096):
        assert len(chunk) <= 4096
        got += log.decoder.feed(chunk)
    assert got.count(b"\n") == 1000
    again = ContainerLog(f, start=log.position)  # an agent restarted, the engine's position
    with (f / "0.log").open("ab") as out:
        out.write(rec("after"))
    assert again.output() == b"after\n"
    log.close()
    again.close()


def test_a_missing_folder_reads_nothing(tmp_path: Path) -> None:
    assert ContainerLog(tmp_path / "nope").output() == b""


@given(st.lists(st.tuples(st.sampled_from(["F", "P"]), st.binary(max_size=40)), max_size=30),
       st.integers(1, 64))  # fmt: skip
def test_any_records_in_any_cuts_decode_as_in_one_read(
    records: list[tuple[str, bytes]], cut: int
) -> None:
    """Records split anywhere between reads give the same output as read whole; no text with a
    newline in it is a record, so newlines are taken out of the generated text."""
    data = b"".join(
        b"2026-03-02T09:58:00.1Z stdout " + tag.encode() + b" " + text.replace(b"\n", b" ") + b"\n"
        for tag, text in records
    )
    whole = CriDecoder().feed(data)
    d = CriDecoder()
    pieces = b"".join(d.feed(data[i : i + cut]) for i in range(0, len(data), cut))
    assert pieces == whole
    assert len(whole) <= len(data)


@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_break_the_decoder(data: bytes) -> None:
    d = CriDecoder()
    out = d.feed(data) + d.feed(b"\n")
    assert len(out) <= len(data) + 1
