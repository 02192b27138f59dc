"""Messages cut at a terminal's width: joined where the join reads, left alone elsewhere."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from autorecover.domain.catalog import builtin_catalog
from autorecover.parsing.scanning import Scanner
from autorecover.parsing.unwrapping import MIN_WIDTH, rejoin

SCANNER = Scanner(builtin_catalog())  # hypothesis tests take no function-scoped fixtures
READ = SCANNER.readings

IB = (
    "gpu-a02:71174:72905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
    "10.20.0.13<40029> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
    "::ffff:10.20.0.12 remoteGids::ffff:10.20.0.13"
)
STORE = (
    "torch.distributed.DistStoreError: TCP client failed to connect/validate to host "
    "10.0.1.22:9901 - timed out (try=0, timeout=600000ms): The client socket has timed out "
    "after 600s while trying to connect to (10.0.1.22, 9901)."
)
BEFORE = "gpu-a02:71174:71174 [0] NCCL INFO Bootstrap : Using ib0:10.20.0.12<0>"
AFTER = "[rank4]: Traceback (most recent call last):"


def fold(line: str, width: int) -> list[str]:
    return [line[k : k + width] for k in range(0, len(line), width)]


def signals(text: str) -> set[str]:
    return {r.key for r in READ(text) if not r.generic}


def test_a_cut_nccl_warning_is_read_whole_on_its_first_line() -> None:
    pieces = fold(IB, 80)
    text = "\n".join([BEFORE, *pieces, AFTER])
    assert not any(signals(p) for p in pieces)  # cut, no piece reads as anything
    lines = rejoin(text, READ).split("\n")
    assert len(lines) == len(pieces) + 2  # every later line keeps its number
    assert lines[1] == IB and lines[2:-1] == [""] * (len(pieces) - 1)
    assert "nccl.ib_completion_error" in signals(lines[1])
    assert (lines[0], lines[-1]) == (BEFORE, AFTER)


def test_a_warning_wrapped_at_blanks_is_read_whole_with_its_blanks() -> None:
    pieces = textwrap.wrap(IB, 72, break_on_hyphens=False)
    assert len(pieces) > 2 and all(len(p) < 72 for p in pieces)  # wrapped, not cut
    lines = rejoin("\n".join([BEFORE[:40], *pieces, AFTER]), READ).split("\n")
    assert lines[1] == IB and lines[2 : len(pieces) + 1] == [""] * (len(pieces) - 1)


def test_an_exception_wrapped_before_its_store_timeout_is_the_timeout_again() -> None:
    pieces = textwrap.wrap(STORE, 80, break_on_hyphens=False)
    lines = rejoin("\n".join([*pieces, "done"]), READ).split("\n")
    assert lines[0] == STORE


def test_an_exception_cut_before_its_store_timeout_is_the_timeout_again() -> None:
    pieces = fold(STORE, 80)
    assert all(not signals(p) for p in pieces[:1]) and "c10d.store_connect_failed" in signals(
        "".join(pieces)
    )
    lines = rejoin("\n".join([*pieces, "done"]), READ).split("\n")
    assert lines[0] == STORE


# googleapis/google-auth-library-python issue #1285's line behind srun's rank prefix
REFRESH = (
    '0: google.auth.exceptions.RefreshError: ("Failed to retrieve http://metadata.google.internal/'
    "computeMetadata/v1/instance/service-accounts/ml-trainer@vision-prod-4412.iam.gserviceaccount"
    ".com/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fdevstorage.full_control%2Chttps%3A"
    "%2F%2Fwww.googleapis.com%2Fauth%2Fdevstorage.read_only%2Chttps%3A%2F%2Fwww.googleapis.com%2Fau"
    "th%2Fdevstorage.read_write from the Google Compute Engine metadata service. Status: 500 "
    "Response:\\nb'Internal Server Error\\n'\", <google.auth.transport.requests._Response object "
    "at 0x7f4b8a2320b0>)"
)


def test_an_exception_whose_long_message_was_cut_reads_whole_even_where_a_piece_reads_alone() -> (
    None
):
    """A token refresh's 5xx, its URL cut into pieces: a later piece reads as the metadata
    server's failure by itself, beginning where that piece does; the whole message reads the
    same from the exception's own line, so the exception's line is the failure, not the job's."""
    line = REFRESH
    pieces = fold(line, 80)
    [alone] = [p for p in pieces[1:] if p.startswith("from the Google")]
    assert "service.gce_metadata_server_error" in signals(alone)
    lines = rejoin("\n".join([*pieces, "srun: error: n1: task 0: Exited"]), READ).split("\n")
    assert lines[0] == line and "service.gce_metadata_server_error" in signals(lines[0])
    wrapped = textwrap.wrap(line, 100, break_on_hyphens=False)
    lines = rejoin("\n".join([*wrapped, "srun: error: n1: task 0: Exited"]), READ).split("\n")
    assert "service.gce_metadata_server_error" in signals(lines[0]), wrapped


