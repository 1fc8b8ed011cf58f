"""GPU memory of the training mechanisms of issue 12, measured on one GPU.

Every model is built from a transformers config (Llama-3.2-1B's public config.json values, with
the layer count varied) with random bf16 weights on the GPU; nothing is downloaded. One line of
JSON per variant goes to $OUT/mechanisms.jsonl (or ./mechanisms.jsonl), as soon as it is measured,
so a run stopped at a time limit keeps what it measured.

Variants (each: AdamW(lr=1e-5) full fine-tune, two training steps, numbers from step 2):
  eager     plain eager step; saved-for-backward bytes counted by storage with saved_tensors_hooks
  compiled  torch.compile(model) (inductor, dynamic=False), as HF Trainer's torch_compile does
  offload   torch.autograd.graph.save_on_cpu(pin_memory=True) around the forward (activation offloading)
  fsdp      FSDP2 fully_shard per layer and root on a world of one rank, without and with
            CPUOffloadPolicy(pin_memory=True) (torchtune fsdp_cpu_offload)
  ckpt      full activation checkpointing (transformers' gradient_checkpointing_enable, non-reentrant)
            at growing micro-batches, Llama-3.2-1B and Llama-3-8B (LoRA) dims, with the caching
            allocator's event trace of step 2 (torch.cuda.memory._record_memory_history) written to
            $OUT/traces.jsonl.gz: the data an allocator simulation is checked on. Run it again with
            PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for the expandable rows.
  sac       torchtitan's per-op selective checkpointing (restated in ../sac/measure_sac.py) on
            every decoder layer, against full checkpointing at the same shape
  oib       optimizer in backward (torchtune optimizer_in_bwd: one AdamW per parameter, stepped
            by register_post_accumulate_grad_hook), without and with checkpointing
  lora      PEFT LoRA r16 on all linear layers (no dropout), eager and compiled; and
            full fine-tune compiled with checkpointing

    python3 measure_mechanisms.py            # on the GPU machine
    python3 measure_mechanisms.py --tiny     # CPU smoke run (tiny shapes, no memory numbers)
"""
import argparse
import contextlib
import functools
import gzip
import json
import os
import sys
import time
import traceback

import torch
import transformers

GiB = 1 << 30
LLAMA_1B = dict(hidden_size=2048, intermediate_size=8192, num_attention_heads=32, num_key_value_heads=8,
                head_dim=64, vocab_size=128256, tie_word_embeddings=True, max_position_embeddings=131072,
                rms_norm_eps=1e-5, rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=32.0,
                                                        low_freq_factor=1.0, high_freq_factor=4.0,
                                                        original_max_position_embeddings=8192))
TINY = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
            vocab_size=512, tie_word_embeddings=True, max_position_embeddings=4096, rms_norm_eps=1e-5)


def out_path():
    return os.path.join(os.environ.get("OUT", "."), "mechanisms.jsonl")


def emit(row):
    row["versions"] = (f"torch {torch.__version__}, transformers {transformers.__version__}, "
                       f"python {sys.version.split()[0]}")
    if torch.cuda.is_available():
        row["gpu"] = torch.cuda.get_device_name(0)
    with open(out_path(), "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def build(layers, tiny, dev, attn="sdpa"):
    kw = dict(TINY if tiny else LLAMA_1B, num_hidden_layers=layers)
    cfg = transformers.LlamaConfig(**kw)
    with torch.device(dev):
        model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation=attn)
    model.train()
    model.config.use_cache = False
    return model


class SavedCounter:
    """Bytes packed for backward, each storage once, parameters excluded."""

    def __init__(self, model):
        self.params = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.seen, self.bytes, self.cpu = set(), 0, 0

    def pack(self, t):
        if t.device.type == "cpu" and torch.cuda.is_available():
            self.cpu += t.untyped_storage().nbytes()
            return t
        s = t.untyped_storage()
        if s.data_ptr() not in self.params and s.data_ptr() not in self.seen:
            self.seen.add(s.data_ptr())
            self.bytes += s.nbytes()
        return t

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)


