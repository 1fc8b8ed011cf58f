#!/usr/bin/env python
"""Bytes saved for backward by the recurrent token mixers of hybrid / state-space models.

For each model_type a tiny random-weight model is built from a config written here (no Hub
access), put in train mode and run once as `model(input_ids, labels=input_ids, use_cache=False)`
followed by `loss.backward()`. Every tensor autograd packs for backward is seen through
`torch.autograd.graph.saved_tensors_hooks` and counted once per storage (by
`untyped_storage().data_ptr()`, sized by the storage's `nbytes`); storages of parameters and
buffers are left out. Forward pre/post hooks on each decoder layer and on its token mixer and
feed-forward modules attribute each new storage to the innermost scopes it was first packed in:
`layer` (the whole decoder layer), `mixer` (the recurrent mixer module), `attn` (a softmax
attention module) and `ffn` (the feed-forward / MoE modules). This is the method of
shared/groundtruth/cpu/README.md and of tests/data/mechanisms/measure_mechanisms.py (SavedCounter).

On CPU transformers runs the PyTorch reference paths (MambaMixer's sequential scan,
`mamba2_chunk_scan`, `torch_chunk_gated_delta_rule`, the torch `causal_conv1d_fn`, MiniMax's
block-wise lightning attention): no mamba_ssm / causal_conv1d / flash-linear-attention is
installed, and the script refuses to run if one is.

Run:
    /work/venv/bin/python measure.py > recurrent_acts.jsonl          # ~2 min on 2 cores
    /work/venv/bin/python measure.py --list mamba2                   # per-tensor listing of one
                                                                      # recurrent layer, to read
                                                                      # the terms off
    /work/venv/bin/python measure.py mamba lfm2 > part.jsonl         # some model types only
"""
import gc
import importlib.util
import json
import platform
import sys
import traceback

import torch
import transformers
from torch.multiprocessing.reductions import StorageWeakRef
from transformers import AutoConfig, AutoModelForCausalLM

