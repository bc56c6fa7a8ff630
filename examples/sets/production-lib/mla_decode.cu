// Production baseline for mla_decode: FlashInfer's MLA paged attention, FA2
// path (flashinfer/attention/mla.cuh mla::BatchMLAPagedAttention, a persistent
// cooperative kernel: the query heads of a request packed into the rows of
// 64-row tiles, the KV split over the SMs and merged in-kernel after a grid
// sync), planned by FlashInfer's scheduler (MLAPlan of
// flashinfer/attention/scheduler.cuh). This is what
// flashinfer.mla.BatchMLAPagedAttentionWrapper runs with backend "fa2", the
// wrapper SGLang's FlashInfer MLA backend decodes DeepSeek models with, on the
// same cache: SGLang passes its one [pages, page, 1, L+R] buffer as
// ckv = buf[..., :L] and kpe = buf[..., L:] strided views, as here. It is
// instantiated as FlashInfer's JIT module does (csrc/batch_mla_run.cu and
// batch_mla_config.jinja): bf16 q/kv/out, int32 indices, the header's
// MLAParams, HEAD_DIM_CKV 512, HEAD_DIM_KPE 64, MaskMode::kNone (one query
// token per request: nothing to mask causally).
// Not FA3: on H100/H200 the wrapper's "auto" backend would pick
// flashinfer/attention/mla_hopper.cuh, whose wgmma instructions are
// sm_90a-only, and the gate compiles for sm_90. FA2 is also what FlashInfer
// runs with backend="fa2" and on pre-Hopper GPUs.
//
// The card's cache [NB, BS, L+R] holds c (L) then k_pe (R) in each row:
// ckv = kv_cache, kpe = kv_cache + L, both with page stride BS*(L+R) and token
// stride L+R (MLAParams' ckv/kpe_stride_page and _stride_n; the kernel's
// load_kv reads L values of ckv and R values of kpe at those strides). The
// kernel's StandardAttention variant multiplies sm_scale by log2(e) itself
// (exp2-based softmax), so scale is passed as given, as the wrapper passes
// sm_scale: s = scale * (q_nope . c + q_pe . k_pe).
// Per call the host copies context_lens to the host (a B int32 D2H copy that
// synchronizes the current stream: MLAPlan needs the lengths on the host, as
// a serving engine's metadata step has them; the sync also retires the
// previous call's H2D copy out of the pinned buffers this call overwrites),
// builds qo_indptr (0..B), the page indptr and kv_len (context_lens clamped to
// [0, MB*BS]), plans (MLAPlan writes its work lists to a pinned buffer and
// leaves the copy to the caller, as the wrapper's plan does), then puts the
// page indptr behind the planned bytes and copies both to the device int
// workspace in one transfer; an own small kernel compacts each request's
// block-table row into FlashInfer's page list. It plans every call, so shape
// changes between calls are safe. Workspaces are allocated once: 128 MiB
// float (split-KV partial outputs), 8 MiB int and its 8 MiB pinned mirror, as
// FlashInfer's Python wrapper sizes them. L = 512, R = 64 only.
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <flashinfer/attention/mask.cuh>
#include <flashinfer/attention/mla.cuh>
#include <flashinfer/attention/mla_params.cuh>
#include <flashinfer/attention/scheduler.cuh>
#include <torch/all.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <vector>

