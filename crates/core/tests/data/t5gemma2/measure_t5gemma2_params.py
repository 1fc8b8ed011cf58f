#!/usr/bin/env python
"""Parameter counts of `T5Gemma2ForConditionalGeneration` on the meta device.

Configs written here (no Hub access): the class defaults; the shapes of Google's three
checkpoints (270M-270M, 1B-1B, 4B-4B: Gemma 3 270M's, 1B's and 4B's text sizes in both stacks,
Gemma 3's SigLIP tower at 896 px in 14 px patches without its head, 256 tokens an image); and
variants: untied embeddings, an encoder deeper than the decoder, attention biases, and the
encoder's vision_config left out (SigLIP's class defaults). Each row: the config as a
`config.json` would hold it, transformers' total count and its vision tower's.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma2_params.py > t5gemma2_params.jsonl
"""
import json
import platform

import torch
import transformers
from transformers import T5Gemma2Config, T5Gemma2ForConditionalGeneration

transformers.logging.set_verbosity_error()

GEMMA3_VISION = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                 "num_hidden_layers": 27, "num_attention_heads": 16, "image_size": 896, "patch_size": 14,
                 "vision_use_head": False}


def stack(h, inter, layers, heads, kv, window, vocab=262144):
    return {"hidden_size": h, "intermediate_size": inter, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": 256,
            "vocab_size": vocab, "sliding_window": window, "max_position_embeddings": 131072}


def cfg(text, dec=None, **top):
    enc = {"text_config": dict(text, model_type="t5gemma2_text"), "vision_config": GEMMA3_VISION,
           "mm_tokens_per_image": 256}
    c = {"model_type": "t5gemma2", "architectures": ["T5Gemma2ForConditionalGeneration"],
         "encoder": enc, "decoder": dict(dec or text, model_type="t5gemma2_decoder")}
    c.update(top)
    return c


CONFIGS = {
    "class_default": {"model_type": "t5gemma2"},
    "270m-270m": cfg(stack(640, 2048, 18, 4, 1, 512)),
    "1b-1b": cfg(stack(1152, 6912, 26, 4, 1, 512)),
    "4b-4b": cfg(stack(2560, 10240, 34, 8, 4, 1024)),
    "270m-untied": cfg(stack(640, 2048, 18, 4, 1, 512), tie_word_embeddings=False),
    "270m-deep-encoder": cfg(stack(640, 2048, 24, 4, 1, 512), stack(640, 2048, 6, 4, 1, 512)),
    "1b-bias": cfg(dict(stack(1152, 6912, 26, 4, 1, 512), attention_bias=True)),
    "270m-default-vision": {"model_type": "t5gemma2", "encoder": {"text_config": stack(640, 2048, 18, 4, 1, 512)},
                            "decoder": stack(640, 2048, 18, 4, 1, 512)},
}


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for name, c in CONFIGS.items():
        kwargs = {k: v for k, v in c.items() if k not in ("model_type", "architectures")}
        with torch.device("meta"):
            model = T5Gemma2ForConditionalGeneration(T5Gemma2Config(**kwargs))
        total = sum(p.numel() for p in model.parameters())
        tower = sum(p.numel() for n, p in model.named_parameters() if "vision_tower" in n)
        print(json.dumps({"name": name, "config": c, "params": total, "vision_tower_params": tower,
                          "versions": versions}))


if __name__ == "__main__":
    main()
