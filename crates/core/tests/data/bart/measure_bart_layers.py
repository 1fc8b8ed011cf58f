#!/usr/bin/env python
"""Bytes one encoder layer and one decoder layer of the BART family save for backward, on CPU.

Families: `bart` (post-norm, learned positions, layernorm_embedding, GELU), `mbart` (pre-norm,
learned positions, layernorm_embedding plus final layer_norm per stack, GELU), `m2m_100` (pre-norm,
sinusoidal positions, sqrt(d_model)-scaled embeddings, ReLU, attention_dropout 0.1 by default) and
`marian` (post-norm, sinusoidal positions, GELU). Method as in `../whisper/measure_whisper.py`:

A tiny random-weight `*ForConditionalGeneration` is built from a config written here (no Hub
access), cast to the dtype, put in train mode and run as a Trainer runs it:
`model(input_ids, labels)` (the model shifts labels into decoder_input_ids, so the encoder runs over
`source_len` tokens and the decoder over `target_len`; no attention mask is passed, and the random
ids avoid the pad and the other special ids). Every tensor autograd packs is seen through
`torch.autograd.graph.saved_tensors_hooks` and counted once per storage; parameters' storages are
left out. One layer's bytes are read off layer differences: (2 encoder layers, 1 decoder) − (1, 1)
is an encoder layer, (1, 2) − (1, 1) a decoder layer with its cross-attention; `one_layer_each_bytes`
is the (1, 1) model's whole count, whose remainder past its two layers is what the embeddings, the
stacks' norms, the head and the loss keep.

Config per family: d_model 64, 4 heads, ffn 128, vocab 500, max_position_embeddings 128; ids
pad 1 / bos 0 / eos 2 / decoder_start 2 (marian, whose decoder start is its pad: pad =
decoder_start = 499, eos = bos = 0). Two variants: `default` keeps the dropout settings of the
family's transformers config class (dropout 0.1, attention_dropout 0.0 — 0.1 for m2m_100 —,
activation_dropout 0.0), `no_dropout` sets dropout = attention_dropout = activation_dropout = 0.
encoder_layerdrop = decoder_layerdrop = 0 in both (m2m_100 defaults to 0.05, which would skip
layers at random and make the layer count, hence the differences, non-deterministic). Dropout is
random but the sizes of the masks it saves are not; the seed is fixed anyway.
Grid: 4 families × 2 variants × SDPA/eager × float32/bfloat16 × batch 1/2 × (source_len,
target_len) in (32, 16), (64, 32) = 128 rows.

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11) on 2026-11-28.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_bart_layers.py > bart_layers.jsonl   # ~1 min
"""
import json
import platform

import torch
import transformers
from transformers import (BartConfig, BartForConditionalGeneration, M2M100Config,
                          M2M100ForConditionalGeneration, MarianConfig, MarianMTModel, MBartConfig,
                          MBartForConditionalGeneration)

BASE = dict(d_model=64, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
            decoder_ffn_dim=128, vocab_size=500, max_position_embeddings=128)
IDS = dict(pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
           forced_eos_token_id=2)
FAMILIES = {
    "bart": (BartConfig, BartForConditionalGeneration, IDS),
    "mbart": (MBartConfig, MBartForConditionalGeneration, IDS),
    "m2m_100": (M2M100Config, M2M100ForConditionalGeneration, IDS),
    "marian": (MarianConfig, MarianMTModel,
               dict(pad_token_id=499, bos_token_id=0, eos_token_id=0, decoder_start_token_id=499,
                    forced_eos_token_id=0)),
}
VARIANTS = {"default": {},
            "no_dropout": dict(dropout=0.0, attention_dropout=0.0, activation_dropout=0.0)}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(32, 16), (64, 32)]
FIRST_ID = 3  # random ids in [3, 499): no pad, bos, eos or decoder-start id


def build(family, variant, encoder, decoder, attn, dtype):
    config_cls, model_cls, ids = FAMILIES[family]
    cfg = config_cls(**BASE, **ids, **VARIANTS[variant], encoder_layers=encoder,
                     decoder_layers=decoder, encoder_layerdrop=0.0, decoder_layerdrop=0.0,
                     attn_implementation=attn)
    return cfg, model_cls(cfg).to(dtype).train()


def run(model, batch, source_len, target_len, pack):
    torch.manual_seed(0)
    x = torch.randint(FIRST_ID, BASE["vocab_size"] - 1, (batch, source_len))
    y = torch.randint(FIRST_ID, BASE["vocab_size"] - 1, (batch, target_len))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        return model(input_ids=x, labels=y)


def saved_bytes(family, variant, encoder, decoder, attn, dtype, batch, source_len, target_len):
    torch.manual_seed(0)
    _, model = build(family, variant, encoder, decoder, attn, dtype)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in params and s.data_ptr() not in seen:
            seen[s.data_ptr()] = s.nbytes()
        return t

    out = run(model, batch, source_len, target_len, pack)
    assert out.loss is not None
    return sum(seen.values())


def config_record(family, variant):
    cfg, _ = build(family, variant, 1, 1, "sdpa", torch.float32)
    keys = list(BASE) + ["encoder_layers", "decoder_layers", "dropout", "attention_dropout",
                         "activation_dropout", "activation_function", "encoder_layerdrop",
                         "decoder_layerdrop", "scale_embedding", "pad_token_id", "bos_token_id",
                         "eos_token_id", "decoder_start_token_id"]
    rec = {"model_type": cfg.model_type}
    rec.update({k: getattr(cfg, k) for k in keys})
    rec["normalize_before"] = family in ("mbart", "m2m_100")
    return rec


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for family in FAMILIES:
        for variant in VARIANTS:
            config = config_record(family, variant)
            for attn in ("sdpa", "eager"):
                for dtype in DTYPES:
                    for batch in (1, 2):
                        for source_len, target_len in SHAPES:
                            args = (attn, DTYPES[dtype], batch, source_len, target_len)
                            one = saved_bytes(family, variant, 1, 1, *args)
                            enc = saved_bytes(family, variant, 2, 1, *args) - one
                            dec = saved_bytes(family, variant, 1, 2, *args) - one
                            print(json.dumps(dict(config=config, variant=variant, attn=attn,
                                                  dtype=dtype, batch=batch, source_len=source_len,
                                                  target_len=target_len, encoder_layer_bytes=enc,
                                                  decoder_layer_bytes=dec,
                                                  one_layer_each_bytes=one, versions=versions)),
                                  flush=True)


if __name__ == "__main__":
    main()
