#!/usr/bin/env python3
"""KV cache of unlimited_ocr (R-SWA = reference sliding-window attention), measured.

Run:  HF_HUB_OFFLINE=1 /work/venv/bin/python /work/scratch/unlimited/kv_cache.py
Writes kv_rows.jsonl and kv_table.md next to this file and prints ALL OK when every row matches the formula.

Tiny random-weight UnlimitedOcrForConditionalGeneration (text-only input, no image: the cache does not care
what the prefill embeddings are). For each (dtype, B, W, P, G):
  * "loop":     one forward over P prompt tokens (use_cache=True, fresh DynamicCache built by the text model),
                then G single-token forwards feeding the cache back (G decode tokens enter the cache).
  * "generate": model.generate(max_new_tokens=G+1, min_new_tokens=G+1) -> also P prefill + G decode forwards
                (the last sampled token is never fed back).
Bytes counted three ways, over every tensor reachable from every cache layer's __dict__:
  numel_bytes    = sum(t.numel()*t.element_size()) over K/V tensors (keys, values, prefill_keys, prefill_values)
  storage_bytes  = sum of the distinct underlying storages' nbytes of those tensors (views keep their base alive)
  other_bytes    = any other tensor the layer holds (the int64 _sliding_window_tensor scalar)
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import torch

import transformers
from transformers.models.unlimited_ocr import modeling_unlimited_ocr as M
from transformers import UnlimitedOcrConfig, UnlimitedOcrForConditionalGeneration

HERE = os.path.dirname(os.path.abspath(__file__))
L, NH, NKV, HID = 3, 4, 2, 64
HD = HID // NH


def make_model(W, dtype, attn="sdpa", nkv=NKV):
    cfg = UnlimitedOcrConfig(
        text_config=dict(vocab_size=300, hidden_size=HID, intermediate_size=96, num_hidden_layers=L,
                         num_attention_heads=NH, num_key_value_heads=nkv, n_routed_experts=4,
                         moe_intermediate_size=16, n_shared_experts=1, num_experts_per_tok=2,
                         sliding_window=W, max_position_embeddings=4096),
        vision_config=dict(
            sam_config=dict(hidden_size=32, output_channels=16, num_hidden_layers=2, num_attention_heads=2,
                            image_size=64, patch_size=16, window_size=2, global_attn_indexes=[],
                            mlp_dim=48, downsample_channels=[24, 40]),
            encoder_config=dict(hidden_size=40, intermediate_size=80, num_hidden_layers=1,
                                num_attention_heads=4, image_size=32, patch_size=8)),
    )
    cfg.text_config._attn_implementation = attn
    cfg._attn_implementation = attn
    torch.manual_seed(0)
    m = UnlimitedOcrForConditionalGeneration(cfg).to(dtype).eval()
    return m


KV_NAMES = ("keys", "values", "prefill_keys", "prefill_values")


def cache_bytes(cache):
    numel = 0
    storages = {}
    other = 0
    per_layer = []
    for layer in cache.layers:
        shapes = {}
        for name, v in vars(layer).items():
            if not isinstance(v, torch.Tensor):
                continue
            if name in KV_NAMES:
                numel += v.numel() * v.element_size()
                st = v.untyped_storage()
                storages[st.data_ptr()] = st.nbytes()
                shapes[name] = [list(v.shape), str(v.dtype).replace("torch.", "")]
            else:
                other += v.numel() * v.element_size()
                shapes[name] = [list(v.shape), str(v.dtype).replace("torch.", "")]
        per_layer.append({"class": type(layer).__name__, "layer_type": layer._layer_type,
                          "prefill_length": layer.prefill_length, "cumulative_length": layer.cumulative_length,
                          "tensors": shapes})
    return numel, sum(storages.values()), other, per_layer


def formula(B, P, G, W, es, storage=False):
    held = min(G, W) if storage else min(G, W - 1)
    return L * 2 * B * NKV * HD * (P + held) * es


def run_loop(model, B, P, G):
    ids = torch.randint(3, 300, (B, P))
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
        cache = out.cache
        nxt = out.logits[:, -1:].argmax(-1)
        for _ in range(G):
            out = model(input_ids=nxt, cache=cache, use_cache=True)
            cache = out.cache
            nxt = out.logits[:, -1:].argmax(-1)
    return cache


def run_generate(model, B, P, G):
    ids = torch.randint(3, 300, (B, P))
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=G + 1,
                             min_new_tokens=G + 1, do_sample=False, return_dict_in_generate=True,
                             eos_token_id=None, pad_token_id=0)
    assert out.sequences.shape[1] == P + G + 1, out.sequences.shape
    return out.past_key_values if getattr(out, "past_key_values", None) is not None else out.cache


def check_attention_semantics(W, P, G):
    """Cached decode logits == a cache-free forward with the explicit mask
    allowed(q,k) = k <= q and (k < P or k > q - W); and != plain full causal when P+G > W."""
    model = make_model(W, torch.float32)
    torch.manual_seed(1)
    ids = torch.randint(3, 300, (1, P + G + 1))
    with torch.no_grad():
        out = model(input_ids=ids[:, :P], use_cache=True)
        cache = out.cache
        logits = [out.logits[0]]
        for i in range(P, P + G + 1):
            out = model(input_ids=ids[:, i:i + 1], cache=cache, use_cache=True)
            cache = out.cache
            logits.append(out.logits[0])
        cached = torch.cat(logits, 0)
        n = P + G + 1
        q = torch.arange(n)[:, None]
        k = torch.arange(n)[None, :]
        allowed = (k <= q) & ((k < P) | (k > q - W))
        m4 = allowed[None, None]
        ref = model(input_ids=ids, attention_mask={"full_attention": m4, "reference_sliding_attention": m4},
                    use_cache=False).logits[0]
        full = model(input_ids=ids, use_cache=False).logits[0]  # no cache -> plain causal over everything
    err = (cached - ref).abs().max().item()
    err_full = (cached - full).abs().max().item()
    return err, err_full


def record_masks(W, P, G, attn):
    """Shapes/dtypes of the masks the text model builds at prefill and at the last decode step, and of K/V the
    attention sees at the last decode step."""
    # eager uses the module's eager_attention_forward, which has no repeat_kv: GQA (nkv < nh) fails in eager
    # (RuntimeError at the QK^T matmul), so the eager check runs with nkv == nh.
    model = make_model(W, torch.bfloat16, attn, nkv=NKV if attn == "sdpa" else NH)
    seen = []
    orig_full, orig_ref = M.create_causal_mask, M.create_reference_sliding_window_causal_mask

    def wrap(name, f):
        def g(**kw):
            r = f(**kw)
            seen.append((name, None if r is None else [list(r.shape), str(r.dtype).replace("torch.", "")]))
            return r
        return g

    kv_seen = []
    iface = transformers.modeling_utils.ALL_ATTENTION_FUNCTIONS
    orig_attn = iface._global_mapping.get(attn)

    orig_eager = M.eager_attention_forward

    def attn_wrap(module, q, k, v, mask, **kw):
        kv_seen.append((list(q.shape), list(k.shape)))
        return (orig_attn or orig_eager)(module, q, k, v, mask, **kw)

    M.create_causal_mask = wrap("full_attention(create_causal_mask)", orig_full)
    M.create_reference_sliding_window_causal_mask = wrap("reference_sliding_attention", orig_ref)
    if orig_attn is not None:
        iface._global_mapping[attn] = attn_wrap
    else:
        M.eager_attention_forward = attn_wrap
    try:
        ids = torch.randint(3, 300, (2, P))
        with torch.no_grad():
            out = model(input_ids=ids, use_cache=True)
            pre_masks, pre_kv = list(seen), list(kv_seen)
            cache = out.cache
            for _ in range(G):
                seen.clear(); kv_seen.clear()
                out = model(input_ids=ids[:, :1], cache=cache, use_cache=True)
                cache = out.cache
    finally:
        M.create_causal_mask, M.create_reference_sliding_window_causal_mask = orig_full, orig_ref
        if orig_attn is not None:
            iface._global_mapping[attn] = orig_attn
        else:
            M.eager_attention_forward = orig_eager
    return {"attn": attn, "B": 2, "P": P, "G": G, "W": W, "prefill_masks": pre_masks,
            "prefill_q_k_shapes_layer0": pre_kv[0], "last_decode_masks": list(seen),
            "last_decode_q_k_shapes_layer0": kv_seen[0] if kv_seen else None}


def main():
    rows = []
    ok = True
    Ps, Gs = [5, 100, 300], [0, 1, 50, 127, 128, 129, 300]
    combos = []
    for W in (128, 16):
        for P in Ps:
            for G in Gs:
                combos.append(("loop", torch.bfloat16, 1, W, P, G))
    for W in (128, 16):  # batch 2, fp32, and generate()
        for P in (5, 300):
            for G in (0, 1, 127, 128, 129, 300):
                combos.append(("loop", torch.float32, 2, W, P, G))
                combos.append(("generate", torch.bfloat16, 2, W, P, G))
    models = {}
    for mode, dtype, B, W, P, G in combos:
        key = (W, dtype)
        if key not in models:
            models[key] = make_model(W, dtype)
        model = models[key]
        torch.manual_seed(P * 1000 + G)
        cache = run_loop(model, B, P, G) if mode == "loop" else run_generate(model, B, P, G)
        numel, storage, other, per_layer = cache_bytes(cache)
        es = torch.tensor([], dtype=dtype).element_size()
        f_numel, f_storage = formula(B, P, G, W, es), formula(B, P, G, W, es, storage=True)
        row = {"mode": mode, "dtype": str(dtype).replace("torch.", ""), "B": B, "W": W, "P": P, "G": G,
               "layers": L, "kv_heads": NKV, "head_dim": HD, "numel_bytes": numel, "formula_numel": f_numel,
               "storage_bytes": storage, "formula_storage": f_storage, "other_tensor_bytes": other,
               "cache_class": type(cache).__name__, "layer0": per_layer[0],
               "all_layers_same_type": len({p["class"] for p in per_layer}) == 1,
               "get_seq_length": cache.get_seq_length()}
        row["ok"] = numel == f_numel and storage == f_storage and other == 8 * L
        ok &= row["ok"]
        rows.append(row)
        print(mode, row["dtype"], B, W, P, G, numel, f_numel, storage, f_storage, other, row["ok"], flush=True)

    sem = []
    for W, P, G in [(16, 5, 40), (16, 40, 40), (8, 30, 25), (128, 20, 5)]:
        err, err_full = check_attention_semantics(W, P, G)
        good = err < 1e-4 and (err_full > 1e-3 if P + G + 1 > W else True)
        sem.append({"W": W, "P": P, "G": G, "max_abs_err_vs_rswa_mask": err, "max_abs_diff_vs_full_causal": err_full,
                    "ok": good})
        ok &= good
        print("semantics", sem[-1], flush=True)

    masks = [record_masks(16, 40, 20, "sdpa"), record_masks(16, 40, 20, "eager")]
    for m in masks:
        print(json.dumps(m), flush=True)

    with open(os.path.join(HERE, "kv_rows.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        for s in sem:
            f.write(json.dumps({"semantics": s}) + "\n")
        for m in masks:
            f.write(json.dumps({"masks": m}) + "\n")

    with open(os.path.join(HERE, "kv_table.md"), "w") as f:
        f.write("| mode | dtype | B | W | P | G | numel bytes | formula | storage bytes | formula | ok |\n")
        f.write("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
        for r in rows:
            f.write(f"| {r['mode']} | {r['dtype']} | {r['B']} | {r['W']} | {r['P']} | {r['G']} | {r['numel_bytes']:,} | "
                    f"{r['formula_numel']:,} | {r['storage_bytes']:,} | {r['formula_storage']:,} | "
                    f"{'OK' if r['ok'] else 'FAIL'} |\n")
    print("ALL OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
