#!/usr/bin/env python
"""Bytes one encoder layer and one decoder layer of T5Gemma save for backward, on CPU.

Model: `T5GemmaForConditionalGeneration` (transformers `models/t5gemma`). The encoder and the
decoder are Gemma-2-style stacks (`T5GemmaModuleConfig` sub-configs `encoder` / `decoder`):
Gemma RMSNorm (computed in fp32, scaled by 1 + weight), RoPE, GQA self-attention with
`query_pre_attn_scalar` scaling and tanh logit softcapping (`attn_logit_softcapping` 50), pre- and
post-norms around every sub-block, a gated `gelu_pytorch_tanh` MLP; decoder layers add a
cross-attention (pre/post norms, softcapped, full attention, no RoPE) whose k/v project the
encoder output (width `cross_attention_hidden_size` = encoder hidden_size). Layers follow
`layer_types` (default: even index sliding_attention, odd index full_attention).
`_supports_sdpa = False`: asking for attn_implementation "sdpa" raises a ValueError when the
model is built (checked by `--try-sdpa`), so every row is eager.

Method as in `../t5/measure_t5_layers.py`: a tiny random-weight model is built from a config written
here (no Hub access), cast with `.to(dtype)`, put in train mode and run as a Trainer runs it:
`model(input_ids=x, labels=y)` (the model shifts labels right, with decoder.bos_token_id 2 as the
start token, so the encoder runs over `source_len` tokens and the decoder over `target_len`; no
attention mask is passed, the model builds one from `input_ids != pad`; random ids in [3, 499)
avoid pad 0 / eos 1 / bos 2). Every tensor autograd packs is seen through
`torch.autograd.graph.saved_tensors_hooks` and counted once per storage; parameters' storages
are left out. One layer's bytes are read off layer differences: (2 encoder layers, 1 decoder) −
(1, 1) is an encoder layer, (1, 2) − (1, 1) a decoder layer with its cross-attention;
`one_layer_each_bytes` is the (1, 1) model's whole count (embeddings, final norms, lm_head,
final-logit softcapping and loss included).

Config (encoder and decoder module configs equal unless said): hidden_size 64,
intermediate_size 128, num_attention_heads 4, num_key_value_heads 2, head_dim 16, vocab_size 500
(top level and both modules), query_pre_attn_scalar 16, other module fields at their class
defaults (attn_logit_softcapping 50, final_logit_softcapping 30, rms_norm_eps 1e-6,
hidden_activation gelu_pytorch_tanh, tie_word_embeddings True, pad 0 / eos 1 / bos 2).
`config` in each row is the exact kwargs of the (1, 1) model; the (2, 1) and (1, 2) models
change only num_hidden_layers (and layer_types where it is given explicitly).
Row sets (`row_set`):
- `grid`: sliding_window 4096 (> every sequence, so sliding and full layers see the same mask),
  default layer_types, so the added layer (index 1) is full_attention. Variants `default`
  (dropout_rate 0.0, attention_dropout 0.0: the class defaults) and `dropout` (dropout_rate 0.1,
  attention_dropout 0.1, passed at the top level: T5GemmaConfig.__post_init__ copies both into the
  encoder and decoder configs) × fp32 / bf16 × batch 1 / 2 × (source, target) in (32, 16),
  (64, 32) = 16 rows.
- `sliding16`: as grid, but sliding_window 16 (< every sequence) and layer_types all
  "sliding_attention", so the added layer (and layer 0) is a sliding layer whose mask really cuts
  the window: 2 variants × 2 dtypes × 2 batches × 2 shapes = 16 rows.
- `full16`: sliding_window 16 with the default layer_types (added layer full, layer 0 sliding):
  default variant × 2 dtypes × 2 batches × 2 shapes = 8 rows.
- `wide_encoder`: encoder hidden_size 96 (decoder 64; cross-attention k/v project 96 → K·d), for
  information: default variant, fp32 / bf16, batch 1, (32, 16) = 2 rows.
`added_layer_types` gives the layer_types entry of the added encoder / decoder layer.
16 + 16 + 8 + 2 = 42 rows. Seeds fixed (model init and inputs: 0).
`--check-window` shows that the window of 16 really cuts: the same all-sliding (2, 2) model
(same seed, so same weights) gives a different loss and encoder output with sliding_window 16
than with 4096, while saving the same bytes.

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11) on 2026-11-28.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma_layers.py > t5gemma_layers.jsonl  # ~1 min
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma_layers.py --explain   # shapes per layer
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma_layers.py --try-sdpa
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma_layers.py --check-window
"""
import copy
import json
import platform
import sys
from collections import defaultdict

