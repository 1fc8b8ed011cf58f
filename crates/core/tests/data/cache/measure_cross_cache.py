#!/usr/bin/env python
"""What Llama 3.2 Vision's cache holds: small random-weight `MllamaForConditionalGeneration`
models prefilled on synthetic tiles, then decoded a few tokens, on CPU.

One JSON line per run: the text and vision config, dtype, batch, images per prompt
(`num_concurrent_media`), the tile slots per image (`max_num_tiles`, all fed: the processor pads
every image to them), prompt length, decode steps, and for every layer of the `DynamicCache` its
kind (`cross_attention` for the indices of `cross_attention_layers`, else `full_attention`) with
the shapes and bytes of its keys and values.

Run (measured with torch 2.15.0 CPU, transformers 5.24.0; ~20 s on 2 cores):
    python measure_cross_cache.py > cross_cache.jsonl
"""
import json
import sys

import torch
import transformers
from transformers import MllamaConfig, MllamaForConditionalGeneration

SHAPES = [
    # text (hidden, layers, heads, kv heads, cross layers), vision (hidden, image, patch, tiles, layers, global)
    (dict(hidden_size=64, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=96, cross_attention_layers=[1]),
     dict(hidden_size=32, image_size=28, patch_size=14, max_num_tiles=4, num_hidden_layers=2,
          num_global_layers=1, attention_heads=4, intermediate_size=48)),
    (dict(hidden_size=96, num_hidden_layers=6, num_attention_heads=6, num_key_value_heads=3,
          intermediate_size=160, cross_attention_layers=[0, 3, 5]),
     dict(hidden_size=48, image_size=42, patch_size=14, max_num_tiles=2, num_hidden_layers=2,
          num_global_layers=2, attention_heads=4, intermediate_size=64,
          supported_aspect_ratios=[[1, 1], [1, 2], [2, 1]])),
    (dict(hidden_size=128, num_hidden_layers=5, num_attention_heads=8, num_key_value_heads=8,
          intermediate_size=192, cross_attention_layers=[2, 4]),
     dict(hidden_size=32, image_size=32, patch_size=8, max_num_tiles=1, num_hidden_layers=3,
          num_global_layers=1, attention_heads=2, intermediate_size=48,
          supported_aspect_ratios=[[1, 1]])),
]
RUNS = [(1, 1, 6), (2, 2, 9), (3, 3, 5)]  # (batch, images per prompt, prompt tokens)
DECODE_STEPS = 2
IMAGE_TOKEN = 120


def build(text, vision, dtype):
    text = dict(text, vocab_size=128, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    out = vision["hidden_size"] * 2
    vision = dict(vision, vision_output_dim=out, intermediate_layers_indices=[0])
    cfg = MllamaConfig(text_config=text, vision_config=vision, image_token_index=IMAGE_TOKEN)
    torch.manual_seed(0)
    model = MllamaForConditionalGeneration(cfg).to(dtype).eval()
    return model, text, vision


def layers_of(cache, cross):
    rows = []
    for i, layer in enumerate(cache.layers):
        tensors = []
        for name in ("keys", "values"):
            t = getattr(layer, name, None)
            if t is not None:
                tensors.append({"name": name, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                                "bytes": t.numel() * t.element_size()})
        rows.append({"index": i, "kind": "cross_attention" if i in cross else "full_attention",
                     "tensors": tensors})
    return rows


def run(text, vision, dtype, batch, media, prompt):
    model, text, vision = build(text, vision, dtype)
    tiles, side = vision["max_num_tiles"], vision["image_size"]
    ids = torch.randint(3, 100, (batch, prompt))
    ids[:, :media] = IMAGE_TOKEN
    pixels = torch.randn(batch, media, tiles, 3, side, side, dtype=dtype)
    ratio_ids = torch.ones(batch, media, dtype=torch.long)
    ratio_mask = torch.ones(batch, media, tiles, dtype=torch.long)
    cross_mask = torch.ones(batch, prompt, media, tiles, dtype=torch.long)
    rows = []
    with torch.no_grad():
        out = model(input_ids=ids, pixel_values=pixels, aspect_ratio_ids=ratio_ids,
                    aspect_ratio_mask=ratio_mask, cross_attention_mask=cross_mask, use_cache=True)
        cache = out.past_key_values
        rows.append((0, prompt, layers_of(cache, text["cross_attention_layers"])))
        for step in range(1, DECODE_STEPS + 1):
            nxt = out.logits[:, -1:].argmax(-1)
            out = model(input_ids=nxt, cache=cache, cross_attention_mask=cross_mask[:, -1:],
                        use_cache=True)
            cache = out.past_key_values
        rows.append((DECODE_STEPS, prompt + DECODE_STEPS, layers_of(cache, text["cross_attention_layers"])))
    for steps, total, layers in rows:
        print(json.dumps({
            "model_type": "mllama", "hf_class": type(model).__name__, "cache_class": type(cache).__name__,
            "text_config": text, "vision_config": vision, "dtype": str(dtype).replace("torch.", ""),
            "batch": batch, "images_per_prompt": media, "tiles_per_image": tiles,
            "prompt_len": prompt, "decode_steps": steps, "total_len": total, "layers": layers,
            "total_bytes": sum(t["bytes"] for l in layers for t in l["tensors"]),
        }))


def main():
    print(f"# torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
    for text, vision in SHAPES:
        for dtype in (torch.float32, torch.bfloat16):
            for batch, media, prompt in RUNS:
                run(text, vision, dtype, batch, media, prompt)


if __name__ == "__main__":
    main()
