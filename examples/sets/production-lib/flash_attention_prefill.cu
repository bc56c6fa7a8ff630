// Production baseline for flash_attention_prefill: FlashInfer's batched
// ragged-KV prefill attention, FA2 path (flashinfer/attention/prefill.cuh
// BatchPrefillWithRaggedKVCacheDispatched, planned by PrefillPlan of
// flashinfer/attention/scheduler.cuh): the kernel behind
// flashinfer.BatchPrefillWithRaggedKVCacheWrapper (backend "fa2"), which
// SGLang's FlashInfer backend runs for prefill without a cached prefix. It is
// instantiated as FlashInfer's JIT module does (csrc/batch_prefill.cu and
// batch_prefill_ragged_kernel_inst.jinja): bf16, causal mask, no positional
// encoding, DefaultAttention<no custom mask, no sliding window, no soft cap,
// no ALiBi>, the header's BatchPrefillRaggedParams, CTA_TILE_Q in {16, 64,
// 128} (the tiles its planner picks for head sizes below 512), GQA group size
// at run time. K and V are ragged NHD ([tokens, heads, dim]); qo_indptr =
// kv_indptr = cu_seqlens (equal query and key lengths, so FlashInfer's
// bottom-right causal alignment is the top-left one).
// Not FA3: on H100/H200 FlashInfer's "auto" backend would pick the sm90 path
// (flashinfer/attention/hopper/prefill_sm90.cuh), but the gate compiles for
// sm_90, not sm_90a: its wgmma and setmaxnreg instructions are sm_90a-only
// (ptxas: "Instruction 'wgmma.fence' not supported on .target 'sm_90'"; for
// sm_90 CUTLASS/CuTe compile the GMMA atoms to an assert, no wgmma, so the FA3
// kernels would build but not compute). FA2 is also what FlashInfer runs with
// backend="fa2" and on pre-Hopper GPUs.
// Per call the host copies cu_seqlens to the host (a B+1 int32 D2H copy that
// synchronizes the current stream: PrefillPlan needs host indptr arrays, as
// the Python wrapper's plan() does), plans (PrefillPlan writes its schedule to
// a pinned buffer and copies it to the device workspace on the stream), then
// launches; it plans every call, so shape changes between calls are safe.
// max_seqlen is ignored (it may be stale: the lengths come from cu_seqlens).
// Workspaces are allocated once and reused, sized as FlashInfer's Python
// wrapper sizes them: 128 MiB float (split-KV partial outputs), 8 MiB int,
// and an 8 MiB pinned host mirror of the int one.
// Head sizes 64, 128 and 256 (the suite has 128 only).
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <flashinfer/attention/default_prefill_params.cuh>
#include <flashinfer/attention/mask.cuh>
#include <flashinfer/attention/prefill.cuh>
#include <flashinfer/attention/scheduler.cuh>
#include <flashinfer/attention/variants.cuh>
#include <torch/all.h>

