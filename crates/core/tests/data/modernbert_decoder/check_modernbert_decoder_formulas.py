#!/usr/bin/env python
"""Checks the closed-form formulas of README.md against every row of modernbert_decoder_layers.jsonl.

Run: python check_modernbert_decoder_formulas.py   (plain Python, no torch needed)
"""
import json
import pathlib
import sys

ROWS = pathlib.Path(__file__).with_name("modernbert_decoder_layers.jsonl")


def layer(b, s, h, i, a, e, attn, sliding):
    """One decoder layer (index >= 1) with the same type as the layer before it."""
    base = e * b * s * (8 * h + 4 * i + 4)
    if attn == "sdpa":
        att = 4 * b * a * s + (e * b * s * s if sliding else 0)  # fp32 logsumexp; float mask
    else:
        att = 4 * b * a * s * s + (e * b * a * s * s if e < 4 else 0)  # fp32 softmax; bf16 copy
    return base + att


def rope(b, s, h, a, e):
    """cos + sin of one layer type, (b, 1, s, h/a) each, shared by every layer of that type."""
    return 2 * e * b * s * (h // a)


def one_layer_total(b, s, h, i, a, e, attn, sliding, vocab):
    layer0 = layer(b, s, h, i, a, e, attn, sliding) - e * b * s * (h + 2)  # no attn_norm
    rest = (8 * b * s                      # input ids (embedding lookup)
            + e * b * s * (h + 2)          # embeddings LayerNorm: input, mean, rstd
            + rope(b, s, h, a, e)          # cos, sin
            + e * b * s * (h + 2)          # final_norm
            + 2 * e * b * s * h            # lm_head.dense input, GELU input
            + e * b * s * (h + 2)          # lm_head.norm
            + e * b * s * h                # decoder (vocab projection) input
            + 4 * b * s * vocab            # fp32 log_softmax of the upcast logits
            + 8 * b * s + (8 if b == 1 else 0)  # shifted int64 labels (b=1: view of b*(s+1))
            + 4)                           # fp32 scalar in the loss
    return layer0 + rest


def main():
    bad = n = 0
    for line in ROWS.read_text().splitlines():
        r = json.loads(line)
        c = r["config"]
        b, s = r["batch"], r["seq"]
        h, i, a, vocab = (c["hidden_size"], c["intermediate_size"], c["num_attention_heads"],
                          c["vocab_size"])
        e = {"float32": 4, "bfloat16": 2}[r["dtype"]]
        sliding = r["added_layer_type"] == "sliding_attention"
        want = layer(b, s, h, i, a, e, r["attn"], sliding)
        checks = {
            "layer_bytes": want,
            "layer_hooked_bytes": want,
            "layer_hooked_all_bytes": want + rope(b, s, h, a, e),
            "layer_bytes_after_other_type": want + rope(b, s, h, a, e),
            "one_layer_total_bytes": one_layer_total(b, s, h, i, a, e, r["attn"], sliding, vocab),
        }
        n += 1
        for key, value in checks.items():
            if r[key] != value:
                bad += 1
                print("MISMATCH", key, r["variant"], r["attn"], r["dtype"], b, s,
                      r["added_layer_type"], "measured", r[key], "formula", value)
    print(f"{n} rows, {bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
