"""GPU memory of video inference: Qwen2.5-VL-3B with transformers' own Qwen2VLVideoProcessor
on synthetic clips, and Video-LLaVA-7B (its class defaults: CLIP-L/14 at 224 px for images
and a second one for video frames, Vicuna-7B, with the checkpoint's 32,064-token vocabulary) with frames of its tower's square. Random bf16
weights built on the GPU, SDPA attention, nothing downloaded; helpers shared with
measure_vlm_gpu.py. One JSON line per run to $OUT/video_gpu.jsonl.

Each run: model.generate greedy, batch 1, one video, exactly `new` new tokens, DynamicCache;
a warm-up generate, then empty_cache and reset_peak_memory_stats; peak_allocated and
peak_reserved of the measured generate.

    python3 measure_video_gpu.py          # on the GPU machine
    python3 measure_video_gpu.py --tiny   # CPU smoke run
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_vlm_gpu as base  # noqa: E402

VIDEO_LLAVA = os.path.join(HERE, "..", "configs", "variants_2026", "video_llava__0.json")


def emit(row):
    row["versions"] = (f"torch {torch.__version__}, transformers {transformers.__version__}, "
                       f"python {sys.version.split()[0]}")
    if torch.cuda.is_available():
        row["gpu"] = torch.cuda.get_device_name(0)
    with open(os.path.join(os.environ.get("OUT", "."), "video_gpu.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def measured_generate(model, kwargs, new, dev):
    kw = dict(max_new_tokens=new, min_new_tokens=new, do_sample=False, use_cache=True, pad_token_id=0)
    with torch.no_grad():
        model.generate(**kwargs, **kw)  # warm-up
        base.reset(dev)
        start = base.allocated(dev)
        out = model.generate(**kwargs, **kw)
    p = base.peaks(dev)
    return dict(allocated_start=start, new_tokens=out.shape[1] - kwargs["input_ids"].shape[1],
                prompt_len=kwargs["input_ids"].shape[1], **p)


def qwen_clip(model, cfg, w, h, frames, text, dev):
    """One synthetic clip through Qwen2VLVideoProcessor and a prompt of `text` tokens around
    its placeholders: (model inputs, grid, tower tokens, video tokens)."""
    proc = transformers.models.qwen2_vl.video_processing_qwen2_vl.Qwen2VLVideoProcessor()
    clip = np.random.default_rng(0).integers(0, 256, (frames, h, w, 3), dtype=np.uint8)
    out = proc(videos=[clip], return_tensors="pt")
    grid = out["video_grid_thw"]
    tower = int(grid[0].prod())
    lm = tower // 4
    vocab = cfg.get_text_config().vocab_size
    gen = torch.Generator().manual_seed(0)
    ids = torch.cat([torch.randint(1000, 150000, (4,), generator=gen), torch.tensor([cfg.vision_start_token_id]),
                     torch.full((lm,), cfg.video_token_id), torch.tensor([cfg.vision_end_token_id]),
                     torch.randint(1000, min(150000, vocab - 1), (text - 6,), generator=gen)]).unsqueeze(0).to(dev)
    kwargs = dict(input_ids=ids, attention_mask=torch.ones_like(ids),
                  pixel_values_videos=out["pixel_values_videos"].to(dev, torch.bfloat16),
                  video_grid_thw=grid.to(dev))
    if base.takes_types(model):
        kwargs["mm_token_type_ids"] = (ids == cfg.video_token_id).long() * 2
    return kwargs, grid, tower, lm


def qwen_video(model, cfg, w, h, frames, text, new, dev):
    kwargs, grid, tower, lm = qwen_clip(model, cfg, w, h, frames, text, dev)
    row = measured_generate(model, kwargs, new, dev)
    return dict(row, width=w, height=h, frames=frames, grid_thw=[int(x) for x in grid[0]],
                tower_tokens=tower, video_tokens=lm)


def qwen_video_train(model, cfg, w, h, frames, text, method, gc, dev):
    """Two training steps on one clip, as measure_vlm_gpu.py's `train`: the tower
    frozen, LoRA r16 on the language model's seven linears or a full fine-tune in
    pure bf16, AdamW; the video's positions masked out of the loss; step 2's peak."""
    from peft import LoraConfig, get_peft_model
    batch, grid, tower, lm = qwen_clip(model, cfg, w, h, frames, text, dev)
    ids = batch["input_ids"]
    labels = ids.clone()
    labels[ids == cfg.video_token_id] = -100
    batch["labels"] = labels
    model.train()
    model.config.use_cache = False
    model.requires_grad_(True)
    base.visual(model).requires_grad_(False)
    if gc:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    net = model
    if method == "lora":
        lcfg = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, bias="none",
                          target_modules=rf".*language_model.*\.({'|'.join(base.LORA_TARGETS)})")
        net = get_peft_model(model, lcfg)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)

    def step():
        net(**batch).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    base.reset(dev)
    step()
    base.reset(dev)
    start = base.allocated(dev)
    step()
    p = base.peaks(dev)
    row = dict(task="training", method=method, vision="frozen", checkpointing=gc, width=w, height=h,
               frames=frames, seq_len=ids.shape[1], trainable_params=sum(p.numel() for p in params),
               allocated_start=start, grid_thw=[int(x) for x in grid[0]], tower_tokens=tower,
               video_tokens=lm, **p)
    opt = batch = None
    if method == "lora":
        net.unload()
    if gc:
        model.gradient_checkpointing_disable()
    model.zero_grad(set_to_none=True)
    model.eval()
    return row


def llava_video(model, cfg, frames, text, new, dev, side_px):
    n = (side_px // cfg.vision_config.patch_size) ** 2 + 1
    px = torch.randn(1, frames, 3, side_px, side_px, device=dev, dtype=torch.bfloat16)
    gen = torch.Generator().manual_seed(0)
    ids = torch.cat([torch.randint(1000, 30000, (4,), generator=gen), torch.full((frames * n,), cfg.video_token_index),
                     torch.randint(1000, 30000, (text - 4,), generator=gen)]).unsqueeze(0).to(dev)
    kwargs = dict(input_ids=ids, attention_mask=torch.ones_like(ids), pixel_values_videos=px)
    row = measured_generate(model, kwargs, new, dev)
    return dict(row, frames=frames, video_tokens=frames * n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--train", action="store_true", help="the training runs only")
    a = ap.parse_args()
    dev = "cpu" if a.tiny else "cuda"
    torch.manual_seed(0)
    model, cfg, weights, params = base.build("qwen2.5-vl-3b", dev, a.tiny)
    if a.train:
        w, h, frames = (80, 45, 4) if a.tiny else (640, 360, 16)
        for method, gc in (("lora", True), ("full", False)):
            row = qwen_video_train(model, cfg, w, h, frames, 256, method, gc, dev)
            emit(dict(model="qwen2.5-vl-3b", weights_bytes=weights, params=params, **row))
        return
    for w, h, frames in ((640, 360, 16), (1280, 720, 32), (1920, 1080, 8)):
        if a.tiny:
            w, h, frames = w // 8, h // 8, 4
        row = qwen_video(model, cfg, w, h, frames, 64, 32, dev)
        emit(dict(model="qwen2.5-vl-3b", task="inference", weights_bytes=weights, params=params, **row))
    del model
    base.reset(dev)
    with open(VIDEO_LLAVA) as f:
        d = json.load(f)
    # The class defaults' vocabulary (32,000) has no row for the video token
    # (32,001); the released checkpoint's (LanguageBind/Video-LLaVA-7B-hf) has 32,064.
    d["text_config"]["vocab_size"] = 32064
    if a.tiny:
        d["vision_config"].update(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                  num_attention_heads=2, image_size=56)
        d["text_config"].update(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                num_attention_heads=4, num_key_value_heads=4)
    cfg = transformers.CONFIG_MAPPING[d["model_type"]].from_dict(d)
    before = base.allocated(dev)
    with torch.device(dev):
        model = transformers.AutoModelForImageTextToText.from_config(cfg, dtype=torch.bfloat16,
                                                                     attn_implementation="sdpa")
    weights = base.allocated(dev) - before
    params = sum(p.numel() for p in model.parameters())
    model.eval()
    for frames in (8, 16):
        row = llava_video(model, cfg, frames, 64, 32, dev, cfg.vision_config.image_size)
        emit(dict(model="video-llava-7b", task="inference", weights_bytes=weights, params=params, **row))


if __name__ == "__main__":
    main()
