#!/usr/bin/env python
"""What a torch.compile'd transformers decoder saves for backward, against eager, on CPU.

For each config the whole causal LM (`model(input_ids, labels=input_ids)`, as HF Trainer's
`torch_compile` and litgpt compile it) is run for one forward + backward with 2 and with 4 layers:
  * eager, and
  * compiled: torch.compile(model, backend=PARTITION, dynamic=False), where PARTITION is
    AOTAutograd with inductor's decomposition table (`select_decomp_table`) and inductor's own
    `partition_fn` (its joint-graph passes, then `min_cut_rematerialization_partition(...,
    compiler="inductor")`), with no-op fw/bw compilers: exactly the forward/backward split
    inductor compiles, minus the C++ code generation (which does not change what the forward
    returns for backward). `--inductor` runs the real `backend="inductor"` (gcc) instead, to
    check that the two save the same bytes.
Instrument: torch.autograd.graph.saved_tensors_hooks around forward + backward. Every tensor packed
for backward (for the compiled module: what AOTAutograd's CompiledFunction saves, i.e. the
partitioned forward graph's saved outputs) is recorded by storage (dedup by
untyped_storage().data_ptr(), sized by storage nbytes); parameter and buffer storages are excluded,
as in ../../../../../../shared/groundtruth/cpu (measure_activations.py).
per_layer = (saved(4 layers) - saved(2 layers)) / 2; outside = saved(2 layers) - 2 * per_layer.

`--breakdown` also writes the partitioned forward graph's saved outputs (name, shape, dtype, bytes,
owning module) for one interior layer of each family (compile_breakdown.csv).
No download: every model is built from a config object with random weights.
"""
import argparse
import csv
import functools
import os
import sys
import time
import warnings

import torch
import transformers
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
torch.set_num_threads(2)
HERE = os.path.dirname(os.path.abspath(__file__))

# family: (config class, attention implementation, extra config kwargs)
FAMILIES = {
    "llama": ("LlamaConfig", "sdpa", {}),
    "qwen2": ("Qwen2Config", "sdpa", {}),  # q/k/v biases
    "qwen3": ("Qwen3Config", "sdpa", {}),  # RMSNorm on each q and k head
    "gemma": ("GemmaConfig", "sdpa", {"hidden_activation": "gelu_pytorch_tanh"}),
    # Llama with eager attention (softmax written in Python), for the s² terms a compiled
    # eager attention saves.
    "llama_eager": ("LlamaConfig", "eager", {}),
    # Gemma-2 supports no sdpa (attention logit softcapping): eager attention, its default.
    "gemma2": ("Gemma2Config", "eager", {}),
}
# name: (hidden, intermediate, heads, kv_heads, head_dim)
SIZES = {
    "S1": (256, 688, 4, 2, 64),    # GQA 2:1
    "S2": (384, 1024, 3, 1, 128),  # MQA, head_dim 128
    "S3": (512, 1376, 8, 8, 64),   # MHA
    "S4": (320, 896, 8, 2, 48),    # a·d = 384 != h (d free of h/a)
}
SHAPES = [(1, 96), (2, 160)]  # (batch, seq)
VOCAB = 512


def make(family, size, layers, dtype):
    cls_name, attn, extra = FAMILIES[family]
    h, i, a, kv, d = SIZES[size]
    cfg = getattr(transformers, cls_name)(
        hidden_size=h, intermediate_size=i, num_hidden_layers=layers, num_attention_heads=a,
        num_key_value_heads=kv, head_dim=d, vocab_size=VOCAB, max_position_embeddings=1024,
        tie_word_embeddings=family.startswith("gemma"), use_cache=False, **extra)
    torch.manual_seed(0)
    m = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation=attn)
    if dtype == "bf16":
        m = m.to(torch.bfloat16)
    m.train()
    return m, attn


GRAPHS = {}


def nop_compiler(kind):
    def compile_(gm, example_inputs):
        GRAPHS[kind] = gm
        return make_boxed_func(gm.forward)
    return compile_


def partition_backend():
    from torch._inductor.compile_fx import partition_fn, select_decomp_table
    return aot_autograd(fw_compiler=nop_compiler("fw"), bw_compiler=nop_compiler("bw"),
                        decompositions=select_decomp_table(), partition_fn=partition_fn)


