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

    python3 measure_mechanisms.py            # on the GPU machine
    python3 measure_mechanisms.py --tiny     # CPU smoke run (tiny shapes, no memory numbers)
"""
import argparse
import contextlib
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


def train_two_steps(net, model, batch, count=False, forward_ctx=contextlib.nullcontext):
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-5)
    counter = SavedCounter(model) if count else None
    res = {}
    for step in (1, 2):
        if step == 2:
            reset()
            res["start_allocated"] = peaks()[2]
        t0 = time.time()
        ctx = counter.hooks() if (counter and step == 2) else contextlib.nullcontext()
        with ctx:
            with forward_ctx():
                loss = net(input_ids=batch, labels=batch).loss
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--only", default="")
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
