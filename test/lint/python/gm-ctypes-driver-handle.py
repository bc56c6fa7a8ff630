# Calls through a library handle ctypes loaded are calls to that library:
# a module-level `ctypes.CDLL("libcuda.so.1")` (the load itself runs at import,
# outside the entry) whose `cuModuleLoadData` the entry calls loads a GPU
# image the submission did not compile (examples/gate/python/
# silu_and_mul_entry_shipped_ptx.py was no-kernel before).
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK: gm-ctypes-driver-handle.py:[[@LINE+13]]:5: error: call to 'ctypes::CDLL::cuModuleLoadData' loads a GPU image the submission did not compile [atrex-evasion-module-load]
# CHECK: verdict: suspicious
import ctypes

import torch

_cuda = ctypes.CDLL("libcuda.so.1")
IMAGE = b".version 9.0"


def custom_kernel(data):
    (x,) = data
    mod = ctypes.c_void_p()
    _cuda.cuModuleLoadData(ctypes.byref(mod), IMAGE)
    return x
