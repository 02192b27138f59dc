"""Callbacks for training frameworks; each imports its framework only when a callback is made.

* ``lightning.lightning_callback()`` for PyTorch Lightning (``lightning`` or
  ``pytorch_lightning``);
* ``huggingface.huggingface_callback()`` for the Hugging Face ``transformers.Trainer``.

The hook logic lives in plain classes (``LightningTelemetry``, ``HuggingFaceTelemetry``)
that tests drive with stand-in trainer objects; the factories mix them into the framework's
callback base class at call time.
"""

from __future__ import annotations

from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.wiring import current, init


def resolve(recorder: Recorder | None) -> Recorder:
    """The given recorder, else the active one, else a new one from ``init()``."""
    if recorder is not None:
        return recorder
    active = current()
    return active if active is not None else init()


def detached(value: object) -> object:
    """A tensor detached from its graph (no device sync), anything else unchanged."""
    detach = getattr(value, "detach", None)
    if callable(detach):
        try:
            return detach()
        except Exception:  # an object with an unrelated detach(): keep it as is
            return value
    return value
