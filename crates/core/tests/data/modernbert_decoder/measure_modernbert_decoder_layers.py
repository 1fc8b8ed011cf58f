#!/usr/bin/env python
"""Bytes one decoder layer of `ModernBertDecoderForCausalLM` saves for backward, on CPU.

Method as in `../bart/measure_bart_layers.py` and `../t5/measure_t5_layers.py`:

A tiny random-weight `ModernBertDecoderForCausalLM` is built from a config written here (no Hub
access; hidden 64, intermediate 96, 4 heads, vocab 500, local_attention 16 so sliding_window = 8),
cast to the dtype with `.to(dtype)`, put in train mode and run as a Trainer runs it:
`model(input_ids, labels=input_ids)` (no attention mask; random ids in [3, 499) avoid pad 0, bos 1
and eos 2). Every tensor autograd packs is seen through `torch.autograd.graph.saved_tensors_hooks`
and counted once per storage (`untyped_storage().data_ptr()`); the storages of parameters and
buffers are left out.

One layer's bytes (`layer_bytes`) = saved(2-layer model) − saved(1-layer model) with
`layer_types = [T, T]` vs `[T]`, T the `added_layer_type` ("full_attention" or
"sliding_attention"). The added layer is layer 1: layer 0 has no attn_norm (nn.Identity), so it is
not a typical layer. Because layer 0 has the same type, storages shared by all layers of one type
(the RoPE cos/sin of that type) are not in the difference. `layer_bytes_after_other_type` is the
same difference taken after a layer of the other type (`[O, T]` − `[O]`): it adds the cos/sin of
type T, which the first layer of a type brings in. `one_layer_total_bytes` is the `[T]` model's
whole count (embeddings, layer 0, final norm, head, loss).

`layer_hooked_bytes`: in the `[T, T]` run, forward pre/post hooks on `model.model.layers[1]` enter
and exit a nested `saved_tensors_hooks` context, so what is packed inside that layer is recorded
on its own (still counted in the whole-model total). `layer_hooked_bytes` counts the storages
first saved inside layer 1 (not saved before it ran) and should equal `layer_bytes`;
`layer_hooked_all_bytes` counts every storage saved inside it, i.e. also the cos/sin tensors that
layer 0 saved first.

Grid: attn_implementation sdpa / eager × float32 / bfloat16 × batch 1 / 2 × seq 32 / 64 ×
added layer full_attention / sliding_attention × variant `default` (class defaults: no dropout,
no biases in attention / MLP / norms) / `biased` (attention_bias = mlp_bias = norm_bias = True)
= 64 rows. Seeds fixed (model init and inputs: 0).

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11.7) on 2026-11-29.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_modernbert_decoder_layers.py \
         > modernbert_decoder_layers.jsonl                                    # ~20 s
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_modernbert_decoder_layers.py --explain \
         [--attn sdpa|eager] [--dtype float32|bfloat16] [--batch 1] [--seq 32] \
         [--layer-type full_attention|sliding_attention] [--variant default|biased]
     (--explain lists each tensor saved inside the added layer, with the op and submodule that
      saved it, its shape, dtype and storage bytes; without the options it lists fp32/bf16 ×
      sdpa/eager × full/sliding for the default variant at b=1, s=32.)
"""
import argparse
import json
import platform

import torch
import transformers
from torch.overrides import TorchFunctionMode
from transformers import ModernBertDecoderConfig, ModernBertDecoderForCausalLM

transformers.logging.set_verbosity_error()

BASE = dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_attention_heads=4,
            local_attention=16, pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
            sep_token_id=2)
VARIANTS = {"default": {},
            "biased": dict(attention_bias=True, mlp_bias=True, norm_bias=True)}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
LAYER_TYPES = ("full_attention", "sliding_attention")
OTHER = {"full_attention": "sliding_attention", "sliding_attention": "full_attention"}
FIRST_ID = 3  # random ids in [3, 499): no pad (0), bos (1) or eos (2)
CONFIG_KEYS = list(BASE) + ["num_hidden_layers", "layer_types", "sliding_window",
                            "hidden_activation", "attention_bias", "mlp_bias", "norm_bias",
                            "decoder_bias", "attention_dropout", "embedding_dropout",
                            "mlp_dropout", "norm_eps", "tie_word_embeddings", "rope_parameters",
                            "max_position_embeddings"]


def build(types, variant, attn, dtype):
    cfg = ModernBertDecoderConfig(**BASE, **VARIANTS[variant], num_hidden_layers=len(types),
                                  layer_types=list(types), attn_implementation=attn)
    torch.manual_seed(0)
    return cfg, ModernBertDecoderForCausalLM(cfg).to(dtype).train()


class OpName(TorchFunctionMode):
    """Remembers the outermost torch function running (only used by --explain)."""

    def __init__(self):
        super().__init__()
        self.current = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        prev, self.current = self.current, getattr(func, "__name__", str(func))
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.current = prev


