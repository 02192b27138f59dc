"""An incident's time, broken into its parts: detect, decide, stop, reschedule, start,
checkpoint load, first step, and the training lost since the last checkpoint.

The marks come from three clocks: the controller's (detected, decided, stopped), the
scheduler's (failed, rescheduled) and the training processes' telemetry (started, checkpoint
loaded, first step). A negative part therefore shows clock skew; it is kept as measured. One
bound is causal, not a clock's: the new attempt is marked rescheduled no earlier than the
requeue that made it was done (`following.py`), since a scheduler that starts it inside the
requeue call, or stamps whole seconds (Slurm), would otherwise show a negative reschedule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime

from autorecover.controllers.jobs.records import Stage, TimelineMark


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Seconds spent in each part of one recovery; None where a mark is missing."""

    detect_s: float | None = None  # failed -> detected
    decide_s: float | None = None  # detected -> decided
    stop_s: float | None = None  # decided -> the requeue or stop done
    reschedule_s: float | None = None  # done -> the new attempt started
    start_s: float | None = None  # started -> its first telemetry record
    checkpoint_load_s: float | None = None  # first record -> checkpoint loaded
    first_step_s: float | None = None  # checkpoint loaded (or first record) -> first new step
    engine_s: float | None = None  # failed -> done: detect + decide + act, the engine's share
    total_s: float | None = None  # failed -> first new step
    lost_work_s: float | None = None  # training since the last completed checkpoint

    def as_dict(self) -> dict[str, float | None]:
        """The parts by name."""
        return asdict(self)


def breakdown(marks: Iterable[TimelineMark]) -> Breakdown:
    """The parts of one incident's timeline."""
    at: dict[Stage, datetime] = {}
    lost: float | None = None
    for m in marks:
        at.setdefault(m.stage, m.at)
        if m.stage is Stage.LOST_WORK:
            lost = m.value

    def span(a: Stage, b: Stage) -> float | None:
        if a not in at or b not in at:
            return None
        return (at[b] - at[a]).total_seconds()

    loaded_or_started = Stage.CHECKPOINT_LOADED if Stage.CHECKPOINT_LOADED in at else Stage.STARTED
    return Breakdown(
        detect_s=span(Stage.FAILED, Stage.DETECTED),
        decide_s=span(Stage.DETECTED, Stage.DECIDED),
        stop_s=span(Stage.DECIDED, Stage.STOPPED),
        reschedule_s=span(Stage.STOPPED, Stage.RESCHEDULED),
        start_s=span(Stage.RESCHEDULED, Stage.STARTED),
        checkpoint_load_s=span(Stage.STARTED, Stage.CHECKPOINT_LOADED),
        first_step_s=span(loaded_or_started, Stage.FIRST_STEP),
        engine_s=span(Stage.FAILED, Stage.STOPPED),
        total_s=span(Stage.FAILED, Stage.FIRST_STEP),
        lost_work_s=lost,
    )


def lost_work(
    last_step: int | None, checkpoint: int | None, step_time_s: float | None
) -> tuple[float, str] | None:
    """Training lost: steps done since the last completed checkpoint times the step time.

    A checkpoint's iteration is the number of the last step it holds, in the numbering the
    step records use (the library's default, Lightning's and Hugging Face's `global_step`,
    Megatron's iteration): after step 99 a checkpoint at iteration 99 loses nothing. With no
    checkpoint, steps are taken to count from 0."""
    if last_step is None or step_time_s is None:
        return None
    steps = max(0, last_step - checkpoint if checkpoint is not None else last_step + 1)
    saved = checkpoint or 0
    where = f"checkpoint {saved}" if checkpoint is not None else "the start (no checkpoint)"
    return steps * step_time_s, f"{steps} steps since {where} x {step_time_s:.3g} s/step"
