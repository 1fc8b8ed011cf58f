#!/usr/bin/env python3
"""Image-token ground truth for unlimited_ocr (UnlimitedOcrImageProcessor + UnlimitedOcrProcessor, transformers 5.24).

Run:  HF_HUB_OFFLINE=1 /work/venv/bin/python /work/scratch/unlimited/image_tokens.py
Writes image_rows.jsonl (one row per setting x size) and model_check.jsonl (tiny-model forwards) next to this file,
prints ALL OK when every row matches the closed form and every model forward's features == placeholders.

UnlimitedOcrImageProcessor is torchvision-only and torchvision is not installed: torchvision.transforms.v2.functional
is replaced by the shape-only stand-in of /work/main/crates/core/tests/data/vision/measure_image_tokens.py
(resize -> zeros of the new size, pad -> F.pad, normalize -> identity); the resample passed is the stand-in's BICUBIC
(PIL's BICUBIC maps through a table that torchvision's absence leaves empty). Everything that decides the counts
(tile grid choice, the global-view resize/pad, the refusal for a global side rounding to 0 px, the processor's
placeholder expansion) runs as shipped. The processor is built with a from-scratch word-level tokenizer holding
<image> (nothing downloaded); the prompt is just "<image>", so every token of input_ids is an image placeholder.
"""
import enum
import json
import math
import os
import random
import sys
import types

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import torch
import torch.nn.functional as F
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def install_torchvision_standin():
    from transformers.utils import import_utils

    if "torchvision" in sys.modules:
        return
    assert not import_utils.is_torchvision_available()

    class InterpolationMode(enum.Enum):
        NEAREST = "nearest"
        NEAREST_EXACT = "nearest-exact"
        BILINEAR = "bilinear"
        BICUBIC = "bicubic"
        BOX = "box"
        HAMMING = "hamming"
        LANCZOS = "lanczos"

    fn = types.ModuleType("torchvision.transforms.v2.functional")
    fn.InterpolationMode = InterpolationMode
    fn.resize = lambda image, size, interpolation=None, antialias=True: torch.zeros(
        *image.shape[:-2], *size, dtype=torch.float32)
    fn.pad = lambda image, padding, fill=0, padding_mode="constant": F.pad(
        image, (padding[0], padding[2], padding[1], padding[3]))
    fn.normalize = lambda image, mean, std, inplace=False: image
    fn.grayscale_to_rgb = lambda image: image if image.shape[-3] == 3 else image.expand(*image.shape[:-3], 3,
                                                                                           *image.shape[-2:])
    tv, tr, v2 = (types.ModuleType(n) for n in ("torchvision", "torchvision.transforms", "torchvision.transforms.v2"))
    v2.functional, tr.v2, tv.transforms = fn, v2, tr
    for name, module in [("torchvision", tv), ("torchvision.transforms", tr), ("torchvision.transforms.v2", v2),
                         ("torchvision.transforms.v2.functional", fn)]:
        sys.modules[name] = module
    import transformers.image_processing_backends as backends
    backends.tvF = fn


def word_tokenizer(specials, words=("x",)):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, **{w: 1 + i for i, w in enumerate(words)}}
    vocab.update({s: len(vocab) + i for i, s in enumerate(specials)})
    wm = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    wm.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=wm, unk_token="[UNK]")
    tok.add_special_tokens({"additional_special_tokens": list(specials)})
    return tok


install_torchvision_standin()
from transformers import processing_utils  # noqa: E402

processing_utils.ProcessorMixin.check_argument_for_proper_class = lambda self, name, arg: None
import transformers.models.unlimited_ocr.image_processing_unlimited_ocr as ipm  # noqa: E402
from transformers.models.unlimited_ocr.processing_unlimited_ocr import UnlimitedOcrProcessor  # noqa: E402

BICUBIC = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC

# ---------------------------------------------------------------- sizes
FIXED = [
    (1, 1), (2, 3), (1, 2000), (2000, 1), (4000, 10), (10, 4000), (640, 640), (641, 641), (640, 641), (641, 640),
    (1024, 1024), (1920, 1080), (1080, 1920), (4032, 3024), (3024, 4032), (3508, 2480), (2480, 3508),
    (8000, 8000), (1, 2047), (1, 2048), (2048, 1), (2047, 1), (3, 5000), (5000, 2), (5000, 3), (1280, 640),
    (1281, 640), (1300, 1000), (2000, 1001), (224, 224), (100, 2000), (2000, 100), (1700, 2200), (800, 600),
    (1000, 3000), (3000, 1000), (12000, 300), (700, 20000),
]
rng = random.Random(20240607)
RANDOM = []
while len(RANDOM) < 14:
    w, h = rng.randint(16, 5000), rng.randint(16, 5000)
    if max(w, h) / min(w, h) < 50:
        RANDOM.append((w, h))
