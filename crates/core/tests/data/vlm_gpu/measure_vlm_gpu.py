"""GPU memory of Qwen-VL runs at real image sizes (dynamic resolution), measured on one GPU.

Every model is built from its public config.json (kept beside the tests in ../configs/vlm/) with
random bf16 weights created on the GPU and SDPA attention; nothing is downloaded. Images are
synthetic (random pixels) of the stated width x height, turned into patches by transformers' own
Qwen2VLImageProcessor with the stated min/max pixels, so the tower gets exactly the patches a
real photo of that size gives. One line of JSON per run goes to $OUT/vlm_gpu.jsonl (or
./vlm_gpu.jsonl) as soon as it is measured.

Runs:
  load       weights only: memory_allocated() after minus before the build
  generate   model.generate greedy, batch 1, one image, exactly `new` new tokens (min = max),
             DynamicCache; one warm-up generate, then empty_cache and reset_peak_memory_stats
  train      two training steps (forward with labels, backward, AdamW(lr=1e-5, foreach) step,
             zero_grad(set_to_none=True)), numbers from step 2; full fine-tune in pure bf16 with
             the vision tower frozen or trainable, or PEFT LoRA r16 on the language model's seven
             linears with the tower frozen, gradient checkpointing on or off; image positions
             masked out of the loss (labels -100)

    python3 measure_vlm_gpu.py            # on the GPU machine
    python3 measure_vlm_gpu.py --tiny     # CPU smoke run (tiny shapes, no memory numbers)
"""
import argparse
import inspect
import json
import os
import sys
import time
import traceback

import numpy as np
import torch
import transformers

GiB = 1 << 30
HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs", "vlm")
MODELS = {
    "qwen2-vl-2b": "Qwen__Qwen2-VL-2B-Instruct.json",
    "qwen2.5-vl-3b": "Qwen__Qwen2.5-VL-3B-Instruct.json",
    "qwen3-vl-4b": "Qwen__Qwen3-VL-4B-Instruct.json",
    "qwen2.5-vl-7b": "Qwen__Qwen2.5-VL-7B-Instruct.json",
}
# Qwen2VLImageProcessor's own defaults (min_pixels 56*56, max_pixels 28*28*1280) and the
# Hub's preprocessor_config.json of Qwen2.5-VL (max_pixels 12845056); Qwen3-VL's processor:
# patch 16, shortest_edge 65536, longest_edge 16777216.
PRE_DEFAULT = dict(min_pixels=3136, max_pixels=1003520, patch_size=14)
PRE_HUB = dict(min_pixels=3136, max_pixels=12845056, patch_size=14)
PRE_QWEN3 = dict(min_pixels=65536, max_pixels=16777216, patch_size=16)

