# Only cpp_sources: a host loop, no GPU kernel at all.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_src = """
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  float* p = y.data_ptr<float>();
  for (int i = 0; i < 4; ++i) p[i] = 0.f;
  return y;
}
"""
ext = load_inline(name="host_only", cpp_sources=[cpp_src], functions=["run"])


class ModelNew(nn.Module):
    # CHECK: error: no kernel is defined: the submission launches no GPU code of its own [atrex-no-kernel]
    def forward(self, x):
        return ext.run(x)
# CHECK: verdict: no-kernel
