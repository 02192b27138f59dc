"""A Python exception read with its traceback's innermost frame (parsing/tracebacks.py)."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from autorecover.domain.records import Blame, Finding, Source
from autorecover.parsing.scanning import PARENT_PIPE_CUT, Scanner
from autorecover.parsing.tracebacks import Traceback, parent_pipe_cut

REF = datetime(2020, 5, 6, 18, 0, tzinfo=UTC)
SPAWN_MAIN = (
    "Traceback (most recent call last):\n"
    '  File "<string>", line 1, in <module>\n'
    '  File "/usr/lib/python3.6/multiprocessing/spawn.py", line 105, in spawn_main\n'
    "    exitcode = _main(fd)\n"
    '  File "/usr/lib/python3.6/multiprocessing/spawn.py", line 115, in _main\n'
    "    self = reduction.pickle.load(from_parent)\n"
)
TORCH_LOAD = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    '    state = torch.load("ckpt/last.pth")\n'
    '  File "/opt/conda/lib/python3.10/site-packages/torch/serialization.py", line 1040, in load\n'
    "    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)\n"
    '  File "/opt/conda/lib/python3.10/site-packages/torch/serialization.py", line 1258, in _legacy_load\n'
    "    magic_number = pickle_module.load(f, **pickle_load_args)\n"
)


def _findings(scanner: Scanner, text: str) -> list[Finding]:
    data = text.encode()
    return list(
        scanner.scan(
            io.BytesIO(data), node="gpu-v100-07", source=Source.LOGS, reference=REF
        ).findings
    )


@pytest.mark.parametrize(
    "last", ["EOFError: Ran out of input", "_pickle.UnpicklingError: pickle data was truncated"]
)
def test_a_spawned_process_finding_its_parents_pipe_cut_is_a_symptom(
    scanner: Scanner, last: str
) -> None:
    # facebookresearch/moco issue #25: the parent aborted ("what(): Transport endpoint is not
    # connected") while its spawned children were still reading what to run
    (f,) = _findings(scanner, SPAWN_MAIN + last + "\n")
    assert (f.signal, f.blame) == (PARENT_PIPE_CUT, Blame.SYMPTOM)
    assert f.detail("frame") == "/usr/lib/python3.6/multiprocessing/spawn.py:115 in _main"


def test_torch_load_of_an_empty_file_stays_the_jobs(scanner: Scanner) -> None:
    (f,) = _findings(scanner, TORCH_LOAD + "EOFError: Ran out of input\n")
    assert (f.signal, f.blame) == ("torchload.empty_pickle", Blame.APPLICATION)


def test_a_class_the_spawned_process_cannot_find_stays_the_jobs(scanner: Scanner) -> None:
    # the same frame, but the pipe was whole: the job's class is not importable in the child
    last = "AttributeError: Can't get attribute 'Net' on <module '__main__' (built-in)>\n"
    signals = {(f.signal, f.blame) for f in _findings(scanner, SPAWN_MAIN + last)}
    assert PARENT_PIPE_CUT not in {s for s, _ in signals}
    assert any(b is Blame.APPLICATION for _, b in signals)


def test_an_end_of_input_without_a_traceback_is_not_read_as_the_parents() -> None:
    eof = "EOFError: Ran out of input"
    assert not parent_pipe_cut(eof, Traceback())
    assert parent_pipe_cut(
        eof, Traceback(frame="C:\\Python39\\lib\\multiprocessing\\spawn.py:126 in _main")
    )
    # a pasted snippet that kept only the frame's source line
    assert parent_pipe_cut(eof, Traceback(source="self = reduction.pickle.load(from_parent)"))
    assert not parent_pipe_cut(eof, Traceback(source="state = pickle.load(f)"))


def test_a_snippet_without_the_frame_line_is_read_by_its_source_line(scanner: Scanner) -> None:
    snippet = "    self = reduction.pickle.load(from_parent)\nEOFError: Ran out of input\n"
    (f,) = _findings(scanner, snippet)
    assert (f.signal, f.blame) == (PARENT_PIPE_CUT, Blame.SYMPTOM)


def test_python_311_carets_under_the_source_line_are_skipped(scanner: Scanner) -> None:
    snippet = (
        "    self = reduction.pickle.load(from_parent)\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "EOFError: Ran out of input\n"
    )
    (f,) = _findings(scanner, snippet)
    assert f.signal == PARENT_PIPE_CUT


@pytest.mark.parametrize(
    ("exception", "rest", "signal"),
    [
        # gloo puts its source location before its text: broken after it, by a width or a paste
        (
            "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534]",
            ["Connection closed by peer [10.30.0.13]:10895"],
            "gloo.peer_closed",
        ),
        (
            "[rank0]: RuntimeError:",
            [
                "[/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81]",
                "Timed out waiting 1800000ms for recv operation to complete",
            ],
            "gloo.io_timeout",
        ),
        # c10d's "NCCL error in: <file>:<line>," before NCCL's text
        (
            "RuntimeError: NCCL error in: /torch/lib/c10d/ProcessGroupNCCL.cpp:260,",
            ["unhandled system error"],
            "nccl.unhandled_system_error",
        ),
    ],
)
def test_an_unfinished_exception_message_goes_on_below(
    scanner: Scanner, exception: str, rest: list[str], signal: str
) -> None:
    found = _findings(scanner, "\n".join([exception, *rest, "done"]) + "\n")
    assert signal in {f.signal for f in found}
    assert not any(f.signal.startswith("python.") for f in found)


@pytest.mark.parametrize(
    "after",
    [
        # another program's line, or one with a time of its own, is not the message's rest
        "srun: error: gpu-v100-07: task 0: Exited with exit code 1",
        "2020-05-06T18:03:00Z ERROR:torch.distributed.elastic.multiprocessing.api:failed "
        "(exitcode: 1) local_rank: 0 (pid: 7796) of binary: /usr/bin/python",
        "",
    ],
)
def test_an_unfinished_message_followed_by_a_line_of_its_own_stays_the_jobs(
    scanner: Scanner, after: str
) -> None:
    text = "2020-05-06T18:02:59Z FileNotFoundError: [Errno 2] No such file or directory:\n"
    found = _findings(scanner, text + after + "\n")
    assert "python.exception" in {f.signal for f in found}


def test_a_whole_exception_message_is_not_read_on(scanner: Scanner) -> None:
    text = "ValueError: batch size must be positive\nConnection closed by peer [10.0.0.2]:1\n"
    assert "python.exception" in {f.signal for f in _findings(scanner, text)}
