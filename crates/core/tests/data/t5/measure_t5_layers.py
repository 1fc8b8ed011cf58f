#!/usr/bin/env python
"""Bytes one encoder layer and one decoder layer of the T5 family save for backward, on CPU.

Families: `t5` (relative position bias computed once, in layer 0 of each stack, and shared by the
other layers; pre-norm RMS layer norm; ReLU or gated-GELU FFN), `umt5` (same block, but every
self-attention computes its own relative position bias and every cross-attention builds its own
zero bias), `longt5` (encoder self-attention is blocked-local, `encoder_attention_type="local"`, or
local plus transient-global side keys, `"transient-global"`; the decoder is plain T5) and
`switch_transformers` (T5 blocks whose FFN is, in sparse layers, a top-1 router over `num_experts`
ReLU experts with a per-sequence `expert_capacity`). Method as in `../bart/measure_bart_layers.py`:

A tiny random-weight `*ForConditionalGeneration` is built from a config written here (no Hub
access), cast to the dtype with `.to(dtype)` (so T5's `_keep_in_fp32_modules = ["wo"]`, which only
`from_pretrained` applies, does not apply: `wo` is cast too), put in train mode and run as a Trainer
runs it: `model(input_ids, labels)` (the model shifts labels into decoder_input_ids, so the
encoder runs over `source_len` tokens and the decoder over `target_len`; no attention mask is
passed, and the random ids avoid pad 0 / eos 1 / decoder-start 0). Every tensor autograd packs is
seen through `torch.autograd.graph.saved_tensors_hooks` and counted once per storage; parameters'
storages are left out (re-read at every pack: Switch's router casts its classifier to
`router_dtype` float32 inside forward, which gives a bf16 model a new float32 parameter storage).
One layer's bytes are read off layer differences: (2 encoder layers, 1 decoder) − (1, 1) is an
encoder layer, (1, 2) − (1, 1) a decoder layer with its cross-attention; `one_layer_each_bytes`
is the (1, 1) model's whole count. Since layer 0 of a T5/LongT5/Switch stack owns the relative
position bias, the difference is a layer *without* the bias table (layer >= 1); in umt5 every
layer has one.

Config per family: d_model 64, d_kv 16, num_heads 4, d_ff 128, vocab 500, 32 relative buckets,
max distance 128, pad 0, eos 1, decoder_start 0. t5 and umt5: feed_forward_proj "relu" and
"gated-gelu" (gelu_new, the tanh GELU written in Python ops). longt5: "gated-gelu", local_radius 8
(block length 9; 32 and 64 tokens pad to 4 and 8 blocks), global_block_size 4 (transient-global
only). switch_transformers: ReLU experts, num_experts 4, router_bias False, router_jitter_noise
0.01 and router_dtype float32 (the class defaults), expert_capacity 64 (> any sequence here, so no
token is dropped) and 8 (tokens dropped; `kept_tokens` lists, for the (1,1), (2,1) and (1,2)
models, how many tokens each sparse layer's router kept, in call order). Switch picks sparse
layers as `i % sparse_step == 1 or sparse_step == 1` with `sparse_step = num_layers //
num_sparse_layers` computed in the config's `__post_init__` (a passed `encoder_sparse_step` is
overwritten), so with `num_sparse_* = num_layers` (step 1) every layer is sparse: `layer_kind
"sparse"` rows use that. `num_sparse_* = 0` does *not* give a dense stack here (step =
num_layers, and index 1, or index 0 of a one-layer stack, still comes out sparse), so `layer_kind
"dense"` rows build the config with `num_sparse_* = 0` and then set `encoder_sparse_step =
decoder_sparse_step = 0` on the config before building the model (`sparse_step > 0` is false:
all layers dense); the config dict records the steps the stacks saw. With the usual
`num_sparse_* = 1` of a 2-layer stack (step 2: layer 0 dense, layer 1 sparse) the dense and
sparse layers are the same as measured here (checked with `--check-layout`).
`output_router_logits` stays False (the default), so no router z-loss / aux loss is computed.

Variants: `default` keeps the config class's dropout_rate 0.1 (T5 uses it for the residual
dropouts, the FFN hidden dropout, the embedding/final dropouts *and* the attention-probability
dropout), `no_dropout` sets dropout_rate 0. Attention: SDPA and eager for t5 and umt5;
longt5 and switch_transformers have no `_supports_sdpa` (asking for "sdpa" raises), so eager only
(LongT5's local / transient-global encoder attention is hand-written and ignores the setting).
Grid: t5 and umt5: 2 FFNs × 2 variants × SDPA/eager × fp32/bf16 × batch 1/2 × (source, target)
in (32, 16), (64, 32) = 64 rows each; longt5: 2 attention types × 2 variants × eager × 2 × 2 × 2
= 32; switch: (capacity 64 sparse, capacity 64 dense, capacity 8 sparse) × 2 variants × eager ×
2 × 2 × 2 = 48. 208 rows. Seeds fixed (model init and inputs: 0).

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11) on 2026-11-28.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5_layers.py > t5_layers.jsonl   # ~2 min
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5_layers.py --explain   # shapes per layer
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5_layers.py --check-layout
"""
import json
import platform
import sys
from collections import defaultdict

