"""GPU memory of one rank of a sharded training job (FSDP2, DeepSpeed ZeRO-2/3), measured on one GPU.

One GPU stands for rank 0 of a world of N: torch.distributed is initialised with PyTorch's fake
process group (`torch.testing._internal.distributed.fake_pg.FakeStore`, backend "fake"; the
mechanism torchtitan's `comm.mode = "fake_backend"` uses to estimate memory), whose collectives
launch nothing. The frameworks still allocate every buffer a real rank allocates (FSDP2's
all-gather outputs and reduce-scatter inputs, ZeRO's partitions, gathered parameters and
buckets), so peak allocated is rank 0's; the values in them are meaningless. A pair of runs at a
world of one, fake and real NCCL, checks that the fake group changes no allocation.

The model is built from Llama-3.2-1B's public config values (16 layers) or Llama-3-8B's (the layer
count stated), random weights, SDPA, nothing downloaded. Each run is its own process, so no run
inherits another's allocator state; two training steps, numbers from step 2 after
`reset_peak_memory_stats()`. One line of JSON per run to $OUT/sharded.jsonl (or ./sharded.jsonl).

Runs:
  fsdp2-titan  torchtitan's recipe: fp32 build, `fully_shard` per decoder layer (the last one not
               resharded after forward, torchtitan's "default" policy) and the root, with
               MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32), fused AdamW; full
               checkpointing (non-reentrant), torchtitan's per-op SAC, or none
  fsdp2-bf16   torchtune's recipe: bf16 build, no mixed-precision policy, foreach AdamW, full
               checkpointing, with and without CPUOffloadPolicy(pin_memory=True)
  fsdp1        FSDP1 as accelerate wraps a transformers model: each decoder layer a unit, FULL_SHARD,
               MixedPrecision(bf16) over an fp32 build, use_orig_params, foreach AdamW
  ds-z1/z2/z3  DeepSpeed: bf16 engine, the client's torch AdamW (foreach), transformers' full
               checkpointing, ZeRO stage 1, 2 or 3, optimizer (and parameters) offloaded to the CPU
               or not, PEFT LoRA under stage 3; the stage-3 knobs at DeepSpeed's defaults or the
               Trainer's "auto" values, written into the row

    python3 measure_sharded.py                 # on the GPU machine: every run, one process each
    python3 measure_sharded.py --only titan    # runs whose id contains "titan"
    python3 measure_sharded.py --tiny          # CPU smoke run of the FSDP2 runs (gloo, tiny shapes)
"""
import argparse
import contextlib
import functools
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
LLAMA_1B = dict(hidden_size=2048, intermediate_size=8192, num_attention_heads=32, num_key_value_heads=8,
                head_dim=64, vocab_size=128256, tie_word_embeddings=True, max_position_embeddings=131072,
                rms_norm_eps=1e-5, rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=32.0,
                                                        low_freq_factor=1.0, high_freq_factor=4.0,
                                                        original_max_position_embeddings=8192))
LLAMA_8B = dict(LLAMA_1B, hidden_size=4096, intermediate_size=14336, head_dim=128, tie_word_embeddings=False,
                max_position_embeddings=8192, rope_parameters=dict(rope_type="default", rope_theta=500000.0))
TINY = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
            vocab_size=512, tie_word_embeddings=True, max_position_embeddings=4096, rms_norm_eps=1e-5)
# DeepSpeed's own defaults for the stage-3 knobs (deepspeed/runtime/zero/config.py), written into
# the config so the row states them.
Z3_DEFAULTS = dict(stage3_prefetch_bucket_size=50_000_000, stage3_param_persistence_threshold=100_000,
                   stage3_max_live_parameters=1_000_000_000, stage3_max_reuse_distance=1_000_000_000)

