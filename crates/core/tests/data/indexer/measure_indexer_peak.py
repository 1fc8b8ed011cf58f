#!/usr/bin/env python
"""Peak bytes a DeepSeek Sparse Attention indexer holds while it scores a prefill (no grad).

The indexer of one layer of a tiny random-weight model runs on its own under a dispatch mode that
counts every storage an op creates until it is freed (weak references), so the peak above what
existed before the call is what the call added at its worst moment. Families: DeepSeek-V3.2's
indexer (`DeepseekV32Indexer`, which GLM-MoE-DSA's subclasses) and GLM-5.3-Flash's pooled one.

Run (CPU; measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_indexer_peak.py > indexer_peak.jsonl
"""
import json
import sys
import weakref

import torch
import transformers
from torch.utils._python_dispatch import TorchDispatchMode
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText


class LiveBytes(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.live = 0
        self.peak = 0
        self.seen = set()

    def _free(self, key, nbytes):
        self.seen.discard(key)
        self.live -= nbytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(t, torch.Tensor):
                st = t.untyped_storage()
                key = st.data_ptr()
                if key and key not in self.seen:
                    self.seen.add(key)
                    self.live += st.nbytes()
                    weakref.finalize(st, self._free, key, st.nbytes())
        self.peak = max(self.peak, self.live)
        return out


def model_of(family, heads, head_dim, pool):
    if family == "deepseek_v32":
        cfg = AutoConfig.for_model("deepseek_v32", vocab_size=64, hidden_size=64, intermediate_size=64,
                                   moe_intermediate_size=16, num_hidden_layers=1, num_attention_heads=2,
                                   n_routed_experts=2, num_experts_per_tok=1, q_lora_rank=16, kv_lora_rank=16,
                                   qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, index_n_heads=heads,
                                   index_head_dim=head_dim, index_topk=4, first_k_dense_replace=1)
        return AutoModelForCausalLM.from_config(cfg).eval(), cfg
    text = dict(vocab_size=64, pad_token_id=0, hidden_size=64, intermediate_size=64, num_hidden_layers=1,
                num_attention_heads=2, num_key_value_heads=2, kv_lora_rank=16, q_lora_rank=16, qk_nope_head_dim=8,
                v_head_dim=8, index_topk=4 * pool, index_head_dim=head_dim, index_n_heads=heads, index_kpool=pool,
                layer_types=["indexed_attention"], mlp_layer_types=["dense"], hc_mult=1)
    vision = dict(depth=1, hidden_size=16, num_heads=2, intermediate_size=16, out_hidden_size=64,
                  projection_intermediate_size=16)
    cfg = AutoConfig.for_model("glm5_next", text_config=text, vision_config=vision)
    return AutoModelForImageTextToText.from_config(cfg).eval(), cfg.text_config


def measure(family, heads, head_dim, pool, batch, seq):
    torch.manual_seed(0)
    model, cfg = model_of(family, heads, head_dim, pool)
    indexer = next(m for m in model.modules() if type(m).__name__.endswith("Indexer"))
    peak = {}

    def enter(mod, args, kwargs):
        mode = LiveBytes()
        peak["mode"] = mode
        mode.__enter__()

    def leave(mod, args, kwargs, out):
        mode = peak.pop("mode")
        mode.__exit__(None, None, None)
        peak["bytes"] = mode.peak

    indexer.register_forward_pre_hook(enter, with_kwargs=True)
    indexer.register_forward_hook(leave, with_kwargs=True)
    with torch.no_grad():
        model(input_ids=torch.randint(3, 64, (batch, seq)), use_cache=False)
    return dict(family=family, index_n_heads=heads, index_head_dim=head_dim, index_kpool=pool, batch=batch,
                seq=seq, peak_bytes=peak["bytes"])


def main():
    for family, pools in (("deepseek_v32", [0]), ("glm5_next", [2, 4])):
        for pool in pools:
            for heads, head_dim in ((2, 8), (4, 16)):
                for batch, seq in ((1, 32), (2, 48), (1, 96)):
                    print(json.dumps(measure(family, heads, head_dim, pool, batch, seq)), flush=True)
    print(f"# torch {torch.__version__} transformers {transformers.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
