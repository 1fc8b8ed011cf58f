"""FastVLM image tokens: run LlavaProcessor + CLIPImageProcessor (the processor the HF FastVLM checkpoints ship,
see transformers/models/fast_vlm/convert_fastvlm_weights_to_hf.py) on synthetic PIL images; count the tower's output
positions with a meta-device forward of the real fastvit_mci3 tower on the processor's pixel_values shape; check
features == placeholders on a tiny model.

Run: cd /work/scratch/fast_vlm && PYTHONPATH=$PWD/pylib:$PWD/tvlib HF_HUB_OFFLINE=1 /work/venv/bin/python measure_images.py
(timm 1.0.31 in pylib, torchvision 0.29.2 in tvlib, both `pip install --no-deps --target`; timm needs torchvision.)
Rows: image_rows.jsonl. Tiny-model check: tiny_check.json.
"""
import copy
import json
import math
import os
import random
import sys
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")
import torch
import transformers
from PIL import Image
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (AutoModel, AutoModelForImageTextToText, CLIPImageProcessorPil, FastVlmConfig,
                          LlavaProcessor, PreTrainedTokenizerFast)
from transformers.image_transforms import get_resize_output_image_size

transformers.logging.set_verbosity_error()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from variants import VARIANTS  # noqa: E402

FIXED = [(1, 1), (2, 3), (1, 2000), (4000, 10), (10, 4000), (1920, 1080), (1080, 1920), (4032, 3024), (3024, 4032),
         (3508, 2480), (2480, 3508), (224, 224), (336, 336), (1024, 1024), (1023, 1023), (1025, 1025), (1024, 768),
         (768, 1024), (1280, 720), (640, 480), (2048, 1024), (1024, 2048), (64, 64), (63, 65), (100, 2000),
         (2000, 100), (8000, 8000), (1088, 1024)]
rng = random.Random(20240607)
RANDOM = []
while len(RANDOM) < 17:
    w, h = rng.randint(16, 5000), rng.randint(16, 5000)
    if max(w, h) / min(w, h) < 50:
        RANDOM.append((w, h))
SIZES = FIXED + RANDOM
assert len(SIZES) == 45

# Image-processor kwargs. (a) what convert_fastvlm_weights_to_hf.py saves with every HF FastVLM checkpoint;
# (b) the same without the center crop (aspect kept, shortest edge 1024); (c) CLIPImageProcessor's class defaults.
COMMON = dict(do_resize=True, resample=3, do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
              do_convert_rgb=True)
SETTINGS = [
    ("FastVLM checkpoints (convert_fastvlm_weights_to_hf.py)",
     dict(COMMON, size={"shortest_edge": 1024}, do_center_crop=True, crop_size={"height": 1024, "width": 1024},
          image_mean=[0.0, 0.0, 0.0], image_std=[1.0, 1.0, 1.0])),
    ("do_center_crop false (aspect kept)",
     dict(COMMON, size={"shortest_edge": 1024}, do_center_crop=False, crop_size={"height": 1024, "width": 1024},
          image_mean=[0.0, 0.0, 0.0], image_std=[1.0, 1.0, 1.0])),
    ("CLIPImageProcessor class defaults (224)",
     dict(COMMON, size={"shortest_edge": 224}, do_center_crop=True, crop_size={"height": 224, "width": 224},
          image_mean=[0.48145466, 0.4578275, 0.40821073], image_std=[0.26862954, 0.26130258, 0.27577711])),
]
PROC = dict(patch_size=64, vision_feature_select_strategy=None, num_additional_image_tokens=0, image_token="<image>")
MAX_RUN_PIXELS = 64 * 1024 * 1024  # above this the resized float32 image would not fit in memory here


def word_tokenizer():
    vocab = {"[UNK]": 0, "x": 1, "<image>": 2}
    wl = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    wl.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=wl, unk_token="[UNK]")
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    return tok


TOK = word_tokenizer()


def processor(kw):
    return LlavaProcessor(image_processor=CLIPImageProcessorPil(**kw), tokenizer=TOK, patch_size=PROC["patch_size"],
                          vision_feature_select_strategy=PROC["vision_feature_select_strategy"],
                          num_additional_image_tokens=PROC["num_additional_image_tokens"])


def expected_pixels(kw, w, h):
    """(H, W) of pixel_values, from the library's own resize helper (used where the run would not fit)."""
    H, W = get_resize_output_image_size(torch.zeros(3, h, w), size=kw["size"]["shortest_edge"],
                                        default_to_square=False, input_data_format="channels_first")
    if kw["do_center_crop"]:
        H, W = kw["crop_size"]["height"], kw["crop_size"]["width"]
    return H, W


