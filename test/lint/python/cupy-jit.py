# cupyx.jit: `@jit.rawkernel()` functions are kernels, launched as
# `k[grid, block](args)` or `k(grid, block, args)`. CuPy allocation, dtypes,
# casts, host copies and streams are glue; CuPy compute (array methods such
# as `x.sum()`, operators on arrays, `cupy.dot`) is delegation to CuPy.
# RUN: atrex-lint --no-snippets --inventory --entry=scale %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=checked_scale %s 2>&1 | FileCheck %s --check-prefix=COMPUTE
import cupy
from cupyx import jit


@jit.rawkernel()
def scale_kernel(x, y, size):
    tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if tid < size:
        y[tid] = x[tid] * cupy.float32(2)


@jit.rawkernel()
def add_one_kernel(y, size):
    tid = jit.threadIdx.x
    if tid < size:
        y[tid] = y[tid] + 1


def scale(x):
    y = cupy.empty_like(x)
    z = cupy.zeros((x.size,), dtype=cupy.float32)
    size = cupy.uint32(x.size)
    with cupy.cuda.Stream():
        scale_kernel[(x.size + 255) // 256, 256](x, y, size)
        add_one_kernel((1,), (256,), (z, size))
    return y.astype(cupy.float16), z.get()


def _norm(a):
    # COMPUTE: cupy-jit.py:[[@LINE+1]]:12: warning: call to 'cupy::ndarray::max' delegates compute to CuPy [atrex-delegation-vendor]
    return a.max()


def checked_scale(x):
    y = cupy.asarray(x)
    scale(y)
    top = _norm(y)
    # COMPUTE: cupy-jit.py:[[@LINE+1]]:13: warning: call to 'cupy::ndarray::sum' delegates compute to CuPy [atrex-delegation-vendor]
    total = y.sum()
    # COMPUTE: cupy-jit.py:[[@LINE+1]]:14: warning: call to 'cupy::dot' delegates compute to CuPy [atrex-delegation-vendor]
    scores = cupy.dot(x, x)
    # COMPUTE: cupy-jit.py:[[@LINE+1]]:14: warning: call to 'cupy::ndarray::operator*' delegates compute to CuPy [atrex-delegation-vendor]
    return y * 2, total, scores, top
# CHECK-NOT: warning
# CHECK: kernel 'scale_kernel' at {{.*}}cupy-jit.py:12:5: launched
# CHECK: kernel 'add_one_kernel' at {{.*}}cupy-jit.py:19:5: launched
# CHECK: verdict: adopted
# COMPUTE: verdict: fallback (fallback: CuPy (cupy::ndarray::max); fallback: CuPy (cupy::ndarray::sum); fallback: CuPy (cupy::dot); fallback: CuPy (cupy::ndarray::operator*))
