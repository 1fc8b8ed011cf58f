#!/usr/bin/env python
"""Exact transformers parameter counts for the 2025 config fixtures (hybrid / recurrent /
multimodal-wrapper families), with a split into embedding, lm_head, vision tower and projector.

Each fixture in FIXTURES_2025 (files in ../configs/) is built on the *meta* device (nothing is
allocated or downloaded) with the class transformers picks for it:
  * model_type llama4, qwen3_5, qwen3_5_moe (multimodal wrappers): AutoModelForImageTextToText
    -> Llama4ForConditionalGeneration / Qwen3_5(Moe)ForConditionalGeneration;
  * everything else: AutoModelForCausalLM (a bare llama4_text config gives Llama4ForCausalLM).

Columns:
  num_parameters  model.num_parameters() (tied weights counted once)
  embedding       numel of get_input_embeddings() (the token embedding only)
  lm_head         numel of get_output_embeddings(), 0 when it is the same tensor as the embedding
  vision          parameters of the vision tower, projector excluded
                  (llama4: vision_model incl. its vision_adapter; qwen3_5: model.visual minus merger)
  projector       llama4: multi_modal_projector; qwen3_5: model.visual.merger
  tied            whether lm_head shares the embedding tensor

Run (measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_hf_2025.py > hf_measured_2025.csv
"""
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")

# Kept out of measure_hf.py / hf_measured.csv (whose Rust test expects every row to import).
FIXTURES_2025 = [
    "meta-llama__Llama-4-Scout-17B-16E-Instruct.json",
    "meta-llama__Llama-4-Maverick-17B-128E-Instruct.json",
    "meta-llama__Llama-4-Scout-17B-16E-Instruct--text_config.json",
    "Qwen__Qwen3-Next-80B-A3B-Instruct.json",
    "Qwen__Qwen3.5-0.8B.json",
    "Qwen__Qwen3.5-35B-A3B.json",
    "state-spaces__mamba-2.8b-hf.json",
    "state-spaces__mamba-130m-hf.json",
    "mistralai__Mamba-Codestral-7B-v0.1.json",
    "ai21labs__Jamba-v0.1.json",
    "ai21labs__AI21-Jamba-Mini-1.5.json",
    "nvidia__Nemotron-H-8B-Base-8K.json",
    "nvidia__NVIDIA-Nemotron-Nano-9B-v2.json",
    "tiiuae__Falcon-H1-7B-Instruct.json",
    "tiiuae__Falcon-H1-3B-Instruct.json",
    "ibm-granite__granite-4.0-h-small.json",
    "ibm-granite__granite-4.0-h-tiny.json",
    "ibm-granite__granite-4.0-micro.json",
    "LiquidAI__LFM2-1.2B.json",
    "LiquidAI__LFM2-350M.json",
    "MiniMaxAI__MiniMax-Text-01-hf.json",
    "deepseek-ai__DeepSeek-V3.2-Exp.json",
    "THUDM__GLM-4-9B-0414.json",
    "zai-org__GLM-4.5.json",
    "zai-org__GLM-4.5-Air.json",
    "allenai__OLMo-2-1124-7B.json",
    "allenai__OLMo-2-1124-13B.json",
    "allenai__Olmo-3-1025-7B.json",
    "CohereForAI__c4ai-command-r-v01.json",
    "CohereForAI__c4ai-command-r7b-12-2024.json",
    "HuggingFaceTB__SmolLM3-3B.json",
    "swiss-ai__Apertus-8B-2509.json",
    "baidu__ERNIE-4.5-0.3B-PT.json",
    "baidu__ERNIE-4.5-21B-A3B-PT.json",
    "LGAI-EXAONE__EXAONE-4.0-32B.json",
    "LGAI-EXAONE__EXAONE-4.0-1.2B.json",
    "ByteDance-Seed__Seed-OSS-36B-Instruct.json",
    "tencent__Hunyuan-7B-Instruct.json",
    "tencent__Hunyuan-A13B-Instruct.json",
]

WRAPPERS = {"llama4", "qwen3_5", "qwen3_5_moe", "gemma3n"}
DROP = ("quantization_config", "auto_map", "_name_or_path", "transformers_version")


def load_config(cfg):
    d = {k: v for k, v in cfg.items() if k not in DROP}
    mt = d.pop("model_type")
    return mt, AutoConfig.for_model(mt, **d)


def build(cfg):
    mt, config = load_config(cfg)
    if mt in WRAPPERS:
        return AutoModelForImageTextToText.from_config(config)
    return AutoModelForCausalLM.from_config(config)


def numel(module):
    return sum(p.numel() for p in module.parameters()) if module is not None else 0


def split(model):
    emb = model.get_input_embeddings()
    out = model.get_output_embeddings()
    tied = out is not None and out.weight is emb.weight
    lm_head = 0 if (out is None or tied) else out.weight.numel()
    vision = projector = 0
    inner = getattr(model, "model", model)
    if hasattr(model, "vision_model"):  # Llama4ForConditionalGeneration
        vision = numel(model.vision_model)
        projector = numel(model.multi_modal_projector)
    elif hasattr(inner, "embed_vision"):  # Gemma3nForConditionalGeneration: both towers, both embedders
        vision = numel(inner.vision_tower) + numel(inner.audio_tower)
        projector = numel(inner.embed_vision) + numel(inner.embed_audio)
    elif hasattr(inner, "visual"):  # Qwen3_5(Moe)ForConditionalGeneration
        merger = getattr(inner.visual, "merger", None)
        projector = numel(merger)
        vision = numel(inner.visual) - projector
    return emb.weight.numel(), lm_head, vision, projector, tied


def main(files=None):
    print("config,hf_class,num_parameters,embedding,lm_head,vision,projector,tied")
    for name in files or FIXTURES_2025:
        with open(os.path.join(CONFIGS, name)) as f:
            cfg = json.load(f)
        with torch.device("meta"):
            model = build(cfg)
        emb, head, vis, proj, tied = split(model)
        print(f"{name},{type(model).__name__},{model.num_parameters()},{emb},{head},{vis},{proj},"
              f"{str(tied).lower()}", flush=True)
        del model
    print(f"# torch {torch.__version__} transformers {transformers.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:] or None)