def measure(types, variant, attn, dtype, batch, seq, hook_layer=None, explain=False):
    """Whole-model saved bytes; with hook_layer, also what is saved inside that layer."""
    _, model = build(types, variant, attn, dtype)
    skip = {p.untyped_storage().data_ptr() for p in model.parameters()}
    skip |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    seen = {}  # data_ptr -> nbytes, whole model
    layer = {"all": {}, "new": {}, "records": []}
    where = []  # submodule stack inside the hooked layer (explain)
    opmode = OpName() if explain else None

    def pack(t):
        s = t.untyped_storage()
        ptr = s.data_ptr()
        if ptr not in skip and ptr not in seen:
            seen[ptr] = s.nbytes()
        return t

    def layer_pack(t):
        s = t.untyped_storage()
        ptr = s.data_ptr()
        if ptr not in skip:
            status = ("dup" if ptr in layer["all"] else
                      "shared" if ptr in seen else "new")
            layer["all"][ptr] = s.nbytes()
            if status == "new":
                layer["new"][ptr] = s.nbytes()
            if explain:
                layer["records"].append(dict(
                    module=where[-1] if where else "", op=opmode.current, shape=tuple(t.shape),
                    dtype=str(t.dtype).replace("torch.", ""), storage_bytes=s.nbytes(),
                    status=status))
        return pack(t)

    handles = []
    if hook_layer is not None:
        mod = model.model.layers[hook_layer]
        ctx = []

        def pre(_m, _a):
            c = torch.autograd.graph.saved_tensors_hooks(layer_pack, lambda t: t)
            c.__enter__()
            ctx.append(c)

        def post(_m, _a, _o):
            ctx.pop().__exit__(None, None, None)

        handles += [mod.register_forward_pre_hook(pre), mod.register_forward_hook(post)]
        if explain:
            for name, sub in mod.named_modules():
                if name:
                    handles.append(sub.register_forward_pre_hook(
                        lambda _m, _a, n=name: where.append(n) and None))
                    handles.append(sub.register_forward_hook(
                        lambda *_: where.pop() and None))  # a hook must return None

    torch.manual_seed(0)
    x = torch.randint(FIRST_ID, BASE["vocab_size"] - 1, (batch, seq))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if explain:
            with opmode:
                out = model(input_ids=x, labels=x)
        else:
            out = model(input_ids=x, labels=x)
    assert out.loss is not None
    for h in handles:
        h.remove()
    return sum(seen.values()), layer


def config_record(types, variant):
    cfg, _ = build(types, variant, "sdpa", torch.float32)
    rec = {"model_type": cfg.model_type}
    rec.update({k: getattr(cfg, k, None) for k in CONFIG_KEYS})
    return rec


def row(variant, attn, dtype, batch, seq, layer_type):
    args = (variant, attn, DTYPES[dtype], batch, seq)
    one, _ = measure([layer_type], *args)
    two, hooked = measure([layer_type, layer_type], *args, hook_layer=1)
    other = OTHER[layer_type]
    after_other = measure([other, layer_type], *args)[0] - measure([other], *args)[0]
    return dict(layer_bytes=two - one, one_layer_total_bytes=one,
                layer_hooked_bytes=sum(hooked["new"].values()),
                layer_hooked_all_bytes=sum(hooked["all"].values()),
                layer_bytes_after_other_type=after_other)


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for variant in VARIANTS:
        for layer_type in LAYER_TYPES:
            config = config_record([layer_type, layer_type], variant)
            for attn in ("sdpa", "eager"):
                for dtype in DTYPES:
                    for batch in (1, 2):
                        for seq in (32, 64):
                            r = row(variant, attn, dtype, batch, seq, layer_type)
                            print(json.dumps(dict(config=config, variant=variant, attn=attn,
                                                  dtype=dtype, batch=batch, seq=seq,
                                                  added_layer_type=layer_type, **r,
                                                  versions=versions)), flush=True)


def explain_one(variant, attn, dtype, batch, seq, layer_type):
    args = (variant, attn, DTYPES[dtype], batch, seq)
    one, _ = measure([layer_type], *args)
    two, hooked = measure([layer_type, layer_type], *args, hook_layer=1, explain=True)
    print(f"\n=== {variant} {attn} {dtype} b={batch} s={seq} added {layer_type}: "
          f"layer_bytes {two - one}, first saved in layer 1 {sum(hooked['new'].values())}, "
          f"all saved in layer 1 {sum(hooked['all'].values())}")
    print(f"    {'submodule':<12} {'op':<30} {'shape':<18} {'dtype':<9} {'bytes':>7}  status")
    for r in hooked["records"]:
        print(f"    {r['module']:<12} {str(r['op']):<30} {str(r['shape']):<18} {r['dtype']:<9} "
              f"{r['storage_bytes']:>7}  {r['status']}")
    print("    (status: new = first saved here and counted; dup = storage already saved earlier"
          " in this layer; shared = storage saved before this layer ran, e.g. by layer 0)")


def explain(a):
    if any(v is not None for v in (a.attn, a.dtype, a.layer_type)) or a.variant != "default":
        for attn in [a.attn] if a.attn else ("sdpa", "eager"):
            for dtype in [a.dtype] if a.dtype else DTYPES:
                for lt in [a.layer_type] if a.layer_type else LAYER_TYPES:
                    explain_one(a.variant, attn, dtype, a.batch, a.seq, lt)
        return
    for dtype in DTYPES:
        for attn in ("sdpa", "eager"):
            for lt in LAYER_TYPES:
                explain_one("default", attn, dtype, a.batch, a.seq, lt)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--explain", action="store_true")
    p.add_argument("--attn", choices=("sdpa", "eager"))
    p.add_argument("--dtype", choices=tuple(DTYPES))
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--layer-type", choices=LAYER_TYPES)
    p.add_argument("--variant", choices=tuple(VARIANTS), default="default")
    a = p.parse_args()
    if a.explain:
        explain(a)
    else:
        main()