VOCAB = 128
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
COMMON = dict(vocab_size=VOCAB, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, intermediate_size=128, max_position_embeddings=512,
              pad_token_id=0, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
DROP_COMMON = {  # config fields a family does not take
    "mamba": {"num_attention_heads", "num_key_value_heads", "head_dim", "max_position_embeddings"},
    "mamba2": {"num_attention_heads", "num_key_value_heads", "max_position_embeddings"},
    "recurrent_gemma": {"head_dim", "max_position_embeddings"},
}
# (batch, seq): one chunk and several for the chunked scans (chunks of 16, 32 or 64 in the
# grid, Gated DeltaNet's fixed 64), batches of 1 and 2 (some einsum / matmul operands are views at
# b = 1 and copies at b > 1).
SIZES = [(1, 24), (2, 40), (1, 70), (2, 130)]

# model_type -> list of config variants; each variant changes the mixer's dims.
GRID = {
    "mamba": [
        dict(num_hidden_layers=3, state_size=16, conv_kernel=4, expand=2, intermediate_size=128,
             time_step_rank=4),
        dict(num_hidden_layers=3, state_size=8, conv_kernel=3, expand=3, intermediate_size=96,
             time_step_rank=8, use_conv_bias=False, use_bias=True),
    ],
    "mamba2": [
        dict(num_hidden_layers=3, num_heads=8, head_dim=16, n_groups=2, state_size=16,
             conv_kernel=4, expand=2, chunk_size=16),
        dict(num_hidden_layers=3, num_heads=4, head_dim=48, n_groups=1, state_size=8,
             conv_kernel=3, expand=3, chunk_size=32, use_bias=True),
        dict(num_hidden_layers=3, num_heads=16, head_dim=8, n_groups=4, state_size=32,
             conv_kernel=2, expand=2, chunk_size=64, use_conv_bias=False),
    ],
    "jamba": [
        dict(num_hidden_layers=4, attn_layer_period=2, attn_layer_offset=1,
             expert_layer_period=2, expert_layer_offset=1, num_experts=2, num_experts_per_tok=1,
             mamba_d_state=16, mamba_d_conv=4, mamba_expand=2, mamba_dt_rank=4),
        dict(num_hidden_layers=4, attn_layer_period=4, attn_layer_offset=3,
             expert_layer_period=2, expert_layer_offset=1, num_experts=2, num_experts_per_tok=1,
             mamba_d_state=8, mamba_d_conv=3, mamba_expand=3, mamba_dt_rank=8,
             mamba_proj_bias=True),
    ],
    "nemotron_h": [
        dict(num_hidden_layers=4, hybrid_override_pattern="M*M-", mamba_num_heads=8,
             mamba_head_dim=16, n_groups=2, ssm_state_size=16, conv_kernel=4, chunk_size=16),
        dict(num_hidden_layers=4, hybrid_override_pattern="MM*-", mamba_num_heads=6,
             mamba_head_dim=8, n_groups=3, ssm_state_size=8, conv_kernel=3, chunk_size=32),
    ],
    "falcon_h1": [
        dict(num_hidden_layers=2, mamba_d_ssm=128, mamba_n_heads=8, mamba_d_head=16,
             mamba_n_groups=2, mamba_d_state=16, mamba_d_conv=4, mamba_expand=2,
             mamba_chunk_size=16),
        dict(num_hidden_layers=2, mamba_d_ssm=96, mamba_n_heads=4, mamba_d_head=24,
             mamba_n_groups=1, mamba_d_state=8, mamba_d_conv=3, mamba_expand=2,
             mamba_chunk_size=32, mamba_rms_norm=True),
    ],
    "granitemoehybrid": [
        dict(num_hidden_layers=4, layer_types=["mamba", "attention", "mamba", "mamba"],
             mamba_n_heads=8, mamba_d_head=16, mamba_n_groups=2, mamba_d_state=16,
             mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=16,
             num_local_experts=2, num_experts_per_tok=1, shared_intermediate_size=64),
        dict(num_hidden_layers=3, layer_types=["mamba", "mamba", "attention"],
             mamba_n_heads=4, mamba_d_head=48, mamba_n_groups=1, mamba_d_state=8,
             mamba_d_conv=3, mamba_expand=3, mamba_chunk_size=32,
             num_local_experts=0, shared_intermediate_size=96),
    ],
    "qwen3_next": [
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             linear_conv_kernel_dim=4, linear_key_head_dim=8, linear_value_head_dim=8,
             linear_num_key_heads=2, linear_num_value_heads=4, num_experts=4,
             num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32),
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             linear_conv_kernel_dim=3, linear_key_head_dim=16, linear_value_head_dim=12,
             linear_num_key_heads=2, linear_num_value_heads=2, num_experts=4,
             num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32),
    ],
    "qwen3_5_text": [
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             linear_conv_kernel_dim=4, linear_key_head_dim=8, linear_value_head_dim=8,
             linear_num_key_heads=2, linear_num_value_heads=4),
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             linear_conv_kernel_dim=2, linear_key_head_dim=24, linear_value_head_dim=16,
             linear_num_key_heads=1, linear_num_value_heads=3),
    ],
    "lfm2": [
        dict(num_hidden_layers=4, full_attn_idxs=[1, 3], conv_L_cache=3, intermediate_size=192),
        dict(num_hidden_layers=4, full_attn_idxs=[3], conv_L_cache=5, intermediate_size=96,
             conv_bias=True, hidden_size=48, num_attention_heads=3, num_key_value_heads=1),
    ],
    # added 2026-11-27: LFM2-MoE's short convolutions, OLMo-Hybrid's Gated DeltaNet with unfused
    # q/k/v/g/a/b projections
    "lfm2_moe": [
        dict(num_hidden_layers=4, layer_types=["conv", "full_attention", "conv", "full_attention"],
             conv_L_cache=3, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
             num_dense_layers=1),
    ],
    "olmo_hybrid": [
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             linear_conv_kernel_dim=4, linear_key_head_dim=8, linear_value_head_dim=12,
             linear_num_key_heads=2, linear_num_value_heads=4),
    ],
    # added 2026-11-27 (twenty-second session): Kimi Delta Attention, whose decay is per channel, so
    # its reference path's intra-chunk decay mask holds a head_dim axis
    "kimi_linear": [
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             mlp_layer_types=["dense"] * 4, linear_num_heads=4, linear_head_dim=8, linear_conv_kernel_dim=4,
             q_lora_rank=24, kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=16),
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             mlp_layer_types=["dense"] * 4, linear_num_heads=2, linear_head_dim=16, linear_conv_kernel_dim=3,
             q_lora_rank=24, kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=16),
    ],
    # added 2026-11-28 (thirtieth session): RecurrentGemma's RG-LRU (a Python loop over the
    # tokens in fp32) beside local attention layers, lru_width apart from the hidden size
    "recurrent_gemma": [
        dict(num_hidden_layers=3, block_types=["recurrent", "recurrent", "attention"],
             lru_width=64, conv1d_width=4, attention_window_size=16, intermediate_size=192),
        dict(num_hidden_layers=3, block_types=["recurrent", "attention", "recurrent"],
             lru_width=96, conv1d_width=3, attention_window_size=32, intermediate_size=128,
             num_attention_heads=4, num_key_value_heads=1, attention_bias=True),
    ],
    "minimax": [
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             num_local_experts=2, num_experts_per_tok=1, block_size=16),
        dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
             num_local_experts=2, num_experts_per_tok=1, block_size=32, num_attention_heads=8,
             num_key_value_heads=2, head_dim=12),
    ],
}

