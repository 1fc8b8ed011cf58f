#!/usr/bin/env python
"""Bytes one sliding layer saves for backward under SDPA, with and without transformers' mask.

transformers hands SDPA the sliding-window mask once a sequence reaches the window (below it
`_ignore_causal_mask_sdpa` skips the mask), and `sdpa_attention_forward` repeats k and v to every
query head whenever it passes a mask (`use_gqa_in_sdpa`: only without one does SDPA's own
`enable_gqa` take the key-value heads as they are). So a grouped-query layer over its window
keeps k and v at the query heads' width, beside the mask SDPA converts to the activation dtype.

Method as in `../t5gemma/measure_t5gemma_layers.py`: tiny random-weight causal LMs built from
configs written here (no Hub access), `.to(dtype)`, train mode, `model(input_ids=x, labels=x)`,
saved tensors seen through `saved_tensors_hooks` and counted once per storage (parameters left
out), one layer read off the 2-layer − 1-layer models, every layer sliding. Models: Gemma 3
(`Gemma3ForCausalLM`, layer_types all sliding_attention) and Mistral (`MistralForCausalLM`), hidden
64, MLP 128, 4 heads of 16, 2 or 1 key-value heads, vocab 500; a sequence of 32 under a window of
16 (masked) or 4096 (no mask); fp32 / bf16 × batch 1 / 2. 32 rows.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_masked_gqa.py > masked_gqa.jsonl
"""
import json
import platform

import torch
import transformers
from transformers import Gemma3ForCausalLM, Gemma3TextConfig, MistralConfig, MistralForCausalLM

transformers.logging.set_verbosity_error()

SEQ = 32
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
MODELS = {
    "gemma3_text": (Gemma3ForCausalLM, Gemma3TextConfig,
                    dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, head_dim=16,
                         vocab_size=500, query_pre_attn_scalar=16)),
    "mistral": (MistralForCausalLM, MistralConfig,
                dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, head_dim=16,
                     vocab_size=500)),
}


def saved_bytes(model, x):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        if isinstance(t, torch.Tensor):
            s = t.untyped_storage()
            if s.data_ptr() not in params and s.data_ptr() not in seen:
                seen[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(input_ids=x, labels=x)
    out.loss.backward()
    return sum(seen.values())


def config(name, kv, window, layers):
    _, cls, kw = MODELS[name]
    c = dict(kw, num_key_value_heads=kv, sliding_window=window, num_hidden_layers=layers)
    if name == "gemma3_text":
        c["layer_types"] = ["sliding_attention"] * layers
    return c


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for name, (model_cls, config_cls, _) in MODELS.items():
        for kv in (2, 1):
            for window in (16, 4096):
                for dtype in DTYPES:
                    for batch in (1, 2):
                        total = []
                        for layers in (1, 2):
                            torch.manual_seed(0)
                            cfg = config_cls(**config(name, kv, window, layers), attn_implementation="sdpa")
                            model = model_cls(cfg).to(DTYPES[dtype]).train()
                            torch.manual_seed(0)
                            x = torch.randint(3, 490, (batch, SEQ))
                            total.append(saved_bytes(model, x))
                        print(json.dumps({"model_type": name, "config": config(name, kv, window, 1),
                                          "dtype": dtype, "batch": batch, "seq": SEQ,
                                          "masked": SEQ >= window, "layer_bytes": total[1] - total[0],
                                          "versions": versions}))


if __name__ == "__main__":
    main()
