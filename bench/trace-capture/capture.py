#!/usr/bin/env python3
"""Capture PyTorch profiler traces of real model architectures for atrex-trace.

Runs transformers' Llama (Llama-3.1-8B configuration) and Qwen3-MoE
(Qwen3-30B-A3B configuration) with random bf16 weights through prefill and
decode at several batch sizes under torch.profiler (record_shapes=True) and
writes one Kineto chrome trace per application:

    python3 bench/trace-capture/capture.py --out DIR [--device cuda] [--small]

No weights are downloaded: the models are built from their public
configurations (../../../shared/OPERATORS.md) with random initialisation; the
kernels, their shapes and their durations do not depend on the weight values
(routing of the MoE does: random router weights spread tokens roughly
uniformly over the experts).

Operator semantics in the trace. Eager transformers code computes RMSNorm,
SwiGLU, rotary embedding, top-k routing and the expert MLPs from generic aten
ops (pow/mean/rsqrt/mul, ...), which no mapping rule can tell apart from other
element-wise work. Production servers run these as named custom ops (vLLM's
`_C::rms_norm`, `_C::silu_and_mul`, `_C::rotary_embedding`,
`_moe_C::topk_softmax`, `vllm::outplace_fused_experts`). The capture does the
same: it registers custom ops in the `atrex_capture` namespace whose
implementation is the unchanged transformers code, and routes the modules
through them. The profiler then records each op with its input shapes, and
every kernel the transformers code launches nests under it. The GEMMs
(aten::linear / aten::mm) and attention (aten SDPA) are not wrapped.

The serving schedule (per application, one trace) is documented in
bench/trace-capture/README.md.
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

LIB = "atrex_capture"


# --- custom ops: named operator boundaries around the transformers code ----

@torch.library.custom_op(f"{LIB}::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    # LlamaRMSNorm.forward / Qwen3MoeRMSNorm.forward, verbatim
    input_dtype = x.dtype
    h = x.to(torch.float32)
    variance = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(variance + eps)
    return weight * h.to(input_dtype)


@torch.library.custom_op(f"{LIB}::silu_and_mul", mutates_args=())
def silu_and_mul(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # LlamaMLP: act_fn(gate_proj(x)) * up_proj(x) with act_fn = silu
    return F.silu(gate) * up


@torch.library.custom_op(f"{LIB}::rotary_embedding", mutates_args=())
def rotary_embedding(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor,
                     sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # transformers' apply_rotary_pos_emb (NeoX layout, rotate_half), verbatim
    def rotate_half(x):
        x1 = x[..., : x.shape[-1] // 2]
        x2 = x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


@torch.library.custom_op(f"{LIB}::topk_softmax", mutates_args=("topk_weights", "topk_ids"))
def topk_softmax(topk_weights: torch.Tensor, topk_ids: torch.Tensor,
                 router_logits: torch.Tensor, renormalize: bool) -> None:
    # Qwen3MoeTopKRouter.forward after the router GEMM, verbatim
    probs = torch.nn.functional.softmax(router_logits, dtype=torch.float, dim=-1)
    top_value, top_index = torch.topk(probs, topk_weights.shape[-1], dim=-1)
    if renormalize:
        top_value /= top_value.sum(dim=-1, keepdim=True)
    topk_weights.copy_(top_value)
    topk_ids.copy_(top_index)


_EXPERTS_FORWARD = {}
_SDPA = {}


class _AttnModule:
    """What transformers' sdpa_attention_forward reads from the attention module."""
    training = False

    def __init__(self, groups, is_causal):
        self.num_key_value_groups = groups
        self.is_causal = is_causal


