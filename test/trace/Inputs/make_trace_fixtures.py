#!/usr/bin/env python3
"""Writes the synthetic Kineto fixtures of test/trace/composites.test and
test/trace/production.test (committed; rerun after editing):

  eager-composites.json   eager transformers-style ops (RMSNorm as pow/mean/
                          rsqrt/mul, SiLU x up, routing, grouped_mm experts,
                          eager attention after repeat_kv) and honest
                          look-alikes that must stay unmapped
  prod-vllm.json          a vLLM decode step replayed from a CUDA graph (no
                          launching ops: kernel names only) + one eager op
  prod-sglang.json        SGLang / FlashInfer / TensorRT-LLM / AITER kernel
                          names, extend (prefill) and decode

Kernel names are the ones the stacks' sources declare (see the `source` of
each rule in suites/atrex-serve/trace-map.yaml).
    python3 make_trace_fixtures.py OUTDIR
"""
import json
import os
import sys


class T:
    def __init__(self):
        self.ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]
        self.ts = 10
        self.corr = 0
        self.gpu_ts = 1_000_000

    def kernel(self, name, dur=10, corr=None):
        k = {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
             "ts": self.gpu_ts, "dur": dur, "args": {"device": 0, "stream": 7}}
        if corr is not None:
            k["args"]["correlation"] = corr
        self.ev.append(k)
        self.gpu_ts += dur + 2

    def op(self, name, dims, types=None, kernel="void at::native::elementwise_kernel<128, 4>(int)",
           dur=10, child=None):
        """A cpu_op that launches one kernel (optionally through a child op)."""
        start = self.ts
        self.ts += 1
        if child:
            cstart = self.ts
            self.ts += 1
            self._launch(kernel, dur)
            self.ev.append({"ph": "X", "cat": "cpu_op", "name": child, "pid": 1, "tid": 1,
                            "ts": cstart, "dur": self.ts - cstart,
                            "args": {"Input Dims": dims}})
            self.ts += 1
        else:
            self._launch(kernel, dur)
        args = {"Input Dims": dims}
        if types is not None:
            args["Input type"] = types
        self.ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1,
                        "ts": start, "dur": self.ts - start + 1, "args": args})
        self.ts += 3

    def _launch(self, kernel, dur):
        self.corr += 1
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                        "tid": 1, "ts": self.ts, "dur": 1, "args": {"correlation": self.corr}})
        self.kernel(kernel, dur, self.corr)
        self.ts += 2

    def annotate(self, name, start):
        self.ev.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1,
                        "ts": start, "dur": self.ts - start + 5})
        self.ts += 10

    def write(self, path):
        with open(path, "w") as f:
            json.dump({"traceEvents": self.ev}, f, indent=0)
            f.write("\n")


BF = "c10::BFloat16"


def rms_norm(t, T, H, add=False):
    if add:
        t.op("aten::add", [[1, T, H], [1, T, H], []], [BF, BF, "Scalar"])
    t.op("aten::to", [[1, T, H], [], [], [], []], [BF], child="aten::_to_copy")
    t.op("aten::pow", [[1, T, H], []], ["float", "Scalar"])
    t.op("aten::mean", [[1, T, H], [], [], []], ["float"])
    t.op("aten::add", [[1, T, 1], [], []], ["float", "double", "Scalar"])
    t.op("aten::rsqrt", [[1, T, 1]], ["float"])
    t.op("aten::mul", [[1, T, H], [1, T, 1]], ["float", "float"])
    t.op("aten::to", [[1, T, H], [], [], [], []], ["float"], child="aten::_to_copy")
    t.op("aten::mul", [[H], [1, T, H]], [BF, BF])


def linear(t, T, N, K):
    t.op("aten::linear", [[1, T, K], [N, K], []], [BF, BF, ""],
         kernel="nvjet_tst_64x8_64x16_4x1_v_bz_TNT", child="aten::mm")


