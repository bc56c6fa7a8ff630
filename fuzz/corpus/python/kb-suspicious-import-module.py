# In a submission's entry, a module imported by a run-time name whose
# function is called is dynamic loading; the same import read only for its
# version is not.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: sed 's/return mod.forward_impl(x)/return x if mod.__version__ else x/' %s > %t.py
# RUN: not atrex-lint --no-snippets %t.py 2>&1 | FileCheck %s --check-prefix=VERSION
# VERSION-NOT: atrex-evasion
# VERSION: verdict: no-kernel
import importlib

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, backend="fast" + "impl"):
        super().__init__()
        self.backend = backend

    def forward(self, x):
        # CHECK: kb-suspicious-import-module.py:[[@LINE+1]]:15: error: call to 'importlib::import_module' resolves code at run time, behind the analysis [atrex-evasion-dynamic-load]
        mod = importlib.import_module(self.backend)
        return mod.forward_impl(x)
# CHECK: verdict: suspicious
