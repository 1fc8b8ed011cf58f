#!/usr/bin/env python
"""Bytes one encoder layer and one decoder layer of T5Gemma 2 save for backward, on CPU.

Model: `T5Gemma2ForConditionalGeneration` (transformers `models/t5gemma2`). Both stacks are
Gemma-3-style (Gemma RMSNorm in fp32 scaled by 1 + weight, q/k norms, RoPE, pre- and post-norms
around every sub-block, a gated `gelu_pytorch_tanh` MLP); a decoder layer's attention is
`T5Gemma2MergedAttention`: one q/k/v/o, the encoder output projected by the same k_proj/v_proj
(k-normed, no RoPE) and concatenated after the decoder's own keys and values, one softmax over
target + source.

Method as in `../t5gemma/measure_t5gemma_layers.py`: a tiny random-weight model built from a
config written here (no Hub access), cast with `.to(dtype)`, train mode, run as a Trainer runs it
(`model(input_ids=x, labels=y)`: the decoder runs over the labels shifted right). Every tensor
autograd packs is seen through `torch.autograd.graph.saved_tensors_hooks`, counted once per
storage, parameters' storages left out. One layer's bytes are layer differences: (2 encoder
layers, 1 decoder) − (1, 1) is an encoder layer, (1, 2) − (1, 1) a decoder layer.

Config (encoder text config and decoder equal): hidden_size 64, intermediate_size 128,
num_attention_heads 4, num_key_value_heads 2, head_dim 16, vocab_size 500,
query_pre_attn_scalar 16, sliding_window 4096 (longer than every sequence), default layer_types
(the added layer, index 1, slides; as the window covers the sequence it saves as a full one), a
SigLIP tower of one 32-wide layer (no image is passed). Class defaults otherwise (dropout 0).
Grid: eager and sdpa × fp32 / bf16 × batch 1 / 2 × (source, target) in (32, 16), (64, 32),
(48, 48) = 24 rows; and with one key-value head (the 270M and 1B checkpoints'), eager and sdpa ×
fp32 × batch 1 / 2 × (32, 16) = 4 rows; and PEFT LoRA (rank 8, no dropout, the base frozen) on q and v
or on q, k, v and o, SDPA, fp32 / bf16 × batch 1 / 2 × (32, 16) = 8 rows (peft 0.21.2). Seeds fixed.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma2_layers.py > t5gemma2_layers.jsonl
     HF_HUB_OFFLINE=1 /work/venv/bin/python measure_t5gemma2_layers.py --explain ATTN DTYPE
"""
import copy
import json
import platform
import sys
from collections import defaultdict

import torch
import transformers
from transformers import T5Gemma2Config, T5Gemma2ForConditionalGeneration

transformers.logging.set_verbosity_error()

VOCAB = 500
STACK = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
             head_dim=16, vocab_size=VOCAB, query_pre_attn_scalar=16, sliding_window=4096)
VISION = dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64,
              num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(32, 16), (64, 32), (48, 48)]
FIRST_ID = 3


def config_kwargs(n_enc, n_dec, kv=2):
    stack = dict(STACK, num_key_value_heads=kv)
    enc = dict(text_config=dict(stack, num_hidden_layers=n_enc), vision_config=VISION,
               mm_tokens_per_image=4)
    dec = dict(stack, num_hidden_layers=n_dec)
    return dict(encoder=enc, decoder=dec)


def build(n_enc, n_dec, dtype, attn, kv=2, lora=None):
    torch.manual_seed(0)
    cfg = T5Gemma2Config(**copy.deepcopy(config_kwargs(n_enc, n_dec, kv)), attn_implementation=attn)
    model = T5Gemma2ForConditionalGeneration(cfg).to(DTYPES[dtype]).train()
    assert model.model.decoder.config._attn_implementation == attn
    if lora is not None:
        # PEFT's defaults otherwise (no dropout here, adapters upcast to fp32)
        import peft
        targets = [f"{t}_proj" for t in lora]
        lc = peft.LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=targets,
                             task_type="SEQ_2_SEQ_LM")
        model = peft.get_peft_model(model, lc).train()
    return model


def saved_bytes(model, x, y, explain=False):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}
    shapes = defaultdict(int)

    def pack(t):
        if isinstance(t, torch.Tensor):
            s = t.untyped_storage()
            ptr = s.data_ptr()
            if ptr not in params and ptr not in seen:
                seen[ptr] = s.nbytes()
                shapes[(tuple(t.shape), str(t.dtype))] += 1
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(input_ids=x, labels=y)
    out.loss.backward()
    if explain:
        for k, v in sorted(shapes.items(), key=lambda kv: str(kv[0])):
            print(k, v)
    return sum(seen.values())


def inputs(batch, source_len, target_len):
    torch.manual_seed(0)
    x = torch.randint(FIRST_ID, VOCAB - 1, (batch, source_len))
    y = torch.randint(FIRST_ID, VOCAB - 1, (batch, target_len))
    return x, y


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    if "--explain" in sys.argv:
        attn, dtype = sys.argv[2], sys.argv[3]
        x, y = inputs(1, 32, 16)
        for n in [(1, 1), (2, 1), (1, 2)]:
            print("==", n)
            saved_bytes(build(*n, dtype, attn), x, y, explain=True)
        return
    grid = [(attn, dtype, batch, shape, 2) for attn in ("eager", "sdpa") for dtype in DTYPES
            for batch in (1, 2) for shape in SHAPES]
    # one key-value head (the 270M and 1B checkpoints'): repeat_kv's stride-0 views
    grid += [(attn, "float32", batch, (32, 16), 1) for attn in ("eager", "sdpa") for batch in (1, 2)]
    for attn, dtype, batch, (source, target), kv in grid:
        x, y = inputs(batch, source, target)
        base = saved_bytes(build(1, 1, dtype, attn, kv), x, y)
        enc = saved_bytes(build(2, 1, dtype, attn, kv), x, y) - base
        dec = saved_bytes(build(1, 2, dtype, attn, kv), x, y) - base
        print(json.dumps({"config": config_kwargs(1, 1, kv), "attn": attn, "dtype": dtype,
                          "batch": batch, "source_len": source, "target_len": target,
                          "encoder_layer_bytes": enc, "decoder_layer_bytes": dec,
                          "one_layer_each_bytes": base, "versions": versions}))
    # LoRA (PEFT, rank 8) on the base model frozen: the merged attention runs
    # k_proj and v_proj over the source too, through their adapters
    versions["peft"] = __import__("peft").__version__
    for targets in (["q", "v"], ["q", "k", "v", "o"]):
        for dtype in DTYPES:
            for batch in (1, 2):
                source, target = 32, 16
                x, y = inputs(batch, source, target)
                base = saved_bytes(build(1, 1, dtype, "sdpa", 2, targets), x, y)
                enc = saved_bytes(build(2, 1, dtype, "sdpa", 2, targets), x, y) - base
                dec = saved_bytes(build(1, 2, dtype, "sdpa", 2, targets), x, y) - base
                print(json.dumps({"config": config_kwargs(1, 1, 2), "attn": "sdpa", "dtype": dtype,
                                  "batch": batch, "source_len": source, "target_len": target,
                                  "lora": {"rank": 8, "targets": targets},
                                  "encoder_layer_bytes": enc, "decoder_layer_bytes": dec,
                                  "one_layer_each_bytes": base, "versions": versions}))


if __name__ == "__main__":
    main()