# Names of the child modules of a decoder layer, by role.
MIXER_CLASSES = ("Mixer", "MambaLayer", "GatedDeltaNet", "ShortConv", "LightningAttention", "DeltaAttention",
                 "RecurrentBlock")
FFN_NAMES = ("feed_forward", "mlp", "block_sparse_moe", "shared_mlp", "mlp_block")


def decoder_layers(model):
    base = getattr(model, "backbone", None) or model.model
    return list(base.layers)


def role(module):
    name = type(module).__name__
    if "Norm" in name:
        return None
    if any(c in name for c in MIXER_CLASSES):
        return "mixer"
    if "Attention" in name:
        return "attn"
    if "MLP" in name or "MoE" in name or "Moe" in name:
        return "ffn"
    return None


class Scoped:
    """saved_tensors_hooks that count each storage packed for backward once, in the scopes open
    when it was first packed, if it is still alive when backward starts.

    A storage packed by a branch whose output is thrown away (the final recurrent state a scan
    returns and the layer ignores) is freed with that branch before backward; its address can
    then be reused by a later tensor. So every packed storage is tracked by a weak reference,
    an address whose storage died is counted afresh, and only live storages are summed.
    """

    def __init__(self, model, listing=False):
        self.skip = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.skip |= {b.untyped_storage().data_ptr() for b in model.buffers()}
        self.entries = {}  # data_ptr -> (weak storage ref, nbytes, scopes, listing line)
        self.stack = []
        self.listing = listing

    def pack(self, t):
        s = t.untyped_storage()
        ptr = s.data_ptr()
        if ptr in self.skip:
            return t
        old = self.entries.get(ptr)
        if old is not None and not old[0].expired():
            return t
        line = None
        if self.listing:
            where = [f for f in traceback.extract_stack()
                     if "transformers" in f.filename and "integrations" not in f.filename]
            src = f"{where[-1].name}:{where[-1].lineno} {where[-1].line}" if where else "?"
            line = (tuple(t.shape), str(t.dtype).replace("torch.", ""), s.nbytes(), src)
        self.entries[ptr] = (StorageWeakRef(s), s.nbytes(), tuple(self.stack), line)
        return t

    def totals(self):
        """Bytes of the live packed storages, in all and per scope; the listing of live ones."""
        by_scope, total, listing = {}, 0, []
        for ref, nbytes, scopes, line in self.entries.values():
            if ref.expired():
                continue
            total += nbytes
            for scope in scopes:
                by_scope[scope] = by_scope.get(scope, 0) + nbytes
            if line is not None and scopes:
                listing.append((scopes,) + line)
        return total, by_scope, listing

    def scope(self, key):
        def pre(_m, _a):
            self.stack.append(key)

        def post(_m, _a, _o):
            self.stack.pop()

        return pre, post

    def attach(self, model):
        kinds = []
        for i, layer in enumerate(decoder_layers(model)):
            pre, post = self.scope(("layer", i))
            layer.register_forward_pre_hook(pre)
            layer.register_forward_hook(post)
            roles = []
            for name, child in layer.named_children():
                r = role(child) if name not in FFN_NAMES else "ffn"
                if r is None:
                    continue
                roles.append(r)
                pre, post = self.scope((r, i))
                child.register_forward_pre_hook(pre)
                child.register_forward_hook(post)
            kinds.append("+".join(sorted(set(roles))))
        return kinds


