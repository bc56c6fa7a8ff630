// Production baseline for reshape_and_cache: FlashInfer's paged KV append
// (flashinfer/page.cuh AppendPagedKVCache, AppendPagedKVCacheKernel: the
// kernel behind flashinfer.page.append_paged_kv_cache, launched by FlashInfer's
// own launcher: one CTA per token in a grid-stride loop over the SMs, threads
// (D / vec, Hk), 16-byte copies), in place on key_cache and value_cache.
//
// The card's caches [NB, BS, Hk, D] are FlashInfer's NHD pages of BS tokens.
// slot_mapping becomes FlashInfer's metadata without a host copy: one request
// whose page list is every block in order (indices[p] = p, indptr {0, NB}),
// batch_indices[t] = 0 and positions[t] = slot_mapping[t], so FlashInfer's
// (page, entry) = (slot / BS, slot % BS) is the card's. FlashInfer's kernel
// has no way to skip a token (it writes every one of nnz rows), and the
// card's padding tokens (slot -1) must write nothing: they are parked on
// slot 0 (positions[t] = 0), and an own one-block kernel after the append
// writes slot 0's final contents: the row of the token whose slot is 0 if
// there is one (the last such token), otherwise the old row, saved before the
// append. Own kernels: `prepare` (metadata, slot 0 saved, each block's owner
// of slot 0: 8T read, 8T + 4NB + 4 Hk D written), `repair` (one block: the
// owners of the max(T, NB) / 256 blocks, one row of K and V rewritten).
// Head sizes FlashInfer's launcher does not dispatch (D = 96) are copied as
// the same bytes regrouped into heads of 128 (the copy is per token row of
// Hk * D contiguous elements in both tensors; e.g. Hk 32 x D 96 as 24 x 128).
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/page.cuh>
#include <torch/all.h>

#include <algorithm>

namespace {
using DType = __nv_bfloat16;

// FlashInfer's metadata for the append; slot 0's old rows into `saved` (key
// row then value row; slot 0 is the first row of both caches); per block the
// last token whose slot is 0, or -1, into block_owner.
__global__ void prepare(const int64_t *__restrict__ slot_mapping,
                        int32_t *__restrict__ positions,
                        int32_t *__restrict__ batch_indices,
                        int32_t *__restrict__ indices, int32_t *__restrict__ indptr,
                        int32_t *__restrict__ last_page_len,
                        const DType *__restrict__ key_cache,
                        const DType *__restrict__ value_cache,
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
    for (int64_t j = threadIdx.x; j < row; j += blockDim.x) {
      saved[j] = key_cache[j];
      saved[row + j] = value_cache[j];
    }
  __syncthreads();
  if (threadIdx.x == 0)
    block_owner[blockIdx.x] = owner;
}

// Slot 0 after the append: the row of the (last) token whose slot is 0, or
// the saved old row when no token writes slot 0.
__global__ void repair(const int32_t *__restrict__ block_owner, int blocks,
                       const DType *__restrict__ key, const DType *__restrict__ value,
                       DType *__restrict__ key_cache, DType *__restrict__ value_cache,
                       const DType *__restrict__ saved, int64_t row) {
  __shared__ int owner;
  if (threadIdx.x == 0)
    owner = -1;
  __syncthreads();
  for (int b = threadIdx.x; b < blocks; b += blockDim.x)
    atomicMax(&owner, block_owner[b]);
  __syncthreads();
  const DType *k = owner >= 0 ? key + owner * row : saved;
  const DType *v = owner >= 0 ? value + owner * row : saved + row;
  for (int64_t j = threadIdx.x; j < row; j += blockDim.x) {
    key_cache[j] = k[j];
    value_cache[j] = v[j];
  }
}

// FlashInfer's launcher: threads (D / vec, heads), vec = max(8, D / 32).
int64_t threadsFor(int64_t d, int64_t heads) {
  return d / std::max<int64_t>(8, d / 32) * heads;
}
} // namespace