import torch
import transformers
from transformers import (LongT5Config, LongT5ForConditionalGeneration, SwitchTransformersConfig,
                          SwitchTransformersForConditionalGeneration, T5Config,
                          T5ForConditionalGeneration, UMT5Config, UMT5ForConditionalGeneration)

transformers.logging.set_verbosity_error()

BASE = dict(d_model=64, d_kv=16, num_heads=4, d_ff=128, vocab_size=500,
            relative_attention_num_buckets=32, relative_attention_max_distance=128,
            pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
CLASSES = {
    "t5": (T5Config, T5ForConditionalGeneration),
    "umt5": (UMT5Config, UMT5ForConditionalGeneration),
    "longt5": (LongT5Config, LongT5ForConditionalGeneration),
    "switch_transformers": (SwitchTransformersConfig, SwitchTransformersForConditionalGeneration),
}
# (family, attn label, extra config keys, layer kind); attn label: FFN / attention type / routing
SETUPS = [
    ("t5", "relu", dict(feed_forward_proj="relu"), None),
    ("t5", "gated-gelu", dict(feed_forward_proj="gated-gelu"), None),
    ("umt5", "relu", dict(feed_forward_proj="relu"), None),
    ("umt5", "gated-gelu", dict(feed_forward_proj="gated-gelu"), None),
    ("longt5", "local", dict(feed_forward_proj="gated-gelu", encoder_attention_type="local",
                             local_radius=8), None),
    ("longt5", "transient-global", dict(feed_forward_proj="gated-gelu", local_radius=8,
                                        encoder_attention_type="transient-global",
                                        global_block_size=4), None),
    ("switch_transformers", "capacity64", dict(num_experts=4, expert_capacity=64,
                                               router_bias=False), "sparse"),
    ("switch_transformers", "capacity64", dict(num_experts=4, expert_capacity=64,
                                               router_bias=False), "dense"),
    ("switch_transformers", "capacity8", dict(num_experts=4, expert_capacity=8,
                                              router_bias=False), "sparse"),
]
VARIANTS = {"default": {}, "no_dropout": dict(dropout_rate=0.0)}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(32, 16), (64, 32)]
FIRST_ID = 3  # random ids in [3, 499): no pad (0), eos (1) or decoder-start (0) id


def attns(family):
    return ("sdpa", "eager") if CLASSES[family][1]._supports_sdpa else ("eager",)


def make_config(family, extra, kind, variant, encoder, decoder, attn, sparse=None):
    config_cls, _ = CLASSES[family]
    kw = dict(BASE, **extra, **VARIANTS[variant], num_layers=encoder, num_decoder_layers=decoder)
    if family == "switch_transformers":
        if sparse is None:  # sparse rows: every layer sparse; dense rows: see docstring
            sparse = (encoder, decoder) if kind == "sparse" else (0, 0)
        kw.update(num_sparse_encoder_layers=sparse[0], num_sparse_decoder_layers=sparse[1])
    cfg = config_cls(**kw, attn_implementation=attn)
    if family == "switch_transformers" and kind == "dense" and sparse == (0, 0):
        cfg.encoder_sparse_step = 0
        cfg.decoder_sparse_step = 0
    return kw, cfg


