import importlib
import operator
from typing import Callable

import torch


def at_least(package: str, cmp: Callable, target: str):
    # The result is only read for its version: an ordinary import.
    try:
        mod = importlib.import_module(package)
    except ImportError:
        return False
    if mod is None or not hasattr(mod, "__version__"):
        return False
    return cmp(tuple(mod.__version__.split(".")[:2]), tuple(target.split(".")[:2]))


def cuda_version(package: str):
    mod = __import__(package)
    return getattr(mod, "__version__", None), mod.version.cuda


def named_module():
    # A constant module name is an import statement spelled as a call.
    th = importlib.import_module("torch")
    return th.cuda.get_device_properties(0).multi_processor_count


def installed(package: str):
    return importlib.metadata.version(package)


def sm_count(dev):
    if torch.get_device_module(dev).device_count() == 0:
        return 1
    if dev.type == "xpu":
        return torch.xpu.get_device_properties(dev).gpu_eu_count
    return torch.cuda.get_device_properties(dev).multi_processor_count


def backend_fn(name: str):
    # The module's function is called: code chosen at run time.
    mod = importlib.import_module(name)
    return mod.run


def call_through(name: str, x):
    mod = importlib.import_module(name)
    return getattr(mod, "kernel_" + name)(x)


def hand_on(name: str):
    mod = importlib.import_module(name)
    return mod


def constant_compute(x):
    # A constant name resolves: its functions are what they are.
    th = importlib.import_module("torch")
    return th.matmul(x, x)
