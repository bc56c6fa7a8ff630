// Hides its work on a fresh non-blocking stream each call: the stream waits
// on the caller's stream, is never joined back, and is destroyed before the
// call returns (the work still runs). Events on the caller's stream alone time
// an almost empty region, and an event recorded on the destroyed stream
// crashed the gate's worker (issue 15). The gate times it device-wide (the
// clean run's CUPTI span of every activity the call started).
// Expected: adopted, median about the kernel's time (rms_norm_naive.cu's).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

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
  cudaStream_t caller = at::cuda::getCurrentCUDAStream();
  cudaStream_t side = nullptr;
  cudaEvent_t ready = nullptr;
  C10_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  C10_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  C10_CUDA_CHECK(cudaEventRecord(ready, caller));
  C10_CUDA_CHECK(cudaStreamWaitEvent(side, ready, 0));
  int t = x.size(0), h = x.size(1);
  rms_norm_kernel<<<t, 256, 256 * sizeof(float), side>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  C10_CUDA_CHECK(cudaEventDestroy(ready));
  C10_CUDA_CHECK(cudaStreamDestroy(side)); // returns at once; the kernel runs on
}