namespace {

using DType = __nv_bfloat16;
using FiParams = flashinfer::MLAParams<DType, DType, DType, int32_t>;

constexpr uint32_t kHeadDimCkv = 512; // kv_lora_rank
constexpr uint32_t kHeadDimKpe = 64;  // qk_rope_head_dim
constexpr size_t kFloatWorkspaceBytes =
    128u << 20; // FlashInfer's recommended float workspace
constexpr size_t kIntWorkspaceBytes =
    8u << 20; // the wrapper's _int_workspace_buffer

// indices[indptr[b] + i] = block_tables[b, i] for the pages request b uses.
__global__ void compact_pages(int32_t *indices, const int32_t *indptr,
                              const int32_t *block_tables, int64_t mb) {
  const int b = blockIdx.x;
  const int32_t first = indptr[b], n = indptr[b + 1] - first;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    indices[first + i] = block_tables[b * mb + i];
}

struct Workspace {
  int device = -1;
  at::Tensor floatBuf, intBuf, pinnedIntBuf;
};

Workspace &workspaceFor(const at::Device &dev) {
  static Workspace ws;
  if (ws.device != dev.index()) {
    auto u8 = at::TensorOptions().dtype(at::kByte);
    ws.floatBuf =
        at::empty({static_cast<int64_t>(kFloatWorkspaceBytes)}, u8.device(dev));
    ws.intBuf =
        at::empty({static_cast<int64_t>(kIntWorkspaceBytes)}, u8.device(dev));
    ws.pinnedIntBuf = at::empty({static_cast<int64_t>(kIntWorkspaceBytes)},
                                u8.device(at::kCPU).pinned_memory(true));
    ws.device = dev.index();
  }
  return ws;
}

} // namespace