def saved_bytes(model, ids, excluded):
    seen = {}

    def pack(t):
        if isinstance(t, torch.Tensor) and t.device.type != "meta":
            st = t.untyped_storage()
            p = st.data_ptr()
            if p not in excluded and p not in seen:
                seen[p] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(input_ids=ids, labels=ids, use_cache=False)
        out.loss.backward()
    return sum(seen.values())


def run(family, size, b, s, dtype, layers, mode):
    m, attn = make(family, size, layers, dtype)
    excluded = {t.untyped_storage().data_ptr() for t in list(m.parameters()) + list(m.buffers())}
    torch.manual_seed(1)
    ids = torch.randint(0, VOCAB, (b, s))
    t0 = time.time()
    if mode == "eager":
        n = saved_bytes(m, ids, excluded)
    else:
        torch._dynamo.reset()
        backend = "inductor" if mode == "inductor" else partition_backend()
        c = torch.compile(m, backend=backend, dynamic=False)
        n = saved_bytes(c, ids, excluded)
    return n, attn, time.time() - t0


def breakdown(family, size, b, s, dtype, writer):
    """The partitioned forward's saved outputs for a 2-layer model, by owning module."""
    m, attn = make(family, size, 2, dtype)
    torch._dynamo.reset()
    GRAPHS.clear()
    c = torch.compile(m, backend=partition_backend(), dynamic=False)
    ids = torch.randint(0, VOCAB, (b, s))
    c(input_ids=ids, labels=ids, use_cache=False).loss.backward()
    bw = GRAPHS["bw"]
    fw = GRAPHS["fw"]
    fw_nodes = {n.name: n for n in fw.graph.nodes}
    for node in bw.graph.nodes:
        if node.op != "placeholder" or node.name.startswith("tangents"):
            continue
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            continue
        src = fw_nodes.get(node.name)
        stack = (src.meta.get("nn_module_stack") or {}) if src is not None else {}
        owner = list(stack.values())[-1][0] if stack else ""
        target = str(src.target) if src is not None and src.op == "call_function" else (src.op if src is not None else "")
        writer.writerow(dict(family=family, size=size, dtype=dtype, attention=attn, batch=b, seq=s,
                             name=node.name, op=target, module=owner, shape="x".join(map(str, val.shape)),
                             dtype_saved=str(val.dtype).replace("torch.", ""),
                             bytes=val.numel() * val.element_size()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--dtypes", default="bf16,fp32")
    ap.add_argument("--inductor", action="store_true", help="real inductor (gcc) for the compiled runs")
    ap.add_argument("--out", default=os.path.join(HERE, "compile_saved.csv"))
    ap.add_argument("--breakdown", action="store_true")
    args = ap.parse_args()
    if args.breakdown:
        with open(os.path.join(HERE, "compile_breakdown.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["family", "size", "dtype", "attention", "batch", "seq", "name", "op",
                                              "module", "shape", "dtype_saved", "bytes"])
            w.writeheader()
            for fam in args.families.split(","):
                breakdown(fam, "S1", 2, 160, "bf16", w)
        return
    fields = ["family", "attention", "dtype", "size", "hidden", "intermediate", "heads", "kv_heads", "head_dim",
              "vocab", "batch", "seq", "mode", "saved_2_layers", "saved_4_layers", "per_layer", "outside", "seconds"]
    new = not os.path.exists(args.out)
    with open(args.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        if new:
            w.writeheader()
        for fam in args.families.split(","):
            for size in args.sizes.split(","):
                for dtype in args.dtypes.split(","):
                    for b, s in SHAPES:
                        for mode in ("eager", "inductor" if args.inductor else "compiled"):
                            n2, attn, t2 = run(fam, size, b, s, dtype, 2, mode)
                            n4, _, t4 = run(fam, size, b, s, dtype, 4, mode)
                            h, i, a, kv, d = SIZES[size]
                            per = (n4 - n2) // 2
                            row = dict(family=fam, attention=attn, dtype=dtype, size=size, hidden=h, intermediate=i,
                                       heads=a, kv_heads=kv, head_dim=d, vocab=VOCAB, batch=b, seq=s, mode=mode,
                                       saved_2_layers=n2, saved_4_layers=n4, per_layer=per, outside=n2 - 2 * per,
                                       seconds=round(t2 + t4, 1))
                            w.writerow(row)
                            f.flush()
                            print(row, flush=True)


if __name__ == "__main__":
    main()