# (model, kind, w, h, preprocessor, text tokens, extra); ordered by priority.
RUNS = [
    ("qwen2-vl-2b", "gen", 640, 480, PRE_DEFAULT, 64, dict(new=64)),
    ("qwen2-vl-2b", "gen", 1920, 1080, PRE_HUB, 64, dict(new=64)),
    ("qwen2-vl-2b", "train", 1280, 720, PRE_DEFAULT, 256, dict(method="full", vision="frozen", gc=False)),
    ("qwen2-vl-2b", "train", 1280, 720, PRE_DEFAULT, 256, dict(method="full", vision="trainable", gc=False)),
    ("qwen2-vl-2b", "train", 1920, 1080, PRE_HUB, 256, dict(method="lora", vision="frozen", gc=True)),
    ("qwen2.5-vl-3b", "gen", 1280, 720, PRE_DEFAULT, 64, dict(new=64)),
    ("qwen2.5-vl-3b", "gen", 1920, 1080, PRE_HUB, 64, dict(new=64)),
    ("qwen2.5-vl-3b", "train", 1280, 720, PRE_DEFAULT, 256, dict(method="full", vision="frozen", gc=False)),
    ("qwen2.5-vl-3b", "train", 1280, 720, PRE_DEFAULT, 256, dict(method="full", vision="trainable", gc=True)),
    ("qwen2.5-vl-3b", "train", 1920, 1080, PRE_HUB, 256, dict(method="lora", vision="frozen", gc=True)),
    ("qwen3-vl-4b", "gen", 1920, 1080, PRE_QWEN3, 64, dict(new=64)),
    ("qwen3-vl-4b", "train", 1280, 720, PRE_QWEN3, 256, dict(method="lora", vision="frozen", gc=True)),
    ("qwen3-vl-4b", "train", 1280, 720, PRE_QWEN3, 256, dict(method="full", vision="frozen", gc=False)),
]
# Second set (--set 2): what the first set's LoRA runs left open (the frozen tower's graph under
# PEFT's enable_input_require_grads, which hooks the tower's patch embedding too in transformers 5;
# hook "lm" registers only the language model's, as transformers 4 did), several images and
# samples, a trainable tower at a large image, and a 7B model.
RUNS2 = [
    ("qwen2-vl-2b", "train", 1920, 1080, PRE_HUB, 256, dict(method="lora", vision="frozen", gc=True, hook="lm")),
    ("qwen2.5-vl-3b", "train", 1920, 1080, PRE_HUB, 256, dict(method="lora", vision="frozen", gc=True, hook="lm")),
    ("qwen2.5-vl-3b", "train", 1280, 720, PRE_DEFAULT, 256, dict(method="lora", vision="frozen", gc=True, images=2,
                                                                batch=2)),
    ("qwen2.5-vl-3b", "gen", 1280, 720, PRE_DEFAULT, 64, dict(new=64, images=2, batch=4)),
    ("qwen3-vl-4b", "train", 1280, 720, PRE_QWEN3, 256, dict(method="lora", vision="frozen", gc=True, hook="lm")),
    ("qwen3-vl-4b", "train", 1920, 1080, PRE_QWEN3, 512, dict(method="full", vision="trainable", gc=True)),
    ("qwen2-vl-2b", "train", 1920, 1080, PRE_HUB, 256, dict(method="full", vision="trainable", gc=True)),
    ("qwen2.5-vl-7b", "gen", 1920, 1080, PRE_HUB, 64, dict(new=64)),
    ("qwen2.5-vl-7b", "train", 1920, 1080, PRE_HUB, 512, dict(method="lora", vision="frozen", gc=True)),
    ("qwen2.5-vl-7b", "train", 4032, 3024, PRE_HUB, 256, dict(method="lora", vision="frozen", gc=True)),
]
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def out_path():
    return os.path.join(os.environ.get("OUT", "."), "vlm_gpu.jsonl")


def emit(row):
    row["versions"] = (f"torch {torch.__version__}, transformers {transformers.__version__}, "
                       f"python {sys.version.split()[0]}")
    try:
        import peft
        row["versions"] += f", peft {peft.__version__}"
    except ImportError:
        pass
    if torch.cuda.is_available():
        row["gpu"] = torch.cuda.get_device_name(0)
    with open(out_path(), "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def shrink(d):
    """Tiny shapes for the CPU smoke run (same classes and code paths)."""
    v = d["vision_config"]
    v.update(depth=2, num_heads=2)
    for k in ("embed_dim", "hidden_size"):
        if k in v:
            v[k] = 32
    if "intermediate_size" in v:
        v["intermediate_size"] = 64
    if "fullatt_block_indexes" in v:
        v["fullatt_block_indexes"] = [1]
    if "deepstack_visual_indexes" in v:
        v["deepstack_visual_indexes"] = [0]
    t = d.get("text_config") or d
    t.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2)
    if "head_dim" in t:
        t["head_dim"] = 16
    if "rope_scaling" in t and t["rope_scaling"] and "mrope_section" in t["rope_scaling"]:
        t["rope_scaling"]["mrope_section"] = [2, 3, 3]
    if "out_hidden_size" in v:
        v["out_hidden_size"] = 64
    if d.get("text_config") is None and "hidden_size" in v and "embed_dim" in v:
        v["hidden_size"] = 64  # Qwen2-VL's merger projects to the LM width
    return d


