// atrex-template: vec
// atrex-summary: flat grid-stride over the T x D outputs in packs of VEC bf16 (16-byte loads at VEC=8) by blocks of BLOCK threads, at most 4 waves of full-occupancy blocks; silu(a) * b in fp32
// atrex-order: 1
// atrex-param: BLOCK 128 256 512 1024
// atrex-param: VEC 1 2 4 8
// atrex-default: BLOCK=256 VEC=1
// atrex-focus: memory VEC BLOCK
// atrex-focus: compute BLOCK VEC
// atrex-direction: wider-loads VEC+
// atrex-direction: more-in-flight VEC+
// atrex-direction: more-ctas BLOCK-
// atrex-direction: raise-occupancy BLOCK-
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
constexpr int kWaves = 4;

template <int V> struct alignas(2 * V) Pack {
  __nv_bfloat16 v[V];
};

// Packs: the row's D/V packs of a (x[row, 0:D]) and b (x[row, D:2D]).
template <int V>
__global__ void __launch_bounds__(BLOCK)
silu_and_mul_vec_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, int64_t t, int d) {
  const int dv = d / V;
  const int64_t n = t * dv;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * BLOCK + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * BLOCK) {
    const int64_t row = i / dv;
    const int col = static_cast<int>(i - row * dv);
    const Pack<V> *xr = reinterpret_cast<const Pack<V> *>(x + row * 2 * d);
    Pack<V> a = xr[col], b = xr[dv + col], o;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      float fa = __bfloat162float(a.v[j]);
      o.v[j] = __float2bfloat16(fa / (1.f + __expf(-fa)) * __bfloat162float(b.v[j]));
    }
    reinterpret_cast<Pack<V> *>(out + row * d)[col] = o;
  }
}

static bool aligned(const void *p, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

template <int V>
static void launch(__nv_bfloat16 *o, const __nv_bfloat16 *xp, int64_t t, int d) {
  int sms = 0, dev = 0;
  C10_CUDA_CHECK(cudaGetDevice(&dev));
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int64_t packs = t * (d / V);
  int64_t blocks = (packs + BLOCK - 1) / BLOCK;
  const int64_t cap = static_cast<int64_t>(sms) * kWaves * (2048 / BLOCK);
  if (blocks > cap)
    blocks = cap;
  silu_and_mul_vec_kernel<V><<<static_cast<unsigned>(blocks), BLOCK, 0,
                               at::cuda::getCurrentCUDAStream()>>>(o, xp, t, d);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  const int64_t t = x.size(0);
  const int d = static_cast<int>(x.size(1) / 2);
  if (t == 0 || d == 0)
    return;
  auto *o = reinterpret_cast<__nv_bfloat16 *>(out.data_ptr());
  auto *xp = reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr());
  if (d % VEC == 0 && aligned(o, 2 * VEC) && aligned(xp, 2 * VEC))
    launch<VEC>(o, xp, t, d);
  else
    launch<1>(o, xp, t, d);
}
