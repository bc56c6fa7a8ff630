// Production baseline for fp8_blockscale_fused_moe: the expert GEMMs run on
// TensorRT-LLM's Hopper fp8 block-scale GEMM (DeepGEMM-derived), as shipped in
// PyPI's flashinfer-python 0.7.4 (data/csrc/nv_internal/tensorrt_llm/kernels/
// cutlass_kernels/fp8_blockscale_gemm): CutlassFp8BlockScaleGemmRunner<
// __nv_fp8_e4m3, __nv_fp8_e4m3, __nv_bfloat16>::moeGemm, grouped over the
// experts by problem_m_offsets, the runner behind FlashInfer's
// fp8_blockscale_gemm_sm90 module and TensorRT-LLM's DeepSeek fp8 MoE on H100/H200.
// moeGemm has two back ends: DeepGEMM's JIT kernels (compiled at run time by
// nvcc through deep_gemm::jit, enabled only after deep_gemm::jit::Compiler::
// setIncludeDirs, which FlashInfer's deepgemm_jit_setup.cu calls from Python)
// and the ahead-of-time kernel it falls back to. This file never enables the
// JIT (no run-time compilation, no foreign modules), so moeGemm runs the AOT one:
//   Fp8Gemm<e4m3 RowMajor A, e4m3 ColMajor B, bf16 RowMajor D, fp32 acc,
//     TILE 128x64x128, PerSubChannel A scales 1x128, PerBlock B scales 128x128>
//   -> cooperative_1x128_by_128x128_fp8_gemm_kernel<GroupedGemmProblemVisitor,
//     ..., persistent along M>: one CTA per (64-column N tile, expert), 384
//     threads (one TMA producer warp group, two wgmma m64n64k32 consumer warp
//     groups), 8 TMA stages (about 197 KB smem for K = 7168), each 128-deep K
//     block promoted into fp32 times s_act * s_weight, bf16 out.
// The library's .cu files are compiled here: this file #includes nv_internal's
// fp8_blockscale_gemm.cu (the runner; it includes fp8_blockscale_gemm_kernel.cuh
// and DeepGEMM's headers) and cpp/common/{logger,stringUtils,tllmException}.cpp
// (what its TLLM_CHECK / TLLM_LOG calls need), as FlashInfer's JIT module
// compiles them (a submission is one nvcc call). ENABLE_FP8_BLOCK_SCALE and
// COMPILE_HOPPER_TMA_GEMMS are FlashInfer's nvcc flags for that module.
//
// Pipeline per call (all on the current stream, no host synchronisation):
//   1. own kernels route the T*K (token, slot) pairs: per-expert counts
//      (atomics), a one-block scan to problem_m_offsets [E+1] (int64, device:
//      the kernel reads them on the device), a row per pair (grouped by expert;
//      the order inside an expert is that of the atomics, which changes no value);
//   2. own kernel: x quantized per token and 128-group exactly as the reference
//      (s = max(absmax, 1e-10) / 448, e4m3 of the clamped quotient, RNE; the
//      library's fp8CS1x128 uses 448 / absmax and 1 for zero groups instead) and
//      written to the K rows of its pairs: A1 [M, H] e4m3 with M = T*K;
//   3. the same grouped kernel with an fp32 D (Fp8Gemm<..., float, ...>::run, what
//      moeGemm calls with bf16 D): D1 [M, 2I] fp32 = A1 W1_e^T (w1q [E, 2I, H] is
//      the kernel's ColMajor B [E*2I, H], w1s [E, 2I/128, H/128] its per-block
//      scale layout; fp32: see Numerics);
//   4. own kernel: a = silu(D1[:, :I]) * D1[:, I:] in fp32, re-quantized per row
//      and 128-group like step 2: A2 [M, I] e4m3;
//   5. moeGemm: D2 [M, H] bf16 = A2 W2_e^T (w2q [E, H, I], w2s [E, H/128, I/128]);
//   6. own kernel: out[t] = sum_k topk_weights[t, k] * D2[row(t, k)] in fp32, bf16.
// Activation scales go to the kernel M-major and padded per expert, as moeGemm
// expects (its TMA loads 128 scales per tile and K block): sa[k/128][ld] with
// ld = deep_gemm::compute_padded_offset(M, E) (M rounded per expert to 32), the
// scale of row r of expert e at compute_padded_offset(offset_e, e) + r - offset_e.
// Tile rows past an expert's rows read the next expert's rows (or TMA's zero
// fill); the kernel zeroes their scales and does not store them.
// Numerics: D1 is fp32, D2 bf16. The runner writes bf16 only (vLLM's and
// TensorRT-LLM's MoE keep gate_up in bf16); the reference keeps both in fp32.
// One bf16 rounding of D1 moves the fp8 rounding of a by one e4m3 step for a
// few % of its elements: a CPU emulation (per-128-K fp32 partials, bf16 D1/D2),
// E=256 H=7168 I=256 K=8 T=32, 4 seeds, had 0.03-0.28% of the elements over the
// bound (0.5% allowed), and on the H200 (bench/results/suite-2026-12-05) bf16 D1
// failed p0393 and p0496 (0.62% and 0.50% over the bound in the second call's
// inputs). So the gate_up GEMM runs the same library kernel template with an fp32
// D1 (FBMOE_GATE_UP_FP32, below): 0.00% in the emulation, but 0.05-0.47% on the
// H200 (all four problems pass): the emulation's exact fp32 products miss the
// FP8 tensor cores' own accumulation, whose differences the e4m3 re-quantization
// of the activation turns into whole e4m3 steps.
// Pairs with an expert id outside [0, E) are skipped, as the reference does.
//
// Shapes: H and I multiples of 128 (N multiple of the 64-wide tile), H, I <=
// 20480 (Fp8Gemm::MAX_SHAPE_K), E <= 65535, K <= 2048, T*K*max(2I, H) < 2^31
// (the kernel's int output offsets): checked on the host, else a
// std::runtime_error naming the shape.
//
// Link: the library's DeepGEMM JIT path (never taken here) calls driver-API
// functions (cuLibraryLoadData, cuKernelGetName, ...): the gate loads a
// submission RTLD_NOW | RTLD_LOCAL and libcuda's symbols are not in its global
// scope, so scripts/production-nvcc-flags.sh adds -lcuda, as FlashInfer's JIT
// module links it (its NVRTC calls are folded away: kJitUseNvcc is constant).
// The library's static initialiser (kDeepGemmEnabled -> the JIT Compiler
// singleton) creates $HOME/.tensorrt_llm/{tmp,cache} when the library loads.
//
// Needs an sm_90a plan (wgmma, TMA; the kernel traps elsewhere). Headers and
// sources: scripts/fetch-production-libs.sh (.prodlibs/flashinfer/nv_internal).
// Compiles in 150-390 s on the 2-core machine (shared; 140-200 s of CPU).
// Baseline mode: TensorRT-LLM's GEMM does the FLOPs, but its kernels are
// compiled into this library (own cubins for the gate) and atrex-lint's default
// policy has no TensorRT-LLM rule: static verdict adopted (fallback: TensorRT-LLM
// with a delegate rule for tensorrt_llm::*).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

