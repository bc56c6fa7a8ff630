// Honest naive reshape_and_cache (in place): one block per token. Token t
// goes to slot s = slot_mapping[t] (int64), i.e. page s / BS, offset s % BS of
// the [NB, BS, Hk, D] bf16 caches (paged_attention_decode's layout), whose
// (page, offset) rows of Hk * D elements are contiguous at s * Hk * D. A
// negative slot (-1, a padding token) writes nothing; the threads copy the
// token's key and value rows element by element.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void reshape_and_cache_kernel(const __nv_bfloat16 *key, const __nv_bfloat16 *value,
                                         __nv_bfloat16 *key_cache, __nv_bfloat16 *value_cache,
                                         const int64_t *slot_mapping, int row) {
  int64_t t = blockIdx.x;
  int64_t slot = slot_mapping[t];
  if (slot < 0)
    return;
  for (int i = threadIdx.x; i < row; i += blockDim.x) {
    key_cache[slot * row + i] = key[t * row + i];
    value_cache[slot * row + i] = value[t * row + i];
  }
}

void reshape_and_cache(const at::Tensor &key, const at::Tensor &value, at::Tensor &key_cache,
                       at::Tensor &value_cache, const at::Tensor &slot_mapping) {
  TORCH_CHECK(key.is_contiguous() && value.is_contiguous() && key_cache.is_contiguous() &&
                  value_cache.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong, "int64 slot_mapping expected");
  int64_t t = key.size(0);
  int row = key.size(1) * key.size(2); // Hk * D
  if (t == 0)
    return;
  reshape_and_cache_kernel<<<t, 128, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<const __nv_bfloat16 *>(key.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(value.data_ptr()),
      reinterpret_cast<__nv_bfloat16 *>(key_cache.data_ptr()),
      reinterpret_cast<__nv_bfloat16 *>(value_cache.data_ptr()), slot_mapping.data_ptr<int64_t>(),
      row);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
