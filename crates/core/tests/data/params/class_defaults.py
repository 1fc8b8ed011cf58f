"""Writes crates/core/src/hf_config/class_defaults.rs: transformers' config-class
defaults (`CONFIG_MAPPING[model_type]()`) of every model_type the importer
knows, for the keys the importer reads.

transformers saves a config as a diff against its class defaults when asked
(`to_diff_dict`, `save_pretrained(use_diff=True)`), and hand-written configs
leave defaults out too; transformers fills every absent key from the class,
so the importer must as well. Integers and booleans only (what the importer
reads as numbers and flags). Run with HF_HUB_OFFLINE=1; nothing is downloaded:

    python3 class_defaults.py        # from this folder, in a venv with transformers
"""
import glob
import os
import re
import sys
import warnings

import transformers
from transformers import CONFIG_MAPPING

warnings.filterwarnings("ignore")
here = os.path.dirname(os.path.abspath(__file__))
core = os.path.normpath(os.path.join(here, "..", "..", ".."))
src = [os.path.join(core, "src", "hf_config.rs")] + glob.glob(os.path.join(core, "src", "hf_config", "*.rs"))
keys = set()
for p in src:
    if p.endswith("class_defaults.rs"):
        continue
    keys |= set(re.findall(r'"([a-z][a-z0-9_]*)"', open(p).read()))
# Keys the importer only checks for presence, whose defaults it never reads.
keys -= {"eos_token_id"}
# The model_types the importer knows: the first list of each `names(Arch::..., &[...], ...)`
# entry of src/model/arch.rs's NAMES.
arch = open(os.path.join(core, "src", "model", "arch.rs")).read()
types = [t for m in re.finditer(r"names\(\s*Arch::\w+,\s*&\[([^\]]*)\]", arch)
         for t in re.findall(r'"([^"]+)"', m.group(1))]
# Wrappers and sub-config classes the importer reads through `Defaults::Class("...")`.
types += [t for p in src for t in re.findall(r'Defaults::Class\("([a-z0-9_]+)"\)', open(p).read())]
types += [t for p in src for t in re.findall(r'text_config_or_class\([^,]+,\s*"([a-z0-9_]+)"\)', open(p).read())]
types += ["glm4v", "glm4v_moe", "glm46v", "glm4v_text", "glm4v_moe_text", "gemma3n_audio", "gemma3n_vision"]
# Families read whole by their own module (hf_config/inkling.rs).
types += ["inkling_text", "inkling2_text", "inkling2_loop_text"]
SIZE_GROUPS = [{"hidden_size", "n_embd", "d_model"}, {"num_attention_heads", "n_head", "num_heads"},
               {"num_hidden_layers", "n_layer", "num_layers"}, {"vocab_size"}]
rows = []
for t in sorted(set(types)):
    try:
        cfg = CONFIG_MAPPING[t]()
        d = cfg.to_dict()
        # Keys the class reads under another name (`attribute_map`: Qwen3-MoE's
        # `num_experts` is `num_local_experts` in transformers 5) default alike.
        for alias, real in getattr(cfg, "attribute_map", {}).items():
            if real in d and alias not in d:
                d[alias] = d[real]
    except Exception as e:  # unknown to transformers, or no defaults to build from: nothing to read
        print(f"{t}: {type(e).__name__}", file=sys.stderr)
        continue
    # A key the class derives from others (Llama's head_dim = hidden / heads,
    # Falcon's ffn_hidden_size = 4 × hidden) has no default of its own: build
    # the class with its sizes doubled and drop what moved.
    moved = set()
    for group in SIZE_GROUPS:  # one group at a time: head_dim moves with hidden or with heads alone
        sizes = {k: 2 * v for k, v in d.items()
                 if k in group and isinstance(v, int) and not isinstance(v, bool) and v > 0}
        try:
            try:
                alt = CONFIG_MAPPING[t](**sizes).to_dict()
            except Exception:
                # a class that wants as many key-value heads as heads (GLM-5.3-Flash): double both
                kv = d.get("num_key_value_heads")
                if "num_attention_heads" not in sizes or not isinstance(kv, int) or kv <= 0:
                    raise
                sizes["num_key_value_heads"] = 2 * kv
                alt = CONFIG_MAPPING[t](**sizes).to_dict()
            # an alias of a derived key (Zamba's head_dim = attention_head_dim) moves with it
            for alias, real in getattr(CONFIG_MAPPING[t], "attribute_map", {}).items():
                if real in alt and alias not in alt:
                    alt[alias] = alt[real]
            moved |= {k for k, v in alt.items() if k not in sizes and d.get(k) != v}
        except Exception as e:  # a class that refuses other sizes: drop the usual derived keys by name
            print(f"{t}: sizes refused ({type(e).__name__})", file=sys.stderr)
            moved |= {"head_dim", "ffn_hidden_size", "kv_channels", "intermediate_size"}
    ints = []
    for k in sorted(d):
        v = d[k]
        if k not in keys or k == "model_type" or k in moved:
            continue
        if isinstance(v, bool):
            ints.append((k, int(v), True))
        elif isinstance(v, int) and 0 <= v < 1 << 53:
            ints.append((k, v, False))
    if ints:
        rows.append((t, ints))
out = os.path.join(core, "src", "hf_config", "class_defaults.rs")
with open(out, "w") as f:
    f.write("//! Generated by tests/data/params/class_defaults.py from transformers "
            f"{transformers.__version__}:\n//! each model_type's config-class defaults "
            "(`CONFIG_MAPPING[model_type]()`) for the keys the\n//! importer reads. Do not edit; "
            "rerun the script.\n\n")
    f.write("/// `(model_type, [(key, value)])`; flags as 0 / 1.\n")
    f.write("pub(super) static CLASS_DEFAULTS: &[(&str, &[(&str, u64)])] = &[\n")
    for t, ints in rows:
        f.write(f'    ("{t}", &[\n')
        for k, v, _ in ints:
            f.write(f'        ("{k}", {v}),\n')
        f.write("    ]),\n")
    f.write("];\n")
print(f"{len(rows)} model types, {sum(len(r[1]) for r in rows)} defaults -> {out}")
