#!/usr/bin/env python
"""Bytes of the generation cache that `generate` returns for T5Gemma, on CPU.

A tiny random-weight `T5GemmaForConditionalGeneration` is built from a config written here (no
Hub access), cast with `.to(dtype)`, put in eval mode and run as
`model.generate(input_ids, max_new_tokens=N, min_new_tokens=N, do_sample=False,
return_dict_in_generate=True)` (no attention mask; random ids in [3, 499) avoid pad 0 / eos 1 /
bos 2, and min_new_tokens keeps eos from ending a row early). The decoder starts from
decoder.bos_token_id (2; generation_config.decoder_start_token_id is None) and is called N times,
so N decoder tokens pass through the self-attention (start + N − 1 generated).

T5Gemma overrides `_prepare_cache_for_generation`: the self-attention cache is a
`DynamicCache(config=decoder config)`, which gives sliding_attention layers a
`DynamicSlidingWindowLayer` and full_attention layers a `DynamicLayer`; the cross-attention cache
is built from a copy of the decoder config with sliding_window None and all layers full. The
returned `EncoderDecoderCache` (`out.cache`) is read back per decoder layer: layer class, key
shape (batch, KV heads, tokens, head_dim), tokens held; `self_attention_bytes` /
`cross_attention_bytes` are numel × element_size over keys and values of every layer;
`*_storage_bytes` the same over their storages (each once), which shows whether a cache tensor
is a view of a larger buffer.

`matches_no_cache` says whether the generated ids equal those of the same `generate` call with
use_cache=False (the decoder re-run over the whole prefix at each step, masks built without a
cache), a check that the sliding-window cache gives the same tokens.

Configs (encoder and decoder module configs: hidden_size 64, intermediate_size 128, 4 heads, 2 KV
heads, head_dim 16, vocab 500, query_pre_attn_scalar 16, dropout 0; default layer_types, i.e.
sliding, full, sliding, …):
- `dec3`: encoder 2 layers, decoder 3 layers (more decoder than encoder layers, which made
  `generate` fail for the T5 family), sliding_window 4096 (> every length here);
- `sw8`: encoder 2, decoder 2 layers, sliding_window 8 (< every source length and, except
  (32, 8), every generated length).
Grid: 2 configs × fp32 / bf16 × batch 1 / 2 × (source_len, new tokens) in (32, 8), (64, 16),
(24, 20) = 24 rows. Eager attention (the only one the model supports besides flash / flex).

Measured with torch 2.15.0 and transformers 5.24.0 (Python 3.11) on 2026-11-28.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma_cache.py > t5gemma_cache.jsonl  # ~15 s
"""
import copy
import json
import platform

import torch
import transformers
from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration

transformers.logging.set_verbosity_error()

VOCAB = 500
MODULE = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, vocab_size=VOCAB, query_pre_attn_scalar=16)
CONFIGS = {
    "dec3": dict(encoder=dict(MODULE, num_hidden_layers=2, sliding_window=4096),
                 decoder=dict(MODULE, num_hidden_layers=3, sliding_window=4096),
                 vocab_size=VOCAB, dropout_rate=0.0, attention_dropout=0.0),
    "sw8": dict(encoder=dict(MODULE, num_hidden_layers=2, sliding_window=8),
                decoder=dict(MODULE, num_hidden_layers=2, sliding_window=8),
                vocab_size=VOCAB, dropout_rate=0.0, attention_dropout=0.0),
}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(32, 8), (64, 16), (24, 20)]
FIRST_ID = 3


def kv_bytes(layers):
    exact, storages = 0, {}
    for layer in layers:
        if layer.keys is None:
            continue
        for x in (layer.keys, layer.values):
            exact += x.numel() * x.element_size()
            storages[x.untyped_storage().data_ptr()] = x.untyped_storage().nbytes()
    return exact, sum(storages.values())


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for name, kw in CONFIGS.items():
        for dtype in DTYPES:
            torch.manual_seed(0)
            cfg = T5GemmaConfig(**copy.deepcopy(kw), attn_implementation="eager")
            model = T5GemmaForConditionalGeneration(cfg).to(DTYPES[dtype]).eval()
            for batch in (1, 2):
                for source_len, new in SHAPES:
                    torch.manual_seed(0)
                    x = torch.randint(FIRST_ID, VOCAB - 1, (batch, source_len))
                    gen = dict(max_new_tokens=new, min_new_tokens=new, do_sample=False,
                               return_dict_in_generate=True)
                    with torch.no_grad():
                        out = model.generate(x, **gen)
                        ref = model.generate(x, use_cache=False, **gen)
                    cache = out.cache
                    self_layers = cache.self_attention_cache.layers
                    cross_layers = cache.cross_attention_cache.layers
                    self_b, self_sb = kv_bytes(self_layers)
                    cross_b, cross_sb = kv_bytes(cross_layers)
                    print(json.dumps(dict(
                        config=kw, size=name, attn="eager", dtype=dtype, batch=batch,
                        source_len=source_len, new_tokens=new,
                        generated_len=out.sequences.shape[1],
                        decoder_start_token=int(out.sequences[0, 0]),
                        decoder_layer_types=cfg.decoder.layer_types,
                        sliding_window=cfg.decoder.sliding_window,
                        self_layer_classes=[type(l).__name__ for l in self_layers],
                        cross_layer_classes=[type(l).__name__ for l in cross_layers],
                        self_key_shapes=[list(l.keys.shape) for l in self_layers],
                        cross_key_shapes=[list(l.keys.shape) for l in cross_layers],
                        self_tokens_per_layer=[l.keys.shape[-2] for l in self_layers],
                        cross_tokens_per_layer=[l.keys.shape[-2] for l in cross_layers],
                        cache_dtype=str(self_layers[0].keys.dtype).replace("torch.", ""),
                        self_attention_bytes=self_b, cross_attention_bytes=cross_b,
                        self_attention_storage_bytes=self_sb,
                        cross_attention_storage_bytes=cross_sb,
                        cache_seq_length=int(cache.get_seq_length()),
                        matches_no_cache=bool(torch.equal(out.sequences, ref.sequences)),
                        versions=versions)), flush=True)


if __name__ == "__main__":
    main()
