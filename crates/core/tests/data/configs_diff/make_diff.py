"""Diff-saved copies of the config fixtures in ../configs/: what
`save_pretrained(use_diff=True)` / `to_diff_dict()` writes (only the keys that
differ from the config class's defaults, non-finite floats as Python's
`Infinity`): every VLM fixture (vlm/) and one text fixture per model_type.
tests/hf_config_diff.rs imports each
and expects exactly what the full fixture imports.

    HF_HUB_OFFLINE=1 python3 make_diff.py     # from this folder, transformers installed
"""
import glob
import json
import os
import warnings

import transformers
from transformers import CONFIG_MAPPING

warnings.filterwarnings("ignore")
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "vlm"), exist_ok=True)
seen = set()
# Every VLM fixture (their nested text and vision configs diff against
# their own classes), then one text fixture per model_type.
sources = [(p, "vlm") for p in sorted(glob.glob(os.path.join(here, "..", "configs", "vlm", "*.json")))]
sources += [(p, "") for p in sorted(glob.glob(os.path.join(here, "..", "configs", "*.json")))]
for path, sub in sources:
    d = json.load(open(path))
    t = d.get("model_type")
    if not sub and t in seen:
        continue
    try:
        cfg = CONFIG_MAPPING[t](**{k: v for k, v in d.items() if k != "model_type"})
    except Exception:  # a model_type transformers does not know (remote code): no class to diff against
        continue
    if not sub:
        seen.add(t)
    diff = cfg.to_diff_dict()
    diff["model_type"] = t
    diff.pop("transformers_version", None)
    with open(os.path.join(here, sub, os.path.basename(path)), "w") as f:
        json.dump(diff, f, indent=1)  # allow_nan: Infinity stays as transformers writes it
print(f"{len(seen)} model types, transformers {transformers.__version__}")
