// Production baseline for flash_attention_prefill: FlashInfer's batched
// ragged-KV prefill attention, Hopper (FA3) path
// (flashinfer/attention/hopper/prefill_sm90.cuh
// BatchPrefillWithRaggedKVCacheDispatched, planned by PrefillSM90Plan of
// flashinfer/attention/scheduler.cuh): the kernel behind
// flashinfer.BatchPrefillWithRaggedKVCacheWrapper with backend "fa3" (and
// "auto" on H100/H200: determine_attention_backend answers fa3 for bf16, no
// custom mask, no RoPE, head sizes 64/128/256), which SGLang's and vLLM's
// FlashInfer backends run for prefill without a cached prefix on Hopper. It is
// instantiated as FlashInfer's JIT module does (csrc/batch_prefill_sm90.cu,
// batch_prefill_sm90_customize_config.jinja,
// batch_prefill_ragged_sm90_kernel_inst.jinja; flashinfer/jit/attention/
// modules.py, backend "fa3"): bf16 (cutlass::bfloat16_t), causal mask, no
// sliding window, variant DefaultAttention<use_logits_soft_cap=false> (=
// StandardAttention: online softmax in exp2 with sm_scale * log2(e)), the
// RaggedParams struct that config generates (below: its fields and
// AdditionalParams as the JIT declares them for bf16 fa3), both
// SAME_SCHEDULE_FOR_ALL_HEADS instantiations (the plan picks one).
// The header fixes the kernel traits per head size (getCTATileSize, causal;
// AttentionKernelTraits with TMA loads of Q/K/V, 2 pipeline stages, one
// producer warpgroup + CTA_Q/64 wgmma consumer warpgroups; P rounded to bf16
// before the PV wgmma): D = 128: CTA_Q 128 x CTA_KV 128, 12 warps;
// D = 64: 192 x 128, 16 warps; D = 256: 128 x 64, 12 warps. PrefillSM90Plan
// uses the same CTA_Q (128, or 192 for D = 64), one persistent CTA per SM.
// K and V are ragged NHD ([tokens, heads, dim]); qo_indptr = kv_indptr =
// cu_seqlens (equal query and key lengths, so FlashInfer's bottom-right
// causal alignment, kv_idx < qo_idx + 1 + kv_len - qo_len, is the top-left
// one); query head h reads KV head h / (Hq / Hk), any group size.
// Needs sm_90a (wgmma, setmaxnreg, TMA): the plan's arch. Its headers include
// flashinfer/cutlass_utils.cuh, which needs CUTLASS's tools/util/include
// (cutlass/util/command_line.h, host_tensor.h, ...; the wheel ships it as
// data/cutlass/tools/util/include and FlashInfer's JIT puts it on the include
// path): scripts/fetch-production-libs.sh fetches it, the production flags add it.
// No FA2 fallback in this file: FlashInfer's FA2 and FA3 headers cannot share
// a translation unit (both define flashinfer::DefaultAttention,
// AttentionVariantBase, SharedStorageQKVO and the has_maybe_prefix_len_ptr
// traits; FlashInfer builds them as separate JIT modules), and it is not
// needed: FA3 covers every shape of the suite (bf16, D = 128, groups 4, 6, 7,
// 8) and every head size the FA2 file instantiated (64, 128, 256).
// Per call the host copies cu_seqlens to the host (a B+1 int32 D2H copy that
// synchronizes the current stream: PrefillSM90Plan needs host indptr and
// kv-length arrays, as the Python wrapper's plan() does), plans
// (PrefillSM90Plan balances (qo tile, head) work items over the SMs by a
// cost heap, writes the schedule to a pinned buffer and copies it to the
// device workspace on the stream), then launches; it plans every call, so
// shape changes between calls are safe. max_seqlen is ignored (it may be
// stale: the lengths come from cu_seqlens).
// Workspaces are allocated once and reused: the 8 MiB int workspace of the
// Python wrapper and an 8 MiB pinned host mirror. FA3 has no split-KV, so no
// float workspace (PrefillSM90Plan does not use its float buffer argument).
// TMA needs 16-byte aligned q/k/v/out pointers and head/token strides that are
// multiples of 8 elements (contiguous tensors are); checked, as are unit
// head-dim strides.
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

// Release build of the library, as FlashInfer's JIT compiles it (-DNDEBUG):
// without it cute's device asserts stay in the kernel and the call to
// __assertfail makes ptxas serialize the wgmma pipeline (fp8_blockscale_gemm.cu
// in this set). NDEBUG is scoped to FlashInfer's and CUTLASS's headers.
#ifndef NDEBUG
#define FA3_UNDEF_NDEBUG
#define NDEBUG
#endif
#include <assert.h>

