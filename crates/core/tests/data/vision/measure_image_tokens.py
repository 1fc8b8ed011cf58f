#!/usr/bin/env python3
"""Ground-truth image token counts from transformers' own image processors.

Run offline (no Hub):  HF_HUB_OFFLINE=1 /work/venv/bin/python measure_image_tokens.py
Every processor is constructed from its class with explicit kwargs (class
defaults + the checkpoint settings listed per family), never from_pretrained.
Each (family, settings, W, H) row comes from actually running the processor on
PIL.Image.new("RGB", (W, H)); where the library also has a closed-form helper
(get_number_of_image_patches / _get_number_of_features) it is cross-checked and
recorded as "helper_*" fields.

torchvision is not installed in the measuring venv, so the *Pil backend classes
are used (transformers 5.x ships both; the non-Pil names fall back to them).
"""
import json
import os
import random
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import PIL
import torch
import transformers
from PIL import Image
from transformers import (
    Gemma3ImageProcessorPil,
    GotOcr2ImageProcessorPil,
    Idefics3ImageProcessorPil,
    LlavaNextImageProcessorPil,
    LlavaNextProcessor,
    MllamaImageProcessorPil,
    PixtralImageProcessorPil,
    Qwen2VLImageProcessorPil,
    SmolVLMImageProcessorPil,
)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "image_tokens.jsonl")

FIXED = [
    (224, 224), (336, 336), (448, 448), (640, 480), (1024, 768), (1280, 720),
    (1920, 1080), (4032, 3024), (3024, 4032), (1700, 2200), (100, 2000), (2000, 100),
    (28, 28), (56, 28), (8000, 8000),
    # rounding edge cases (Python round() is round-half-to-even)
    (42, 42), (70, 70), (98, 98), (800, 600), (600, 800), (1000, 1000), (512, 512),
    (2048, 2048), (4096, 4096), (3000, 1000), (1000, 3000), (1025, 1025), (1456, 1456),
]
rng = random.Random(20240607)
RANDOM = []
while len(RANDOM) < 17:
    w, h = rng.randint(16, 5000), rng.randint(16, 5000)
    if max(w, h) / min(w, h) < 50:
        RANDOM.append((w, h))
SIZES = FIXED + RANDOM

_img_cache = {}


def img(w, h):
    key = (w, h)
    if key not in _img_cache:
        _img_cache.clear()
        _img_cache[key] = Image.new("RGB", (w, h))
    return _img_cache[key]


rows = []


def emit(family, cls, settings, w, h, tower, lm, **extra):
    r = {"family": family, "processor_class": cls, "settings": settings, "width": w, "height": h,
         "tower_tokens": tower, "language_model_tokens": lm}
    r.update(extra)
    rows.append(r)


def t(x):
    return x.tolist() if hasattr(x, "tolist") else x


def run_family(name, fn):
    for (w, h) in SIZES:
        try:
            fn(w, h)
        except Exception as e:  # record, do not hide
            emit(name, "?", {}, w, h, None, None, error=f"{type(e).__name__}: {e}")
    print(name, "done", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- 1. Qwen
QWEN = [
    ("qwen2_vl", "class defaults (= Qwen2.5-VL brief: min 3136, max 1003520)",
     dict(size={"shortest_edge": 3136, "longest_edge": 1003520}, patch_size=14, merge_size=2)),
    ("qwen2_vl", "Qwen2-VL / Qwen2.5-VL preprocessor_config max_pixels 12845056",
     dict(size={"shortest_edge": 3136, "longest_edge": 12845056}, patch_size=14, merge_size=2)),
    ("qwen3_vl", "Qwen3-VL / Qwen3.5 preprocessor_config (Qwen2VLImageProcessor, patch 16)",
     dict(size={"shortest_edge": 65536, "longest_edge": 16777216}, patch_size=16, merge_size=2)),
]
qwen_procs = [(fam, note, kw, Qwen2VLImageProcessorPil(**kw)) for fam, note, kw in QWEN]


def qwen(w, h):
    for fam, note, kw, p in qwen_procs:
        out = p(images=[img(w, h)], return_tensors="pt")
        tt, gh, gw = t(out["image_grid_thw"][0])
        tower = tt * gh * gw
        m = kw["merge_size"]
        helper = p.get_number_of_image_patches(h, w, {})
        emit(fam, "Qwen2VLImageProcessor(Pil)", {**kw, "note": note}, w, h, tower, tower // (m * m),
             grid=[tt, gh, gw], resized=[gh * kw["patch_size"], gw * kw["patch_size"]],
             helper_patches=helper, helper_matches=helper == tower)


# ---------------------------------------------------------------- 2. InternVL
ivl_kw = dict(crop_to_patches=True, size={"height": 448, "width": 448}, min_patches=1, max_patches=12)
ivl = GotOcr2ImageProcessorPil(**ivl_kw)


def internvl(w, h):
    out = ivl(images=[img(w, h)], return_tensors="pt")
    n = int(t(out["num_patches"])[0])
    helper = ivl.get_number_of_image_patches(h, w, {})
    from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import get_optimal_tiled_canvas
    cols, rws = get_optimal_tiled_canvas((h, w), (448, 448), 1, 12)
    emit("internvl", "GotOcr2ImageProcessor(Pil) as used by InternVLProcessor",
         {**ivl_kw, "tokens_per_tile": 256}, w, h, n * 1025, n * 256, tiles=n, grid=[rws, cols],
         thumbnail=n > 1, lm_tokens_with_img_start_end=n * 256 + 2,
         helper_patches=helper, helper_matches=helper == n)


# ---------------------------------------------------------------- 3. LLaVA-NeXT
PIN = [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]
lln_kw = dict(size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}, image_grid_pinpoints=PIN)
lln_ip = LlavaNextImageProcessorPil(**lln_kw)
# LlavaNextProcessor.__init__ needs a tokenizer; build the object bare and set the
# attributes _get_number_of_features reads (values from llava-hf v1.6 processor_config).
lln = LlavaNextProcessor.__new__(LlavaNextProcessor)
lln.image_processor = lln_ip
lln.patch_size = 14
lln.num_additional_image_tokens = 1
lln.vision_feature_select_strategy = "default"