// The wheel's CUB (the library includes <cub/cub.cuh>; its CCCL is newer than
// CUDA 13.0's) tests architecture-family features that CUDA 13.0's <nv/target>
// does not define, and that <nv/target> is the one compiled: nvcc puts the
// toolkit's include directory on -I, ahead of every -isystem. Define them as the
// wheel's <nv/target> does where a feature is absent: all are false for sm_90a.
#include <nv/target>
#ifndef NV_HAS_FEATURE_SM_100f
#define NV_HAS_FEATURE_SM_100f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_103a
#define NV_HAS_FEATURE_SM_103a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_103f
#define NV_HAS_FEATURE_SM_103f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_110a
#define NV_HAS_FEATURE_SM_110a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_110f
#define NV_HAS_FEATURE_SM_110f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_120a
#define NV_HAS_FEATURE_SM_120a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_120f
#define NV_HAS_FEATURE_SM_120f NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_121a
#define NV_HAS_FEATURE_SM_121a NV_NO_TARGET
#endif
#ifndef NV_HAS_FEATURE_SM_121f
#define NV_HAS_FEATURE_SM_121f NV_NO_TARGET
#endif

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <stdexcept>
#include <string>

// The library compiled as FlashInfer's JIT module compiles it (-DENABLE_BF16
// -DENABLE_FP8 -DENABLE_FP8_BLOCK_SCALE -DCOMPILE_HOPPER_TMA_GEMMS), as a
// release build: NDEBUG scoped to the library (its host asserts are checked
// below with messages; no device asserts in the release kernels).
#define ENABLE_BF16 1
#define ENABLE_FP8 1
#define ENABLE_FP8_BLOCK_SCALE 1
#define COMPILE_HOPPER_TMA_GEMMS 1
#ifndef NDEBUG
#define FBMOE_UNDEF_NDEBUG
#define NDEBUG
#endif
#include <assert.h>

