"""Ovis2 image-token ground truth: runs Ovis2Processor (Ovis2ImageProcessorPil + a from-scratch Qwen2Tokenizer)
on synthetic PIL images and writes image_rows.jsonl. Every row is cross-checked against an independent
re-implementation (`closed_form`) of the grid selection and token counts.

HF_HUB_OFFLINE=1 /work/venv/bin/python measure_images.py
"""
import json
import math
import os
import random

os.environ.setdefault("HF_HUB_OFFLINE", "1")
from PIL import Image
from transformers import Ovis2ImageProcessorPil, Ovis2Processor, Qwen2Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "image_rows.jsonl")

FIXED = [
    (1, 1), (2, 3), (1, 2000), (2000, 1), (4000, 10), (10, 4000), (1920, 1080), (1080, 1920), (4032, 3024),
    (3024, 4032), (3508, 2480), (2480, 3508), (224, 224), (384, 384), (448, 448), (640, 480), (1024, 768),
    (1280, 720), (1700, 2200), (100, 2000), (2000, 100), (896, 448), (448, 896), (1344, 448), (897, 449),
    (8000, 8000), (1000, 200), (200, 1000), (500, 100),
]
rng = random.Random(20240607)
RANDOM = []
while len(RANDOM) < 17:
    w, h = rng.randint(1, 5000), rng.randint(1, 5000)
    if max(w, h) / min(w, h) < 50:
        RANDOM.append((w, h))
SIZES = FIXED + RANDOM

SEQ = 256  # Ovis2Processor image_seq_length default (= (448/14/2)^2 for the Ovis2 checkpoints)
PATCH = 14  # Ovis2 (AIMv2) vision patch_size of the checkpoints
SETTINGS = [
    ("class defaults (Ovis2ImageProcessor())", {}),
    ("Ovis2-*-hf checkpoints per convert_ovis2_weights_to_hf.py: crop_to_patches, 448",
     dict(crop_to_patches=True, size={"height": 448, "width": 448})),
    ("checkpoint setting + use_covering_area_grid=False (GOT-OCR2 canvas)",
     dict(crop_to_patches=True, size={"height": 448, "width": 448}, use_covering_area_grid=False)),
    ("checkpoint setting + max_patches=9 (original Ovis2 max_partition=9)",
     dict(crop_to_patches=True, size={"height": 448, "width": 448}, max_patches=9)),
]
KEYS = ["size", "crop_to_patches", "min_patches", "max_patches", "use_covering_area_grid", "do_resize"]


# ---------------- independent closed form ----------------
def aspect_list(lo, hi):
    out = [(a, b) for a in range(1, hi + 1) for b in range(1, hi + 1) if lo <= a * b <= hi]
    return sorted(out, key=lambda x: x[0] * x[1])  # stable


def covering_grid(H, W, side, max_tiles, thr=0.9):
    """returns grid as the library does: (g0, g1) where the covering maths treats g0 as ROWS, g1 as COLS."""
    area = W * H
    evaluated, good = [], []
    for g in aspect_list(1, max_tiles):
        rh, cw = H // g[0], W // g[1]
        tot = 0.0
        for r in range(g[0]):
            for c in range(g[1]):
                w = (W if c == g[1] - 1 else (c + 1) * cw) - c * cw
                h = (H if r == g[0] - 1 else (r + 1) * rh) - r * rh
                w, h = max(w, h), min(w, h)
                if w > side:
                    h = h / w * side
                    w = side
                tot += w * h
        ratio = tot / area
        evaluated.append((g, ratio))
        if ratio > thr:
            good.append((g, ratio))
    if good:
        return min(good, key=lambda x: (x[0][0] * x[0][1], -x[1]))[0]
    return min(evaluated, key=lambda x: (-x[1], x[0][0] * x[0][1]))[0]


