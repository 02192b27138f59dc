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
