// Production baseline for concat_and_cache_mla: FlashInfer's MLA paged cache
// append (flashinfer/page.cuh AppendPagedKVMlaCache, AppendPagedKVMlaCacheKernel:
// the kernel behind flashinfer.page.append_paged_mla_kv_cache, launched by
// FlashInfer's own launcher: one CTA of 64 threads per token in a grid-stride
// loop over the SMs, 16-byte copies of the 512 kv_c and 64 k_pe elements), in
// place on kv_cache. FlashInfer compiles L = 512, R = 64 only (DeepSeek's
// kv_lora_rank and qk_rope_head_dim; every problem of the suite).
//
// FlashInfer keeps ckv and kpe as two paged caches with their own strides; the
// card's one cache [NB, BS, L + R] is both, as strided views: ckv at
// kv_cache (page stride BS (L + R), row stride L + R), kpe at kv_cache + L
// (the same strides), as FlashInfer's Python API takes kv_cache[..., :L] and
// kv_cache[..., L:]. slot_mapping becomes FlashInfer's metadata without a host
// copy: one request whose page list is every block in order (indices[p] = p,
// indptr {0, NB}), batch_indices[t] = 0, positions[t] = slot_mapping[t], so
// FlashInfer's (page, entry) = (slot / BS, slot % BS) is the card's.
// FlashInfer's kernel has no way to skip a token (it writes every one of nnz
// rows), and the card's padding tokens (slot -1) must write nothing: they are
// parked on slot 0 (positions[t] = 0), and an own one-block kernel after the
// append writes slot 0's final contents: the row of the token whose slot is 0
// if there is one (the last such token), otherwise the old row, saved before
// the append. Own kernels: `prepare` (metadata, slot 0 saved, each block's
// owner of slot 0: 8T read, 8T + 4NB + 2 (L + R) written), `repair` (one
// block: the owners of the max(T, NB) / 256 blocks, one row rewritten).
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/page.cuh>
#include <torch/all.h>

#include <algorithm>

namespace {
using DType = __nv_bfloat16;

// FlashInfer's metadata for the append; slot 0's old row (the cache's first
// row) into `saved`; per block the last token whose slot is 0, or -1, into
// block_owner.
__global__ void prepare(const int64_t *__restrict__ slot_mapping,
                        int32_t *__restrict__ positions,
                        int32_t *__restrict__ batch_indices,
                        int32_t *__restrict__ indices, int32_t *__restrict__ indptr,
                        int32_t *__restrict__ last_page_len, const DType *__restrict__ cache,
                        DType *__restrict__ saved, int32_t *__restrict__ block_owner,
                        int64_t tokens, int64_t pages, int32_t block_size, int64_t row) {
  __shared__ int owner;
  if (threadIdx.x == 0)
    owner = -1;
  __syncthreads();
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < tokens) {
    const int64_t s = slot_mapping[i];
    positions[i] = s >= 0 ? static_cast<int32_t>(s) : 0; // padding: parked on slot 0
    batch_indices[i] = 0;
    if (s == 0)
      atomicMax(&owner, static_cast<int>(i));
  }
  if (i < pages)
    indices[i] = static_cast<int32_t>(i);
  if (i == 0) {
    indptr[0] = 0;
    indptr[1] = static_cast<int32_t>(pages);
    last_page_len[0] = block_size;
  }
  if (blockIdx.x == 0)
    for (int64_t j = threadIdx.x; j < row; j += blockDim.x)
      saved[j] = cache[j];
  __syncthreads();
  if (threadIdx.x == 0)
    block_owner[blockIdx.x] = owner;
}

// Slot 0 after the append: concat(kv_c, k_pe) of the (last) token whose slot
// is 0, or the saved old row when no token writes slot 0.
__global__ void repair(const int32_t *__restrict__ block_owner, int blocks,
                       const DType *__restrict__ kv_c, const DType *__restrict__ k_pe,
                       DType *__restrict__ cache, const DType *__restrict__ saved, int64_t l,
                       int64_t r) {
  __shared__ int owner;
  if (threadIdx.x == 0)
    owner = -1;
  __syncthreads();
  for (int b = threadIdx.x; b < blocks; b += blockDim.x)
    atomicMax(&owner, block_owner[b]);
  __syncthreads();
  for (int64_t j = threadIdx.x; j < l + r; j += blockDim.x) {
    if (owner < 0)
      cache[j] = saved[j];
    else
      cache[j] = j < l ? kv_c[owner * l + j] : k_pe[owner * r + (j - l)];
  }
}
} // namespace

