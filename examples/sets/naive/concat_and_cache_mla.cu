// Honest naive concat_and_cache_mla (in place): one block per token. Token t
// goes to slot s = slot_mapping[t] (int64), i.e. page s / BS, offset s % BS of
// the [NB, BS, L + R] bf16 cache; the threads copy kv_c[t] (L values) to the
// entry's first L elements and k_pe[t] (R values) to the last R, element by
// element. A negative slot (-1, a padding token) writes nothing. The inputs'
// and the cache's row strides are honoured (kv_c is a view of a wider
// projection output in vLLM); the last dimensions must be contiguous.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void concat_and_cache_mla_kernel(const __nv_bfloat16 *kv_c, int64_t kv_c_stride,
                                            const __nv_bfloat16 *k_pe, int64_t k_pe_stride,
                                            __nv_bfloat16 *kv_cache, int64_t page_stride,
                                            int64_t entry_stride, const int64_t *slot_mapping,
                                            int block_size, int l, int r) {
  int64_t t = blockIdx.x;
  int64_t slot = slot_mapping[t];
  if (slot < 0)
    return;
  __nv_bfloat16 *dst =
      kv_cache + (slot / block_size) * page_stride + (slot % block_size) * entry_stride;
  for (int i = threadIdx.x; i < l; i += blockDim.x)
    dst[i] = kv_c[t * kv_c_stride + i];
  for (int i = threadIdx.x; i < r; i += blockDim.x)
    dst[l + i] = k_pe[t * k_pe_stride + i];
}

void concat_and_cache_mla(const at::Tensor &kv_c, const at::Tensor &k_pe, at::Tensor &kv_cache,
                          const at::Tensor &slot_mapping) {
  TORCH_CHECK(kv_c.stride(1) == 1 && k_pe.stride(1) == 1 && kv_cache.stride(2) == 1,
              "contiguous last dimensions expected");
  TORCH_CHECK(kv_c.scalar_type() == at::kBFloat16 && k_pe.scalar_type() == at::kBFloat16 &&
                  kv_cache.scalar_type() == at::kBFloat16,
              "bf16 kv_c, k_pe and kv_cache expected");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong && slot_mapping.is_contiguous(),
              "contiguous int64 slot_mapping expected");
  int64_t t = slot_mapping.numel();
  int l = kv_c.size(1), r = k_pe.size(1);
  TORCH_CHECK(kv_cache.size(2) == l + r, "kv_cache entries must hold L + R values");
  if (t == 0)
    return;
  concat_and_cache_mla_kernel<<<t, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<const __nv_bfloat16 *>(kv_c.data_ptr()), kv_c.stride(0),
      reinterpret_cast<const __nv_bfloat16 *>(k_pe.data_ptr()), k_pe.stride(0),
      reinterpret_cast<__nv_bfloat16 *>(kv_cache.data_ptr()), kv_cache.stride(0),
      kv_cache.stride(1), slot_mapping.data_ptr<int64_t>(), static_cast<int>(kv_cache.size(1)), l,
      r);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
