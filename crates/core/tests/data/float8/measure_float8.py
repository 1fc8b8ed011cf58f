#!/usr/bin/env python
"""What a Llama decoder layer saves for backward with torchao's float8 linears, against bf16.

A transformers `LlamaDecoderLayer` (random weights, bf16, SDPA, train mode) run on a hidden state
that needs a gradient, once as built and once after `torchao.float8.convert_to_float8_training`
replaced its linears with `Float8Linear` (the recipe named in the row: tensorwise, the default,
torchtitan's `float8` converter; rowwise). One backward of `out.float().sum()` under
`torch.autograd.graph.saved_tensors_hooks`; every packed tensor counted once by storage,
parameters excluded, and the layer's input reported apart (the method of shared/groundtruth/cpu).

Float8Linear's autograd function (`matmul_with_hp_or_float8_args` in torchao/float8/
float8_linear.py) keeps the high-precision input and weight and casts them to float8 again in
backward, so the measured bytes are expected to equal bf16's. It runs on CPU through torch's
`_scaled_mm`.

Run (torch 2.15.0 CPU, transformers 5.24.0, torchao 0.18.0; a few seconds):
    python measure_float8.py > float8_saved.csv
"""
import sys
import warnings

warnings.filterwarnings("ignore")
import torch
import torchao
import transformers
from torchao.float8 import Float8LinearConfig, convert_to_float8_training
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

SHAPES = [(256, 8, 4, 512, 2, 64), (512, 8, 8, 1024, 1, 128), (384, 6, 2, 1024, 4, 32)]  # h, a, kv, i, b, s


def layer_and_inputs(h, a, kv, i, b, s):
    cfg = LlamaConfig(hidden_size=h, num_attention_heads=a, num_key_value_heads=kv,
                      intermediate_size=i, num_hidden_layers=1, vocab_size=128)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    layer = LlamaDecoderLayer(cfg, layer_idx=0).to(torch.bfloat16).train()
    x = torch.randn(b, s, h, dtype=torch.bfloat16, requires_grad=True)
    pos = torch.arange(s).unsqueeze(0)
    cos, sin = LlamaRotaryEmbedding(cfg)(x, pos)
    return layer, x, (cos.to(torch.bfloat16), sin.to(torch.bfloat16))


def saved(layer, x, rope):
    params = {p.untyped_storage().data_ptr() for p in layer.parameters()}
    shared = {x.untyped_storage().data_ptr(), rope[0].untyped_storage().data_ptr(),
              rope[1].untyped_storage().data_ptr()}
    seen, total = set(), [0]

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        if ptr not in seen and ptr not in params and ptr not in shared:
            seen.add(ptr)
            total[0] += t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = layer(x, position_embeddings=rope, attention_mask=None)
        out = out[0] if isinstance(out, tuple) else out
    out.float().sum().backward()
    return total[0]


def main():
    print(f"# torch {torch.__version__}, transformers {transformers.__version__}, torchao {torchao.__version__}",
          file=sys.stderr)
    print("hidden,heads,kv_heads,intermediate,batch,seq,recipe,bf16_saved,float8_saved")
    for shape in SHAPES:
        layer, x, rope = layer_and_inputs(*shape)
        plain = saved(layer, x, rope)
        for recipe in ("tensorwise", "rowwise"):
            layer, x, rope = layer_and_inputs(*shape)
            config = Float8LinearConfig.from_recipe_name(recipe)
            convert_to_float8_training(layer, config=config)
            f8 = saved(layer, x, rope)
            print(",".join(str(v) for v in (*shape, recipe, plain, f8)))


if __name__ == "__main__":
    main()
