"""Parameter counts of each 2025-26 family's transformers config-class defaults.

For every model_type below: write `CONFIG_MAPPING[model_type]()` (the class
defaults, which transformers documents as its reference checkpoint's sizes)
to ../configs/defaults_2025/<model_type>.json, build the causal-LM model on
the meta device and record `model.num_parameters()` in
hf_defaults_2025.csv. Run with HF_HUB_OFFLINE=1; nothing is downloaded.
"""
import csv, json, os, sys
import torch, transformers
from transformers import AutoModelForCausalLM, CONFIG_MAPPING

TYPES = ("llama4_text mamba mamba2 jamba nemotron_h falcon_h1 granitemoehybrid "
         "qwen3_next qwen3_5_text qwen3_5_moe_text lfm2 minimax deepseek_v32 glm4 glm4_moe olmo2 olmo3 "
         "cohere cohere2 smollm3 apertus ernie4_5 ernie4_5_moe exaone4 seed_oss "
         "hunyuan_v1_dense hunyuan_v1_moe").split()
# Families that reuse a modelled layer (their modular files inherit it):
# measured into their own table, hf_defaults_more.csv.
MORE = "granite helium internlm3 ministral ministral3 granitemoe glm solar_open falcon_mamba mellum youtu olmoe minimax_m2 phimoe arcee jais2 olmo exaone starcoder2 vaultgemma minicpm3".split()
if sys.argv[1:] == ["--more"]:
    TYPES, TABLE = MORE, "hf_defaults_more.csv"
else:
    TABLE = "hf_defaults_2025.csv"
here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.join(here, "..", "configs", "defaults_2025")
rows = []
for t in TYPES:
    if t not in CONFIG_MAPPING:
        continue
    cfg = CONFIG_MAPPING[t]()
    if getattr(cfg, "head_dim", 0) is None:
        # HunYuan's defaults leave head_dim None, which its attention cannot
        # build; use hidden / heads as its modeling file would need.
        cfg = CONFIG_MAPPING[t](head_dim=cfg.hidden_size // cfg.num_attention_heads)
    d = json.loads(cfg.to_json_string(use_diff=False))
    for k in ("transformers_version", "_name_or_path"):
        d.pop(k, None)
    d["model_type"] = t
    with open(os.path.join(out_dir, f"{t}.json"), "w") as f:
        json.dump(d, f, indent=1, sort_keys=True, allow_nan=True)
    try:
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(cfg)
    except Exception as e:  # defaults this transformers cannot build: not measured
        print(f"{t}: {type(e).__name__}: {e}"[:200], file=sys.stderr)
        os.remove(os.path.join(out_dir, f"{t}.json"))
        continue
    rows.append((f"defaults_2025/{t}.json", type(model).__name__, model.num_parameters()))
    print(rows[-1], file=sys.stderr)
with open(os.path.join(here, TABLE), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["config", "hf_class", "num_parameters"])
    w.writerows(rows)
print(f"torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