def reset():
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def peaks():
    if not torch.cuda.is_available():
        return 0, 0, 0
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), torch.cuda.memory_allocated()


def train_two_steps(net, model, batch, count=False, forward_ctx=contextlib.nullcontext, trace_name=None):
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-5)
    counter = SavedCounter(model) if count else None
    trace = trace_name is not None and torch.cuda.is_available()
    res = {}
    for step in (1, 2):
        if step == 2:
            reset()
            res["start_allocated"] = peaks()[2]
            res["start_reserved"] = torch.cuda.memory_reserved() if torch.cuda.is_available() else 0
            if trace:
                start = segments_now()
                torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
        t0 = time.time()
        ctx = counter.hooks() if (counter and step == 2) else contextlib.nullcontext()
        with ctx:
            with forward_ctx():
                loss = net(input_ids=batch, labels=batch).loss
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step == 2 and trace:
            torch.cuda.synchronize()
            try:  # the measurement stands without its trace
                res["trace_events"] = write_trace(trace_name, start)
            except Exception as e:
                res["trace_error"] = f"{type(e).__name__}: {str(e)[:200]}"
            torch.cuda.memory._record_memory_history(enabled=None)
        res[f"step{step}_s"] = round(time.time() - t0, 2)
    pa, pr, now = peaks()
    res.update(peak_allocated=pa, peak_reserved=pr, end_allocated=now)
    if counter:
        res["saved_bytes"] = counter.bytes
    opt = None
    return res


def variant(name, layers, mb, seq, tiny, dev, fn):
    base = dict(variant=name, model="Llama-3.2-1B dims", layers=layers, micro_batch=mb, seq_len=seq,
                dtype="bf16", attn="sdpa", optimizer="torch.optim.AdamW foreach")
    t0 = time.time()
    try:
        base.update(fn())
        base["ok"] = True
    except Exception as e:  # an OOM or a framework error is a result too; the next variant goes on
        base.update(ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
        traceback.print_exc()
    base["wall_s"] = round(time.time() - t0, 1)
    emit(base)
    reset()


ACTIONS = {"alloc": 0, "free_requested": 1, "free_completed": 2, "segment_alloc": 3, "segment_free": 4,
           "segment_map": 5, "segment_unmap": 6, "oom": 7, "snapshot": 8}


def segments_now():
    """The allocator's segments and their blocks: [address, total, pool, [[size, state], ...]]."""
    out = []
    for seg in torch.cuda.memory._snapshot()["segments"]:
        blocks = [[b["size"], 1 if b["state"] == "active_allocated" else 0] for b in seg["blocks"]]
        out.append([seg["address"], seg["total_size"], seg["segment_type"], blocks])
    return out


def write_trace(name, start_segments):
    snap = torch.cuda.memory._snapshot()
    events = [[ACTIONS.get(e["action"], 9), e["addr"], e["size"]] for e in snap["device_traces"][0]]
    row = dict(variant=name, actions=ACTIONS, start_segments=start_segments, events=events,
               alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""))
    with gzip.open(os.path.join(os.environ.get("OUT", "."), "traces.jsonl.gz"), "at") as f:
        f.write(json.dumps(row) + "\n")
    return len(events)


ATTENTION_OPS_SEEN = set()


