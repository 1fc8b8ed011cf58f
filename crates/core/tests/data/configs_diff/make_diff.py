"""Diff-saved copies of the config fixtures in ../configs/: what
`save_pretrained(use_diff=True)` / `to_diff_dict()` writes (only the keys that
differ from the config class's defaults, non-finite floats as Python's
`Infinity`), one fixture per model_type. tests/hf_config_diff.rs imports each
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
seen = set()
for path in sorted(glob.glob(os.path.join(here, "..", "configs", "*.json"))):
    d = json.load(open(path))
    t = d.get("model_type")
    if t in seen:
        continue
    try:
        cfg = CONFIG_MAPPING[t](**{k: v for k, v in d.items() if k != "model_type"})
    except Exception:  # a model_type transformers does not know (remote code): no class to diff against
        continue
    seen.add(t)
    diff = cfg.to_diff_dict()
    diff["model_type"] = t
    diff.pop("transformers_version", None)
    with open(os.path.join(here, os.path.basename(path)), "w") as f:
        json.dump(diff, f, indent=1)  # allow_nan: Infinity stays as transformers writes it
print(f"{len(seen)} model types, transformers {transformers.__version__}")