import torch
import transformers
from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration

transformers.logging.set_verbosity_error()

VOCAB = 500
MODULE = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, vocab_size=VOCAB, query_pre_attn_scalar=16)
VARIANTS = {"default": dict(dropout_rate=0.0, attention_dropout=0.0),
            "dropout": dict(dropout_rate=0.1, attention_dropout=0.1)}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(32, 16), (64, 32)]
FIRST_ID = 3  # random ids in [3, 499): no pad (0), eos (1) or bos / decoder start (2)

# row set -> (encoder module extras, decoder module extras, all-sliding layer_types?, variants,
#             dtypes, batches, shapes)
ROW_SETS = {
    "grid": (dict(sliding_window=4096), dict(sliding_window=4096), False, ("default", "dropout"),
             ("float32", "bfloat16"), (1, 2), SHAPES),
    "sliding16": (dict(sliding_window=16), dict(sliding_window=16), True, ("default", "dropout"),
                  ("float32", "bfloat16"), (1, 2), SHAPES),
    "full16": (dict(sliding_window=16), dict(sliding_window=16), False, ("default",),
               ("float32", "bfloat16"), (1, 2), SHAPES),
    "wide_encoder": (dict(sliding_window=4096, hidden_size=96), dict(sliding_window=4096), False,
                     ("default",), ("float32", "bfloat16"), (1,), [(32, 16)]),
}


def config_kwargs(row_set, variant, n_enc, n_dec):
    enc_extra, dec_extra, all_sliding, *_ = ROW_SETS[row_set]
    enc = dict(MODULE, **enc_extra, num_hidden_layers=n_enc)
    dec = dict(MODULE, **dec_extra, num_hidden_layers=n_dec)
    if all_sliding:
        enc["layer_types"] = ["sliding_attention"] * n_enc
        dec["layer_types"] = ["sliding_attention"] * n_dec
    return dict(encoder=enc, decoder=dec, vocab_size=VOCAB, **VARIANTS[variant])


def build(row_set, variant, n_enc, n_dec, dtype, attn="eager"):
    torch.manual_seed(0)
    kw = config_kwargs(row_set, variant, n_enc, n_dec)
    cfg = T5GemmaConfig(**copy.deepcopy(kw), attn_implementation=attn)
    model = T5GemmaForConditionalGeneration(cfg).to(DTYPES[dtype]).train()
    assert model.model.encoder.config._attn_implementation == attn
    assert model.model.decoder.config._attn_implementation == attn
    return model


def inputs(batch, source_len, target_len):
    torch.manual_seed(0)
    x = torch.randint(FIRST_ID, VOCAB - 1, (batch, source_len))
    y = torch.randint(FIRST_ID, VOCAB - 1, (batch, target_len))
    return x, y


class Recorder:
    """Counts each saved storage once (parameters left out); optionally attributes it to the
    innermost running module and records shape / dtype."""

    def __init__(self, model, explain=False):
        self.model, self.explain = model, explain
        self.seen, self.records = {}, []
        self.names = {id(m): n for n, m in model.named_modules()}
        self.stack, self.handles = [], []
        if explain:
            for m in model.modules():
                self.handles.append(m.register_forward_pre_hook(self._enter))
                self.handles.append(m.register_forward_hook(self._leave))

    def _enter(self, m, args):
        self.stack.append(self.names.get(id(m), "?"))

    def _leave(self, m, args, out):
        self.stack.pop()

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
                                     storage_bytes=s.nbytes(), new=new))
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
    assert out.loss is not None and torch.isfinite(out.loss)
    return sum(rec.seen.values()), rec


