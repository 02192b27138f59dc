"""Hugging Face ``transformers.Trainer``: progress, evaluation spans, checkpoint spans.

    trainer = Trainer(..., callbacks=[huggingface_callback()])

Per optimizer step the Trainer calls ``on_step_end``, then (when due) ``on_log``,
``on_evaluate`` and ``on_save``; ``on_save`` comes after the checkpoint is written. What a
``step`` carries:

* ``loss``: a forward hook on the model (added in ``on_train_begin``, removed in
  ``on_train_end``) keeps the ``loss`` the model returns in training mode, so each
  step has the loss of its last micro-batch on this rank, converted only when reported.
  A model that returns none (a custom ``compute_loss``) gets the Trainer's logged ``loss``
  (the mean since its previous log, over all ranks) instead: the step is then recorded
  after that log when one is due (``control.should_log``), so it never carries the loss of
  an earlier window.
* ``samples``: the leading dimension of the model's main input, summed over the step's
  micro-batches.
* ``tokens``: the growth of ``state.num_input_tokens_seen`` when the Trainer counts tokens
  (``include_num_input_tokens_seen``; it sums the count over all ranks), from the count at
  ``on_train_begin`` on, so the first step's tokens are in the total.

The save span opens at the last hook before the write (``on_step_end``, or ``on_evaluate``
when an evaluation runs first) and closes in ``on_save``. An evaluation span runs from the
first ``on_prediction_step`` to ``on_evaluate``. A resumed run (``train(resume_from_checkpoint
=...)``) starts with ``state.global_step`` above 0: ``on_train_begin`` records a
``checkpoint_load`` at that iteration (zero-length: the Trainer loads before any callback
runs). Uncaught errors are left to the process hooks that ``init()`` installs (the Trainer
has no exception callback).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from autorecover.telemetry.integrations import batch_size, resolve
from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.spans import Span

_PREFIX_CHECKPOINT_DIR = "checkpoint"  # transformers.trainer_utils.PREFIX_CHECKPOINT_DIR


class HuggingFaceTelemetry:
    """The callback's logic, with ``TrainerCallback``'s hook signatures (no transformers import)."""

    def __init__(self, recorder: Recorder | None = None) -> None:
        super().__init__()
        self._recorder = recorder
        self._loss: Any = None  # the model's last training loss (as returned: see _on_forward)
        self._logged_loss: float | None = None  # the Trainer's last logged loss
        self._samples = 0
        self._input_name = "input_ids"
        self._tokens_seen: int | None = None
        self._pending: tuple[int, int | None, int | None] | None = None  # step awaiting its log
        self._hook: Any = None
        self._evaluation: Span | None = None
        self._save: Span | None = None

    @property
    def recorder(self) -> Recorder:
        """The recorder in use (resolved on first use)."""
        if self._recorder is None:
            self._recorder = resolve(None)
        return self._recorder

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Watch the model's losses; note the token count; record a resume's checkpoint."""
        seen = getattr(state, "num_input_tokens_seen", None)
        self._tokens_seen = seen if isinstance(seen, int) else None
        model = kwargs.get("model")
        self._input_name = getattr(model, "main_input_name", None) or "input_ids"
        register = getattr(model, "register_forward_hook", None)
        if callable(register) and self._hook is None:
            self._hook = register(self._on_forward, with_kwargs=True)
        step = getattr(state, "global_step", 0)
        if isinstance(step, int) and step > 0:  # the Trainer restored a checkpoint's state
            self.recorder.checkpoint_load(_resumed_from(args, step), iteration=step).end()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """One ``step`` per optimizer step (after its log when the loss comes from there)."""
        if self._pending is not None:
            self._record_pending()
        tokens = None
        seen = getattr(state, "num_input_tokens_seen", None)
        if isinstance(seen, int) and self._tokens_seen is not None:
            tokens = seen - self._tokens_seen or None
            self._tokens_seen = seen
        samples, self._samples = self._samples or None, 0
        if self._loss is None and getattr(control, "should_log", False):
            self._pending = (state.global_step, samples, tokens)  # on_log brings the loss
        else:
            self._step(state.global_step, samples, tokens)
        # with an evaluation due, the save follows it: on_evaluate opens the span then
        evaluating = getattr(control, "should_evaluate", False)
        if getattr(control, "should_save", False) and not evaluating:
            self._open_save(args, state)

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        """Keep the Trainer's training loss; record the step that waited for it."""
        loss = (logs or {}).get("loss")
        if isinstance(loss, int | float):
            self._logged_loss = float(loss)
        self._record_pending()

    def on_prediction_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The first prediction step of an evaluation opens its span."""
        if self._evaluation is None:
            self._evaluation = self.recorder.span("validation", iteration=state.global_step)
            self._evaluation.start()

    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        """Close the evaluation span; open the save span if a save comes next."""
        self._record_pending()
        if self._evaluation is not None:
            eval_loss = (metrics or {}).get("eval_loss")
            self._evaluation.end(eval_loss=eval_loss)
            self._evaluation = None
        if getattr(control, "should_save", False):
            self._open_save(args, state)

    def on_predict(
        self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        """``predict()`` also runs prediction steps: close the span it opened."""
        if self._evaluation is not None:
            self._evaluation.end(predict=True)
            self._evaluation = None

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The checkpoint is written: close the save span (the progress marker)."""
        self._record_pending()
        if self._save is None:  # a save we did not see coming: a zero-length span
            self._open_save(args, state)
        if self._save is not None:
            self._save.end()
            self._save = None

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Stop watching the model; write everything queued."""
        self._record_pending()
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        self.recorder.flush()

    def _on_forward(self, module: Any, args: Any, kwargs: Any, output: Any) -> None:
        """Forward hook: a training forward's batch size and loss (never raises).

        Runs on every micro-batch, so it only keeps references: the loss is kept as the
        model returned it, and detached when a report converts it (records.py).
        """
        try:
            if not module.training:
                return  # evaluation and prediction
            name = self._input_name
            inputs = kwargs.get(name, args)
            shape = getattr(inputs, "shape", None)
            self._samples += (shape[0] if shape else batch_size(inputs)) or 0
            loss = output.get("loss") if isinstance(output, dict) else None
            if loss is None and isinstance(output, tuple | list) and "labels" in kwargs:
                loss = output[0] if output else None  # return_dict=False: the loss comes first
            if loss is not None:
                self._loss = loss
        except Exception as exc:
            self.recorder._fail("huggingface forward hook", exc)

    def _record_pending(self) -> None:
        """Record the step that waited for the Trainer's log, if any."""
        if self._pending is not None:
            step, samples, tokens = self._pending
            self._pending = None
            self._step(step, samples, tokens)

    def _step(self, step: int, samples: int | None, tokens: int | None) -> None:
        loss = self._loss if self._loss is not None else self._logged_loss
        (self._recorder or self.recorder).step(step, samples=samples, tokens=tokens, loss=loss)

    def _open_save(self, args: Any, state: Any) -> None:
        """Open the checkpoint-save span for ``<output_dir>/checkpoint-<global_step>``."""
        if self._save is not None:
            return
        output_dir = getattr(args, "output_dir", None)
        step = state.global_step
        path = (
            os.path.join(output_dir, f"{_PREFIX_CHECKPOINT_DIR}-{step}")  # noqa: PTH118
            if output_dir
            else None
        )
        self._save = self.recorder.checkpoint_save(path, iteration=step).start()


def _resumed_from(args: Any, step: int) -> str | None:
    """Where a resume at ``step`` loaded from, when it can be told: ``args.resume_from_checkpoint``
    if it names a directory, else ``<output_dir>/checkpoint-<step>`` if that exists."""
    named = getattr(args, "resume_from_checkpoint", None)
    if isinstance(named, str) and os.path.isdir(named):  # noqa: PTH112
        return named
    output_dir = getattr(args, "output_dir", None)
    if output_dir:
        guess = os.path.join(output_dir, f"{_PREFIX_CHECKPOINT_DIR}-{step}")  # noqa: PTH118
        if os.path.isdir(guess):  # noqa: PTH112
            return guess
    return None


def huggingface_callback(recorder: Recorder | None = None) -> Any:
    """A ``transformers.TrainerCallback`` recording telemetry."""
    base = importlib.import_module("transformers").TrainerCallback
    cls = type("AutorecoverTelemetryCallback", (HuggingFaceTelemetry, base), {})
    return cls(recorder)
