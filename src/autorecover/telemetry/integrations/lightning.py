"""PyTorch Lightning: progress per optimizer step, validation spans, checkpoint spans, errors.

    trainer = lightning.Trainer(callbacks=[lightning_callback()])

Checkpoints: Lightning has no callback hook around the file write, so ``setup`` wraps the
``save_checkpoint`` and ``load_checkpoint`` methods of the strategy's ``checkpoint_io`` (on
that one instance) in checkpoint spans; ``teardown`` restores them. With an asynchronous
``CheckpointIO`` the span measures the hand-off, not the write.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from autorecover.telemetry.integrations import detached, resolve
from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.spans import Span

_WRAPPED = "_autorecover_telemetry_original"


class LightningTelemetry:
    """The callback's logic, with Lightning's hook signatures (no Lightning import)."""

    def __init__(self, recorder: Recorder | None = None) -> None:
        super().__init__()
        self._recorder = recorder
        self._last_step: int | None = None
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
        step: Callable[[], int | None] = lambda: getattr(trainer, "global_step", None)  # noqa: E731
        own = getattr(cio, "__dict__", {})
        # remember what to put back: an instance attribute, or nothing (the class method)
        setattr(cio, _WRAPPED, {n: own.get(n) for n in ("save_checkpoint", "load_checkpoint")})
        cio.save_checkpoint = _spanned(cio.save_checkpoint, rec.checkpoint_save, 1, step)
        cio.load_checkpoint = _spanned(cio.load_checkpoint, rec.checkpoint_load, 0, step)

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

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        """One ``step`` per optimizer step (``global_step``), not per accumulated batch."""
        step = getattr(trainer, "global_step", None)
        if not isinstance(step, int) or step == self._last_step:
            return
        self._last_step = step
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        self.recorder.step(step, loss=detached(loss) if loss is not None else None)

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
        """Record the exception that interrupted the trainer."""
        if self._validation is not None:
            self._validation.end(ok=False, error=exception)
            self._validation = None
        self.recorder.error(exception)


def lightning_callback(recorder: Recorder | None = None) -> Any:
    """A ``lightning.pytorch.Callback`` (or ``pytorch_lightning.Callback``) recording telemetry."""
    base = _callback_base()
    cls = type("AutorecoverTelemetryCallback", (LightningTelemetry, base), {})
    return cls(recorder)


def _callback_base() -> type:
    """Lightning's callback base class, from whichever package is installed."""
    for module in ("lightning.pytorch", "pytorch_lightning"):
        try:
            return importlib.import_module(module).Callback  # type: ignore[no-any-return]
        except ImportError:
            continue
    raise ImportError("lightning_callback() needs `lightning` or `pytorch_lightning` installed")


def _spanned(
    method: Callable[..., Any],
    open_span: Callable[..., Span],
    path_arg: int,
    iteration: Callable[[], int | None],
) -> Callable[..., Any]:
    """``method`` inside a checkpoint span; the path is its ``path_arg``-th argument."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        path = args[path_arg] if len(args) > path_arg else kwargs.get("path")
        with open_span(str(path) if path is not None else None, iteration=iteration()):
            return method(*args, **kwargs)

    return wrapper
