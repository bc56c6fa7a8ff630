# `cupy.RawKernel` compiles CUDA source with NVRTC at run time, also the
# file's own string: run-time compilation, as NVRTC is in C++ (suspicious in
# every mode). A program's CuPy inputs (`cupy.random.*`) and result checks
# (`cupy.testing.*`) are glue, as torch's are; its CuPy compute is
# delegation.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import cupy as cp

SRC = r'''
extern "C" __global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
'''


def twice(x):
    y = cp.empty_like(x)
    # CHECK: cupy-rawkernel.py:[[@LINE+1]]:12: error: call to 'cupy::RawKernel' compiles code at run time [atrex-evasion-runtime-compile]
    kern = cp.RawKernel(SRC, "twice")
    kern(((x.size + 255) // 256,), (256,), (x, y, cp.int32(x.size)))
    return y


def main():
    x = cp.random.uniform(-1.0, 1.0, size=(1024,)).astype(cp.float32)
    y = twice(x)
    cp.testing.assert_array_almost_equal(y, x + x)
    # CHECK: cupy-rawkernel.py:[[@LINE+1]]:11: warning: call to 'cupy::linalg::norm' delegates compute to CuPy [atrex-delegation-vendor]
    print(cp.linalg.norm(y))


if __name__ == "__main__":
    main()
# CHECK-NOT: cupy::random
# CHECK-NOT: cupy::testing
# CHECK: verdict: suspicious (suspicious: atrex-evasion-runtime-compile (cupy::RawKernel); fallback: CuPy (cupy::ndarray::operator+); fallback: CuPy (cupy::linalg::norm)
