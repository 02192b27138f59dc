"""Following kernel logs: kmsg, journal and file sources, cursors across restarts."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autorecover.adapters.host.kernel_follow import FileSource, KmsgSource, boot_time
from autorecover.adapters.host.kernel_journal import JournalSource
from autorecover.adapters.host.kernel_log import (
    FileCursor,
    JournalCursor,
    KernelLogError,
    KmsgCursor,
)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "agent"
FAKE_JOURNALCTL = (sys.executable, str(FIXTURES / "kernel" / "fake_journalctl.py"))


def record(seq: int, msg: str, prio: int = 6) -> str:
    return f"{prio},{seq},{seq * 1000},-;{msg}\n"


def kmsg_tree(tmp_path: Path, records: str, boot: str = "boot-a") -> tuple[Path, Path]:
    dev, proc = tmp_path / "dev", tmp_path / "proc"
    dev.mkdir(exist_ok=True)
    (proc / "sys/kernel/random").mkdir(parents=True, exist_ok=True)
    (proc / "sys/kernel/random/boot_id").write_text(boot + "\n")
    (proc / "stat").write_text("cpu 1\nbtime 1772438400\n")
    (dev / "kmsg").write_text(records)
    return dev / "kmsg", proc


def texts(lines: list) -> list[str]:  # type: ignore[type-arg]
    return [line.text for line in lines]


class TestKmsg:
    def test_reads_records_dated_from_boot_time(self, tmp_path: Path) -> None:
        path, proc = kmsg_tree(tmp_path, record(1, "a") + " SUBSYSTEM=pci\n" + record(2, "b"))
        src = KmsgSource(path, proc)
        lines = src.read()
        assert texts(lines) == ["a", "b"]
        assert (
            lines[0].at is not None
            and lines[0].at.isoformat() == "2026-03-02T08:00:00.001000+00:00"
        )
        assert src.cursor() == KmsgCursor("boot-a", 2)

    def test_no_replay_and_no_miss_across_a_restart(self, tmp_path: Path) -> None:
        path, proc = kmsg_tree(tmp_path, record(1, "a") + record(2, "b"))
        first = KmsgSource(path, proc)
        assert texts(first.read()) == ["a", "b"]
        saved = first.cursor()
        first.close()
        with path.open("a") as fh:  # the kernel logs while the agent is down
            fh.write(record(3, "c") + record(4, "d"))
        second = KmsgSource(path, proc)
        second.seek(saved)
        assert texts(second.read()) == ["c", "d"]
        assert texts(second.read()) == []

    def test_new_boot_starts_from_the_beginning(self, tmp_path: Path) -> None:
        path, proc = kmsg_tree(tmp_path, record(1, "after reboot"), boot="boot-b")
        src = KmsgSource(path, proc)
        src.seek(KmsgCursor("boot-a", 9000))  # sequence numbers restart at boot
        assert texts(src.read()) == ["after reboot"]

    def test_overwritten_records_are_counted(self, tmp_path: Path) -> None:
        path, proc = kmsg_tree(tmp_path, record(10, "x") + record(15, "y"))
        src = KmsgSource(path, proc)
        src.seek(KmsgCursor("boot-a", 7))
        assert texts(src.read()) == ["x", "y"]
        assert src.lost == 2 + 4

    def test_missing_device_is_unavailable(self, tmp_path: Path) -> None:
        with pytest.raises(KernelLogError) as err:
            KmsgSource(tmp_path / "nope", tmp_path).read()
        assert err.value.available is False

    def test_boot_time(self, tmp_path: Path) -> None:
        _, proc = kmsg_tree(tmp_path, "")
        at = boot_time(proc / "stat")
        assert at is not None and at.isoformat() == "2026-03-02T08:00:00+00:00"
        assert boot_time(tmp_path / "missing") is None


@pytest.fixture
def closing() -> Iterator[list[FileSource]]:
    """Sources opened by a test, closed after it (open files would fail the test run)."""
    opened: list[FileSource] = []
    yield opened
    for src in opened:
        src.close()


def follow(log: Path, opened: list[FileSource]) -> FileSource:
    src = FileSource(log)
    opened.append(src)
    return src


class TestFile:
    def test_tail_holds_back_an_unfinished_line(
        self, tmp_path: Path, closing: list[FileSource]
    ) -> None:
        log = tmp_path / "kern.log"
        log.write_text("one\ntw")
        src = follow(log, closing)
        assert texts(src.read()) == ["one"]
        with log.open("a") as fh:
            fh.write("o\nthree\n")
        assert texts(src.read()) == ["two", "three"]

    def test_restart_resumes_at_the_cursor(self, tmp_path: Path, closing: list[FileSource]) -> None:
        log = tmp_path / "kern.log"
        log.write_text("a\nb\npartial")
        first = follow(log, closing)
        assert texts(first.read()) == ["a", "b"]
        cursor = first.cursor()
        assert isinstance(cursor, FileCursor) and cursor.offset == 4
        first.close()
        with log.open("a") as fh:
            fh.write(" line\nc\n")
        second = follow(log, closing)
        second.seek(cursor)
        assert texts(second.read()) == ["partial line", "c"]

    def test_rotation_finishes_the_old_file_first(
        self, tmp_path: Path, closing: list[FileSource]
    ) -> None:
        log = tmp_path / "kern.log"
        log.write_text("a\n")
        src = follow(log, closing)
        assert texts(src.read()) == ["a"]
        with log.open("a") as fh:
            fh.write("b\nlast words")  # logged just before logrotate moved the file
        log.rename(tmp_path / "kern.log.1")
        log.write_text("c\n")
        assert texts(src.read()) == ["b", "last words", "c"]

    def test_restart_across_a_rotation_reads_the_rest_of_the_old_file(
        self, tmp_path: Path, closing: list[FileSource]
    ) -> None:
        log = tmp_path / "kern.log"
        log.write_text("a\n")
        first = follow(log, closing)
        first.read()
        cursor = first.cursor()
        first.close()
        with log.open("a") as fh:
            fh.write("b\n")
        log.rename(tmp_path / "kern.log.1")
        log.write_text("c\n")
        second = follow(log, closing)
        second.seek(cursor)
        assert texts(second.read()) == ["b", "c"]

    def test_truncation_reads_again_from_the_start(
        self, tmp_path: Path, closing: list[FileSource]
    ) -> None:
        log = tmp_path / "kern.log"
        log.write_text("a long first line\n")
        src = follow(log, closing)
        src.read()
        with log.open("r+") as fh:  # copytruncate
            fh.truncate(0)
        with log.open("a") as fh:
            fh.write("new\n")
        assert texts(src.read()) == ["new"]

    def test_a_cursor_for_another_file_is_ignored(
        self, tmp_path: Path, closing: list[FileSource]
    ) -> None:
        log = tmp_path / "kern.log"
        log.write_text("a\n")
        src = follow(log, closing)
        src.seek(FileCursor("/var/log/other.log", log.stat().st_ino, 2))
        assert texts(src.read()) == ["a"]

    def test_missing_file_is_unavailable(self, tmp_path: Path, closing: list[FileSource]) -> None:
        with pytest.raises(KernelLogError) as err:
            follow(tmp_path / "none.log", closing).read()
        assert err.value.available is False


class TestJournal:
    def test_arguments_are_a_list_with_the_cursor_as_one_element(self) -> None:
        src = JournalSource(("journalctl",), follow=True)
        assert src.args() == ["journalctl", "-o", "json", "--no-pager", "-k", "--follow"]
        src.seek(JournalCursor("s=1;i=2"))
        assert src.args()[4:] == ["--after-cursor", "s=1;i=2", "_TRANSPORT=kernel", "--follow"]

    def test_reads_entries_and_resumes_after_the_cursor(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        journal = tmp_path / "journal.jsonl"
        shutil.copy(FIXTURES / "kernel" / "journal.jsonl", journal)
        monkeypatch.setenv("FAKE_JOURNAL", str(journal))
        first = JournalSource(FAKE_JOURNALCTL)
        lines = first.read()
        assert len(lines) == 4 and lines[1].text.startswith("NVRM: Xid")
        assert lines[1].at is not None and lines[1].at.year == 2026
        assert lines[3].text == "usb 1-1: odd name \ufffd\ufffd"
        saved = first.cursor()
        entry = json.loads(journal.read_text().splitlines()[1])
        entry["__CURSOR"] = "s=new;i=99"
        entry["MESSAGE"] = "later line"
        with journal.open("a") as fh:
            fh.write(json.dumps(entry) + "\n")
        second = JournalSource(FAKE_JOURNALCTL)
        second.seek(saved)
        assert texts(second.read()) == ["later line"]

    def test_follow_restarts_journalctl_after_its_cursor(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        args_log = tmp_path / "args"
        monkeypatch.setenv("FAKE_JOURNAL_ARGS", str(args_log))
        src = JournalSource(FAKE_JOURNALCTL, follow=True)
        lines: list = []  # type: ignore[type-arg]
        for _ in range(200):  # the child writes asynchronously: wait on its pipe, not a clock
            lines += src.read(wait_s=0.05)
            if len(lines) >= 4 and src._proc is None:
                break
        assert len(lines) == 4
        src.read(wait_s=0.05)  # starts it again, after the cursor: nothing new, nothing replayed
        for _ in range(
            500
        ):  # the second child records its arguments once it runs (under load: later)
            if len(args_log.read_text().splitlines()) >= 2:
                break
            src.read(wait_s=0.01)
        src.close()
        calls = [json.loads(x) for x in args_log.read_text().splitlines()]
        assert "-k" in calls[0] and "--after-cursor" in calls[-1]

    def test_missing_journalctl_is_unavailable(self) -> None:
        with pytest.raises(KernelLogError) as err:
            JournalSource(("/nonexistent/journalctl",)).read()
        assert err.value.available is False


@pytest.mark.skipif(not os.access("/dev/kmsg", os.R_OK), reason="/dev/kmsg is not readable here")
def test_the_real_dev_kmsg_character_device() -> None:
    """One record per read, non-blocking: the path a node takes (fixtures are files)."""
    src = KmsgSource()
    try:
        first = src.read()
        cursor = src.cursor()
        assert first and isinstance(cursor, KmsgCursor) and cursor.seq >= 0
        again = src.read()
        assert all(line.text for line in again)  # only records logged since, if any
        assert src.cursor() is not None and src.cursor().seq >= cursor.seq  # type: ignore[union-attr]
    finally:
        src.close()
