// Honest naive moe_align_block_size, in four kernels of its own:
//   init:    sorted_token_ids = N (= T*K, the sentinel), expert_ids = 0,
//            per-expert counts = 0;
//   count:   one thread per (token, slot) pair, atomicAdd on its expert's count;
//   offsets: one thread walks the experts: offset[e] = sum of the padded counts
//            ceil(count / BS) * BS before e, expert_ids of e's blocks = e,
//            num_tokens_post_pad = the padded total;
//   scatter: one thread per expert scans topk_ids in flat order and writes the
//            flat indices of its pairs from offset[e] on, so the order within
//            an expert is increasing (the definition's canonical order, which
//            vLLM's atomics do not keep).
// Ids outside [0, E) are skipped (as vLLM does). Scratch: 2E int32
// (at::empty).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void moe_align_init_kernel(int *sorted_token_ids, int64_t padded_len, int *expert_ids,
                                      int64_t blocks, int *counts, int e, int n) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < padded_len;
       i += stride)
    sorted_token_ids[i] = n;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < blocks;
       i += stride)
    expert_ids[i] = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < e;
       i += stride)
    counts[i] = 0;
}

__global__ void moe_align_count_kernel(const int *topk_ids, int n, int e, int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int id = topk_ids[i];
  if (id >= 0 && id < e)
    atomicAdd(&counts[id], 1);
}

__global__ void moe_align_offsets_kernel(const int *counts, int e, int block_size, int *offsets,
                                         int *expert_ids, int *num_tokens_post_pad) {
  int offset = 0;
  for (int x = 0; x < e; ++x) {
    offsets[x] = offset;
    int padded = (counts[x] + block_size - 1) / block_size * block_size;
    for (int b = offset / block_size; b < (offset + padded) / block_size; ++b)
      expert_ids[b] = x;
    offset += padded;
  }
  num_tokens_post_pad[0] = offset;
}

__global__ void moe_align_scatter_kernel(const int *topk_ids, int n, int e, const int *offsets,
                                         int *sorted_token_ids) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= e)
    return;
  int pos = offsets[x];
  for (int i = 0; i < n; ++i)
    if (topk_ids[i] == x)
      sorted_token_ids[pos++] = i;
}

void moe_align_block_size(at::Tensor &sorted_token_ids, at::Tensor &expert_ids,
                          at::Tensor &num_tokens_post_pad, const at::Tensor &topk_ids,
                          int64_t num_experts, int64_t block_size) {
  TORCH_CHECK(topk_ids.is_contiguous() && topk_ids.scalar_type() == at::kInt,
              "contiguous int32 topk_ids expected");
  TORCH_CHECK(sorted_token_ids.scalar_type() == at::kInt && expert_ids.scalar_type() == at::kInt &&
                  num_tokens_post_pad.scalar_type() == at::kInt,
              "int32 outputs expected");
  TORCH_CHECK(num_experts > 0 && block_size > 0, "num_experts and block_size must be positive");
  int n = topk_ids.numel();
  int e = static_cast<int>(num_experts);
  int64_t padded_len = sorted_token_ids.numel(), blocks = expert_ids.numel();
  TORCH_CHECK(padded_len >= n + num_experts * (block_size - 1) &&
                  blocks * block_size >= padded_len,
              "output buffers smaller than T*K + E*(BS-1) rows");
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  at::Tensor scratch = at::empty({2 * num_experts}, topk_ids.options());
  int *counts = scratch.data_ptr<int>(), *offsets = counts + num_experts;
  int *sorted = sorted_token_ids.data_ptr<int>(), *experts = expert_ids.data_ptr<int>();
  moe_align_init_kernel<<<256, 256, 0, stream>>>(sorted, padded_len, experts, blocks, counts, e,
                                                 n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  if (n > 0) {
    moe_align_count_kernel<<<(n + 255) / 256, 256, 0, stream>>>(topk_ids.data_ptr<int>(), n, e,
                                                                counts);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  moe_align_offsets_kernel<<<1, 1, 0, stream>>>(counts, e, static_cast<int>(block_size), offsets,
                                                experts, num_tokens_post_pad.data_ptr<int>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  moe_align_scatter_kernel<<<(e + 127) / 128, 128, 0, stream>>>(topk_ids.data_ptr<int>(), n, e,
                                                                offsets, sorted);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
