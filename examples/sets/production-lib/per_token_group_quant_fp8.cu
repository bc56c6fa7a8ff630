// Production baseline for per_token_group_quant_fp8: FlashInfer's
// PerTokenGroupQuant8BitRegisterKernel (flashinfer/quantization.cuh) launched
// by its own launcher PerTokenGroupQuant8BitRegister<bf16, e4m3>, as the
// wheel's csrc/quantization.cu (flashinfer's per_token_group_quant_8bit) does:
// row-major fp32 scales, no UE8M0 rounding of the scales, e4m3 bounds
// -448 / 448. It is FlashInfer's counterpart of the kernels vLLM and SGLang
// run for the 1 x 128 activation quantization of DeepSeek-V3-style block-fp8
// layers (SGLang's sgl_per_token_group_quant_fp8, vLLM's
// per_token_group_fp8_quant): one half warp per 128-value group held in
// registers, absmax with the eps floor, scale = absmax / 448 and x / scale
// both correctly rounded (__fdiv_rn), clamp to +-448, RN satfinite e4m3: the
// operator's definition step for step, bit-identical to the fp32 reference
// (scales exact, codes exact).
// Own code: none (argument checks only). Limits: group_size 128 (FlashInfer's
// register path; the suite's only size), bf16 input, contiguous rows.
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer's kernel does the work); baseline mode.
#include <ATen/cuda/CUDAContext.h>
// The wheel's CUB (included by the FlashInfer header below; its CCCL is newer
// than CUDA 13.0's) tests architecture-family features that CUDA 13.0's
// <nv/target> does not define, and that <nv/target> is the one compiled
// (nvcc puts the toolkit's include directory ahead of every -isystem): define
// them as the wheel's <nv/target> does where a feature is absent, all false
// for sm_90a (as fp8_blockscale_fused_moe.cu).
#include <nv/target>
#ifndef NV_HAS_FEATURE_SM_100f
#define NV_HAS_FEATURE_SM_100f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_103a
#define NV_HAS_FEATURE_SM_103a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_103f
#define NV_HAS_FEATURE_SM_103f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_107a
#define NV_HAS_FEATURE_SM_107a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_107f
#define NV_HAS_FEATURE_SM_107f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_110a
#define NV_HAS_FEATURE_SM_110a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_110f
#define NV_HAS_FEATURE_SM_110f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_120a
#define NV_HAS_FEATURE_SM_120a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_120f
#define NV_HAS_FEATURE_SM_120f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_121a
#define NV_HAS_FEATURE_SM_121a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_121f
#define NV_HAS_FEATURE_SM_121f NV_NO_TARGET
#endif
#include <flashinfer/quantization.cuh>
#include <torch/all.h>

void per_token_group_quant_fp8(torch::Tensor &out_q, torch::Tensor &out_s,
                               const torch::Tensor &x, int64_t group_size,
                               double eps) {
  TORCH_CHECK(group_size == 128, "FlashInfer's register path quantizes groups of 128");
  TORCH_CHECK(x.is_contiguous() && out_q.is_contiguous() && out_s.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(x.scalar_type() == at::kBFloat16 && out_s.scalar_type() == at::kFloat,
              "bf16 input and fp32 scales expected");
  const int64_t h = x.size(-1);
  TORCH_CHECK(h % 128 == 0, "hidden size must be a multiple of 128");
  const int64_t groups = x.numel() / 128, perRow = h / 128;
  cudaError_t st =
      flashinfer::quantization::PerTokenGroupQuant8BitRegister<__nv_bfloat16, __nv_fp8_e4m3>(
          reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
          reinterpret_cast<__nv_fp8_e4m3 *>(out_q.data_ptr()), out_s.data_ptr<float>(), groups,
          static_cast<float>(eps), -448.0f, 448.0f, perRow, /*scale_stride=*/perRow,
          /*column_major=*/false, /*scale_ue8m0=*/false, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(st == cudaSuccess, "flashinfer PerTokenGroupQuant8BitRegister: ",
              cudaGetErrorString(st));
}
