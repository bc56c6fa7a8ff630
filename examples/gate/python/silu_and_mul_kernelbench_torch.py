# The correctness illusion in the KernelBench form: ModelNew.forward computes
# silu_and_mul with torch's own operators. Correct, but no kernel of its own:
# expected fallback, naming torch's kernels.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def forward(self, x):
        d = x.shape[-1] // 2
        return F.silu(x[..., :d]) * x[..., d:]
