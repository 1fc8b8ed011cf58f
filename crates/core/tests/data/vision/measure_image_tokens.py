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
Llama 4's processor has no Pil class: section 8 runs its own _preprocess with
shape-only stand-ins for torchvision's pixel operations (see there).

Re-measure some families only, keeping the file's other rows:
    python measure_image_tokens.py llama4
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
    Idefics2ImageProcessorPil,
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


# ---------------------------------------------------------------- 1b. GLM-4.1V / 4.5V / 4.6V
from transformers import Glm4vImageProcessorPil, Glm46VImageProcessorPil, GlmgaImageProcessorPil

GLM = [
    ("class defaults (size 112*112 to 28*28*15000 pixels)", Glm4vImageProcessorPil, {}),
    ("GLM-4.1V / GLM-4.6V preprocessor_config (longest_edge 9633792)", Glm4vImageProcessorPil,
     dict(size={"shortest_edge": 12544, "longest_edge": 9633792})),
    ("Glm46VImageProcessor class defaults", Glm46VImageProcessorPil, {}),
    # GLM-GA's processor: GLM-4.6V's with the alignment times patch_expand_factor (1 by default)
    ("GlmgaImageProcessor class defaults", GlmgaImageProcessorPil, {}),
]
glm_procs = [(note, cls(**kw)) for note, cls, kw in GLM]
# sides under patch * merge (scaled up first) and aspect ratios near 200 after that upscale
GLM_EXTRA = [(1, 1), (10, 10), (27, 500), (3, 600), (70, 42), (100, 50), (333, 777), (5000, 40), (40, 5000),
             (1, 300), (5000, 20), (27, 5400), (2, 300)]


def glm4v(w, h):
    for note, p in glm_procs:
        settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size,
                    "temporal_patch_size": p.temporal_patch_size, "note": note}
        try:
            out = p(images=[img(w, h)], return_tensors="pt")
        except ValueError as e:  # the processor refuses the size: so must we
            emit("glm4v", type(p).__name__, settings, w, h, None, None, refused=str(e)[:120])
            continue
        tt, gh, gw = t(out["image_grid_thw"][0])
        tower = tt * gh * gw
        m = p.merge_size
        emit("glm4v", type(p).__name__, settings, w, h, tower, tower // (m * m), grid=[tt, gh, gw],
             resized=[gh * p.patch_size, gw * p.patch_size])


# ---------------------------------------------------------------- 1c. Gemma 4
# Gemma4ImageProcessorPil under three budgets (`max_soft_tokens`), and Gemma4Processor's
# prompt: a from-scratch GemmaTokenizer carrying Gemma 4's image tokens (nothing downloaded),
# whose `<|image|>` expands to `<|image>` + one `<|image|>` per cell + `<image|>`.
GEMMA4_BUDGETS = [280, 70, 1120]
# tiny images (scaled up), extreme aspect ratios (one side collapses to one cell), and sizes
# where the processor's f64 arithmetic floors below the exact square root (1190 x 17)
GEMMA4_EXTRA = [(1, 1), (8, 8), (15, 40), (47, 47), (48, 48), (49, 49), (1, 2000), (2000, 1), (3000, 10),
                (10, 3000), (250, 1), (595, 34), (154, 55), (1190, 17), (385, 22), (770, 11), (847, 20)]


def gemma4_setup():
    from transformers import GemmaTokenizer
    from transformers.models.gemma4 import Gemma4ImageProcessorPil, Gemma4Processor, Gemma4VideoProcessor
    from transformers.models.gemma4.feature_extraction_gemma4 import Gemma4AudioFeatureExtractor
    tok = GemmaTokenizer(extra_special_tokens={
        "image_token": "<|image|>", "boi_token": "<|image>", "eoi_token": "<image|>",
        "audio_token": "<|audio|>", "boa_token": "<|audio>", "eoa_token": "<audio|>"})
    procs = [(S, Gemma4ImageProcessorPil(max_soft_tokens=S)) for S in GEMMA4_BUDGETS]
    prompts = {S: Gemma4Processor(feature_extractor=Gemma4AudioFeatureExtractor(), image_processor=p,
                                  tokenizer=tok, video_processor=Gemma4VideoProcessor()) for S, p in procs}
    base = len(prompts[280](text=["x"], return_tensors="pt").input_ids[0])

    def gemma4(w, h):
        for S, p in procs:
            settings = {"max_soft_tokens": S, "patch_size": p.patch_size,
                        "pooling_kernel_size": p.pooling_kernel_size,
                        "note": "class defaults" if S == 280 else f"max_soft_tokens={S}"}
            out = p(images=[img(w, h)], return_tensors="pt")
            pos = out["image_position_ids"][0]
            real = int((pos != -1).all(-1).sum())
            cells = real // (p.pooling_kernel_size ** 2)
            text = prompts[S](text=["<|image|>x"], images=[img(w, h)], return_tensors="pt")
            lm = len(text.input_ids[0]) - base
            emit("gemma4", type(p).__name__ + " + Gemma4Processor", settings, w, h,
                 int(out["pixel_values"].shape[1]), lm, soft_tokens=cells, real_patches=real,
                 soft_tokens_match=cells == int(out["num_soft_tokens_per_image"][0]))
    return gemma4


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


# ---------------------------------------------------------------- 2b. Aya Vision
# GotOcr2ImageProcessor with crop_to_patches (AyaVisionProcessor turns it on) at the
# CohereLabs/aya-vision-8b preprocessor settings (364 px tiles, 1..12 patches) and at a
# lower max_patches; AyaVisionProcessor built bare with what replace_image_token and
# _get_num_multimodal_tokens read (img_size 364, patch_size 28 = 14 x downsample 2).
from transformers import AyaVisionProcessor

AYA = [
    ("aya-vision-8b preprocessor_config", dict(crop_to_patches=True, size={"height": 364, "width": 364}, min_patches=1, max_patches=12)),
    ("max_patches 6", dict(crop_to_patches=True, size={"height": 364, "width": 364}, min_patches=1, max_patches=6)),
]
aya_procs = []
for note, kw in AYA:
    ip_ = GotOcr2ImageProcessorPil(**kw)
    pr = AyaVisionProcessor.__new__(AyaVisionProcessor)
    pr.image_processor = ip_
    pr.img_size, pr.patch_size = 364, 28
    pr.start_of_img_token, pr.end_of_img_token = "<|START_OF_IMG|>", "<|END_OF_IMG|>"
    pr.img_patch_token, pr.tile_token, pr.tile_global_token = "<|IMG_PATCH|>", "TILE", "TILE_GLOBAL"
    aya_procs.append((note, kw, ip_, pr))


