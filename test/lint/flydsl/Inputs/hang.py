"""Sandbox test: forward() never returns (the trace must be stopped by its wall-clock limit)."""
import torch.nn as nn

import flydsl.compiler as flyc  # noqa: F401
from axpy import launch_axpy


class ModelNew(nn.Module):
    def forward(self, x, y):
        while True:
            pass
        launch_axpy(x, y, x, 2.0, x.numel())