def build(family, extra, kind, variant, encoder, decoder, attn, dtype, sparse=None):
    torch.manual_seed(0)
    _, cfg = make_config(family, extra, kind, variant, encoder, decoder, attn, sparse)
    model = CLASSES[family][1](cfg).to(dtype).train()
    if family == "switch_transformers":  # check the layout is the one the row claims
        for stack in (model.encoder, model.decoder):
            flags = [b.is_sparse for b in stack.block]
            if sparse is None:
                assert all(flags) if kind == "sparse" else not any(flags), flags
    return model


def config_record(family, extra, kind, variant):
    kw, cfg = make_config(family, extra, kind, variant, 1, 1, "eager")
    rec = {"model_type": cfg.model_type}
    rec.update(kw)
    rec["dropout_rate"] = cfg.dropout_rate
    if family == "switch_transformers":
        rec.update(encoder_sparse_step=cfg.encoder_sparse_step,
                   decoder_sparse_step=cfg.decoder_sparse_step,
                   router_jitter_noise=cfg.router_jitter_noise, router_dtype=cfg.router_dtype,
                   dense_act_fn=cfg.dense_act_fn)
    else:
        rec.update(dense_act_fn=cfg.dense_act_fn, is_gated_act=cfg.is_gated_act)
    rec["tie_word_embeddings"] = cfg.tie_word_embeddings
    return rec


def inputs(batch, source_len, target_len):
    torch.manual_seed(0)
    x = torch.randint(FIRST_ID, BASE["vocab_size"] - 1, (batch, source_len))
    y = torch.randint(FIRST_ID, BASE["vocab_size"] - 1, (batch, target_len))
    return x, y


class Recorder:
    """Counts each saved storage once (parameters left out); optionally attributes it to the
    innermost running module and records shape / dtype; counts tokens Switch routers keep."""

    def __init__(self, model, explain=False):
        self.model, self.explain = model, explain
        self.seen, self.records, self.kept = {}, [], []
        self.names = {id(m): n for n, m in model.named_modules()}
        self.stack = []
        self.handles = []
        for m in model.modules():
            if explain:
                self.handles.append(m.register_forward_pre_hook(self._enter))
                self.handles.append(m.register_forward_hook(self._leave))
            if type(m).__name__ == "SwitchTransformersTop1Router":
                self.handles.append(m.register_forward_hook(self._router))

    def _enter(self, m, args):
        self.stack.append(self.names.get(id(m), "?"))

    def _leave(self, m, args, out):
        self.stack.pop()

    def _router(self, m, args, out):
        self.kept.append(int(out[0].sum()))

    def pack(self, t):
        s = t.untyped_storage()
        ptr = s.data_ptr()
        params = {p.untyped_storage().data_ptr() for p in self.model.parameters()}
        if ptr in params:
            return t
        new = ptr not in self.seen
        if new:
            self.seen[ptr] = s.nbytes()
        if self.explain:
            self.records.append(dict(module=self.stack[-1] if self.stack else "<top>",
                                     shape=tuple(t.shape), dtype=str(t.dtype).replace("torch.", ""),
                                     storage_bytes=s.nbytes(), new=new, ptr=ptr))
        return t

    def close(self):
        for h in self.handles:
            h.remove()


def measure(model, batch, source_len, target_len, explain=False):
    x, y = inputs(batch, source_len, target_len)
    rec = Recorder(model, explain)
    with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t):
        out = model(input_ids=x, labels=y)
    rec.close()
    assert out.loss is not None
    return sum(rec.seen.values()), rec


