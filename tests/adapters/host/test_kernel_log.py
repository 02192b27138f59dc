"""Kernel-log records and cursors: kmsg and journal parsers never crash, cursors round-trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.host.kernel_log import (
    FileCursor,
    JournalCursor,
    KmsgCursor,
    cursor_from_dict,
    parse_journal_record,
    parse_kmsg_record,
    split_kmsg_records,
)


def test_kmsg_record_fields() -> None:
    rec = parse_kmsg_record(
        b"3,1208,15250000,-;NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.\n"
        b" SUBSYSTEM=pci\n DEVICE=+pci:0000:5d:00.0\n"
    )
    assert rec is not None
    assert (rec.priority, rec.level, rec.seq, rec.usec, rec.flags) == (3, 3, 1208, 15250000, "-")
    assert rec.message == "NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus."


def test_kmsg_record_with_extra_prefix_fields_and_escapes() -> None:
    # Newer kernels append fields (caller id) before ';'; unprintable bytes come as \xNN.
    rec = parse_kmsg_record(b"6,339,5140900,-,caller=T1;tab\\x09here \\xc3\\xa9\n")
    assert rec is not None
    assert rec.message == "tab\there é"


@pytest.mark.parametrize(
    "raw",
    [b"", b"hello", b" SUBSYSTEM=pci", b"6,abc,1,-;x", b"6,1,2;no flags", b"999999,1,1,-;x"],
)
def test_not_a_kmsg_record(raw: bytes) -> None:
    assert parse_kmsg_record(raw) is None


def test_split_records_skips_continuation_lines() -> None:
    data = b"6,1,1,-;a\n SUBSYSTEM=pci\n6,2,2,-;b\n\n"
    assert split_kmsg_records(data) == [b"6,1,1,-;a", b"6,2,2,-;b"]


def test_journal_record() -> None:
    line = json.dumps(
        {
            "__CURSOR": "s=abc;i=1a;b=ff;m=3c;t=64;x=6f",
            "__REALTIME_TIMESTAMP": "1772441000000000",
            "_BOOT_ID": "ff",
            "MESSAGE": "NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.",
        }
    ).encode()
    rec = parse_journal_record(line)
    assert rec is not None
    assert rec.cursor == "s=abc;i=1a;b=ff;m=3c;t=64;x=6f"
    assert rec.at == datetime(2026, 3, 2, 8, 43, 20, tzinfo=UTC)
    assert rec.message.startswith("NVRM: Xid")


def test_journal_binary_message_is_a_list_of_bytes() -> None:
    line = json.dumps({"__CURSOR": "s=1;i=2", "MESSAGE": list(b"odd \xff name")}).encode()
    rec = parse_journal_record(line)
    assert rec is not None and rec.message == "odd \ufffd name"


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b"[1, 2]",
        b'{"MESSAGE": "no cursor"}',
        b'{"__CURSOR": "bad cursor; rm -rf /", "MESSAGE": "x"}',
        b'{"__CURSOR": "s=1", "__REALTIME_TIMESTAMP": "99999999999999999999"}',
    ],
)
def test_journal_rejects_or_survives_junk(line: bytes) -> None:
    rec = parse_journal_record(line)
    assert rec is None or rec.at is None


@pytest.mark.parametrize(
    "cursor",
    [KmsgCursor("6f1c", 1208), JournalCursor("s=abc;i=1a"), FileCursor("/var/log/kern.log", 42, 7)],
)
def test_cursors_round_trip(cursor: KmsgCursor | JournalCursor | FileCursor) -> None:
    assert cursor_from_dict(json.loads(json.dumps(cursor.as_dict()))) == cursor


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"kind": "kmsg", "boot_id": 3, "seq": 1},
        {"kind": "journal", "cursor": "a b"},
        {"kind": "file", "path": "/x"},
        {"kind": "other"},
    ],
)
def test_malformed_cursor_means_start_afresh(data: dict[str, object]) -> None:
    assert cursor_from_dict(data) is None


@given(st.binary(max_size=600))
def test_kmsg_parser_never_crashes(raw: bytes) -> None:
    rec = parse_kmsg_record(raw)
    assert rec is None or (rec.seq >= 0 and isinstance(rec.message, str))


@given(st.binary(max_size=600))
def test_kmsg_splitter_never_crashes(raw: bytes) -> None:
    for record in split_kmsg_records(raw):
        parse_kmsg_record(record)


@given(
    st.builds(
        lambda prio, seq, usec, msg: f"{prio},{seq},{usec},-;".encode() + msg,
        st.integers(0, 191),
        st.integers(0, 2**63),
        st.integers(0, 2**63),
        st.binary(max_size=200),
    )
)
def test_every_well_formed_record_parses(raw: bytes) -> None:
    assert parse_kmsg_record(raw) is not None


@given(st.binary(max_size=600))
def test_journal_parser_never_crashes_on_bytes(raw: bytes) -> None:
    parse_journal_record(raw)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)


@given(
    st.dictionaries(
        st.sampled_from(["__CURSOR", "MESSAGE", "__REALTIME_TIMESTAMP", "_BOOT_ID", "x"]),
        json_values,
    )
)
def test_journal_parser_never_crashes_on_json(obj: dict[str, object]) -> None:
    parse_journal_record(json.dumps(obj).encode())


@given(
    st.dictionaries(
        st.sampled_from(["kind", "boot_id", "seq", "cursor", "path", "inode", "offset"]),
        json_values,
    )
)
def test_cursor_from_dict_never_crashes(obj: dict[str, object]) -> None:
    cursor_from_dict(obj)
