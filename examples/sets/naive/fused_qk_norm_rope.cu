// Honest naive fused_qk_norm_rope (in place on qkv [T, (Hq + Hk + Hv) * D]
// bf16, q heads, k heads, v heads): one block per (token, q or k head). The
// threads sum the head's squares in fp32 (shared-memory tree reduction),
// r = rsqrt(sum / D + eps); then each thread takes rotation pairs: both
// elements are read, normalized n = x * r * w (w = q_weight or k_weight), and
// rotated with the token's cache row p = position_ids[t]:
//   out_a = n_a cos_i - n_b sin_i,  out_b = n_b cos_i + n_a sin_i,
// cos_i = cos_sin_cache[p, i], sin_i = cos_sin_cache[p, rot/2 + i], rot =
// cos_sin_cache.size(1). NeoX layout (is_neox): a = i, b = i + rot/2; GPT-J
// layout: a = 2i, b = 2i + 1. Elements past rot are only normalized. fp32
// throughout, one bf16 rounding; v heads are not touched. Every element is
// read (for the sum) before the barrier and written after it by the one
// thread that owns its pair, so the in-place update is race-free.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kThreads = 128;

__global__ void fused_qk_norm_rope_kernel(__nv_bfloat16 *qkv, const __nv_bfloat16 *q_weight,
                                          const __nv_bfloat16 *k_weight,
                                          const float *cos_sin_cache,
                                          const int64_t *position_ids, int hq, int hk,
                                          int heads, int d, int rot, float eps, bool neox) {
  __shared__ float partial[kThreads];
  int qk_heads = hq + hk;
  int64_t t = blockIdx.x / qk_heads;
  int h = blockIdx.x % qk_heads;
  __nv_bfloat16 *x = qkv + (t * heads + h) * static_cast<int64_t>(d);
  const __nv_bfloat16 *w = h < hq ? q_weight : k_weight;

  float sum = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = __bfloat162float(x[i]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float r = rsqrtf(partial[0] / d + eps);

  const float *cs = cos_sin_cache + position_ids[t] * static_cast<int64_t>(rot);
  int half = rot / 2;
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    int a = neox ? i : 2 * i;
    int b = neox ? i + half : 2 * i + 1;
    float na = __bfloat162float(x[a]) * r * __bfloat162float(w[a]);
    float nb = __bfloat162float(x[b]) * r * __bfloat162float(w[b]);
    float c = cs[i], s = cs[half + i];
    x[a] = __float2bfloat16(na * c - nb * s);
    x[b] = __float2bfloat16(nb * c + na * s);
  }
  for (int i = rot + threadIdx.x; i < d; i += blockDim.x)
    x[i] = __float2bfloat16(__bfloat162float(x[i]) * r * __bfloat162float(w[i]));
}

void fused_qk_norm_rope(at::Tensor &qkv, int64_t num_heads_q, int64_t num_heads_k,
                        int64_t num_heads_v, int64_t head_dim, double eps,
                        const at::Tensor &q_weight, const at::Tensor &k_weight,
                        const at::Tensor &cos_sin_cache, bool is_neox,
                        const at::Tensor &position_ids) {
  TORCH_CHECK(qkv.is_contiguous() && q_weight.is_contiguous() && k_weight.is_contiguous() &&
                  cos_sin_cache.is_contiguous() && position_ids.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(qkv.scalar_type() == at::kBFloat16 && q_weight.scalar_type() == at::kBFloat16 &&
                  k_weight.scalar_type() == at::kBFloat16,
              "bf16 qkv and weights expected");
  TORCH_CHECK(cos_sin_cache.scalar_type() == at::kFloat, "fp32 cos_sin_cache expected");
  TORCH_CHECK(position_ids.scalar_type() == at::kLong, "int64 position_ids expected");
  int64_t heads = num_heads_q + num_heads_k + num_heads_v;
  TORCH_CHECK(qkv.size(-1) == heads * head_dim, "qkv width must be (Hq + Hk + Hv) * head_dim");
  int rot = cos_sin_cache.size(1);
  TORCH_CHECK(rot % 2 == 0 && rot <= head_dim, "rotary dim must be even and <= head_dim");
  int64_t t = position_ids.numel();
  int64_t blocks = t * (num_heads_q + num_heads_k);
  if (blocks == 0)
    return;
  fused_qk_norm_rope_kernel<<<blocks, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(qkv.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(q_weight.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(k_weight.data_ptr()),
      cos_sin_cache.data_ptr<float>(), position_ids.data_ptr<int64_t>(),
      static_cast<int>(num_heads_q), static_cast<int>(num_heads_k), static_cast<int>(heads),
      static_cast<int>(head_dim), rot, static_cast<float>(eps), is_neox);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
