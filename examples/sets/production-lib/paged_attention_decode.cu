// Production baseline for paged_attention_decode: FlashInfer's paged attention
// on tensor cores (flashinfer/attention/prefill.cuh
// BatchPrefillWithPagedKVCacheDispatched, FA2 template, one query row per
// request, the query heads of a KV head packed into the rows of one tile),
// planned by FlashInfer's scheduler (PrefillPlan: KV split into chunks when
// the batch does not fill the GPU, merged by FlashInfer's merge kernel). This
// is what FlashInfer's BatchDecodeWithPagedKVCacheWrapper runs with
// use_tensor_cores=True, vLLM's FlashInfer backend's decode path for GQA group
// sizes above 4; its CUDA-core decode kernel (decode.cuh) compiles only group
// sizes 1, 2, 3, 4, 6, 8 and 16, and the suite has 5 and 7.
//
// The card's cache [NB, BS, Hk, D] is FlashInfer's NHD page layout. Per call
// the host reads context_lens (one small device-to-host copy: the plan needs
// the page counts on the host, as in a serving engine's metadata step), builds
// the page indptr, last-page lengths and the query indptr in a pinned buffer,
// copies them to the device in one transfer, and an own small kernel
// compacts each request's block-table row into FlashInfer's page list. The
// workspaces (128 MB float, 8 MB int, as FlashInfer's Python wrappers
// allocate) are allocated once. D in {64, 128, 256}.
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/attention/default_prefill_params.cuh>
#include <flashinfer/attention/prefill.cuh>
#include <flashinfer/attention/scheduler.cuh>
#include <flashinfer/attention/variants.cuh>
#include <flashinfer/page.cuh>
#include <torch/all.h>

#include <vector>

namespace {
using DType = __nv_bfloat16;
using Params =
    flashinfer::BatchPrefillPagedParams<DType, DType, DType, int32_t>;
using Variant =
    flashinfer::DefaultAttention</*custom_mask=*/false,
                                 /*sliding_window=*/false,
                                 /*logits_soft_cap=*/false, /*alibi=*/false>;

// indices[indptr[b] + i] = block_tables[b, i] for the pages request b uses.
__global__ void compact_pages(int32_t *indices, const int32_t *indptr,
                              const int32_t *block_tables, int64_t mb) {
  const int b = blockIdx.x;
  const int32_t first = indptr[b], n = indptr[b + 1] - first;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    indices[first + i] = block_tables[b * mb + i];
}

struct Workspace {
  torch::Tensor floatBuf, intBuf, pinnedInt, hostMeta, deviceMeta;
};

Workspace &workspace(const torch::Device &dev) {
  static Workspace w;
  if (!w.floatBuf.defined()) {
    auto u8 = torch::TensorOptions().dtype(torch::kUInt8).device(dev);
    w.floatBuf = torch::empty({128 << 20}, u8);
    w.intBuf = torch::empty({8 << 20}, u8);
    w.pinnedInt = torch::empty(
        {8 << 20},
        torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(true));
  }
  return w;
}

template <uint32_t HEAD_DIM>
void run(Params params, const flashinfer::PrefillPlanInfo &plan, void *floatBuf,
         void *intBuf, cudaStream_t stream) {
  using flashinfer::GetPtrFromBaseOffset;
  params.request_indices =
      GetPtrFromBaseOffset<int32_t>(intBuf, plan.request_indices_offset);
  params.qo_tile_indices =
      GetPtrFromBaseOffset<int32_t>(intBuf, plan.qo_tile_indices_offset);
  params.kv_tile_indices =
      GetPtrFromBaseOffset<int32_t>(intBuf, plan.kv_tile_indices_offset);
  params.o_indptr = GetPtrFromBaseOffset<int32_t>(intBuf, plan.o_indptr_offset);
  params.kv_chunk_size_ptr =
      GetPtrFromBaseOffset<int32_t>(intBuf, plan.kv_chunk_size_ptr_offset);
  DType *tmp_v = nullptr;
  float *tmp_s = nullptr;
  if (plan.split_kv) {
    params.merge_indptr =
        GetPtrFromBaseOffset<int32_t>(intBuf, plan.merge_indptr_offset);
    tmp_v = GetPtrFromBaseOffset<DType>(floatBuf, plan.v_offset);
    tmp_s = GetPtrFromBaseOffset<float>(floatBuf, plan.s_offset);
  }
  params.padded_batch_size = plan.padded_batch_size;
  params.max_total_num_rows = plan.total_num_rows;
  cudaError_t st = cudaErrorInvalidValue;
  // Decode packs group-size rows per request: the plan picks 16-row tiles
  // for groups up to 16 and 64-row tiles up to 64.
  switch (plan.cta_tile_q) {
  case 16:
    st = flashinfer::BatchPrefillWithPagedKVCacheDispatched<
        /*SAME_KV_STRIDES=*/true, 16, HEAD_DIM, HEAD_DIM,
        flashinfer::PosEncodingMode::kNone,
        /*USE_FP16_QK_REDUCTION=*/false, flashinfer::MaskMode::kNone,
        /*USE_TOKEN_HEAD_SF=*/false, Variant, Params>(
        params, tmp_v, tmp_s, /*enable_pdl=*/false, stream);
    break;
  case 64:
    st = flashinfer::BatchPrefillWithPagedKVCacheDispatched<
        true, 64, HEAD_DIM, HEAD_DIM, flashinfer::PosEncodingMode::kNone, false,
        flashinfer::MaskMode::kNone, false, Variant, Params>(
        params, tmp_v, tmp_s, false, stream);
    break;
  default:
    TORCH_CHECK(
        false, "flashinfer paged decode: tile of ", plan.cta_tile_q,
        " query rows not instantiated (query heads per KV head above 64)");
  }
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer BatchPrefillWithPagedKVCacheDispatched: ",
              cudaGetErrorString(st));
}
} // namespace

