"""GPU memory of QLoRA training as the common recipes set it up, measured on one GPU.

Every model is built from a transformers config (public config.json values of Llama-3-8B and
Llama-3.2-1B) with random weights; nothing is downloaded. The decoder's linears become
bitsandbytes `Linear4bit` (NF4, double quantization, bf16 compute), quantized on the GPU from
random bf16 weights exactly as bitsandbytes quantizes a checkpoint's (`Params4bit.to("cuda")`);
the embeddings, norms and the LM head stay unquantized, as transformers' bitsandbytes quantizer
leaves them (`get_keys_to_not_convert` keeps the output embedding). LoRA (PEFT) on every linear of
the decoder, r 16, alpha 32, dropout 0.05; torch.optim.AdamW over the adapters; two steps, the
numbers from step 2 after `reset_peak_memory_stats()`.

Recipes (`recipe` in each row):
  plain    PEFT on the 4-bit model as loaded (bf16 embeddings/norms/head), no autocast,
           non-reentrant checkpointing when `gc`
  prep     peft.prepare_model_for_kbit_training (every non-4-bit parameter cast to fp32,
           reentrant checkpointing through it), forward under torch.autocast(bf16) as the HF
           Trainer runs with bf16=True
  trl      TRL's SFTTrainer order: prepare_model_for_kbit_training, get_peft_model, then
           peft_module_casting_to_bf16 (norms fp32, embeddings and LM head back to bf16), forward
           under autocast(bf16)

    python3 measure_qlora.py                    # on the GPU machine; rows to $OUT/qlora.jsonl
    QLORA_SET=probe python3 measure_qlora.py    # where the recipes differ (saved tensors by kind)
    QLORA_TINY=1 python3 measure_qlora.py       # CPU smoke run, tiny shapes, no memory numbers
"""
import contextlib
import gc as garbage
import json
import os
import sys
import time
import traceback

import torch
import transformers

LLAMA3_8B = dict(hidden_size=4096, intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8,
                 head_dim=128, vocab_size=128256, tie_word_embeddings=False, num_hidden_layers=32,
                 max_position_embeddings=8192, rms_norm_eps=1e-5, rope_theta=500000.0)
LLAMA32_1B = dict(hidden_size=2048, intermediate_size=8192, num_attention_heads=32, num_key_value_heads=8,
                  head_dim=64, vocab_size=128256, tie_word_embeddings=True, num_hidden_layers=16,
                  max_position_embeddings=131072, rms_norm_eps=1e-5, rope_theta=500000.0)
DEV = "cuda" if torch.cuda.is_available() else "cpu"
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def out_path():
    return os.path.join(os.environ.get("OUT", "."), "qlora.jsonl")


def versions():
    v = {"torch": torch.__version__, "transformers": transformers.__version__,
         "python": sys.version.split()[0]}
    for name in ("peft", "bitsandbytes", "accelerate"):
        try:
            v[name] = __import__(name).__version__
        except Exception:  # a missing package is recorded, not fatal
            v[name] = None
    return v


def emit(row):
    row["versions"] = versions()
    row["gpu"] = torch.cuda.get_device_name(0) if DEV == "cuda" else "cpu smoke run"
    with open(out_path(), "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def quantize_linears(model, double_quant=True):
    import bitsandbytes as bnb
    for layer in model.model.layers:
        for parent in layer.modules():
            for cname, child in list(parent.named_children()):
                if type(child) is torch.nn.Linear:
                    q = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                          compute_dtype=torch.bfloat16, compress_statistics=double_quant,
                                          quant_type="nf4", quant_storage=torch.uint8, device="meta")
                    w = torch.randn(child.out_features, child.in_features, dtype=torch.bfloat16,
                                    device=DEV) * 0.02
                    p = bnb.nn.Params4bit(w, requires_grad=False, compress_statistics=double_quant,
                                          quant_type="nf4", quant_storage=torch.uint8, module=q)
                    q.weight = p.to(DEV)
                    del w
                    setattr(parent, cname, q)
    model.is_loaded_in_4bit = True
    return model


