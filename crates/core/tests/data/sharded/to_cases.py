"""Writes sharded_cases.jsonl: the runs of sharded.jsonl in the measured-case format
(../groundtruth/FORMAT.md, with format 1.1's framework name `torchtitan`), so `vramfit score` and tests/accuracy.rs read them as they read
every other measured run. One case per run and metric (peak allocated, peak reserved), per GPU of a
world of `world`; the caveats say how one GPU stood for rank 0.

    python3 to_cases.py        # from this folder
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_bytes": 85520809984}
DIMS = {
    "Llama-3.2-1B dims": dict(name="Llama-3.2-1B dims", arch="llama", hidden=2048, heads=32, kv_heads=8, head_dim=64,
                              intermediate=8192, vocab=128256, tied_embeddings=True, max_position=131072),
    "Llama-3-8B dims": dict(name="Llama-3-8B dims", arch="llama", hidden=4096, heads=32, kv_heads=8, head_dim=128,
                            intermediate=14336, vocab=128256, tied_embeddings=False, max_position=8192),
}


def model(row):
    m = dict(DIMS[row["model_dims"]], layers=row["layers"], params=None, encoder_layers=None, decoder_layers=None,
             experts=None, experts_per_token=None, shared_experts=None, moe_intermediate=None, sliding_window=None,
             notes="public config values, random weights")
    return m


def case(row, metric):
    fsdp = row["kind"] in ("fsdp2", "fsdp1")
    titan = fsdp and row["id"].startswith(("fsdp2-titan", "fsdp1"))
    zero = row.get("zero", {})
    lora = row.get("lora")
    if fsdp:
        strategy = "fsdp"
        offload = "optimizer+params" if row.get("cpu_offload") else "none"
        # torchtitan's recipe: its per-op SAC is the case format's "selective"
        framework = "torchtitan" if row["id"].startswith("fsdp2-titan") else "transformers"
    else:
        strategy = f"zero{zero['stage']}"
        offload = ("optimizer+params" if "offload_param" in zero else
                   "optimizer" if "offload_optimizer" in zero else "none")
        # the Trainer's and accelerate's "auto" values are what a transformers run gets
        framework = "transformers" if row["id"].endswith("auto") else "deepspeed"
    how = ("one GPU stood for rank 0 of a world of {w} under PyTorch's fake process group "
           "(torch.testing._internal.distributed.fake_pg.FakeStore, backend 'fake'): collectives launch nothing, "
           "every buffer a rank allocates is allocated (checked against NCCL at a world of one, byte for byte); "
           "random init, empty_cache before the measured step; 2 steps, numbers from step 2").format(w=row["world"])
    if fsdp:
        how += ("; FSDP2 fully_shard per decoder layer and the root" if row["kind"] == "fsdp2"
                else "; FSDP1 FullyShardedDataParallel, transformer auto wrap, use_orig_params")
        how += ("; MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32) over fp32 shards" if titan
                else "; bf16 shards, no mixed-precision policy")
        how += "; AdamW fused=True" if row.get("optimizer") == "AdamW fused" else "; AdamW foreach"
    else:
        how += f"; DeepSpeed {row['deepspeed']} bf16 engine, client torch AdamW foreach; zero_optimization {json.dumps(zero)}"
        if lora:
            how += "; PEFT LoRA r16, lora_dropout 0"
    how += "; PYTORCH_CUDA_ALLOC_CONF unset (expandable_segments:False)"
    amp = titan or not fsdp
    value = row[metric]
    return {
        "id": f"vfm-h100-sharded-{row['id']}-{'alloc' if metric == 'peak_allocated' else 'reserved'}",
        "source": {"repo": "vramfit-measurements", "file": "crates/core/tests/data/sharded/measure_sharded.py",
                   "version": f"{row['versions']}; NVIDIA H100 80GB HBM3, driver 580.159.04",
                   "quote": f"{row['id']}: {metric} {value}"},
        "reliability": "high",
        "inferred": [],
        "framework": framework,
        "model": model(row),
        "task": "training",
        "precision": {"weights": "bf16", "double_quant": None, "group_size": None, "compute": "bf16",
                      "mixed_precision": "amp" if amp else "pure"},
        "training": {"method": "lora" if lora else "full",
                     "lora": {"rank": 16, "alpha": 32, "targets": ["q", "k", "v", "o", "gate", "up", "down"]}
                     if lora else None,
                     "trainable_params": None, "optimizer": "adamw",
                     "optimizer_state_dtype": "fp32" if amp or lora else "bf16",
                     "optimizer_in_backward": False, "micro_batch": row["micro_batch"], "grad_accum": 1,
                     "seq_len": row["seq_len"],
                     "gradient_checkpointing": {"full": "full", "op": "selective"}.get(row["checkpointing"], "off"),
                     "activation_offload": False, "chunked_loss": False, "compile": False, "packed": False},
        "inference": None,
        "attention": "sdpa",
        "parallel": {"gpus": row["world"], "strategy": strategy, "tp": 1, "pp": 1, "offload": offload},
        "gpu": H100,
        "measured": {"metric": metric, "bytes": value, "as_published": f"{value / 2**30:.3f} GiB ({value} B)",
                     "includes_cuda_context": False},
        "caveats": how,
    }


rows = [json.loads(line) for line in open(os.path.join(HERE, "sharded.jsonl")) if line.strip()]
with open(os.path.join(HERE, "sharded_cases.jsonl"), "w") as f:
    for row in rows:
        if not row.get("ok"):
            continue
        for metric in ("peak_allocated", "peak_reserved"):
            f.write(json.dumps(case(row, metric)) + "\n")
print(len(rows), "runs")
