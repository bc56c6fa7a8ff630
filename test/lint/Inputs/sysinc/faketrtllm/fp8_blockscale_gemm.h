// A stand-in for TensorRT-LLM's fp8 block-scale GEMM runner (FlashInfer's
// wheel ships the real one under csrc/nv_internal): a library class on a
// system path whose member runs the grouped GEMM.
#pragma once
#include <cstdint>
namespace tensorrt_llm {
namespace kernels {
namespace fp8_blockscale_gemm {
template <typename A, typename B, typename D> class CutlassFp8BlockScaleGemmRunner {
public:
  void moeGemm(void *d, const void *a, const void *b, const int64_t *offsets, int64_t groups,
               int64_t n, int64_t k, void *stream, float *sa, float *sb);
};
} // namespace fp8_blockscale_gemm
} // namespace kernels
} // namespace tensorrt_llm
