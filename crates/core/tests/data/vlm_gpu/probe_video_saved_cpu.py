"""CPU probe: bytes a full fine-tune step of a tiny Qwen2.5-VL saves for backward (saved-tensor
hooks, each storage once, parameters excluded) with an image and with a video of similar
token counts. HF_HUB_OFFLINE=1 python3 probe_video_saved_cpu.py"""
import os, sys, json, torch, numpy as np, transformers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_vlm_gpu as base
torch.manual_seed(0)
model, cfg, _, _ = base.build("qwen2.5-vl-3b", "cpu", True)
model.train(); model.config.use_cache=False; model.requires_grad_(True); base.visual(model).requires_grad_(False)
vocab = cfg.get_text_config().vocab_size
def run(kind):
    if kind == "video":
        proc = transformers.models.qwen2_vl.video_processing_qwen2_vl.Qwen2VLVideoProcessor()
        clip = np.random.default_rng(0).integers(0,256,(4,45,80,3),dtype=np.uint8)
        out = proc(videos=[clip], return_tensors="pt"); grid = out["video_grid_thw"]; px = out["pixel_values_videos"].to(torch.bfloat16)
        tok = cfg.video_token_id; kw = dict(pixel_values_videos=px, video_grid_thw=grid); t=2
    else:
        proc = transformers.Qwen2VLImageProcessor(size=dict(shortest_edge=3136, longest_edge=1003520), patch_size=14, temporal_patch_size=2, merge_size=2)
        img = np.random.default_rng(0).integers(0,256,(90,320,3),dtype=np.uint8)
        out = proc(images=[img], return_tensors="pt"); grid = out["image_grid_thw"]; px = out["pixel_values"].to(torch.bfloat16)
        tok = cfg.image_token_id; kw = dict(pixel_values=px, image_grid_thw=grid); t=1
    lm = int(grid[0].prod())//4
    ids = torch.cat([torch.randint(1000, vocab-1,(4,)), torch.tensor([cfg.vision_start_token_id]), torch.full((lm,), tok), torch.tensor([cfg.vision_end_token_id]), torch.randint(1000, vocab-1, (50,))]).unsqueeze(0)
    lab = ids.clone(); lab[ids==tok] = -100
    batch = dict(input_ids=ids, attention_mask=torch.ones_like(ids), labels=lab, **kw)
    if base.takes_types(model): batch["mm_token_type_ids"] = (ids==tok).long()*t
    seen = {}; kinds = {}
    def pack(x):
        if isinstance(x, torch.Tensor) and not isinstance(x, torch.nn.Parameter):
            st = x.untyped_storage(); k = st.data_ptr()
            if k not in seen:
                seen[k] = st.nbytes(); kinds[k] = (tuple(x.shape), str(x.dtype))
        return x
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        loss = model(**batch).loss
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    tot = sum(v for k,v in seen.items() if k not in params)
    big = sorted(((v, kinds[k]) for k,v in seen.items() if k not in params), reverse=True)[:8]
    print(kind, "seq", ids.shape[1], "lm", lm, "grid", grid.tolist(), "saved", tot)
    for b in big: print("   ", b)
    loss.backward(); model.zero_grad(set_to_none=True)
run("image"); run("video")
