// Production baseline for rotary_embedding: FlashInfer's
// BatchQKApplyRotaryPosIdsCosSinCache (flashinfer/pos_enc.cuh, the kernel
// behind flashinfer.rope.apply_rope_with_cos_sin_cache_inplace that vLLM and
// SGLang use), in place on query and key. FlashInfer takes an fp32 cos/sin
// cache: the card's cache is converted per call (ATen), as its Python wrapper
// does. Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer, and ATen's cast); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/pos_enc.cuh>
#include <torch/all.h>

void rotary_embedding(const torch::Tensor &positions, torch::Tensor &query,
                      torch::Tensor &key, int64_t head_size,
                      const torch::Tensor &cos_sin_cache, bool is_neox) {
  const int64_t tokens = positions.numel();
  if (tokens == 0)
    return;
  const uint32_t rot = cos_sin_cache.size(1);
  const uint32_t hq = query.numel() / tokens / head_size,
                 hk = key.numel() / tokens / head_size;
  torch::Tensor cs = cos_sin_cache.scalar_type() == at::kFloat
                         ? cos_sin_cache.contiguous()
                         : cos_sin_cache.to(at::kFloat);
  torch::Tensor pos = positions.flatten().contiguous();
  auto *q = reinterpret_cast<__nv_bfloat16 *>(query.data_ptr());
  auto *k = reinterpret_cast<__nv_bfloat16 *>(key.data_ptr());
  // FlashInfer 0.7.4 runs head sizes 64, 128, 256 and 512 by its rotary
  // kernel, which is safe in place; any other (D = 96) goes to RopeQuantize,
  // which is not (a thread reads the partner half another thread already
  // rotated: head size 96 failed on the H200, 2026-12-04). There the inputs
  // are copies and the results written into query and key.
  torch::Tensor qIn, kIn;
  auto *qSrc = q, *kSrc = k;
  if (head_size != 64 && head_size != 128 && head_size != 256 &&
      head_size != 512) {
    qIn = query.clone();
    kIn = key.clone();
    qSrc = reinterpret_cast<__nv_bfloat16 *>(qIn.data_ptr());
    kSrc = reinterpret_cast<__nv_bfloat16 *>(kIn.data_ptr());
  }
  const size_t qn = hq * head_size, kn = hk * head_size;
  cudaError_t st =
      flashinfer::BatchQKApplyRotaryPosIdsCosSinCache<__nv_bfloat16, int64_t>(
          qSrc, kSrc, q, k, cs.data_ptr<float>(), pos.data_ptr<int64_t>(),
          tokens, hq, hk, rot, head_size, qn, head_size, kn, head_size, qn,
          head_size, kn, head_size, /*interleave=*/!is_neox,
          at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(st == cudaSuccess, "flashinfer rotary: ", cudaGetErrorString(st));
}
