# Image-token closed form for transformers' Phi4MultimodalImageProcessor (dynamic HD crops), checked against
# the real image processor on synthetic PIL images, and (for a subset) against the model's image-embedding
# path (tiny CPU model with the real 448/14 vision geometry) to prove processor count == model output rows.
# Run: HF_HUB_OFFLINE=1 PYTHONPATH=/work/scratch/tvstub /work/venv/bin/python phi4mm_image_tokens.py
import math

import torch
import torchvision.transforms.v2.functional as _tvF
from PIL import Image
from transformers import (
    Phi4MultimodalAudioConfig,
    Phi4MultimodalConfig,
    Phi4MultimodalImageProcessor,
    Phi4MultimodalVisionConfig,
)

# The offline torchvision stub's pad() only accepts a scalar fill; the processor passes [255,255,255].
# Shapes/masks do not depend on the fill value, so collapse the list to a scalar.
_orig_pad = _tvF.pad


def _pad(img, padding, fill=0, padding_mode="constant"):
    if isinstance(fill, (list, tuple)):
        fill = float(fill[0])
    return _orig_pad(img, padding, fill=fill, padding_mode=padding_mode)


_tvF.pad = _pad


# ------------------------------------------------------------------ closed form
def choose_grid(W, H, S=448, max_num=36, min_num=1, exact_python_order=True):
    """Returns (i, j) = (#crops along width, #crops along height)."""
    wc, hc = math.ceil(W / S), math.ceil(H / S)
    if wc * hc <= max_num:
        return wc, hc
    ar = W / H
    cands = {(i, j) for n in range(min_num, max_num + 1) for i in range(1, n + 1) for j in range(1, n + 1)
             if min_num <= i * j <= max_num}
    if exact_python_order:
        cands = sorted(cands, key=lambda x: x[0] * x[1])  # same as HF (set order among equal products)
    else:
        cands = sorted(cands, key=lambda x: (x[0] * x[1], x[0]))  # deterministic order a Rust port would use
    best_diff, best = float("inf"), (1, 1)
    area = W * H
    for i, j in cands:
        d = abs(ar - i / j)
        if d < best_diff:
            best_diff, best = d, (i, j)
        elif d == best_diff and area > 0.5 * S * S * i * j:
            best = (i, j)
    return best


def image_tokens(W, H, S=448, p=14, max_num=36, exact_python_order=True):
    """Returns dict with the grid, valid mask extents and the number of <|image|> tokens the processor inserts.
    Raises ValueError like the processor for too-extreme aspect ratios."""
    i, j = choose_grid(W, H, S, max_num, exact_python_order=exact_python_order)
    TW, TH = S * i, S * j
    rw, rh = TW / W, TH / H
    if rw < rh:
        new_w, new_h = TW, int(H * rw)
        pad_w, pad_h = 0, TH - new_h
    else:
        new_w, new_h = int(W * rh), TH
        pad_w, pad_h = TW - new_w, 0
    if min(new_h, TH) < 10 or min(new_w, TW) < 10:
        raise ValueError("extreme aspect ratio")
    m = S // p  # 32 patches per crop side
    R = j * m - pad_h // p  # valid patch rows over the whole HD canvas
    C = i * m - pad_w // p  # valid patch cols
    # 2x2 subsample (crop-local even indices). For even m this is ceil(R/2), ceil(C/2).
    rows_ds = sum(math.ceil(min(max(R - k * m, 0), m) / 2) for k in range(j))
    cols_ds = sum(math.ceil(min(max(C - k * m, 0), m) / 2) for k in range(i))
    # processor: 256 (global 16x16) + 1 (glb/sub separator) + rows_ds*cols_ds + rows_ds (row newlines) + 16
    tokens = 256 + 1 + rows_ds * cols_ds + rows_ds + 16
    crops = 1 + i * j
    return dict(grid=(i, j), R=R, C=C, rows_ds=rows_ds, cols_ds=cols_ds, tokens=tokens, crops=crops,
                tower_patches=crops * m * m)


# ------------------------------------------------------------------ check against the processor
ip = Phi4MultimodalImageProcessor()
sizes = [
    (1, 1), (2, 2), (10, 10), (13, 9), (100, 100), (447, 447), (448, 448), (449, 448), (448, 449), (500, 300),
    (640, 480), (800, 600), (1024, 768), (1280, 720), (1920, 1080), (1080, 1920), (2048, 2048), (2688, 2688),
    (2689, 2688), (3000, 2000), (4032, 3024), (3024, 4032), (5000, 5000), (8000, 8000), (20, 5000), (5000, 20),
    (50, 5000), (5000, 50), (100, 16000), (16000, 100), (300, 10000), (12000, 700), (7000, 1000), (1000, 7000),
    (896, 14), (14, 896), (33, 4400), (4400, 33), (3000, 600), (777, 3333), (6000, 4000), (1500, 9000),
    (15, 448), (448, 15), (400, 1000), (1, 5000), (5000, 1), (3, 9000), (9, 448), (448, 9),
]
import random