void paged_attention_decode(at::Tensor &out, const at::Tensor &query,
                            const at::Tensor &key_cache,
                            const at::Tensor &value_cache,
                            const at::Tensor &block_tables,
                            const at::Tensor &context_lens, double scale) {
  TORCH_CHECK(query.is_contiguous() && key_cache.is_contiguous() &&
                  value_cache.is_contiguous() && block_tables.is_contiguous() &&
                  context_lens.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const int64_t b = query.size(0), hq = query.size(1), d = query.size(2);
  const int64_t bs = key_cache.size(1), hk = key_cache.size(2),
                mb = block_tables.size(1);
  TORCH_CHECK(d == 64 || d == 128 || d == 256,
              "flashinfer paged decode: head size ", d,
              " not instantiated (64, 128, 256)");
  if (b == 0)
    return;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  Workspace &w = workspace(query.device());

  // Host metadata: qo_indptr [b+1], kv page indptr [b+1], last-page lengths
  // [b].
  std::vector<int32_t> lens(b);
  TORCH_CHECK(cudaMemcpyAsync(lens.data(), context_lens.data_ptr<int32_t>(),
                              b * sizeof(int32_t), cudaMemcpyDeviceToHost,
                              stream) == cudaSuccess &&
                  cudaStreamSynchronize(stream) == cudaSuccess,
              "flashinfer paged decode: reading context_lens");
  const int64_t metaLen = 3 * b + 2;
  if (!w.hostMeta.defined() || w.hostMeta.numel() < metaLen) {
    w.hostMeta = torch::empty(
        {metaLen},
        torch::TensorOptions().dtype(torch::kInt).pinned_memory(true));
    w.deviceMeta = torch::empty({metaLen}, query.options().dtype(torch::kInt));
  }
  int32_t *qoIndptr = w.hostMeta.data_ptr<int32_t>(),
          *kvIndptr = qoIndptr + (b + 1), *lastLen = kvIndptr + (b + 1);
  qoIndptr[0] = kvIndptr[0] = 0;
  for (int64_t i = 0; i < b; ++i) {
    const int32_t len = std::max<int32_t>(lens[i], 0);
    const int32_t pages = std::min<int64_t>((len + bs - 1) / bs, mb);
    qoIndptr[i + 1] = static_cast<int32_t>(i + 1);
    kvIndptr[i + 1] = kvIndptr[i] + pages;
    lastLen[i] = pages == 0 ? 0 : len - (pages - 1) * static_cast<int32_t>(bs);
  }
  const int32_t totalPages = kvIndptr[b];
  int32_t *dMeta = w.deviceMeta.data_ptr<int32_t>();
  TORCH_CHECK(cudaMemcpyAsync(dMeta, qoIndptr, metaLen * sizeof(int32_t),
                              cudaMemcpyHostToDevice, stream) == cudaSuccess,
              "flashinfer paged decode: copying the page metadata");
  torch::Tensor indices = torch::empty({std::max<int32_t>(totalPages, 1)},
                                       query.options().dtype(torch::kInt));
  compact_pages<<<b, 128, 0, stream>>>(indices.data_ptr<int32_t>(),
                                       dMeta + (b + 1),
                                       block_tables.data_ptr<int32_t>(), mb);
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  flashinfer::PrefillPlanInfo plan;
  cudaError_t st = flashinfer::PrefillPlan<int32_t>(
      w.floatBuf.data_ptr(), w.floatBuf.numel(), w.intBuf.data_ptr(),
      w.pinnedInt.data_ptr(), w.intBuf.numel(), plan, qoIndptr, kvIndptr,
      /*total_num_rows=*/b, b, hq, hk, d, d, bs,
      /*enable_cuda_graph=*/false, /*sizeof_dtype_o=*/2, /*window_left=*/-1,
      /*fixed_split_size=*/-1, /*disable_split_kv=*/false,
      /*num_colocated_ctas=*/0,
      /*uniform_q_len=*/0, /*fixed_uniform_q_len=*/false, stream);
  TORCH_CHECK(st == cudaSuccess,
              "flashinfer PrefillPlan: ", cudaGetErrorString(st));

  auto *kc = reinterpret_cast<DType *>(key_cache.data_ptr());
  auto *vc = reinterpret_cast<DType *>(value_cache.data_ptr());
  flashinfer::paged_kv_t<DType, int32_t> kv(
      hk, bs, d, b, flashinfer::QKVLayout::kNHD, kc, vc,
      indices.data_ptr<int32_t>(), dMeta + (b + 1), dMeta + 2 * (b + 1));
  Params p;
  p.q = reinterpret_cast<DType *>(query.data_ptr());
  p.paged_kv = kv;
  p.q_indptr = dMeta;
  p.o = reinterpret_cast<DType *>(out.data_ptr());
  p.lse = nullptr;
  p.num_qo_heads = hq;
  p.group_size = flashinfer::uint_fastdiv(hq / hk);
  p.q_stride_n = hq * d;
  p.q_stride_h = d;
  p.window_left = -1;
  p.logits_soft_cap = 0.f;
  p.sm_scale = static_cast<float>(scale);
  p.rope_rcp_scale = 1.f;
  p.rope_rcp_theta = 1.f / 1e4f;
  p.partition_kv = false;
  void *fb = w.floatBuf.data_ptr(), *ib = w.intBuf.data_ptr();
  switch (d) {
  case 64:
    run<64>(p, plan, fb, ib, stream);
    break;
  case 128:
    run<128>(p, plan, fb, ib, stream);
    break;
  default:
    run<256>(p, plan, fb, ib, stream);
  }
}
