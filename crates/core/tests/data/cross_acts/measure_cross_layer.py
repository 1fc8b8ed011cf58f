#!/usr/bin/env python
"""What one Llama 3.2 Vision cross-attention layer saves for backward (CPU measurement).

`MllamaCrossAttentionDecoderLayer` (transformers' modeling_mllama.py) with random weights, in
`train()` mode, run on a text stream `hidden_states` (B, T, h) that needs a gradient and the
projected vision tokens `cross_attention_states` (B, V, h), with the 4D additive cross-attention
mask and the full-text-row mask the model builds (`_prepare_cross_attention_mask`). One backward
of `out.float().sum()` under `torch.autograd.graph.saved_tensors_hooks`: every packed tensor is
counted once by storage, parameters excluded, and the layer's inputs (the two streams and the two
masks, shared by every layer of the model) reported apart in `inputs_bytes`.

Cases: all weights trainable or all frozen (LoRA elsewhere, a frozen layer behind an adapted one),
the vision stream needing a gradient (a trained tower or projector) or not, SDPA and eager,
fp32 and bf16, over shapes (h, heads, kv heads, i, B, T, V).

Run (torch 2.15.0 CPU, transformers 5.24.0; ~30 s on 2 cores):
    python measure_cross_layer.py > cross_layer_saved.jsonl
"""
import itertools
import json
import sys

import torch
import transformers
from transformers import MllamaTextConfig
from transformers.models.mllama.modeling_mllama import MllamaCrossAttentionDecoderLayer

SHAPES = [  # h, heads, kv heads, intermediate, batch, text tokens, vision tokens
    (64, 4, 2, 160, 1, 24, 40),
    (96, 6, 3, 256, 2, 16, 80),
    (128, 8, 8, 320, 1, 40, 24),
    (64, 4, 1, 128, 3, 12, 56),
]


def saved(layer, hidden, cross, mask, row_mask):
    inputs = {hidden.untyped_storage().data_ptr(), cross.untyped_storage().data_ptr(),
              mask.untyped_storage().data_ptr(), row_mask.untyped_storage().data_ptr()}
    params = {p.untyped_storage().data_ptr() for p in layer.parameters()}
    seen, inner, outer = set(), [0], [0]

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        if ptr not in seen and ptr not in params:
            seen.add(ptr)
            size = t.untyped_storage().nbytes()
            (outer if ptr in inputs else inner)[0] += size
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = layer(hidden, cross_attention_states=cross, cross_attention_mask=mask,
                    attention_mask=None, full_text_row_masked_out_mask=row_mask)
    out.float().sum().backward()
    return inner[0], outer[0]


def main():
    print(f"# torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
    for (h, a, kv, i, b, t, v), attn, dtype, trainable, cross_grad in itertools.product(
            SHAPES, ("sdpa", "eager"), (torch.float32, torch.bfloat16), (True, False), (True, False)):
        cfg = MllamaTextConfig(hidden_size=h, num_attention_heads=a, num_key_value_heads=kv,
                               intermediate_size=i, num_hidden_layers=2, cross_attention_layers=[1],
                               vocab_size=128, pad_token_id=0, bos_token_id=1, eos_token_id=2)
        cfg._attn_implementation = attn
        torch.manual_seed(0)
        layer = MllamaCrossAttentionDecoderLayer(cfg, layer_idx=1).to(dtype).train()
        # The gates start at 0 (tanh 0 = 0); any value keeps the same tensors.
        with torch.no_grad():
            layer.cross_attn_attn_gate.fill_(0.5)
            layer.cross_attn_mlp_gate.fill_(0.5)
        layer.requires_grad_(trainable)
        hidden = torch.randn(b, t, h, dtype=dtype, requires_grad=True)
        cross = torch.randn(b, v, h, dtype=dtype, requires_grad=cross_grad)
        mask = torch.zeros(b, 1, t, v, dtype=dtype)
        row_mask = torch.ones(b, 1, t, 1, dtype=dtype)
        inner, outer = saved(layer, hidden, cross, mask, row_mask)
        print(json.dumps({"hidden": h, "heads": a, "kv_heads": kv, "intermediate": i, "batch": b,
                          "text_tokens": t, "vision_tokens": v, "attention": attn,
                          "dtype": str(dtype).replace("torch.", ""), "weights_trainable": trainable,
                          "vision_needs_grad": cross_grad, "saved_bytes": inner,
                          "inputs_bytes": outer}))


if __name__ == "__main__":
    main()
