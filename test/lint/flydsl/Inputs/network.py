"""Sandbox test: the submission reaches for the network when imported."""
import urllib.request

import torch
import torch.nn as nn

import flydsl.compiler as flyc  # noqa: F401
from axpy import launch_axpy

PAGE = urllib.request.urlopen("http://example.com/", timeout=5).read()


class ModelNew(nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        launch_axpy(x, y, out, 2.0, x.numel())
        return out
