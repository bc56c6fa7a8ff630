# A source with an f-string placeholder cannot be reconstructed: an error on
# its line, verdict unknown (never adopted).
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

BLOCK = 256
# CHECK: kb-fstring-placeholder.py:[[@LINE+1]]:41: error: atrex-python: cannot reconstruct 'cuda_sources' of 'load_inline': not a constant string
ext = load_inline("f", "", cuda_sources=f"#define BLOCK {BLOCK}\n", functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: verdict: unknown