def eager():
    t = T()
    a = t.ts
    t.ts += 1
    # a decoder layer's norms and gated MLP (T=4 tokens, H=64, D=128)
    rms_norm(t, 4, 64)
    linear(t, 4, 128, 64)
    t.op("aten::silu", [[1, 4, 128]], [BF])
    linear(t, 4, 128, 64)
    t.op("aten::mul", [[1, 4, 128], [1, 4, 128]], [BF, BF])
    linear(t, 4, 64, 128)
    rms_norm(t, 4, 64, add=True)
    # look-alikes: a lone multiply, a pow without mean/rsqrt, SiLU then a
    # multiply of another width: none is an operator
    t.op("aten::mul", [[1, 4, 64], [1, 4, 64]], [BF, BF], kernel="lone_mul_kernel")
    t.op("aten::pow", [[1, 4, 64], []], [BF, "Scalar"], kernel="lone_pow_kernel")
    t.op("aten::add", [[1, 4, 64], [], []], [BF, "Scalar", "Scalar"], kernel="lone_add_kernel")
    t.op("aten::silu", [[1, 4, 96]], [BF], kernel="silu_other_width_kernel")
    t.op("aten::mul", [[1, 4, 64], [1, 4, 64]], [BF, BF], kernel="mul_other_width_kernel")
    # routing: softmax, topk, renormalise (T=4, E=8, K=2)
    t.op("aten::softmax", [[4, 8], [], []], [BF], child="aten::_softmax")
    t.op("aten::topk", [[4, 8], [], [], [], []], ["float"])
    t.op("aten::sum", [[4, 2], [], [], []], ["float"])
    t.op("aten::div_", [[4, 2], [4, 1]], ["float", "float"])
    # grouped_mm experts (E=4 experts, I=32, H=64, T*K=8)
    t.op("aten::sort", [[8], [], []], ["long int"], child="aten::sort")
    t.op("aten::index", [[4, 64], []], [BF])
    t.op("aten::histc", [[8], [], [], []], ["int"])
    t.op("aten::_grouped_mm", [[8, 64], [4, 64, 64], [4], [], []], [BF, BF, "int", "", ""],
         kernel="cutlass_grouped_kernel_gate_up")
    t.op("aten::silu", [[8, 32]], [BF])
    t.op("aten::mul", [[8, 32], [8, 32]], [BF, BF])
    t.op("aten::_grouped_mm", [[8, 32], [4, 32, 64], [4], [], []], [BF, BF, "int", "", ""],
         kernel="cutlass_grouped_kernel_down")
    t.op("aten::mul", [[8, 64], [8, 1]], [BF, BF])
    t.op("aten::sum", [[4, 2, 64], [], [], []], [BF])
    # a lone grouped GEMM (no routing around it): not the fused MoE
    t.op("aten::_grouped_mm", [[8, 64], [4, 64, 64], [4], [], []], [BF, BF, "int", "", ""],
         kernel="lone_grouped_mm_kernel")
    t.annotate("prefill composites", a)
    # decode attention after repeat_kv (B=2, Hq=4, Hk=2, D=32, S=16)
    a = t.ts
    t.ts += 1
    t.op("aten::reshape", [[2, 2, 2, 16, 32], []], [BF], child="aten::clone",
         kernel="repeat_kv_copy_kernel")
    t.op("aten::reshape", [[2, 2, 2, 16, 32], []], [BF], child="aten::clone",
         kernel="repeat_kv_copy_kernel")
    t.op("aten::matmul", [[2, 4, 1, 32], [2, 4, 32, 16]], [BF, BF], child="aten::bmm",
         kernel="gemv_qk_kernel")
    t.op("aten::mul", [[2, 4, 1, 16], []], [BF, "double"])
    t.op("aten::add", [[2, 4, 1, 16], [2, 1, 1, 16], []], [BF, BF, "Scalar"])
    t.op("aten::softmax", [[2, 4, 1, 16], [], []], [BF], child="aten::_softmax")
    t.op("aten::to", [[2, 4, 1, 16], [], [], [], []], ["float"], child="aten::_to_copy")
    t.op("aten::matmul", [[2, 4, 1, 16], [2, 4, 16, 32]], [BF, BF], child="aten::bmm",
         kernel="gemv_pv_kernel")
    # a matmul + softmax that is not attention (no second matmul)
    t.op("aten::matmul", [[2, 4, 1, 32], [2, 4, 32, 16]], [BF, BF], child="aten::bmm",
         kernel="lone_matmul_kernel")
    t.op("aten::softmax", [[2, 4, 1, 16], [], []], [BF], child="aten::_softmax",
         kernel="lone_softmax_kernel")
    t.annotate("decode composites", a)
    return t