# the default FastVLM tower (fastvit_mci3), on meta: its forward gives the output grid for any input shape
with torch.device("meta"):
    TOWER = AutoModel.from_config(FastVlmConfig().vision_config).eval()


def tower_grid(H, W):
    with torch.no_grad():
        out = TOWER(torch.empty(1, 3, H, W, device="meta"), return_dict=True).last_hidden_state
    return list(out.shape[-2:]), out.shape[1]


def ceil64(n):
    for _ in range(6):
        n = (n - 1) // 2 + 1  # conv k3 p1 s2 (stem x2) and k7 p3 s2 (4 patch embeds): ceil(n/2)
    return n


rows = []
for note, kw in SETTINGS:
    proc = processor(kw)
    settings = dict(kw, note=note, processor_config=dict(PROC), image_processor_type="CLIPImageProcessor",
                    processor_class="LlavaProcessor")
    for (w, h) in SIZES:
        row = dict(family="fast_vlm", processor_class="LlavaProcessor+CLIPImageProcessor(Pil)", settings=settings,
                   width=w, height=h)
        H, W = expected_pixels(kw, w, h)
        try:
            if H * W <= MAX_RUN_PIXELS:
                out = proc(text="<image>", images=Image.new("RGB", (w, h)), return_tensors="pt")
                ids = out["input_ids"][0].tolist()
                n_ph = sum(1 for t in ids if t == proc.image_token_id)
                assert len(ids) == n_ph, ids  # nothing but placeholders is inserted per image
                pH, pW = out["pixel_values"].shape[-2:]
                assert (pH, pW) == (H, W), ((pH, pW), (H, W))
                row["ran_processor"] = True
            else:
                n_ph = (H // 64) * (W // 64)  # LlavaProcessor.replace_image_token on the helper's shape
                pH, pW = H, W
                row["ran_processor"] = False
        except Exception as e:  # noqa: BLE001
            row.update(refused=True, error=f"{type(e).__name__}: {e}"[:300])
            rows.append(row)
            print(json.dumps(row))
            continue
        grid, ch = tower_grid(pH, pW)
        assert grid == [ceil64(pH), ceil64(pW)] and ch == 3072
        row.update(resized=[pH, pW], tower_grid=grid, tower_tokens=grid[0] * grid[1], language_model_tokens=n_ph,
                   placeholders_match_features=(n_ph == grid[0] * grid[1]))
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "settings"}))

with open(os.path.join(HERE, "image_rows.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r, sort_keys=True) + "\n")

# ---- tiny model: features == placeholders?  (variant 2's 5-stage /64 tower, image token id 2 of the tokenizer)
over = copy.deepcopy(VARIANTS["fast_vlm"][2])
over["image_token_index"] = TOK.convert_tokens_to_ids("<image>")
cfg = FastVlmConfig(**over)
torch.manual_seed(0)
model = AutoModelForImageTextToText.from_config(cfg).eval()
checks = []
for si, sizes in [(0, [(1920, 1080), (1, 1), (4032, 3024), (63, 65)]), (1, [(2048, 1024), (1920, 1080), (640, 480)]),
                  (2, [(1920, 1080)])]:
    note, kw = SETTINGS[si]
    proc = processor(kw)
    for (w, h) in sizes:
        out = proc(text="x <image> x", images=Image.new("RGB", (w, h)), return_tensors="pt")
        n_ph = int((out["input_ids"] == cfg.image_token_index).sum())
        feats = model.model.get_image_features(pixel_values=out["pixel_values"]).pooler_output
        rec = dict(setting=note, width=w, height=h, pixel_values=list(out["pixel_values"].shape),
                   placeholders=n_ph, features=int(feats.shape[1]), feature_dim=int(feats.shape[2]))
        try:
            with torch.no_grad():
                logits = model(input_ids=out["input_ids"], pixel_values=out["pixel_values"]).logits
            rec["forward"] = f"ok, logits {list(logits.shape)}"
        except Exception as e:  # noqa: BLE001
            rec["forward"] = f"{type(e).__name__}: {str(e)[:160]}"
        checks.append(rec)
        print(json.dumps(rec))
with open(os.path.join(HERE, "tiny_check.json"), "w") as f:
    json.dump(checks, f, indent=1)
