#!/usr/bin/env python
"""The same count as measure.py on a CUDA GPU with flash-linear-attention installed (and no
causal_conv1d): transformers then runs Gated DeltaNet through FLA's `chunk_gated_delta_rule`
(`ChunkGatedDeltaRuleFunction`) and the convolution through its torch `causal_conv1d_fn`.
bfloat16 only (FLA's Triton kernels are what a GPU run uses).

Run on a machine with a GPU, `fla` importable and transformers 5.24:
    python measure_fused.py > fused_fla.jsonl
"""
import importlib.util
import json
import platform
import sys

import torch
import transformers

import measure


def main():
    if importlib.util.find_spec("fla") is None or not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU and flash-linear-attention (fla) installed")
    if importlib.util.find_spec("causal_conv1d") is not None:
        sys.exit("causal_conv1d is installed: this table is for FLA with the torch convolution")
    import fla

    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version(), "fla": fla.__version__,
                "gpu": torch.cuda.get_device_name()}
    for model_type in ("qwen3_next", "qwen3_5_text"):
        for v, variant in enumerate(measure.GRID[model_type]):
            for batch, seq in measure.SIZES + [(2, 1000)]:
                # Counted when the forward ends; no backward: fla 0.6 refuses its
                # gated backward on Hopper with Triton < 3.7.1 (fla issue #640).
                row, _ = measure.measure(model_type, variant, "bfloat16", batch, seq,
                                         device="cuda", backward=False)
                row.update(variant=v, versions=versions, path="fla+torch_conv")
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