def production(names):
    t = T()
    for ann, kernels in names:
        start = t.gpu_ts
        for k, dur in kernels:
            t.kernel(k, dur)
        t.ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": ann, "pid": 0, "tid": 7,
                     "ts": start - 1, "dur": t.gpu_ts - start + 2, "args": {}})
    return t


VLLM_DECODE = [
    ("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, float, int, int)", 8),
    ("nvjet_tst_64x8_64x16_4x1_v_bz_TNT", 30),
    ("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", 4),
    ("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, __nv_bfloat16*, long const*, long, long, long, long, long, int, int, int, float const*, float const*)", 3),
    ("void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float*, float*, __nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16 const*, int, float, int const*, int const*, int, float const*, int, int, int, float const*, float const*, int, int, int)", 40),
    ("void vllm::paged_attention_v2_reduce_kernel<__nv_bfloat16, 128, 128, 512>(__nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, int const*, int)", 5),
    ("void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::BFloat16>(c10::BFloat16 const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)", 6),
    ("void vllm::moe::topkGatingSoftmax<8, 128, 4, 16, 32, int>(float const*, bool const*, float*, int, int*, int*, int, int, int)", 2),
    ("void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, int, int, unsigned long, int*)", 2),
    ("fused_moe_kernel", 50),
    ("void vllm::rms_norm_static_fp8_quant_kernel<c10::BFloat16, c10::Float8_e4m3fn>(c10::Float8_e4m3fn*, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float, int, int)", 7),
]

SGLANG = [
    ("extend", [
        ("void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)", 10),
        ("void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<false, 128u, 8u, 16u, __nv_bfloat16, long>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, float*, long*, unsigned int, unsigned int, unsigned int, unsigned int, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long)", 5),
        ("void flashinfer::BatchPrefillWithRaggedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)1, 128u, 1u, 4u, 8u, 8u, 4u, 1u>, flashinfer::BatchPrefillRaggedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int> >(flashinfer::BatchPrefillRaggedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", 60),
        ("fmha_v2_flash_attention_bf16_64_128_S_qkv_128_causal_tma_ws_sm90_kernel", 50),
        ("void per_token_group_quant_8bit_kernel<__nv_bfloat16, c10::Float8_e4m3fn, false, false, float>(__nv_bfloat16 const*, void*, float*, int, int, int, float, float, float, int, int)", 6),
        ("void deep_gemm::fp8_gemm_kernel<7168u, 2048u, 128u, 128u, 128u, 1u, 4u, 8u, 8u, (deep_gemm::GemmType)0>(float*, int*, unsigned int, CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap)", 80),
        ("_ZN5aiter52fmoe_bf16_blockscaleFp8_g1u1_novs_silu_1tg_ps_32x256E", 90),
    ]),
    ("decode", [
        ("void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 2u, 8u, 16u, 1u, 4u, flashinfer::DefaultAttention<false, false, false, false>, flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int> >(flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", 30),
        ("kernel_mha", 25),
        ("void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &silu>(__nv_bfloat16*, __nv_bfloat16 const*, int)", 4),
        ("void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::gelu_tanh_kernel<c10::BFloat16>(c10::BFloat16 const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)", 4),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)", 3),
    ]),
]


def main():
    out = sys.argv[1]
    eager().write(os.path.join(out, "eager-composites.json"))
    production([("decode step (cuda graph)", VLLM_DECODE)]).write(os.path.join(out, "prod-vllm.json"))
    production(SGLANG).write(os.path.join(out, "prod-sglang.json"))


if __name__ == "__main__":
    main()
