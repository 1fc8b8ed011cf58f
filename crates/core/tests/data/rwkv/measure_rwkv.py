#!/usr/bin/env python
"""RWKV (`RwkvForCausalLM`, transformers `models/rwkv`): parameter counts and the state
`forward(use_cache=True)` returns, on CPU.

Counts on the meta device for configs written here (no Hub access): the class defaults; the
shapes of the RWKV-4 Pile checkpoints (169M: 768 wide, 12 layers; 430M: 1024, 24; 1B5: 2048, 24;
3B: 2560, 32; 7B: 4096, 32; 14B: 5120, 40; vocabulary 50277) and of the 65,536-token "World"
vocabulary; variants: an explicit `intermediate_size`, a narrower `attention_hidden_size`, tied
embeddings. Each `params` row: the config as a config.json would hold it and the total count.

State: a tiny random-weight model (hidden 64 or 96, 2 or 3 layers, vocab 500), `.to(dtype)`, eval
mode, `model(input_ids, use_cache=True)`; `state` is five tensors of (batch, hidden, layers): the
two token-shift states (feed-forward and attention inputs) in the model's dtype and the WKV
numerator, denominator and running maximum in fp32. Each `state` row: bytes of the five over
fp32 / bf16 × batch 1 / 3 × prompt 7 / 20 (the state does not grow with the prompt).

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_rwkv.py > rwkv.jsonl
"""
import json
import platform

import torch
import transformers
from transformers import RwkvConfig, RwkvForCausalLM

transformers.logging.set_verbosity_error()
versions = {"torch": torch.__version__, "transformers": transformers.__version__,
            "python": platform.python_version()}


def pile(h, layers, vocab=50277):
    return {"model_type": "rwkv", "hidden_size": h, "num_hidden_layers": layers, "vocab_size": vocab,
            "attention_hidden_size": h, "intermediate_size": 4 * h, "context_length": 1024}


PARAMS = {
    "class_default": {"model_type": "rwkv"},
    "rwkv-4-169m-pile": pile(768, 12),
    "rwkv-4-430m-pile": pile(1024, 24),
    "rwkv-4-1b5-pile": pile(2048, 24),
    "rwkv-4-3b-pile": pile(2560, 32),
    "rwkv-4-7b-pile": pile(4096, 32),
    "rwkv-4-14b-pile": pile(5120, 40),
    "world-1b5": pile(2048, 24, 65536),
    "explicit-ffn": dict(pile(1024, 6), intermediate_size=3000),
    "narrow-attention": dict(pile(1024, 6), attention_hidden_size=512),
    "tied": dict(pile(768, 12), tie_word_embeddings=True),
}

for name, cfg in PARAMS.items():
    with torch.device("meta"):
        model = RwkvForCausalLM(RwkvConfig(**{k: v for k, v in cfg.items() if k != "model_type"}))
    print(json.dumps({"kind": "params", "name": name, "config": cfg,
                      "params": sum(p.numel() for p in model.parameters()), "versions": versions}))

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
for h, layers in ((64, 2), (96, 3)):
    cfg = {"model_type": "rwkv", "hidden_size": h, "num_hidden_layers": layers, "vocab_size": 500}
    for dtype in DTYPES:
        torch.manual_seed(0)
        model = RwkvForCausalLM(RwkvConfig(**{k: v for k, v in cfg.items() if k != "model_type"}))
        model = model.to(DTYPES[dtype]).eval()
        for batch in (1, 3):
            for prompt in (7, 20):
                ids = torch.randint(3, 490, (batch, prompt))
                with torch.no_grad():
                    out = model(input_ids=ids, use_cache=True)
                state = out.state
                print(json.dumps({"kind": "state", "config": cfg, "dtype": dtype, "batch": batch,
                                  "prompt_len": prompt,
                                  "shapes": [list(s.shape) for s in state],
                                  "dtypes": [str(s.dtype) for s in state],
                                  "state_bytes": sum(s.numel() * s.element_size() for s in state),
                                  "versions": versions}))