def aya_vision(w, h):
    import re
    marker = re.compile(r"<\|[A-Z_]+\|>|TILE_GLOBAL|TILE_[0-9]+")
    for note, kw, ip_, pr in aya_procs:
        out = ip_(images=[img(w, h)], return_tensors="pt")
        n = int(t(out["num_patches"])[0])
        text = pr.replace_image_token({"num_patches": [n]}, 0)
        tokens = marker.findall(text)
        assert "".join(tokens) == text
        per_tile = (364 // 28) ** 2
        closed = per_tile + 3 + sum(per_tile + 1 for _ in range(1, n))
        emit("aya_vision", "GotOcr2ImageProcessor(Pil) + AyaVisionProcessor.replace_image_token",
             {**kw, "tokens_per_tile": per_tile, "note": note}, w, h, n * (364 // 14) ** 2, len(tokens),
             tiles=n, closed_form_tokens=closed, closed_form_matches=closed == len(tokens))


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


# ---------------------------------------------------------------- 4b. Idefics2
# Idefics2ImageProcessorPil at its class defaults (shortest 378, longest 980, no splitting), with
# do_image_splitting (the four quarters and the image), and at smaller edges with splitting; the
# checkpoint's 14 px tower patch and 64 perceiver latents. pixel_values is (1, images, 3, H, W),
# every image padded to the largest: the tower reads images * (H // 14) * (W // 14) patches.
ID2_SETTINGS = [dict(), dict(do_image_splitting=True),
                dict(size={"shortest_edge": 224, "longest_edge": 448}, do_image_splitting=True)]
id2_procs = [(kw, Idefics2ImageProcessorPil(**kw)) for kw in ID2_SETTINGS]


def idefics2(w, h):
    for kw, p in id2_procs:
        out = p(images=[[img(w, h)]], return_tensors="pt")
        n, _, ph, pw = out["pixel_values"].shape[1:]
        settings = {"size": {"shortest_edge": 378, "longest_edge": 980}, "do_image_splitting": False, **kw,
                    "vision_patch_size": 14, "image_seq_len": 64}
        emit("idefics2", "Idefics2ImageProcessor(Pil)", settings, w, h, n * (ph // 14) * (pw // 14), n * 64,
             tiles=int(n), padded=[int(ph), int(pw)])


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


PIX_EXTRA = [(1, 5000), (5000, 1), (2, 5000), (3, 2000)]  # sides that floor to 0 px: the processor refuses them


def pixtral(w, h):
    for note, kw, ps, m, p in pix_procs:
        try:
            out = p(images=[img(w, h)], return_tensors="pt")
        except (ValueError, RuntimeError, ZeroDivisionError) as e:  # the processor refuses the size: so must we
            emit("pixtral", "PixtralImageProcessor(Pil)", {**kw, "vision_patch_size": ps, "spatial_merge_size": m,
                                                           "note": note}, w, h, None, None,
                 refused=f"{type(e).__name__}: {str(e)[:100]}")
            continue
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


# ---------------------------------------------------------------- 8. Llama 4
# Llama4ImageProcessor exists only as a torchvision-backend class in 5.24 (no Pil twin) and
# torchvision is not installed. Its module is imported with a stand-in for
# torchvision.transforms.v2.functional whose pixel operations keep only the shapes
# (resize -> zeros of the new size, pad -> torch.nn.functional.pad, normalize -> identity);
# everything that decides the tiles runs as shipped: Llama4ImageProcessor._preprocess with
# find_supported_resolutions, get_best_fit, get_max_res_without_distortion and split_to_tiles,
# on a zeros(3, H, W) uint8 image. The stand-in is installed only here, after every other
# family has run and after transformers cached is_torchvision_available() as False.
# The language-model tokens are what Llama4Processor.replace_image_token writes for the image
# (<|image_start|>, per-tile <|patch|> runs with <|tile_x_separator|> / <|tile_y_separator|>,
# <|image|>, the global tile's patches, <|image_end|>), counted token by token; the processor
# is made with __new__ and given patch_size=14 and downsample_ratio=int(round(1 / 0.5**2)) = 4
# (Llama4Processor's defaults, as the Llama 4 checkpoints' processor_config sets them).
L4_EXTRA = [(672, 336), (336, 672), (1344, 336), (1008, 1008), (1344, 1344), (337, 335), (5376, 336),
            (336, 5376), (300, 200), (1680, 1008), (2688, 1344), (3000, 40), (15, 4000)]
L4 = [
    ("class defaults = Llama-4-Scout/Maverick preprocessor_config",
     dict(size={"height": 336, "width": 336}, max_patches=16, resize_to_max_canvas=False), 14),
    ("resize_to_max_canvas", dict(size={"height": 336, "width": 336}, max_patches=16, resize_to_max_canvas=True), 14),
    ("made up: 448 px tiles, at most 6", dict(size={"height": 448, "width": 448}, max_patches=6,
                                              resize_to_max_canvas=False), 14),
]


def install_torchvision_standin():
    """Shape-only stand-ins for the torchvision functions the torchvision-only image
    processors call (resize to zeros of the new size, pad, normalize as identity)."""
    import enum
    import types

    import torch.nn.functional as F
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
    tv, tr, v2 = (types.ModuleType(n) for n in ("torchvision", "torchvision.transforms", "torchvision.transforms.v2"))
    v2.functional, tr.v2, tv.transforms = fn, v2, tr
    for name, module in [("torchvision", tv), ("torchvision.transforms", tr), ("torchvision.transforms.v2", v2),
                         ("torchvision.transforms.v2.functional", fn)]:
        sys.modules[name] = module
    import transformers.image_processing_backends as backends
    backends.tvF = fn


def llama4_setup():
    import re

    install_torchvision_standin()
    from transformers.image_utils import SizeDict
    import transformers.models.llama4.image_processing_llama4 as ip
    from transformers.models.llama4.processing_llama4 import Llama4Processor

    proc = Llama4Processor.__new__(Llama4Processor)
    proc.patch_size = 14
    proc.downsample_ratio = int(round(1.0 / (0.5 ** 2)))
    ip_bare = ip.Llama4ImageProcessor.__new__(ip.Llama4ImageProcessor)
    token = re.compile(r"<\|[a-z_]+\|>")

    def llama4(w, h):
        for note, kw, patch in L4:
            side = kw["size"]["height"]
            out = ip.Llama4ImageProcessor._preprocess(
                ip_bare, [torch.zeros(3, h, w, dtype=torch.uint8)], do_resize=True,
                size=SizeDict(height=side, width=side), resample=None, do_rescale=False, rescale_factor=1 / 255,
                do_normalize=False, image_mean=None, image_std=None, max_patches=kw["max_patches"],
                resize_to_max_canvas=kw["resize_to_max_canvas"], disable_grouping=None, return_tensors=None)
            tiles = int(out["pixel_values"][0].shape[0])
            rh, rw = (int(x) for x in out["aspect_ratios"][0])
            text = proc.replace_image_token(out, 0)
            tokens = token.findall(text)
            assert "".join(tokens) == text
            per_tile = (side // patch) ** 2 // proc.downsample_ratio
            emit("llama4", "Llama4ImageProcessor._preprocess (shape-only pixel ops) + Llama4Processor.replace_image_token",
                 {**kw, "patch_size": patch, "pixel_shuffle_ratio": 0.5, "tokens_per_tile": per_tile, "note": note},
                 w, h, tiles * ((side // patch) ** 2 + 1), len(tokens), tiles=tiles, grid=[rh, rw],
                 global_tile=rh * rw > 1, patch_tokens=tokens.count("<|patch|>"),
                 patch_tokens_match=tokens.count("<|patch|>") == tiles * per_tile)

    return llama4


# ---------------------------------------------------------------- 9. Command A Vision (cohere2_vision)
# Cohere2VisionImageProcessor is torchvision-only: run on a zeros tensor with the shape-only stand-ins, at
# its class defaults (512 px tiles, at most 12), at max_patches 4 and with min_patches 3 (which
# get_optimal_tiled_canvas does not read); the prompt from Cohere2VisionProcessor.replace_image_token
# (built bare, its processor patch_size 16: 256 tokens and a line break per tile, <BOI> and <EOI>).
C2_EXTRA = [(1024, 512), (512, 1024), (1536, 512), (1024, 1024), (2048, 2048), (513, 511), (6144, 512),
            (3072, 1024), (511, 1535)]
C2 = [dict(), dict(max_patches=4), dict(min_patches=3)]


def cohere2_setup():
    import re

    install_torchvision_standin()
    import transformers.models.cohere2_vision.image_processing_cohere2_vision as ip
    from transformers.models.cohere2_vision.processing_cohere2_vision import Cohere2VisionProcessor

    proc = Cohere2VisionProcessor.__new__(Cohere2VisionProcessor)
    proc.patch_size, proc.image_token, proc.img_line_break_token = 16, "<IMG>", "<LB>"
    proc.boi_token, proc.eoi_token = "<BOI>", "<EOI>"
    procs = [(kw, ip.Cohere2VisionImageProcessor(**kw)) for kw in C2]
    token = re.compile(r"<[A-Z]+>")
    # the stand-in's mode (PIL's BICUBIC maps through a table torchvision's absence leaves empty)
    bicubic = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC

    def cohere2(w, h):
        for kw, p in procs:
            out = p(images=[torch.zeros(3, h, w, dtype=torch.uint8)], do_rescale=False, do_normalize=False,
                    do_convert_rgb=False, resample=bicubic)
            n = int(out["num_patches"][0])
            tokens = token.findall(proc.replace_image_token(out, 0))
            settings = {"size": {"height": 512, "width": 512}, "min_patches": 1, "max_patches": 12, **kw,
                        "vision_patch_size": 16, "tokens_per_tile": 256}
            emit("cohere2_vision", "Cohere2VisionImageProcessor (shape-only pixel ops) + replace_image_token",
                 settings, w, h, n * (512 // 16) ** 2, len(tokens), tiles=n,
                 helper_patches=p.get_number_of_image_patches(h, w, {}),
                 helper_matches=p.get_number_of_image_patches(h, w, {}) == n)

    return cohere2


# ---------------------------------------------------------------- 10. Kimi K2.5 (kimi_k25)
# Kimi_K25ImageProcessor is torchvision-only: run with the shape-only stand-ins at its class defaults
# (max_patches 16384, size.max_height 512 patches a side), at max_patches 4096 and at 64 patches a side;
# tower tokens = image_grid_thw's product, language-model tokens = that // merge_size²
# (Kimi_K25Processor.replace_image_token).
K25 = [dict(), dict(max_patches=4096), dict(size={"max_height": 64, "max_width": 64})]


def kimi_k25_setup():
    install_torchvision_standin()
    import transformers.models.kimi_k25.image_processing_kimi_k25 as ip

    bicubic = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC
    procs = [(kw, ip.Kimi_K25ImageProcessor(**kw)) for kw in K25]

    def kimi_k25(w, h):
        for kw, p in procs:
            out = p(images=[torch.zeros(3, h, w, dtype=torch.uint8)], do_rescale=False, do_normalize=False,
                    do_convert_rgb=False, resample=bicubic)
            t_, gh, gw = (int(x) for x in out["image_grid_thw"][0])
            settings = {"size": {"max_height": 512, "max_width": 512}, "max_patches": 16384, **kw,
                        "patch_size": 14, "merge_size": 2}
            helper = p.get_number_of_image_patches(h, w, {})
            emit("kimi_k25", "Kimi_K25ImageProcessor (shape-only pixel ops)", settings, w, h, t_ * gh * gw,
                 t_ * gh * gw // 4, grid=[t_, gh, gw], helper_patches=helper, helper_matches=helper == gh * gw)

    return kimi_k25


# ---------------------------------------------------------------- 11. Step-3.7-Flash (step3p7)
# Step3p7ImageProcessor is torchvision-only: run with the shape-only stand-ins at its class defaults
# (728 px global view, 504 px crops, long side at most 3024), with 336 px crops and with a 2048 px
# limit; Step3p7Processor built bare with what replace_image_token reads (14 px ViT patches, the
# downsamplers' stride 4). Tower tokens: the global view's (728/14)^2 and each crop's (504/14)^2
# patches; language-model tokens: every token replace_image_token writes (features, <patch_start>,
# <patch_end>, <patch_newline>, <im_start>, <im_end>). Extra sizes: images that fit the global view
# but are elongated (the short side becomes the window), very elongated ones and near-degenerate ones
# (under 32 px and over 4:1, padded square).
P7 = [dict(), dict(patch_size=336), dict(max_image_size=2048)]
P7_EXTRA = [(600, 300), (300, 600), (700, 460), (728, 485), (20, 200), (31, 500), (500, 120), (3000, 500),
            (500, 3000), (1100, 700), (800, 780), (4000, 3000), (2600, 600), (1008, 1008), (1009, 605)]


def step3p7_setup():
    import re
    install_torchvision_standin()
    import transformers.models.step3p7.image_processing_step3p7 as ip
    import transformers.models.step3p7.processing_step3p7 as pp

    bicubic = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC
    token = re.compile(r"<[a-z_]+>")

    def step3p7(w, h):
        for kw in P7:
            p = ip.Step3p7ImageProcessor(**kw)
            proc = pp.Step3p7Processor.__new__(pp.Step3p7Processor)
            stride = p.vision_patch_size * p.downsampler_stride
            proc.image_token = "<im_patch>"
            proc.image_feature_placeholder = proc.image_token * (p.size["height"] // stride) ** 2
            proc.patch_feature_placeholder = proc.image_token * (p.patch_size // stride) ** 2
            out = p(images=[torch.zeros(3, h, w, dtype=torch.uint8)], do_rescale=False, do_normalize=False,
                    do_convert_rgb=False, resample=bicubic)
            n = int(out["num_local_patches"][0])
            tokens = token.findall(proc.replace_image_token(out, 0))
            settings = {"size": {"height": 728, "width": 728}, "patch_size": 504, "max_image_size": 3024, **kw,
                        "vision_patch_size": 14, "downsampler_stride": 4}
            tower = (p.size["height"] // 14) ** 2 + n * (p.patch_size // 14) ** 2
            helper = p.get_number_of_image_patches(h, w, {})
            emit("step3p7", "Step3p7ImageProcessor (shape-only pixel ops) + replace_image_token", settings, w, h,
                 tower, len(tokens), crops=n, helper_patches=helper, helper_matches=helper == n)

    return step3p7


# ---------------------------------------------------------------- 12. LFM2-VL (lfm2_vl)
# Lfm2VlImageProcessor is torchvision-only: run with the shape-only stand-ins at its class defaults (16 px
# patches, downsample 2, 64..256 tokens, 512 px tiles, 2..10 tiles and a thumbnail, tolerance 2), at
# 32..128 tokens, at 4 tiles at most and without the thumbnail; Lfm2VlProcessor built bare with what
# replace_image_token reads. Tower tokens: pixel_values' entries x patch slots (every tile and the thumbnail
# padded to the same slots); language-model tokens: every token replace_image_token writes with the special
# tokens on (<|image_start|>, a <|img_row_R_col_C|> per tile, <|img_thumbnail|>, the <image> tokens, <|image_end|>).
LF = [dict(), dict(min_image_tokens=32, max_image_tokens=128), dict(max_tiles=4), dict(use_thumbnail=False)]
LF_EXTRA = [(721, 727), (724, 724), (1024, 1024), (1023, 512), (512, 1023), (2048, 256), (200, 3000)]


def lfm2_vl_setup():
    import re
    install_torchvision_standin()
    import transformers.models.lfm2_vl.image_processing_lfm2_vl as ip
    import transformers.models.lfm2_vl.processing_lfm2_vl as pp

    bilinear = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BILINEAR
    token = re.compile(r"<\|[a-z0-9_]+\|>|<image>")

    def lfm2_vl(w, h):
        for kw in LF:
            p = ip.Lfm2VlImageProcessor(**kw)
            proc = pp.Lfm2VlProcessor.__new__(pp.Lfm2VlProcessor)
            proc.image_processor = p
            proc.image_token = "<image>"
            proc.image_start_token, proc.image_end_token = "<|image_start|>", "<|image_end|>"
            proc.image_thumbnail_token = "<|img_thumbnail|>"
            out = p(images=[torch.zeros(3, h, w, dtype=torch.uint8)], do_rescale=False, do_normalize=False,
                    do_convert_rgb=False, resample=bilinear, return_row_col_info=True)
            entries, slots = int(out["pixel_values"].shape[0]), int(out["pixel_values"].shape[1])
            text = proc.replace_image_token(out, 0, use_image_special_tokens=True, **kw)
            settings = {"encoder_patch_size": 16, "downsample_factor": 2, "min_image_tokens": 64,
                        "max_image_tokens": 256, "tile_size": 512, "min_tiles": 2, "max_tiles": 10,
                        "use_thumbnail": True, "max_pixels_tolerance": 2.0, **kw}
            emit("lfm2_vl", "Lfm2VlImageProcessor (shape-only pixel ops) + replace_image_token", settings, w, h,
                 entries * slots, len(token.findall(text)), tiles=entries, slots=slots,
                 grid=[int(out["image_rows"][0]), int(out["image_cols"][0])],
                 image_tokens=text.count("<image>"))

    return lfm2_vl


# ---------------------------------------------------------------- 13. GLM-5.3-Flash (glm5_next)
# Glm5NextImageProcessor is torchvision-only: run with the shape-only stand-ins at its class defaults (14 px
# patches, merge 2, temporal patch 2, patch_expand_factor 1, 16..8000 tokens), at 256..1280 tokens, at
# patch_expand_factor 2 and at 16 px patches with 1..16 tokens (a budget so small that a long strip fits no
# content height and falls back to one token square). Glm5NextProcessor built with a from-scratch word-level
# tokenizer carrying its special tokens (nothing downloaded; the class check it runs on its video processor is
# skipped: torchvision's absence leaves that mapping empty). Tower tokens: image_grid_thw's product (the image
# repeated over the temporal patch inside each patch); language-model tokens: the <|image|> tokens the processor
# writes into the prompt for one image (the prompt's own <|begin_of_image|>/<|end_of_image|> are not counted, as
# for GLM-4V). Cross-checked: get_number_of_image_patches / _get_num_multimodal_tokens (helper_*; they ignore
# patch_expand_factor) and Glm5NextImageProcessorPil on real PIL images (pil_grid; it ignores the factor too).
# Images larger than 8000 x 8000 are a broadcast zeros tensor (shape only). Extra sizes: under the minimum,
# 1-px and few-px strips up to 65536 px, over the maximum (the binary search), odd sides.
G5 = [dict(), dict(min_image_tokens=256, max_image_tokens=1280), dict(patch_expand_factor=2),
      dict(patch_size=16, min_image_tokens=1, max_image_tokens=16)]
G5_EXTRA = [(1, 1), (2, 3), (3, 2), (5, 7), (13, 13), (27, 27), (29, 29), (55, 57), (100, 111), (111, 112),
            (112, 112), (113, 112), (1, 2), (300, 1), (1, 300), (1, 1000), (1000, 1), (3, 20000), (20000, 3),
            (1, 65536), (65536, 1), (7, 9999), (50, 50000), (2500, 2500), (2520, 2520), (2521, 2519),
            (5000, 5000), (12000, 9000), (20000, 15000), (65536, 2000), (2000, 65536), (65536, 65536),
            (333, 777), (1001, 999), (4095, 17), (17, 4095), (14, 28), (28, 14)]


def glm5_next_setup():
    install_torchvision_standin()
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, processing_utils
    from transformers.models.glm5_next.image_processing_glm5_next import Glm5NextImageProcessor
    from transformers.models.glm5_next.image_processing_pil_glm5_next import Glm5NextImageProcessorPil
    from transformers.models.glm5_next.processing_glm5_next import Glm5NextProcessor
    from transformers.models.glm5_next.video_processing_glm5_next import Glm5NextVideoProcessor

    specials = ["<|image|>", "<|video|>", "<|begin_of_image|>", "<|end_of_image|>", "<|begin_of_video|>",
                "<|end_of_video|>"]
    words = Tokenizer(models.WordLevel({"[UNK]": 0, "x": 1, **{s: i + 2 for i, s in enumerate(specials)}},
                                       unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]", additional_special_tokens=specials)
    processing_utils.ProcessorMixin.check_argument_for_proper_class = lambda self, name, arg: None
    bicubic = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC
    procs = [(kw, Glm5NextProcessor(image_processor=Glm5NextImageProcessor(**kw), tokenizer=tok,
                                    video_processor=Glm5NextVideoProcessor()), Glm5NextImageProcessorPil(**kw))
             for kw in G5]
    image_id = tok.convert_tokens_to_ids("<|image|>")

    def glm5_next(w, h):
        big = w * h > 8000 * 8000
        pixels = torch.zeros(3, 1, 1, dtype=torch.uint8).expand(3, h, w) if big else torch.zeros(3, h, w, dtype=torch.uint8)
        for kw, proc, pil in procs:
            out = proc(text=["<|image|>x"], images=[pixels], do_rescale=False, do_normalize=False,
                       do_convert_rgb=False, resample=bicubic, input_data_format="channels_first")
            t_, gh, gw = (int(x) for x in out["image_grid_thw"][0])
            lm = list(out["input_ids"][0]).count(image_id)
            p = proc.image_processor
            settings = {"patch_size": 14, "merge_size": 2, "temporal_patch_size": 2, "patch_expand_factor": 1,
                        "min_image_tokens": 16, "max_image_tokens": 8000, **kw}
            helper = p.get_number_of_image_patches(h, w, {})
            mm = proc._get_num_multimodal_tokens(image_sizes=[(h, w)])
            extra = {}
            if w * h <= 4_000_000:
                pg = pil(images=[Image.new("RGB", (w, h))], input_data_format="channels_last")["image_grid_thw"][0]
                extra["pil_grid"] = [int(x) for x in pg]
            emit("glm5_next", "Glm5NextImageProcessor (shape-only pixel ops) + Glm5NextProcessor", settings, w, h,
                 t_ * gh * gw, lm, grid=[t_, gh, gw], helper_patches=helper, helper_matches=helper == t_ * gh * gw,
                 helper_tokens=int(mm.num_image_tokens[0]), **extra)

    return glm5_next


# ---------------------------------------------------------------- 14. Apertus 1.5 (apertus1p5)
# Apertus1p5ImageProcessor is torchvision-only: run with the shape-only stand-ins at its class defaults (16 px
# squares, min_pixels 128^2, max_pixels 1400^2), at 64^2..512^2 px and at an 8 px factor. Apertus1p5Processor built
# with a from-scratch word-level tokenizer holding its named special tokens (<|image|>, <|boi|>, <|eoi|>,
# <|image_wrapper|>, <|eol|>, ...) whose pre-tokenizer splits digits one by one (nothing downloaded; the Hub
# tokenizer is not available offline, so the "rows*cols" header counts one token per character here: the choice the
# rule makes). Tower tokens: the vision tokenizer's codes (image_sizes / spatial_factor, rows x cols); language-model
# tokens: every token the processor writes for one image (its prompt's input_ids less the one text token "x").
# Cross-checked: get_number_of_image_patches and _get_num_multimodal_tokens (helper_*), and the prompt's
# <|image|> and <|eol|> counts (placeholders, row_breaks) and header text. Images over 8000 x 8000 are a broadcast
# zeros tensor (shape only). Extra sizes: tiny, halves of 16 (round half to even), around the budget, and aspect
# ratios at and just over 200 (refused rows).
AP = [dict(), dict(size={"min_pixels": 64 * 64, "max_pixels": 512 * 512}), dict(spatial_factor=8)]
AP_EXTRA = [(1, 1), (2, 3), (3, 2), (7, 7), (8, 8), (9, 9), (15, 15), (16, 16), (17, 17), (23, 23), (24, 24), (25, 25),
            (40, 40), (136, 136), (152, 152), (600, 424), (424, 600), (600, 440), (440, 600), (1400, 1400),
            (1392, 1392), (1408, 1408), (1400, 1399), (1225, 1600), (1600, 1225), (980, 2000), (2000, 980),
            (1396, 1404), (1, 200), (200, 1), (1, 201), (201, 1), (2, 400), (2, 401), (328, 65536), (65536, 328),
            (65536, 327), (100, 20000), (100, 20001), (65536, 65536), (20000, 15000), (12000, 9000), (9999, 7777),
            (100, 100), (127, 129), (128, 128), (64, 256), (256, 64), (50, 300), (300, 50), (10, 1000), (1000, 10),
            (333, 777), (1001, 999), (4095, 17), (17, 3400), (3401, 17), (2024, 8), (8, 1592), (1400, 7)]


def apertus1p5_setup():
    import re
    install_torchvision_standin()
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, processing_utils
    from transformers.models.apertus1p5.image_processing_apertus1p5 import Apertus1p5ImageProcessor
    from transformers.models.apertus1p5.processing_apertus1p5 import Apertus1p5Processor
    from transformers.models.wavtokenizer.feature_extraction_wavtokenizer import WavTokenizerFeatureExtractor

    names = dict(image_token="<|image|>", audio_token="<|audio|>", boi_token="<|boi|>", eoi_token="<|eoi|>",
                 image_wrapper_token="<|image_wrapper|>", eol_token="<|eol|>", boa_token="<|boa|>",
                 eoa_token="<|eoa|>")
    vocab = {"[UNK]": 0, "x": 1, "*": 2, **{str(d): 3 + d for d in range(10)},
             **{s: 13 + i for i, s in enumerate(names.values())}}
    words = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                   pre_tokenizers.Digits(individual_digits=True)])
    tok = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]", extra_special_tokens=names)
    processing_utils.ProcessorMixin.check_argument_for_proper_class = lambda self, name, arg: None
    procs = [(kw, Apertus1p5Processor(image_processor=Apertus1p5ImageProcessor(**kw),
                                      feature_extractor=WavTokenizerFeatureExtractor(), tokenizer=tok)) for kw in AP]
    bicubic = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC
    unknown = tok.convert_tokens_to_ids("[UNK]")
    header = re.compile(r"<\|boi\|>(.*?)<\|image_wrapper\|>")

    def apertus1p5(w, h):
        big = w * h > 8000 * 8000
        pixels = (torch.zeros(3, 1, 1, dtype=torch.uint8).expand(3, h, w) if big
                  else torch.zeros(3, h, w, dtype=torch.uint8))
        for kw, proc in procs:
            p = proc.image_processor
            settings = {"size": {"min_pixels": 128 * 128, "max_pixels": 1400 * 1400}, "spatial_factor": 16, **kw}
            try:
                out = proc(text=["<|image|>x"], images=[pixels], do_rescale=False, do_normalize=False,
                           do_convert_rgb=False, resample=bicubic, input_data_format="channels_first")
            except ValueError as e:
                emit("apertus1p5", "Apertus1p5ImageProcessor (shape-only pixel ops) + Apertus1p5Processor", settings,
                     w, h, None, None, refused=str(e)[:120])
                continue
            rh, rw = (int(x) for x in out["image_sizes"][0])
            f = p.spatial_factor
            ids = [int(i) for i in out["input_ids"][0]]
            assert unknown not in ids, ids[:20]
            text = proc.replace_image_token(out, 0)
            helper = p.get_number_of_image_patches(h, w, {})
            mm = proc._get_num_multimodal_tokens(image_sizes=[(h, w)])
            emit("apertus1p5", "Apertus1p5ImageProcessor (shape-only pixel ops) + Apertus1p5Processor", settings,
                 w, h, (rh // f) * (rw // f), len(ids) - 1, grid=[rh // f, rw // f], resized=[rh, rw],
                 placeholders=text.count("<|image|>"), row_breaks=text.count("<|eol|>"),
                 header=header.match(text).group(1), helper_patches=helper,
                 helper_matches=helper == (rh // f) * (rw // f), helper_tokens=int(mm.num_image_tokens[0]))

    return apertus1p5


# ---------------------------------------------------------------- 15. MiniMax-M3 VL (minimax_m3_vl)
# MiniMaxM3VLImageProcessor (torchvision backend only: the shape-only stand-in) at its class defaults (56² to 672²
# pixels) and at a checkpoint-style 28·28·1280 limit; the language model's image tokens are the grid over merge².
MM3 = [{}, dict(size={"shortest_edge": 3136, "longest_edge": 1003520})]
MM3_EXTRA = [(70, 70), (126, 98), (14, 2800), (1, 200), (200, 1), (4032, 3024)]


def minimax_m3_vl_setup():
    install_torchvision_standin()
    from transformers.models.minimax_m3_vl.image_processing_minimax_m3_vl import MiniMaxM3VLImageProcessor

    procs = [MiniMaxM3VLImageProcessor(**kw) for kw in MM3]
    bicubic = sys.modules["torchvision.transforms.v2.functional"].InterpolationMode.BICUBIC

    def minimax_m3_vl(w, h):
        big = w * h > 8000 * 8000
        pixels = torch.zeros(3, 1, 1, dtype=torch.uint8).expand(3, h, w) if big else torch.zeros(3, h, w, dtype=torch.uint8)
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size,
                        "temporal_patch_size": p.temporal_patch_size}
            try:
                out = p(images=[pixels], do_rescale=False, do_normalize=False, do_convert_rgb=False,
                        resample=bicubic, input_data_format="channels_first", return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("minimax_m3_vl", "MiniMaxM3VLImageProcessor (shape-only pixel ops)", settings, w, h, None, None,
                     refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("minimax_m3_vl", "MiniMaxM3VLImageProcessor (shape-only pixel ops)", settings, w, h, tt * gh * gw,
                 tt * gh * gw // (m * m), grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return minimax_m3_vl


# ---------------------------------------------------------------- 16. HY-V4-VL (hy_v4_vl)
# HYV4VLImageProcessorPil at its class defaults (512² to 2048² pixels, patch 16, merge 2) and a smaller limit; the
# language model's tokens are what HYV4VLProcessor writes per image (`_num_frame_tokens`: a newline per merged row).
HY = [{}, dict(size={"shortest_edge": 256 * 256, "longest_edge": 1024 * 1024})]


def hy_v4_vl_setup():
    from transformers.models.hy_v4_vl.image_processing_pil_hy_v4_vl import HYV4VLImageProcessorPil
    from transformers.models.hy_v4_vl.processing_hy_v4_vl import HYV4VLProcessor

    procs = [HYV4VLImageProcessorPil(**kw) for kw in HY]
    frame_tokens = HYV4VLProcessor._num_frame_tokens

    def hy_v4_vl(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("hy_v4_vl", "HYV4VLImageProcessorPil", settings, w, h, None, None, refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            lm = int(frame_tokens(gh, gw, p.merge_size))
            emit("hy_v4_vl", "HYV4VLImageProcessorPil + HYV4VLProcessor", settings, w, h, tt * gh * gw, lm,
                 grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return hy_v4_vl


# ---------------------------------------------------------------- 17. Aria (aria)
# AriaImageProcessorPil at 980 and 490 px crops, with and without split_image; the tower runs (crop/14)² patches per
# crop and AriaProcessor writes size_conversion[crop] image tokens per crop ({490: 128, 980: 256}).
ARIA = [dict(max_image_size=980, split_image=False), dict(max_image_size=980, split_image=True),
        dict(max_image_size=490, split_image=False), dict(max_image_size=490, split_image=True)]


def aria_setup():
    from transformers.models.aria.image_processing_pil_aria import AriaImageProcessorPil

    procs = [(kw, AriaImageProcessorPil(**kw)) for kw in ARIA]
    queries = {490: 128, 980: 256}

    def aria(w, h):
        for kw, p in procs:
            out = p(images=[img(w, h)], return_tensors="pt")
            crops = int(out["pixel_values"].shape[0])
            mis = kw["max_image_size"]
            emit("aria", "AriaImageProcessorPil + AriaProcessor", dict(kw), w, h, crops * (mis // 14) ** 2,
                 crops * queries[mis], crops=crops)

    return aria


# ---------------------------------------------------------------- 18. Cohere Compass (cohere_compass)
# CohereCompassImageProcessorPil (Qwen2-VL's processor) at its class defaults and at a Qwen3-VL-style 16 px patch.
CC = [{}, dict(patch_size=16, size={"shortest_edge": 65536, "longest_edge": 16777216})]


def cohere_compass_setup():
    from transformers.models.cohere_compass.image_processing_pil_cohere_compass import CohereCompassImageProcessorPil

    procs = [CohereCompassImageProcessorPil(**kw) for kw in CC]

    def cohere_compass(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("cohere_compass", "CohereCompassImageProcessorPil", settings, w, h, None, None,
                     refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("cohere_compass", "CohereCompassImageProcessorPil", settings, w, h, tt * gh * gw,
                 tt * gh * gw // (m * m), grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return cohere_compass


# ---------------------------------------------------------------- 19. PaddleOCR-VL (paddleocr_vl)
# PaddleOCRVLImageProcessorPil (a short side under 28 px scaled up first, then Qwen-VL's resize) at its class defaults
# (384² to 1536² pixels) and at smaller limits.
PD = [{}, dict(size={"shortest_edge": 56 * 56, "longest_edge": 28 * 28 * 1280})]
PD_EXTRA = [(1, 200), (200, 1), (4000, 20), (3, 600), (406, 406), (434, 406), (2, 5)]


def paddleocr_vl_setup():
    from transformers.models.paddleocr_vl.image_processing_pil_paddleocr_vl import PaddleOCRVLImageProcessorPil

    procs = [PaddleOCRVLImageProcessorPil(**kw) for kw in PD]

    def paddleocr_vl(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("paddleocr_vl", "PaddleOCRVLImageProcessorPil", settings, w, h, None, None, refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("paddleocr_vl", "PaddleOCRVLImageProcessorPil", settings, w, h, tt * gh * gw,
                 tt * gh * gw // (m * m), grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return paddleocr_vl


# ---------------------------------------------------------------- VideoLLaMA3 (video_llama_3)
# VideoLlama3ImageProcessorPil: Qwen2-VL's smart_resize at 14 px patches with merge_size 1 (a language-model token
# per patch), at its class defaults (56² to 28²·1280 pixels), at smaller limits with a 2 × 2 merge, and at 16 px
# patches.
VL3 = [{}, dict(min_pixels=10000, max_pixels=200704, merge_size=2),
       dict(size={"shortest_edge": 4096, "longest_edge": 65536}, patch_size=16)]
VL3_EXTRA = [(1, 200), (200, 1), (1, 201), (10, 2011), (2, 5), (100, 20000)]


def video_llama_3_setup():
    from transformers.models.video_llama_3.image_processing_pil_video_llama_3 import VideoLlama3ImageProcessorPil

    procs = [VideoLlama3ImageProcessorPil(**kw) for kw in VL3]

    def video_llama_3(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("video_llama_3", "VideoLlama3ImageProcessorPil", settings, w, h, None, None,
                     refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("video_llama_3", "VideoLlama3ImageProcessorPil", settings, w, h, tt * gh * gw,
                 tt * gh * gw // (m * m), grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return video_llama_3


# ---------------------------------------------------------------- 20. Cosmos3-Edge (cosmos3_edge)
# Cosmos3EdgeImageProcessorPil (GLM-4V's resize, a side under 32 px scaled up first) at its class defaults (65,536 to
# 16,777,216 pixels, patch 16, merge 2, one temporal frame) and at smaller limits.
C3 = [{}, dict(size={"shortest_edge": 4096, "longest_edge": 1048576})]
C3_EXTRA = [(1, 200), (200, 1), (1280, 720), (3, 600), (6400, 32)]


def cosmos3_edge_setup():
    from transformers.models.cosmos3_edge.image_processing_pil_cosmos3_edge import Cosmos3EdgeImageProcessorPil

    procs = [Cosmos3EdgeImageProcessorPil(**kw) for kw in C3]

    def cosmos3_edge(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size,
                        "temporal_patch_size": p.temporal_patch_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("cosmos3_edge", "Cosmos3EdgeImageProcessorPil", settings, w, h, None, None, refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("cosmos3_edge", "Cosmos3EdgeImageProcessorPil", settings, w, h, tt * gh * gw,
                 tt * gh * gw // (m * m), grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return cosmos3_edge


# ---------------------------------------------------------------- ERNIE-4.5-VL (ernie4_5_vl_moe)
# Ernie4_5_VLMoeImageProcessorPil: Qwen2-VL's resize with its `size` limits alone (56² to 28²·6177 pixels at
# its defaults, and a checkpoint-style 28²·1280), 14 px patches merged 2 × 2; one frame per image.
EV = [{}, dict(size={"shortest_edge": 3136, "longest_edge": 28 * 28 * 1280})]
EV_EXTRA = [(70, 70), (126, 98), (14, 2800), (2800, 14), (1, 200), (200, 1), (1, 300), (2576, 1876), (10000, 8000)]


def ernie4_5_vl_moe_setup():
    from transformers.models.ernie4_5_vl_moe.image_processing_pil_ernie4_5_vl_moe import (
        Ernie4_5_VLMoeImageProcessorPil)

    procs = [Ernie4_5_VLMoeImageProcessorPil(**kw) for kw in EV]

    def ernie4_5_vl_moe(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("ernie4_5_vl_moe", "Ernie4_5_VLMoeImageProcessorPil", settings, w, h, None, None,
                     refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("ernie4_5_vl_moe", "Ernie4_5_VLMoeImageProcessorPil", settings, w, h, tt * gh * gw,
                 tt * gh * gw // (m * m), grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return ernie4_5_vl_moe


# ---------------------------------------------------------------- Qianfan-OCR (qianfan_ocr)
# GotOcr2ImageProcessorPil with crop_to_patches (QianfanOCRProcessor turns it on) at the tower's 448 px tiles
# (its class default of 384 cannot run the default 448 px tower) with 1..12 tiles, and with at most 6; 1025
# tower tokens and 256 language-model tokens per tile (<img> and </img> beside them in the prompt).
QF = [dict(crop_to_patches=True, size={"height": 448, "width": 448}, min_patches=1, max_patches=12),
      dict(crop_to_patches=True, size={"height": 448, "width": 448}, min_patches=1, max_patches=6)]
QF_EXTRA = [(896, 896), (600, 2000), (1344, 448), (1, 300), (5000, 20), (2480, 3508)]


def qianfan_ocr_setup():
    procs = [(kw, GotOcr2ImageProcessorPil(**kw)) for kw in QF]

    def qianfan_ocr(w, h):
        for kw, p in procs:
            out = p(images=[img(w, h)], return_tensors="pt")
            n = int(t(out["num_patches"])[0])
            emit("qianfan_ocr", "GotOcr2ImageProcessorPil as used by QianfanOCRProcessor", kw, w, h, n * 1025,
                 n * 256, tiles=n, lm_tokens_with_img_start_end=n * 256 + 2)

    return qianfan_ocr


# ---------------------------------------------------------------- LightOnOCR (lighton_ocr)
# PixtralImageProcessorPil at LightOnOCR-1B's preprocessor settings (14 px, longest edge 1540) and at a 1024 px
# limit; LightOnOcrProcessor (patch 14, spatial_merge_size 2) writes (H'//28)·(W'//28) image tokens and nothing
# else (replace_image_token), the tower reads (H'/14)·(W'/14) patches. A grid under two patches a side makes
# the model's patch merger raise, so those rows are marked refused.
LO = [dict(patch_size={"height": 14, "width": 14}, size={"longest_edge": 1540}),
      dict(patch_size={"height": 14, "width": 14}, size={"longest_edge": 1024})]
LO_EXTRA = [(14, 14), (27, 1540), (28, 28), (100000, 50), (1540, 1540), (3000, 2000)]


def lighton_ocr_setup():
    procs = [(kw, PixtralImageProcessorPil(**kw)) for kw in LO]

    def lighton_ocr(w, h):
        for kw, p in procs:
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except (ValueError, RuntimeError, ZeroDivisionError) as e:  # the processor refuses the size
                emit("lighton_ocr", "PixtralImageProcessorPil as used by LightOnOcrProcessor", kw, w, h, None, None,
                     refused=f"{type(e).__name__}: {str(e)[:100]}")
                continue
            rh, rw = [int(x) for x in t(out["image_sizes"][0])]
            rows, cols = rh // 14, rw // 14
            if rows < 2 or cols < 2:  # LightOnOcrPatchMerger's unfold has no 2 x 2 cell to fold
                emit("lighton_ocr", "PixtralImageProcessorPil as used by LightOnOcrProcessor", kw, w, h, None, None,
                     refused=f"patch grid {rows} x {cols}: the model's patch merger raises", resized=[rh, rw])
                continue
            emit("lighton_ocr", "PixtralImageProcessorPil as used by LightOnOcrProcessor", kw, w, h, rows * cols,
                 (rh // 28) * (rw // 28), resized=[rh, rw])

    return lighton_ocr


# ---------------------------------------------------------------- Granite-Docling (granite_docling)
# GraniteDoclingImageProcessorPil at its class defaults (512 px tiles, 1..32, sides capped at 16), with the fine
# route on, and with at most 8 tiles; the tower reads (512/16)² patches a tile (no class token); the coarse
# route hands on 64 image tokens a tile, the fine one 256 (the processor's markers around them not counted).
GD = [{}, dict(fine_route=True), dict(max_patches=8)]
GD_EXTRA = [(1, 300), (300, 1), (100, 1700), (256, 8192), (1190, 17), (33, 77), (2480, 3508), (1024, 512)]


def granite_docling_setup():
    from transformers.models.granite_docling.image_processing_pil_granite_docling import (
        GraniteDoclingImageProcessorPil)

    procs = [(kw, GraniteDoclingImageProcessorPil(**kw)) for kw in GD]

    def granite_docling(w, h):
        for kw, p in procs:
            out = p(img(w, h))
            tiles = int(out["pixel_attention_mask"].sum())
            per_tile = 256 if p.fine_route else 64
            settings = {"size": dict(p.size), "min_patches": p.min_patches, "max_patches": p.max_patches,
                        "fine_route": bool(p.fine_route)}
            emit("granite_docling", "GraniteDoclingImageProcessorPil", settings, w, h, tiles * 1024,
                 tiles * per_tile, tiles=tiles, grid=[int(out["rows"][0][0]), int(out["cols"][0][0])])

    return granite_docling


# ---------------------------------------------------------------- PerceptionLM (perception_lm)
# PerceptionLMImageProcessor at its class defaults (thumb+tile, 448 px tiles, at most 36), with an instance
# max_num_tiles of 4, and in single-tile mode; the processor writes (448 // 14 // 2)² = 256 tokens a tile
# (patch 14 and pooling 2, the released processors'); the PE-L tower reads 32² patches and its class token.
PL = [{}, dict(max_num_tiles=4), dict(vision_input_type="vanilla")]
PL_EXTRA = [(1, 1), (1, 300), (300, 1), (5000, 20), (20, 5000), (7000, 1000), (1000, 7000), (13440, 448),
            (12000, 800), (447, 449), (449, 448), (2688, 2688), (2689, 2689), (16129, 448), (60, 20)]


def perception_lm_setup():
    from transformers.models.perception_lm.image_processing_perception_lm import PerceptionLMImageProcessor

    procs = [(kw, PerceptionLMImageProcessor(**kw)) for kw in PL]

    def perception_lm(w, h):
        if w * h > 16200 * 16200:
            return
        for kw, p in procs:
            out = p(images=[img(w, h)], return_tensors="pt")
            tiles = int(out["pixel_values"].shape[1])
            settings = {"tile_size": p.tile_size, "max_num_tiles": p.max_num_tiles,
                        "vision_input_type": p.vision_input_type}
            emit("perception_lm", "PerceptionLMImageProcessor", settings, w, h, tiles * (32 * 32 + 1),
                 tiles * 256, tiles=tiles)

    return perception_lm


# ---------------------------------------------------------------- HunYuan-VL (hunyuan_vl)
# HunYuanVLImageProcessorPil: Qwen2-VL's resize at 16 px patches merged 2 x 2, 512² to 2048² px (its class
# defaults) and a 1024² px limit; the tower reads gh·gw patches; the merger hands on (gh/2)·(gw/2 + 1) tokens
# (a newline per merged row) plus its begin and end embeddings.
HV = [{}, dict(size={"shortest_edge": 512 * 512, "longest_edge": 1024 * 1024})]
HV_EXTRA = [(70, 70), (126, 98), (1, 200), (200, 1), (1, 300), (1000, 5), (5, 1000), (3000, 200)]


def hunyuan_vl_setup():
    from transformers.models.hunyuan_vl.image_processing_pil_hunyuan_vl import HunYuanVLImageProcessorPil

    procs = [HunYuanVLImageProcessorPil(**kw) for kw in HV]

    def hunyuan_vl(w, h):
        for p in procs:
            settings = {"size": dict(p.size), "patch_size": p.patch_size, "merge_size": p.merge_size}
            try:
                out = p(images=[img(w, h)], return_tensors="pt")
            except ValueError as e:  # the processor refuses the size: so must we
                emit("hunyuan_vl", "HunYuanVLImageProcessorPil", settings, w, h, None, None, refused=str(e)[:120])
                continue
            tt, gh, gw = t(out["image_grid_thw"][0])
            m = p.merge_size
            emit("hunyuan_vl", "HunYuanVLImageProcessorPil", settings, w, h, tt * gh * gw,
                 (gh // m) * (gw // m + 1) + 2, grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size])

    return hunyuan_vl


# ---------------------------------------------------------------- MiniCPM-V 4.6 / 4.7 (minicpmv4_6)
# MiniCPMV4_6ImageProcessorPil (4.7 maps to the same class): its class defaults (448 px slices, at most 9, 14 px
# patches, "16x"), the "4x" mode, at most 4 slices, and slicing off; the tower reads every crop's patches
# (`target_sizes`), the language model one token per 4 x 4 of them ("16x") or 2 x 2 ("4x").
MC = [{}, dict(downsample_mode="4x"), dict(max_slice_nums=4), dict(slice_mode=False)]
MC_EXTRA = [(449, 449), (447, 447), (55, 55), (1000, 10), (28, 1000), (500, 2000), (1366, 768), (900, 1600)]


def minicpmv4_6_setup():
    from transformers.models.minicpmv4_6.image_processing_pil_minicpmv4_6 import MiniCPMV4_6ImageProcessorPil

    procs = [(kw, MiniCPMV4_6ImageProcessorPil(**kw)) for kw in MC]

    def minicpmv4_6(w, h):
        if w * h > 6000 * 6000:  # the PIL pipeline holds the whole image; the rule is size-free
            return
        for kw, p in procs:
            out = p(images=[img(w, h)])
            sizes = [[int(a), int(b)] for a, b in out["target_sizes"]]
            m = 2 if p.downsample_mode == "4x" else 4
            settings = {"patch_size": p.patch_size, "scale_resolution": p.scale_resolution,
                        "max_slice_nums": p.max_slice_nums, "slice_mode": p.slice_mode,
                        "downsample_mode": p.downsample_mode}
            emit("minicpmv4_6", "MiniCPMV4_6ImageProcessorPil", settings, w, h, sum(a * b for a, b in sizes),
                 sum(a * b // (m * m) for a, b in sizes), tiles=len(sizes), crops=sizes)

    return minicpmv4_6


# ---------------------------------------------------------------- shared by the 2026-12 sections below
# A from-scratch word-level tokenizer (nothing downloaded) holding the named special tokens of a processor, whose
# prompt text around the image is whitespace-separated words of its vocabulary.
def word_tokenizer(specials, words=("x",)):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, **{w: 1 + i for i, w in enumerate(words)}}
    vocab.update({s: len(vocab) + i for i, s in enumerate(specials)})
    words_model = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    words_model.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=words_model, unk_token="[UNK]")
    tok.add_special_tokens({"additional_special_tokens": list(specials)})
    return tok


def standin_mode(name):
    """The torchvision stand-in's InterpolationMode member (the processors' own PILImageResampling defaults
    have no mapping without torchvision; the stand-in's resize keeps only the shape)."""
    return getattr(sys.modules["torchvision.transforms.v2.functional"].InterpolationMode, name)


def skip_processor_class_checks():
    # Without torchvision, transformers' video-processor mapping is empty and ProcessorMixin cannot check the
    # class of a video processor (the same switch as section 14's).
    from transformers import processing_utils
    processing_utils.ProcessorMixin.check_argument_for_proper_class = lambda self, name, arg: None


# ---------------------------------------------------------------- DeepSeek-OCR 2 (deepseek_ocr2)
# DeepseekOcr2Processor (built with a from-scratch word-level tokenizer holding <image>) over
# DeepseekOcr2ImageProcessorPil at the class defaults (1024 px global view, 768 px tiles). The processor passes
# crop_to_patches=True, min_patches=2, max_patches=6 on every call (its class attribute `images_kwargs`), over
# whatever preprocessor_config.json says, so those are fixed; size/tile_size other than 1024/768 are honoured by
# the processor's count but the model's queries (256 for a 1024 view, 144 for a 768 tile) do not follow them,
# so no other setting is measured. Tower tokens: SAM's 16 px patches of every view ((1024/16)² global +
# (768/16)² per tile); the Qwen2 encoder after SAM's two stride-2 convolutions runs 256+256 (global) and 144+144
# (tile) tokens (`encoder_tokens`). LM tokens: the <image> tokens the processor writes (prompt less "hello").
DS_EXTRA = [(767, 767), (768, 768), (769, 769), (769, 1), (1, 769), (768, 10000), (1152, 768), (1536, 768),
            (2304, 768), (1300, 1000), (2000, 1001), (2047, 1), (2048, 1), (1, 2048), (5000, 2), (5000, 3),
            (6000, 1000)]


def deepseek_ocr2_setup():
    from transformers.models.deepseek_ocr2.image_processing_pil_deepseek_ocr2 import DeepseekOcr2ImageProcessorPil
    from transformers.models.deepseek_ocr2.processing_deepseek_ocr2 import DeepseekOcr2Processor

    tok = word_tokenizer(["<image>"], words=("hello",))
    proc = DeepseekOcr2Processor(image_processor=DeepseekOcr2ImageProcessorPil(), tokenizer=tok)
    ip = proc.image_processor
    image_id = tok.convert_tokens_to_ids("<image>")
    cls = "DeepseekOcr2ImageProcessorPil + DeepseekOcr2Processor"

    def deepseek_ocr2(w, h):
        settings = {"size": {"height": ip.size["height"], "width": ip.size["width"]}, "tile_size": ip.tile_size,
                    "crop_to_patches": ip.crop_to_patches, "min_patches": ip.min_patches,
                    "max_patches": ip.max_patches}
        try:
            out = proc(images=[img(w, h)], text=["<image> hello"], return_tensors="pt")
        except ValueError as e:  # the global view's short side rounds to 0 px
            emit("deepseek_ocr2", cls, settings, w, h, None, None, refused=str(e)[:120])
            return
        ids = [int(i) for i in out["input_ids"][0]]
        n = int(out["num_local_patches"][0])
        side = int(out["pixel_values"].shape[-1])
        local = int(out["pixel_values_local"].shape[-1]) if n else ip.tile_size
        assert side == ip.size["height"] and (n == 0 or int(out["pixel_values_local"].shape[0]) == n)
        g, tl = side // proc.patch_size, local // proc.patch_size
        q = lambda s: -(-(-(-s // 2)) // 2)  # SAM's two stride-2 convolutions
        emit("deepseek_ocr2", cls, settings, w, h, g * g + n * tl * tl, len(ids) - 1, tiles=1 + n, local_crops=n,
             placeholders=ids.count(image_id), encoder_tokens=2 * q(g) ** 2 + n * 2 * q(tl) ** 2,
             views=[side] + [local] * n)

    return deepseek_ocr2


# ---------------------------------------------------------------- Nemotron-H Omni (nemotron_h_omni)
# NemotronH_Omni_Reasoning_V3ImageProcessor (torchvision backend only: the shape-only stand-in) inside
# NemotronH_Omni_Reasoning_V3Processor (a from-scratch Qwen2 tokenizer with <image>, <img>, </img>; its video
# processor and Parakeet feature extractor unused), at its class defaults (16 px patches, 1,024..13,312 patches,
# max_model_len 16,384), at 256..4,096 patches, and with the cap off (max_num_patches 0) under a 2,048-token
# context ((2048 - 4)·4 = 8,176 patches). Tower tokens: the patch grid gh·gw plus RADIO's prefix of
# num_cls_tokens + num_registers (3 + 7 in the class-default vision config: not a processor key). LM tokens:
# <img>, gh·gw/4 <image>, </img> (the prompt less its "a" and "b").
NH = [{}, dict(min_num_patches=256, max_num_patches=4096), dict(max_num_patches=0, max_model_len=2048)]
NH_EXTRA = [(16, 16), (17, 17), (496, 496), (1846, 1846), (1856, 1856), (1600, 1648), (1, 300), (300, 1),
            (12, 1000), (10000, 16), (16, 10000), (3000, 30), (5000, 20), (300000, 1), (1, 250000)]
NH_PREFIX = 3 + 7  # RadioConfig num_cls_tokens + num_registers (class defaults)


def nemotron_h_omni_setup():
    install_torchvision_standin()
    skip_processor_class_checks()
    from transformers import Qwen2Tokenizer
    from transformers.models.nemotron_h_omni.image_processing_nemotron_h_omni import (
        NemotronH_Omni_Reasoning_V3ImageProcessor as IP)
    from transformers.models.nemotron_h_omni.processing_nemotron_h_omni import (
        NemotronH_Omni_Reasoning_V3Processor as P)
    from transformers.models.nemotron_h_omni.video_processing_nemotron_h_omni import (
        NemotronH_Omni_Reasoning_V3VideoProcessor as VP)
    from transformers.models.parakeet.feature_extraction_parakeet import ParakeetFeatureExtractor

    specials = ["<image>", "<img>", "</img>", "<video>", "<so_embedding>", "<so_start>", "<so_end>"]
    tok = Qwen2Tokenizer(vocab={c: i for i, c in enumerate(["a", "b", "Ġ"])}, merges=[], extra_special_tokens={})
    tok.add_special_tokens({"additional_special_tokens": specials})
    image_id = tok.convert_tokens_to_ids("<image>")
    procs = [P(image_processor=IP(**kw), video_processor=VP(norm_mean=[0.5] * 3, norm_std=[0.5] * 3),
               tokenizer=tok, feature_extractor=ParakeetFeatureExtractor()) for kw in NH]
    bicubic = standin_mode("BICUBIC")
    cls = "NemotronH_Omni_Reasoning_V3ImageProcessor (shape-only pixel ops) + NemotronH_Omni_Reasoning_V3Processor"

    def nemotron_h_omni(w, h):
        for proc in procs:
            p = proc.image_processor
            settings = {"patch_size": p.patch_size, "downsample_ratio": p.downsample_ratio,
                        "min_num_patches": p.min_num_patches, "max_num_patches": p.max_num_patches,
                        "max_model_len": p.max_model_len}
            try:
                out = proc(images=[img(w, h)], text=["a<image>b"], return_tensors="pt", resample=bicubic)
            except (ValueError, ZeroDivisionError) as e:  # a strip whose grid floors to 0 patches a side
                emit("nemotron_h_omni", cls, settings, w, h, None, None, refused=f"{type(e).__name__}: {str(e)[:100]}")
                continue
            gh, gw = t(out["image_grid_hw"][0])
            ids = [int(i) for i in out["input_ids"][0]]
            assert int(out["pixel_values"].shape[0]) == gh * gw
            emit("nemotron_h_omni", cls, settings, w, h, gh * gw + NH_PREFIX, len(ids) - 2, grid=[gh, gw],
                 resized=[gh * p.patch_size, gw * p.patch_size], patch_tokens=gh * gw,
                 cls_register_tokens=NH_PREFIX, placeholders=ids.count(image_id))

    return nemotron_h_omni


# ---------------------------------------------------------------- Molmo2 (molmo2)
# Molmo2ImageProcessor (torchvision backend only: the shape-only stand-in) inside Molmo2Processor (a from-scratch
# byte-level Qwen2 tokenizer with Molmo2's special tokens; its video processor unused), at the class defaults
# (378 px crops of 14 px patches, at most 8 crops, overlap margins [4, 4], 2 x 2 pooling), at 12 crops with
# margins [2, 6], and at 4 crops with 3 x 3 pooling and no column tokens (`image_use_col_tokens` is a
# processor_config.json key of Molmo2Processor, not an image-processor key). Tower tokens: every crop's
# (378/14)² = 729 patches (the global view and th·tw crops; SigLIP, no class token). LM tokens: every token the
# processor writes for the image (low-res and high-res <im_patch> runs, <im_col> per row, the start/end markers;
# the prompt less the <|endoftext|> it puts in front).
MO = [({}, {}), (dict(max_crops=12, overlap_margins=[2, 6]), {}),
      (dict(max_crops=4, pooling_size=[3, 3]), dict(image_use_col_tokens=False))]
MO_EXTRA = [(112, 112), (113, 113), (378, 378), (379, 379), (100, 1000), (112, 1000), (1000, 112), (113, 2000),
            (3000, 378), (378, 3000), (644, 910), (567, 1234), (2500, 150), (1170, 390)]


def molmo2_setup():
    install_torchvision_standin()
    skip_processor_class_checks()
    from transformers import Qwen2Tokenizer
    from transformers.convert_slow_tokenizer import bytes_to_unicode
    from transformers.models.molmo2.image_processing_molmo2 import Molmo2ImageProcessor
    from transformers.models.molmo2.processing_molmo2 import Molmo2Processor
    from transformers.models.molmo2.video_processing_molmo2 import Molmo2VideoProcessor

    specials = ["<|image|>", "<|video|>", "<im_patch>", "<im_col>", "<im_start>", "<low_res_im_start>",
                "<frame_start>", "<im_end>", "<frame_end>", "<im_low>"]
    vocab = {ch: i for i, ch in enumerate(bytes_to_unicode().values())}
    vocab["<|endoftext|>"] = len(vocab)
    tok = Qwen2Tokenizer(vocab=vocab, merges=[])
    tok.add_tokens(specials, special_tokens=True)
    eos = tok.convert_tokens_to_ids("<|endoftext|>")
    patch_id, col_id = tok.convert_tokens_to_ids("<im_patch>"), tok.convert_tokens_to_ids("<im_col>")
    procs = [(ikw, pkw, Molmo2Processor(image_processor=Molmo2ImageProcessor(**ikw),
                                        video_processor=Molmo2VideoProcessor(), tokenizer=tok, **pkw))
             for ikw, pkw in MO]
    bilinear = standin_mode("BILINEAR")
    cls = "Molmo2ImageProcessor (shape-only pixel ops) + Molmo2Processor"

    def molmo2(w, h):
        for ikw, pkw, proc in procs:
            p = proc.image_processor
            settings = {"size": dict(p.size), "max_crops": p.max_crops, "overlap_margins": list(p.overlap_margins),
                        "patch_size": p.patch_size, "pooling_size": list(p.pooling_size), **pkw}
            out = proc(images=[img(w, h)], text="<|image|>", return_tensors="pt", resample=bilinear)
            ids = [int(i) for i in out["input_ids"][0]]
            assert ids[0] == eos
            crops, per_crop = int(out["pixel_values"].shape[0]), int(out["pixel_values"].shape[1])
            assert crops == int(out["image_num_crops"][0])
            mm = proc._get_num_multimodal_tokens(image_sizes=[(h, w)])
            emit("molmo2", cls, settings, w, h, crops * per_crop, len(ids) - 1, tiles=crops,
                 grid=t(out["image_grids"][0]), placeholders=ids.count(patch_id), col_tokens=ids.count(col_id),
                 helper_tokens=int(mm["num_image_tokens"][0]),
                 helper_matches=int(mm["num_image_tokens"][0]) == len(ids) - 1)

    return molmo2


# ---------------------------------------------------------------- Muse Glimmer / Muse Spark (muse_glimmer, muse_spark)
# MuseGlimmerImageProcessor (torchvision backend only: the shape-only stand-in; muse_spark's image processor too)
# inside MuseGlimmerProcessor and MuseSparkProcessor (a from-scratch word-level tokenizer with <|patch|>,
# <|image_start|>, <|image_end|>, ...), at the class defaults (14 px patches merged 2 x 2, at most 4,096 merged
# tokens), at most 256, and 16 px patches with at most 1,024 (muse_spark: the defaults only). Tower tokens:
# image_grid_thw's product (merge²·a·b patches, no class token); LM tokens: <|image_start|>, a·b <|patch|>,
# <|image_end|>. Ties between candidate grids (every square whose side is no multiple of 28 under the cap) are
# broken by CPython's set order over the candidates, recorded as "tie". Extra sizes: 15 such squares, strips
# whose fallback grid exceeds the cap (140000 x 28).
MG = [{}, dict(max_image_tokens=256), dict(patch_size=16, merge_size=2, max_image_tokens=1024)]
MG_EXTRA = [(29, 29), (50, 50), (99, 99), (150, 150), (250, 250), (300, 300), (333, 333), (500, 500), (600, 600),
            (640, 640), (777, 777), (1024, 1024), (1234, 1234), (1500, 1500), (1791, 1791), (1793, 1793),
            (1820, 1792), (77, 33), (5000, 1), (1, 5000), (6000, 200), (140000, 28)]


def muse_glimmer_setup():
    import itertools
    import math

    install_torchvision_standin()
    skip_processor_class_checks()
    from transformers.models.muse_glimmer.image_processing_muse_glimmer import MuseGlimmerImageProcessor
    from transformers.models.muse_glimmer.processing_muse_glimmer import MuseGlimmerProcessor
    from transformers.models.muse_glimmer.video_processing_muse_glimmer import MuseGlimmerVideoProcessor
    from transformers.models.muse_spark.feature_extraction_muse_spark import MuseSparkFeatureExtractor
    from transformers.models.muse_spark.processing_muse_spark import MuseSparkProcessor

    tok = word_tokenizer(["<|patch|>", "<|image_start|>", "<|image_end|>", "<|video|>", "<|vid_frame_separator|>",
                          "<|vid_start|>", "<|vid_end|>", "<|audio|>", "<|soft_audio_start|>", "<|soft_audio_end|>"])
    patch_id = tok.convert_tokens_to_ids("<|patch|>")
    procs = [("muse_glimmer", "MuseGlimmerProcessor",
              MuseGlimmerProcessor(image_processor=MuseGlimmerImageProcessor(**kw),
                                   video_processor=MuseGlimmerVideoProcessor(), tokenizer=tok)) for kw in MG]
    procs.append(("muse_spark", "MuseSparkProcessor",
                  MuseSparkProcessor(image_processor=MuseGlimmerImageProcessor(), video_processor=MuseGlimmerVideoProcessor(),
                                     tokenizer=tok, feature_extractor=MuseSparkFeatureExtractor())))
    lanczos = standin_mode("LANCZOS")

    def tie(p, w, h):
        """Whether more than one candidate grid reaches the closest aspect ratio (smart_resize's own steps)."""
        u, n = p.patch_size * p.merge_size, p.max_image_tokens
        ih, iw = h / u, w / u
        if ih * iw > n:
            r = iw / ih
            ih = (n / r) ** 0.5
            iw = ih * r
        c = [(a, b) for a, b in set(itertools.product([math.floor(ih), math.ceil(ih)], [math.floor(iw), math.ceil(iw)]))
             if a >= 1 and b >= 1 and a * b <= n]
        d = sorted(abs(a / b - h / w) for a, b in c)
        return len(d) > 1 and d[0] == d[1]

    def muse_glimmer(w, h):
        for fam, pcls, proc in procs:
            p = proc.image_processor
            settings = {"patch_size": p.patch_size, "temporal_patch_size": p.temporal_patch_size,
                        "merge_size": p.merge_size, "max_image_tokens": p.max_image_tokens}
            out = proc(images=[img(w, h)], text=["<|patch|> x"], return_tensors="pt", resample=lanczos)
            tt, gh, gw = t(out["image_grid_thw"][0])
            ids = [int(i) for i in out["input_ids"][0]]
            m = p.merge_size
            a, b = gh // m, gw // m
            helper = p.get_number_of_image_patches(h, w, {})
            emit(fam, f"MuseGlimmerImageProcessor (shape-only pixel ops) + {pcls}", settings, w, h, tt * gh * gw,
                 len(ids) - 1, grid=[tt, gh, gw], resized=[gh * p.patch_size, gw * p.patch_size],
                 placeholders=ids.count(patch_id), merged_grid=[a, b], tie=tie(p, w, h),
                 over_cap=a * b > p.max_image_tokens, helper_patches=helper, helper_matches=helper == tt * gh * gw)

    return muse_glimmer


# ---------------------------------------------------------------- Inkling 2 (inkling2, inkling2_loop)
# Inkling2ImageProcessor (torchvision backend only: the shape-only stand-in; a uint8 zeros tensor, channels first,
# do_convert_rgb off, since the class converts PIL images with torchvision's pil_to_tensor) inside Inkling2Processor
# (a from-scratch word-level tokenizer holding <|unused_200054|>). No resize: the image is padded (bottom/right, to
# -1) up to whole size.height x size.width cells, rows = ceil(H/size.height), cols = ceil(W/size.width), one
# language-model token per cell (the processor writes rows·cols <|unused_200054|> and nothing else). The tower
# (Inkling2VisionModel, patch_size 20, spatial_merge_size 2 in the class-default vision config) reads each cell as
# merge² patches and puts one class token in front of each image: rows·cols·merge² + 1. Settings: the class default
# (40 x 40 cells = 20 px patch x merge 2; the only size the class-default tower can run), and 32 x 32 and 56 x 56
# cells (a tower with 16 or 28 px patches, merge 2: the tower tokens assume such a config, "model_consistent"
# false against the class-default one). inkling2_loop builds the same vision model and processor: its rows repeat
# the default setting.
IK = [{}, dict(size={"height": 32, "width": 32}), dict(size={"height": 56, "width": 56})]
IK_EXTRA = [(39, 39), (40, 40), (41, 41), (80, 40), (40, 80), (81, 1), (1, 81), (20000, 40), (40, 20000)]
IK_MERGE = 2  # Inkling2VisionConfig.spatial_merge_size (class default)
IK_PATCH = 20  # Inkling2VisionConfig.patch_size (class default)


def inkling2_setup():
    install_torchvision_standin()
    from transformers.models.inkling2.image_processing_inkling2 import Inkling2ImageProcessor
    from transformers.models.inkling2.processing_inkling2 import Inkling2Processor

    tok = word_tokenizer(["<|unused_200054|>"])
    procs = [Inkling2Processor(image_processor=Inkling2ImageProcessor(**kw), tokenizer=tok) for kw in IK]
    image_id = tok.convert_tokens_to_ids("<|unused_200054|>")
    cls = "Inkling2ImageProcessor (shape-only pixel ops) + Inkling2Processor"

    def inkling2(w, h):
        big = w * h > 8000 * 8000
        pixels = (torch.zeros(3, 1, 1, dtype=torch.uint8).expand(3, h, w) if big
                  else torch.zeros(3, h, w, dtype=torch.uint8))
        for i, proc in enumerate(procs):
            p = proc.image_processor
            settings = {"size": {"height": p.size["height"], "width": p.size["width"]}}
            out = proc(images=[pixels], text=["<|unused_200054|> x"], return_tensors="pt", do_convert_rgb=False,
                       input_data_format="channels_first")
            tt, rows, cols = t(out["image_grid_thw"][0])
            ids = [int(i) for i in out["input_ids"][0]]
            assert tuple(out["pixel_values"].shape[:3]) == (rows * cols, p.size["height"], p.size["width"])
            consistent = p.size["height"] == p.size["width"] == IK_PATCH * IK_MERGE
            for fam in (("inkling2", "inkling2_loop") if i == 0 else ("inkling2",)):
                emit(fam, cls, settings, w, h, tt * rows * cols * IK_MERGE ** 2 + 1, len(ids) - 1,
                     grid=[tt, rows, cols], padded=[rows * p.size["height"], cols * p.size["width"]],
                     placeholders=ids.count(image_id), cls_tokens=1, model_consistent=consistent)

    return inkling2

# The 2026-12 sections: runner name -> (extra sizes, setup).
NEW_SETUPS = {"deepseek_ocr2": (DS_EXTRA, deepseek_ocr2_setup), "nemotron_h_omni": (NH_EXTRA, nemotron_h_omni_setup),
              "molmo2": (MO_EXTRA, molmo2_setup), "muse_glimmer": (MG_EXTRA, muse_glimmer_setup),
              "inkling2": (IK_EXTRA, inkling2_setup)}
# Sizes every 2026-12 section adds to the 45: tiny, strips, an A4 scan at 300 dpi.
COMMON_EXTRA = [(1, 1), (2, 3), (1, 2000), (4000, 10), (10, 4000), (3508, 2480)]


if __name__ == "__main__":
    # With family runners named (`python measure_image_tokens.py llama4`), only those are
    # re-measured; the file's rows of every other family are kept as they are.
    only = set(sys.argv[1:])
    kept = []
    if only:
        with open(OUT) as f:
            kept = [json.loads(line) for line in f]
    for name, fn in [("qwen", qwen), ("glm4v", glm4v), ("gemma4", None), ("internvl", internvl), ("aya_vision", aya_vision), ("llava_next", llava_next),
                     ("llava_onevision", llava_onevision),
                     ("idefics3/smolvlm", idefics), ("idefics2", idefics2), ("gemma3", gemma3), ("pixtral", pixtral), ("mllama", mllama),
                     ("llama4", None), ("cohere2_vision", None), ("kimi_k25", None), ("step3p7", None),
                     ("lfm2_vl", None), ("glm5_next", None), ("apertus1p5", None),
                     ("minimax_m3_vl", None), ("hy_v4_vl", None), ("aria", None),
                     ("cohere_compass", None), ("paddleocr_vl", None),
                     ("cosmos3_edge", None), ("ernie4_5_vl_moe", None),
                     ("qianfan_ocr", None), ("lighton_ocr", None),
                     ("granite_docling", None), ("hunyuan_vl", None),
                     ("minicpmv4_6", None), ("perception_lm", None), ("video_llama_3", None),
                     ("deepseek_ocr2", None), ("nemotron_h_omni", None), ("molmo2", None), ("muse_glimmer", None),
                     ("inkling2", None)]:
        if only and name not in only:
            continue
        if name == "glm4v":
            SIZES.extend(GLM_EXTRA)
        if name == "gemma4":
            SIZES.extend(GEMMA4_EXTRA)
            fn = gemma4_setup()
        if name == "llama4":  # last: it installs the torchvision stand-in
            SIZES.extend(L4_EXTRA)
            fn = llama4_setup()
        if name == "cohere2_vision":
            SIZES.extend(C2_EXTRA)
            fn = cohere2_setup()
        if name == "kimi_k25":
            fn = kimi_k25_setup()
        if name == "step3p7":
            SIZES.extend(P7_EXTRA)
            fn = step3p7_setup()
        if name == "lfm2_vl":
            SIZES.extend(LF_EXTRA)
            fn = lfm2_vl_setup()
        if name == "glm5_next":
            SIZES.extend(G5_EXTRA)
            fn = glm5_next_setup()
        if name == "apertus1p5":
            extra = [s for s in AP_EXTRA if s not in SIZES]
            SIZES.extend(extra)
            fn = apertus1p5_setup()
        if name == "pixtral":
            SIZES.extend(PIX_EXTRA)
        if name == "minimax_m3_vl":
            SIZES.extend(MM3_EXTRA)
            fn = minimax_m3_vl_setup()
        if name == "hy_v4_vl":
            fn = hy_v4_vl_setup()
        if name == "aria":
            fn = aria_setup()
        if name == "cohere_compass":
            fn = cohere_compass_setup()
        if name == "paddleocr_vl":
            SIZES.extend(PD_EXTRA)
            fn = paddleocr_vl_setup()
        if name == "cosmos3_edge":
            SIZES.extend(C3_EXTRA)
            fn = cosmos3_edge_setup()
        if name == "qianfan_ocr":
            SIZES.extend(QF_EXTRA)
            fn = qianfan_ocr_setup()
        if name == "lighton_ocr":
            SIZES.extend(LO_EXTRA)
            fn = lighton_ocr_setup()
        if name == "minicpmv4_6":
            SIZES.extend(MC_EXTRA)
            fn = minicpmv4_6_setup()
        if name == "hunyuan_vl":
            SIZES.extend(HV_EXTRA)
            fn = hunyuan_vl_setup()
        if name == "granite_docling":
            SIZES.extend(GD_EXTRA)
            fn = granite_docling_setup()
        if name == "perception_lm":
            SIZES.extend(PL_EXTRA)
            fn = perception_lm_setup()
        if name == "ernie4_5_vl_moe":
            SIZES.extend(EV_EXTRA)
            fn = ernie4_5_vl_moe_setup()
        if name == "video_llama_3":
            SIZES.extend(VL3_EXTRA)
            fn = video_llama_3_setup()
        if name in NEW_SETUPS:
            # the 45 and this family's own sizes only, whatever sizes earlier runners left in SIZES
            outer_sizes = SIZES[:]
            SIZES[:] = FIXED + RANDOM
            for size in COMMON_EXTRA + NEW_SETUPS[name][0]:
                if size not in SIZES:
                    SIZES.append(size)
            fn = NEW_SETUPS[name][1]()
        run_family(name, fn)
        if name in NEW_SETUPS:
            SIZES[:] = outer_sizes
        if name == "minimax_m3_vl":
            del SIZES[len(SIZES) - len(MM3_EXTRA):]
        if name == "pixtral":
            del SIZES[len(SIZES) - len(PIX_EXTRA):]
        if name == "paddleocr_vl":
            del SIZES[len(SIZES) - len(PD_EXTRA):]
        if name == "cosmos3_edge":
            del SIZES[len(SIZES) - len(C3_EXTRA):]
        if name == "ernie4_5_vl_moe":
            del SIZES[len(SIZES) - len(EV_EXTRA):]
        if name == "video_llama_3":
            del SIZES[len(SIZES) - len(VL3_EXTRA):]
        if name == "qianfan_ocr":
            del SIZES[len(SIZES) - len(QF_EXTRA):]
        if name == "lighton_ocr":
            del SIZES[len(SIZES) - len(LO_EXTRA):]
        if name == "granite_docling":
            del SIZES[len(SIZES) - len(GD_EXTRA):]
        if name == "perception_lm":
            del SIZES[len(SIZES) - len(PL_EXTRA):]
        if name == "hunyuan_vl":
            del SIZES[len(SIZES) - len(HV_EXTRA):]
        if name == "minicpmv4_6":
            del SIZES[len(SIZES) - len(MC_EXTRA):]
        if name == "step3p7":
            del SIZES[len(SIZES) - len(P7_EXTRA):]
        if name == "lfm2_vl":
            del SIZES[len(SIZES) - len(LF_EXTRA):]
        if name == "glm5_next":
            del SIZES[len(SIZES) - len(G5_EXTRA):]
        if name == "apertus1p5":
            del SIZES[len(SIZES) - len(extra):]
        if name == "cohere2_vision":
            del SIZES[len(SIZES) - len(C2_EXTRA):]
        if name == "glm4v":  # its edge sizes are its own
            del SIZES[len(SIZES) - len(GLM_EXTRA):]
        if name == "gemma4":
            del SIZES[len(SIZES) - len(GEMMA4_EXTRA):]
    emitted = {r["family"] for r in rows}
    rows[:0] = [r for r in kept if r["family"] not in emitted]
    with open(OUT, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"transformers {transformers.__version__} torch {torch.__version__} pillow {PIL.__version__}; "
          f"{len(rows)} rows -> {OUT}", file=sys.stderr)