def config_for(model_type, variant):
    fields = dict(COMMON)
    for k in DROP_COMMON.get(model_type, ()):
        fields.pop(k, None)
    fields.update(variant)
    if model_type in ("qwen3_next", "qwen3_5_text"):
        fields.setdefault("head_dim", 16)
    return AutoConfig.for_model(model_type, **fields), fields


def measure(model_type, variant, dtype_name, batch, seq, listing=False, device="cpu", backward=True):
    torch.manual_seed(0)
    cfg, fields = config_for(model_type, variant)
    model = AutoModelForCausalLM.from_config(cfg).to(device=device, dtype=DTYPES[dtype_name])
    model.train()
    counter = Scoped(model, listing)
    kinds = counter.attach(model)
    ids = torch.randint(3, VOCAB, (batch, seq), device=device)
    with torch.autograd.graph.saved_tensors_hooks(counter.pack, lambda t: t):
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    gc.collect()
    total, by_scope, listing = counter.totals()
    if backward:
        loss.backward()
    layers = []
    for i, kind in enumerate(kinds):
        layers.append({
            "index": i,
            "kind": kind,
            "layer_bytes": by_scope.get(("layer", i), 0),
            "mixer_bytes": by_scope.get(("mixer", i), 0),
            "attn_bytes": by_scope.get(("attn", i), 0),
            "ffn_bytes": by_scope.get(("ffn", i), 0),
        })
    row = {
        "model_type": model_type,
        "config": fields,
        "dtype": dtype_name,
        "batch": batch,
        "seq": seq,
        "layers": layers,
        "saved_bytes": total,
    }
    return row, listing


def check_no_kernels():
    for pkg in ("mamba_ssm", "causal_conv1d", "fla"):
        if importlib.util.find_spec(pkg) is not None:
            sys.exit(f"{pkg} is installed: transformers would take its kernels, not the torch paths")


def main():
    check_no_kernels()
    args = sys.argv[1:]
    if args and args[0] == "--list":
        model_type = args[1]
        variant = int(args[2]) if len(args) > 2 else 0
        dtype = args[3] if len(args) > 3 else "bfloat16"
        b, s = (int(args[4]), int(args[5])) if len(args) > 5 else (1, 24)
        row, listing = measure(model_type, GRID[model_type][variant], dtype, b, s, listing=True)
        for layer in row["layers"]:
            print(layer)
        for scopes, shape, dt, nbytes, line in listing:
            print(scopes[-1], shape, dt, nbytes, line[:110])
        return
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version()}
    types = args or list(GRID)
    for model_type in types:
        for v, variant in enumerate(GRID[model_type]):
            for dtype in DTYPES:
                for batch, seq in SIZES:
                    row, _ = measure(model_type, variant, dtype, batch, seq)
                    row["variant"] = v
                    row["versions"] = versions
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
