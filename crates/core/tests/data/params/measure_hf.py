#!/usr/bin/env python
"""Measures the exact parameter count of every config fixture in ../configs/ by building the
transformers model class it names on the *meta* device (no weights are allocated or downloaded)
and counting `model.num_parameters()`.

Run with torch and transformers installed (measured with torch 2.15.0, transformers 5.23.0):
    python measure_hf.py > hf_measured.csv
"""
import glob
import json
import os
import sys

import torch
import transformers
from transformers import (AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM,
                          AutoModelForSequenceClassification, BertModel, CLIPVisionConfig,
                          CLIPVisionModel, CLIPVisionModelWithProjection, LlavaConfig,
                          LlavaForConditionalGeneration)

HERE = os.path.dirname(os.path.abspath(__file__))
# Old Falcon checkpoints use this model_type; current transformers reads them as `falcon`.
ALIASES = {"RefinedWebModel": "falcon", "RefinedWeb": "falcon"}


def build(cfg):
    d = dict(cfg)
    mt = ALIASES.get(d.pop("model_type"), cfg["model_type"])
    arch = (d.get("architectures") or [""])[0]
    if mt == "clip":
        vc = CLIPVisionConfig(**d["vision_config"])
        return CLIPVisionModel(vc)
    if mt == "clip_vision_model":
        vc = CLIPVisionConfig(**{k: v for k, v in d.items() if k != "architectures"})
        return CLIPVisionModelWithProjection(vc) if arch.endswith("WithProjection") else CLIPVisionModel(vc)
    if mt == "llava":
        return LlavaForConditionalGeneration(LlavaConfig(**d))
    d.pop("quantization_config", None)  # count the logical (unquantized) architecture
    config = AutoConfig.for_model(mt, **d)
    if mt in ("t5", "mt5"):
        return AutoModelForSeq2SeqLM.from_config(config)
    if mt in ("bert", "deberta-v2"):
        if arch.endswith("ForSequenceClassification"):
            return AutoModelForSequenceClassification.from_config(config)
        return BertModel(config)
    return AutoModelForCausalLM.from_config(config)


def main():
    # The 2025 fixtures (hybrid/recurrent/multimodal wrappers) are measured by
    # measure_hf_2025.py into hf_measured_2025.csv; keep them out of hf_measured.csv.
    sys.path.insert(0, HERE)
    # The catalog fixtures (measure_hf_catalog.py -> hf_measured_catalog.csv) likewise.
    from measure_hf_2025 import FIXTURES_2025
    from measure_hf_catalog import FIXTURES_CATALOG
    skip = set(FIXTURES_2025) | set(FIXTURES_CATALOG)
    print("config,hf_class,num_parameters")
    for path in sorted(glob.glob(os.path.join(HERE, "..", "configs", "*.json"))):
        if os.path.basename(path) in skip:
            continue
        with open(path) as f:
            cfg = json.load(f)
        with torch.device("meta"):
            model = build(cfg)
        print(f"{os.path.basename(path)},{type(model).__name__},{model.num_parameters()}", flush=True)
    print(f"# torch {torch.__version__} transformers {transformers.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
