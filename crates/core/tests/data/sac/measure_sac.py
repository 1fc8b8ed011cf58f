#!/usr/bin/env python
"""What torchtitan's per-op selective activation checkpointing (SAC) keeps per layer, on CPU.

torchtitan (`torchtitan/distributed/activation_checkpoint.py`, `SelectiveAC`, and its
2024-25 form `_apply_ac_to_transformer_block(..., selective_ac_option="op")`) wraps every
transformer block in a non-reentrant `checkpoint` whose `context_fn` is
`create_selective_checkpoint_contexts(policy)`. The policy, re-stated here from that source:
  * ops in the save list are MUST_SAVE: matmuls (`aten.mm`, `addmm`, `bmm`, the SDPA kernels,
    `_scaled_mm`: torch._functorch's `get_default_op_list().compute_intensive_ops`), `max`,
    `topk`, and the collectives' outputs;
  * `aten.mm` (and `aten.linear` where a backend keeps it whole) is counted per block call, and
    every second one is recomputed instead (count % 2 == 0);
  * every other op is PREFER_RECOMPUTE.
On CPU, SDPA dispatches to `_scaled_dot_product_flash_attention_for_cpu`, which returns the
same (output, logsumexp) as the CUDA flash kernel; it is added to the save list as the CPU twin
of `_scaled_dot_product_flash_attention` (the only change to the rule).

Instrument: the forward's `_CachingTorchDispatchMode.storage` (what SAC holds for backward),
deduplicated by storage, plus the block's input, which the non-reentrant checkpoint keeps to
recompute from. Nothing else inside the block is saved (its autograd saves become holders).

Each row: one decoder layer of a transformers 5.x model built from a config with random weights
(no download), or a block written the way torchtitan's Llama 3 model is written ("titan"),
run on a (b, s, h) hidden state that requires grad, as the model runs it.
"""
import csv
import os
import sys
import warnings
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
import transformers
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts
from torch._functorch.partitioners import get_default_op_list

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
torch.set_num_threads(2)
HERE = os.path.dirname(os.path.abspath(__file__))

SAVE = {op.default for op in get_default_op_list().compute_intensive_ops}
SAVE |= {torch.ops.aten.max.default, torch.ops.aten.topk.default, torch.ops.aten.linear.default,
         torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default}
MM = (torch.ops.aten.mm.default, torch.ops.aten.linear.default)


def titan_policy():
    meta = {"forward": 0, "recompute": 0}

    def policy(ctx, func, *args, **kwargs):
        mode = "recompute" if ctx.is_recompute else "forward"
        if func in MM:
            meta[mode] += 1
        if func in SAVE:
            if func in MM and meta[mode] % 2 == 0:
                return CheckpointPolicy.PREFER_RECOMPUTE
            return CheckpointPolicy.MUST_SAVE
        return CheckpointPolicy.PREFER_RECOMPUTE

    return policy


class Recorder:
    """context_fn that remembers the forward caching mode of each call."""

    def __init__(self):
        self.modes = []

    def __call__(self):
        fwd, rec = create_selective_checkpoint_contexts(titan_policy())
        self.modes.append(fwd)
        return fwd, rec

    def saved(self):
        seen, total, parts = set(), 0, defaultdict(int)
        for m in self.modes:
            for key, by_index in m.storage.items():
                op = key[0] if isinstance(key, tuple) else key
                for out in by_index.values():
                    flat = out if isinstance(out, (tuple, list)) else [out]
                    for t in flat:
                        t = getattr(t, "val", t)  # _VersionWrapper around each cached output
                        if not isinstance(t, torch.Tensor):
                            continue
                        st = t.untyped_storage()
                        if st.data_ptr() in seen or st.nbytes() == 0:
                            continue
                        seen.add(st.data_ptr())
                        total += st.nbytes()
                        parts[str(op).split(".")[1] if "." in str(op) else str(op)] += st.nbytes()
        return total, dict(parts)


# --- torchtitan's Llama 3 block, written from its model.py (wq/wk/wv/wo, complex RoPE,
# SDPA causal, FeedForward w2(silu(w1(x)) * w3(x)), nn.RMSNorm pre-norms).
class TitanBlock(nn.Module):
    def __init__(self, h, heads, kv, i):
        super().__init__()
        self.heads, self.kv, self.d = heads, kv, h // heads
        self.wq = nn.Linear(h, heads * self.d, bias=False)
        self.wk = nn.Linear(h, kv * self.d, bias=False)
        self.wv = nn.Linear(h, kv * self.d, bias=False)
        self.wo = nn.Linear(heads * self.d, h, bias=False)
        self.w1 = nn.Linear(h, i, bias=False)
        self.w2 = nn.Linear(i, h, bias=False)
        self.w3 = nn.Linear(h, i, bias=False)
        self.attention_norm = nn.RMSNorm(h, eps=1e-5)
        self.ffn_norm = nn.RMSNorm(h, eps=1e-5)

    def rope(self, x, freqs):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs).flatten(3).type_as(x)

    def forward(self, x, freqs):
        b, s, _ = x.shape
        y = self.attention_norm(x)
        q = self.wq(y).view(b, s, self.heads, self.d)
        k = self.wk(y).view(b, s, self.kv, self.d)
        v = self.wv(y).view(b, s, self.kv, self.d)
        q, k = self.rope(q, freqs), self.rope(k, freqs)
        rep = self.heads // self.kv
        k = k.repeat_interleave(rep, dim=2)
        v = v.repeat_interleave(rep, dim=2)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        h = x + self.wo(o.transpose(1, 2).reshape(b, s, -1))
        z = self.ffn_norm(h)
        return h + self.w2(F.silu(self.w1(z)) * self.w3(z))


