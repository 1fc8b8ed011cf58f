#!/usr/bin/env python
"""What a vision tower's layers save for backward when the tower trains, on CPU.

For each family, the transformers vision model is built from a config with random weights (no
download) with 2 and with 4 layers, run on synthetic pixels in train() mode, and one backward of
`last_hidden_state.float().sum()` is taken under `torch.autograd.graph.saved_tensors_hooks`. Every
packed tensor is counted once by storage (`untyped_storage().data_ptr()`, storage `nbytes`),
parameters and buffers excluded, as ../../../../../../shared/groundtruth/cpu did for the language
models. per_layer = (saved(4 layers) - saved(2 layers)) / 2.
"""
import csv
import os
import sys
import warnings

import torch
import transformers

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
torch.set_num_threads(2)
HERE = os.path.dirname(os.path.abspath(__file__))

# (hidden, heads, intermediate, image side, patch)
SHAPES = [(64, 4, 256, 56, 14), (96, 6, 384, 42, 14), (128, 8, 352, 84, 14), (80, 4, 320, 70, 14)]


def clip(h, a, i, side, patch, layers, dtype, attn):
    cfg = transformers.CLIPVisionConfig(hidden_size=h, num_attention_heads=a, intermediate_size=i,
                                        image_size=side, patch_size=patch, num_hidden_layers=layers)
    cfg._attn_implementation = attn
    m = transformers.CLIPVisionModel(cfg).to(dtype).train()
    x = torch.randn(2, 3, side, side, dtype=dtype)
    return lambda: m(pixel_values=x).last_hidden_state, m, 2 * ((side // patch) ** 2 + 1)


def siglip(h, a, i, side, patch, layers, dtype, attn):
    cfg = transformers.SiglipVisionConfig(hidden_size=h, num_attention_heads=a, intermediate_size=i,
                                          image_size=side, patch_size=patch, num_hidden_layers=layers)
    cfg._attn_implementation = attn
    m = transformers.SiglipVisionModel(cfg).to(dtype).train()
    x = torch.randn(2, 3, side, side, dtype=dtype)
    return lambda: m(pixel_values=x).last_hidden_state, m, 2 * (side // patch) ** 2


def qwen25(h, a, i, side, patch, layers, dtype, attn, full=False):
    """Qwen2.5-VL's tower: windows of 4 × 4 patches here (window_size = 4 · patch), every layer
    windowed, or every layer full-attention (`fullatt_block_indexes`)."""
    from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLVisionConfig
    from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VisionTransformerPretrainedModel
    cfg = Qwen2_5_VLVisionConfig(depth=layers, hidden_size=h, num_heads=a, intermediate_size=i,
                                 patch_size=patch, spatial_merge_size=2, temporal_patch_size=2,
                                 out_hidden_size=h, window_size=4 * patch,
                                 fullatt_block_indexes=list(range(layers)) if full else [])
    cfg._attn_implementation = attn
    m = Qwen2_5_VisionTransformerPretrainedModel(cfg).to(dtype).train()
    g = side // patch
    grid = torch.tensor([[1, g, g]])
    x = torch.randn(g * g, 3 * 2 * patch * patch, dtype=dtype)

    def run():
        out = m(x, grid_thw=grid)
        return out.last_hidden_state if hasattr(out, "last_hidden_state") else out

    return run, m, g * g


def qwen25_full(*args):
    return qwen25(*args, full=True)


def qwen2_vl(h, a, i, side, patch, layers, dtype, attn):
    """Qwen2-VL's tower (`Qwen2VisionTransformerPretrainedModel`: LayerNorm, one qkv with rotary
    q and k, quick_gelu MLP); one image of (side / patch)² patches."""
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VisionTransformerPretrainedModel
    cfg = Qwen2VLVisionConfig(depth=layers, embed_dim=h, num_heads=a, mlp_ratio=i // h, patch_size=patch,
                              spatial_merge_size=2, temporal_patch_size=2, hidden_size=h)
    cfg._attn_implementation = attn
    m = Qwen2VisionTransformerPretrainedModel(cfg).to(dtype).train()
    g = side // patch
    x = torch.randn(g * g, 3 * 2 * patch * patch, dtype=dtype)
    grid = torch.tensor([[1, g, g]])

    def run():
        out = m(x, grid_thw=grid)
        return out.last_hidden_state if hasattr(out, "last_hidden_state") else out

    return run, m, g * g


def qwen3_vl(h, a, i, side, patch, layers, dtype, attn):
    """Qwen3-VL's tower (`Qwen3VLVisionModel`: Qwen2-VL's block with a tanh GELU, learned
    position embeddings, no DeepStack mergers here); patch 16, the grid of (side / 14)²."""
    from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLVisionConfig
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLVisionModel
    g = side // patch
    cfg = Qwen3VLVisionConfig(depth=layers, hidden_size=h, num_heads=a, intermediate_size=i, patch_size=16,
                              spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=h,
                              deepstack_visual_indexes=[], num_position_embeddings=64 * 64)
    cfg._attn_implementation = attn
    m = Qwen3VLVisionModel(cfg).to(dtype).train()
    x = torch.randn(g * g, 3 * 2 * 16 * 16, dtype=dtype)
    grid = torch.tensor([[1, g, g]])

    def run():
        out = m(x, grid_thw=grid)
        return out.last_hidden_state if hasattr(out, "last_hidden_state") else out

    return run, m, g * g


def internvl(h, a, i, side, patch, layers, dtype, attn, norm="layer_norm", qk_norm=False):
    """transformers' InternVL tower (`InternVLVisionModel`: class token, layer scales, GELU MLP,
    q/k norms when `use_qk_norm`, as InternViT-6B's), LayerNorm or RMSNorm (`norm_type`); two images."""
    cfg = transformers.InternVLVisionConfig(hidden_size=h, num_attention_heads=a, intermediate_size=i,
                                            num_hidden_layers=layers, image_size=[side, side],
                                            patch_size=[patch, patch], norm_type=norm, use_qk_norm=qk_norm)
    cfg._attn_implementation = attn
    m = transformers.models.internvl.modeling_internvl.InternVLVisionModel(cfg).to(dtype).train()
    x = torch.randn(2, 3, side, side, dtype=dtype)
    return lambda: m(pixel_values=x).last_hidden_state, m, 2 * ((side // patch) ** 2 + 1)


def internvl_rms(*args):
    return internvl(*args, norm="rms_norm")


def internvl_qk(*args):
    return internvl(*args, qk_norm=True)


def internvl_rms_qk(*args):
    return internvl(*args, norm="rms_norm", qk_norm=True)


def pixtral(h, a, i, side, patch, layers, dtype, attn):
    """Pixtral's tower (`PixtralVisionModel`: RMSNorm, q/k/v/o without bias, 2D rotary, SwiGLU):
    two images as one sequence, kept apart by a block-diagonal additive mask."""
    cfg = transformers.PixtralVisionConfig(hidden_size=h, num_attention_heads=a, intermediate_size=i,
                                           num_hidden_layers=layers, image_size=side, patch_size=patch,
                                           head_dim=h // a)
    cfg._attn_implementation = attn
    m = transformers.PixtralVisionModel(cfg).to(dtype).train()
    x = torch.randn(2, 3, side, side, dtype=dtype)
    sizes = torch.tensor([[side, side], [side, side]])
    return lambda: m(pixel_values=x, image_sizes=sizes).last_hidden_state, m, 2 * (side // patch) ** 2


def llama4(h, a, i, side, patch, layers, dtype, attn):
    """Llama 4's tower (`Llama4VisionModel`: class token, LayerNorm, biased q/k/v/o with a
    complex 2D rotary on fp32 copies of q and k, fc1 → GELU → fc2), two tiles; the pixel-shuffle
    adapter after it is not a layer."""
    cfg = transformers.Llama4VisionConfig(hidden_size=h, num_attention_heads=a, intermediate_size=i,
                                          num_hidden_layers=layers, image_size=side, patch_size=patch,
                                          vision_output_dim=h, projector_input_dim=h,
                                          projector_output_dim=h, pixel_shuffle_ratio=0.5)
    cfg._attn_implementation = attn
    m = transformers.models.llama4.modeling_llama4.Llama4VisionModel(cfg).to(dtype).train()
    # The encoder's layers only: the pixel-shuffle adapter (which ties the
    # intermediate width to 4·h and needs an even grid) is not a layer.
    m.vision_adapter = torch.nn.Identity()
    x = torch.randn(2, 3, side, side, dtype=dtype)
    return lambda: m(pixel_values=x).last_hidden_state, m, 2 * ((side // patch) ** 2 + 1)


def mllama(h, a, i, side, patch, layers, dtype, attn, global_layers=1):
    """Llama 3.2 Vision's tower (`MllamaVisionModel`): every image's tile slots (two here, the
    class token added, padded to a multiple of 8 tokens) run as one sequence under the
    aspect-ratio mask, through `layers` local layers (CLIP's layout, exact GELU, q/k/v/o without
    bias) and then the gated global layers. Two images. `mllama` varies the local layers (one
    global), `mllama_global` the global ones (two local)."""
    cfg = transformers.MllamaVisionConfig(hidden_size=h, attention_heads=a, intermediate_size=i,
                                          num_hidden_layers=layers, num_global_layers=global_layers,
                                          image_size=side, patch_size=patch, max_num_tiles=2,
                                          vision_output_dim=2 * h, intermediate_layers_indices=[0],
                                          supported_aspect_ratios=[[1, 1], [1, 2], [2, 1]])
    cfg._attn_implementation = attn
    m = transformers.MllamaVisionModel(cfg).to(dtype).train()
    x = torch.randn(2, 1, 2, 3, side, side, dtype=dtype)
    ratio_ids = torch.full((2, 1), 2, dtype=torch.long)  # [1, 2]: both tile slots real
    ratio_mask = torch.ones(2, 1, 2, dtype=torch.long)
    n = (side // patch) ** 2 + 1
    padded = n + (8 - n % 8) % 8
    return (lambda: m(pixel_values=x, aspect_ratio_ids=ratio_ids, aspect_ratio_mask=ratio_mask)
            .last_hidden_state, m, 2 * 2 * padded)


def mllama_global(h, a, i, side, patch, layers, dtype, attn):
    return mllama(h, a, i, side, patch, 2, dtype, attn, global_layers=layers)


def glm4v(h, a, i, side, patch, layers, dtype, attn):
    """GLM-4.1V's tower (`Glm4vVisionModel`: RMSNorms, one qkv with rotary q and k, full attention
    over the image, a gated SiLU MLP `out_hidden_size` wide, here i); one image of (side / patch)²
    patches."""
    from transformers.models.glm4v.configuration_glm4v import Glm4vVisionConfig
    from transformers.models.glm4v.modeling_glm4v import Glm4vVisionModel
    cfg = Glm4vVisionConfig(depth=layers, hidden_size=h, num_heads=a, intermediate_size=i,
                            out_hidden_size=i, patch_size=patch, spatial_merge_size=2,
                            temporal_patch_size=2, image_size=side)
    cfg._attn_implementation = attn
    m = Glm4vVisionModel(cfg).to(dtype).train()
    g = side // patch
    grid = torch.tensor([[1, g, g]])
    x = torch.randn(g * g, 3 * 2 * patch * patch, dtype=dtype)

    def run():
        out = m(x, grid_thw=grid)
        return out.last_hidden_state if hasattr(out, "last_hidden_state") else out

    return run, m, g * g


FAMILIES = {"clip": clip, "siglip": siglip, "qwen2_5_vl": qwen25, "qwen2_5_vl_full": qwen25_full,
            "qwen2_vl": qwen2_vl, "qwen3_vl": qwen3_vl, "internvl": internvl, "internvl_rms": internvl_rms,
            "internvl_qk": internvl_qk, "internvl_rms_qk": internvl_rms_qk, "pixtral": pixtral, "llama4": llama4,
            "mllama": mllama, "mllama_global": mllama_global, "glm4v": glm4v}
# Qwen2.5-VL's grid must be a whole number of 2 × 2 merges and of 4 × 4-patch windows here.
QWEN_SHAPES = [(64, 4, 256, 112, 14), (96, 6, 384, 168, 14), (128, 8, 352, 56, 14), (80, 4, 320, 224, 14)]


def saved_bytes(make, layers, shape, dtype, attn):
    torch.manual_seed(0)
    run, model, tokens = make(*shape, layers, dtype, attn)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    params |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    seen, total = set(), 0

    def pack(t):
        nonlocal total
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if ptr not in seen and ptr not in params:
            seen.add(ptr)
            total += st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = run()
        if isinstance(out, tuple):
            out = out[0]
        out.float().sum().backward()
    return total, tokens


def write_rows(out, rows, only):
    """Writes the measured rows to `out`; when some families were named on the command line,
    they replace only their own rows of the file."""
    if only and os.path.exists(out):
        with open(out, newline="") as f:
            kept = [r for r in csv.DictReader(f) if r["family"] not in only]
        rows = kept + [{k: str(v) for k, v in r.items()} for r in rows]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"torch {torch.__version__}, transformers {transformers.__version__}: {len(rows)} rows -> {out}")


def main():
    rows = []
    only = sys.argv[1:]
    for family, make in FAMILIES.items():
        if only and family not in only:
            continue
        for attn in ("sdpa", "eager"):
            for dtype in (torch.float32, torch.bfloat16):
                for shape in (QWEN_SHAPES if family.startswith(("qwen", "glm")) else SHAPES):
                    try:
                        two, tokens = saved_bytes(make, 2, shape, dtype, attn)
                        four, _ = saved_bytes(make, 4, shape, dtype, attn)
                    except Exception as e:  # a family this transformers cannot build
                        print(family, attn, shape, "failed:", repr(e)[:200], flush=True)
                        continue
                    h, a, i, side, patch = shape
                    if family == "qwen2_vl":
                        i = h * (i // h)  # Qwen2VLVisionConfig takes mlp_ratio, a whole number
                    row = dict(family=family, attention=attn, dtype=str(dtype).split(".")[-1], hidden=h,
                               heads=a, intermediate=i, image=side, patch=patch, tokens=tokens,
                               per_layer=(four - two) // 2, outside=two - (four - two))
                    rows.append(row)
                    print(row, flush=True)
    write_rows(os.path.join(HERE, "tower_saved.csv"), rows, only)


if __name__ == "__main__":
    sys.exit(main())