@torch.library.custom_op(f"{LIB}::attention", mutates_args=())
def attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
              attention_mask: torch.Tensor | None, scaling: float, groups: int,
              is_causal: bool) -> torch.Tensor:
    # transformers' SDPA attention on the un-repeated GQA key/value (so the op's
    # input shapes carry the real number of KV heads), output [B, S, Hq, D]
    if query.shape[2] == 1:
        # Decode: one query token per sequence attends to every cached position,
        # as a paged-attention kernel does; without the mask transformers lets
        # SDPA read the GQA cache directly (enable_gqa) instead of first copying
        # it num_key_value_groups times (repeat_kv). The static cache holds up
        # to `steps` not yet written positions more than the context; attending
        # to them too changes the work by under 1.2% (8 of 1032+ positions).
        attention_mask = None
    out, _ = _SDPA["sdpa"](_AttnModule(groups, is_causal), query, key, value, attention_mask,
                           scaling=scaling)
    return out.contiguous()


@torch.library.custom_op(f"{LIB}::fused_experts", mutates_args=())
def fused_experts(hidden: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor,
                  topk_weights: torch.Tensor, topk_ids: torch.Tensor) -> torch.Tensor:
    # The transformers experts module (its configured implementation) on these inputs.
    module = _EXPERTS_FORWARD[(w13.data_ptr(), w2.data_ptr())]
    return module(hidden, topk_ids, topk_weights)


# --- routing the transformers modules through the ops -------------------------

def patch_transformers():
    from transformers.models.llama import modeling_llama as ml
    from transformers.models.qwen3_moe import modeling_qwen3_moe as mq

    def norm_forward(self, hidden_states):
        return torch.ops.atrex_capture.rms_norm(hidden_states, self.weight, self.variance_epsilon)

    def mlp_forward(self, x):
        return self.down_proj(torch.ops.atrex_capture.silu_and_mul(self.gate_proj(x), self.up_proj(x)))

    def rope(q, k, cos, sin, unsqueeze_dim=1):
        assert unsqueeze_dim == 1
        return torch.ops.atrex_capture.rotary_embedding(q.contiguous(), k.contiguous(), cos, sin)

    ml.LlamaRMSNorm.forward = norm_forward
    mq.Qwen3MoeRMSNorm.forward = norm_forward
    ml.LlamaMLP.forward = mlp_forward
    mq.Qwen3MoeMLP.forward = mlp_forward
    ml.apply_rotary_pos_emb = rope
    mq.apply_rotary_pos_emb = rope

    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    _SDPA["sdpa"] = ALL_ATTENTION_FUNCTIONS["sdpa"]

    def sdpa(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None,
             **kwargs):
        scaling = scaling if scaling is not None else query.shape[-1] ** -0.5
        causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
        return torch.ops.atrex_capture.attention(
            query, key, value, attention_mask, float(scaling),
            int(getattr(module, "num_key_value_groups", 1)), bool(causal)), None

    ALL_ATTENTION_FUNCTIONS["sdpa"] = sdpa

    experts_forward = mq.Qwen3MoeExperts.forward

    def router_forward(self, hidden_states):
        hidden_states = hidden_states.reshape(-1, self.hidden_dim)
        router_logits = F.linear(hidden_states, self.weight)
        weights = torch.empty(hidden_states.shape[0], self.top_k, dtype=torch.float,
                              device=hidden_states.device)
        ids = torch.empty(hidden_states.shape[0], self.top_k, dtype=torch.int64,
                          device=hidden_states.device)
        torch.ops.atrex_capture.topk_softmax(weights, ids, router_logits, bool(self.norm_topk_prob))
        return router_logits, weights.to(router_logits.dtype), ids

    def moe_forward(self, hidden_states):
        b, s, h = hidden_states.shape
        x = hidden_states.view(-1, h)
        _, routing_weights, selected = self.gate(x)
        ex = self.experts
        key = (ex.gate_up_proj.data_ptr(), ex.down_proj.data_ptr())
        _EXPERTS_FORWARD[key] = lambda hs, ids, w, _ex=ex: experts_forward(_ex, hs, ids, w)
        out = torch.ops.atrex_capture.fused_experts(x, ex.gate_up_proj, ex.down_proj,
                                                    routing_weights, selected)
        return out.reshape(b, s, h)

    mq.Qwen3MoeTopKRouter.forward = router_forward
    mq.Qwen3MoeSparseMoeBlock.forward = moe_forward