# id -> settings; ordered by priority.
RUNS = {
    "fsdp2-titan-w1-fake-ac": dict(kind="fsdp2", recipe="titan", world=1, ckpt="full"),
    "fsdp2-titan-w1-nccl-ac": dict(kind="fsdp2", recipe="titan", world=1, ckpt="full", real=True),
    "fsdp2-titan-w8-ac": dict(kind="fsdp2", recipe="titan", world=8, ckpt="full"),
    "fsdp2-titan-w8-op": dict(kind="fsdp2", recipe="titan", world=8, ckpt="op"),
    "fsdp2-titan-w8-noac": dict(kind="fsdp2", recipe="titan", world=8, ckpt="off", mb=2),
    "fsdp2-titan-w2-ac": dict(kind="fsdp2", recipe="titan", world=2, ckpt="full"),
    "fsdp2-bf16-w8-ac": dict(kind="fsdp2", recipe="bf16", world=8, ckpt="full"),
    "fsdp2-bf16-w8-ac-cpuoffload": dict(kind="fsdp2", recipe="bf16", world=8, ckpt="full", offload=True),
    "fsdp2-titan-8b-w8-ac": dict(kind="fsdp2", recipe="titan", world=8, ckpt="full", dims="8b", layers=32,
                                 mb=2, seq=4096),
    "ds-z3-w8": dict(kind="ds", stage=3, world=8),
    "ds-z3-w8-offopt": dict(kind="ds", stage=3, world=8, offload="optimizer"),
    "ds-z3-w8-offall": dict(kind="ds", stage=3, world=8, offload="optimizer+params"),
    "ds-z2-w8-offopt": dict(kind="ds", stage=2, world=8, offload="optimizer"),
    "ds-z3-w1-nccl": dict(kind="ds", stage=3, world=1, real=True),
    # the Trainer's and accelerate's "auto" values: h*h reduce bucket, 0.9*h*h prefetch, 10*h persistence
    "ds-z3-w8-auto": dict(kind="ds", stage=3, world=8, auto=True),
    "ds-z3-8b-w8-offall": dict(kind="ds", stage=3, world=8, offload="optimizer+params", dims="8b", layers=32,
                               mb=2, seq=4096),
    # added after the first 16: stages 1 and 2 with the optimizer on the GPU, PEFT LoRA under ZeRO-3,
    # and FSDP1 as accelerate wraps it (transformer-layer auto wrap, bf16 MixedPrecision)
    "ds-z2-w8": dict(kind="ds", stage=2, world=8),
    "ds-z1-w8": dict(kind="ds", stage=1, world=8),
    "ds-z3-w8-lora": dict(kind="ds", stage=3, world=8, lora=True),
    "fsdp1-mp-w8-ac": dict(kind="fsdp1", world=8, ckpt="full"),
}


def out_path():
    return os.path.join(os.environ.get("OUT", "."), "sharded.jsonl")


def init_world(world, real, dev):
    import torch.distributed as dist
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29541", RANK="0", LOCAL_RANK="0",
                      WORLD_SIZE=str(world))
    if real:
        dist.init_process_group("nccl" if dev == "cuda" else "gloo", rank=0, world_size=world)
    else:
        from torch.testing._internal.distributed.fake_pg import FakeStore
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)


def build(spec, tiny, dev, dtype):
    import torch
    import transformers
    layers = 2 if tiny else spec.get("layers", 16)
    base = TINY if tiny else (LLAMA_8B if spec.get("dims") == "8b" else LLAMA_1B)
    cfg = transformers.LlamaConfig(**dict(base, num_hidden_layers=layers))
    with torch.device(dev):
        model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation="sdpa")
    model.train()
    model.config.use_cache = False
    return model, cfg


def checkpointing(model, mode):
    if mode == "off":
        return
    kw = {"use_reentrant": False}
    if mode == "op":
        sys.path.insert(0, os.path.join(HERE, "..", "mechanisms"))
        from measure_mechanisms import sac_context
        kw["context_fn"] = functools.partial(sac_context, True)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)


def stats(dev):
    import torch
    if dev != "cuda":
        return 0, 0, 0
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), torch.cuda.memory_allocated()


