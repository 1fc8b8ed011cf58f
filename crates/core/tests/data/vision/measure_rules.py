"""Ground truth for `vramfit_core::image_tokens`: for many image sizes, the
functions transformers' image processors call to size an image, run as they
are (no re-implementation):

- qwen: `smart_resize` (transformers/models/qwen2_vl/image_processing_pil_qwen2_vl.py),
  the resize every Qwen2-VL / Qwen2.5-VL / Qwen3-VL image goes through, with
  the processor's defaults (patch 14, merge 2, 56·56 .. 28·28·1280 pixels) and
  Qwen3-VL's checkpoint settings (patch 16, merge 2, 65,536 .. 16,777,216);
  grid = resized / patch, tower tokens = grid_h · grid_w (one temporal
  patch), language-model tokens = tower tokens / merge².
- internvl: `get_optimal_tiled_canvas` (models/got_ocr2/image_processing_pil_got_ocr2.py)
  with 448 px tiles, 1 .. 12 tiles (InternVL's `crop_to_patches` defaults);
  tiles = columns · rows, plus the thumbnail when more than one.
- mllama: `get_optimal_tiled_canvas` (models/mllama/image_processing_pil_mllama.py)
  with 560 px tiles, at most 4; tiles = canvas / 560 squared.

HF_HUB_OFFLINE=1 python measure_rules.py > image_rules.jsonl
torch 2.15.0, transformers 5.24.0 (the PIL processors need no torchvision).
"""
import json
import random

from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import get_optimal_tiled_canvas as internvl_canvas
from transformers.models.mllama.image_processing_pil_mllama import get_optimal_tiled_canvas as mllama_canvas
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import smart_resize

SIZES = [(224, 224), (336, 336), (448, 448), (640, 480), (480, 640), (1024, 768), (1280, 720),
         (1920, 1080), (1080, 1920), (4032, 3024), (3024, 4032), (1700, 2200), (100, 2000),
         (2000, 100), (28, 28), (56, 28), (8000, 8000), (1, 1), (27, 29), (2560, 1440),
         (3840, 2160), (896, 896), (560, 560), (1120, 560), (800, 1200), (12000, 60)]
rng = random.Random(2026)
SIZES += [(rng.randint(16, 6000), rng.randint(16, 6000)) for _ in range(60)]

for w, h in SIZES:
    for name, patch, merge, lo, hi in [("qwen2_vl", 14, 2, 56 * 56, 28 * 28 * 1280),
                                       ("qwen3_vl", 16, 2, 65536, 16777216)]:
        if max(w, h) / min(w, h) > 200:
            continue
        rh, rw = smart_resize(h, w, patch * merge, lo, hi)
        tower = (rh // patch) * (rw // patch)
        print(json.dumps({"family": name, "settings": {"patch": patch, "merge": merge, "min_pixels": lo,
                          "max_pixels": hi}, "width": w, "height": h, "resized": [rw, rh],
                          "tower_tokens": tower, "language_model_tokens": tower // merge ** 2}))
    cols, rows = internvl_canvas((h, w), (448, 448), 1, 12)
    tiles = cols * rows + (1 if cols * rows > 1 else 0)
    print(json.dumps({"family": "internvl", "settings": {"tile": 448, "min_tiles": 1, "max_tiles": 12,
                      "tokens_per_tile": 256}, "width": w, "height": h, "tiles": tiles,
                      "tower_tokens": tiles * 256, "language_model_tokens": tiles * 256}))
    ch, cw = mllama_canvas(h, w, 4, 560)
    print(json.dumps({"family": "mllama", "settings": {"tile": 560, "patch": 14, "max_tiles": 4},
                      "width": w, "height": h, "tiles": int(ch // 560) * int(cw // 560)}))