def titan_policy(all_attention=False):
    """torchtitan's per-op SAC policy, as ../sac/measure_sac.py restates it (CUDA SDPA kernels).
    `all_attention`: torchtitan's later save list, which names every SDPA kernel (cuDNN's too)."""
    from torch._functorch.partitioners import get_default_op_list
    from torch.utils.checkpoint import CheckpointPolicy
    save = {op.default for op in get_default_op_list().compute_intensive_ops}
    save |= {torch.ops.aten.max.default, torch.ops.aten.topk.default, torch.ops.aten.linear.default}
    if all_attention:
        for name in ("_scaled_dot_product_cudnn_attention", "_scaled_dot_product_efficient_attention",
                     "_scaled_dot_product_flash_attention", "_scaled_dot_product_fused_attention_overrideable"):
            if hasattr(torch.ops.aten, name):
                save.add(getattr(torch.ops.aten, name).default)
    mm = (torch.ops.aten.mm.default, torch.ops.aten.linear.default)
    meta = {"forward": 0, "recompute": 0}

    def policy(ctx, func, *args, **kwargs):
        if "attention" in str(func):
            ATTENTION_OPS_SEEN.add(str(func))
        mode = "recompute" if ctx.is_recompute else "forward"
        if func in mm:
            meta[mode] += 1
        if func in save:
            if func in mm and meta[mode] % 2 == 0:
                return CheckpointPolicy.PREFER_RECOMPUTE
            return CheckpointPolicy.MUST_SAVE
        return CheckpointPolicy.PREFER_RECOMPUTE

    return policy


def sac_context(all_attention=False):
    from torch.utils.checkpoint import create_selective_checkpoint_contexts
    return create_selective_checkpoint_contexts(titan_policy(all_attention))


def enable_checkpointing(model, sac=False, all_attention=False):
    kw = {"use_reentrant": False}
    if sac:
        kw["context_fn"] = functools.partial(sac_context, all_attention)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)


def oib_two_steps(model, batch):
    """torchtune's optimizer_in_bwd: one optimizer per parameter, stepped as its grad is final."""
    opts = {p: torch.optim.AdamW([p], lr=1e-5) for p in model.parameters() if p.requires_grad}

    def hook(p):
        opts[p].step()
        opts[p].zero_grad(set_to_none=True)

    handles = [p.register_post_accumulate_grad_hook(hook) for p in opts]
    res = {}
    for step in (1, 2):
        if step == 2:
            reset()
            res["start_allocated"] = peaks()[2]
        t0 = time.time()
        model(input_ids=batch, labels=batch).loss.backward()
        res[f"step{step}_s"] = round(time.time() - t0, 2)
    for h in handles:
        h.remove()
    pa, pr, now = peaks()
    res.update(peak_allocated=pa, peak_reserved=pr, end_allocated=now)
    return res


def llama_8b(layers, tiny, dev):
    if tiny:
        return build(layers, tiny, dev)
    kw = dict(LLAMA_1B, hidden_size=4096, intermediate_size=14336, num_key_value_heads=8, head_dim=128,
              tie_word_embeddings=False, num_hidden_layers=layers, max_position_embeddings=8192,
              rope_parameters=dict(rope_type="default", rope_theta=500000.0))
    with torch.device(dev):
        model = transformers.AutoModelForCausalLM.from_config(transformers.LlamaConfig(**kw), dtype=torch.bfloat16,
                                                              attn_implementation="sdpa")
    model.train()
    model.config.use_cache = False
    return model


def with_lora(model):
    import peft
    cfg = peft.LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, task_type="CAUSAL_LM",
                          target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                          "down_proj"])
    return peft.get_peft_model(model, cfg)


