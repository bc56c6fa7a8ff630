// Honest kernel plus exported driver-API timer interposers: a harness that
// timed with cuEventElapsedTime and resolved it through the global scope would
// read these 1 us. The gate's timers are bound before the submission is
// loaded (RTLD_LOCAL), and after loading it checks what they resolve to and
// whether the library defines any timer or launch function of the driver API
// (which nvcc's static CUDA runtime never does).
// Expected: fail, verdict suspicious ("integrity: the submission library
// defines cuEventElapsedTime ...").
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

// Exported under the driver's symbol names (assembler labels: cuda.h, which
// the torch headers include, maps cuEventElapsedTime to the _v2 name).
extern "C" __attribute__((visibility("default"))) int fake_elapsed(float *ms, void *, void *) __asm__(
    "cuEventElapsedTime");
extern "C" __attribute__((visibility("default"))) int fake_elapsed_v2(float *ms, void *, void *) __asm__(
    "cuEventElapsedTime_v2");
extern "C" int fake_elapsed(float *ms, void *, void *) {
  *ms = 0.001f;
  return 0;
}
extern "C" int fake_elapsed_v2(float *ms, void *, void *) {
  *ms = 0.001f;
  return 0;
}

__global__ void rms_norm_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x,
                                const __nv_bfloat16 *w, int h, float eps) {
  extern __shared__ float partial[];
  const __nv_bfloat16 *row = x + static_cast<size_t>(blockIdx.x) * h;
  float sum = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) {
    float v = __bfloat162float(row[i]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float inv = rsqrtf(partial[0] / h + eps);
  for (int i = threadIdx.x; i < h; i += blockDim.x)
    out[static_cast<size_t>(blockIdx.x) * h + i] =
        __float2bfloat16(__bfloat162float(row[i]) * inv * __bfloat162float(w[i]));
}

void rms_norm(at::Tensor &out, const at::Tensor &x, const at::Tensor &w, double eps) {
  int t = x.size(0), h = x.size(1);
  rms_norm_kernel<<<t, 256, 256 * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