def row_bytes(setup, variant, attn, dtype, batch, source_len, target_len):
    family, _, extra, kind = setup
    res = {}
    for key, (e, d) in {"one": (1, 1), "enc2": (2, 1), "dec2": (1, 2)}.items():
        model = build(family, extra, kind, variant, e, d, attn, DTYPES[dtype])
        res[key] = measure(model, batch, source_len, target_len)
    one = res["one"][0]
    return (res["enc2"][0] - one, res["dec2"][0] - one, one,
            {k: v[1].kept for k, v in res.items()})


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for setup in SETUPS:
        family, label, extra, kind = setup
        for variant in VARIANTS:
            config = config_record(family, extra, kind, variant)
            for attn in attns(family):
                for dtype in DTYPES:
                    for batch in (1, 2):
                        for source_len, target_len in SHAPES:
                            enc, dec, one, kept = row_bytes(setup, variant, attn, dtype, batch,
                                                            source_len, target_len)
                            row = dict(config=config, variant=variant, attn=attn, dtype=dtype,
                                       batch=batch, source_len=source_len,
                                       target_len=target_len, encoder_layer_bytes=enc,
                                       decoder_layer_bytes=dec, one_layer_each_bytes=one)
                            if family == "switch_transformers":
                                row.update(layer_kind=kind, kept_tokens=kept)
                            row["versions"] = versions
                            print(json.dumps(row), flush=True)


def explain(batch=1, source_len=32, target_len=16):
    """Per module of the added layer: the storages first saved there, with shape and dtype."""
    for setup in SETUPS:
        family, label, extra, kind = setup
        for variant in VARIANTS:
            for attn in attns(family):
                for dtype in DTYPES:
                    print(f"\n=== {family} {label} {kind or ''} {variant} {attn} {dtype} "
                          f"b={batch} s={source_len} t={target_len}")
                    for tag, (e, d), prefix in (("encoder", (2, 1), "encoder.block.1."),
                                                ("decoder", (1, 2), "decoder.block.1.")):
                        model = build(family, extra, kind, variant, e, d, attn, DTYPES[dtype])
                        total, rec = measure(model, batch, source_len, target_len, explain=True)
                        groups = defaultdict(int)
                        lines = []
                        for r in rec.records:
                            if r["module"].startswith(prefix) and r["new"]:
                                groups[r["module"][len(prefix):]] += r["storage_bytes"]
                                lines.append(f"    {r['module'][len(prefix):]:<48} "
                                             f"{str(r['shape']):<22} {r['dtype']:<9} "
                                             f"{r['storage_bytes']}")
                        print(f"  {tag} layer 1: {sum(groups.values())} bytes first saved inside it"
                              f" (kept tokens {rec.kept})")
                        print("\n".join(lines))


def check_layout():
    """Switch: dense / sparse layer bytes from the usual step-2 layout equal the measured ones."""
    fam, _, extra, _ = SETUPS[6]
    for variant in VARIANTS:
        for dtype in DTYPES:
            def tot(e, d, sparse, kind="sparse"):
                m = build(fam, extra, kind, variant, e, d, "eager", DTYPES[dtype], sparse)
                return measure(m, 2, 64, 32)[0]
            # step 2 (num_sparse 1 of 2): layer 0 dense, 1 sparse; 3 layers, num_sparse 1: step 3,
            # layers 0 and 2 dense, 1 sparse -> (3,2)-(2,2) is one dense layer (index 2)
            base = tot(2, 2, (1, 1))
            enc_dense = tot(3, 2, (1, 1)) - base
            dec_dense = tot(2, 3, (1, 1)) - base
            # 4 layers, num_sparse 2: step 2, layers 1 and 3 sparse -> (4,2)-(3,2) a sparse layer
            enc_sparse = tot(4, 2, (2, 1)) - tot(3, 2, (1, 1))
            dec_sparse = tot(2, 4, (1, 2)) - tot(2, 3, (1, 1))
            ref = {}
            for kind in ("dense", "sparse"):
                e, d, _, _ = row_bytes((fam, "", extra, kind), variant, "eager", dtype, 2, 64, 32)
                ref[kind] = (e, d)
            print(variant, dtype, "step-2 layout dense", (enc_dense, dec_dense), "vs", ref["dense"],
                  "| sparse", (enc_sparse, dec_sparse), "vs", ref["sparse"])


if __name__ == "__main__":
    if "--explain" in sys.argv:
        explain()
    elif "--check-layout" in sys.argv:
        check_layout()
    else:
        main()