def test_a_line_as_long_as_the_width_but_wrapped_is_joined_with_its_blank() -> None:
    # a wrap at 70 that happens to leave the first piece exactly that long: cut or wrapped? both
    # joins read as NCCL's CUDA failure, only the wrapped one also as CUDA's own text
    line = "E0811 16:41:26.127199 48210 CtranIpc.cc:120] Cuda failure 400 'invalid resource handle'"
    first, rest = line[:70], line[71:]
    assert line[70] == " "
    lines = rejoin("\n".join(["x" * 50, first, rest, "done"]), READ).split("\n")
    assert lines[1] == line and "cuda.invalid_usage" in signals(lines[1])


def test_a_bare_exceptions_name_cut_inside_is_joined() -> None:
    """A fixed width cut a worker's exception inside its name (`...226] F` + `ileNotFound
    Error: ...`): no piece reads as anything, the name reads only across the cut."""
    line = (
        "(VllmWorkerProcess pid=72) ERROR 05-27 14:05:51 multiproc_worker_utils.py:226] "
        "FileNotFoundError: [Errno 2] No such file or directory: '/home/vllm/.triton/cache/"
        "c926ad2ef143810ed738a313c473c7b2/fused_moe_kernel.cubin.tmp.pid_72_945989'"
    )
    pieces = fold(line, 80)
    assert pieces[0].endswith("] F") and not any(READ(p) for p in pieces)
    lines = rejoin("\n".join([AFTER, *pieces]), READ).split("\n")
    assert lines[1] == line and lines[2:] == [""] * (len(pieces) - 1)
    assert [r.key for r in READ(lines[1])] == ["python.exception"]
    # two whole lines, the first as long as the width and ending inside a word: no name
    # forms across them, nothing joined
    whole = "\n".join([AFTER, pieces[0], "ile a report of the crash above"])
    assert rejoin(whole, READ) is whole


def test_a_file_that_was_not_cut_is_returned_as_it_is() -> None:
    progress = [f"[2026-05-05 14:{m:02d}:25] iteration {m:6d}/  250 | loss 2.{m:04d} | lr 1.0E-05" for m in range(10, 40)]  # fmt: skip
    assert len({len(line) for line in progress}) == 1 and len(progress[0]) >= MIN_WIDTH
    text = "\n".join([*progress, IB, "short"])
    assert rejoin(text, READ) is text


def test_two_whole_lines_are_not_joined_because_a_match_runs_on() -> None:
    # an address at a line's end runs on into the next line's time: no new signal, no join
    text = "\n".join(
        [
            "2026-08-11 14:00:21,552\tINFO scripts.py:926 -- Local node IP: 10.30.1.12",
            "2026-08-11 14:00:21,552\tINFO scripts.py:926 -- Local node IP: 10.30.1.13",
            "2026-08-11 14:00:21,610\tSUCC scripts.py:939 -- Ray runtime started.",
        ]
    )
    assert rejoin(text, READ) is text


def test_an_exception_before_a_line_with_its_own_reading_stays_apart() -> None:
    text = "\n".join(
        [
            "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED; see the cuDNN log "
            "environment",
            "srun: error: dgx-h100-017: tasks 0-7: Exited with exit code 1",
        ]
    )
    assert signals(text.split("\n")[1])
    assert rejoin(text, READ) is text


def test_a_join_that_would_lose_the_first_lines_reading_is_not_made() -> None:
    first = (
        "2025-04-11T03:16:01.9013722Z FAILED tests/models/unet/test_unet.py::test_unet"
        "[op_by_op_torch-eval] - urllib.error.HTTPError: HTTP Error 403: rate limit exceeded"
    )
    text = "\n".join([first, "2025-04-11T03:16:01.9014511Z " + "=" * (len(first) - 29)])
    assert signals(first)
    assert rejoin(text, READ) is text


def test_narrow_files_are_not_looked_at_for_cuts() -> None:
    text = "\n".join(fold(IB, MIN_WIDTH - 1))
    assert rejoin(text, READ) is text


def test_a_short_logs_one_wrapped_message_is_joined() -> None:
    # every line of the file is shorter than the narrowest width (the message was wrapped at
    # 72 before its long path): only a wrap is tried, at that width
    message = "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)"
    first, rest = textwrap.wrap(message, 72)
    assert max(len(first), len(rest)) < MIN_WIDTH and not signals(first) and not signals(rest)
    lines = rejoin("\n".join(["[prolog] node045: checking InfiniBand ports", first, rest]), READ)
    assert lines.split("\n")[1] == message and signals(message)


