"""The attention transformers runs by default for each config's language model.

Every config under tests/data/configs (one per model_type: the first in name
order) is built on the meta device with `from_config` and no
`attn_implementation`, as a user's `from_pretrained` builds it; the row keeps
`_attn_implementation` of the text config (`config.get_text_config()`) and the
`_supports_flash_attn` flag of the outermost module built on that config.
Run: HF_HUB_OFFLINE=1 python measure_default_attention.py  (writes default_attention.csv)
"""
import csv
import glob
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText, PreTrainedModel

here = os.path.dirname(os.path.abspath(__file__))
configs = os.path.normpath(os.path.join(here, "..", "configs"))
seen = set()
rows = []
for path in sorted(glob.glob(os.path.join(configs, "**", "*.json"), recursive=True)):
    name = os.path.relpath(path, configs)
    try:
        d = json.load(open(path))
    except Exception:  # noqa: BLE001
        continue
    mt = d.get("model_type")
    if not isinstance(mt, str) or mt in seen:
        continue
    model = None
    for auto in (AutoModelForCausalLM, AutoModelForImageTextToText):
        try:
            cfg = AutoConfig.for_model(**d)
            with torch.device("meta"):
                model = auto.from_config(cfg)
            break
        except Exception as e:  # noqa: BLE001 (left out and said so)
            err = f"{type(e).__name__}: {str(e)[:80]}"
    if model is None:
        print("cannot build", name, err, file=sys.stderr)
        continue
    seen.add(mt)
    text = model.config.get_text_config()
    owner = next((m for m in model.modules() if isinstance(m, PreTrainedModel) and m.config is text), model)
    rows.append(dict(config=name, model_type=mt, text_model_type=getattr(text, "model_type", mt),
                     default_attention=text._attn_implementation,
                     flash=bool(getattr(owner, "_supports_flash_attn", False))))
    print(name, rows[-1]["default_attention"], file=sys.stderr)
    del model
with open(os.path.join(here, "default_attention.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} rows; torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
