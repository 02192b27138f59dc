"""A Lightning run whose training step raises at step 4, with ``init()``'s process hooks.

python lightning_crash.py OUT.jsonl ROOT_DIR
"""

from __future__ import annotations

import sys

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

from autorecover import telemetry
from autorecover.telemetry.integrations.lightning import lightning_callback


class Failing(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch: list[torch.Tensor], batch_idx: int) -> torch.Tensor:
        if self.global_step == 4:
            raise RuntimeError(f"simulated failure at step {self.global_step}")
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    telemetry.init(output=sys.argv[1], env={}, log_interval=2, hang=None)
    x = torch.randn(64, 4)
    trainer = pl.Trainer(max_steps=6, accelerator="cpu", devices=1, logger=False,
                         callbacks=[lightning_callback()], enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False,
                         default_root_dir=sys.argv[2])  # fmt: skip
    trainer.fit(Failing(), DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8))
