// Production baseline for rms_norm: FlashInfer's RMSNorm (flashinfer/norm.cuh,
// the kernel vLLM and SGLang call through flashinfer.norm.rmsnorm), header
// library instantiated for bf16. Headers: scripts/fetch-production-libs.sh.
// Static and dynamic verdict: fallback (FlashInfer's kernel does the work);
// scored in the baseline mode (delegation permitted).
#include <torch/all.h>
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/norm.cuh>

void rms_norm(torch::Tensor &out, const torch::Tensor &x, const torch::Tensor &w, double eps) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  const uint32_t d = x.size(-1), rows = x.numel() / d;
  cudaError_t st = flashinfer::norm::RMSNorm<__nv_bfloat16>(
      reinterpret_cast<__nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<__nv_bfloat16 *>(w.data_ptr()),
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()), rows, d, d, d,
      static_cast<float>(eps), /*enable_pdl=*/false, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(st == cudaSuccess, "flashinfer RMSNorm: ", cudaGetErrorString(st));
}
