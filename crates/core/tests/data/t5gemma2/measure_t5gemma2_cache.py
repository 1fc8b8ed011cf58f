#!/usr/bin/env python
"""Bytes of the generation cache that `generate` returns for T5Gemma 2, on CPU.

A tiny random-weight `T5Gemma2ForConditionalGeneration` built from a config written here (no Hub
access), cast with `.to(dtype)`, eval mode, run as `model.generate(input_ids, [pixel_values,]
max_new_tokens=N, min_new_tokens=N, do_sample=False, return_dict_in_generate=True)`. The model's
`_prepare_cache_for_generation` builds an `EncoderDecoderCache` of a `DynamicCache(config=decoder
config)` (sliding_attention layers get a `DynamicSlidingWindowLayer`) for the merged attention's
own keys and a plain `DynamicCache()` for the encoder's keys and values. The returned cache
(`out.cache`) is read back per decoder layer: tokens held, and bytes (numel × element_size over
keys and values of every layer) of each part.

Configs (encoder text config and decoder: hidden_size 64, intermediate_size 128, 4 heads, 2 KV
heads, head_dim 16, vocab 500, query_pre_attn_scalar 16; a SigLIP tower of one 32-wide layer at
28 px in 14 px patches, mm_tokens_per_image 4, image_token_index 499, eoi_token_index 498):
- `dec3`: encoder 2 layers, decoder 3, sliding_window 4096 (longer than every sequence);
- `win8`: encoder 2, decoder 4, sliding_window 8 (the window cuts the generated tokens);
each × fp32 / bf16 × batch 1 / 2 × (source, new) in (32, 8), (24, 20), with and without one image
per sequence (its 4 image tokens among the source tokens, counted in `source_len`).

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma2_cache.py > t5gemma2_cache.jsonl
"""
import copy
import json
import platform

import torch
import transformers
from transformers import T5Gemma2Config, T5Gemma2ForConditionalGeneration

transformers.logging.set_verbosity_error()

VOCAB = 500
STACK = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
             head_dim=16, vocab_size=VOCAB, query_pre_attn_scalar=16)
VISION = dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64,
              num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14)
SIZES = {"dec3": (2, 3, 4096), "win8": (2, 4, 8)}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
IMAGE_TOKENS = 4


def config_kwargs(size):
    n_enc, n_dec, window = SIZES[size]
    enc = dict(text_config=dict(STACK, num_hidden_layers=n_enc, sliding_window=window),
               vision_config=VISION, mm_tokens_per_image=IMAGE_TOKENS, eoi_token_index=498)
    dec = dict(STACK, num_hidden_layers=n_dec, sliding_window=window)
    return dict(encoder=enc, decoder=dec, image_token_index=499)


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for size in SIZES:
        for dtype in DTYPES:
            torch.manual_seed(0)
            kw = config_kwargs(size)
            model = T5Gemma2ForConditionalGeneration(T5Gemma2Config(**copy.deepcopy(kw)))
            model = model.to(DTYPES[dtype]).eval()
            for batch in (1, 2):
                for source, new in ((32, 8), (24, 20)):
                    for image in (False, True):
                        torch.manual_seed(1)
                        ids = torch.randint(3, 490, (batch, source))
                        extra = {}
                        if image:
                            ids[:, 2:2 + IMAGE_TOKENS] = 499
                            extra["pixel_values"] = torch.randn(batch, 3, 28, 28).to(DTYPES[dtype])
                        with torch.no_grad():
                            out = model.generate(input_ids=ids, max_new_tokens=new, min_new_tokens=new,
                                                 do_sample=False, return_dict_in_generate=True, **extra)
                        cache = out.past_key_values if getattr(out, "past_key_values", None) is not None else out.cache

                        def part(c):
                            keys = [l.keys for l in c.layers]
                            vals = [l.values for l in c.layers]
                            nbytes = sum(t.numel() * t.element_size() for t in keys + vals)
                            return nbytes, [k.shape[2] for k in keys]
                        self_bytes, self_tokens = part(cache.self_attention_cache)
                        cross_bytes, cross_tokens = part(cache.cross_attention_cache)
                        print(json.dumps({"config": kw, "size": size, "dtype": dtype, "batch": batch,
                                          "source_len": source, "new_tokens": new, "image": image,
                                          "self_tokens_per_layer": self_tokens,
                                          "cross_tokens_per_layer": cross_tokens,
                                          "self_attention_bytes": self_bytes,
                                          "cross_attention_bytes": cross_bytes, "versions": versions}))


if __name__ == "__main__":
    main()
