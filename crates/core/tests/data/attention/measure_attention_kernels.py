"""Which attention kernels transformers lets each model family run.

For every `model_type` in transformers' CONFIG_MAPPING with a causal-LM or
image-text-to-text class (an encoder: its sequence-classification
class; LongT5 and Switch Transformers, encoder-decoders without one: their sequence-to-sequence class), this reads the class flags `_supports_sdpa` and
`_supports_flash_attn` of the class that builds the language model, and
`_compatible_flash_implementations`, the only flash kernels such a class
loads (vLLM's FA3 build and FA4 for the families with attention sinks:
Hopper and newer): the
causal-LM class, else the image-text-to-text class. `PreTrainedModel.
get_correct_attn_implementation` falls back from its default SDPA to eager
when `_supports_sdpa` is False, and raises when SDPA or FlashAttention is
asked for explicitly and the flag is False.

Run: HF_HUB_OFFLINE=1 python measure_attention_kernels.py > attention_kernels.jsonl
(no network, no weights: only class attributes are read).
"""
import importlib
import json
import sys

import torch
import transformers
from transformers.models.auto import modeling_auto
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

MAPPINGS = [
    modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
    modeling_auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES,
    # encoders (DistilBERT, MPNet, DeBERTa) have neither: their classifier
    modeling_auto.MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES,
]
# encoder-decoders the importer reads that have no classifier: their generation class
SEQ2SEQ_ONLY = {"longt5", "switch_transformers"}


def model_class(model_type):
    mappings = MAPPINGS + [modeling_auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES] * (model_type in SEQ2SEQ_ONLY)
    for mapping in mappings:
        name = mapping.get(model_type)
        if isinstance(name, (list, tuple)):
            name = name[0]
        if name:
            return name
    return None


def main():
    print(
        json.dumps({"_provenance": f"transformers {transformers.__version__}, torch {torch.__version__}: "
                    "class attributes _supports_sdpa and _supports_flash_attn"}),
    )
    for model_type in sorted(CONFIG_MAPPING_NAMES):
        name = model_class(model_type)
        if name is None:
            continue
        try:
            cls = getattr(transformers, name)
        except Exception as e:  # a class whose module needs an absent extra
            print(f"{model_type}: {e}", file=sys.stderr)
            continue
        print(json.dumps({
            "model_type": model_type,
            "class": name,
            "sdpa": bool(getattr(cls, "_supports_sdpa", False)),
            "flash": bool(getattr(cls, "_supports_flash_attn", False)),
            "flash_kernels": getattr(cls, "_compatible_flash_implementations", None),
        }))


if __name__ == "__main__":
    main()
