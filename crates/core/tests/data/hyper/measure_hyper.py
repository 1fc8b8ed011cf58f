#!/usr/bin/env python
"""Saved-for-backward bytes of the hyper-connections around each decoder layer's blocks.

A tiny random-weight model per family and setting is run forward once in training mode under
`torch.autograd.graph.saved_tensors_hooks`; forward pre/post hooks on every module say which
module is running when a tensor is saved. Each storage is counted once, for the first module that
saves it (parameters are not counted). Per decoder layer this writes the bytes saved inside its two
hyper-connection modules (`hc`: the streams' flatten, norm and projection, the weights, the
collapse) and by the layer's own code between its blocks (`glue`: the expand by `post` and the mix
by `comb`), which is what the streams add to a layer beside its blocks.

Run (CPU; measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_hyper.py > hyper_saved.jsonl
"""
import json
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def glm5_next(n, h, frozen_hc):
    text = dict(vocab_size=64, pad_token_id=0, hidden_size=h, intermediate_size=2 * h, num_hidden_layers=2,
                num_attention_heads=2, num_key_value_heads=2, kv_lora_rank=16, q_lora_rank=16, qk_nope_head_dim=8,
                v_head_dim=8, index_topk=8, index_head_dim=8, index_n_heads=2, index_kpool=2, hc_mult=n,
                layer_types=["indexed_attention"] * 2, mlp_layer_types=["dense"] * 2)
    vision = dict(depth=1, hidden_size=16, num_heads=2, intermediate_size=16, out_hidden_size=h,
                  projection_intermediate_size=16)
    cfg = AutoConfig.for_model("glm5_next", text_config=text, vision_config=vision)
    return cfg, AutoModelForImageTextToText, ("attn_hc", "ffn_hc")


def deepseek_v4(n, h, frozen_hc):
    cfg = AutoConfig.for_model("deepseek_v4", vocab_size=64, hidden_size=h, num_hidden_layers=2,
                               num_attention_heads=2, head_dim=16, q_lora_rank=16, o_lora_rank=8, o_groups=2,
                               n_routed_experts=2, num_experts_per_tok=1, moe_intermediate_size=16, hc_mult=n,
                               sliding_window=8, index_head_dim=8, index_n_heads=2, index_topk=4,
                               layer_types=["sliding_attention"] * 2)
    return cfg, AutoModelForCausalLM, ("attn_hc", "ffn_hc")


def hy_v4(n, h, frozen_hc):
    cfg = AutoConfig.for_model("hy_v4", vocab_size=64, pad_token_id=0, hidden_size=h, intermediate_size=2 * h, num_hidden_layers=2,
                               num_attention_heads=2, kv_lora_rank=16, q_lora_rank=16, qk_nope_head_dim=8,
                               qk_rope_head_dim=8, v_head_dim=8, n_routed_experts=2, num_experts_per_tok=1,
                               moe_intermediate_size=16, index_topk=8, index_head_dim=8, index_n_heads=2, hc_mult=n,
                               mlp_layer_types=["dense"] * 2)
    return cfg, AutoModelForCausalLM, ("attn_hc", "ffn_hc")


def qwen4_exp(n, h, frozen_hc):
    cfg = AutoConfig.for_model("qwen4_exp_text", vocab_size=64, pad_token_id=0, hidden_size=h, num_hidden_layers=2,
                               num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                               layer_types=["indexed_attention"] * 2, num_experts=2, num_experts_per_tok=1,
                               moe_intermediate_size=16, shared_expert_intermediate_size=16, hc_count=n,
                               hc_lowrank=8, indexer_n_heads=2, indexer_kv_heads=1, indexer_head_dim=16,
                               indexer_budget=8, indexer_compress_ratio=2, eos_token_id=2)
    return cfg, AutoModelForCausalLM, ("attn_hyper_connection", "mlp_hyper_connection")


FAMILIES = {"glm5_next": glm5_next, "deepseek_v4": deepseek_v4, "hy_v4": hy_v4, "qwen4_exp": qwen4_exp}
SETTINGS = [(n, h, b, s) for n in (2, 4) for h in (64, 96) for (b, s) in ((1, 16), (2, 24))]


def measure(family, n, h, b, s, dtype_name, frozen_hc):
    cfg, auto, hc_names = FAMILIES[family](n, h, frozen_hc)
    torch.manual_seed(0)
    model = auto.from_config(cfg, dtype=DTYPES[dtype_name])
    model.train()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    if frozen_hc:
        for name, p in model.named_parameters():
            if any(f".{k}." in name for k in hc_names):
                p.requires_grad_(False)
    stack = []
    def enter(mod, args):
        stack.append(mod)

    def leave(mod, args, out):
        stack.pop()

    for m in model.modules():
        m.register_forward_pre_hook(enter)
        m.register_forward_hook(leave)
    seen, saved = set(), []

    def pack(t):
        st = t.untyped_storage()
        key = st.data_ptr()
        if key not in seen and key not in params:
            seen.add(key)
            saved.append((list(stack), st.nbytes()))
        return t

    ids = torch.randint(3, 64, (b, s))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(input_ids=ids)
    layers = [m for m in model.modules() if type(m).__name__.endswith("DecoderLayer")]
    rows = []
    for i, layer in enumerate(layers):
        hcs = {id(getattr(layer, k)) for k in hc_names}
        hc = sum(nb for st, nb in saved if layer in st and any(id(m) in hcs for m in st))
        glue = sum(nb for st, nb in saved if st and st[-1] is layer)
        rows.append(dict(layer=i, hc_bytes=hc, glue_bytes=glue))
    return dict(family=family, hc_mult=n, hidden=h, batch=b, seq=s, dtype=dtype_name, frozen_hc=frozen_hc,
                sinkhorn_iters=getattr(cfg.get_text_config(), "hc_sinkhorn_iters", 0),
                hc_lowrank=getattr(cfg.get_text_config(), "hc_lowrank", 0),
                hc_magnitude=getattr(cfg.get_text_config(), "hc_magnitude", 0), layers=rows)


def main(families):
    for family in families or FAMILIES:
        for n, h, b, s in SETTINGS:
            for dtype_name in DTYPES:
                for frozen in (False, True):
                    print(json.dumps(measure(family, n, h, b, s, dtype_name, frozen)), flush=True)
    print(f"# torch {torch.__version__} transformers {transformers.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
