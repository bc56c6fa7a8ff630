// Production baseline for rms_norm: FlashInfer's RMS norms
// (flashinfer/norm.cuh), header library instantiated for bf16. Headers:
// scripts/fetch-production-libs.sh. Rows of hidden size (H > 256): RMSNorm, one
// block per row, the kernel vLLM and SGLang call through
// flashinfer.norm.rmsnorm on 2-D input. Rows of a head's size (H <= 256: the
// q_norm / k_norm shapes, T = tokens x heads): QKRMSNorm on [rows, 1, H], one
// warp per row on a persistent grid, the kernel flashinfer.norm.rmsnorm runs
// for per-head (3-D) input; RMSNorm would launch one block of H/8 threads per
// row (16 for H = 128: S 0.098 at T = 524288 on the H200,
// bench/results/suite-2026-12-05). Both round once (x * rsqrt * w in fp32).
// Static verdict fallback (FlashInfer's kernels do the work), dynamic adopted
// (compiled into the submission); scored in the baseline mode (delegation
// permitted).
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/norm.cuh>
#include <torch/all.h>

void rms_norm(torch::Tensor &out, const torch::Tensor &x,
              const torch::Tensor &w, double eps) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const uint32_t d = x.size(-1), rows = x.numel() / d;
  auto *xp = reinterpret_cast<__nv_bfloat16 *>(x.data_ptr());
  auto *wp = reinterpret_cast<__nv_bfloat16 *>(w.data_ptr());
  auto *op = reinterpret_cast<__nv_bfloat16 *>(out.data_ptr());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  cudaError_t st;
  if (d <= 256)
    st = flashinfer::norm::QKRMSNorm<__nv_bfloat16>(
        xp, wp, op, rows, /*num_heads=*/1, d,
        /*stride_input_n=*/d, /*stride_input_h=*/d,
        /*stride_output_n=*/d,
        /*stride_output_h=*/d, static_cast<float>(eps),
        /*enable_pdl=*/false, stream);
  else
    st = flashinfer::norm::RMSNorm<__nv_bfloat16>(xp, wp, op, rows, d, d, d,
                                                  static_cast<float>(eps),
                                                  /*enable_pdl=*/false, stream);
  TORCH_CHECK(st == cudaSuccess, "flashinfer ",
              d <= 256 ? "QKRMSNorm" : "RMSNorm", ": ", cudaGetErrorString(st));
}