def llava_next(w, h):
    from transformers.image_processing_utils import select_best_resolution
    out = lln_ip(images=[img(w, h)], return_tensors="pt")
    npatch = out["pixel_values"].shape[1]  # anyres crops + base image
    feats = lln._get_number_of_features(h, w, 336, 336)
    lm = feats - 1  # replace_image_token: -1 when vision_feature_select_strategy == "default"
    bh, bw = select_best_resolution([h, w], PIN)
    emit("llava_next", "LlavaNextImageProcessor(Pil) + LlavaNextProcessor._get_number_of_features",
         {**lln_kw, "patch_size": 14, "num_additional_image_tokens": 1,
          "vision_feature_select_strategy": "default"},
         w, h, npatch * 577, lm, tiles=npatch, best_resolution=[bh, bw], grid=[bh // 336, bw // 336])


# ---------------------------------------------------------------- 3b. LLaVA-OneVision
# LlavaOnevisionImageProcessorPil does not import in 5.24 (it asks image_utils for a
# PILImageResampling that is gone) and the torchvision backend is not installed, so
# only the processor's closed form is run: LlavaOnevisionProcessor._get_number_of_features
# (what replace_image_token writes for a single image; strategy "full" keeps every
# feature) on the image processor's class defaults (384 px tiles, the 36 pinpoints of
# 1..6 x 1..6 tiles) with num_image_tokens 729 (SigLIP 384/14, no CLS) and anyres_max_9.
# tiles = the best pinpoint's grid + the base image (get_image_patches).
from transformers import LlavaOnevisionProcessor
OV_PIN = [[h * 384, w * 384] for h in range(1, 7) for w in range(1, 7)]
ov = LlavaOnevisionProcessor.__new__(LlavaOnevisionProcessor)
ov.image_processor = type("OvImageProcessor", (), {"image_grid_pinpoints": OV_PIN})()
ov.num_image_tokens = 729
ov.vision_aspect_ratio = "anyres_max_9"
ov.vision_feature_select_strategy = "full"


def llava_onevision(w, h):
    from transformers.image_processing_utils import select_best_resolution
    lm = ov._get_number_of_features(h, w, 384, 384)
    bh, bw = select_best_resolution([h, w], OV_PIN)
    tiles = (bh // 384) * (bw // 384) + 1
    emit("llava_onevision", "LlavaOnevisionProcessor._get_number_of_features (closed form only)",
         {"crop": 384, "patch_size": 14, "num_image_tokens": 729, "vision_aspect_ratio": "anyres_max_9",
          "vision_feature_select_strategy": "full", "image_grid_pinpoints": OV_PIN},
         w, h, tiles * 729, lm, tiles=tiles, best_resolution=[bh, bw], grid=[bh // 384, bw // 384])


# ---------------------------------------------------------------- 4. Idefics3 / SmolVLM
IDF = [
    ("idefics3", Idefics3ImageProcessorPil, "Idefics3ImageProcessor(Pil)", "class defaults = Idefics3-8B",
     dict(do_image_splitting=True, size={"longest_edge": 1456}, max_image_size={"longest_edge": 364}), 169),
    ("smolvlm", SmolVLMImageProcessorPil, "SmolVLMImageProcessor(Pil)", "class defaults (processor image_seq_len default 169)",
     dict(do_image_splitting=True, size={"longest_edge": 1456}, max_image_size={"longest_edge": 364}), 169),
    ("smolvlm", SmolVLMImageProcessorPil, "SmolVLMImageProcessor(Pil)", "SmolVLM-256M/500M-Instruct checkpoint",
     dict(do_image_splitting=True, size={"longest_edge": 2048}, max_image_size={"longest_edge": 512}), 64),
    ("smolvlm", SmolVLMImageProcessorPil, "SmolVLMImageProcessor(Pil)", "SmolVLM(2)-2.2B checkpoint",
     dict(do_image_splitting=True, size={"longest_edge": 1536}, max_image_size={"longest_edge": 384}), 81),
]
idf_procs = [(f, c(**kw), cn, note, kw, s) for f, c, cn, note, kw, s in IDF]


def idefics(w, h):
    for fam, p, cn, note, kw, seq in idf_procs:
        out = p(images=[[img(w, h)]], return_row_col_info=True, return_tensors="pt")
        r, c = int(out["rows"][0][0]), int(out["cols"][0][0])
        n = int(out["pixel_values"].shape[1])
        hp, hr, hc = p.get_number_of_image_patches(h, w, {})
        vp = 16 if seq == 64 else 14  # SigLIP patch: 16 for SmolVLM-256M/500M, else 14
        per_tile = (kw["max_image_size"]["longest_edge"] // vp) ** 2
        emit(fam, cn, {**kw, "image_seq_len": seq, "vision_patch_size": vp, "note": note}, w, h, n * per_tile, n * seq,
             tiles=n, grid=[r, c], global_image=True,
             helper_patches=hp, helper_grid=[hr, hc], helper_matches=(hr, hc) == (r, c))


# ---------------------------------------------------------------- 5. Gemma 3
G_BASE = dict(size={"height": 896, "width": 896}, pan_and_scan_min_crop_size=256,
              pan_and_scan_max_num_crops=4, pan_and_scan_min_ratio_to_activate=1.2)
g_procs = [(pas, Gemma3ImageProcessorPil(**G_BASE, do_pan_and_scan=pas)) for pas in (False, True)]


def gemma3(w, h):
    for pas, p in g_procs:
        out = p(images=[img(w, h)], return_tensors="pt")
        crops = int(t(out["num_crops"])[0])
        n = int(out["pixel_values"].shape[0])
        assert n == crops + 1
        emit("gemma3", "Gemma3ImageProcessor(Pil)", {**G_BASE, "do_pan_and_scan": pas, "image_seq_length": 256},
             w, h, n * 4096, n * 256, tiles=n, num_crops=crops)


# ---------------------------------------------------------------- 6. Pixtral
PIX = [
    ("Pixtral-12B", dict(size={"longest_edge": 1024}, patch_size={"height": 16, "width": 16}), 16, 1),
    ("Mistral-Small-3.1 (patch 14 x spatial_merge 2 = 28)",
     dict(size={"longest_edge": 1540}, patch_size={"height": 28, "width": 28}), 14, 2),
]
pix_procs = [(n, kw, ps, m, PixtralImageProcessorPil(**kw)) for n, kw, ps, m in PIX]


def pixtral(w, h):
    for note, kw, ps, m, p in pix_procs:
        out = p(images=[img(w, h)], return_tensors="pt")
        rh, rw = [int(x) for x in t(out["image_sizes"][0])]
        step = ps * m
        r, c = rh // step, rw // step
        # PixtralProcessor.replace_image_token: ([IMG]*c + [IMG_BREAK]) * r, last -> [IMG_END]
        emit("pixtral", "PixtralImageProcessor(Pil)", {**kw, "vision_patch_size": ps, "spatial_merge_size": m, "note": note},
             w, h, r * c * m * m, r * c + r, grid=[r, c], resized=[rh, rw],
             img_tokens=r * c, img_break_tokens=r - 1, img_end_tokens=1)


# ---------------------------------------------------------------- 7. Mllama
ml_kw = dict(size={"height": 560, "width": 560}, max_image_tiles=4)
ml = MllamaImageProcessorPil(**ml_kw)


def mllama(w, h):
    out = ml(images=[[img(w, h)]], return_tensors="pt")
    nt = int(t(out["num_tiles"])[0][0])
    arid = int(out["aspect_ratio_ids"][0][0])
    from transformers.models.mllama.image_processing_pil_mllama import get_all_supported_aspect_ratios
    th, tw = get_all_supported_aspect_ratios(4)[arid - 1]
    emit("mllama", "MllamaImageProcessor(Pil)", {**ml_kw, "vision_patch_size": 14}, w, h,
         nt * 1601, 1, tiles=nt, grid=[th, tw], aspect_ratio_id=arid,
         pixel_values_tiles=int(out["pixel_values"].shape[2]),
         padded_tower_tokens=int(out["pixel_values"].shape[2]) * 1601)


if __name__ == "__main__":
    for name, fn in [("qwen", qwen), ("internvl", internvl), ("llava_next", llava_next),
                     ("llava_onevision", llava_onevision),
                     ("idefics3/smolvlm", idefics), ("gemma3", gemma3), ("pixtral", pixtral), ("mllama", mllama)]:
        run_family(name, fn)
        with open(OUT, "w") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"transformers {transformers.__version__} torch {torch.__version__} pillow {PIL.__version__}; "
          f"{len(rows)} rows -> {OUT}", file=sys.stderr)