def test_a_run_of_wrapped_pieces_stops_before_a_line_of_its_own() -> None:
    # a traceback's source line, its exception (wrapped before a quoted path) and a logger's
    # line wrapped inside its own message: the logger's line is joined alone, the exception
    # keeps its own line and reading
    text = "\n".join(
        [
            '    print("Updating symlink", symlink_dst, "to point to", symlink_src)',
            "FileExistsError: [Errno 17] File exists: 'checkpoint_Tacotron2_0.pt' ->",
            "'output/checkpoint_Tacotron2_last.pt'",
            "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process",
            "51874 closing signal SIGTERM",
        ]
    )
    lines = rejoin(text, READ).split("\n")
    assert lines[1].startswith("FileExistsError: ") and lines[1].endswith("->")
    assert lines[3].endswith("Sending process 51874 closing signal SIGTERM")


def test_a_progress_line_wrapped_before_its_loss_is_joined() -> None:
    # Megatron's iteration line wrapped at 100 before its loss: neither piece is progress
    # alone (a step without a loss, a loss without a step); joined it says the step reached
    line = (
        "[2026-04-20 03:17:07] iteration       50/      50 | consumed samples:        25600 | "
        "elapsed time per iteration (ms): 9969.4 | learning rate: 4.500000E-06 | lm loss: "
        "2.390513E+00 | loss scale: 1.0"
    )
    pieces = textwrap.wrap(line, 100, break_on_hyphens=False)
    other = "[2026-04-20 03:17:08] saving checkpoint at iteration 50 to /ckpt in torch_dist format"
    lines = rejoin("\n".join([*pieces, other]), READ).split("\n")
    assert (
        len(pieces) > 1 and lines[0] == line and lines[1 : len(pieces)] == [""] * (len(pieces) - 1)
    )
    # two whole progress lines side by side stay apart
    steps = [line.replace("50/", f"{k}/") for k in (48, 49)]
    assert rejoin("\n".join(steps), READ) == "\n".join(steps)


def test_a_name_cut_inside_a_word_is_joined_where_the_next_piece_reads_alone() -> None:
    # Horovod's stall report folded at 80: the op's tail reads as a stalled op by itself (its
    # name is free-form), the whole first piece is one word cut inside
    op = (
        "model/model/DistributedAdamOptimizer_Allreduce/HorovodAllgather_model_model_gradients_"
        "concat_0 [ready ranks: 1], "
    )
    head, tail = op[:80], op[80:]
    assert not signals(head) and signals(tail) == signals(op) == {"horovod.stalled_op"}
    text = "\n".join(["Stalled ops: ", head, tail, "[2026-06-02 10:05:01] next line"])
    assert rejoin(text, READ).split("\n")[1] == op
    # two lines whose words ran together at the cut are not one ("loss 2.4385" + a host's
    # report that reads alone)
    a = "2026-08-23 05:30:00 INFO [train.py:212] [rank 0] step 299 | loss 2.4385" + " " * 9
    b = "x1921c1s4b0n0-hsn0: rank 0 died from signal 15"
    text = "\n".join([a.rstrip() + "0" * (80 - len(a.rstrip())), b])
    assert rejoin(text, READ) == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=30))
def test_never_raises_and_keeps_the_line_count(lines: list[str]) -> None:
    text = "\n".join(lines)
    out = rejoin(text, READ)
    assert out.count("\n") == text.count("\n")


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=MIN_WIDTH, max_value=200))
def test_any_width_at_or_over_the_minimum_reads_the_warning(width: int) -> None:
    # joined where the first piece says nothing; left where it reads already (cut after it)
    pieces = fold(IB, width)
    out = rejoin("\n".join(["start", *pieces, "end"]), READ).split("\n")
    assert "nccl.ib_completion_error" in signals(out[1])
    assert out[1] == IB or out[1] == pieces[0]


def test_two_lines_that_each_carry_a_collectors_prefix_are_never_joined() -> None:
    # `kubectl logs --prefix`: a traceback frame as long as the file's longest line, whose join
    # with the next frame would read as gloo's connect failure ("in connect" + "self.setup")
    log = (
        '[pod/trainer-worker-0/pytorch]   File "/opt/conda/lib/python3.7/site-packages/'
        'pytorch_lightning/plugins/training_type/parallel.py", line 58, in connect\n'
        "[pod/trainer-worker-0/pytorch]     self.setup(model)\n"
        "[pod/trainer-worker-0/pytorch] AssertionError\n"
    )
    assert rejoin(log, SCANNER.readings) is log
