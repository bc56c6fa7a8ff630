// atrex-template: row_vec
// atrex-summary: one block of BLOCK threads per row; VEC bf16 per load (16-byte loads at VEC=8); warp-shuffle reduction of the fp32 sum of squares; second pass re-reads the row (L1/L2) and writes x * rsqrt(mean + eps) * w
// atrex-order: 1
// atrex-param: BLOCK 128 256 512 1024
// atrex-param: VEC 1 2 4 8
// atrex-default: BLOCK=256 VEC=1
// atrex-focus: memory VEC BLOCK
// atrex-focus: compute BLOCK VEC
// atrex-direction: wider-loads VEC+
// atrex-direction: more-in-flight VEC+
// atrex-direction: raise-occupancy BLOCK-
// atrex-direction: fewer-barriers BLOCK-
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cstdint>

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 1
#endif

template <int V> struct alignas(2 * V) Pack {
  __nv_bfloat16 v[V];
};

template <int V>
__global__ void __launch_bounds__(BLOCK)
rms_norm_row_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, const __nv_bfloat16 *w, int h,
                    float eps) {
  __shared__ float warp_sums[BLOCK / 32 > 0 ? BLOCK / 32 : 1];
  __shared__ float inv_s;
  const size_t base = static_cast<size_t>(blockIdx.x) * h;
  const Pack<V> *xr = reinterpret_cast<const Pack<V> *>(x + base);
  const Pack<V> *wr = reinterpret_cast<const Pack<V> *>(w);
  Pack<V> *orow = reinterpret_cast<Pack<V> *>(out + base);
  const int nv = h / V;
  float sum = 0.f;
  for (int i = threadIdx.x; i < nv; i += BLOCK) {
    Pack<V> p = xr[i];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      float f = __bfloat162float(p.v[j]);
      sum = fmaf(f, f, sum);
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (threadIdx.x % 32 == 0)
    warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int i = 0; i < BLOCK / 32; ++i)
      total += warp_sums[i];
    inv_s = rsqrtf(total / h + eps);
  }
  __syncthreads();
  const float inv = inv_s;
  for (int i = threadIdx.x; i < nv; i += BLOCK) {
    Pack<V> p = xr[i], q = wr[i], o;
#pragma unroll
    for (int j = 0; j < V; ++j)
      o.v[j] = __float2bfloat16(__bfloat162float(p.v[j]) * inv * __bfloat162float(q.v[j]));
    orow[i] = o;
  }
}

static bool aligned(const void *p, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

void rms_norm(at::Tensor &out, const at::Tensor &x, const at::Tensor &w, double eps) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const int t = x.size(0), h = x.size(1);
  if (t == 0 || h == 0)
    return;
  auto *o = reinterpret_cast<__nv_bfloat16 *>(out.data_ptr());
  auto *xp = reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr());
  auto *wp = reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr());
  auto stream = at::cuda::getCurrentCUDAStream();
  const bool vec_ok = h % VEC == 0 && aligned(o, 2 * VEC) && aligned(xp, 2 * VEC) &&
                      aligned(wp, 2 * VEC);
  if (vec_ok)
    rms_norm_row_kernel<VEC><<<t, BLOCK, 0, stream>>>(o, xp, wp, h, static_cast<float>(eps));
  else
    rms_norm_row_kernel<1><<<t, BLOCK, 0, stream>>>(o, xp, wp, h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
