"""What is alive at the peak of a LLaVA-1.5-7B LoRA step, and of the same language model on text
of the same length, read from the CUDA caching allocator's event trace with Python stacks.
Built from ../configs/llava-hf__llava-1.5-7b-hf.json with random bf16 weights on the GPU, as
shared/measure/measure_cases.py builds it for its `vlm` group (LoRA q,v r16, alpha 32, dropout
0.05, projector frozen, no checkpointing, 4 images of 336 px + 512 text tokens, AdamW). Writes
$OUT/peak_trace.json."""
import collections, json, os, sys
import torch, transformers
from peft import LoraConfig, get_peft_model

HERE = os.path.dirname(os.path.abspath(__file__))
cfg = transformers.CONFIG_MAPPING["llava"].from_dict(
    json.load(open(os.path.join(HERE, "..", "configs", "llava-hf__llava-1.5-7b-hf.json"))))
images, n, text = 4, 576, 512


def where(frames):
    for f in frames:
        name = f.get("filename", "")
        if any(k in name for k in ("transformers/", "peft/", "torch/nn/", "torch/optim", "torch/autograd")):
            return f"{name.split('site-packages/')[-1]}:{f.get('line')} {f.get('name')}"
    return frames[0].get("name", "?") if frames else "?"


def peak_of(trace):
    alive, live, peak, at = {}, 0, 0, None
    for e in trace:
        a = e["action"]
        if a == "alloc":
            alive[e["addr"]] = e
            live += e["size"]
            if live > peak:
                peak, at = live, dict(alive)
        elif a in ("free_completed",):
            if e["addr"] in alive:
                live -= alive.pop(e["addr"])["size"]
    return peak, at


def run(text_only):
    with torch.device("cuda"):
        model = transformers.AutoModelForImageTextToText.from_config(cfg, dtype=torch.bfloat16,
                                                                     attn_implementation="sdpa")
    model.train()
    model.config.use_cache = False
    same = model.model.language_model.config is model.config.text_config
    if os.environ.get("NO_CACHE"):  # as the harness's _set_use_cache does, on the LM's own config too
        model.config.text_config.use_cache = False
        model.model.language_model.config.use_cache = False
    model.requires_grad_(True)
    model.model.vision_tower.requires_grad_(False)
    net = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, bias="none",
                                           target_modules=r".*language_model.*\.(q_proj|v_proj)",
                                           task_type="CAUSAL_LM"))
    model.model.multi_modal_projector.requires_grad_(False)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-5)
    ids = torch.randint(0, cfg.image_token_index, (1, images * n + text), device="cuda")
    ids[:, :images * n] = cfg.image_token_index
    lab = ids.clone()
    lab[:, :images * n] = -100
    batch = {"input_ids": ids, "labels": lab,
             "pixel_values": torch.randn(images, 3, 336, 336, device="cuda", dtype=torch.bfloat16)}
    if text_only:
        ids2 = ids.clone()
        ids2[:, :images * n] = 5
        batch = {"input_ids": ids2, "labels": lab}

    def step():
        loss = net(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    start = torch.cuda.memory_allocated()
    torch.cuda.memory._record_memory_history(max_entries=400000, stacks="python")
    step()
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    peak_alloc = torch.cuda.max_memory_allocated()
    trace = snap["device_traces"][0]
    peak, at = peak_of(trace)
    groups = collections.Counter()
    for e in at.values():
        groups[where(e.get("frames", []))] += e["size"]
    out = dict(text_only=text_only, lm_config_is_text_config=same, start=start, peak_allocated=peak_alloc, step_peak_above_start=peak,
               top=[[k, v] for k, v in groups.most_common(40)])
    del net, model, opt, batch
    torch.cuda.empty_cache()
    return out


rows = [run(False), run(True)]
path = os.path.join(os.environ.get("OUT", "."), "peak_trace.json")
json.dump(dict(versions=f"torch {torch.__version__}, transformers {transformers.__version__}",
               gpu=torch.cuda.get_device_name(0), runs=rows), open(path, "w"), indent=1)
for r in rows:
    print(r["text_only"], r["lm_config_is_text_config"], r["start"], r["peak_allocated"], r["step_peak_above_start"])
    for k, v in r["top"][:25]:
        print(f"   {v:>12} {k}")