void mla_decode(at::Tensor &out, const at::Tensor &q_nope,
                const at::Tensor &q_pe, const at::Tensor &kv_cache,
                const at::Tensor &block_tables, const at::Tensor &context_lens,
                double scale) {
  TORCH_CHECK(
      q_nope.scalar_type() == at::kBFloat16 &&
          q_pe.scalar_type() == at::kBFloat16 &&
          kv_cache.scalar_type() == at::kBFloat16 &&
          out.scalar_type() == at::kBFloat16,
      "flashinfer mla decode: bf16 q_nope, q_pe, kv_cache, out expected");
  TORCH_CHECK(block_tables.scalar_type() == at::kInt &&
                  context_lens.scalar_type() == at::kInt,
              "flashinfer mla decode: int32 block_tables and context_lens "
              "expected");
  TORCH_CHECK(q_nope.dim() == 3 && q_pe.dim() == 3 && kv_cache.dim() == 3 &&
                  out.dim() == 3 && block_tables.dim() == 2 &&
                  context_lens.dim() == 1,
              "flashinfer mla decode: q_nope/q_pe/out [B, H, *], kv_cache "
              "[NB, BS, L+R], block_tables [B, MB], context_lens [B] expected");
  TORCH_CHECK(q_nope.is_contiguous() && q_pe.is_contiguous() &&
                  kv_cache.is_contiguous() && block_tables.is_contiguous() &&
                  context_lens.is_contiguous() && out.is_contiguous(),
              "flashinfer mla decode: contiguous tensors expected");
  TORCH_CHECK(q_nope.is_cuda() && kv_cache.is_cuda() &&
                  block_tables.is_cuda() && context_lens.is_cuda(),
              "flashinfer mla decode: CUDA tensors expected");
  const int64_t b = q_nope.size(0), h = q_nope.size(1), lat = q_nope.size(2),
                rope = q_pe.size(2);
  const int64_t bs = kv_cache.size(1), mb = block_tables.size(1);
  TORCH_CHECK(lat == kHeadDimCkv && rope == kHeadDimKpe,
              "flashinfer mla decode: only L (kv_lora_rank) = 512 and R "
              "(qk_rope_head_dim) = 64 are instantiated, got L = ",
              lat, ", R = ", rope);
  TORCH_CHECK(q_pe.size(0) == b && q_pe.size(1) == h &&
                  kv_cache.size(2) == lat + rope && out.size(0) == b &&
                  out.size(1) == h && out.size(2) == lat &&
                  block_tables.size(0) == b && context_lens.size(0) == b,
              "flashinfer mla decode: shape mismatch");
  TORCH_CHECK(bs > 0, "flashinfer mla decode: empty pages");
  TORCH_CHECK(kv_cache.stride(0) <= std::numeric_limits<uint32_t>::max() &&
                  h * lat <= std::numeric_limits<uint32_t>::max(),
              "flashinfer mla decode: strides beyond 32 bits");
  if (b == 0 || h == 0)
    return;
  const c10::cuda::CUDAGuard guard(
      q_nope.device()); // FlashInfer queries the current device
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  Workspace &ws = workspaceFor(q_nope.device());

  // Host metadata: qo_indptr [b+1], kv page indptr [b+1], kv_len [b].
  std::vector<int32_t> lens(b);
  TORCH_CHECK(cudaMemcpyAsync(lens.data(), context_lens.data_ptr<int32_t>(),
                              b * sizeof(int32_t), cudaMemcpyDeviceToHost,
                              stream) == cudaSuccess &&
                  cudaStreamSynchronize(stream) == cudaSuccess,
              "flashinfer mla decode: reading context_lens");
  std::vector<int32_t> meta(3 * b + 2);
  int32_t *qoIndptr = meta.data(), *kvIndptr = qoIndptr + (b + 1),
          *kvLen = kvIndptr + (b + 1);
  qoIndptr[0] = kvIndptr[0] = 0;
  for (int64_t i = 0; i < b; ++i) {
    const int32_t len = static_cast<int32_t>(
        std::min<int64_t>(std::max<int32_t>(lens[i], 0), mb * bs));
    qoIndptr[i + 1] = static_cast<int32_t>(i + 1);
    kvIndptr[i + 1] = kvIndptr[i] + static_cast<int32_t>((len + bs - 1) / bs);
    kvLen[i] = len;
  }
  const int32_t totalPages = kvIndptr[b];

  flashinfer::MLAPlanInfo plan;
  size_t stagedBytes = 0;
  try {
    cudaError_t st = flashinfer::MLAPlan<int32_t>(
        ws.floatBuf.data_ptr(), kFloatWorkspaceBytes, ws.intBuf.data_ptr(),
        ws.pinnedIntBuf.data_ptr(), kIntWorkspaceBytes, plan, stagedBytes,
        qoIndptr, kvIndptr, kvLen, static_cast<uint32_t>(b),
        static_cast<uint32_t>(h), kHeadDimCkv, /*causal=*/false, stream);
    TORCH_CHECK(st == cudaSuccess,
                "flashinfer MLAPlan: ", cudaGetErrorString(st));
  } catch (const flashinfer::Error &e) {
    TORCH_CHECK(false, "flashinfer MLAPlan: ", e.what());
  }

  // The page indptr behind the planned work lists (16-byte aligned), so one
  // H2D copy moves both into the int workspace.
  const size_t indptrOffset = (stagedBytes + 15) / 16 * 16;
  const size_t copyBytes = indptrOffset + (b + 1) * sizeof(int32_t);
  TORCH_CHECK(copyBytes <= kIntWorkspaceBytes,
              "flashinfer mla decode: int workspace too small for ", b,
              " requests");
  char *pinnedBase = static_cast<char *>(ws.pinnedIntBuf.data_ptr());
  char *intBase = static_cast<char *>(ws.intBuf.data_ptr());
  std::copy(kvIndptr, kvIndptr + (b + 1),
            reinterpret_cast<int32_t *>(pinnedBase + indptrOffset));
  TORCH_CHECK(cudaMemcpyAsync(intBase, pinnedBase, copyBytes,
                              cudaMemcpyHostToDevice, stream) == cudaSuccess,
              "flashinfer mla decode: copying the plan");
  at::Tensor indices = at::empty({std::max<int32_t>(totalPages, 1)},
                                 q_nope.options().dtype(at::kInt));
  compact_pages<<<b, 128, 0, stream>>>(
      indices.data_ptr<int32_t>(),
      reinterpret_cast<const int32_t *>(intBase + indptrOffset),
      block_tables.data_ptr<int32_t>(), mb);
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  // As csrc/batch_mla_run.cu's BatchMLAPagedAttentionRun fills MLAParams.
  auto *kv = reinterpret_cast<DType *>(kv_cache.data_ptr());
  using flashinfer::GetPtrFromBaseOffset;
  FiParams p;
  p.q_nope = reinterpret_cast<DType *>(q_nope.data_ptr());
  p.q_pe = reinterpret_cast<DType *>(q_pe.data_ptr());
  p.ckv = kv;       // c: the first L values of each cache row
  p.kpe = kv + lat; // k_pe: the R values behind them
  p.q_indptr = GetPtrFromBaseOffset<int32_t>(intBase, plan.q_indptr_offset);
  p.kv_indptr = GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_indptr_offset);
  p.partial_indptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.partial_indptr_offset);
  p.kv_indices = indices.data_ptr<int32_t>();
  p.q_len = GetPtrFromBaseOffset<int32_t>(intBase, plan.q_len_offset);
  p.kv_len = GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_len_offset);
  p.q_start = GetPtrFromBaseOffset<int32_t>(intBase, plan.q_start_offset);
  p.kv_start = GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_start_offset);
  p.kv_end = GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_end_offset);
  p.work_indptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.work_indptr_offset);
  p.merge_packed_offset_start = GetPtrFromBaseOffset<int32_t>(
      intBase, plan.merge_packed_offset_start_offset);
  p.merge_packed_offset_end = GetPtrFromBaseOffset<int32_t>(
      intBase, plan.merge_packed_offset_end_offset);
  p.merge_partial_packed_offset_start = GetPtrFromBaseOffset<int32_t>(
      intBase, plan.merge_partial_packed_offset_start_offset);
  p.merge_partial_packed_offset_end = GetPtrFromBaseOffset<int32_t>(
      intBase, plan.merge_partial_packed_offset_end_offset);
  p.merge_partial_stride =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.merge_partial_stride_offset);
  p.final_o = reinterpret_cast<DType *>(out.data_ptr());
  p.final_lse = nullptr;
  p.partial_o = GetPtrFromBaseOffset<DType>(ws.floatBuf.data_ptr(),
                                            plan.partial_o_offset);
  p.partial_lse = GetPtrFromBaseOffset<float>(ws.floatBuf.data_ptr(),
                                              plan.partial_lse_offset);
  p.num_heads = flashinfer::uint_fastdiv(static_cast<uint32_t>(h));
  p.block_size = flashinfer::uint_fastdiv(static_cast<uint32_t>(bs));
  p.q_nope_stride_n = static_cast<uint32_t>(q_nope.stride(0));
  p.q_nope_stride_h = static_cast<uint32_t>(q_nope.stride(1));
  p.q_pe_stride_n = static_cast<uint32_t>(q_pe.stride(0));
  p.q_pe_stride_h = static_cast<uint32_t>(q_pe.stride(1));
  p.ckv_stride_page = static_cast<uint32_t>(kv_cache.stride(0)); // BS*(L+R)
  p.ckv_stride_n = static_cast<uint32_t>(kv_cache.stride(1));    // L+R
  p.kpe_stride_page = p.ckv_stride_page;
  p.kpe_stride_n = p.ckv_stride_n;
  p.o_stride_n = static_cast<uint32_t>(out.stride(0));
  p.o_stride_h = static_cast<uint32_t>(out.stride(1));
  p.sm_scale = static_cast<float>(scale); // natural-log units: see above
  p.ckv_scale = 1.f;                      // FP8 dequantization only
  p.kpe_scale = 1.f;
  p.ckv_scale_arr = nullptr;
  p.return_lse_base_on_e = false;

  cudaError_t st = cudaErrorInvalidValue;
  try {
    st = flashinfer::mla::BatchMLAPagedAttention<flashinfer::MaskMode::kNone,
                                                 kHeadDimCkv, kHeadDimKpe>(
        p, static_cast<uint32_t>(plan.num_blks_x),
        static_cast<uint32_t>(plan.num_blks_y), stream);
  } catch (const flashinfer::Error &e) {
    TORCH_CHECK(false, "flashinfer BatchMLAPagedAttention: ", e.what());
  }
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer BatchMLAPagedAttention: ", cudaGetErrorString(st));
}