def row(row_set, variant, dtype, batch, source_len, target_len, versions):
    res, models = {}, {}
    for key, (e, d) in {"one": (1, 1), "enc2": (2, 1), "dec2": (1, 2)}.items():
        models[key] = build(row_set, variant, e, d, dtype)
        res[key] = measure(models[key], batch, source_len, target_len)[0]
    added = {"encoder": models["enc2"].config.encoder.layer_types[1],
             "decoder": models["dec2"].config.decoder.layer_types[1]}
    return dict(row_set=row_set, config=config_kwargs(row_set, variant, 1, 1), variant=variant,
                attn="eager", dtype=dtype, batch=batch, source_len=source_len,
                target_len=target_len, added_layer_types=added,
                encoder_layer_bytes=res["enc2"] - res["one"],
                decoder_layer_bytes=res["dec2"] - res["one"],
                one_layer_each_bytes=res["one"], versions=versions)


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for row_set, (_, _, _, variants, dtypes, batches, shapes) in ROW_SETS.items():
        for variant in variants:
            for dtype in dtypes:
                for batch in batches:
                    for source_len, target_len in shapes:
                        print(json.dumps(row(row_set, variant, dtype, batch, source_len,
                                             target_len, versions)), flush=True)


def explain(batch=1, source_len=32, target_len=16):
    """Per module of the added layer: every storage first saved there, with shape and dtype."""
    for row_set in ("grid", "sliding16"):
        for variant in VARIANTS:
            for dtype in DTYPES:
                print(f"\n=== {row_set} {variant} {dtype} b={batch} s={source_len} t={target_len}")
                for tag, (e, d), prefix in (("encoder", (2, 1), "model.encoder.layers.1."),
                                            ("decoder", (1, 2), "model.decoder.layers.1.")):
                    model = build(row_set, variant, e, d, dtype)
                    _, rec = measure(model, batch, source_len, target_len, explain=True)
                    total, lines = 0, []
                    for r in rec.records:
                        if r["module"].startswith(prefix) and r["new"]:
                            total += r["storage_bytes"]
                            lines.append(f"    {r['module'][len(prefix):] or '<layer>':<34} "
                                         f"{str(r['shape']):<20} {r['dtype']:<9} "
                                         f"{r['storage_bytes']}")
                    print(f"  {tag} layer 1: {total} bytes first saved inside it")
                    print("\n".join(lines))


def try_sdpa():
    try:
        build("grid", "default", 1, 1, "float32", attn="sdpa")
        print("sdpa: built without error")
    except Exception as ex:  # noqa: BLE001
        print(f"sdpa: {type(ex).__name__}: {ex}")


def check_window(batch=2, source_len=64, target_len=32):
    """All-sliding (2, 2) model, window 16 vs 4096: outputs differ, saved bytes do not."""
    ROW_SETS["sliding4096"] = (dict(sliding_window=4096), dict(sliding_window=4096), True,
                               ("default",), ("float32",), (batch,), [(source_len, target_len)])
    x, y = inputs(batch, source_len, target_len)
    res = {}
    for rs in ("sliding16", "sliding4096"):
        m = build(rs, "default", 2, 2, "float32")
        total, _ = measure(m, batch, source_len, target_len)
        with torch.no_grad():
            m.eval()
            out = m(input_ids=x, labels=y)
        res[rs] = (total, float(out.loss), out.encoder_last_hidden_state)
        print(rs, "layer_types", m.config.encoder.layer_types, m.config.decoder.layer_types,
              "saved bytes (train)", total, "eval loss", float(out.loss))
    diff = (res["sliding16"][2] - res["sliding4096"][2]).abs().max().item()
    print("max |encoder output difference| window 16 vs 4096:", diff)


if __name__ == "__main__":
    if "--explain" in sys.argv:
        explain()
    elif "--try-sdpa" in sys.argv:
        try_sdpa()
    elif "--check-window" in sys.argv:
        check_window()
    else:
        main()
