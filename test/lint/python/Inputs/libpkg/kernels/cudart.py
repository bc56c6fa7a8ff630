# A wrapper class that loads a native library with ctypes and resolves its
# functions by name (lightllm's and vLLM's cuda_wrapper.py do this for
# libcudart): the loading is in the class's methods, not in a module-level
# function.
import ctypes
from typing import Optional


class Function:
    def __init__(self, name, restype, argtypes):
        self.name = name
        self.restype = restype
        self.argtypes = argtypes


class RuntimeLibrary:
    exported = [Function("cudaSetDevice", ctypes.c_int, [ctypes.c_int])]

    def __init__(self, so_file: Optional[str] = None):
        self.lib = ctypes.CDLL(so_file or "libcudart.so")
        self.funcs = {}
        for func in RuntimeLibrary.exported:
            f = getattr(self.lib, func.name)
            f.restype = func.restype
            f.argtypes = func.argtypes
            self.funcs[func.name] = f

    def set_device(self, device: int) -> None:
        self.funcs["cudaSetDevice"](device)
