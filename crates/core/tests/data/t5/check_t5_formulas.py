#!/usr/bin/env python
"""Checks the per-layer formulas of README.md against every row of t5_layers.jsonl (exact bytes).

Notation: b batch, s source tokens, t target tokens, h d_model, i d_ff, H heads, d d_kv, c = H*d,
e activation bytes (4 fp32, 2 bf16), D = 1 when dropout_rate > 0. Layer >= 1 of each stack.
Run: /work/venv/bin/python check_t5_formulas.py   # prints mismatches, then "208 rows 0 mismatches"
"""
import json, math, os
rows = [json.loads(l) for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "t5_layers.jsonl"))]
h, i, H, dk = 64, 128, 4, 16
inner = H * dk
def formulas(r):
    c = r["config"]; fam = c["model_type"]; b = r["batch"]; s = r["source_len"]; t = r["target_len"]
    e = 4 if r["dtype"] == "float32" else 2
    D = 1 if c["dropout_rate"] > 0 else 0
    sdpa = r["attn"] == "sdpa"
    gated = c.get("feed_forward_proj", "relu").startswith("gated")
    ln = lambda n: b * n * (8 * h + 4)
    def ffn(n):
        return b * n * (h * e + i * e * ((7 + D) if gated else (1 + 2 * D)))
    def att(sq, sk, kernel):
        if kernel == "flash":
            return e * b * (2 * sq * inner + 2 * sk * inner) + 4 * b * H * sq - e * b * sq * inner  # minus o-in (shared)
        ee = 4 if kernel == "math" else e
        return ee * b * H * (dk * (sq + 2 * sk) + sq * sk * (1 + 2 * D))
    resid = lambda n: D * b * n * h * e
    # encoder self-attention sublayer
    if fam == "longt5":
        bl = c["local_radius"] + 1; nb = math.ceil(s / bl); P = nb * bl
        g = s // c["global_block_size"] if c["encoder_attention_type"] == "transient-global" else 0
        K = 3 * bl + g
        A = b * nb * H * bl * K
        local = e * b * nb * H * dk * K * 2 + e * b * P * inner + 4 * A + e * A * 2 * D + (e < 4 and not D) * e * A
        local += g and (b * s * g * e + (8 * h + 4) * b * g + b * g * h * e)
        enc_att = ln(s) + b * s * h * e + local + b * (P if b == 1 else s) * inner * e + resid(s)
    else:
        enc_att = ln(s) + b * s * h * e + att(s, s, "math" if sdpa else "eager") + b * s * inner * e + resid(s)
        if fam == "umt5":
            enc_att += 8 * s * s
    dec_self = ln(t) + b * t * h * e + att(t, t, "math" if sdpa else "eager") + b * t * inner * e + resid(t) + (t * t if sdpa else 0)
    if fam == "umt5":
        dec_self += 8 * t * t
    ck = ("flash" if not D else "math") if sdpa else "eager"
    dec_cross = ln(t) + b * t * h * e + att(t, s, ck) + b * t * inner * e + resid(t)
    if fam == "umt5" and ck == "flash":
        dec_cross += H * t * s * e
    def ff_block(n, sparse_tokens=None):
        base = ln(n) + resid(n)
        if sparse_tokens is None:
            return base + ffn(n)
        E = c["num_experts"]
        return base + 8 * b * n * h + 4 * b * n * E + 8 * b * n  # N-dependent part added separately
    per_tok = 16 + e * (3 * h + 1 + i * (1 + 2 * D))
    if fam == "switch_transformers" and r["layer_kind"] == "sparse":
        k = r["kept_tokens"]
        enc = enc_att + ff_block(s, True) + per_tok * (sum(k["enc2"]) - sum(k["one"]))
        dec = dec_self + dec_cross + ff_block(t, True) + per_tok * (sum(k["dec2"]) - sum(k["one"]))
    else:
        enc = enc_att + ff_block(s)
        dec = dec_self + dec_cross + ff_block(t)
    return enc, dec
bad = 0
for r in rows:
    enc, dec = formulas(r)
    if enc != r["encoder_layer_bytes"] or dec != r["decoder_layer_bytes"]:
        bad += 1
        c = r["config"]
        print("MISMATCH", c["model_type"], c.get("feed_forward_proj"), c.get("encoder_attention_type"), r.get("layer_kind"), c.get("expert_capacity"), r["variant"], r["attn"], r["dtype"], r["batch"], r["source_len"], "enc", r["encoder_layer_bytes"], enc, r["encoder_layer_bytes"]-enc, "dec", r["decoder_layer_bytes"], dec, r["decoder_layer_bytes"]-dec)
print(len(rows), "rows", bad, "mismatches")
