// Production baseline for softmax: FlashInfer's OnlineSoftmax
// (flashinfer/sampling.cuh, the kernels behind flashinfer.sampling.softmax,
// csrc/sampling.cu) on fp32 logits at temperature 1, launched by its own
// launcher: for at most 128 rows of 24576 or more logits the vocabulary is
// split in slices of 8192 (OnlineSoftmaxMapKernel: per-slice max and
// denominator into the output rows as scratch, OnlineSoftmaxReduceKernel:
// merge and normalize), otherwise one 1024-thread block per row
// (OnlineSoftmaxFusedKernel, online max / denominator, the row cached in
// shared memory for small rows). In vLLM's and SGLang's samplers this is
// logits.softmax(dim=-1, dtype=float32) (a torch kernel); FlashInfer's is the
// production library's fused equivalent. Numerics: fp32 throughout, the row
// maximum subtracted, exp by __expf (ex2.approx: a few 1e-6 relative at
// arguments near -100, within the 1e-4 tolerance), p = e * (1 / sum);
// temperature 1 multiplies exactly (__fmul_rn by 1.0f). Results below
// 2^-126 may flush to zero (ex2.approx.ftz), admitted by atol 1e-37.
// Own code: none (no PDL; the workspace argument is unused by 0.7.4's
// launcher). Limits: fp32, contiguous rows, logits and probs distinct
// (FlashInfer rejects overlapping buffers on the sliced path).
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer's kernels do the work); baseline mode.
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
#include <flashinfer/sampling.cuh>
#include <torch/all.h>

void softmax(torch::Tensor &probs, const torch::Tensor &logits) {
  TORCH_CHECK(logits.is_contiguous() && probs.is_contiguous(), "contiguous tensors expected");
  TORCH_CHECK(logits.scalar_type() == at::kFloat && probs.scalar_type() == at::kFloat,
              "fp32 logits and probs expected");
  const int64_t v = logits.size(-1);
  const int64_t rows = v == 0 ? 0 : logits.numel() / v;
  if (rows == 0)
    return;
  cudaError_t st = flashinfer::sampling::OnlineSoftmax<float>(
      const_cast<float *>(logits.data_ptr<float>()), probs.data_ptr<float>(),
      static_cast<uint32_t>(rows), static_cast<uint32_t>(v), /*temperature_arr=*/nullptr,
      /*temperature_val=*/1.0f, /*workspace_buffer=*/nullptr,
      /*workspace_buffer_size_in_bytes=*/0, /*enable_pdl=*/false,
      at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(st == cudaSuccess, "flashinfer OnlineSoftmax: ", cudaGetErrorString(st));
}
