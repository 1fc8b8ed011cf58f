#!/usr/bin/env python
"""Exact transformers parameter counts of the VLM wrapper fixtures in ../configs/vlm/, split
into the language model, the vision tower and its projector/merger.

Each fixture is built on the *meta* device (nothing allocated or downloaded) with
AutoModelForImageTextToText (Qwen2VLForConditionalGeneration, Qwen2_5_VLForConditionalGeneration,
LlavaNextForConditionalGeneration, ...). With --write-defaults the script first writes one
fixture per config class from the class defaults (`<Class>().to_json_string()`, the nested
transformers-5 format with `text_config`), named `defaults__<model_type>.json`.

Columns:
  num_parameters  model.num_parameters() (tied weights counted once)
  vision          the vision tower without its projector/merger
                  (qwen2_vl / qwen2_5_vl / qwen3_vl / qwen3_5 / qwen3_5_moe: model.visual
                   minus its mergers;
                   llama4: model.vision_model, its vision_adapter (the pixel-shuffle MLP)
                   included;
                   llava_next, llava_onevision, gemma3, mistral3, internvl, paligemma, aya_vision:
                   model.vision_tower;
                   idefics3, smolvlm, mllama: model.vision_model)
  projector       qwen: model.visual.merger (qwen3_vl: plus visual.deepstack_merger_list);
                  llama4: model.multi_modal_projector (one linear into the text width);
                  llava_next, llava_onevision: multi_modal_projector + image_newline;
                  paligemma: multi_modal_projector (one linear);
                  gemma3, mistral3: multi_modal_projector (mistral3's holds the patch merger);
                  internvl: multi_modal_projector (LayerNorm + 2 linears after the pixel shuffle);
                  aya_vision: multi_modal_projector (LayerNorm + SwiGLU's 2 linears after the shuffle);
                  idefics3, smolvlm: model.connector (the pixel-shuffle projection);
                  mllama: model.multi_modal_projector (one linear from vision_output_dim)
  tied            whether lm_head shares the embedding tensor

Run (measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_hf_vlm.py --write-defaults > hf_measured_vlm.csv
"""
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForImageTextToText

HERE = os.path.dirname(os.path.abspath(__file__))
VLM = os.path.join(HERE, "..", "configs", "vlm")

DEFAULT_CLASSES = [
    ("qwen2_vl", transformers.Qwen2VLConfig),
    ("qwen2_5_vl", transformers.Qwen2_5_VLConfig),
    ("llava_next", transformers.LlavaNextConfig),
    ("gemma3", transformers.Gemma3Config),
    ("mistral3", transformers.Mistral3Config),
    ("qwen3_vl", transformers.Qwen3VLConfig),
    ("idefics3", transformers.Idefics3Config),
    ("smolvlm", transformers.SmolVLMConfig),
    ("internvl", transformers.InternVLConfig),
    ("paligemma", transformers.PaliGemmaConfig),
    ("llava_onevision", transformers.LlavaOnevisionConfig),
    ("llama4", transformers.Llama4Config),
    ("qwen3_5", transformers.Qwen3_5Config),
    ("qwen3_5_moe", transformers.Qwen3_5MoeConfig),
    ("mllama", transformers.MllamaConfig),
    ("qwen3_vl_moe", transformers.Qwen3VLMoeConfig),
]


def numel(module):
    return sum(p.numel() for p in module.parameters()) if module is not None else 0


def split(model, model_type):
    if model_type == "llama4":
        # Llama4ForConditionalGeneration holds its parts itself (no inner model).
        return numel(model.vision_model), numel(model.multi_modal_projector)
    inner = model.model
    if model_type in ("qwen2_vl", "qwen2_5_vl", "qwen3_5", "qwen3_5_moe"):
        merger = numel(inner.visual.merger)
        return numel(inner.visual) - merger, merger
    if model_type in ("qwen3_vl", "qwen3_vl_moe"):
        merger = numel(inner.visual.merger) + numel(inner.visual.deepstack_merger_list)
        return numel(inner.visual) - merger, merger
    if model_type in ("llava_next", "llava_onevision"):
        newline = inner.image_newline.numel() if getattr(inner, "image_newline", None) is not None else 0
        return numel(inner.vision_tower), numel(inner.multi_modal_projector) + newline
    if model_type in ("gemma3", "mistral3", "internvl", "paligemma", "aya_vision"):
        return numel(inner.vision_tower), numel(inner.multi_modal_projector)
    if model_type == "mllama":
        return numel(inner.vision_model), numel(inner.multi_modal_projector)
    if model_type in ("idefics3", "smolvlm"):
        return numel(inner.vision_model), numel(inner.connector)
    raise ValueError(model_type)


def main():
    if "--write-defaults" in sys.argv:
        for model_type, cls in DEFAULT_CLASSES:
            d = cls().to_dict()
            for k in ("transformers_version", "dtype", "torch_dtype"):
                d.pop(k, None)
            for sub in ("text_config", "vision_config"):
                if isinstance(d.get(sub), dict):
                    for k in ("transformers_version", "dtype", "torch_dtype"):
                        d[sub].pop(k, None)
            with open(os.path.join(VLM, f"defaults__{model_type}.json"), "w") as f:
                json.dump(d, f, indent=2, sort_keys=True)
                f.write("\n")
    print("config,hf_class,num_parameters,vision,projector,tied")
    for name in sorted(os.listdir(VLM)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(VLM, name)) as f:
            raw = json.load(f)
        config = AutoConfig.for_model(**raw)
        with torch.device("meta"):
            model = AutoModelForImageTextToText.from_config(config)
        vision, projector = split(model, raw["model_type"])
        out = model.get_output_embeddings()
        tied = out is not None and out.weight is model.get_input_embeddings().weight
        print(f"vlm/{name},{type(model).__name__},{model.num_parameters()},{vision},{projector},{str(tied).lower()}")


if __name__ == "__main__":
    main()
