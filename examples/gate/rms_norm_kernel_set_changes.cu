// Honest kernel that launches an extra (empty) kernel on every third call: the
// set of kernels launched per call is not the same in every timed iteration,
// which the gate reports (integrity.kernel_set.changed_reps > 0).
// Expected: adopted, with the change reported.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void sometimes_kernel() {}

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
  static int calls = 0;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (++calls % 3 == 0)
    sometimes_kernel<<<1, 1, 0, stream>>>();
  int t = x.size(0), h = x.size(1);
  rms_norm_kernel<<<t, 256, 256 * sizeof(float), stream>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