# --- models ------------------------------------------------------------------

def llama_config(small):
    from transformers import LlamaConfig
    if small:
        return LlamaConfig(hidden_size=256, intermediate_size=512, num_attention_heads=4,
                           num_key_value_heads=2, head_dim=64, num_hidden_layers=2,
                           vocab_size=1000, max_position_embeddings=4096)
    # Llama-3.1-8B (public configuration)
    return LlamaConfig(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                       num_key_value_heads=8, head_dim=128, num_hidden_layers=32,
                       vocab_size=128256, max_position_embeddings=131072, rope_theta=500000.0,
                       rms_norm_eps=1e-5)


def qwen_moe_config(small):
    from transformers import Qwen3MoeConfig
    if small:
        return Qwen3MoeConfig(hidden_size=256, moe_intermediate_size=128, intermediate_size=512,
                              num_attention_heads=4, num_key_value_heads=2, head_dim=64,
                              num_hidden_layers=2, num_experts=8, num_experts_per_tok=2,
                              vocab_size=1000, norm_topk_prob=True, max_position_embeddings=4096)
    # Qwen3-30B-A3B (public configuration)
    return Qwen3MoeConfig(hidden_size=2048, moe_intermediate_size=768, intermediate_size=6144,
                          num_attention_heads=32, num_key_value_heads=4, head_dim=128,
                          num_hidden_layers=48, num_experts=128, num_experts_per_tok=8,
                          vocab_size=151936, norm_topk_prob=True, decoder_sparse_step=1,
                          max_position_embeddings=40960, rope_theta=1000000.0, rms_norm_eps=1e-6)


def build(cfg, device, experts_impl, attn="sdpa"):
    from transformers import AutoModelForCausalLM
    cfg._attn_implementation = attn
    kwargs = {}
    if experts_impl:
        kwargs["experts_implementation"] = experts_impl
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, **kwargs)
    model.eval()
    return model


def random_cache(model, batch, ctx, steps, device):
    """A static KV cache (preallocated, as a serving engine's paged cache is)
    holding ctx random positions; decode steps then write in place instead of
    concatenating (transformers' DynamicCache copies the whole cache per step,
    which no serving engine does)."""
    from transformers import StaticCache
    cfg = model.config
    cache = StaticCache(config=cfg, max_cache_len=ctx + steps)
    hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    for layer in range(cfg.num_hidden_layers):
        k = torch.randn(batch, cfg.num_key_value_heads, ctx, hd, dtype=torch.bfloat16, device=device)
        cache.update(k, torch.randn_like(k), layer)
    return cache


def prepare(model, step, device, warmup=False):
    """Inputs of one schedule step, made before the profiler starts."""
    vocab = model.config.vocab_size
    if step[0] == "prefill":
        _, batch, seqlen = step
        seqlen = min(seqlen, 128) if warmup else seqlen
        return ("prefill", torch.randint(0, vocab, (batch, seqlen), device=device))
    _, batch, ctx, steps = step
    if warmup:
        ctx, steps = min(ctx, 128), 1
    return ("decode", torch.randint(0, vocab, (batch, 1), device=device),
            random_cache(model, batch, ctx, steps, device), ctx, steps)


def run(model, prepared, device):
    if prepared[0] == "prefill":
        ids = prepared[1]
        with torch.profiler.record_function(f"prefill b{ids.shape[0]} s{ids.shape[1]}"):
            model(input_ids=ids, use_cache=False, logits_to_keep=1)
        return
    _, ids, cache, ctx, steps = prepared
    batch = ids.shape[0]
    for i in range(steps):
        pos = ctx + i
        with torch.profiler.record_function(f"decode b{batch} ctx{pos}"):
            out = model(input_ids=ids, past_key_values=cache, use_cache=True,
                        position_ids=torch.full((batch, 1), pos, device=device),
                        cache_position=torch.tensor([pos], device=device), logits_to_keep=1)
        ids = out.logits[:, -1:].argmax(-1)


