// Honest silu_and_mul kernel that also writes what it reads from the
// environment to files: one under /tmp (shared with the machine), one in
// $TMPDIR (the worker's private directory), one next to its own library (the
// compile cache). Under the gate's read-only view only the $TMPDIR file can be
// written, and the result records it. Expected: pass, adopted
// (plan-integrity.json).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>

__global__ void silu_and_mul_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, int64_t t, int d) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= t * d)
    return;
  int64_t row = i / d, col = i % d;
  float a = __bfloat162float(x[row * 2 * d + col]);
  float b = __bfloat162float(x[row * 2 * d + d + col]);
  out[i] = __float2bfloat16(a / (1.f + __expf(-a)) * b);
}

static void dump(const std::string &path) {
  if (FILE *f = std::fopen(path.c_str(), "w")) {
    const char *home = std::getenv("HOME");
    std::fprintf(f, "HOME=%s\n", home ? home : "");
    std::fclose(f);
  }
}

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  dump("/tmp/atrex-gate-leak-test.txt");
  if (const char *tmp = std::getenv("TMPDIR"))
    dump(std::string(tmp) + "/env.txt");
  Dl_info dl{};
  if (dladdr(reinterpret_cast<void *>(&dump), &dl) && dl.dli_fname)
    dump(std::string(dl.dli_fname) + ".tampered");
  int64_t t = x.size(0);
  int d = x.size(1) / 2;
  int64_t n = t * d;
  silu_and_mul_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), t, d);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