random.seed(1234)
sizes += [(random.randint(1, 3000), random.randint(1, 3000)) for _ in range(25)]
ok = True
nraise = 0
print(f"{'W x H':>13} {'grid':>8} {'R':>5} {'C':>5} {'rds':>4} {'cds':>4} {'tokens':>7} {'crops':>5} {'tower':>7}  proc")
for W, H in sizes:
    try:
        f = image_tokens(W, H)
    except ValueError:
        f = None
    try:
        out = ip(Image.new("RGB", (W, H), (120, 30, 200)), return_tensors="pt")
        pt = int(out["num_img_tokens"][0])
        crops = out["image_pixel_values"].shape[1]
        hs, ws = out["image_sizes"][0].tolist()
    except ValueError:
        out = None
    if f is None or out is None:
        nraise += 1
        good = f is None and out is None
        print(f"{W:>6}x{H:<6} raises ValueError (extreme aspect)  formula_raises={f is None} proc_raises={out is None}"
              f"  {'ok' if good else 'MISMATCH'}")
        ok &= good
        continue
    good = (pt == f["tokens"] and crops == f["crops"] and (ws // 448, hs // 448) == f["grid"])
    ok &= good
    print(f"{W:>6}x{H:<6} {str(f['grid']):>8} {f['R']:>5} {f['C']:>5} {f['rows_ds']:>4} {f['cols_ds']:>4} "
          f"{f['tokens']:>7} {f['crops']:>5} {f['tower_patches']:>7}  {pt} {'ok' if good else 'MISMATCH'}")
print(f"{len(sizes)} sizes checked against the processor ({nraise} raise)")

# batch: crops are padded to the batch max (pad crops: zero pixels, all-ones mask) -> tower processes B*max_crops
b = ip([Image.new("RGB", (448, 448)), Image.new("RGB", (1920, 1080))], return_tensors="pt")
exp_max = max(image_tokens(448, 448)["crops"], image_tokens(1920, 1080)["crops"])
good = b["image_pixel_values"].shape[:2] == (2, exp_max) and list(b["num_img_tokens"]) == [
    image_tokens(448, 448)["tokens"], image_tokens(1920, 1080)["tokens"]]
ok &= good
print("batch padding of crops:", tuple(b["image_pixel_values"].shape), "ok" if good else "MISMATCH")

# ------------------------------------------------------------------ Rust-order vs HF set-order sweep
diff = 0
tot = 0
for W in list(range(1, 9000, 37)):
    for H in (W * 3 // 2, W * 2 // 3, W * 5, max(1, W // 5), W * 13 // 12, W * 12 // 13):
        if H < 1:
            continue
        tot += 1
        if choose_grid(W, H) != choose_grid(W, H, exact_python_order=False):
            diff += 1
print(f"grid choice, HF set order vs (product,i) order: {diff} differences in {tot} sizes")

# ------------------------------------------------------------------ model-side check (tiny CPU model)
cfg = Phi4MultimodalConfig(
    vocab_size=200064, hidden_size=16, intermediate_size=16, num_hidden_layers=1, num_attention_heads=2,
    num_key_value_heads=1,
    vision_config=Phi4MultimodalVisionConfig(hidden_size=8, intermediate_size=8, num_hidden_layers=2,
                                             num_attention_heads=2),
    audio_config=Phi4MultimodalAudioConfig(hidden_size=8, intermediate_size=8, num_blocks=1, num_attention_heads=2,
                                           ext_pw_out_channel=8, depthwise_separable_out_channel=8,
                                           nemo_conv_channels=4),
)
from transformers.models.phi4_multimodal.modeling_phi4_multimodal import Phi4MultimodalImageEmbedding

torch.manual_seed(0)
emb = Phi4MultimodalImageEmbedding(cfg).eval()
img_id = cfg.vision_config.image_token_id
for W, H in [(1, 1), (448, 448), (640, 480), (20, 5000), (5000, 20), (1920, 1080), (300, 10000), (4032, 3024)]:
    out = ip(Image.new("RGB", (W, H)), return_tensors="pt")
    nt = int(out["num_img_tokens"][0])
    ids = torch.full((1, nt + 3), 5)
    ids[0, 1:1 + nt] = img_id
    with torch.no_grad():
        res = emb(ids, torch.zeros(1, nt + 3, 16), out["image_pixel_values"], out["image_sizes"],
                  out["image_attention_mask"])
    good = res.shape == (1, nt + 3, 16) and nt == image_tokens(W, H)["tokens"]
    # a mismatch would raise in index_put (values rows != number of image tokens)
    ok &= good
    print(f"model embed rows == processor tokens for {W}x{H}: {nt} {'ok' if good else 'MISMATCH'}")

print("\nALL OK" if ok else "\nSOME MISMATCH")