def reset(dev):
    import torch
    if dev == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def two_steps(dev, step_fn, res):
    import torch
    for step in (1, 2):
        if step == 2:
            reset(dev)
            res["start_allocated"] = stats(dev)[2]
        t0 = time.time()
        step_fn()
        res[f"step{step}_s"] = round(time.time() - t0, 2)
    pa, pr, now = stats(dev)
    res.update(peak_allocated=pa, peak_reserved=pr, end_allocated=now)
    try:  # host memory: what offloading moved to the CPU shows here
        import psutil
        res["cpu_rss_bytes"] = psutil.Process().memory_info().rss
        if dev == "cuda" and hasattr(torch.cuda, "host_memory_stats"):
            h = torch.cuda.host_memory_stats()
            res["pinned_host_bytes"] = {k: v for k, v in h.items() if k.startswith(("allocated_bytes", "reserved_bytes"))}
    except Exception as e:  # noqa: BLE001 -- the GPU figures stand without these
        res["host_error"] = str(e)[:200]
    return res


def run_fsdp2(spec, tiny, dev):
    import torch
    from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard
    titan = spec["recipe"] == "titan"
    offload = spec.get("offload", False)
    model, cfg = build(spec, tiny, "cpu" if offload else dev, torch.float32 if titan else torch.bfloat16)
    checkpointing(model, spec["ckpt"])
    kw = {}
    if titan:
        kw["mp_policy"] = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    if offload:
        kw["offload_policy"] = CPUOffloadPolicy(pin_memory=dev == "cuda")
    layers = list(model.model.layers)
    for i, layer in enumerate(layers):
        # torchtitan's "default" reshard policy: the last block stays unsharded after forward,
        # since backward needs it first (parallelize.py, apply_fsdp)
        fully_shard(layer, reshard_after_forward=(i < len(layers) - 1) if titan else True, **kw)
    fully_shard(model, **kw)
    params = [p for p in model.parameters()]
    opt = torch.optim.AdamW(params, lr=1e-5, **({"fused": True} if titan and dev == "cuda" else {}))
    mb, seq = (2, 64) if tiny else (spec.get("mb", 4), spec.get("seq", 2048))
    ids = torch.randint(0, cfg.vocab_size, (mb, seq), generator=torch.Generator().manual_seed(0)).to(dev)

    def step():
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    res = dict(micro_batch=mb, seq_len=seq, layers=cfg.num_hidden_layers,
               model_dims="Llama-3-8B dims" if spec.get("dims") == "8b" else "Llama-3.2-1B dims",
               params=sum(p.numel() for p in params),  # a DTensor's numel is the global one
               optimizer="AdamW fused" if titan else "AdamW foreach",
               mixed_precision="param bf16, reduce fp32, fp32 shards" if titan else "none (bf16 shards)",
               cpu_offload=offload)
    res["local_param_elements"] = sum(p.to_local().numel() for p in params)
    return two_steps(dev, step, res)