namespace {

using FiParams = flashinfer::BatchPrefillRaggedParams<nv_bfloat16, nv_bfloat16,
                                                      nv_bfloat16, int32_t>;
// What FlashInfer's fa2 JIT module names variant_name for this configuration.
using FiVariant = flashinfer::DefaultAttention<
    /*use_custom_mask=*/false, /*use_sliding_window=*/false,
    /*use_logits_soft_cap=*/false, /*use_alibi=*/false>;

constexpr size_t kFloatWorkspaceBytes =
    128u << 20; // FlashInfer's recommended float workspace
constexpr size_t kIntWorkspaceBytes =
    8u << 20; // the wrapper's _int_workspace_buffer

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

template <uint32_t HEAD_DIM>
cudaError_t runRagged(FiParams &params, nv_bfloat16 *tmpV, float *tmpS,
                      uint32_t ctaTileQ, cudaStream_t stream) {
  using flashinfer::MaskMode;
  using flashinfer::PosEncodingMode;
  // The tiles batch_prefill_ragged_kernel_inst.jinja instantiates below head
  // size 512. Template arguments: CTA_TILE_Q, HEAD_DIM_QK, HEAD_DIM_VO,
  // POS_ENCODING_MODE, USE_FP16_QK_REDUCTION, MASK_MODE, USE_TOKEN_HEAD_SF,
  // AttentionVariant, Params.
  switch (ctaTileQ) {
  case 128:
    return flashinfer::BatchPrefillWithRaggedKVCacheDispatched<
        128, HEAD_DIM, HEAD_DIM, PosEncodingMode::kNone, false,
        MaskMode::kCausal, false, FiVariant, FiParams>(
        params, tmpV, tmpS, /*enable_pdl=*/false, stream);
  case 64:
    return flashinfer::BatchPrefillWithRaggedKVCacheDispatched<
        64, HEAD_DIM, HEAD_DIM, PosEncodingMode::kNone, false,
        MaskMode::kCausal, false, FiVariant, FiParams>(
        params, tmpV, tmpS, /*enable_pdl=*/false, stream);
  case 16:
    return flashinfer::BatchPrefillWithRaggedKVCacheDispatched<
        16, HEAD_DIM, HEAD_DIM, PosEncodingMode::kNone, false,
        MaskMode::kCausal, false, FiVariant, FiParams>(
        params, tmpV, tmpS, /*enable_pdl=*/false, stream);
  default:
    TORCH_CHECK(false, "flashinfer PrefillPlan chose cta_tile_q ", ctaTileQ,
                ", not instantiated here");
  }
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
  const c10::cuda::CUDAGuard guard(
      q.device()); // FlashInfer queries the current device

  // Host indptr for the planner: a small D2H copy; it synchronizes the current
  // stream, which also retires the previous call's H2D copy out of the pinned
  // buffer that this call's plan overwrites.
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

  Workspace &ws = workspaceFor(q.device());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  flashinfer::PrefillPlanInfo plan;
  cudaError_t st = flashinfer::PrefillPlan<int32_t>(
      ws.floatBuf.data_ptr(), kFloatWorkspaceBytes, ws.intBuf.data_ptr(),
      ws.pinnedIntBuf.data_ptr(), kIntWorkspaceBytes, plan,
      /*qo_indptr_h=*/indptrH,
      /*kv_indptr_h=*/indptrH, totalRows, static_cast<uint32_t>(batch), hq, hk,
      d, d,
      /*page_size=*/1, /*enable_cuda_graph=*/false, /*sizeof_dtype_o=*/2,
      /*window_left=*/-1,
      /*fixed_split_size=*/-1, /*disable_split_kv=*/false,
      /*num_colocated_ctas=*/0,
      /*uniform_q_len=*/0, /*fixed_uniform_q_len=*/false, stream,
      /*kv_dtype_bytes=*/2);
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer PrefillPlan: ", cudaGetErrorString(st));

  // As csrc/batch_prefill.cu's BatchPrefillWithRaggedKVCacheRun fills
  // RaggedParams.
  FiParams params;
  params.q = reinterpret_cast<nv_bfloat16 *>(q.data_ptr());
  params.k = reinterpret_cast<nv_bfloat16 *>(k.data_ptr());
  params.v = reinterpret_cast<nv_bfloat16 *>(v.data_ptr());
  params.o = reinterpret_cast<nv_bfloat16 *>(out.data_ptr());
  params.lse = nullptr;
  params.q_indptr = cuDev.data_ptr<int32_t>();
  params.kv_indptr = cuDev.data_ptr<int32_t>();
  params.num_qo_heads = hq;
  params.num_kv_heads = hk;
  params.group_size = flashinfer::uint_fastdiv(hq / hk);
  params.q_stride_n = q.stride(0);
  params.q_stride_h = q.stride(1);
  params.k_stride_n = k.stride(0);
  params.k_stride_h = k.stride(1);
  params.v_stride_n = v.stride(0);
  params.v_stride_h = v.stride(1);
  params.window_left = -1;
  params.logits_soft_cap = 0.f;
  params.sm_scale = static_cast<float>(scale);
  params.rope_rcp_scale = 1.f; // 1 / rope_scale (1.0, unused without RoPE)
  params.rope_rcp_theta =
      1.f / 1e4f; // 1 / rope_theta (1e4, unused without RoPE)

  char *intBase = static_cast<char *>(ws.intBuf.data_ptr());
  char *floatBase = static_cast<char *>(ws.floatBuf.data_ptr());
  using flashinfer::GetPtrFromBaseOffset;
  params.request_indices =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.request_indices_offset);
  params.qo_tile_indices =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.qo_tile_indices_offset);
  params.kv_tile_indices =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_tile_indices_offset);
  params.o_indptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.o_indptr_offset);
  params.kv_chunk_size_ptr =
      GetPtrFromBaseOffset<int32_t>(intBase, plan.kv_chunk_size_ptr_offset);
  nv_bfloat16 *tmpV = nullptr;
  float *tmpS = nullptr;
  if (plan.split_kv) {
    params.merge_indptr =
        GetPtrFromBaseOffset<int32_t>(intBase, plan.merge_indptr_offset);
    tmpV = GetPtrFromBaseOffset<nv_bfloat16>(floatBase, plan.v_offset);
    tmpS = GetPtrFromBaseOffset<float>(floatBase, plan.s_offset);
  }
  params.padded_batch_size = plan.padded_batch_size;
  params.max_total_num_rows = plan.total_num_rows;

  switch (d) {
  case 64:
    st = runRagged<64>(params, tmpV, tmpS, plan.cta_tile_q, stream);
    break;
  case 128:
    st = runRagged<128>(params, tmpV, tmpS, plan.cta_tile_q, stream);
    break;
  default:
    st = runRagged<256>(params, tmpV, tmpS, plan.cta_tile_q, stream);
    break;
  }
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer BatchPrefillWithRaggedKVCacheDispatched: ",
              cudaGetErrorString(st));
}
