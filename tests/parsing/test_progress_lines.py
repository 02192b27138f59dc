"""Plain-text training progress (`parsing/progress_lines.py`): the lines frameworks print when a
job does not use the telemetry library, read as progress by the scanner.

Each format is the one its framework's logging code writes (the file named beside it); the
numbers are invented. A line is progress only with a loss (or a tqdm rate) and a position.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Source
from autorecover.parsing.progress_lines import Progress, parse_progress
from autorecover.parsing.scanning import Scanner

REF = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "step"),
    [
        # scripts/torchrun_incidents_train.py (this project's real-run training script)
        ("2026-12-03 06:52:29,869 INFO [train.py:93] [rank 1] step 4 | loss 1.0234 | 0.50 s/step", 4),
        ("[default0]:2026-12-01 19:51:55,773 INFO [train.py:93] [rank 0] step 1 | loss 1.02", 1),
        # Megatron-LM megatron/training/training.py training_log
        (" iteration       10/  500000 | consumed samples:          640 | elapsed time per "
         "iteration (ms): 1234.5 | learning rate: 1.000E-05 | global batch size:    64 | "
         "lm loss: 1.012345E+01 | loss scale: 1.0 |", 10),
        # karpathy/nanoGPT train.py
        ("iter 10: loss 4.1234, time 123.45ms, mfu 12.34%", 10),
        # pytorch/torchtitan train.py
        ("[rank0]:[titan] 2025-01-01 00:00:00,000 - root - INFO - step: 10  loss:  9.1234  "
         "memory: 30.12GiB(38.05%)  tps: 1,234", 10),
        # AI-Hypercomputer/maxtext train.py
        ("completed step: 10, seconds: 1.234, TFLOP/s/device: 100.1, loss: 9.123", 10),
        # tqdm format_meter, as Lightning's progress bar renders it
        ("Epoch 0:  45%|####5     | 450/1000 [01:23<01:42, 5.37it/s, v_num=0, train_loss=2.310]",
         450),
        (" 45%|####5     | 450/1000 [01:23<01:42, 5.37it/s]", 450),
        # DeepSpeed engine's print of its step report
        ("steps: 100 loss: 2.3456 iter time (s): 0.512 samples/sec: 250.1", 100),
        # Hugging Face transformers Trainer.log: an epoch, no step
        ("{'loss': 2.3456, 'grad_norm': 1.23, 'learning_rate': 4.9e-05, 'epoch': 0.01}", None),
    ],
)  # fmt: skip
def test_a_framework_progress_line_is_progress(line: str, step: int | None) -> None:
    got = parse_progress(line, REF)
    assert got is not None and got.step == step


@pytest.mark.parametrize(
    "line",
    [
        "[2024-01-01 00:00:00,000] [WARNING] [stage3.py:1850:step] 1 pytorch allocator cache "
        "flushes since last step.",
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
        "RuntimeError: Function 'MulBackward0' returned nan values; loss 3 at step 7",
        "ValueError: Loss function not found for step 3",
        "loading checkpoint from step 1200",  # a position, no loss
        "loss: 2.31",  # a loss, no position
        "INFO: global batch size 64, micro batch 2, loss scaling enabled",
    ],
)
def test_a_line_that_is_not_progress(line: str) -> None:
    assert parse_progress(line, REF) is None


def test_the_line_time_comes_from_its_stamp() -> None:
    got = parse_progress("2026-12-03 06:52:29,869 INFO [rank 0] step 7 | loss 1.1", REF)
    assert got == Progress(step=7, at=datetime(2026, 12, 3, 6, 52, 29, 869000, tzinfo=UTC))


def _activity(text: str, source: Source = Source.LOGS):  # type: ignore[no-untyped-def]
    scanner = Scanner(builtin_catalog())
    stream = io.BytesIO(text.encode())
    return scanner.scan(stream, node="n1", source=source, reference=REF).activity


LOGGED = "".join(
    f"2026-12-01 10:{m:02d}:00,000 INFO [rank 0] step {10 * m} | loss 2.{m:02d}\n"
    for m in range(0, 50, 10)
)


def test_the_scanner_reads_a_plain_log_s_progress() -> None:
    a = _activity("starting\n" + LOGGED + "NCCL WARN something later\n")
    assert a.last_step == 400 and a.progress_lines == 5 and a.progress_records == 0
    assert a.last_progress_at == datetime(2026, 12, 1, 10, 40, tzinfo=UTC)
    # logged every 100 steps, ten minutes apart: 6 s a step, a line every 600 s
    assert a.median_step_interval_s == pytest.approx(6.0)
    assert a.median_progress_gap_s == pytest.approx(600.0)


def test_telemetry_records_are_the_progress_where_a_log_has_them() -> None:
    record = (
        '{"telemetry": 1, "event": "step", "ts": "2026-12-01T11:00:00Z", "step": 9000, "rank": 0}\n'
    )
    a = _activity(record + LOGGED)
    assert a.progress_lines == 0 and a.median_progress_gap_s is None


def test_a_system_log_has_no_training_progress() -> None:
    a = _activity(LOGGED, Source.SYSTEM)
    assert a.last_step is None and a.progress_lines == 0


def test_an_epoch_line_and_a_step_line_of_the_same_second() -> None:
    # a Trainer's dict (no step) and a tqdm bar (a count) stamped alike, the bar holding a loss
    # too (both markers on one line): read once each, sorted by time alone
    text = (
        "2026-12-01 10:00:00,000 {'loss': 2.31, 'epoch': 0.5}\n"
        "2026-12-01 10:00:00,000 45%|####5     | 450/1000 [01:23<01:42, 5.37it/s, loss=2.31]\n"
    )
    a = _activity(text)
    assert a.progress_lines == 2
    assert a.last_progress_at == datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "total", "last"),
    [
        # Megatron-LM megatron/training/training.py training_log: the run's length after the count
        (
            " [2026-04-20 03:17:07] iteration       50/      50 | consumed samples:        25600 |"
            " lm loss: 4.7918",
            50,
            True,
        ),
        (" [2026-04-20 03:16:57] iteration       49/      50 | lm loss: 4.6802", 50, False),
        ("step 300/300 loss 1.93", 300, True),
        # an epoch's steps count to the epoch's end, not the run's
        ("Epoch 1 step 100/100 loss 2.31", None, False),
        # a tqdm bar fills for every epoch and evaluation: its total is not the run's
        ("Epoch 0: 100%|##########| 450/450 [01:23<00:00, 5.37it/s, loss=2.31]", None, False),
        ("step 12 | loss 1.24", None, False),
    ],
)
def test_a_progress_line_says_when_the_run_reached_its_last_step(
    line: str, total: int | None, last: bool
) -> None:
    p = parse_progress(line, REF)
    assert p is not None and (p.total, p.last) == (total, last)


def test_the_scanner_keeps_the_runs_last_step_once_a_line_said_it() -> None:
    done = _activity(
        "[2026-12-01 10:00:00] iteration 49/ 50 | lm loss: 4.6\n"
        "[2026-12-01 10:00:10] iteration 50/ 50 | lm loss: 4.7\n"
        "[after training is done] datetime: 2026-12-01 10:00:11\n"
    )
    assert done.last_of_run == 50
    assert _activity("[2026-12-01 10:00:00] iteration 49/ 50 | lm loss: 4.6\n").last_of_run is None