void concat_and_cache_mla(const torch::Tensor &kv_c, const torch::Tensor &k_pe,
                          torch::Tensor &kv_cache, const torch::Tensor &slot_mapping) {
  TORCH_CHECK(kv_c.scalar_type() == at::kBFloat16 && k_pe.scalar_type() == at::kBFloat16 &&
                  kv_cache.scalar_type() == at::kBFloat16,
              "bf16 kv_c, k_pe and cache expected");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong, "int64 slot_mapping expected");
  TORCH_CHECK(kv_c.is_contiguous() && k_pe.is_contiguous() && kv_cache.is_contiguous() &&
                  slot_mapping.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(kv_c.dim() == 2 && k_pe.dim() == 2 && kv_cache.dim() == 3,
              "kv_c [T, L], k_pe [T, R], kv_cache [NB, BS, L + R] expected");
  const int64_t tokens = slot_mapping.numel();
  if (tokens == 0)
    return;
  const int64_t l = kv_c.size(1), r = k_pe.size(1), row = l + r;
  const int64_t pages = kv_cache.size(0), bs = kv_cache.size(1);
  TORCH_CHECK(kv_cache.size(2) == row && kv_c.size(0) == tokens && k_pe.size(0) == tokens,
              "shapes of kv_c, k_pe and kv_cache disagree");
  TORCH_CHECK(l == 512 && r == 64, "FlashInfer's MLA append compiles L = 512, R = 64 only (L = ",
              l, ", R = ", r, ")");
  TORCH_CHECK(pages * bs <= INT32_MAX, "slots must fit FlashInfer's int32 positions");

  auto i32 = torch::TensorOptions().dtype(torch::kInt32).device(kv_cache.device());
  const int64_t span = std::max(tokens, pages);
  const int blocks = static_cast<int>((span + 255) / 256);
  torch::Tensor meta = torch::empty({2 * tokens + pages + 3 + blocks}, i32);
  torch::Tensor saved = torch::empty({row}, kv_cache.options());
  int32_t *positions = meta.data_ptr<int32_t>();
  int32_t *batchIndices = positions + tokens;
  int32_t *indices = batchIndices + tokens;
  int32_t *indptr = indices + pages;
  int32_t *lastPageLen = indptr + 2;
  int32_t *blockOwner = lastPageLen + 1;
  auto *cache = reinterpret_cast<DType *>(kv_cache.data_ptr());
  auto *ckv = reinterpret_cast<DType *>(kv_c.data_ptr());
  auto *kpe = reinterpret_cast<DType *>(k_pe.data_ptr());
  auto *sv = reinterpret_cast<DType *>(saved.data_ptr());
  const int64_t *slots = slot_mapping.data_ptr<int64_t>();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  prepare<<<blocks, 256, 0, stream>>>(slots, positions, batchIndices, indices, indptr,
                                     lastPageLen, cache, sv, blockOwner, tokens, pages,
                                     static_cast<int32_t>(bs), row);
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  // ckv and kpe as strided views of the one cache: {page stride, row stride}.
  const int64_t strides[2] = {bs * row, row};
  flashinfer::paged_kv_mla_t<DType, int32_t> paged(
      static_cast<uint32_t>(bs), static_cast<uint32_t>(l), static_cast<uint32_t>(r),
      /*batch_size=*/1, cache, strides, cache + l, strides, indices, indptr, lastPageLen);
  cudaError_t st = flashinfer::AppendPagedKVMlaCache<DType, int32_t>(
      paged, ckv, kpe, batchIndices, positions, static_cast<uint32_t>(tokens),
      /*append_ckv_stride_n=*/l, /*append_kpe_stride_n=*/r, stream);
  TORCH_CHECK(st == cudaSuccess, "flashinfer AppendPagedKVMlaCache: ", cudaGetErrorString(st));

  repair<<<1, 1024, 0, stream>>>(blockOwner, blocks, ckv, kpe, cache, sv, l, r);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
