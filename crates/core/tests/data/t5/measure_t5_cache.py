#!/usr/bin/env python
"""Bytes of the generation cache that `generate` returns for umt5, longt5 (local) and switch_transformers.

A tiny random-weight `*ForConditionalGeneration` is built from a config written here (no Hub
access), cast to the dtype with `.to(dtype)`, put in eval mode and run as
`model.generate(input_ids, max_new_tokens=N, min_new_tokens=N, do_sample=False,
return_dict_in_generate=True)` (no attention mask; random ids avoid pad 0 / eos 1, and
min_new_tokens keeps eos from ending a row early). The returned `EncoderDecoderCache` (`out.cache`)
is read back: `self_attention_bytes` / `cross_attention_bytes` are the sum of numel × element_size
of the keys and values of every decoder layer of its `self_attention_cache` /
`cross_attention_cache`; `*_storage_bytes` the same over the tensors' storages (each once), which
shows whether the cache tensors are exact-size; `self_key_shape` / `cross_key_shape` give one
layer's key shape, (batch, heads, tokens, d_kv), and `cache_dtype` its dtype.

The decoder starts from decoder_start_token_id (0) and is called N times: the first call feeds
the start token, each later call the token generated last; the N-th generated token is never fed
back. So the self-attention cache holds N decoder tokens (start + N − 1 generated), independent of
the source length, and the cross-attention cache holds source_len tokens (encoder output projected
by each decoder layer's k/v once, on the first call).

`generate` builds its `DynamicCache` from the top-level config, whose `num_hidden_layers` is the
*encoder's* `num_layers`: with more encoder than decoder layers the cache has `cache_layer_slots`
= num_layers slots and the surplus ones stay empty (keys None; skipped here), with more decoder
than encoder layers `generate` fails (IndexError in `DynamicCache.update`, all four families incl.
t5), so no config here has more decoder layers. Calling the model directly with `use_cache=True`
builds the cache from the decoder stack's config and has no such problem.

Two configs per family (d_model / d_kv / heads / d_ff / encoder layers / decoder layers):
`small` 64 / 16 / 4 / 128 / 2 / 2 and `narrow` 96 / 8 / 6 / 192 / 3 / 2 (heads × d_kv = 48 ≠
d_model, and more encoder than decoder layers); vocab 500, 32 relative buckets, max distance 128,
dropout_rate 0 (eval mode ignores it anyway). umt5: feed_forward_proj "gated-gelu". longt5:
encoder_attention_type "local", local_radius 8, "gated-gelu". switch_transformers: 4 experts,
expert_capacity 64, router_bias False, one sparse layer per stack (num_sparse_* = 1). Attention:
eager (longt5 and switch support nothing else; umt5 also eager here, the cache does not depend on
it). Grid: 3 families × 2 configs × fp32/bf16 × batch 1/2 × (source_len, new tokens) in (32, 8),
(64, 16) = 48 rows.

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11) on 2026-11-28.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5_cache.py > t5_cache.jsonl   # ~20 s
"""
import json
import platform

import torch
import transformers
from transformers import (LongT5Config, LongT5ForConditionalGeneration, SwitchTransformersConfig,
                          SwitchTransformersForConditionalGeneration, UMT5Config,
                          UMT5ForConditionalGeneration)

transformers.logging.set_verbosity_error()

COMMON = dict(vocab_size=500, relative_attention_num_buckets=32, relative_attention_max_distance=128,
              dropout_rate=0.0, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
SIZES = {
    "small": dict(d_model=64, d_kv=16, num_heads=4, d_ff=128, num_layers=2, num_decoder_layers=2),
    "narrow": dict(d_model=96, d_kv=8, num_heads=6, d_ff=192, num_layers=3, num_decoder_layers=2),
}
FAMILIES = {
    "umt5": (UMT5Config, UMT5ForConditionalGeneration, dict(feed_forward_proj="gated-gelu")),
    "longt5": (LongT5Config, LongT5ForConditionalGeneration,
               dict(feed_forward_proj="gated-gelu", encoder_attention_type="local", local_radius=8)),
    "switch_transformers": (SwitchTransformersConfig, SwitchTransformersForConditionalGeneration,
                            dict(num_experts=4, expert_capacity=64, router_bias=False,
                                 num_sparse_encoder_layers=1, num_sparse_decoder_layers=1)),
}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(32, 8), (64, 16)]
FIRST_ID = 2  # random ids in [2, 499): no pad (0) or eos (1)


def kv_bytes(layers):
    exact, storages = 0, {}
    for layer in layers:
        if layer.keys is None:  # surplus slot of a cache sized by the encoder's layer count
            continue
        for x in (layer.keys, layer.values):
            exact += x.numel() * x.element_size()
            storages[x.untyped_storage().data_ptr()] = x.untyped_storage().nbytes()
    return exact, sum(storages.values())


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for family, (config_cls, model_cls, extra) in FAMILIES.items():
        for size, dims in SIZES.items():
            kw = dict(COMMON, **dims, **extra)
            for dtype in DTYPES:
                torch.manual_seed(0)
                cfg = config_cls(**kw, attn_implementation="eager")
                model = model_cls(cfg).to(DTYPES[dtype]).eval()
                config = {"model_type": cfg.model_type, **kw}
                for batch in (1, 2):
                    for source_len, new in SHAPES:
                        torch.manual_seed(0)
                        x = torch.randint(FIRST_ID, COMMON["vocab_size"] - 1, (batch, source_len))
                        with torch.no_grad():
                            out = model.generate(x, max_new_tokens=new, min_new_tokens=new,
                                                 do_sample=False, return_dict_in_generate=True)
                        cache = out.cache
                        self_layers = cache.self_attention_cache.layers
                        cross_layers = cache.cross_attention_cache.layers
                        self_b, self_sb = kv_bytes(self_layers)
                        cross_b, cross_sb = kv_bytes(cross_layers)
                        print(json.dumps(dict(
                            config=config, size=size, attn="eager", dtype=dtype, batch=batch,
                            source_len=source_len, new_tokens=new,
                            generated_len=out.sequences.shape[1],
                            decoder_layers=sum(l.keys is not None for l in self_layers),
                            cache_layer_slots=len(self_layers),
                            self_key_shape=list(self_layers[0].keys.shape),
                            cross_key_shape=list(cross_layers[0].keys.shape),
                            cache_dtype=str(self_layers[0].keys.dtype).replace("torch.", ""),
                            self_attention_bytes=self_b, cross_attention_bytes=cross_b,
                            self_attention_storage_bytes=self_sb,
                            cross_attention_storage_bytes=cross_sb,
                            cache_seq_length=int(cache.get_seq_length()),
                            versions=versions)), flush=True)


if __name__ == "__main__":
    main()
