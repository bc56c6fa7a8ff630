"""Sandbox test: forward() crashes the interpreter (a null read through ctypes)."""
import ctypes

import torch.nn as nn

import flydsl.compiler as flyc  # noqa: F401
from axpy import launch_axpy


class ModelNew(nn.Module):
    def forward(self, x, y):
        ctypes.string_at(0)
        launch_axpy(x, y, x, 2.0, x.numel())
        return x