#include <flashinfer/attention/hopper/attention_updater.cuh>
#include <flashinfer/attention/hopper/variant_helper.cuh>
#include <flashinfer/attention/hopper/variants.cuh>
#include <flashinfer/attention/hopper/prefill_sm90.cuh>
#include <flashinfer/attention/mask.cuh>
#include <flashinfer/attention/scheduler.cuh>
#include <flashinfer/cutlass_utils.cuh>
#include <flashinfer/layout.cuh>
#include <flashinfer/math.cuh>

#ifdef FA3_UNDEF_NDEBUG
#undef NDEBUG
#undef FA3_UNDEF_NDEBUG
#include <assert.h>
#endif

#include <torch/all.h>

#include <vector>

namespace atrex_prodlib_fa3 {

// The RaggedParams that batch_prefill_sm90_customize_config.jinja generates
// for dtype_q = dtype_kv = dtype_o = bf16, idtype = int32 and the fa3
// additional params of gen_batch_prefill_module (modules.py: tensors
// maybe_prefix_len_ptr, maybe_token_pos_in_items_ptr, maybe_max_item_len_ptr,
// maybe_scale_v; scalars logits_soft_cap, sm_scale, scale_v_scalar as double,
// token_pos_in_items_len as int64_t).
struct RaggedParams {
  using DTypeQ = flashinfer::cutlass_dtype_t<nv_bfloat16>; // cutlass::bfloat16_t
  using DTypeKV = flashinfer::cutlass_dtype_t<nv_bfloat16>;
  using DTypeO = flashinfer::cutlass_dtype_t<nv_bfloat16>;
  using IdType = int32_t;
  DTypeQ *q_ptr;
  DTypeKV *k_ptr;
  DTypeKV *v_ptr;
  DTypeO *o_ptr;
  float *lse_ptr;

  IdType *qo_tile_indices;
  IdType *qo_indptr;
  IdType *kv_indptr;
  IdType *qo_lens;
  IdType *kv_lens;
  IdType *head_indices;
  IdType *work_indptr;
  IdType *batch_indices;

  struct AdditionalParams {
    uint32_t *maybe_prefix_len_ptr;
    uint16_t *maybe_token_pos_in_items_ptr;
    uint16_t *maybe_max_item_len_ptr;
    float *maybe_scale_v;
    double logits_soft_cap;
    double sm_scale;
    double scale_v_scalar;
    int64_t token_pos_in_items_len;
  } additional_params;

  int64_t q_stride_n;
  int64_t k_stride_n;
  int64_t v_stride_n;
  int64_t o_stride_n;
  int64_t q_stride_h;
  int64_t k_stride_h;
  int64_t v_stride_h;
  int64_t o_stride_h;
  int64_t nnz_qo;
  int64_t nnz_kv;

  int head_dim;
  int num_qo_heads;
  int num_kv_heads;
  int group_size;
  int window_left;

  bool causal;
};

// What the fa3 JIT module names variant_name without logits soft cap.
using Variant = flashinfer::DefaultAttention</*use_logits_soft_cap=*/false>;

} // namespace atrex_prodlib_fa3