SIZES = FIXED + RANDOM

# (preprocessor_config.json settings, note). Keys: every image-processor key that the count depends on plus
# maximum_pad_value (read by the global-view resize; it never changes a count).
DEFAULTS = dict(size={"height": 1024, "width": 1024}, crop_to_patches=True, min_patches=2, max_patches=32,
                tile_size=640, maximum_pad_value=640)
SETTINGS = [
    ("class defaults", dict(DEFAULTS)),
    ("crop_to_patches off (the documented multi-page call)", {**DEFAULTS, "crop_to_patches": False}),
    ("made up: 1280 global, 512 tiles, 1..12 tiles", {**DEFAULTS, "size": {"height": 1280, "width": 1280},
                                                      "tile_size": 512, "min_patches": 1, "max_patches": 12}),
    ("made up: small global <= maximum_pad_value, no crops", {**DEFAULTS, "size": {"height": 512, "width": 512},
                                                              "crop_to_patches": False}),
]
PROC_SETTINGS = {"patch_size": 16, "downsample_ratio": 4}  # UnlimitedOcrProcessor (processor_config.json) defaults


# ---------------------------------------------------------------- closed form (what the report states)
def supported(mn, mx):
    ar = [(c, r) for c in range(1, mx + 1) for r in range(1, mx + 1) if mn <= c * r <= mx]
    return sorted(ar, key=lambda x: x[0] * x[1])


def best_grid(h, w, t, mn, mx):
    ar, area = w / h, w * h
    best, bd = (1, 1), float("inf")
    for c, r in supported(mn, mx):
        d = abs(ar - c / r)
        if d < bd:
            bd, best = d, (c, r)
        elif d == bd and area > 0.5 * t * t * c * r:
            best = (c, r)
    return best


