"""The callback factories: real framework base classes, and a clear error without them."""

from __future__ import annotations

import sys

import lightning.pytorch as pl
import pytest
import transformers

from autorecover.telemetry.integrations.huggingface import (
    HuggingFaceTelemetry,
    huggingface_callback,
)
from autorecover.telemetry.integrations.lightning import LightningTelemetry, lightning_callback

from .conftest import MakeRecorder


def test_callbacks_are_the_frameworks_own(file_recorder: MakeRecorder) -> None:
    rec = file_recorder()
    lightning = lightning_callback(rec)
    assert isinstance(lightning, pl.Callback) and isinstance(lightning, LightningTelemetry)
    assert lightning.state_key == "AutorecoverTelemetryCallback"
    hf = huggingface_callback(rec)
    assert isinstance(hf, transformers.TrainerCallback) and isinstance(hf, HuggingFaceTelemetry)


def test_factories_need_their_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("lightning", "lightning.pytorch", "pytorch_lightning", "transformers"):
        monkeypatch.setitem(sys.modules, name, None)  # None in sys.modules: ImportError
    with pytest.raises(ImportError, match="lightning"):
        lightning_callback()
    with pytest.raises(ImportError):
        huggingface_callback()


def test_a_loss_still_in_its_graph_is_reported_without_a_warning() -> None:
    """The forward hook keeps the model's loss as returned (detaching it every micro-batch
    costs more than once per report); the report reads it without the graph."""
    import torch

    from autorecover.telemetry.records import clean

    weight = torch.ones(2, requires_grad=True)
    loss = (weight * 1.5).sum()
    assert loss.requires_grad
    assert clean(loss) == 3.0  # warnings are errors here: no "requires_grad" warning
