"""Parameters transformers keeps in fp32 when a model loads in bf16 (`_keep_in_fp32_modules_strict`): each
config is built on the meta device with `from_config(dtype=torch.bfloat16)` and its fp32 parameters counted
(`fp32_kept.csv`). Run: HF_HUB_OFFLINE=1 python measure_fp32_kept.py  (torch 2.15.0, transformers 5.24.0)."""
import csv
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

here = os.path.dirname(os.path.abspath(__file__))
CONFIGS = ["variants_2026/glm5_next__1.json", "variants_2026/glm5_next__4.json",
           "variants_2026/apertus1p5__1.json", "variants_2026/kimi_linear__1.json",
           "variants_2026/kimi_linear__2.json", "variants_2026/longcat_flash__1.json",
           "defaults_2025/deepseek_v32.json", "defaults_2025/glm4_moe.json", "deepseek-ai__DeepSeek-V3.json",
           "zai-org__GLM-4.5-Air.json", "variants_2026/glm5_next__0.json", "variants_2026/apertus1p5__0.json",
           "variants_2026/axk1__3.json", "variants_2026/aria_text__2.json",
           "variants_2026/flint__1.json", "variants_2026/flint__0.json",
           "variants_2026/beam__2.json", "variants_2026/bailing_hybrid__1.json",
           "variants_2026/bailing_hybrid__0.json", "variants_2026/axk2__2.json"]
# and every config of the families added since 2026 (hf_variants_2026.csv), but the ones transformers cannot build
# offline here (timm, classes whose saved defaults no longer validate)
for r in csv.DictReader(open(os.path.join(here, "hf_variants_2026.csv"))):
    if r["config"] not in CONFIGS:
        CONFIGS.append(r["config"])
WRAPPERS = {"glm5_next", "apertus1p5", "glm4v_moe", "diffusion_gemma"}
HF_CLASS = {r["config"]: r["hf_class"] for r in csv.DictReader(open(os.path.join(here, "hf_variants_2026.csv")))}
rows = []
for name in CONFIGS:
    path = os.path.join(here, "..", "configs", name)
    if not os.path.exists(path):
        print("missing", name, file=sys.stderr)
        continue
    d = json.load(open(path))
    mt = d["model_type"]
    wrapper = mt in WRAPPERS or "ForConditionalGeneration" in HF_CLASS.get(name, "")
    auto = AutoModelForImageTextToText if wrapper else AutoModelForCausalLM
    try:
        cfg = AutoConfig.for_model(**d)
        with torch.device("meta"):
            if mt == "step3p5":
                # no CausalLM class maps Step-3.5's config: its wrapper's text model, whose head
                # (a bf16 linear) holds no fp32 parameter (hf_variants_2026.csv counts it)
                from transformers.models.step3p7.modeling_step3p7 import Step3p7TextModel
                model = Step3p7TextModel._from_config(cfg, dtype=torch.bfloat16)
                head = 0 if cfg.tie_word_embeddings else cfg.vocab_size * cfg.hidden_size
            elif mt in ("voxtral", "qwen2_audio", "qwen3_asr", "glmasr", "granite_speech", "audioflamingo3",
                        "musicflamingo", "voxtral_realtime", "whisper"):
                cls = {"voxtral": "VoxtralForConditionalGeneration",
                       "qwen2_audio": "Qwen2AudioForConditionalGeneration",
                       "qwen3_asr": "Qwen3ASRForConditionalGeneration",
                       "glmasr": "GlmAsrForConditionalGeneration",
                       "granite_speech": "GraniteSpeechForConditionalGeneration",
                       "audioflamingo3": "AudioFlamingo3ForConditionalGeneration",
                       "musicflamingo": "MusicFlamingoForConditionalGeneration",
                       "voxtral_realtime": "VoxtralRealtimeForConditionalGeneration",
                       "whisper": "WhisperForConditionalGeneration"}[mt]
                model = getattr(transformers, cls)._from_config(cfg, dtype=torch.bfloat16)
                head = 0
            else:
                model = auto.from_config(cfg, dtype=torch.bfloat16)
                head = 0
    except Exception as e:  # noqa: BLE001 (a class that cannot build here is left out, and said so)
        print("cannot build", name, type(e).__name__, file=sys.stderr)
        continue
    kept = sum(p.numel() for p in model.parameters() if p.dtype == torch.float32)
    rows.append(dict(config=name, num_parameters=model.num_parameters() + head, fp32_parameters=kept))
    print(name, kept, file=sys.stderr)
with open(os.path.join(here, "fp32_kept.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["config", "num_parameters", "fp32_parameters"])
    w.writeheader()
    w.writerows(rows)
print(f"torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
