#!/usr/bin/env python
"""What a BART-style encoder-decoder's cache holds after `generate`: small random-weight
BartForConditionalGeneration, MarianMTModel and M2M100ForConditionalGeneration models
(AutoModelForSeq2SeqLM; 2 encoder and 2 decoder layers, d_model 64, 4 heads, head_dim 16) on CPU.

For each model type, dtype (float32, bfloat16) and (batch, source_len, new_tokens) in RUNS, the model
runs `generate(input_ids, attention_mask, max_new_tokens=N, min_new_tokens=N, do_sample=False,
return_dict_in_generate=True)` on random source ids (none of them pad / eos / start). Generation starts
from `decoder_start_token_id`; eos is suppressed until N tokens exist (min_new_tokens), there is no forced
bos / eos, so every run decodes all N steps. The returned cache (`out.cache`, `past_key_values` in
4.x: an EncoderDecoderCache of two DynamicCaches) is walked layer by layer and written as one JSON line
per run: model_type, hf_class, cache_class, the config keys given, dtype, batch, source_len, new_tokens,
decoder_len (the returned sequences' length: start token + N), and for every decoder layer its
self-attention and cross-attention tensors (every tensor attribute of the cache layer: keys, values)
with name / shape / dtype / bytes, then the totals self_bytes and cross_bytes.

Measured (torch 2.15.0 CPU, transformers 5.24.0; a few seconds):
    HF_HUB_OFFLINE=1 python measure_seq2seq_cache.py > seq2seq_cache.jsonl

Result: the self-attention K/V of each decoder layer hold N positions after N new tokens (the start token
and the first N - 1 generated ones; the last token is returned, never fed back), i.e. decoder_len - 1;
the cross-attention K/V hold source_len positions, written once on the first step. Each tensor is
[batch, decoder_attention_heads, positions, d_model / decoder_attention_heads] in the model's dtype, so per
layer 2 x batch x d_model x (N + source_len) x bytes(dtype).
"""
import json
import sys

import torch
import transformers
from transformers import AutoModelForSeq2SeqLM, CONFIG_MAPPING

RUNS = [(1, 7, 3), (2, 12, 5), (3, 20, 4)]  # (batch, source_len, new_tokens)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
TINY = dict(vocab_size=128, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
            forced_bos_token_id=None, forced_eos_token_id=None)
# ids per family's convention: BART and M2M100 start the decoder on eos (2), Marian on pad
CONFIGS = {
    "bart": dict(TINY, pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2),
    "marian": dict(TINY, pad_token_id=1, eos_token_id=0, decoder_start_token_id=1),
    "m2m_100": dict(TINY, pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                    encoder_layerdrop=0.0, decoder_layerdrop=0.0),
}


def tensors_of(layer, prefix):
    out = []
    for name, value in vars(layer).items():
        if isinstance(value, torch.Tensor) and value.numel() > 0:
            out.append({"name": f"{prefix}.{name}", "shape": list(value.shape),
                        "dtype": str(value.dtype).replace("torch.", ""),
                        "bytes": value.numel() * value.element_size()})
    return out


def run(model_type, over, dtype_name, batch, source_len, new_tokens):
    cfg = CONFIG_MAPPING[model_type](**over)
    torch.manual_seed(0)
    model = AutoModelForSeq2SeqLM.from_config(cfg).to(DTYPES[dtype_name]).eval()
    ids = torch.randint(3, over["vocab_size"], (batch, source_len))
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                             min_new_tokens=new_tokens, do_sample=False, num_beams=1,
                             return_dict_in_generate=True, use_cache=True)
    cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
    layers, self_bytes, cross_bytes = [], 0, 0
    for i, (s, c) in enumerate(zip(cache.self_attention_cache.layers, cache.cross_attention_cache.layers)):
        ts, tc = tensors_of(s, "self_attention"), tensors_of(c, "cross_attention")
        self_bytes += sum(t["bytes"] for t in ts)
        cross_bytes += sum(t["bytes"] for t in tc)
        layers.append({"index": i, "tensors": ts + tc})
    decoder_len = out.sequences.shape[1]
    assert decoder_len == new_tokens + 1, (model_type, decoder_len)
    return {"model_type": model_type, "hf_class": type(model).__name__, "cache_class": type(cache).__name__,
            "self_cache_class": type(cache.self_attention_cache).__name__,
            "cross_cache_class": type(cache.cross_attention_cache).__name__,
            "config": dict(over), "dtype": dtype_name, "batch": batch,
            "source_len": source_len, "new_tokens": new_tokens, "decoder_len": decoder_len,
            "self_positions": cache.self_attention_cache.get_seq_length(),
            "cross_positions": cache.cross_attention_cache.get_seq_length(),
            "layers": layers, "self_bytes": self_bytes, "cross_bytes": cross_bytes}


def main():
    only = set(sys.argv[1:])
    for model_type, over in CONFIGS.items():
        if only and model_type not in only:
            continue
        for dtype_name in DTYPES:
            for batch, source_len, new_tokens in RUNS:
                print(json.dumps(run(model_type, over, dtype_name, batch, source_len, new_tokens)), flush=True)
    print(f"torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