#include <tensorrt_llm/kernels/cutlass_kernels/fp8_blockscale_gemm/fp8_blockscale_gemm.cu>
#include <cpp/common/logger.cpp>
#include <cpp/common/stringUtils.cpp>
#include <cpp/common/tllmException.cpp>

#ifdef FBMOE_UNDEF_NDEBUG
#undef NDEBUG
#undef FBMOE_UNDEF_NDEBUG
#include <assert.h>
#endif

// FBMOE_GATE_UP_FP32=1 (the default) runs the gate_up GEMM through the same
// library kernel template with an fp32 D1 (Fp8Gemm<..., float, ...>::run, the
// grouped run moeGemm calls, not the runner, whose D is bf16); 0 gives the
// runner's bf16 D1, which fails the tolerance on the H200 (Numerics, above).
#ifndef FBMOE_GATE_UP_FP32
#define FBMOE_GATE_UP_FP32 1
#endif

namespace fbmoe {

#if FBMOE_GATE_UP_FP32
namespace tfb = tensorrt_llm::kernels::fp8_blockscale_gemm;
using GateUpF32 =
    tfb::Fp8Gemm<__nv_fp8_e4m3, tfb::Layout::RowMajor, __nv_fp8_e4m3, tfb::Layout::ColMajor, float,
                 tfb::Layout::RowMajor, float, float, float, 128, 64, 128,
                 tfb::ScaleType::PerSubChannel, tfb::ScaleType::PerBlock, 1, 128, 128, 128>;
using D1Type = float;
#else
using D1Type = __nv_bfloat16;
#endif

using Runner = tensorrt_llm::kernels::fp8_blockscale_gemm::CutlassFp8BlockScaleGemmRunner<
    __nv_fp8_e4m3, __nv_fp8_e4m3, __nv_bfloat16>;

constexpr int kGroup = 128;          // quantization group / K block
constexpr int64_t kMaxShapeK = 20480; // Fp8Gemm::MAX_SHAPE_K: its stage count is sized for it
constexpr int kScanThreads = 1024;

// Row of the activation scale of row `row` (global, sorted) of expert e whose
// rows start at `first`: moeGemm's per-expert 32-padded M-major layout.
__device__ __forceinline__ int64_t scaleRow(int64_t first, int e, int64_t row) {
  return deep_gemm::compute_padded_offset(first, static_cast<int64_t>(e)) + (row - first);
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Four values of one lane quantized with the group scale s (the reference's
// saturateE4m3(v / s): clamp to +-448, e4m3fn round to nearest even).
__device__ __forceinline__ uint32_t quant4(const float (&v)[4], float s) {
  uint32_t packed = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float q = fminf(fmaxf(v[i] / s, -448.f), 448.f);
    packed |= uint32_t(__nv_cvt_float_to_fp8(q, __NV_SATFINITE, __NV_E4M3)) << (8 * i);
  }
  return packed;
}

__device__ __forceinline__ void load4(const float *p, float (&v)[4]) {
  float4 raw = *reinterpret_cast<const float4 *>(p);
  v[0] = raw.x;
  v[1] = raw.y;
  v[2] = raw.z;
  v[3] = raw.w;
}

__device__ __forceinline__ void load4(const __nv_bfloat16 *p, float (&v)[4]) {
  uint2 raw = *reinterpret_cast<const uint2 *>(p);
  __nv_bfloat162 lo = *reinterpret_cast<__nv_bfloat162 *>(&raw.x);
  __nv_bfloat162 hi = *reinterpret_cast<__nv_bfloat162 *>(&raw.y);
  float2 a = __bfloat1622float2(lo), b = __bfloat1622float2(hi);
  v[0] = a.x;
  v[1] = a.y;
  v[2] = b.x;
  v[3] = b.y;
}

// counts[e] = number of pairs routed to expert e (counts zeroed before).
__global__ void countExperts(const int32_t *__restrict__ ids, int64_t pairs, int experts,
                             int32_t *__restrict__ counts) {
  int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (p >= pairs)
    return;
  int e = ids[p];
  if (e >= 0 && e < experts)
    atomicAdd(&counts[e], 1);
}

// offsets[e] = sum of counts before e (offsets[E] = routed pairs), cursor = offsets.
__global__ void __launch_bounds__(kScanThreads)
    expertOffsets(const int32_t *__restrict__ counts, int experts, int64_t *__restrict__ offsets,
                  int32_t *__restrict__ cursor) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ int carry;
  if (threadIdx.x == 0)
    carry = 0;
  __syncthreads();
  for (int base = 0; base < experts; base += kScanThreads) {
    int e = base + threadIdx.x;
    int c = e < experts ? counts[e] : 0;
    int excl, total;
    Scan(tmp).ExclusiveSum(c, excl, total);
    int start = carry + excl;
    if (e < experts) {
      offsets[e] = start;
      cursor[e] = start;
    }
    __syncthreads(); // every thread has read carry and tmp
    if (threadIdx.x == 0)
      carry += total;
    __syncthreads();
  }
  if (threadIdx.x == 0)
    offsets[experts] = carry;
}

// rowOfPair[p] = the pair's row in the expert-grouped activations (-1: not routed),
// rowExpert[row] = its expert.
__global__ void assignRows(const int32_t *__restrict__ ids, int64_t pairs, int experts,
                           int32_t *__restrict__ cursor, int32_t *__restrict__ rowOfPair,
                           int32_t *__restrict__ rowExpert) {
  int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (p >= pairs)
    return;
  int e = ids[p];
  if (e < 0 || e >= experts) {
    rowOfPair[p] = -1;
    return;
  }
  int row = atomicAdd(&cursor[e], 1);
  rowOfPair[p] = row;
  rowExpert[row] = e;
}

// One block per token: each warp quantizes 128-groups of x[t] (4 values a lane)
// and writes them, with their scale, to the rows of the token's K pairs.
// Dynamic smem: topk rows (int64) and topk scale rows (int64).
__global__ void __launch_bounds__(256)
    quantScatterX(const __nv_bfloat16 *__restrict__ x, int hidden, int topk,
                  const int32_t *__restrict__ ids, const int32_t *__restrict__ rowOfPair,
                  const int64_t *__restrict__ offsets, int64_t scaleLd,
                  uint8_t *__restrict__ a, float *__restrict__ sa) {
  extern __shared__ int64_t shRows[]; // [topk] rows, [topk] scale rows
  int64_t *shScale = shRows + topk;
  const int64_t t = blockIdx.x;
  for (int k = threadIdx.x; k < topk; k += blockDim.x) {
    int row = rowOfPair[t * topk + k];
    shRows[k] = row;
    shScale[k] = row < 0 ? -1 : scaleRow(offsets[ids[t * topk + k]], ids[t * topk + k], row);
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const int groups = hidden / kGroup;
  for (int g = warp; g < groups; g += warps) {
    const int64_t col = int64_t(g) * kGroup + lane * 4;
    float v[4];
    load4(x + t * hidden + col, v);
    float amax = warpMax(fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3]))));
    float s = fmaxf(amax, 1e-10f) / 448.f;
    uint32_t q = quant4(v, s);
    for (int k = 0; k < topk; ++k) {
      int64_t row = shRows[k];
      if (row < 0)
        continue;
      *reinterpret_cast<uint32_t *>(a + row * hidden + col) = q;
      if (lane == 0)
        sa[int64_t(g) * scaleLd + shScale[k]] = s;
    }
  }
}

