#!/usr/bin/env python
"""The cache Whisper's `generate()` holds, measured on CPU: `EncoderDecoderCache`'s
self-attention cache (keys and values of the decoder tokens fed so far) and its cross-attention
cache (keys and values over the encoder's frames, per decoder layer), for clips of 30 s (3,000
mel frames) and 10 s (1,000: the processor pads every clip to 30 s, so its frames are the same),
batches of 1 and 2, 1 to 17 new tokens, fp32 and bf16, SDPA and eager. A tiny random-weight
model from a config written here; nothing is downloaded.

Run: HF_HUB_OFFLINE=1 /work/venv/bin/python measure_whisper_cache.py > whisper_cache.jsonl
"""
import json
import platform

import torch
import transformers
from transformers import WhisperConfig, WhisperForConditionalGeneration

CONFIG = dict(d_model=64, encoder_layers=2, decoder_layers=3, encoder_attention_heads=4,
              decoder_attention_heads=8, encoder_ffn_dim=128, decoder_ffn_dim=96)


def kv_bytes(layers):
    total, tokens = 0, 0
    for layer in layers:
        for t in (layer.keys, layer.values):
            if t is not None and hasattr(t, "numel"):
                total += t.numel() * t.element_size()
                tokens = t.shape[2]
    return total, tokens


def main():
    torch.manual_seed(0)
    cfg = WhisperConfig(**CONFIG)
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    saved = dict(cfg.to_dict(), model_type="whisper")
    config = {k: saved[k] for k in ("model_type", "d_model", "encoder_layers", "decoder_layers",
                                    "encoder_attention_heads", "decoder_attention_heads",
                                    "encoder_ffn_dim", "decoder_ffn_dim", "vocab_size", "num_mel_bins",
                                    "max_source_positions", "max_target_positions",
                                    "tie_word_embeddings")}
    for dtype in (torch.float32, torch.bfloat16):
        for attn in ("sdpa", "eager"):
            model = WhisperForConditionalGeneration(cfg).to(dtype).eval()
            model.config._attn_implementation = attn
            for batch in (1, 2):
                for frames in (3000, 1000):
                    for new in (1, 5, 17):
                        seen = {}
                        forward = model.forward

                        def capture(*a, **k):
                            out = forward(*a, **k)
                            seen["cache"] = out.past_key_values
                            return out

                        model.forward = capture
                        x = torch.randn(batch, cfg.num_mel_bins, frames, dtype=dtype)
                        with torch.no_grad():
                            model.generate(x, max_new_tokens=new, min_new_tokens=new)
                        model.forward = forward
                        cache = seen["cache"]
                        self_bytes, tokens = kv_bytes(cache.self_attention_cache.layers)
                        cross_bytes, cross_tokens = kv_bytes(cache.cross_attention_cache.layers)
                        print(json.dumps(dict(config=config, dtype=str(dtype).replace("torch.", ""),
                                              attn=attn, batch=batch, mel_frames=frames, new_tokens=new,
                                              self_tokens=tokens, self_bytes=self_bytes,
                                              cross_tokens=cross_tokens, cross_bytes=cross_bytes,
                                              versions=versions)), flush=True)


if __name__ == "__main__":
    main()
