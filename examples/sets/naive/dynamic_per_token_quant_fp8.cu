// Honest naive dynamic_per_token_quant_fp8: one block (256 threads) per token.
// absmax of the row by a shared-memory tree reduction (fmaxf), then
// s = max(absmax, eps) / 448 computed as the reference does on CUDA: ATen
// divides a tensor by a scalar as a multiplication by the fp32 reciprocal,
// s = max(absmax, eps) * (1.f / 448.f) (as per_token_group_quant_fp8.cu; true
// division differs in the last bit for some rows). q = e4m3fn(clamp(x / s,
// -448, 448)) (IEEE division, round-to-nearest-even, saturation to the finite
// range, which the clamp makes moot). Scales out_s [T, 1] fp32.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr float kFp8Max = 448.f;
constexpr int kThreads = 256;

__global__ void dynamic_per_token_quant_fp8_kernel(__nv_fp8_storage_t *out_q, float *out_s,
                                                   const __nv_bfloat16 *x, int h, float eps) {
  __shared__ float partial[kThreads];
  int64_t row = blockIdx.x;
  const __nv_bfloat16 *xr = x + row * h;
  float amax = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x)
    amax = fmaxf(amax, fabsf(__bfloat162float(xr[i])));
  partial[threadIdx.x] = amax;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  // ATen: tensor / scalar = tensor * (1 / scalar).
  float s = fmaxf(partial[0], eps) * (1.f / kFp8Max);
  for (int i = threadIdx.x; i < h; i += blockDim.x) {
    float v = __bfloat162float(xr[i]) / s;
    v = fminf(fmaxf(v, -kFp8Max), kFp8Max);
    out_q[row * h + i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  }
  if (threadIdx.x == 0)
    out_s[row] = s;
}

void dynamic_per_token_quant_fp8(at::Tensor &out_q, at::Tensor &out_s, const at::Tensor &x,
                                 double eps) {
  TORCH_CHECK(x.is_contiguous() && out_q.is_contiguous() && out_s.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(x.scalar_type() == at::kBFloat16, "bf16 x expected");
  int64_t t = x.size(0);
  int h = x.size(1);
  if (t == 0)
    return;
  dynamic_per_token_quant_fp8_kernel<<<t, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_fp8_storage_t *>(out_q.data_ptr()), out_s.data_ptr<float>(),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
