#!/usr/bin/env python
"""Peak bytes one eager attention layer adds during a prefill (no grad), and the mask it reads.

One attention module of a tiny random-weight model runs under a dispatch mode that counts every
storage an op creates until it is freed (weak references); the peak above what existed before the
call is what the layer added at its worst moment. At three prompt lengths the peak is a quadratic
in the prompt, peak = alpha * b * a * p^2 + (terms linear in p); alpha is the bytes per attention
score the eager path holds at once. The 4-D mask the model builds for eager attention is read
from the layer's `attention_mask` argument (bytes per b * p^2).

Run (CPU; measured with torch 2.15.0, transformers 5.24.0; name families to measure only those):
    HF_HUB_OFFLINE=1 python measure_eager_prefill.py > eager_prefill.jsonl
"""
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM


# The live-storage counter of the indexer measurements (../indexer/measure_indexer_peak.py): every storage an op
# creates counts until it is freed; `peak` is the most at once.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "indexer"))
from measure_indexer_peak import LiveBytes  # noqa: E402


COMMON = dict(vocab_size=128, hidden_size=64, intermediate_size=64, num_hidden_layers=1)
# Each family's tiny config; `heads` is filled in. Families whose eager path differs: Llama's copies
# (softmax(dtype=float32) of a 16-bit input), Gemma-2's softcap, the sinks of gpt-oss and its
# followers, Bloom's ALiBi `baddbmm`, MPT's boolean mask, OPT's clamp, GPT-2's and GPT-NeoX's own.
FAMILIES = {
    "llama": dict(num_key_value_heads=1, head_dim=16),
    "qwen2": dict(num_key_value_heads=1, head_dim=16),
    "gemma2": dict(num_key_value_heads=1, head_dim=16, sliding_window=4096),
    "vaultgemma": dict(num_key_value_heads=1, head_dim=16),
    "gpt_oss": dict(num_key_value_heads=1, head_dim=16, num_local_experts=2, num_experts_per_tok=1,
                    sliding_window=4096, layer_types=["full_attention"]),
    "flint": dict(num_key_value_heads=1, head_dim=16, num_experts=2, num_experts_per_tok=1,
                  moe_intermediate_size=16, shared_expert_intermediate_size=16, layer_types=["full_attention"]),
    "granite_swa": dict(num_key_value_heads=1, layer_types=["full_attention"]),
    "mimo_v2_flash": dict(num_key_value_heads=1, head_dim=16, v_head_dim=8, n_routed_experts=2,
                          num_experts_per_tok=1, moe_intermediate_size=16, layer_types=["full_attention"]),
    "bloom": dict(),
    "mpt": dict(),
    "opt": dict(ffn_dim=64, word_embed_proj_dim=64),
    "gpt2": dict(),
    "gpt_neox": dict(),
    "gpt_neo": dict(),
}


def model_of(family, heads, dtype):
    kw = dict(COMMON, **FAMILIES[family])
    if family == "bloom":
        kw = dict(vocab_size=128, n_layer=1, hidden_size=64, n_head=heads)
    elif family == "mpt":
        kw = dict(vocab_size=128, d_model=64, n_layers=1, n_heads=heads, expansion_ratio=1)
    elif family == "gpt2":
        kw = dict(vocab_size=128, n_embd=64, n_layer=1, n_head=heads)
    elif family == "gpt_neo":
        kw = dict(vocab_size=128, hidden_size=64, num_layers=1, num_heads=heads, attention_types=[[["global"], 1]])
    else:
        kw["num_attention_heads"] = heads
    cfg = AutoConfig.for_model(family, **kw)
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager", dtype=dtype).eval()
    return model


def attention_module(model):
    for name in ("self_attn", "self_attention", "attn", "attention"):
        for m in model.modules():
            if hasattr(m, name) and isinstance(getattr(m, name), torch.nn.Module):
                return getattr(m, name)
    raise RuntimeError("no attention module")


def measure(family, heads, batch, seq, dtype):
    torch.manual_seed(0)
    model = model_of(family, heads, dtype)
    attn = attention_module(model)
    got = {}

    def enter(mod, args, kwargs):
        mask = kwargs.get("attention_mask")
        if mask is None:
            mask = next((a for a in args[1:] if isinstance(a, torch.Tensor) and a.dim() == 4), None)
        got["mask"] = 0 if mask is None else mask.untyped_storage().nbytes()
        mode = LiveBytes()
        got["mode"] = mode
        mode.__enter__()

    def leave(mod, args, kwargs, out):
        mode = got.pop("mode")
        mode.__exit__(None, None, None)
        got["peak"] = mode.peak

    attn.register_forward_pre_hook(enter, with_kwargs=True)
    attn.register_forward_hook(leave, with_kwargs=True)
    ids = torch.randint(1, 128, (batch, seq))
    with torch.no_grad():
        model(input_ids=ids, use_cache=False)
    return got["peak"], got["mask"]


# Long enough that the score matrices are the peak at every size (at 64 tokens a 2-head layer's
# projections can be), so the peak is one quadratic.
SEQS = (256, 384, 512)


def main():
    rows = []
    only = set(sys.argv[1:])
    for family in FAMILIES:
        if only and family not in only:
            continue
        try:
            measure(family, 2, 1, 8, torch.float32)
        except Exception as e:  # noqa: BLE001 (a family that cannot build here is left out, and said so)
            print(f"cannot build {family}: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
            continue
        for dtype in (torch.bfloat16, torch.float32):
            for heads in (2, 4):
                for batch in (1, 2):
                    peaks = {}
                    for seq in (SEQS[0], SEQS[1], SEQS[2]):
                        peaks[seq] = measure(family, heads, batch, seq, dtype)
                    p = {s: v[0] for s, v in peaks.items()}
                    # peak = A s^2 + B s + C at s = 64, 96, 128: A from the second difference
                    step = SEQS[1] - SEQS[0]
                    second = p[SEQS[2]] - 2 * p[SEQS[1]] + p[SEQS[0]]
                    alpha = second / (2 * step * step) / (batch * heads)
                    mask = peaks[SEQS[2]][1] / (batch * SEQS[2] * SEQS[2])
                    row = dict(family=family, dtype=str(dtype).split(".")[-1], heads=heads, batch=batch,
                               peaks={str(s): v for s, v in p.items()}, bytes_per_score=alpha,
                               mask_bytes_per_b_p2=mask)
                    rows.append(row)
                    print(json.dumps(row))
                    sys.stdout.flush()
    print(f"torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
