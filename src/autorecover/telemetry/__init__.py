"""The telemetry library training scripts import (standard library only).

    from autorecover import telemetry

    rec = telemetry.init()                      # identity from torchrun / Slurm / Kubeflow
    for i, batch in enumerate(loader):
        with rec.phase("forward"):
            loss = model(batch)
        rec.step(i, tokens=batch_tokens, loss=loss.detach())
        if i % 1000 == 0:
            with rec.checkpoint_save(f"/ckpt/step_{i}"):
                save(model, f"/ckpt/step_{i}")

Importing this package does no I/O, starts no thread, installs no hook and reads no
environment variable; ``init()`` does all of that. See docs/telemetry.md.
"""

from autorecover.telemetry.encoding import SCHEMA
from autorecover.telemetry.identity import Identity, detect_identity
from autorecover.telemetry.outputs import MemoryOutput, Output
from autorecover.telemetry.recorder import Recorder, RecorderStats
from autorecover.telemetry.spans import Phase, Span
from autorecover.telemetry.watchdog import HangPolicy, HangReport, ProgressView, Watchdog
from autorecover.telemetry.wiring import DEFAULT_HANG_POLICY, current, init

__all__ = [
    "DEFAULT_HANG_POLICY",
    "SCHEMA",
    "HangPolicy",
    "HangReport",
    "Identity",
    "MemoryOutput",
    "Output",
    "Phase",
    "ProgressView",
    "Recorder",
    "RecorderStats",
    "Span",
    "Watchdog",
    "current",
    "detect_identity",
    "init",
]
