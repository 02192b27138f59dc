"""PyTorch Lightning: progress per optimizer step, validation spans, checkpoint spans, errors.

    trainer = lightning.Trainer(callbacks=[lightning_callback()])

Steps: one ``step`` per optimizer step (``trainer.global_step`` after it moved), with the
samples of every batch that went into it (``batch_size``: the leading dimension of the
batch's first tensor) and its tokens when they can be told (``input_ids`` in a mapping
batch, padding included, or what the ``tokens`` function given to the factory returns).

Checkpoints: Lightning has no callback hook around the file write, so ``setup`` wraps the
``save_checkpoint`` and ``load_checkpoint`` methods of the strategy's ``checkpoint_io`` (on
that one instance) in checkpoint spans; ``teardown`` restores them. A span's iteration is
the checkpoint's own ``global_step`` (a load happens before the trainer's step is restored).
With an asynchronous ``CheckpointIO`` the save span measures the hand-off, not the write.

Cost: the per-batch hooks it does not use are None on its class (see ``UNUSED_BATCH_HOOKS``),
so Lightning dispatches one hook per batch to it, not seven.

Errors: ``on_exception`` records the exception, unless this recorder's process hook will
(the exception leaves ``fit`` and the hooks ``init()`` installs are in place): one record.
A ``KeyboardInterrupt`` is not recorded as an error: it is a stop, not a failure.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from autorecover.telemetry.integrations import batch_size, hooked, resolve
from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.spans import Span

_WRAPPED = "_autorecover_telemetry_original"
UNUSED_BATCH_HOOKS = (
    "on_train_batch_start", "on_before_backward", "on_after_backward",
    "on_before_optimizer_step", "on_before_zero_grad",
    "on_validation_batch_start", "on_validation_batch_end",
    "on_test_batch_start", "on_test_batch_end",
    "on_predict_batch_start", "on_predict_batch_end",
)  # fmt: skip
"""Per-batch hooks the callback leaves out. Lightning calls a callback's hook only when the
attribute is callable, and each call it makes costs ~2 µs (a profiler context and a formatted
name) even to the base class's no-op: set to None, they cost nothing."""
TokenCount = Callable[[Any], "int | None"]


class LightningTelemetry:
    """The callback's logic, with Lightning's hook signatures (no Lightning import)."""

    def __init__(self, recorder: Recorder | None = None, tokens: TokenCount | None = None) -> None:
        super().__init__()
        self._recorder = recorder
        self._tokens_of = tokens if tokens is not None else input_ids_count
        self._default_tokens = tokens is None
        self._last_step: int | None = None
        self._counter: Any = None  # Lightning's tracker of completed optimizer steps
        self._samples = 0  # of the batches since the last optimizer step
        self._tokens = 0
        self._validation: Span | None = None

    @property
    def recorder(self) -> Recorder:
        """The recorder in use (resolved on first use)."""
        if self._recorder is None:
            self._recorder = resolve(None)
        return self._recorder

    def setup(self, trainer: Any, pl_module: Any, stage: str) -> None:
        """Wrap the strategy's checkpoint I/O in checkpoint spans."""
        cio = getattr(getattr(trainer, "strategy", None), "checkpoint_io", None)
        if cio is None or hasattr(cio, _WRAPPED):
            return
        rec = self.recorder
        own = getattr(cio, "__dict__", {})
        # remember what to put back: an instance attribute, or nothing (the class method)
        setattr(cio, _WRAPPED, {n: own.get(n) for n in ("save_checkpoint", "load_checkpoint")})
        cio.save_checkpoint = _saving(cio.save_checkpoint, rec)
        cio.load_checkpoint = _loading(cio.load_checkpoint, rec)

    def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
        """Undo ``setup``'s wrapping; write what is queued."""
        cio = getattr(getattr(trainer, "strategy", None), "checkpoint_io", None)
        originals = getattr(cio, _WRAPPED, None)
        if cio is not None and isinstance(originals, dict):
            for name, original in originals.items():
                if original is None:
                    delattr(cio, name)
                else:
                    setattr(cio, name, original)
            delattr(cio, _WRAPPED)
        self.recorder.flush()

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        """The step training starts from (0, or the step a checkpoint restored)."""
        step = getattr(trainer, "global_step", None)
        self._last_step = step if isinstance(step, int) else None
        self._counter = _step_counter(trainer, pl_module, self._last_step)
        self._samples = self._tokens = 0

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        """One ``step`` per optimizer step (``global_step``), not per accumulated batch.

        The hot path of the callback: the common batch, a tuple or list whose first item
        has a ``shape``, is sized inline, and needs no token count (``input_ids`` lives in
        mappings); anything else goes through ``batch_size`` and the token function.
        """
        kind = type(batch)
        if (kind is tuple or kind is list) and batch and self._default_tokens:
            shape = getattr(batch[0], "shape", None)
            self._samples += (shape[0] if shape else batch_size(batch)) or 0
        else:
            self._samples += batch_size(batch) or 0
            self._tokens += self._tokens_of(batch) or 0
        counter = self._counter
        step = counter.completed if counter is not None else getattr(trainer, "global_step", None)
        if step == self._last_step or not isinstance(step, int):
            return  # an accumulating batch: its samples go into the next step
        self._last_step = step
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        self.recorder.step(
            step,
            samples=self._samples or None,
            tokens=self._tokens or None,
            loss=loss,  # Lightning hands over a detached loss; the recorder detaches others
        )
        self._samples = self._tokens = 0

    def on_validation_start(self, trainer: Any, pl_module: Any) -> None:
        """Open a ``validation`` span (sanity checks included, marked as such)."""
        sanity = bool(getattr(trainer, "sanity_checking", False))
        self._validation = self.recorder.span("validation", sanity_check=sanity).start()

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        """Close the ``validation`` span."""
        if self._validation is not None:
            self._validation.end()
            self._validation = None

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        """Record the exception that interrupted the trainer, once (see the module doc)."""
        if self._validation is not None:
            self._validation.end(ok=False, error=exception)
            self._validation = None
        # Ctrl-C is a stop, not an error (init()'s SIGINT handler records it as terminated)
        if not isinstance(exception, KeyboardInterrupt) and not hooked(self.recorder):
            self.recorder.error(exception)


