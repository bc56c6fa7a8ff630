// Honest naive per_token_group_quant_fp8: one warp per (token, group) of
// group_size (128) columns. s = max(absmax(group), eps) / 448 computed as the
// reference does on CUDA: ATen divides a tensor by a scalar as a multiplication
// by the fp32 reciprocal, s = max(absmax, eps) * (1.f / 448.f) (true division
// differs in the last bit for about half of the groups, and then x / s lands on
// the other side of e4m3 rounding ties). q = e4m3fn(clamp(x / s, -448, 448))
// (IEEE division, round-to-nearest-even, saturation to the finite range, which
// the clamp makes moot). Scales out_s [T, H / group_size] fp32.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr float kFp8Max = 448.f;

__global__ void per_token_group_quant_fp8_kernel(__nv_fp8_storage_t *out_q, float *out_s,
                                                 const __nv_bfloat16 *x, int64_t num_groups,
                                                 int group_size, float eps) {
  int lane = threadIdx.x % 32;
  int64_t g = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (g >= num_groups)
    return;
  const __nv_bfloat16 *xg = x + g * group_size;
  float amax = 0.f;
  for (int i = lane; i < group_size; i += 32)
    amax = fmaxf(amax, fabsf(__bfloat162float(xg[i])));
  for (int off = 16; off > 0; off >>= 1)
    amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
  float s = fmaxf(amax, eps) * (1.f / kFp8Max); // ATen: tensor / scalar = tensor * (1 / scalar)
  for (int i = lane; i < group_size; i += 32) {
    float v = __bfloat162float(xg[i]) / s;
    v = fminf(fmaxf(v, -kFp8Max), kFp8Max);
    out_q[g * group_size + i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  }
  if (lane == 0)
    out_s[g] = s;
}

void per_token_group_quant_fp8(at::Tensor &out_q, at::Tensor &out_s, const at::Tensor &x,
                               int64_t group_size, double eps) {
  TORCH_CHECK(x.is_contiguous(), "contiguous x expected");
  TORCH_CHECK(group_size > 0 && x.size(-1) % group_size == 0, "H must be a multiple of group_size");
  int64_t num_groups = x.numel() / group_size;
  if (num_groups == 0)
    return;
  const int warps = 8;
  int64_t blocks = (num_groups + warps - 1) / warps;
  per_token_group_quant_fp8_kernel<<<blocks, warps * 32, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_fp8_storage_t *>(out_q.data_ptr()), out_s.data_ptr<float>(),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), num_groups,
      static_cast<int>(group_size), static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
