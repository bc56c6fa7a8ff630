// Honest naive rotary_embedding (in place on query and key), vLLM semantics:
// for token t at position p = positions[t], cos = cos_sin_cache[p, :rot/2],
// sin = cos_sin_cache[p, rot/2:], rot = cos_sin_cache.size(1) (= head_size in
// the suite). NeoX layout (is_neox): element i pairs with i + rot/2;
//   out_i = x_i cos_i - x_{i+rot/2} sin_i,  out_{i+rot/2} = x_{i+rot/2} cos_i + x_i sin_i.
// GPT-J layout (!is_neox): element 2i pairs with 2i+1 and uses cos_i / sin_i.
// fp32 math, one bf16 rounding per element. One block per token; the threads
// stride over (head, pair); each thread reads both elements of its pair before
// writing them, so the in-place update is race-free.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__device__ __forceinline__ void rotate_pair(__nv_bfloat16 *head, int i, int half, bool neox,
                                            float c, float s) {
  int i1 = neox ? i : 2 * i;
  int i2 = neox ? i + half : 2 * i + 1;
  float x1 = __bfloat162float(head[i1]);
  float x2 = __bfloat162float(head[i2]);
  head[i1] = __float2bfloat16(x1 * c - x2 * s);
  head[i2] = __float2bfloat16(x2 * c + x1 * s);
}

__global__ void rotary_embedding_kernel(const int64_t *positions, __nv_bfloat16 *query,
                                        __nv_bfloat16 *key, const float *cos_sin_cache,
                                        int hq, int hk, int head_size, int rot, int64_t q_stride,
                                        int64_t k_stride, bool neox) {
  int t = blockIdx.x;
  int half = rot / 2;
  const float *cs = cos_sin_cache + positions[t] * static_cast<int64_t>(rot);
  __nv_bfloat16 *q = query + t * q_stride;
  __nv_bfloat16 *k = key + t * k_stride;
  for (int j = threadIdx.x; j < hq * half; j += blockDim.x) {
    int h = j / half, i = j % half;
    rotate_pair(q + static_cast<int64_t>(h) * head_size, i, half, neox, cs[i], cs[half + i]);
  }
  for (int j = threadIdx.x; j < hk * half; j += blockDim.x) {
    int h = j / half, i = j % half;
    rotate_pair(k + static_cast<int64_t>(h) * head_size, i, half, neox, cs[i], cs[half + i]);
  }
}

void rotary_embedding(const at::Tensor &positions, at::Tensor &query, at::Tensor &key,
                      int64_t head_size, const at::Tensor &cos_sin_cache, bool is_neox) {
  TORCH_CHECK(query.is_contiguous() && key.is_contiguous() && cos_sin_cache.is_contiguous() &&
                  positions.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(positions.scalar_type() == at::kLong, "positions must be int64");
  int64_t t = positions.numel();
  if (t == 0)
    return;
  int rot = cos_sin_cache.size(1);
  TORCH_CHECK(rot % 2 == 0 && rot <= head_size, "rotary dim must be even and <= head_size");
  int hq = query.numel() / t / head_size, hk = key.numel() / t / head_size;
  rotary_embedding_kernel<<<t, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      positions.data_ptr<int64_t>(), reinterpret_cast<__nv_bfloat16 *>(query.data_ptr()),
      reinterpret_cast<__nv_bfloat16 *>(key.data_ptr()), cos_sin_cache.data_ptr<float>(), hq, hk,
      static_cast<int>(head_size), rot, static_cast<int64_t>(hq) * head_size,
      static_cast<int64_t>(hk) * head_size, is_neox);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