def closed_form(w, h, s):
    S = max(s["size"]["height"], s["size"]["width"])
    T = s["tile_size"]
    p, dr = PROC_SETTINGS["patch_size"], PROC_SETTINGS["downsample_ratio"]
    if s["crop_to_patches"] and max(w, h) > T:
        cols, rows = best_grid(h, w, T, s["min_patches"], s["max_patches"])
        n = cols * rows
    else:
        cols, rows, n = 1, 1, 0
    # global view: refused when its short side rounds to 0 px (SizeDict(height=0) fails TorchvisionBackend.resize)
    if not (not s["crop_to_patches"] and S <= s["maximum_pad_value"]):
        sc = S / max(h, w)
        if round(h * sc) == 0 or round(w * sc) == 0:
            return None
    qg = math.ceil(S // p / dr)
    ql = math.ceil(T // p / dr)
    lm = qg * (qg + 1) + 1 + (rows * ql * (cols * ql + 1) if n else 0)
    sam = (S // p) ** 2 + n * (T // p) ** 2
    clip = (qg * qg + 1) + n * (ql * ql + 1)
    return dict(cols=cols, rows=rows, n=n, lm=lm, sam=sam, clip=clip, qg=qg, ql=ql)


def main():
    tok = word_tokenizer(["<image>"])
    image_id = tok.convert_tokens_to_ids("<image>")
    rows, ok = [], True
    cls = "UnlimitedOcrImageProcessor (shape-only torchvision stand-in) + UnlimitedOcrProcessor"
    procs = []
    for note, s in SETTINGS:
        ip = ipm.UnlimitedOcrImageProcessor(**s)
        procs.append((note, s, UnlimitedOcrProcessor(image_processor=ip, tokenizer=tok, **PROC_SETTINGS)))
    for note, s, proc in procs:
        for (w, h) in SIZES:
            cf = closed_form(w, h, s)
            row = {"family": "unlimited_ocr", "processor_class": cls, "settings": s, "width": w, "height": h}
            try:
                out = proc(images=[Image.new("RGB", (w, h))], text=["<image>"], return_tensors="pt",
                           resample=BICUBIC)
            except ValueError as e:
                row.update(tower_tokens=None, language_model_tokens=None, tiles=None, refused=True,
                           error=str(e)[:120], note=note, processor_settings=PROC_SETTINGS)
                row["matches_closed_form"] = cf is None
                ok &= cf is None
                rows.append(row)
                continue
            ids = [int(i) for i in out["input_ids"][0]]
            n = int(out["num_local_patches"][0])
            cols, rr = (int(x) for x in out["patches_grid"][0])
            side = int(out["pixel_values"].shape[-1])
            assert out["pixel_values"].shape[-2] == side
            tile = int(out["pixel_values_local"].shape[-1]) if n else None
            if n:
                assert out["pixel_values_local"].shape[0] == n and out["pixel_values_local"].shape[-2] == tile
            p = PROC_SETTINGS["patch_size"]
            sam_per_view = [(side // p) ** 2] + ([(tile // p) ** 2] * n if n else [])
            q = lambda g: -(-(-(-g // 2)) // 2)  # SAM's two stride-2, pad-1, k3 convolutions: ceil(ceil(g/2)/2)
            clip_per_view = [q(side // p) ** 2 + 1] + ([q(tile // p) ** 2 + 1] * n if n else [])
            helper = proc.image_processor.get_number_of_image_patches(h, w, {})
            row.update(tower_tokens=sum(sam_per_view), language_model_tokens=len(ids), tiles=1 + n, refused=False,
                       grid=[rr, cols] if n else [1, 1], local_tiles=n, views_px=[side] + [tile] * n,
                       sam_patches_per_view=[sam_per_view[0]] + ([sam_per_view[1]] if n else []),
                       clip_body_tokens=sum(clip_per_view), lm_visual_tokens=sum(c - 1 for c in clip_per_view),
                       placeholders=ids.count(image_id), helper_views=helper, note=note,
                       processor_settings=PROC_SETTINGS)
            good = (cf is not None and cf["lm"] == len(ids) == ids.count(image_id) and cf["n"] == n
                    and cf["sam"] == row["tower_tokens"] and cf["clip"] == row["clip_body_tokens"]
                    and helper == 1 + n and (n == 0 or [cf["cols"], cf["rows"]] == [cols, rr]))
            # the model's features per image: q_g*(q_g+1) + 1 + rows*q_l*(cols*q_l+1): same as placeholders
            row["matches_closed_form"] = good
            ok &= good
            rows.append(row)
    with open(os.path.join(HERE, "image_rows.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(len(rows), "rows,", sum(r["refused"] for r in rows), "refused")

    # ---------------------------------------------------------------- tiny model: features == placeholders
    from transformers import UnlimitedOcrConfig, UnlimitedOcrForConditionalGeneration

    cfg = UnlimitedOcrConfig(
        image_token_id=5,
        text_config=dict(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, n_routed_experts=2, moe_intermediate_size=8,
                         n_shared_experts=1, num_experts_per_tok=1, max_position_embeddings=8192),
        vision_config=dict(
            sam_config=dict(hidden_size=16, output_channels=8, num_hidden_layers=1, num_attention_heads=2,
                            image_size=1024, patch_size=16, window_size=14, global_attn_indexes=[],
                            mlp_dim=16, downsample_channels=[8, 16]),
            encoder_config=dict(hidden_size=16, intermediate_size=16, num_hidden_layers=1, num_attention_heads=2,
                                image_size=224, patch_size=14)))
    torch.manual_seed(0)
    model = UnlimitedOcrForConditionalGeneration(cfg).eval()
    checks = []
    for si, (w, h) in [(0, (1, 1)), (0, (641, 641)), (0, (1920, 1080)), (0, (10, 4000)), (1, (4032, 3024)),
                       (2, (1920, 1080)), (2, (700, 300)), (3, (3508, 2480))]:
        note, s, proc = procs[si]
        out = proc(images=[Image.new("RGB", (w, h))], text=["<image>"], return_tensors="pt", resample=BICUBIC)
        ids = out["input_ids"].clone()
        ids[ids == image_id] = 5
        kw = dict(pixel_values=out["pixel_values"].float(), num_local_patches=out["num_local_patches"],
                  patches_grid=out["patches_grid"])
        if "pixel_values_local" in out:
            kw["pixel_values_local"] = out["pixel_values_local"].float()
        with torch.no_grad():
            feats = model.get_image_features(**kw).pooler_output
            res = model(input_ids=ids, use_cache=False, **kw)
        nf = sum(int(f.shape[0]) for f in feats)
        ph = int((ids == 5).sum())
        c = {"setting": note, "width": w, "height": h, "features": nf, "placeholders": ph,
             "forward_ok": tuple(res.logits.shape) == (1, ids.shape[1], 64), "match": nf == ph}
        checks.append(c)
        ok &= c["match"] and c["forward_ok"]
        print(c, flush=True)
    with open(os.path.join(HERE, "model_check.jsonl"), "w") as f:
        for c in checks:
            f.write(json.dumps(c) + "\n")
    print("ALL OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
