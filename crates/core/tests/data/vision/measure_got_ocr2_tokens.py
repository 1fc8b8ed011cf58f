"""GOT-OCR2 image tokens: run GotOcr2Processor (+GotOcr2ImageProcessorPil) on synthetic PIL images.
HF_HUB_OFFLINE=1 /work/venv/bin/python measure_images.py   (writes image_rows.jsonl, feature_check.json)"""
import json, os, random
os.environ["HF_HUB_OFFLINE"] = "1"
import torch
from PIL import Image
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (GotOcr2Config, GotOcr2ForConditionalGeneration, GotOcr2ImageProcessorPil,
                          GotOcr2Processor, PreTrainedTokenizerFast)
from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import get_optimal_tiled_canvas

HERE = os.path.dirname(os.path.abspath(__file__))
SPECIAL = ["<unk>", "<imgpad>", "<img>", "</img>", "<|im_start|>", "<|im_end|>"]


def make_tokenizer():
    tk = Tokenizer(models.WordLevel({t: i for i, t in enumerate(SPECIAL)}, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>")
    tok.add_special_tokens({"additional_special_tokens": SPECIAL[1:]})
    return tok


TOK = make_tokenizer()
IMGPAD, IMG_S, IMG_E = (TOK.convert_tokens_to_ids(t) for t in ("<imgpad>", "<img>", "</img>"))

FIXED = [(1, 1), (2, 3), (1, 2000), (4000, 10), (10, 4000), (1920, 1080), (4032, 3024), (3508, 2480), (2480, 3508),
         (224, 224), (384, 384), (1024, 1024), (1024, 768), (768, 1024), (640, 480), (1280, 720), (3024, 4032),
         (1700, 2200), (100, 2000), (2000, 100), (2048, 1024), (1024, 2048), (3072, 1024), (1024, 3072),
         (2048, 2048), (1536, 1024), (1023, 1025), (8000, 8000), (300, 200), (2000, 1000), (512, 512)]
rng = random.Random(20240607)
RANDOM = []
while len(FIXED) + len(RANDOM) < 45:
    w, h = rng.randint(16, 5000), rng.randint(16, 5000)
    if max(w, h) / min(w, h) < 50:
        RANDOM.append((w, h))
SIZES = FIXED + RANDOM

SETTINGS = [
    ("class defaults (GotOcr2ImageProcessor(); NOT usable with the 1024 tower)",
     dict(size={"height": 384, "width": 384}, crop_to_patches=False, min_patches=1, max_patches=12)),
    ("GOT-OCR-2.0-hf-like: 1024 tiles, no cropping (plain OCR)",
     dict(size={"height": 1024, "width": 1024}, crop_to_patches=False, min_patches=1, max_patches=12)),
    ("1024 tiles, crop_to_patches=True, max_patches=6 (docs' crop example)",
     dict(size={"height": 1024, "width": 1024}, crop_to_patches=True, min_patches=1, max_patches=6)),
    ("class-default 384 tiles, crop_to_patches=True, max_patches=6 (tie rule uses tile area)",
     dict(size={"height": 384, "width": 384}, crop_to_patches=True, min_patches=1, max_patches=6)),
]
PATCH = 16                 # GotOcr2VisionConfig.patch_size
NUM_IMAGE_TOKENS = 256     # GotOcr2Processor.num_image_tokens (processor attr, NOT config.image_seq_length=576)


def ceil_half(n):
    return (n - 1) // 2 + 1   # Conv2d k3 s2 p1 output size


def run(proc_kwargs, w, h):
    ip = GotOcr2ImageProcessorPil(size=proc_kwargs["size"])
    proc = GotOcr2Processor(image_processor=ip, tokenizer=TOK)
    img = Image.new("RGB", (w, h))
    kw = {k: proc_kwargs[k] for k in ("crop_to_patches", "min_patches", "max_patches")}
    out = proc(images=img, return_tensors="pt", **kw)
    ids = out["input_ids"][0].tolist()
    return out, ids, ip


rows = []
for note, s in SETTINGS:
    tile = s["size"]["height"]
    G = tile // PATCH
    for (w, h) in SIZES:
        row = dict(family="got_ocr2", processor_class="GotOcr2Processor + GotOcr2ImageProcessorPil",
                   settings={**s, "do_resize": True, "note": note},
                   processor_settings={"num_image_tokens": NUM_IMAGE_TOKENS}, width=w, height=h)
        try:
            out, ids, ip = run(s, w, h)
        except Exception as e:  # noqa
            row.update(refused=True, error=f"{type(e).__name__}: {e}"[:300])
            rows.append(row)
            continue
        tiles = out["pixel_values"].shape[0]
        cols, rows_ = get_optimal_tiled_canvas((h, w), (tile, tile), s["min_patches"], s["max_patches"]) \
            if (s["crop_to_patches"] and s["max_patches"] > 1) else (1, 1)
        helper = ip.get_number_of_image_patches(h, w, {k: s[k] for k in ("crop_to_patches", "min_patches", "max_patches")} | {"patch_size": s["size"]})
        placeholders = ids.count(IMGPAD)
        row.update(grid=[rows_, cols], thumbnail=cols * rows_ > 1, tiles=tiles,
                   helper_patches=helper, helper_matches=helper == tiles,
                   pixel_shape=list(out["pixel_values"].shape[1:]),
                   tower_tokens=tiles * G * G,
                   model_features_per_tile=ceil_half(ceil_half(G)) ** 2,
                   language_model_tokens=placeholders,
                   lm_tokens_with_img_start_end=placeholders + ids.count(IMG_S) + ids.count(IMG_E),
                   closed_form_matches=(placeholders == NUM_IMAGE_TOKENS * tiles
                                        and tiles == (cols * rows_ + (1 if cols * rows_ > 1 else 0))))
        rows.append(row)

with open(os.path.join(HERE, "image_rows.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r, sort_keys=True) + "\n")
print(len(rows), "rows; refused", sum(r.get("refused", False) for r in rows),
      "; helper mismatches", sum(not r.get("helper_matches", True) for r in rows),
      "; closed-form mismatches", sum(not r.get("closed_form_matches", True) for r in rows))

# ---- features == placeholders on a tiny model (real forward, 1024 tiles) ----
checks = []
def tiny(image_size):
    cfg = GotOcr2Config(
        image_token_index=IMGPAD, tie_word_embeddings=True,
        text_config={"model_type": "qwen2", "vocab_size": 16, "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1},
        vision_config={"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 32,
                       "output_channels": 8, "image_size": image_size, "patch_size": 16, "window_size": 14,
                       "global_attn_indexes": [1]})
    torch.manual_seed(0)
    return GotOcr2ForConditionalGeneration(cfg).eval()

m = tiny(1024)
for (w, h), s in [((1920, 1080), SETTINGS[2][1]), ((10, 4000), SETTINGS[2][1]), ((3508, 2480), SETTINGS[1][1])]:
    out, ids, _ = run(s, w, h)
    with torch.no_grad():
        feats = m.model.get_image_features(pixel_values=out["pixel_values"]).pooler_output
        m(input_ids=out["input_ids"], pixel_values=out["pixel_values"])  # raises if counts differ
    checks.append(dict(width=w, height=h, settings=s, tiles=out["pixel_values"].shape[0],
                       features=int(feats.shape[0] * feats.shape[1]), placeholders=ids.count(IMGPAD),
                       equal=int(feats.shape[0] * feats.shape[1]) == ids.count(IMGPAD), forward_ok=True))
# 384 tiles (class-default processor) with a 384 tower: 6x6=36 features/tile vs 256 placeholders
m384 = tiny(384)
out, ids, _ = run(SETTINGS[0][1], 640, 480)
with torch.no_grad():
    feats = m384.model.get_image_features(pixel_values=out["pixel_values"]).pooler_output
    try:
        m384(input_ids=out["input_ids"], pixel_values=out["pixel_values"]); err = None
    except Exception as e:
        err = f"{type(e).__name__}: {e}"[:200]
checks.append(dict(width=640, height=480, settings=SETTINGS[0][1], tower_image_size=384,
                   features=int(feats.shape[0] * feats.shape[1]), placeholders=ids.count(IMGPAD), forward_error=err))
# 384 pixels into the default 1024 tower
try:
    with torch.no_grad():
        m.model.get_image_features(pixel_values=out["pixel_values"]); err = None
except Exception as e:
    err = f"{type(e).__name__}: {e}"[:200]
checks.append(dict(note="384px tile into image_size=1024 tower", error=err))
with open(os.path.join(HERE, "feature_check.json"), "w") as f:
    json.dump(checks, f, indent=1)
print(json.dumps(checks, indent=1))