namespace {

using FiParams = atrex_prodlib_fa3::RaggedParams;
using FiVariant = atrex_prodlib_fa3::Variant;

constexpr size_t kIntWorkspaceBytes =
    8u << 20; // the wrapper's _int_workspace_buffer

struct Workspace {
  int device = -1;
  at::Tensor intBuf, pinnedIntBuf;
};

Workspace &workspaceFor(const at::Device &dev) {
  static Workspace ws;
  if (ws.device != dev.index()) {
    auto u8 = at::TensorOptions().dtype(at::kByte);
    ws.intBuf =
        at::empty({static_cast<int64_t>(kIntWorkspaceBytes)}, u8.device(dev));
    ws.pinnedIntBuf = at::empty({static_cast<int64_t>(kIntWorkspaceBytes)},
                                u8.device(at::kCPU).pinned_memory(true));
    ws.device = dev.index();
  }
  return ws;
}

template <uint32_t HEAD_DIM>
cudaError_t runRagged(FiParams &params, bool sameScheduleForAllHeads,
                      cudaStream_t stream) {
  using flashinfer::MaskMode;
  // Template arguments as batch_prefill_ragged_sm90_kernel_inst.jinja:
  // HEAD_DIM_QK, HEAD_DIM_VO, MASK_MODE, USE_SLIDING_WINDOW,
  // SAME_SCHEDULER_FOR_ALL_HEADS, AttentionVariant, Params. The ragged sm90
  // launcher ignores enable_pdl.
  if (sameScheduleForAllHeads)
    return flashinfer::BatchPrefillWithRaggedKVCacheDispatched<
        HEAD_DIM, HEAD_DIM, MaskMode::kCausal, /*LEFT_SLIDING_WINDOW=*/false,
        /*SAME_SCHEDULE_FOR_ALL_HEADS=*/true, FiVariant, FiParams>(
        params, /*enable_pdl=*/false, stream);
  return flashinfer::BatchPrefillWithRaggedKVCacheDispatched<
      HEAD_DIM, HEAD_DIM, MaskMode::kCausal, /*LEFT_SLIDING_WINDOW=*/false,
      /*SAME_SCHEDULE_FOR_ALL_HEADS=*/false, FiVariant, FiParams>(
      params, /*enable_pdl=*/false, stream);
}

// TMA (cuTensorMapEncodeTiled) and the epilogue's 16-byte stores: 16-byte
// aligned base and token/head strides of whole 16-byte units.
bool tmaCompatible(const at::Tensor &t) {
  constexpr int64_t kElems = 16 / sizeof(at::BFloat16);
  return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0 &&
         t.stride(0) % kElems == 0 && t.stride(1) % kElems == 0;
}

} // namespace