// One warp per (row, 128-group) of the routed rows: a = silu(gate) * up in fp32
// from D1 [rows, 2I] (bf16; fp32 with FBMOE_GATE_UP_FP32), quantized per group
// into A2 [rows, I] and its scales.
template <typename TIn>
__global__ void __launch_bounds__(256)
    siluMulQuant(const TIn *__restrict__ h, int64_t rowsAlloc, int inter,
                 const int32_t *__restrict__ rowExpert, const int64_t *__restrict__ offsets,
                 int experts, int64_t scaleLd, uint8_t *__restrict__ a, float *__restrict__ sa) {
  const int groups = inter / kGroup;
  const int64_t gw = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const int64_t row = gw / groups;
  const int g = int(gw % groups);
  if (row >= rowsAlloc || row >= offsets[experts]) // warp-uniform
    return;
  const int64_t col = int64_t(g) * kGroup + lane * 4;
  const TIn *hr = h + row * 2 * inter;
  float gate[4], up[4], v[4];
  load4(hr + col, gate);
  load4(hr + inter + col, up);
#pragma unroll
  for (int i = 0; i < 4; ++i)
    v[i] = gate[i] / (1.f + expf(-gate[i])) * up[i];
  float amax = warpMax(fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3]))));
  float s = fmaxf(amax, 1e-10f) / 448.f;
  *reinterpret_cast<uint32_t *>(a + row * inter + col) = quant4(v, s);
  if (lane == 0) {
    int e = rowExpert[row];
    sa[int64_t(g) * scaleLd + scaleRow(offsets[e], e, row)] = s;
  }
}