def run_fsdp1(spec, tiny, dev):
    """FSDP1 as accelerate wraps a transformers model: each decoder layer its own unit (transformer
    auto wrap), FULL_SHARD, MixedPrecision(param/reduce/buffer bf16) over an fp32 build, foreach AdamW."""
    import torch
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision
    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer
    model, cfg = build(spec, tiny, dev, torch.float32)
    checkpointing(model, spec["ckpt"])
    mp = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, buffer_dtype=torch.bfloat16)
    net = FSDP(model, auto_wrap_policy=functools.partial(transformer_auto_wrap_policy,
                                                         transformer_layer_cls={LlamaDecoderLayer}),
               mixed_precision=mp, use_orig_params=True, device_id=torch.cuda.current_device() if dev == "cuda" else None)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-5)
    mb, seq = (2, 64) if tiny else (spec.get("mb", 4), spec.get("seq", 2048))
    ids = torch.randint(0, cfg.vocab_size, (mb, seq), generator=torch.Generator().manual_seed(0)).to(dev)

    def step():
        net(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    res = dict(micro_batch=mb, seq_len=seq, layers=cfg.num_hidden_layers, model_dims="Llama-3.2-1B dims",
               optimizer="AdamW foreach", mixed_precision="FSDP1 MixedPrecision bf16 over fp32 flat shards",
               params=sum(p.numel() for p in model.parameters()) * spec["world"])
    return two_steps(dev, step, res)


def run_deepspeed(spec, tiny, dev):
    import torch
    import deepspeed
    model, cfg = build(spec, tiny, dev, torch.bfloat16)
    checkpointing(model, "full")
    if spec.get("lora"):  # PEFT LoRA r16 on all seven linears, no dropout; the rest frozen
        import peft
        model.enable_input_require_grads()
        model = peft.get_peft_model(model, peft.LoraConfig(
            r=16, lora_alpha=32, lora_dropout=0.0, task_type="CAUSAL_LM",
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
    mb, seq = (2, 64) if tiny else (spec.get("mb", 4), spec.get("seq", 2048))
    zero = dict(stage=spec["stage"], overlap_comm=True, contiguous_gradients=True,
                reduce_bucket_size=500_000_000, allgather_bucket_size=500_000_000)
    if spec["stage"] == 3:
        zero.update(Z3_DEFAULTS)
    if spec.get("auto"):
        h = cfg.hidden_size
        zero.update(reduce_bucket_size=h * h, stage3_prefetch_bucket_size=int(0.9 * h * h),
                    stage3_param_persistence_threshold=10 * h)
    off = spec.get("offload", "none")
    if off in ("optimizer", "optimizer+params"):
        zero["offload_optimizer"] = dict(device="cpu", pin_memory=True)
    if off == "optimizer+params":
        zero["offload_param"] = dict(device="cpu", pin_memory=True)
    ds_cfg = dict(train_micro_batch_size_per_gpu=mb, gradient_accumulation_steps=1, bf16=dict(enabled=True),
                  zero_optimization=zero, zero_force_ds_cpu_optimizer=False, gradient_clipping=0.0,
                  steps_per_print=1_000_000, wall_clock_breakdown=False)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
    engine, *_ = deepspeed.initialize(model=model, optimizer=opt, config=ds_cfg,
                                      dist_init_required=False)
    ids = torch.randint(0, cfg.vocab_size, (mb, seq), generator=torch.Generator().manual_seed(0)).to(dev)

    def step():
        loss = engine(input_ids=ids, labels=ids).loss
        engine.backward(loss)
        engine.step()

    res = dict(micro_batch=mb, seq_len=seq, layers=cfg.num_hidden_layers, lora="r16 all linear" if spec.get("lora") else None,
               model_dims="Llama-3-8B dims" if spec.get("dims") == "8b" else "Llama-3.2-1B dims",
               optimizer="torch AdamW foreach (client)", deepspeed=deepspeed.__version__, zero=zero)
    return two_steps(dev, step, res)


def one(name, tiny):
    import torch
    import transformers
    spec = RUNS[name]
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    row = dict(id=name, world=spec["world"], process_group="nccl" if spec.get("real") else "fake",
               checkpointing=spec.get("ckpt", "full"), kind=spec["kind"])
    t0 = time.time()
    try:
        init_world(spec["world"], spec.get("real", False), dev)
        run = {"fsdp2": run_fsdp2, "fsdp1": run_fsdp1, "ds": run_deepspeed}[spec["kind"]]
        row.update(run(spec, tiny, dev))
        row["ok"] = True
    except Exception as e:  # noqa: BLE001 -- an error is a result; the next run goes on
        traceback.print_exc()
        row.update(ok=False, error=f"{type(e).__name__}: {str(e)[:400]}")
    row["wall_s"] = round(time.time() - t0, 1)
    row["versions"] = f"torch {torch.__version__}, transformers {transformers.__version__}, python {sys.version.split()[0]}"
    if dev == "cuda":
        row["gpu"] = torch.cuda.get_device_name(0)
    with open(out_path(), "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--one", help="run this one id in this process")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds after which runs are skipped")
    a = ap.parse_args()
    if a.one:
        one(a.one, a.tiny)
        return
    deadline = time.time() + a.budget
    for name, spec in RUNS.items():
        if a.only and a.only not in name:
            continue
        if a.tiny and spec["kind"] == "ds":
            continue
        if time.time() > deadline:
            print(f"budget: skipped {name}", flush=True)
            continue
        cmd = [sys.executable, os.path.abspath(__file__), "--one", name] + (["--tiny"] if a.tiny else [])
        try:
            subprocess.run(cmd, timeout=max(10.0, deadline - time.time()), check=False)
        except subprocess.TimeoutExpired:
            print(f"timeout: {name}", flush=True)


if __name__ == "__main__":
    main()