void reshape_and_cache(const torch::Tensor &key, const torch::Tensor &value,
                       torch::Tensor &key_cache, torch::Tensor &value_cache,
                       const torch::Tensor &slot_mapping) {
  TORCH_CHECK(key.scalar_type() == at::kBFloat16 && value.scalar_type() == at::kBFloat16 &&
                  key_cache.scalar_type() == at::kBFloat16 &&
                  value_cache.scalar_type() == at::kBFloat16,
              "bf16 keys, values and caches expected");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong, "int64 slot_mapping expected");
  TORCH_CHECK(key.is_contiguous() && value.is_contiguous() && key_cache.is_contiguous() &&
                  value_cache.is_contiguous() && slot_mapping.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(key_cache.dim() == 4 && key_cache.sizes() == value_cache.sizes(),
              "caches [NB, BS, Hk, D] expected");
  const int64_t tokens = slot_mapping.numel();
  if (tokens == 0)
    return;
  const int64_t pages = key_cache.size(0), bs = key_cache.size(1);
  const int64_t hk = key_cache.size(2), d = key_cache.size(3), row = hk * d;
  TORCH_CHECK(key.numel() == tokens * row && value.numel() == tokens * row,
              "key and value [T, Hk, D] expected");
  TORCH_CHECK(pages * bs <= INT32_MAX, "slots must fit FlashInfer's int32 positions");

  // The head split FlashInfer copies by: the card's (Hk, D) where its
  // launcher dispatches D (64, 128, 256, 512) within 1024 threads, otherwise
  // the same row as heads of 128, 256, 512 or 64.
  int64_t headDim = 0;
  for (int64_t c : {d, int64_t(128), int64_t(256), int64_t(512), int64_t(64)}) {
    const bool dispatched = c == 64 || c == 128 || c == 256 || c == 512;
    if (dispatched && row % c == 0 && threadsFor(c, row / c) <= 1024) {
      headDim = c;
      break;
    }
  }
  TORCH_CHECK(headDim > 0, "Hk * D = ", row, " has no head split FlashInfer's append launches");
  const int64_t heads = row / headDim;

  auto i32 = torch::TensorOptions().dtype(torch::kInt32).device(key_cache.device());
  const int64_t span = std::max(tokens, pages);
  const int blocks = static_cast<int>((span + 255) / 256);
  torch::Tensor meta = torch::empty({2 * tokens + pages + 3 + blocks}, i32);
  torch::Tensor saved = torch::empty({2 * row}, key_cache.options());
  int32_t *positions = meta.data_ptr<int32_t>();
  int32_t *batchIndices = positions + tokens;
  int32_t *indices = batchIndices + tokens;
  int32_t *indptr = indices + pages;
  int32_t *lastPageLen = indptr + 2;
  int32_t *blockOwner = lastPageLen + 1;
  auto *kc = reinterpret_cast<DType *>(key_cache.data_ptr());
  auto *vc = reinterpret_cast<DType *>(value_cache.data_ptr());
  auto *k = reinterpret_cast<DType *>(key.data_ptr());
  auto *v = reinterpret_cast<DType *>(value.data_ptr());
  auto *sv = reinterpret_cast<DType *>(saved.data_ptr());
  const int64_t *slots = slot_mapping.data_ptr<int64_t>();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  prepare<<<blocks, 256, 0, stream>>>(slots, positions, batchIndices, indices, indptr,
                                     lastPageLen, kc, vc, sv, blockOwner, tokens, pages,
                                     static_cast<int32_t>(bs), row);
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  flashinfer::paged_kv_t<DType, int32_t> paged(
      static_cast<uint32_t>(heads), static_cast<uint32_t>(bs), static_cast<uint32_t>(headDim),
      /*batch_size=*/1, flashinfer::QKVLayout::kNHD, kc, vc, indices, indptr, lastPageLen);
  cudaError_t st = flashinfer::AppendPagedKVCache<DType, int32_t>(
      paged, k, v, batchIndices, positions, static_cast<uint32_t>(tokens),
      /*append_k_stride_n=*/row, /*append_k_stride_h=*/headDim,
      /*append_v_stride_n=*/row, /*append_v_stride_h=*/headDim, stream);
  TORCH_CHECK(st == cudaSuccess, "flashinfer AppendPagedKVCache: ", cudaGetErrorString(st));

  repair<<<1, 1024, 0, stream>>>(blockOwner, blocks, k, v, kc, vc, sv, row);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
