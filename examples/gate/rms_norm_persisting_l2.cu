// Honest kernel that asks for a persisting-L2 carve-out and puts its input
// into an access policy window on the caller's stream, so that x would stay in
// L2 across the gate's flush. The gate resets both before every timed call
// and records what it found (integrity.persisting_l2).
// Expected: adopted, integrity.persisting_l2.*_found > 0.
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
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  int dev = 0, maxPersist = 0, maxWindow = 0;
  C10_CUDA_CHECK(cudaGetDevice(&dev));
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&maxPersist, cudaDevAttrMaxPersistingL2CacheSize, dev));
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&maxWindow, cudaDevAttrMaxAccessPolicyWindowSize, dev));
  C10_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, maxPersist));
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.base_ptr = const_cast<void *>(x.data_ptr());
  v.accessPolicyWindow.num_bytes = std::min<size_t>(x.nbytes(), maxWindow);
  v.accessPolicyWindow.hitRatio = 1.0f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  C10_CUDA_CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &v));
  int t = x.size(0), h = x.size(1);
  rms_norm_kernel<<<t, 256, 256 * sizeof(float), stream>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