FAMILIES = {
    "titan": None,
    "llama": "LlamaConfig",
    "qwen2": "Qwen2Config",
    "qwen3": "Qwen3Config",
    "gemma": "GemmaConfig",
    "phi3": "Phi3Config",
    "gpt_neox": "GPTNeoXConfig",
    # PEFT LoRA (r 8, no dropout) on a Llama layer: each adapted linear runs three matmuls
    # (base, lora_A, lora_B), which the every-second-mm count sees.
    "llama_lora_qv": "LlamaConfig",
    "llama_lora_all": "LlamaConfig",
}
LORA_TARGETS = {
    "llama_lora_qv": ["q_proj", "v_proj"],
    "llama_lora_all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
}
# (hidden, heads, kv heads, intermediate, batch, seq)
SHAPES = [(64, 4, 2, 160, 2, 16), (96, 6, 2, 256, 1, 24), (128, 8, 8, 352, 2, 32), (80, 5, 5, 208, 3, 20)]


def hf_layer(family, h, heads, kv, i, dtype, attn):
    cls = getattr(transformers, FAMILIES[family])
    kw = dict(hidden_size=h, num_attention_heads=heads, num_key_value_heads=kv, intermediate_size=i,
              num_hidden_layers=1, vocab_size=128, max_position_embeddings=256)
    if family == "gpt_neox":
        kw.pop("num_key_value_heads")
        kw["use_parallel_residual"] = True
        kw["hidden_dropout"] = kw["attention_dropout"] = 0.0
    if family == "gemma":
        kw["head_dim"] = h // heads
        kw["hidden_activation"] = "gelu_pytorch_tanh"
    if family == "qwen3":
        kw["head_dim"] = h // heads
    if family == "phi3":
        kw["pad_token_id"] = 0
    cfg = cls(**kw)
    cfg._attn_implementation = attn
    model = transformers.AutoModelForCausalLM.from_config(cfg, torch_dtype=dtype).train()
    return model


def layer_and_inputs(family, h, heads, kv, i, b, s, dtype, attn):
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    if family == "titan":
        blk = TitanBlock(h, heads, kv, i).to(dtype).train()
        d = h // heads
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        freqs = torch.polar(torch.ones(s, d // 2), torch.outer(torch.arange(s).float(), inv))
        freqs = freqs.view(1, s, 1, d // 2)
        return (lambda x: blk(x, freqs)), x
    model = hf_layer(family, h, heads, kv, i, dtype, attn)
    if family in LORA_TARGETS:
        import peft
        cfg = peft.LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=LORA_TARGETS[family])
        model = peft.get_peft_model(model, cfg, autocast_adapter_dtype=False).base_model.model
    inner = model.base_model
    layer = inner.layers[0]
    pos = torch.arange(s).unsqueeze(0).expand(b, s)
    rot = inner.rotary_emb(x, pos)
    mask = None
    if attn == "eager":
        mask = torch.full((s, s), float("-inf"), dtype=dtype).triu(1)[None, None].expand(b, 1, s, s)

    def run(x):
        out = layer(x, attention_mask=mask, position_ids=pos, position_embeddings=rot)
        return out[0] if isinstance(out, tuple) else out

    return run, x


def measure(family, shape, dtype, attn):
    h, heads, kv, i, b, s = shape
    torch.manual_seed(0)
    fn, x = layer_and_inputs(family, h, heads, kv, i, b, s, dtype, attn)
    rec = Recorder()
    y = checkpoint(fn, x, use_reentrant=False, context_fn=rec)
    saved, parts = rec.saved()
    y.float().sum().backward()  # the cached outputs must serve the recompute
    return saved, x.untyped_storage().nbytes(), parts


def main():
    out = os.path.join(HERE, "sac_saved.csv")
    rows = []
    for family in FAMILIES:
        for attn in (["sdpa", "eager"] if family == "llama" else ["sdpa"]):
            for dtype in (torch.float32, torch.bfloat16):
                for shape in SHAPES:
                    saved, inp, parts = measure(family, shape, dtype, attn)
                    h, heads, kv, i, b, s = shape
                    if family == "gpt_neox":
                        kv = heads  # GPTNeoXConfig has no grouped-query attention
                    rows.append(dict(family=family, attention=attn, dtype=str(dtype).split(".")[-1],
                                     hidden=h, heads=heads, kv_heads=kv, head_dim=h // heads,
                                     intermediate=i, batch=b, seq=s, sac_storage_bytes=saved,
                                     input_bytes=inp, kept_bytes=saved + inp,
                                     by_op=";".join(f"{k}={v}" for k, v in sorted(parts.items()))))
                    print(family, attn, rows[-1]["dtype"], shape, saved + inp, rows[-1]["by_op"], flush=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    import peft
    print(f"peft {peft.__version__}")
    print(f"torch {torch.__version__}, transformers {transformers.__version__}: {len(rows)} rows -> {out}")


if __name__ == "__main__":
    sys.exit(main())