def build(dims):
    cfg = transformers.LlamaConfig(**dims)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
    # Everything but the decoder's linears: real bf16 tensors on the GPU.
    linears = {id(m.weight) for layer in model.model.layers for m in layer.modules() if type(m) is torch.nn.Linear}
    for mod in model.modules():
        for pname, p in list(mod.named_parameters(recurse=False)):
            if id(p) not in linears:
                t = torch.empty(p.shape, dtype=torch.bfloat16, device=DEV).normal_(0, 0.02)
                setattr(mod, pname, torch.nn.Parameter(t, requires_grad=False))
        for bname, b in list(mod.named_buffers(recurse=False)):
            if b.device.type == "meta":
                mod.register_buffer(bname, torch.empty(b.shape, dtype=b.dtype, device=DEV), persistent=False)
    if dims.get("tie_word_embeddings"):
        model.lm_head.weight = model.model.embed_tokens.weight
    model = quantize_linears(model)
    # Rotary inverse frequencies are computed at init: a fresh module on the device.
    with torch.device(DEV):
        model.model.rotary_emb = type(model.model.rotary_emb)(config=cfg)
    model.config.use_cache = False
    return model


def settle():
    if DEV == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def mem(stat):
    if DEV != "cuda":
        return 0
    torch.cuda.synchronize()
    return getattr(torch.cuda, stat)()


def dtype_bytes(model):
    out = {}
    for p in model.parameters():
        k = str(p.dtype).replace("torch.", "")
        out[k] = out.get(k, 0) + p.numel() * p.element_size()
    return out


class SavedCounter:
    """Bytes packed for backward, each storage once, parameters excluded."""

    def __init__(self, model):
        self.params = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.seen, self.bytes, self.by_kind = set(), 0, {}

    def pack(self, t):
        s = t.untyped_storage()
        if s.data_ptr() not in self.params and s.data_ptr() not in self.seen:
            self.seen.add(s.data_ptr())
            self.bytes += s.nbytes()
            kind = (f"{str(t.dtype).replace('torch.', '')} {type(t.grad_fn).__name__ if t.grad_fn else 'leaf'} "
                    f"last-dim {t.shape[-1] if t.dim() else 0}")
            self.by_kind[kind] = self.by_kind.get(kind, 0) + s.nbytes()
        return t


