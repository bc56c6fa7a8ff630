from .ops.act import gelu_fast