// One block per token: out[t, :] = sum_k w[t, k] * y[row(t, k), :] in fp32, 8
// columns a thread. Dynamic smem: topk rows (int) and weights (float).
__global__ void __launch_bounds__(128)
    combineTopk(const __nv_bfloat16 *__restrict__ y, int hidden, int topk,
                const float *__restrict__ weights, const int32_t *__restrict__ rowOfPair,
                __nv_bfloat16 *__restrict__ out) {
  extern __shared__ int32_t shRow[]; // [topk] rows, then [topk] weights
  float *shW = reinterpret_cast<float *>(shRow + topk);
  const int64_t t = blockIdx.x;
  for (int k = threadIdx.x; k < topk; k += blockDim.x) {
    shRow[k] = rowOfPair[t * topk + k];
    shW[k] = weights[t * topk + k];
  }
  __syncthreads();
  for (int c = threadIdx.x; c < hidden / 8; c += blockDim.x) {
    float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < topk; ++k) {
      int row = shRow[k];
      if (row < 0)
        continue;
      uint4 raw = *reinterpret_cast<const uint4 *>(y + int64_t(row) * hidden + int64_t(c) * 8);
      const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&raw);
      float w = shW[k];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float2 f = __bfloat1622float2(p[i]);
        acc[2 * i] += w * f.x;
        acc[2 * i + 1] += w * f.y;
      }
    }
    uint4 res;
    __nv_bfloat162 *r = reinterpret_cast<__nv_bfloat162 *>(&res);
#pragma unroll
    for (int i = 0; i < 4; ++i)
      r[i] = __floats2bfloat162_rn(acc[2 * i], acc[2 * i + 1]);
    *reinterpret_cast<uint4 *>(out + t * hidden + int64_t(c) * 8) = res;
  }
}

void require(bool ok, const std::string &what) {
  if (!ok)
    throw std::runtime_error("fp8_blockscale_fused_moe (TensorRT-LLM fp8 block-scale moeGemm): " +
                             what);
}

void checkCuda(const char *where) {
  cudaError_t st = cudaGetLastError();
  if (st != cudaSuccess)
    throw std::runtime_error(std::string("fp8_blockscale_fused_moe: ") + where + ": " +
                             cudaGetErrorString(st));
}

void checkTensor(const at::Tensor &t, const char *name, at::ScalarType dtype, int64_t dims,
                 const at::Device &dev) {
  require(t.is_cuda() && t.device() == dev, std::string(name) + " must be on " + dev.str());
  require(t.scalar_type() == dtype, std::string(name) + " has dtype " +
                                        std::string(c10::toString(t.scalar_type())) +
                                        ", expected " + c10::toString(dtype));
  require(t.dim() == dims, std::string(name) + " must have " + std::to_string(dims) + " dims");
  require(t.is_contiguous(), std::string(name) + " must be contiguous");
}

bool aligned16(const at::Tensor &t) {
  return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0;
}

} // namespace fbmoe

