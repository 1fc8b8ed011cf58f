"""Turn the rows of qlora.jsonl (measure_qlora.py) into ground-truth cases (FORMAT.md 1.1).

    python3 to_cases.py qlora.jsonl > qlora_cases.jsonl
"""
import json
import sys

MODELS = {
    "8b": dict(name="meta-llama/Meta-Llama-3-8B", arch="llama", params=8030261248, layers=32, hidden=4096, heads=32,
               kv_heads=8, head_dim=128, intermediate=14336, vocab=128256, tied_embeddings=False,
               max_position=8192, notes="Llama-3-8B dims, random weights"),
    "1b": dict(name="meta-llama/Llama-3.2-1B", arch="llama", params=1235814400, layers=16, hidden=2048, heads=32,
               kv_heads=8, head_dim=64, intermediate=8192, vocab=128256, tied_embeddings=True,
               max_position=131072, notes="Llama-3.2-1B dims, random weights"),
}
NULLS = dict(encoder_layers=None, decoder_layers=None, experts=None, experts_per_token=None, shared_experts=None,
             moe_intermediate=None, sliding_window=None)
# The recipe decides what reads the case: `plain` is a hand-written loop (framework transformers,
# 16-bit non-quantized parameters); `prep` is PEFT's prepare_model_for_kbit_training under the
# Trainer's autocast (framework hf_trainer, qlora_prep fp32); `trl` is TRL's SFTTrainer order.
FRAMEWORK = {"plain": "transformers", "prep": "hf-trainer", "trl": "trl"}
KBIT_PREP = {"plain": "none", "prep": "fp32", "trl": "trl"}


def cases(row):
    m = row["variant"]
    gc = "gc" if row["gradient_checkpointing"] else "nogc"
    base_id = f"vfm-h100-qlora-{m}-{row['recipe']}-mb{row['micro_batch']}-s{row['seq_len']}-{gc}"
    v = row["versions"]
    version = (f"torch {v['torch']}, transformers {v['transformers']}, peft {v['peft']}, bitsandbytes "
               f"{v['bitsandbytes']}; {row['gpu']}")
    caveats = (f"measure_qlora.py recipe {row['recipe']}: Llama linears as bitsandbytes Linear4bit NF4 with double "
               f"quantization, bf16 compute; embeddings, norms and LM head unquantized; PEFT LoRA r 16 alpha 32 "
               f"dropout 0.05 on q k v o gate up down; torch.optim.AdamW over the adapters; parameter bytes by dtype "
               f"{row['param_bytes_by_dtype']}; autocast bf16 {row['autocast_bf16']}; two steps, step 2 numbers; "
               f"allocated at start of step 2 {row['start_allocated']} B (before the model {row['before_allocated']} B)")
    for metric, key in (("peak_allocated", "peak_allocated"), ("peak_reserved", "peak_reserved")):
        yield {
            "id": f"{base_id}-{'alloc' if metric == 'peak_allocated' else 'reserved'}",
            "source": {"repo": "vramfit-measurements", "file": "crates/core/tests/data/qlora/measure_qlora.py",
                       "version": version,
                       "quote": f"{base_id}: {metric} {row[key]} B"},
            "reliability": "high", "inferred": [], "framework": FRAMEWORK[row["recipe"]],
            "model": dict(MODELS[m], **NULLS), "task": "training",
            "precision": {"weights": "nf4", "double_quant": True, "group_size": None, "compute": "bf16",
                          "mixed_precision": "pure", "kbit_prep": KBIT_PREP[row["recipe"]]},
            "training": {"method": "qlora", "lora": {"rank": 16, "alpha": 32, "dropout": 0.05,
                                                     "targets": ["q", "k", "v", "o", "gate", "up", "down"]},
                         "trainable_params": row["trainable_params"], "optimizer": "adamw",
                         "optimizer_state_dtype": "fp32", "optimizer_in_backward": False,
                         "micro_batch": row["micro_batch"], "grad_accum": 1, "seq_len": row["seq_len"],
                         "gradient_checkpointing": "full" if row["gradient_checkpointing"] else "off",
                         "activation_offload": False, "chunked_loss": False, "compile": False, "packed": False},
            "inference": None, "attention": "sdpa",
            "parallel": {"gpus": 1, "strategy": "none", "tp": 1, "pp": 1, "offload": "none"},
            "gpu": {"name": "NVIDIA H100 80GB HBM3", "memory_bytes": 85520809984},
            "measured": {"metric": metric, "bytes": row[key], "as_published": f"{row[key] / 2**30:.3f} GiB",
                         "includes_cuda_context": False},
            "caveats": caveats,
        }


for line in open(sys.argv[1]):
    row = json.loads(line)
    if row.get("ok"):
        for c in cases(row):
            print(json.dumps(c))
