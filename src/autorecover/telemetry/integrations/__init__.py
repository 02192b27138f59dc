"""Callbacks for training frameworks; each imports its framework only when a callback is made.

* ``lightning.lightning_callback()`` for PyTorch Lightning (``lightning`` or
  ``pytorch_lightning``);
* ``huggingface.huggingface_callback()`` for the Hugging Face ``transformers.Trainer``.

The hook logic lives in plain classes (``LightningTelemetry``, ``HuggingFaceTelemetry``); the
factories mix them into the framework's callback base class at call time. Both are tested
against the real frameworks (tests/integrations).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Mapping
from typing import cast

from autorecover.telemetry.hooks import Hooks
from autorecover.telemetry.recorder import Recorder
from autorecover.telemetry.wiring import current, init

MAX_BATCH_DEPTH = 4  # how deep batch_size() looks into nested containers


def resolve(recorder: Recorder | None) -> Recorder:
    """The given recorder, else the active one, else a new one from ``init()``."""
    if recorder is not None:
        return recorder
    active = current()
    return active if active is not None else init()


def hooked(recorder: Recorder) -> bool:
    """Will ``recorder``'s own exception hook record an exception escaping this thread?

    A framework's exception callback that records the exception too would write it twice.
    """
    if threading.current_thread() is threading.main_thread():
        owner = getattr(sys.excepthook, "__self__", None)
    else:
        owner = getattr(threading.excepthook, "__self__", None)
    return isinstance(owner, Hooks) and owner._recorder is recorder


def batch_size(batch: object, depth: int = 0) -> int | None:
    """The leading dimension of the first tensor-like in ``batch`` (mappings and sequences
    searched in order, a few levels deep); None when there is none. Reads shapes only.

    Called on every batch: the common shapes (a tensor, a list or tuple, a dict) are tried
    first, by exact type, before the general ones.
    """
    kind = type(batch)
    if kind is list or kind is tuple:
        items: Iterable[object] = cast("Iterable[object]", batch)
    elif kind is dict:
        items = cast("dict[object, object]", batch).values()
    elif (shape := getattr(batch, "shape", None)) is not None:
        try:
            return int(shape[0]) if len(shape) else None
        except Exception:  # a shape we cannot read: not a tensor after all
            return None
    elif isinstance(batch, Mapping):
        items = batch.values()
    elif isinstance(batch, list | tuple):  # a named tuple, a list subclass
        items = batch
    else:
        return None
    if depth >= MAX_BATCH_DEPTH:
        return None
    for item in items:
        found = batch_size(item, depth + 1)
        if found is not None:
            return found
    return None