def run(name, dims, recipe, gc, mb, seq, reentrant=None):
    import peft
    row = dict(variant=name, recipe=recipe, use_reentrant=reentrant, gradient_checkpointing=gc, micro_batch=mb, seq_len=seq,
               layers=dims["num_hidden_layers"], hidden=dims["hidden_size"], lora_rank=16,
               lora_targets=TARGETS, optimizer="torch.optim.AdamW(lr=1e-4) over the adapters")
    t0 = time.time()
    garbage.collect()  # transformers models hold reference cycles: free the previous run's first
    settle()
    row["before_allocated"] = mem("memory_allocated")
    try:
        model = build(dims)
        if recipe in ("prep", "trl"):
            kw = {} if reentrant is None else {"use_reentrant": reentrant}
            model = peft.prepare_model_for_kbit_training(model, use_gradient_checkpointing=gc,
                                                         gradient_checkpointing_kwargs=kw)
        elif gc:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        lcfg = peft.LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules=TARGETS, task_type="CAUSAL_LM")
        model = peft.get_peft_model(model, lcfg)
        if recipe == "trl":
            for mname, mod in model.named_modules():
                if isinstance(mod, torch.nn.LayerNorm) or "norm" in mname:
                    mod.to(torch.float32)
                elif any(x in mname for x in ("lm_head", "embed_tokens")) and hasattr(mod, "weight"):
                    if mod.weight.dtype == torch.float32:
                        mod.to(torch.bfloat16)
        model.train()
        row["param_bytes_by_dtype"] = dtype_bytes(model)
        row["trainable_params"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
        autocast = recipe in ("prep", "trl")
        row["autocast_bf16"] = autocast
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
        g = torch.Generator(device="cpu").manual_seed(0)
        batch = torch.randint(0, dims["vocab_size"], (mb, seq), generator=g).to(DEV)
        for step in (1, 2):
            if step == 2:
                garbage.collect()
                settle()
                row["start_allocated"] = mem("memory_allocated")
                counter = SavedCounter(model)
                hooks = torch.autograd.graph.saved_tensors_hooks(counter.pack, lambda t: t)
            else:
                hooks = contextlib.nullcontext()
            with hooks:
                ctx = torch.autocast(DEV, dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
                with ctx:
                    loss = model(input_ids=batch, labels=batch).loss
                loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        row.update(peak_allocated=mem("max_memory_allocated"), peak_reserved=mem("max_memory_reserved"),
                   end_allocated=mem("memory_allocated"), saved_bytes=counter.bytes,
                   saved_by_kind=counter.by_kind, ok=True)
        del model, opt, batch, loss
    except Exception as e:  # an OOM or a framework error is a result too; the next run goes on
        row.update(ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
        traceback.print_exc()
    row["wall_s"] = round(time.time() - t0, 1)
    emit(row)
    settle()


def main():
    try:
        import bitsandbytes  # noqa: F401
        import peft  # noqa: F401
    except Exception as e:
        print(f"qlora: skipped, {e}", flush=True)
        return
    runs = [("8b", LLAMA3_8B, "plain", True, 1, 2048),
            ("8b", LLAMA3_8B, "prep", True, 1, 2048),
            ("8b", LLAMA3_8B, "trl", True, 1, 2048),
            ("8b", LLAMA3_8B, "trl", True, 4, 2048),
            ("8b", LLAMA3_8B, "trl", True, 2, 4096),
            ("8b", LLAMA3_8B, "prep", False, 1, 1024),
            ("8b", LLAMA3_8B, "trl", False, 1, 1024),
            ("8b", LLAMA3_8B, "plain", False, 1, 1024),
            ("1b", LLAMA32_1B, "trl", True, 1, 1024),
            ("1b", LLAMA32_1B, "trl", True, 4, 1024),
            ("1b", LLAMA32_1B, "trl", False, 1, 1024),
            ("1b", LLAMA32_1B, "trl", False, 2, 1024),
            ("1b", LLAMA32_1B, "prep", False, 2, 1024),
            ("1b", LLAMA32_1B, "plain", False, 2, 1024)]
    if os.environ.get("QLORA_SET") == "probe":
        # Where the recipes differ: 4 layers of Llama-3-8B dims, saved tensors by kind;
        # checkpointing reentrant or not; plain at a large micro-batch.
        l4 = dict(LLAMA3_8B, num_hidden_layers=4)
        runs = [("8b-l4", l4, "plain", False, 1, 1024), ("8b-l4", l4, "trl", False, 1, 1024),
                ("8b-l4", l4, "prep", False, 1, 1024), ("8b", LLAMA3_8B, "plain", True, 4, 2048),
                ("8b", LLAMA3_8B, "trl", True, 4, 2048, True), ("8b", LLAMA3_8B, "trl", True, 4, 2048, False),
                ("8b", LLAMA3_8B, "prep", True, 4, 2048, False)]
    if os.environ.get("QLORA_TINY"):  # CPU smoke run: tiny shapes, no memory numbers
        tiny = lambda d: dict(d, hidden_size=64, intermediate_size=128, num_attention_heads=4,  # noqa: E731
                              num_key_value_heads=2, head_dim=16, vocab_size=512, num_hidden_layers=2)
        runs = [(x[0], tiny(x[1]), *x[2:5], 32, *x[6:]) for x in runs]
    budget = float(os.environ.get("QLORA_BUDGET_S", "200"))
    t0 = time.time()
    for spec in runs:
        if time.time() - t0 > budget:
            print(f"qlora: budget spent, skipping {spec[0]} {spec[2:]}", flush=True)
            continue
        run(*spec)


if __name__ == "__main__":
    main()
