"""Docker's json-file records read as CRI records: the text unescaped, the time kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from autorecover.parsing.dockerjson import from_docker_json
from autorecover.parsing.lines import parse_line


def test_records_become_cri_lines_with_their_text_unescaped() -> None:
    # Go's encoder escapes <, > and & as \u003c, \u003e, \u0026
    text = (
        '{"log":"RuntimeError: NCCL error: remote process exited \\u003cpeer\\u003e \\"x\\"\\n",'
        '"stream":"stderr","time":"2021-03-02T11:41:58.123456789Z"}\n'
        '{"log":"a piece of a long line","stream":"stdout","time":"2021-03-02T11:41:59Z"}\n'
    )
    out = from_docker_json(text)
    assert out.split("\n") == [
        "2021-03-02T11:41:58.123456789Z stderr F RuntimeError: NCCL error: remote process "
        'exited <peer> "x"',
        "2021-03-02T11:41:59Z stdout P a piece of a long line",
        "",
    ]
    parsed = parse_line(out.split("\n")[0], datetime(2021, 3, 2, tzinfo=UTC))
    assert parsed.at == datetime(2021, 3, 2, 11, 41, 58, 123456, tzinfo=UTC) and parsed.zoned
    assert parsed.message.startswith("RuntimeError: NCCL error")


def test_a_file_of_other_lines_or_broken_records_is_left_alone() -> None:
    plain = 'step 1 {"log":"x"}\n'
    assert from_docker_json(plain) is plain
    mixed = (
        '{"log":"ok\\n","stream":"stdout","time":"2021-03-02T11:41:58Z"}\n{"log": broken\nplain\n'
    )
    assert from_docker_json(mixed).split("\n")[1:] == ['{"log": broken', "plain", ""]


@given(st.lists(st.text(max_size=40), max_size=8))
def test_the_line_count_stays(logs: list[str]) -> None:
    records = [
        json.dumps({"log": s, "stream": "stderr", "time": "2021-03-02T11:41:58Z"}) for s in logs
    ]
    text = "\n".join(['{"log":"x\\n","stream":"stdout","time":"2021-03-02T11:41:58Z"}', *records])
    assert from_docker_json(text).count("\n") == text.count("\n")
