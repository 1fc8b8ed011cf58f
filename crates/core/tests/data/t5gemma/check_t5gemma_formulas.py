#!/usr/bin/env python
"""Checks the formulas of README.md against every row of t5gemma_layers.jsonl and
t5gemma_cache.jsonl (exact bytes).

Notation: b batch, s source tokens, t target tokens, h hidden_size (h_enc for the encoder where
it differs), i intermediate_size, H attention heads, K KV heads, d head_dim, V vocab, e activation
bytes (4 fp32, 2 bf16), D = 1 when dropout_rate = attention_dropout = 0.1, else 0.
Run: /work/venv/bin/python check_t5gemma_formulas.py   # prints mismatches, then the counts
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def rms(b, n, h):
    # fp32 input (bf16: fp32 copy), fp32 rsqrt (n,1), fp32 normalised x, fp32 (1 + weight) (h,)
    return b * n * (8 * h + 4) + 4 * h


def att(b, q, k, H, d, e, D):
    # matmul 1: rotated/projected q and the GQA-repeated k (H heads); matmul 2: repeated v;
    # tanh output (e), fp32 softmax output, then: fp32 & no dropout -> nothing more (the softmax
    # output is matmul 2's input), bf16 & no dropout -> bf16 copy of the probs, dropout -> the
    # dropout noise and the dropout output
    extra = 2 * D + (1 if (e == 2 and not D) else 0)
    return e * b * H * d * (q + 2 * k) + b * H * q * k * (e + 4 + e * extra)


def ff(b, n, h, i, e, D):
    # gate_proj/up_proj input (h; one storage), gelu input, gelu output, up output, product;
    # dropout: noise + dropout output instead of the product as down_proj input
    return e * b * n * (h + i * (4 + D))


def encoder_layer(b, s, h, i, H, d, e, D):
    return (4 * rms(b, s, h) + e * b * s * (h + H * d) + att(b, s, s, H, d, e, D)
            + ff(b, s, h, i, e, D) + 2 * D * e * b * s * h)


def decoder_layer(b, t, s, h, i, H, d, e, D):
    return (6 * rms(b, t, h) + 2 * e * b * t * (h + H * d) + att(b, t, t, H, d, e, D)
            + att(b, t, s, H, d, e, D) + ff(b, t, h, i, e, D) + 3 * D * e * b * t * h)


def one_each(b, s, t, he, h, i, H, d, V, e, D):
    """The (1, 1) model: both layers, plus what layer 0 holds for its stack and the stacks' ends."""
    total = encoder_layer(b, s, he, i, H, d, e, D) + decoder_layer(b, t, s, h, i, H, d, e, D)
    total += 2 * e * d * (s + t)  # RoPE cos and sin, (1, n, d), saved in layer 0 of each stack
    total += e * b * s * he       # encoder output, input of every cross k/v proj (counted once)
    for n, w in ((s, he), (t, h)):  # per stack: ids, 0-dim sqrt(h) normaliser, final norm,
        total += 8 * b * n + e + rms(b, n, w) + 2 * D * e * b * n * w  # embedding/final dropout
    total += e * b * t * h        # lm_head input
    total += e * b * t * V        # final-logit softcapping tanh output
    total += 4 * b * t * V + 8 * b * t + 4  # fp32 log_softmax, int64 targets, total_weight
    return total


def check_layers():
    rows = [json.loads(l) for l in open(os.path.join(HERE, "t5gemma_layers.jsonl"))]
    bad = 0
    for r in rows:
        c = r["config"]
        enc, dec = c["encoder"], c["decoder"]
        he, h, i, H, d = (enc["hidden_size"], dec["hidden_size"], dec["intermediate_size"],
                          dec["num_attention_heads"], dec["head_dim"])
        assert enc["intermediate_size"] == i and enc["num_attention_heads"] == H
        b, s, t = r["batch"], r["source_len"], r["target_len"]
        e = 4 if r["dtype"] == "float32" else 2
        D = 1 if c["dropout_rate"] > 0 else 0
        assert (c["attention_dropout"] > 0) == bool(D)
        got = (r["encoder_layer_bytes"], r["decoder_layer_bytes"], r["one_layer_each_bytes"])
        want = (encoder_layer(b, s, he, i, H, d, e, D), decoder_layer(b, t, s, h, i, H, d, e, D),
                one_each(b, s, t, he, h, i, H, d, c["vocab_size"], e, D))
        if got != want:
            bad += 1
            print("MISMATCH", r["row_set"], r["variant"], r["dtype"], b, s, t, got, want)
    print(len(rows), "layer rows", bad, "mismatches")
    return bad


def check_cache():
    rows = [json.loads(l) for l in open(os.path.join(HERE, "t5gemma_cache.jsonl"))]
    bad = 0
    for r in rows:
        dec = r["config"]["decoder"]
        K, d, W = dec["num_key_value_heads"], dec["head_dim"], dec["sliding_window"]
        b, s, n = r["batch"], r["source_len"], r["new_tokens"]
        e = 4 if r["dtype"] == "float32" else 2
        types = r["decoder_layer_types"]
        held = [min(n, W - 1) if ty == "sliding_attention" else n for ty in types]
        stored = [min(n, W) if ty == "sliding_attention" else n for ty in types]
        want = dict(self_tokens_per_layer=held, cross_tokens_per_layer=[s] * len(types),
                    self_attention_bytes=sum(2 * b * K * x * d * e for x in held),
                    self_attention_storage_bytes=sum(2 * b * K * x * d * e for x in stored),
                    cross_attention_bytes=2 * len(types) * b * K * s * d * e,
                    cross_attention_storage_bytes=2 * len(types) * b * K * s * d * e,
                    cache_seq_length=n, generated_len=n + 1, matches_no_cache=True)
        diff = {k: (r[k], v) for k, v in want.items() if r[k] != v}
        if diff:
            bad += 1
            print("MISMATCH", r["size"], r["dtype"], b, s, n, diff)
    print(len(rows), "cache rows", bad, "mismatches")
    return bad


if __name__ == "__main__":
    check_layers()
    check_cache()