def new_groups(want, tiny, dev, batch, vocab, deadline):
    """The groups added on 2026-11-27 (ckpt, sac, oib, lora)."""
    expandable = "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    L16 = 2 if tiny else 16

    def run(name, layers, mb, seq, fn, **extra):
        if time.time() > deadline:
            print(f"skipped {name} L{layers} b{mb} s{seq}: budget", flush=True)
            return
        def wrapped():
            r = fn()
            r.update(extra, expandable_segments=expandable)
            return r
        variant(name, layers, mb, seq, tiny, dev, wrapped)

    if want("ckpt"):
        grid = [(2, 64)] if tiny else [(8, 1024), (16, 1024), (32, 1024), (8, 2048), (16, 2048)]
        for mb, seq in grid:
            def ckpt(mb=mb, seq=seq):
                m = build(L16, tiny, dev)
                enable_checkpointing(m)
                return train_two_steps(m, m, batch(mb, seq, vocab), trace_name=f"ckpt-full L{L16} b{mb} s{seq}")
            run("ckpt-full", L16, mb, seq, ckpt)
        L32 = 2 if tiny else 32
        for mb in ([2] if tiny else [8, 16]):
            seq = 64 if tiny else 2048
            def lora8b(mb=mb, seq=seq):
                m = with_lora(llama_8b(L32, tiny, dev))
                m.base_model.model.gradient_checkpointing_enable(
                    gradient_checkpointing_kwargs={"use_reentrant": False})
                m.enable_input_require_grads()
                return train_two_steps(m, m, batch(mb, seq, vocab), trace_name=f"lora8b-ckpt L{L32} b{mb} s{seq}")
            run("lora8b-ckpt", L32, mb, seq, lora8b, model_dims="Llama-3-8B dims", lora="r16 all linear")
    if expandable:
        return
    mb, seq = (2, 64) if tiny else (4, 2048)
    if want("probe"):  # second run of 2026-11-27: where the peaks of SAC, compile + checkpointing, LoRA + compile lie
        def sac_all():
            ATTENTION_OPS_SEEN.clear()
            m = build(L16, tiny, dev)
            enable_checkpointing(m, sac=True, all_attention=True)
            r = train_two_steps(m, m, batch(mb, seq, vocab), trace_name="sac-op-all-attention")
            r["attention_ops"] = sorted(ATTENTION_OPS_SEEN)
            return r
        run("sac-op-all-attention", L16, mb, seq, sac_all, checkpointing="op")
        L4, L8 = (2, 4) if tiny else (4, 8)
        lmb, lseq = (2, 64) if tiny else (2, 2048)
        def eager_ckpt():
            m = build(L8, tiny, dev)
            enable_checkpointing(m)
            return train_two_steps(m, m, batch(lmb, lseq, vocab), count=True, trace_name=f"eager-ckpt L{L8}")
        run("eager-ckpt", L8, lmb, lseq, eager_ckpt, checkpointing="full")
        for L in (L4, L8):
            def compiled_ckpt(L=L):
                torch._dynamo.reset()
                m = build(L, tiny, dev)
                enable_checkpointing(m)
                net = torch.compile(m, dynamic=False)
                return train_two_steps(net, m, batch(lmb, lseq, vocab), count=True, trace_name=f"compiled-ckpt L{L}")
            run("compiled-ckpt", L, lmb, lseq, compiled_ckpt, checkpointing="full")
        for comp in (False, True):
            def lora4(comp=comp):
                torch._dynamo.reset()
                m = with_lora(build(L4, tiny, dev))
                net = torch.compile(m, dynamic=False) if comp else m
                name = "lora-compiled" if comp else "lora-eager"
                return train_two_steps(net, m, batch(lmb, lseq, vocab), count=True, trace_name=f"{name} L{L4}")
            run("lora-compiled" if comp else "lora-eager", L4, lmb, lseq, lora4, lora="r16 all linear")
        return
    if want("sac"):
        for mode in ("op", "full"):
            def sac(mode=mode):
                m = build(L16, tiny, dev)
                enable_checkpointing(m, sac=mode == "op")
                return train_two_steps(m, m, batch(mb, seq, vocab))
            run(f"sac-{mode}", L16, mb, seq, sac, checkpointing=mode)
    if want("oib"):
        for ck in (False, True):
            def oib(ck=ck):
                m = build(L16, tiny, dev)
                if ck:
                    enable_checkpointing(m)
                return oib_two_steps(m, batch(mb, seq, vocab))
            run("oib-ckpt" if ck else "oib", L16, mb, seq, oib, checkpointing="full" if ck else "off")
    if want("lora"):
        L8 = 2 if tiny else 8
        lmb, lseq = (2, 64) if tiny else (2, 2048)
        for comp in (False, True):
            def lora(comp=comp):
                torch._dynamo.reset()
                m = with_lora(build(L8, tiny, dev))
                net = torch.compile(m, dynamic=False) if comp else m
                return train_two_steps(net, m, batch(lmb, lseq, vocab), count=True)
            run("lora-compiled" if comp else "lora-eager", L8, lmb, lseq, lora, lora="r16 all linear")
        def compiled_ckpt():
            torch._dynamo.reset()
            m = build(L8, tiny, dev)
            enable_checkpointing(m)
            net = torch.compile(m, dynamic=False)
            return train_two_steps(net, m, batch(lmb, lseq, vocab))
        run("compiled-ckpt", L8, lmb, lseq, compiled_ckpt, checkpointing="full")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--new", action="store_true", help="only the groups added on 2026-11-27")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds after which variants are skipped")
    a = ap.parse_args()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    tiny = a.tiny
    mb, seq = (2, 64) if tiny else (2, 2048)
    L1, L2 = (2, 4) if tiny else (4, 8)
    gen = torch.Generator(device="cpu").manual_seed(0)

    def batch(b, s, vocab):
        return torch.randint(0, vocab, (b, s), generator=gen).to(dev)

    vocab = TINY["vocab_size"] if tiny else LLAMA_1B["vocab_size"]
    want = lambda n: (not a.only) or (a.only in n)  # noqa: E731
    deadline = time.time() + a.budget
    new_groups(want, tiny, dev, batch, vocab, deadline)
    if a.new:
        return

    # eager vs compiled at two depths: per layer = (L2 - L1) / (L2 - L1 layers)
    for L in (L1, L2):
        if want("eager"):
            def eager(L=L):
                m = build(L, tiny, dev)
                return train_two_steps(m, m, batch(mb, seq, vocab), count=True)
            variant("eager", L, mb, seq, tiny, dev, eager)
        if want("compiled"):
            def compiled(L=L):
                torch._dynamo.reset()
                m = build(L, tiny, dev)
                net = torch.compile(m, dynamic=False)
                return train_two_steps(net, m, batch(mb, seq, vocab), count=True)
            variant("compiled", L, mb, seq, tiny, dev, compiled)

    full_layers = 2 if tiny else 16
    omb, oseq = (2, 64) if tiny else (4, 2048)
    if want("offload"):
        for mode in ("none", "save_on_cpu"):
            def offload(mode=mode):
                m = build(full_layers, tiny, dev)
                ctx = ((lambda: torch.autograd.graph.save_on_cpu(pin_memory=dev == "cuda"))
                       if mode == "save_on_cpu" else contextlib.nullcontext)
                r = train_two_steps(m, m, batch(omb, oseq, vocab), forward_ctx=ctx)
                r["activation_offload"] = mode
                return r
            variant(f"offload-{mode}", full_layers, omb, oseq, tiny, dev, offload)

    if want("fsdp"):
        import torch.distributed as dist
        from torch.distributed.fsdp import CPUOffloadPolicy, fully_shard
        if not dist.is_initialized():
            os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
            os.environ.setdefault("MASTER_PORT", "29533")
            dist.init_process_group("nccl" if dev == "cuda" else "gloo", rank=0, world_size=1)
        for off in (False, True):
            def fsdp(off=off):
                if off:
                    with torch.device("cpu"):
                        m = build(full_layers, tiny, "cpu")
                else:
                    m = build(full_layers, tiny, dev)
                kw = dict(offload_policy=CPUOffloadPolicy(pin_memory=dev == "cuda")) if off else {}
                for layer in m.model.layers:
                    fully_shard(layer, **kw)
                fully_shard(m, **kw)
                r = train_two_steps(m, m, batch(omb, 1024 if not tiny else 64, vocab))
                r["fsdp2_cpu_offload"] = off
                return r
            variant(f"fsdp2-offload-{off}", full_layers, omb, 1024 if not tiny else 64, tiny, dev, fsdp)
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
