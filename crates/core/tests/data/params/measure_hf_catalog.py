#!/usr/bin/env python
"""Exact transformers parameter counts for the catalog config fixtures (the open 2025-26 models
added to reach the 150-model catalog), in the format of hf_measured_2025.csv.

Same method as measure_hf_2025.py (whose `build` and `split` this imports): every fixture in
FIXTURES_CATALOG (files in ../configs/) is built on the *meta* device (nothing is allocated or
downloaded) with AutoModelForCausalLM; `quantization_config`, `auto_map`, `_name_or_path` and
`transformers_version` are dropped first, so quantized checkpoints count their logical
(unquantized) architecture. A `--text_config` fixture is the text model of a multimodal
checkpoint on its own (the importer refuses that checkpoint's vision tower), so its `vision` and
`projector` columns are 0.

Columns: config,hf_class,num_parameters,embedding,lm_head,vision,projector,tied (see
measure_hf_2025.py). Counts exclude what transformers does not build (MTP / next-n layers,
buffers such as `e_score_correction_bias`).

Run (measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_hf_catalog.py > hf_measured_catalog.csv
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import measure_hf_2025  # noqa: E402

# Kept out of measure_hf.py / hf_measured.csv like FIXTURES_2025.
FIXTURES_CATALOG = [
    # Qwen
    "Qwen__Qwen3-0.6B.json",
    "Qwen__Qwen3-1.7B.json",
    "Qwen__Qwen3-4B.json",
    "Qwen__Qwen3-4B-Instruct-2507.json",
    "Qwen__Qwen3-14B.json",
    "Qwen__Qwen3-30B-A3B-Instruct-2507.json",
    "Qwen__Qwen3-235B-A22B.json",
    "Qwen__Qwen3-235B-A22B-Instruct-2507.json",
    "Qwen__Qwen3-Coder-30B-A3B-Instruct.json",
    "Qwen__Qwen3-Coder-480B-A35B-Instruct.json",
    "Qwen__Qwen3-Next-80B-A3B-Thinking.json",
    "Qwen__Qwen2.5-3B.json",
    "Qwen__Qwen2.5-Coder-7B-Instruct.json",
    "Qwen__Qwen2.5-Coder-32B-Instruct.json",
    "Qwen__QwQ-32B.json",
    # DeepSeek
    "deepseek-ai__DeepSeek-R1.json",
    "deepseek-ai__DeepSeek-R1-0528.json",
    "deepseek-ai__DeepSeek-V3-0324.json",
    "deepseek-ai__DeepSeek-V3.1.json",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-1.5B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-7B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-14B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-32B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Llama-8B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Llama-70B.json",
    # OpenAI, Google
    "openai__gpt-oss-120b.json",
    "google__gemma-3-270m.json",
    "google__gemma-3-4b-it--text_config.json",
    "google__gemma-3-12b-it--text_config.json",
    "google__gemma-3-27b-it--text_config.json",
    "google__gemma-2-2b.json",
    # Mistral
    "mistralai__Mistral-Nemo-Base-2407.json",
    "mistralai__Ministral-8B-Instruct-2410.json",
    "mistralai__Mistral-Small-24B-Instruct-2501.json",
    "mistralai__Mistral-Small-3.1-24B-Instruct-2503--text_config.json",
    "mistralai__Mistral-Small-3.2-24B-Instruct-2506--text_config.json",
    "mistralai__Devstral-Small-2505.json",
    "mistralai__Magistral-Small-2506.json",
    "mistralai__Codestral-22B-v0.1.json",
    "mistralai__Mistral-Large-Instruct-2407.json",
    # Microsoft
    "microsoft__phi-4.json",
    "microsoft__Phi-4-mini-instruct.json",
    "microsoft__Phi-3-medium-4k-instruct.json",
    # AllenAI, Hugging Face, TII
    "allenai__OLMo-2-0425-1B.json",
    "allenai__OLMo-2-0325-32B.json",
    "allenai__Olmo-3-1125-32B.json",
    "HuggingFaceTB__SmolLM2-135M.json",
    "HuggingFaceTB__SmolLM2-360M.json",
    "HuggingFaceTB__SmolLM2-1.7B.json",
    "tiiuae__Falcon3-10B-Base.json",
    # Cohere
    "CohereForAI__aya-expanse-8b.json",
    "CohereForAI__aya-expanse-32b.json",
    "CohereForAI__c4ai-command-r-plus-08-2024.json",
    "CohereLabs__c4ai-command-a-03-2025.json",
    # Hybrid / recurrent and other 2025 families
    "nvidia__Nemotron-H-47B-Base-8K.json",
    "nvidia__Nemotron-H-56B-Base-8K.json",
    "nvidia__NVIDIA-Nemotron-Nano-12B-v2.json",
    "ibm-granite__granite-4.0-h-1b.json",
    "LiquidAI__LFM2-700M.json",
    "LiquidAI__LFM2-2.6B.json",
    "tencent__Hunyuan-1.8B-Instruct.json",
    "tencent__Hunyuan-4B-Instruct.json",
    "THUDM__GLM-4-32B-0414.json",
    # Gemma 3n: the whole multimodal checkpoint (text, MobileNet-V5 tower, audio tower)
    "google__gemma-3n-E2B-it.json",
    "google__gemma-3n-E4B-it.json",
    "zai-org__GLM-4.6.json",
]


def main(files=None):
    measure_hf_2025.main(files or FIXTURES_CATALOG)


if __name__ == "__main__":
    main(sys.argv[1:] or None)
