#!/usr/bin/env python
"""Bytes Whisper's encoder and decoder layers save for backward, measured on CPU.

A tiny random-weight `WhisperForConditionalGeneration` is built from a config written here (no
Hub access), put in train mode and run as a Trainer runs it: `model(input_features, labels)`
(the decoder's input is `shift_tokens_right(labels)`, so the decoder runs over the label tokens;
the encoder always over `max_source_positions` frames, the input being 2 × that many mel
frames). Every tensor autograd packs is seen through `torch.autograd.graph.saved_tensors_hooks`
and counted once per storage; parameters' storages are left out. One layer's bytes are read off
layer differences: (2 encoder layers, 1 decoder) − (1, 1) is an encoder layer, (1, 2) − (1, 1) a
decoder layer with its cross-attention; `one_layer_each_bytes` is the (1, 1) model's whole count,
whose remainder past its two layers is what the stem, the final norms and the head keep.

Run: /work/venv/bin/python measure_whisper.py > whisper_layers.jsonl   # ~1 min on 2 cores
"""
import json
import platform

import torch
import transformers
from transformers import WhisperConfig, WhisperForConditionalGeneration

CONFIGS = [
    dict(d_model=64, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
         decoder_ffn_dim=128, vocab_size=500, num_mel_bins=80, max_source_positions=1500),
    dict(d_model=48, encoder_attention_heads=3, decoder_attention_heads=3, encoder_ffn_dim=96,
         decoder_ffn_dim=96, vocab_size=300, num_mel_bins=128, max_source_positions=200),
]
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def saved_bytes(base, encoder, decoder, batch, labels, attn, dtype):
    torch.manual_seed(0)
    v = base["vocab_size"]
    cfg = WhisperConfig(**base, encoder_layers=encoder, decoder_layers=decoder, pad_token_id=v - 2,
                        bos_token_id=v - 2, eos_token_id=v - 2, decoder_start_token_id=v - 1,
                        begin_suppress_tokens=[], attn_implementation=attn)
    model = WhisperForConditionalGeneration(cfg).to(dtype).train()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in params and s.data_ptr() not in seen:
            seen[s.data_ptr()] = s.nbytes()
        return t

    x = torch.randn(batch, cfg.num_mel_bins, 2 * cfg.max_source_positions, dtype=dtype)
    y = torch.randint(0, v - 2, (batch, labels))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(input_features=x, labels=y)
    return sum(seen.values())


def main():
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    for c, base in enumerate(CONFIGS):
        for attn in ("sdpa", "eager"):
            for dtype in DTYPES:
                for batch in (1, 2):
                    for labels in (32, 64):
                        one = saved_bytes(base, 1, 1, batch, labels, attn, DTYPES[dtype])
                        enc = saved_bytes(base, 2, 1, batch, labels, attn, DTYPES[dtype]) - one
                        dec = saved_bytes(base, 1, 2, batch, labels, attn, DTYPES[dtype]) - one
                        print(json.dumps(dict(config=dict(base, model_type="whisper", encoder_layers=1,
                                                          decoder_layers=1, max_target_positions=448),
                                              variant=c, attn=attn, dtype=dtype, batch=batch,
                                              labels=labels, encoder_layer_bytes=enc,
                                              decoder_layer_bytes=dec, one_layer_each_bytes=one,
                                              versions=versions)), flush=True)


if __name__ == "__main__":
    main()
