#!/usr/bin/env python
"""`measure.py`'s count with every weight frozen and the embeddings' output requiring a gradient
(`model.enable_input_require_grads()`, what transformers does for PEFT models under gradient
checkpointing, and the state of every layer behind a trained one under LoRA): what a recurrent
layer saves when none of its own weights trains. Same models, dtypes and sizes as measure.py.

Run: /work/venv/bin/python measure_frozen.py > recurrent_acts_frozen.jsonl   # ~2 min on 2 cores
"""
import json
import os
import platform
import sys

import torch
import transformers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure as base  # noqa: E402


def measure_frozen(model_type, variant, dtype_name, batch, seq):
    torch.manual_seed(0)
    cfg, fields = base.config_for(model_type, variant)
    model = transformers.AutoModelForCausalLM.from_config(cfg).to(dtype=base.DTYPES[dtype_name])
    for p in model.parameters():
        p.requires_grad_(False)
    model.enable_input_require_grads()
    model.train()
    counter = base.Scoped(model, False)
    kinds = counter.attach(model)
    ids = torch.randint(3, base.VOCAB, (batch, seq))
    with torch.autograd.graph.saved_tensors_hooks(counter.pack, lambda t: t):
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    total, by_scope, _ = counter.totals()
    loss.backward()
    layers = [{"index": i, "kind": k,
               "layer_bytes": by_scope.get(("layer", i), 0),
               "mixer_bytes": by_scope.get(("mixer", i), 0),
               "attn_bytes": by_scope.get(("attn", i), 0),
               "ffn_bytes": by_scope.get(("ffn", i), 0)} for i, k in enumerate(kinds)]
    return {"model_type": model_type, "config": fields, "dtype": dtype_name, "batch": batch,
            "seq": seq, "frozen": True, "layers": layers, "saved_bytes": total}


def main():
    base.check_no_kernels()
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for model_type in (sys.argv[1:] or list(base.GRID)):
        for v, variant in enumerate(base.GRID[model_type]):
            for dtype in base.DTYPES:
                for batch, seq in base.SIZES:
                    row = measure_frozen(model_type, variant, dtype, batch, seq)
                    row["variant"] = v
                    row["versions"] = versions
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
