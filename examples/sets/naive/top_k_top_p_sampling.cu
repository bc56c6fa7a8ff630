// Honest naive top_k_top_p_sampling: one block of 256 threads per row, no sort.
// The order of the definition (probability descending, ties by the lower
// index) is that of the 64-bit key (float bits of p << 32) | (2^32 - 1 - i):
// p >= 0, so its float bits order like its value, and keys are distinct.
//   1. the k-th largest key t_k (k = top_k, or V outside [1, V]) by a bitwise
//      binary search, one block-wide count per bit (64 passes over the row);
//   2. S_k = mass of the keys >= t_k, threshold top_p * S_k; the kept prefix
//      is {key >= t_n}, t_n the largest key threshold whose mass still reaches
//      the threshold (again 64 passes, block-wide fp32 sums), at least t_k and
//      at most the largest key (one token is always kept);
//   3. S_n = mass of the kept tokens, target = uniform * S_n; a block-wide
//      inclusive scan of the kept masses in index order, 256 tokens at a time,
//      finds the first kept token whose cumulative mass exceeds the target
//      (the last kept token if none does).
// The sums are fp32 in tree order, not the reference's order; the decisions
// are robust to that as long as they are not within rounding of a boundary
// (the generator keeps them at least 1% of the kept mass away). Any B, V.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

constexpr int kThreads = 256, kWarps = kThreads / 32;

__device__ __forceinline__ uint64_t rank_key(float p, int i) {
  return (static_cast<uint64_t>(__float_as_uint(p)) << 32) |
         static_cast<uint32_t>(0xffffffffu - static_cast<uint32_t>(i));
}

// Block-wide sums; every thread gets the result. `scratch` holds kWarps values.
__device__ float block_sum(float v, float *scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  __syncthreads(); // scratch free from the previous call
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  float s = 0.f;
  for (int w = 0; w < kWarps; ++w)
    s += scratch[w];
  return s;
}

__device__ int block_count(int v, int *scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  int s = 0;
  for (int w = 0; w < kWarps; ++w)
    s += scratch[w];
  return s;
}

__device__ float mass_at_least(const float *p, int v, uint64_t t, float *scratch) {
  float s = 0.f;
  for (int i = threadIdx.x; i < v; i += kThreads)
    if (rank_key(p[i], i) >= t)
      s += p[i];
  return block_sum(s, scratch);
}

__global__ void __launch_bounds__(kThreads)
top_k_top_p_sampling_kernel(int *samples, const float *probs, const int *top_k,
                            const float *top_p, const float *uniform, int v) {
  __shared__ float fscratch[kWarps];
  __shared__ int iscratch[kWarps];
  __shared__ uint64_t kscratch[kWarps];
  __shared__ float warp_tot[kWarps];
  __shared__ int first_hit, last_kept;
  const int b = blockIdx.x, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const float *p = probs + static_cast<size_t>(b) * v;
  int k = top_k[b];
  if (k < 1 || k > v)
    k = v;

  // 1. t_k: the largest t with #{key >= t} >= k (the k-th largest key).
  uint64_t tk = 0;
  for (int bit = 63; bit >= 0; --bit) {
    uint64_t cand = tk | (uint64_t(1) << bit);
    int c = 0;
    for (int i = tid; i < v; i += kThreads)
      c += rank_key(p[i], i) >= cand;
    if (block_count(c, iscratch) >= k)
      tk = cand;
  }
  // 2. t_n: the largest t >= t_k whose mass reaches top_p * S_k.
  const float sk = mass_at_least(p, v, tk, fscratch);
  const float thr = top_p[b] * sk;
  uint64_t tn = 0;
  for (int bit = 63; bit >= 0; --bit) {
    uint64_t cand = tn | (uint64_t(1) << bit);
    if (mass_at_least(p, v, cand, fscratch) >= thr)
      tn = cand;
  }
  // At most the largest key (top_p * S_k = 0 keeps the top token), at least t_k.
  uint64_t t1 = 0;
  for (int i = tid; i < v; i += kThreads)
    t1 = max(t1, rank_key(p[i], i));
  for (int off = 16; off > 0; off >>= 1)
    t1 = max(t1, static_cast<uint64_t>(__shfl_xor_sync(
                     0xffffffffu, static_cast<unsigned long long>(t1), off)));
  __syncthreads();
  if (lane == 0)
    kscratch[warp] = t1;
  __syncthreads();
  for (int w = 0; w < kWarps; ++w)
    t1 = max(t1, kscratch[w]);
  tn = min(tn, t1);
  if (tn < tk)
    tn = tk;
  // 3. the pick: inverse CDF in index order over the kept tokens.
  const float target = uniform[b] * mass_at_least(p, v, tn, fscratch);
  if (tid == 0) {
    first_hit = INT_MAX;
    last_kept = -1;
  }
  float run = 0.f;
  for (int base = 0; base < v; base += kThreads) {
    const int i = base + tid;
    const bool kept = i < v && rank_key(p[i], i) >= tn;
    const float mine = kept ? p[i] : 0.f;
    float x = mine; // inclusive scan within the warp
    for (int off = 1; off < 32; off <<= 1) {
      float y = __shfl_up_sync(0xffffffffu, x, off);
      if (lane >= off)
        x += y;
    }
    __syncthreads(); // warp_tot free from the previous chunk
    if (lane == 31)
      warp_tot[warp] = x;
    __syncthreads();
    float before = run, chunk = 0.f;
    for (int w = 0; w < kWarps; ++w) {
      if (w < warp)
        before += warp_tot[w];
      chunk += warp_tot[w];
    }
    if (kept) {
      atomicMax(&last_kept, i);
      if (before + x > target)
        atomicMin(&first_hit, i);
    }
    __syncthreads();
    if (first_hit != INT_MAX)
      break;
    run += chunk;
  }
  if (tid == 0)
    samples[b] = first_hit != INT_MAX ? first_hit : last_kept;
}

void top_k_top_p_sampling(at::Tensor &samples, const at::Tensor &probs, const at::Tensor &top_k,
                          const at::Tensor &top_p, const at::Tensor &uniform) {
  TORCH_CHECK(probs.is_contiguous() && top_k.is_contiguous() && top_p.is_contiguous() &&
                  uniform.is_contiguous() && samples.is_contiguous(),
              "contiguous tensors expected");
  int b = probs.size(0), v = probs.size(1);
  if (b == 0)
    return;
  top_k_top_p_sampling_kernel<<<b, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      samples.data_ptr<int>(), probs.data_ptr<float>(), top_k.data_ptr<int>(),
      top_p.data_ptr<float>(), uniform.data_ptr<float>(), v);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
