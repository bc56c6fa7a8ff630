# Definitions under a module-level condition or `try` are module-level
# definitions: a kernel defined and launched only where the DSL imports
# (`if runtime_available():`, `try: import triton`) is found, and the first
# definition of a name is the one analysed (the `else:` stand-in that raises
# when the library is missing is not). What such a branch delegates is still
# found: the conditional code is not a hiding place.
# RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=matmul_ref %s 2>&1 | FileCheck %s --check-prefix=FB
import torch

try:
    import triton
    import triton.language as tl

    HAS_TRITON = True
except ImportError:
    HAS_TRITON = False


def _runtime_available():
    return HAS_TRITON


if _runtime_available():

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

    def add(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out

else:

    def add(x, y):
        raise RuntimeError("triton is not installed")


try:

    def matmul_ref(a, b):
        # FB: :[[@LINE+1]]:16: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return torch.matmul(a, b)

except ImportError:
    pass


def custom_kernel(data):
    x, y = data
    return add(x, y)

# CHECK: kernel 'add_kernel' at {{.*}}: launched
# CHECK-NOT: warning:
# CHECK: verdict: adopted
# FB: verdict: fallback (fallback: PyTorch/ATen (torch::matmul)