# One trace per application: (name, config, experts implementation, schedule).
# schedule entries: ("prefill", batch, seqlen) or ("decode", batch, ctx, steps).
def applications(small):
    if small:
        return [
            ("llama-3.1-8b-chat", llama_config(True), None,
             [("prefill", 1, 64), ("decode", 4, 32, 2)]),
            ("qwen3-30b-a3b-agent", qwen_moe_config(True), "eager",
             [("prefill", 2, 32), ("decode", 4, 32, 2)]),
        ]
    return [
        # interactive chat: short prompts, small decode batches, long answers
        ("llama-3.1-8b-chat", llama_config(False), None,
         [("prefill", 1, 2048), ("prefill", 4, 512),
          ("decode", 16, 2048, 8), ("decode", 64, 1024, 8)]),
        # agentic/tool use: long prompts (prefill-heavy), larger decode batches
        ("qwen3-30b-a3b-agent", qwen_moe_config(False), "grouped_mm",
         [("prefill", 1, 8192), ("prefill", 2, 2048),
          ("decode", 32, 4096, 6), ("decode", 128, 1024, 6)]),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--small", action="store_true", help="tiny configurations (a CPU smoke test)")
    ap.add_argument("--only", help="capture one application by name")
    ap.add_argument("--eager", action="store_true",
                    help="plain eager transformers: no atrex_capture ops (what a new user "
                         "records; the applications are named *-eager, a shorter schedule)")
    ap.add_argument("--attn", default="sdpa", choices=["sdpa", "eager"],
                    help="transformers attention implementation (eager: matmul, mask, "
                         "softmax, matmul)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not args.eager:
        patch_transformers()
    import transformers
    meta = {"torch": torch.__version__, "transformers": transformers.__version__,
            "device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
            "applications": []}
    acts = [torch.profiler.ProfilerActivity.CPU]
    if args.device == "cuda":
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    for name, cfg, experts_impl, schedule in applications(args.small):
        if args.eager:
            # one prefill and one decode batch of the schedule, a few steps
            pre = next(s for s in schedule if s[0] == "prefill")
            dec = next(s for s in schedule if s[0] == "decode")
            schedule = [pre, dec[:3] + (min(dec[3], 3),)]
            name += "-eager" + ("-attn" if args.attn == "eager" else "")
        if args.only and not name.startswith(args.only):
            continue
        t0 = time.time()
        try:
            model = build(cfg, args.device, experts_impl, args.attn)
        except Exception as e:  # an experts implementation this transformers lacks
            print(f"capture: {name}: experts implementation {experts_impl!r} failed ({e}); using eager",
                  file=sys.stderr)
            experts_impl = "eager"
            model = build(cfg, args.device, experts_impl, args.attn)
        with torch.inference_mode():
            # warm-up outside the trace (cuBLAS handles, autotuning, allocator)
            for step in schedule:
                run(model, prepare(model, step, args.device, warmup=True), args.device)
            prepared = [prepare(model, step, args.device) for step in schedule]
            if args.device == "cuda":
                torch.cuda.synchronize()
            with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
                for p in prepared:
                    run(model, p, args.device)
                if args.device == "cuda":
                    torch.cuda.synchronize()
        path = os.path.join(args.out, f"{name}.json")
        prof.export_chrome_trace(path)
        meta["applications"].append({"name": name, "trace": os.path.basename(path),
                                     "eager": args.eager, "attention": args.attn,
                                     "experts_implementation": experts_impl,
                                     "schedule": [list(s) for s in schedule],
                                     "config": {k: v for k, v in cfg.to_dict().items()
                                                if isinstance(v, (int, float, str, bool))},
                                     "bytes": os.path.getsize(path),
                                     "seconds": round(time.time() - t0, 1)})
        print(f"capture: {name}: {os.path.getsize(path) / 1e6:.1f} MB in {time.time() - t0:.1f} s",
              file=sys.stderr)
        del model, prepared
        if args.device == "cuda":
            torch.cuda.empty_cache()
    with open(os.path.join(args.out, "capture.json"), "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    main()