def build(name, dev, tiny):
    with open(os.path.join(CONFIGS, MODELS[name])) as f:
        d = json.load(f)
    if tiny:
        d = shrink(d)
    cfg = transformers.CONFIG_MAPPING[d["model_type"]].from_dict(d)
    torch.cuda.empty_cache() if dev == "cuda" else None
    before = torch.cuda.memory_allocated() if dev == "cuda" else 0
    with torch.device(dev):
        model = transformers.AutoModelForImageTextToText.from_config(
            cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
    after = torch.cuda.memory_allocated() if dev == "cuda" else 0
    params = sum(p.numel() for p in model.parameters())
    return model, cfg, after - before, params


def takes_types(model):
    return "mm_token_type_ids" in inspect.signature(model.model.forward).parameters


def visual(model):
    return model.model.visual


def image_inputs(cfg, w, h, pre, dev, count=1):
    proc = transformers.Qwen2VLImageProcessor(
        size=dict(shortest_edge=pre["min_pixels"], longest_edge=pre["max_pixels"]),
        patch_size=pre["patch_size"], temporal_patch_size=2, merge_size=2)
    img = np.random.default_rng(0).integers(0, 256, (h, w, 3), dtype=np.uint8)
    out = proc(images=[img] * count, return_tensors="pt")
    grid = out["image_grid_thw"]
    return out["pixel_values"].to(dev, torch.bfloat16), grid.to(dev), int(grid[0].prod())


def prompt(cfg, text, lm_tokens, dev, labels, mm_types=False, images=1, batch=1):
    """`text` tokens in all: a few before each image, vision start/end around it, the rest after."""
    vocab = cfg.get_text_config().vocab_size
    low = min(1000, vocab // 2)
    before = 4
    after = text - images * (before + 2)
    high = 150000 if vocab > 150000 else vocab - 1
    gen = torch.Generator().manual_seed(0)
    parts = []
    for _ in range(images):
        parts += [torch.randint(low, high, (before,), generator=gen), torch.tensor([cfg.vision_start_token_id]),
                  torch.full((lm_tokens,), cfg.image_token_id), torch.tensor([cfg.vision_end_token_id])]
    parts.append(torch.randint(low, high, (after,), generator=gen))
    ids = torch.cat(parts).unsqueeze(0).repeat(batch, 1).to(dev)
    out = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    if mm_types:  # transformers >= 5.2x: M-RoPE reads the processor's token types
        out["mm_token_type_ids"] = (ids == cfg.image_token_id).long()
    if labels:
        lab = ids.clone()
        lab[ids == cfg.image_token_id] = -100
        out["labels"] = lab
    return out


def peaks(dev):
    if dev != "cuda":
        return dict(peak_allocated=0, peak_reserved=0)
    torch.cuda.synchronize()
    return dict(peak_allocated=torch.cuda.max_memory_allocated(), peak_reserved=torch.cuda.max_memory_reserved())


def reset(dev):
    if dev == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def allocated(dev):
    return torch.cuda.memory_allocated() if dev == "cuda" else 0


def generate(model, cfg, w, h, pre, text, extra, dev):
    model.eval()
    k, b = extra.get("images", 1), extra.get("batch", 1)
    px, grid, tower = image_inputs(cfg, w, h, pre, dev, k * b)
    lm = tower // 4
    batch = prompt(cfg, text, lm, dev, labels=False, mm_types=takes_types(model), images=k, batch=b)
    new = extra["new"]
    kw = dict(max_new_tokens=new, min_new_tokens=new, do_sample=False, use_cache=True, pad_token_id=0)
    with torch.no_grad():
        model.generate(**batch, pixel_values=px, image_grid_thw=grid, **kw)  # warm-up
        reset(dev)
        start = allocated(dev)
        out = model.generate(**batch, pixel_values=px, image_grid_thw=grid, **kw)
    p = peaks(dev)
    n = out.shape[1] - batch["input_ids"].shape[1]
    return dict(task="inference", new_tokens=n, prompt_len=batch["input_ids"].shape[1], allocated_start=start,
                images=k, batch=b,
                tower_tokens=tower, image_tokens=lm, grid_thw=[int(x) for x in grid[0]], **p)


def train(model, cfg, w, h, pre, text, extra, dev):
    from peft import LoraConfig, get_peft_model
    model.train()
    model.config.use_cache = False
    model.requires_grad_(True)
    if extra["vision"] == "frozen":
        visual(model).requires_grad_(False)
    if extra["gc"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    net = model
    if extra["method"] == "lora":
        lcfg = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, bias="none",
                          target_modules=rf".*language_model.*\.({'|'.join(LORA_TARGETS)})")
        net = get_peft_model(model, lcfg)  # calls enable_input_require_grads when checkpointing
        if extra["gc"]:
            model.enable_input_require_grads()
        if extra.get("hook") == "lm":  # transformers 4's hook: the language model's embeddings only
            for hook in getattr(model, "_require_grads_hooks", [getattr(model, "_require_grads_hook", None)]):
                if hook is not None:
                    hook.remove()
            model._require_grads_hooks = [model.get_input_embeddings().register_forward_hook(
                lambda m, i, o: o.requires_grad_(True))]
            model._require_grads_hook = model._require_grads_hooks[0]
    params = [p for p in net.parameters() if p.requires_grad]
    trainable = sum(p.numel() for p in params)
    opt = torch.optim.AdamW(params, lr=1e-5)
    k, b = extra.get("images", 1), extra.get("batch", 1)
    px, grid, tower = image_inputs(cfg, w, h, pre, dev, k * b)
    lm = tower // 4
    batch = prompt(cfg, text, lm, dev, labels=True, mm_types=takes_types(model), images=k, batch=b)

    def step():
        loss = net(**batch, pixel_values=px, image_grid_thw=grid).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    reset(dev)
    step()
    step1 = peaks(dev)
    reset(dev)
    start = allocated(dev)
    step()
    p = peaks(dev)
    state = sum(t.numel() * t.element_size() for s in opt.state.values() for t in s.values()
                if torch.is_tensor(t))
    row = dict(task="training", method=extra["method"], vision=extra["vision"], checkpointing=extra["gc"],
               images=k, batch=b, hook=extra.get("hook", "transformers"),
               seq_len=batch["input_ids"].shape[1], trainable_params=trainable, optimizer_state_bytes=state,
               allocated_start=start, step1_peak_allocated=step1["peak_allocated"],
               tower_tokens=tower, image_tokens=lm, grid_thw=[int(x) for x in grid[0]], **p)
    opt = batch = None
    if extra["method"] == "lora":
        net.unload()
    if hasattr(model, "_require_grads_hook"):
        for hook in getattr(model, "_require_grads_hooks", [model._require_grads_hook]):
            hook.remove()
        del model._require_grads_hook
        model._require_grads_hooks = []
    if extra["gc"]:
        model.gradient_checkpointing_disable()
    model.zero_grad(set_to_none=True)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--set", type=int, default=1, help="1: the first runs; 2: the second")
    ap.add_argument("--budget-s", type=float, default=400.0)
    args = ap.parse_args()
    dev = "cpu" if args.tiny else "cuda"
    t0 = time.time()
    built = {}
    for i, (name, kind, w, h, pre, text, extra) in enumerate(RUNS if args.set == 1 else RUNS2):
        rid = f"{name}-{kind}-{w}x{h}-max{pre['max_pixels']}-" + "-".join(f"{k}{v}" for k, v in extra.items())
        if args.only and args.only not in rid:
            continue
        if time.time() - t0 > args.budget_s:
            print(f"budget: skipped {rid}", flush=True)
            continue
        if args.tiny:
            w, h = max(56, w // 16), max(56, h // 16)
        try:
            if name not in built:
                built.clear()
                if dev == "cuda":
                    torch.cuda.empty_cache()
                model, cfg, load_bytes, params = build(name, dev, args.tiny)
                built[name] = (model, cfg)
                emit(dict(id=f"{name}-load", model=name, config=MODELS[name], task="load", weights_bytes=load_bytes,
                          params=params))
            model, cfg = built[name]
            fn = generate if kind == "gen" else train
            row = fn(model, cfg, w, h, pre, text, extra, dev)
            row.update(id=rid, model=name, config=MODELS[name], image_width=w, image_height=h,
                       preprocessor=pre, text_tokens=text, seconds=round(time.time() - t0, 1))
            emit(row)
        except Exception as e:  # noqa: BLE001 -- one failed run must not stop the others
            traceback.print_exc()
            emit(dict(id=rid, model=name, error=f"{type(e).__name__}: {str(e)[:300]}"))
            built.clear()
            if dev == "cuda":
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
