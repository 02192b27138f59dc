"""Training progress as frameworks print it in plain text, for jobs without the telemetry library.

A training loop that does not use autorecover's telemetry still says how far it got: a loss
with a step (`step 4 | loss 1.24`, Megatron's `iteration 10/ 500 | ... | lm loss: 7.1E+00`,
nanoGPT's `iter 10: loss 4.12`, torchtitan's `step: 10 loss: 9.12`, fairseq's `num_updates 100`,
DeepSpeed's `steps: 10 loss: 2.3`), a loss with an epoch (Hugging Face Trainer's
`{'loss': 2.3, ..., 'epoch': 0.01}`, Keras's `Epoch 3/10`), or a tqdm bar's count
(`450/1000 [01:23<01:42, 5.37it/s]`, Lightning's `Epoch 0:  45%|...| 450/1000 [...]`).

A line is progress only when it carries both a loss value (or a tqdm rate) and a position (a
step, an iteration or an epoch), and says nothing of an error: `loss scale` warnings and
`Loss function not found` are not progress. Attribution uses progress to tell a job that never
trained from one that did (`domain.early`), to see which node stopped first and to recall the
step a failure repeats at (`domain.history`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from autorecover.parsing.lines import find_embedded_time, parse_line

# Literals at least one of which every progress line holds (the scanner's cheap chunk test).
TEXT_PROGRESS_MARKERS = (b"loss", b"Loss", b"it/s]")

# A loss value: `loss 1.02`, `loss: 2.3`, `'loss': 2.3`, `loss=2.3`, `train_loss=2.3`,
# `lm loss: 7.1E+00`, `Loss/train 0.5`; nan and inf are values too (a diverging run trains on).
_LOSS = re.compile(r"(?i)loss(?:/\w{1,20})?['\"]?\s{0,4}[:=|]?\s{0,4}['\"]?[-+]?(?:\d|nan\b|inf\b)")
# The position: a step-like counter and its number, or `Epoch N` / `'epoch': 0.5`.
_STEP = re.compile(
    r"(?i)(?<![\w.])(?:global[_ ]?step|steps?|iteration|iter|num_updates|update)"
    r"['\"]?\s{0,4}[:=#]?\s{0,12}\[?\s{0,4}(\d{1,10})(?![\w.])"
)
_EPOCH = re.compile(r"(?i)(?<![\w.])epoch['\"]?\s{0,4}[:=]?\s{0,4}\d")
# tqdm's `n/total [elapsed<remaining, rate]`: the count is the position.
_TQDM = re.compile(r"(?<![\d/])(\d{1,10})/(?:\d{1,10}|\?) \[[\d:]{4,12}(?:<[\d:?]{1,12})?, ")
_ERROR = re.compile(r"(?i)error|exception|traceback|warn|fail|not found|nan or inf|overflow")


# The run's length after a step counter: Megatron's `iteration 50/ 50`, `step 300/300`.
_TOTAL = re.compile(r"\s{0,4}/\s{0,12}(\d{1,10})(?![\w.])")


@dataclass(frozen=True, slots=True)
class Progress:
    """One progress line: the step it names (None when it names an epoch only), its time, and
    the run's last step when the line says it (`iteration 50/ 50`; not a tqdm bar's total,
    which an epoch's or an evaluation's bar fills as often as the run's)."""

    step: int | None
    at: datetime | None
    total: int | None = None

    @property
    def last(self) -> bool:
        """The line reports the run's last step."""
        return self.step is not None and self.total is not None and 0 < self.total <= self.step


def parse_progress(text: str, reference: datetime) -> Progress | None:
    """The progress one job-output line reports, or None when it is not a progress line."""
    parsed = parse_line(text, reference)
    message = parsed.message
    if _ERROR.search(message):
        return None
    tqdm = _TQDM.search(message)
    if not tqdm and not _LOSS.search(message):
        return None
    step: int | None = None
    total: int | None = None
    m = _STEP.search(message)
    if m:
        step = int(m.group(1))
        if (t := _TOTAL.match(message, m.end())) is not None and not _EPOCH.search(message):
            total = int(t.group(1))  # a step within an epoch counts to the epoch's end
    elif tqdm:
        step = int(tqdm.group(1))
    elif not _EPOCH.search(message):
        return None
    return Progress(step=step, at=parsed.at or find_embedded_time(message), total=total)