def lightning_callback(
    recorder: Recorder | None = None, *, tokens: TokenCount | None = None
) -> Any:
    """A ``lightning.pytorch.Callback`` (or ``pytorch_lightning.Callback``) recording telemetry.

    ``tokens(batch)`` counts a batch's tokens when ``input_ids`` does not (None: unknown).
    """
    base = _callback_base()
    unused = {name: None for name in UNUSED_BATCH_HOOKS}
    cls = type("AutorecoverTelemetryCallback", (LightningTelemetry, base), unused)
    return cls(recorder, tokens)


def _step_counter(trainer: Any, pl_module: Any, step: int | None) -> Any:
    """The progress tracker whose ``completed`` is ``trainer.global_step``, or None.

    ``global_step`` is a chain of properties that costs ~8 µs a batch inside a training loop
    (caches cold after the model's work); the tracker it ends at is one attribute away. It
    is used only if it agrees with ``global_step`` now; otherwise ``global_step`` is read.
    """
    try:
        loop = trainer.fit_loop.epoch_loop
        if pl_module.automatic_optimization:
            tracker = loop.automatic_optimization.optim_progress.optimizer.step.total
        else:
            tracker = loop.manual_optimization.optim_step_progress.total
    except AttributeError:  # another Lightning's internals: read global_step
        return None
    return tracker if step is not None and getattr(tracker, "completed", None) == step else None


def input_ids_count(batch: Any) -> int | None:
    """Tokens in a mapping batch: the element count of its ``input_ids`` (padding included)."""
    kind = type(batch)
    if kind is tuple or kind is list:
        return None  # the common (inputs, targets) batch, told apart without an ABC check
    ids = batch.get("input_ids") if kind is dict or isinstance(batch, Mapping) else None
    numel = getattr(ids, "numel", None)
    if not callable(numel):
        return None
    try:
        return int(numel())
    except Exception:  # not a tensor after all: unknown
        return None


def _callback_base() -> type:
    """Lightning's callback base class, from whichever package is installed."""
    for module in ("lightning.pytorch", "pytorch_lightning"):
        try:
            return importlib.import_module(module).Callback  # type: ignore[no-any-return]
        except ImportError:
            continue
    raise ImportError("lightning_callback() needs `lightning` or `pytorch_lightning` installed")


def _saving(method: Callable[..., Any], rec: Recorder) -> Callable[..., Any]:
    """``save_checkpoint(checkpoint, path, ...)`` inside a span at the checkpoint's step."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        checkpoint = args[0] if args else kwargs.get("checkpoint")
        path = args[1] if len(args) > 1 else kwargs.get("path")
        with rec.checkpoint_save(_text(path), iteration=_global_step(checkpoint)):
            return method(*args, **kwargs)

    return wrapper


def _loading(method: Callable[..., Any], rec: Recorder) -> Callable[..., Any]:
    """``load_checkpoint(path, ...)`` inside a span; its iteration is read from what it loaded."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        path = args[0] if args else kwargs.get("path")
        with rec.checkpoint_load(_text(path)) as span:
            loaded = method(*args, **kwargs)
            span.set(iteration=_global_step(loaded))
            return loaded

    return wrapper


def _global_step(checkpoint: object) -> int | None:
    """A Lightning checkpoint dict's ``global_step``."""
    step = checkpoint.get("global_step") if isinstance(checkpoint, Mapping) else None
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def _text(path: object) -> str | None:
    return str(path) if path is not None else None