void flash_attention_prefill(torch::Tensor &out, const torch::Tensor &q,
                             const torch::Tensor &k, const torch::Tensor &v,
                             const torch::Tensor &cu_seqlens,
                             int64_t max_seqlen, double scale) {
  (void)max_seqlen; // may be stale: lengths come from cu_seqlens
  TORCH_CHECK(q.scalar_type() == at::kBFloat16 &&
                  k.scalar_type() == at::kBFloat16 &&
                  v.scalar_type() == at::kBFloat16 &&
                  out.scalar_type() == at::kBFloat16,
              "flash_attention_prefill: bf16 q, k, v, out expected");
  TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && v.dim() == 3 && out.dim() == 3,
              "flash_attention_prefill: [T, H, D] tensors expected");
  TORCH_CHECK(q.stride(2) == 1 && k.stride(2) == 1 && v.stride(2) == 1 &&
                  out.is_contiguous(),
              "flash_attention_prefill: unit head-dim strides and contiguous "
              "out expected");
  TORCH_CHECK(q.is_cuda() && cu_seqlens.is_cuda() &&
                  cu_seqlens.scalar_type() == at::kInt,
              "flash_attention_prefill: CUDA tensors and int32 device "
              "cu_seqlens expected");
  const int64_t tokens = q.size(0), hq = q.size(1), d = q.size(2),
                hk = k.size(1);
  TORCH_CHECK(k.size(2) == d && v.size(2) == d && v.size(1) == hk &&
                  k.size(0) == tokens && v.size(0) == tokens &&
                  out.size(1) == hq && out.size(2) == d &&
                  out.size(0) == tokens,
              "flash_attention_prefill: shape mismatch");
  TORCH_CHECK(hk > 0 && hq % hk == 0,
              "flash_attention_prefill: Hq must be a multiple of Hk");
  TORCH_CHECK(
      d == 64 || d == 128 || d == 256,
      "flash_attention_prefill: head sizes 64, 128, 256 instantiated, got ", d);
  const int64_t batch = cu_seqlens.numel() - 1;
  if (tokens == 0 || batch <= 0)
    return;
  TORCH_CHECK(tmaCompatible(q) && tmaCompatible(k) && tmaCompatible(v) &&
                  tmaCompatible(out),
              "flash_attention_prefill: FlashInfer's sm90 kernel loads by TMA: "
              "16-byte aligned tensors with token and head strides that are "
              "multiples of 8 expected");
  const c10::cuda::CUDAGuard guard(
      q.device()); // FlashInfer queries the current device

  // Host indptr and kv lengths for the planner: a small D2H copy; it
  // synchronizes the current stream, which also retires the previous call's
  // H2D copy out of the pinned buffer that this call's plan overwrites.
  at::Tensor cuDev = cu_seqlens.contiguous();
  at::Tensor cuHost = cuDev.to(at::kCPU);
  int32_t *indptrH = cuHost.data_ptr<int32_t>();
  TORCH_CHECK(indptrH[0] == 0 && indptrH[batch] <= tokens,
              "flash_attention_prefill: cu_seqlens must start at 0 and end at "
              "most at T");
  const uint32_t totalRows =
      indptrH[batch]; // as the wrapper's plan(): qo_indptr[-1]
  if (totalRows == 0)
    return;
  std::vector<int32_t> kvLenH(batch); // the wrapper's kv_indptr.diff()
  for (int64_t i = 0; i < batch; ++i)
    kvLenH[i] = indptrH[i + 1] - indptrH[i];

  Workspace &ws = workspaceFor(q.device());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  flashinfer::PrefillPlanSM90Info plan;
  // As csrc/batch_prefill_sm90.cu's BatchPrefillWithKVCacheSM90Plan.
  cudaError_t st = flashinfer::PrefillSM90Plan<int32_t>(
      /*float_buffer=*/nullptr, /*float_workspace_size_in_bytes=*/0,
      ws.intBuf.data_ptr(), ws.pinnedIntBuf.data_ptr(), kIntWorkspaceBytes,
      plan, /*qo_indptr_h=*/indptrH, /*kv_indptr_h=*/indptrH,
      /*kv_len_arr_h=*/kvLenH.data(), totalRows,
      static_cast<uint32_t>(batch), static_cast<uint32_t>(hq),
      static_cast<uint32_t>(hk), /*head_dim_qk=*/static_cast<uint32_t>(d),
      /*head_dim_vo=*/static_cast<uint32_t>(d), /*page_size=*/1,
      /*causal=*/true, /*enable_cuda_graph=*/false, /*sizeof_dtype_o=*/2,
      stream);
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer PrefillSM90Plan: ", cudaGetErrorString(st));

  // As csrc/batch_prefill_sm90.cu's BatchPrefillWithRaggedKVCacheSM90Run
  // fills RaggedParams (NHD layout, no LSE) and its ADDITIONAL_PARAMS_SETTER
  // with the wrapper's bf16 fa3 arguments (no multi-item scoring, scale_v
  // None -> maybe_scale_v null and scale_v_scalar 1.0, no soft cap).
  FiParams params{};
  params.q_ptr = static_cast<FiParams::DTypeQ *>(q.data_ptr());
  params.k_ptr = static_cast<FiParams::DTypeKV *>(k.data_ptr());
  params.v_ptr = static_cast<FiParams::DTypeKV *>(v.data_ptr());
  params.o_ptr = static_cast<FiParams::DTypeO *>(out.data_ptr());
  params.lse_ptr = nullptr;
  params.q_stride_n = q.stride(0);
  params.q_stride_h = q.stride(1);
  params.o_stride_n = out.stride(0);
  params.o_stride_h = out.stride(1);
  params.k_stride_n = k.stride(0);
  params.k_stride_h = k.stride(1);
  params.v_stride_n = v.stride(0);
  params.v_stride_h = v.stride(1);
  params.nnz_qo = tokens;
  params.nnz_kv = k.size(0);
  params.head_dim = static_cast<int>(d);
  params.num_qo_heads = static_cast<int>(hq);
  params.num_kv_heads = static_cast<int>(hk);
  params.group_size = static_cast<int>(hq / hk);
  params.window_left = -1;
  params.causal = true;

  char *intBase = static_cast<char *>(ws.intBuf.data_ptr());
  using flashinfer::GetPtrFromBaseOffset;
  params.qo_tile_indices =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.qo_tile_indices_offset);
  params.qo_indptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.qo_indptr_offset);
  params.kv_indptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_indptr_offset);
  params.qo_lens = GetPtrFromBaseOffset<int32_t>(intBase, plan.qo_len_offset);
  params.kv_lens = GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_len_offset);
  params.head_indices =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.head_indices_offset);
  params.work_indptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.work_indptr_offset);
  params.batch_indices =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.batch_indices_offset);

  params.additional_params.maybe_prefix_len_ptr = nullptr;
  params.additional_params.maybe_token_pos_in_items_ptr = nullptr;
  params.additional_params.maybe_max_item_len_ptr = nullptr;
  params.additional_params.maybe_scale_v = nullptr;
  params.additional_params.logits_soft_cap = 0.0;
  params.additional_params.sm_scale = scale;
  params.additional_params.scale_v_scalar = 1.0; // the PV scale (finalize)
  params.additional_params.token_pos_in_items_len = 0;

  const bool same = plan.same_schedule_for_all_heads;
  switch (d) {
  case 64:
    st = runRagged<64>(params, same, stream);
    break;
  case 128:
    st = runRagged<128>(params, same, stream);
    break;
  default:
    st = runRagged<256>(params, same, stream);
    break;
  }
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer BatchPrefillWithRaggedKVCacheDispatched (sm90): ",
              cudaGetErrorString(st));
}