void fp8_blockscale_fused_moe(at::Tensor &out, const at::Tensor &x, const at::Tensor &w1q,
                              const at::Tensor &w1s, const at::Tensor &w2q, const at::Tensor &w2s,
                              const at::Tensor &topk_weights, const at::Tensor &topk_ids) {
  using namespace fbmoe;
  const at::Device dev = x.device();
  require(x.is_cuda(), "x must be a CUDA tensor");
  const at::cuda::OptionalCUDAGuard guard(dev);
  checkTensor(x, "x", at::kBFloat16, 2, dev);
  checkTensor(out, "out", at::kBFloat16, 2, dev);
  checkTensor(w1q, "w1q", at::kFloat8_e4m3fn, 3, dev);
  checkTensor(w1s, "w1s", at::kFloat, 3, dev);
  checkTensor(w2q, "w2q", at::kFloat8_e4m3fn, 3, dev);
  checkTensor(w2s, "w2s", at::kFloat, 3, dev);
  checkTensor(topk_weights, "topk_weights", at::kFloat, 2, dev);
  checkTensor(topk_ids, "topk_ids", at::kInt, 2, dev);

  const int64_t T = x.size(0), H = x.size(1), E = w1q.size(0), I = w1q.size(1) / 2;
  const int64_t K = topk_ids.size(1);
  const std::string shape = " (T=" + std::to_string(T) + " H=" + std::to_string(H) +
                            " I=" + std::to_string(I) + " E=" + std::to_string(E) +
                            " K=" + std::to_string(K) + ")";
  require(out.size(0) == T && out.size(1) == H, "out must be [T, H]" + shape);
  require(H > 0 && H % kGroup == 0, "H must be a positive multiple of 128" + shape);
  require(I > 0 && I % kGroup == 0 && w1q.size(1) == 2 * I,
          "w1q must be [E, 2I, H] with I a positive multiple of 128" + shape);
  require(w1q.size(2) == H, "w1q must be [E, 2I, H]" + shape);
  require(w2q.size(0) == E && w2q.size(1) == H && w2q.size(2) == I,
          "w2q must be [E, H, I]" + shape);
  require(w1s.size(0) == E && w1s.size(1) == 2 * I / kGroup && w1s.size(2) == H / kGroup,
          "w1s must be [E, 2I/128, H/128]" + shape);
  require(w2s.size(0) == E && w2s.size(1) == H / kGroup && w2s.size(2) == I / kGroup,
          "w2s must be [E, H/128, I/128]" + shape);
  require(topk_weights.size(0) == T && topk_weights.size(1) == K && topk_ids.size(0) == T,
          "topk_weights and topk_ids must be [T, K]" + shape);
  require(E >= 1 && E <= 65535, "E must be in [1, 65535] (grid z of the grouped GEMM)" + shape);
  // quantScatterX keeps 16 bytes per slot in (default, 48 KB) dynamic smem.
  require(K >= 1 && K <= 2048, "K must be in [1, 2048] (per-token routing kept in smem)" + shape);
  // Fp8Gemm's stage count and scale buffer are sized for K <= MAX_SHAPE_K.
  require(H <= kMaxShapeK && I <= kMaxShapeK,
          "H and I must be <= 20480 (Fp8Gemm::MAX_SHAPE_K)" + shape);
  if (T == 0)
    return;
  const int64_t M = T * K;
  const int64_t Ma = (M + 3) / 4 * 4; // moeGemm's max_shape_m (4-aligned): A's TMA rows
  // The kernel addresses D as int: (row + 128) * N must stay below 2^31.
  require((Ma + 128) * std::max<int64_t>(2 * I, H) < (int64_t(1) << 31),
          "T*K*max(2I, H) too large for the kernel's 32-bit output offsets" + shape);
  const int64_t ld = deep_gemm::compute_padded_offset(M, E); // scale rows (per-expert 32-pad)
  require(aligned16(x) && aligned16(out) && aligned16(w1q) && aligned16(w2q),
          "x, out, w1q and w2q must be 16-byte aligned (vector accesses, TMA)");
  const cudaDeviceProp *prop = at::cuda::getDeviceProperties(dev.index());
  require(prop->major == 9,
          "needs an sm_90 GPU (the kernel is wgmma/TMA, built for sm_90a); this is sm_" +
              std::to_string(prop->major * 10 + prop->minor));

  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(dev.index());
  auto opt = x.options();
  at::Tensor counts = at::empty({E}, opt.dtype(at::kInt));
  at::Tensor cursor = at::empty({E}, opt.dtype(at::kInt));
  at::Tensor offsets = at::empty({E + 1}, opt.dtype(at::kLong));
  at::Tensor rowOfPair = at::empty({M}, opt.dtype(at::kInt));
  at::Tensor rowExpert = at::empty({Ma}, opt.dtype(at::kInt));
  at::Tensor a1 = at::empty({Ma, H}, opt.dtype(at::kByte));
  at::Tensor sa1 = at::empty({H / kGroup, ld}, opt.dtype(at::kFloat));
  at::Tensor d1 = at::empty({Ma, 2 * I}, opt.dtype(FBMOE_GATE_UP_FP32 ? at::kFloat : at::kBFloat16));
  at::Tensor a2 = at::empty({Ma, I}, opt.dtype(at::kByte));
  at::Tensor sa2 = at::empty({I / kGroup, ld}, opt.dtype(at::kFloat));
  at::Tensor d2 = at::empty({Ma, H}, opt.dtype(at::kBFloat16));

  const int32_t *ids = topk_ids.data_ptr<int32_t>();
  int64_t *offs = offsets.data_ptr<int64_t>();
  int32_t *rows = rowOfPair.data_ptr<int32_t>();
  int32_t *rowE = rowExpert.data_ptr<int32_t>();

  // 1. routing
  if (cudaMemsetAsync(counts.data_ptr(), 0, E * sizeof(int32_t), stream) != cudaSuccess)
    checkCuda("memset counts");
  const unsigned pairBlocks = unsigned((M + 255) / 256);
  countExperts<<<pairBlocks, 256, 0, stream>>>(ids, M, int(E), counts.data_ptr<int32_t>());
  expertOffsets<<<1, kScanThreads, 0, stream>>>(counts.data_ptr<int32_t>(), int(E), offs,
                                                cursor.data_ptr<int32_t>());
  assignRows<<<pairBlocks, 256, 0, stream>>>(ids, M, int(E), cursor.data_ptr<int32_t>(), rows,
                                             rowE);
  checkCuda("routing kernels");

  // 2. x -> A1 (e4m3, per token and 128-group), scattered to the pairs' rows
  quantScatterX<<<unsigned(T), 256, size_t(2 * K) * sizeof(int64_t), stream>>>(
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), int(H), int(K), ids, rows, offs, ld,
      a1.data_ptr<uint8_t>(), sa1.data_ptr<float>());
  checkCuda("quantScatterX");

  // 3. gate_up: D1 [M, 2I] = A1 W1_e^T
  {
#if FBMOE_GATE_UP_FP32
    // moeGemm's own call (fp8_grouped_gemm_run), with D in fp32.
    GateUpF32::run(reinterpret_cast<__nv_fp8_e4m3 *>(a1.data_ptr()),
                   reinterpret_cast<__nv_fp8_e4m3 *>(w1q.data_ptr()), d1.data_ptr<float>(),
                   sa1.data_ptr<float>(), w1s.data_ptr<float>(), int(E), offs, int(2 * I), int(H),
                   int(Ma), stream, /*guessed_m=*/128, int(ld));
#else
    Runner runner; // fresh: the runner keeps the largest M it has seen
    require(runner.getWorkspaceSize(size_t(T), size_t(2 * I), size_t(H), size_t(K), size_t(E)) == 0,
            "fp8 x fp8 moeGemm asked for a workspace");
    runner.moeGemm(d1.data_ptr(), a1.data_ptr(), w1q.data_ptr(), offs, size_t(E), size_t(2 * I),
                   size_t(H), stream, sa1.data_ptr<float>(), w1s.data_ptr<float>());
#endif
    checkCuda("moeGemm gate_up");
  }

  // 4. a = silu(gate) * up -> A2 (e4m3, per row and 128-group)
  {
    const int64_t warps = Ma * (I / kGroup);
    siluMulQuant<D1Type><<<unsigned((warps * 32 + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const D1Type *>(d1.data_ptr()), Ma, int(I), rowE, offs, int(E),
        ld, a2.data_ptr<uint8_t>(), sa2.data_ptr<float>());
    checkCuda("siluMulQuant");
  }

  // 5. down: D2 [M, H] = A2 W2_e^T
  {
    Runner runner;
    require(runner.getWorkspaceSize(size_t(T), size_t(H), size_t(I), size_t(K), size_t(E)) == 0,
            "fp8 x fp8 moeGemm asked for a workspace");
    runner.moeGemm(d2.data_ptr(), a2.data_ptr(), w2q.data_ptr(), offs, size_t(E), size_t(H),
                   size_t(I), stream, sa2.data_ptr<float>(), w2s.data_ptr<float>());
    checkCuda("moeGemm down");
  }

  // 6. weighted sum over the K slots
  combineTopk<<<unsigned(T), 128, size_t(K) * (sizeof(int32_t) + sizeof(float)), stream>>>(
      reinterpret_cast<const __nv_bfloat16 *>(d2.data_ptr()), int(H), int(K),
      topk_weights.data_ptr<float>(), rows, reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()));
  checkCuda("combineTopk");
}