def canvas_grid(H, W, th, tw, lo, hi):
    ar, area = W / H, W * H
    best, bd = (1, 1), float("inf")
    for g in aspect_list(lo, hi):
        d = abs(ar - g[0] / g[1])
        if d < bd:
            bd, best = d, g
        elif d == bd and area > 0.5 * th * tw * g[0] * g[1]:
            best = g
    return best


def closed_form(W, H, s):
    side = s["size"]["height"]
    if s["crop_to_patches"] and s["max_patches"] > 1:
        if s["use_covering_area_grid"]:
            cols, rows = covering_grid(H, W, side, s["max_patches"])  # note the swap the library does
        else:
            cols, rows = canvas_grid(H, W, side, s["size"]["width"], s["min_patches"], s["max_patches"])
    else:
        rows, cols = 1, 1
    n = rows * cols
    tiles = n + 1 if n > 1 else n
    lm = SEQ * tiles + 3 + ((n - 1) if n > 1 else 0)  # START, GRID, END + (n-1) COL/ROW separators
    return [rows, cols], tiles, lm


def main():
    tok = Qwen2Tokenizer(vocab={c: i for i, c in enumerate(["a", "b", "Ġ"])}, merges=[], extra_special_tokens={})
    markers = ["<IMG_START>", "<IMG_GRID>", "<IMG_COL>", "<IMG_ROW>", "<IMG_END>"]
    tok.add_special_tokens({"additional_special_tokens": ["<image>", "<IMG_ATOM>"] + markers})
    atom = tok.convert_tokens_to_ids("<IMG_ATOM>")
    mids = {m: tok.convert_tokens_to_ids(m) for m in markers}
    base = len(tok("ab")["input_ids"])
    rows_out, mism = [], 0
    for label, kw in SETTINGS:
        ip = Ovis2ImageProcessorPil(**kw)
        proc = Ovis2Processor(image_processor=ip, tokenizer=tok)
        assert proc.image_seq_length == SEQ
        settings = {k: getattr(ip, k) for k in KEYS}
        settings["size"] = {"height": ip.size["height"], "width": ip.size["width"]}
        side = ip.size["height"]
        for (W, H) in SIZES:
            row = {"family": "ovis2", "processor_class": "Ovis2Processor + Ovis2ImageProcessorPil",
                   "settings": settings, "note": label, "processor_config": {"image_seq_length": SEQ},
                   "width": W, "height": H}
            try:
                out = proc(text=["a<image>b"], images=[Image.new("RGB", (W, H))], return_tensors="pt")
            except Exception as e:  # noqa: BLE001
                row.update(refused=True, error=f"{type(e).__name__}: {str(e)[:120]}", tower_tokens=None,
                           language_model_tokens=None, tiles=None)
                rows_out.append(row)
                print("REFUSED", W, H, e)
                continue
            ids = out["input_ids"][0].tolist()
            grid = [int(x) for x in ip(images=[Image.new("RGB", (W, H))])["grids"][0]]
            tiles = int(out["pixel_values"].shape[0])
            assert tuple(out["pixel_values"].shape[1:]) == (3, side, side)
            lm = len(ids) - base
            n_atom = ids.count(atom)
            counts = {m: ids.count(i) for m, i in mids.items()}
            g_side = side // PATCH
            cf_grid, cf_tiles, cf_lm = closed_form(W, H, settings)
            ok = cf_grid == grid and cf_tiles == tiles and cf_lm == lm and n_atom == SEQ * tiles
            mism += not ok
            row.update(
                tower_tokens=tiles * g_side * g_side,
                language_model_tokens=lm,
                tiles=tiles,
                grid=grid,
                image_atoms=n_atom,
                marker_tokens=counts,
                tower_tokens_per_tile=g_side * g_side,
                closed_form_matches=ok,
            )
            rows_out.append(row)
    with open(OUT, "w") as f:
        for r in rows_out:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(len(rows_out), "rows,", mism, "closed-form mismatches,", sum(r.get("refused", False) for r in rows_out),
          "refused")


if __name__ == "__main__":
    main()
