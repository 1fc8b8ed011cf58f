#!/usr/bin/env python
"""Exact bytes held by transformers' cache object for hybrid / recurrent models.

For each model_type a tiny random-weight model is built (2-6 layers, hidden 64, vocab 128) that keeps
the family's layer pattern (at least one attention and one recurrent layer, a sliding/chunk window
of 8 tokens where the family has one). For each dtype (float32, bfloat16) and (batch, prompt_len)
pair it runs a prefill `model(input_ids, use_cache=True)` and then DECODE_STEPS single-token steps
passing the returned cache back (`cache=`; `past_key_values=` is its deprecated alias in 5.x).
After the prefill and after the last decode step it walks the cache object and writes one JSON
line per measurement: every tensor the cache holds, per layer, with shape / dtype / bytes.

Run (CPU is enough; measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_cache.py > hybrid_cache.jsonl
    HF_HUB_OFFLINE=1 python measure_cache.py lfm2 minimax   # only some model types
"""
import json
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText, StaticCache

torch.manual_seed(0)
WINDOW = 8          # sliding window / attention chunk of the tiny configs
DECODE_STEPS = 3
SIZES = [(1, 5), (2, 12), (3, 20)]   # (batch, prompt_len); 12 and 20 exceed WINDOW
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
VOCAB = 128
# Opt-in preallocated cache (generate(..., cache_implementation="static")), measured for a few types.
STATIC_TYPES = ("cohere2", "llama4_text", "qwen3_next")
STATIC_MAX_LEN = 32

COMMON = dict(vocab_size=VOCAB, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, intermediate_size=128, max_position_embeddings=256,
              pad_token_id=0, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)

# model_type -> (kwargs for AutoConfig.for_model, model class name or None for AutoModelForCausalLM)
TINY = {
    "olmo2": dict(num_hidden_layers=2),
    # ModernBERT's decoder: layers 0 and 3 global (every third from the first), 1 and 2 within
    # local_attention // 2 = WINDOW tokens
    "modernbert-decoder": dict(num_hidden_layers=4, local_attention=2 * WINDOW),
    "cohere2": dict(num_hidden_layers=4, sliding_window=WINDOW,
                    layer_types=["sliding_attention"] * 3 + ["full_attention"]),
    "exaone4": dict(num_hidden_layers=4, sliding_window=WINDOW, sliding_window_pattern="LLLG",
                    layer_types=["sliding_attention"] * 3 + ["full_attention"]),
    "llama4_text": dict(num_hidden_layers=4, attention_chunk_size=WINDOW, intermediate_size_mlp=128,
                        num_local_experts=2, num_experts_per_tok=1, interleave_moe_layer_step=2,
                        no_rope_layer_interval=4),
    "qwen3_next": dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
                       linear_conv_kernel_dim=4, linear_key_head_dim=8, linear_value_head_dim=8,
                       linear_num_key_heads=2, linear_num_value_heads=4, num_experts=4,
                       num_experts_per_tok=2, moe_intermediate_size=32,
                       shared_expert_intermediate_size=32),
    "qwen3_5_text": dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
                         linear_conv_kernel_dim=4, linear_key_head_dim=8, linear_value_head_dim=8,
                         linear_num_key_heads=2, linear_num_value_heads=4),
    "mamba": dict(num_hidden_layers=2, state_size=16, conv_kernel=4, expand=2, intermediate_size=128,
                  time_step_rank=4),
    "mamba2": dict(num_hidden_layers=2, num_heads=8, head_dim=16, n_groups=2, state_size=16,
                   conv_kernel=4, expand=2, chunk_size=8, time_step_rank=4),
    "jamba": dict(num_hidden_layers=4, attn_layer_period=2, attn_layer_offset=1,
                  expert_layer_period=2, expert_layer_offset=1, num_experts=2, num_experts_per_tok=1,
                  mamba_d_state=16, mamba_d_conv=4, mamba_expand=2, mamba_dt_rank=4,
                  use_mamba_kernels=False),
    "nemotron_h": dict(num_hidden_layers=4, hybrid_override_pattern="M*M-", mamba_num_heads=8,
                       mamba_head_dim=16, n_groups=2, ssm_state_size=16, conv_kernel=4, expand=2,
                       chunk_size=8, use_mamba_kernels=False),
    "falcon_h1": dict(num_hidden_layers=2, mamba_d_ssm=128, mamba_n_heads=8, mamba_d_head=16,
                      mamba_n_groups=2, mamba_d_state=16, mamba_d_conv=4, mamba_expand=2,
                      mamba_chunk_size=8),
    "granitemoehybrid": dict(num_hidden_layers=4, layer_types=["mamba", "attention", "mamba", "mamba"],
                             mamba_n_heads=8, mamba_d_head=16, mamba_n_groups=2, mamba_d_state=16,
                             mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=8,
                             num_local_experts=2, num_experts_per_tok=1, shared_intermediate_size=64),
    "lfm2": dict(num_hidden_layers=4, full_attn_idxs=[1, 3], conv_L_cache=3, intermediate_size=192),
    "minimax": dict(num_hidden_layers=4, layer_types=["linear_attention"] * 3 + ["full_attention"],
                    num_local_experts=2, num_experts_per_tok=1, block_size=4),
    # DeepSeek Sparse Attention: MLA latent + rope key, and the indexer's key on indexed layers
    "deepseek_v32": dict(num_hidden_layers=2, num_key_value_heads=4, q_lora_rank=32, kv_lora_rank=16,
                         qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, n_routed_experts=4,
                         num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1,
                         moe_intermediate_size=32, n_group=1, topk_group=1, index_n_heads=2,
                         index_head_dim=16, index_topk=4),
    "glm_moe_dsa": dict(num_hidden_layers=4, num_key_value_heads=4, q_lora_rank=32, kv_lora_rank=16,
                        qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, n_routed_experts=4,
                        num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1,
                        moe_intermediate_size=32, n_group=1, topk_group=1, index_n_heads=2,
                        index_head_dim=24, index_topk=4, index_topk_freq=2, index_skip_topk_offset=1),
    # DeepSeek-V4: a window of one K=V head everywhere; compressed entries, open-entry buffers and overlap rows on
    # CSA layers (with the indexer's own), entries and buffers on HCA layers
    "deepseek_v4": dict(num_hidden_layers=3, head_dim=32, q_lora_rank=32, o_groups=2, o_lora_rank=16,
                        index_n_heads=2, index_head_dim=16, index_topk=4, sliding_window=WINDOW,
                        n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, hc_mult=2,
                        layer_types=["sliding_attention", "compressed_sparse_attention",
                                     "heavily_compressed_attention"],
                        compress_rates={"compressed_sparse_attention": 4, "heavily_compressed_attention": 16}),
    # HY-V4: GLM-MoE-DSA's latent and indexer keys under hyper-connections; its own default indexer_types
    "hy_v4": dict(num_hidden_layers=6, q_lora_rank=32, kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=8,
                  v_head_dim=8, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                  index_n_heads=2, index_head_dim=24, index_topk=4, hc_mult=2),
    # sliding-window layers from layer_types (with per-head sinks in granite_swa)
    "granite_swa": dict(num_hidden_layers=4, sliding_window=WINDOW,
                        layer_types=["sliding_attention", "full_attention"] * 2),
    "cwm": dict(num_hidden_layers=4, sliding_window=WINDOW,
                layer_types=["sliding_attention"] * 3 + ["full_attention"]),
    # dots.llm1: the layers from max_window_layers on slide
    "dots1": dict(num_hidden_layers=4, sliding_window=WINDOW, max_window_layers=2, n_routed_experts=4,
                  n_shared_experts=1, num_experts_per_tok=2, moe_intermediate_size=32, first_k_dense_replace=1),
    # Bamba: attention at attn_layer_indices, Mamba-2 elsewhere
    "bamba": dict(num_hidden_layers=4, attn_layer_indices=[1, 3], mamba_n_heads=8, mamba_d_state=16,
                  mamba_n_groups=1, mamba_d_conv=4, mamba_expand=2),
    # added in the second 2026-11-27 session: LFM2-MoE (conv states as LFM2's), OLMo-Hybrid (Gated
    # DeltaNet states as Qwen3-Next's), K-EXAONE and Cohere2-MoE (sliding layers by pattern),
    # GLM-4.7-Flash (MLA latent), HY-V3 and Nemotron (keys and values on every layer)
    "lfm2_moe": dict(num_hidden_layers=4, layer_types=["conv", "full_attention", "conv", "full_attention"],
                     conv_L_cache=3, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                     num_dense_layers=1),
    "olmo_hybrid": dict(num_hidden_layers=4, linear_num_key_heads=2, linear_num_value_heads=4,
                        linear_key_head_dim=8, linear_value_head_dim=12, linear_conv_kernel_dim=4),
    "exaone_moe": dict(num_hidden_layers=4, sliding_window=WINDOW, sliding_window_pattern=2, num_experts=4,
                       num_experts_per_tok=2, moe_intermediate_size=32, first_k_dense_replace=1),
    "cohere2_moe": dict(num_hidden_layers=4, sliding_window=WINDOW, num_experts=4, num_experts_per_tok=2,
                        first_k_dense_replace=1, prefix_dense_intermediate_size=96),
    "glm4_moe_lite": dict(num_hidden_layers=3, num_key_value_heads=4, q_lora_rank=32, kv_lora_rank=16,
                          qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, n_routed_experts=4,
                          num_experts_per_tok=2, n_shared_experts=1, moe_intermediate_size=32),
    "hy_v3": dict(num_hidden_layers=2, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32),
    "nemotron": dict(num_hidden_layers=2),
    # AFMoE and Kolibri-1: sliding layers by their own patterns (every 3rd / 5th global here)
    "afmoe": dict(num_hidden_layers=4, sliding_window=WINDOW, global_attn_every_n_layers=3, num_experts=4,
                  num_experts_per_tok=2, moe_intermediate_size=32, num_shared_experts=1),
    "kolibri1": dict(num_hidden_layers=5, sliding_window=WINDOW, num_experts=4, num_experts_per_tok=2,
                     moe_intermediate_size=32, shared_expert_intermediate_size=32),
    # Gemma 4 (several configs of one type: "type:variant"). Global layers with heads of their own
    # (here K = V: attention_k_eq_v, one global KV head of 32), the last 2 layers reading the keys
    # and values of an earlier layer (DummyLayer, nothing cached), per-layer embeddings on.
    "gemma4_text:shared": dict(num_hidden_layers=6, sliding_window=WINDOW, global_head_dim=32,
                               attention_k_eq_v=True, num_global_key_value_heads=1, num_kv_shared_layers=2,
                               hidden_size_per_layer_input=4, vocab_size_per_layer_input=VOCAB,
                               layer_types=["sliding_attention"] * 2 + ["full_attention"]
                               + ["sliding_attention"] * 2 + ["full_attention"]),
    # the default pattern (every 6th layer global), global head width 64, no per-layer embeddings
    "gemma4_text:pattern": dict(num_hidden_layers=6, head_dim=32, global_head_dim=64, sliding_window=WINDOW,
                                hidden_size_per_layer_input=0),
    # bidirectional attention over everything halves the window (W // 2 + 1)
    # Gemma 3n: Gemma 4's sharing without heads of their own (the last 2 layers here read an earlier
    # layer's keys and values), and its default pattern (every 5th layer global)
    "gemma3n_text:shared": dict(num_hidden_layers=6, sliding_window=WINDOW, num_kv_shared_layers=2,
                                hidden_size_per_layer_input=4, vocab_size_per_layer_input=VOCAB,
                                altup_num_inputs=2, laurel_rank=4,
                                layer_types=["sliding_attention"] * 2 + ["full_attention"]
                                + ["sliding_attention"] * 2 + ["full_attention"]),
    "gemma3n_text:pattern": dict(num_hidden_layers=5, sliding_window=WINDOW, num_kv_shared_layers=0,
                                 hidden_size_per_layer_input=4, vocab_size_per_layer_input=VOCAB,
                                 laurel_rank=4),
    # MiMo-V2-Flash: keys 16 wide, values 8; the sliding layers (all but 0 and 5) twice the KV heads
    "mimo_v2_flash": dict(num_hidden_layers=6, sliding_window=WINDOW, v_head_dim=8, n_routed_experts=4,
                          num_experts_per_tok=2, moe_intermediate_size=32),
    # Kimi-Linear: MLA on layer 4, Kimi Delta Attention on 0-3 (conv over q, k, v; fp32 [heads, d, d] state)
    "kimi_linear": dict(num_hidden_layers=5, num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8,
                        qk_nope_head_dim=16, v_head_dim=16, num_experts=4, num_experts_per_token=2,
                        moe_intermediate_size=32, linear_head_dim=16, linear_num_heads=4, linear_conv_kernel_dim=4),
    # GLM-5.3-Flash (through its VLM wrapper: it has no CausalLM class): KDA layers and, every fourth
    # layer (3, 7), NoPE MLA whose full indexers cache key, pooled gate scores and a flag per token
    "glm5_next": dict(num_hidden_layers=8, num_key_value_heads=4, moe_intermediate_size=32, n_routed_experts=4,
                      num_experts_per_tok=2, kv_lora_rank=32, q_lora_rank=48, qk_nope_head_dim=16, v_head_dim=24,
                      index_topk=16, index_head_dim=16, index_n_heads=4, index_kpool=4, linear_head_dim=16,
                      linear_num_heads=4, linear_conv_kernel_dim=4, hc_mult=2),
    # its listed layers: adjacent MLA layers, the second reusing the first's top-k ("shared": no indexer keys)
    "glm5_next:shared": dict(num_hidden_layers=6, num_key_value_heads=4, moe_intermediate_size=32,
                             n_routed_experts=4, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=24,
                             qk_nope_head_dim=8, v_head_dim=8, index_topk=16, index_head_dim=8, index_n_heads=2,
                             index_kpool=2, linear_head_dim=8, linear_num_heads=2, linear_conv_kernel_dim=3,
                             hc_mult=3,
                             layer_types=["linear_attention", "indexed_attention", "indexed_attention",
                                          "linear_attention", "full_attention", "linear_attention"],
                             indexer_types=["full", "full", "shared", "full", "full", "full"]),
    # Qwen4-Exp's text model: Gated DeltaNet layers, attention layers whose QSA indexer caches a key per token (the
    # first of them also the tokens' three int64 position ids), n-gram layers (1 and 3) keeping their convolution's
    # steps and the last token ids
    "qwen4_exp_text": dict(num_hidden_layers=4, layer_types=["linear_attention", "indexed_attention"] * 2,
                           linear_conv_kernel_dim=4, linear_key_head_dim=8, linear_value_head_dim=8,
                           linear_num_key_heads=2, linear_num_value_heads=4, num_experts=4, num_experts_per_tok=2,
                           moe_intermediate_size=32, shared_expert_intermediate_size=32, hc_count=3, hc_lowrank=8,
                           indexer_n_heads=2, indexer_kv_heads=1, indexer_head_dim=24, indexer_budget=8,
                           indexer_compress_ratio=2, ple_layer_ids=[1, 3], ple_embed_dim=48, ple_conv_kernel_size=3,
                           ngram_size=3, heads_per_ngram=2, ngram_vocab_size_base=1000,
                           make_ngram_vocab_size_divisible_by=64),
    # its default pattern (attention on layer 4 of 4), no n-gram layers, another kernel and n
    "qwen4_exp_text:plain": dict(num_hidden_layers=4, linear_conv_kernel_dim=3, linear_key_head_dim=8,
                                 linear_value_head_dim=16, linear_num_key_heads=1, linear_num_value_heads=2,
                                 num_experts=2, num_experts_per_tok=1, moe_intermediate_size=16,
                                 shared_expert_intermediate_size=16, hc_count=2, hc_lowrank=4, indexer_n_heads=1,
                                 indexer_kv_heads=1, indexer_head_dim=16, indexer_budget=4,
                                 indexer_compress_ratio=4),
    # ZAYA: every layer CCA attention (full or sliding) with a fixed state beside its cache: the q|k
    # convolutions' last (t0 - 1) + (t1 - 1) steps and the previous token's delayed value (kv·d // 2)
    "zaya": dict(num_hidden_layers=4, num_attention_heads=6, num_key_value_heads=3, head_dim=10, num_experts=5,
                 moe_intermediate_size=40, router_hidden_size=24, cca_time0=3, cca_time1=4, sliding_window=WINDOW,
                 layer_types=["hybrid", "hybrid_sliding", "hybrid", "hybrid_sliding"]),
    # its default kernels (2, 2: one step each)
    "zaya:default": dict(num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                         num_experts=3, moe_intermediate_size=32, router_hidden_size=16),
    # LFM3: conv layers, a full and a sliding attention layer (window 8), conv state of conv_L_cache tokens
    "lfm3": dict(num_hidden_layers=5, sliding_window=WINDOW, conv_L_cache=5,
                 layer_types=["conv", "full_attention", "conv", "sliding_attention", "conv"]),
    # Laguna: sliding and full layers with their own query-head counts (the cache holds the shared KV heads)
    "laguna": dict(num_hidden_layers=4, sliding_window=WINDOW, num_experts=4, num_experts_per_tok=2,
                   moe_intermediate_size=32, shared_expert_intermediate_size=32,
                   num_attention_heads_per_layer=[4, 2, 6, 4],
                   layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"]),
    # A.X-K1: DeepSeek-V3's MLA (latent + rope key per token) with a dense first layer
    "axk1": dict(num_hidden_layers=3, num_key_value_heads=4, q_lora_rank=32, kv_lora_rank=16, qk_rope_head_dim=16,
                 qk_nope_head_dim=16, v_head_dim=16, n_routed_experts=4, num_experts_per_tok=2,
                 moe_intermediate_size=32, n_group=1, topk_group=1),
    # Flint: its default pattern (full on 0, 1, 5 and the last; the others slide over 8 tokens), sinks per head
    "flint": dict(num_hidden_layers=6, sliding_window=WINDOW, num_experts=4, num_experts_per_tok=2,
                  moe_intermediate_size=32, shared_expert_intermediate_size=32),
    # Beam: its default pattern (every sixth layer and the last full), NoPE on the full layers
    "beam": dict(num_hidden_layers=7, sliding_window=WINDOW, num_experts=4, num_experts_per_tok=2,
                 moe_intermediate_size=32, n_group=2, topk_group=1),
    # Lara-Mini: its default period [linear, sliding, linear, full, sliding] (Gated DeltaNet conv of K steps and an
    # fp32 state on the linear layers)
    "lara_mini": dict(num_hidden_layers=5, sliding_window=WINDOW, linear_conv_kernel_dim=4, linear_key_head_dim=8,
                      linear_value_head_dim=8, linear_num_key_heads=2, linear_num_value_heads=4, num_experts=4,
                      num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32),
    # Ling-3: KDA layers (conv over q, k, v in the model dtype; fp32 [heads, d, d] state) and gated MLA (latent and
    # rope key) on every third layer
    "bailing_hybrid": dict(num_hidden_layers=6, num_key_value_heads=4, layer_group_size=3, kv_lora_rank=24,
                           q_lora_rank=32, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16,
                           num_experts=4, num_experts_per_tok=2, n_group=2, topk_group=1, moe_intermediate_size=32,
                           linear_head_dim=16, linear_num_heads=4, linear_conv_kernel_dim=4),
    # A.X-K2: MLA latent + rope key and the indexer's key on every layer
    "axk2": dict(num_hidden_layers=3, num_key_value_heads=4, q_lora_rank=32, kv_lora_rank=16, qk_rope_head_dim=16,
                 qk_nope_head_dim=16, v_head_dim=16, n_routed_experts=4, num_experts_per_tok=2,
                 moe_intermediate_size=32, index_topk=4, index_head_dim=16, index_n_heads=2, gated_norm_rank=4),
    # MiniMax-M3's language model: full layers and lightning-indexed ones (their key per token beside K and V)
    "minimax_m3_vl_text": dict(num_hidden_layers=3, dense_intermediate_size=64, shared_intermediate_size=16,
                               intermediate_size=16, num_local_experts=4, num_experts_per_tok=2, index_n_heads=2,
                               index_head_dim=12, index_block_size=4, index_topk_blocks=2, index_local_blocks=1,
                               layer_types=["full_attention", "minimax_m3_sparse", "minimax_m3_sparse"],
                               mlp_layer_types=["dense", "sparse", "sparse"]),
    # Dory: the recurrent section (layers 1-2) runs three times, a cache layer per run (per_loop)
    "dory": dict(num_hidden_layers=4, n_input_layers=1, n_output_layers=1, n_recurrent_loops=3, sliding_window=WINDOW,
                 layer_types=["sliding_attention", "sliding_attention", "full_attention", "sliding_attention"]),
    # Gemma 4 Unified's language model: Gemma 4's sliding, global and KV-sharing layers without per-layer inputs
    "gemma4_unified_text": dict(num_hidden_layers=6, sliding_window=WINDOW, global_head_dim=32, attention_k_eq_v=True,
                                num_global_key_value_heads=1, num_kv_shared_layers=2,
                                layer_types=["sliding_attention"] * 2 + ["full_attention"]
                                + ["sliding_attention"] * 2 + ["full_attention"]),
    # Mistral Large 4 (through its VLM wrapper: no CausalLM class): a NoPE layer (latent only, no rope key), a layer
    # reusing layer 0's latent (no cache of its own), the indexer's key on its "full" layers
    "mistral_large4": dict(num_hidden_layers=5, num_key_value_heads=4, kv_lora_rank=16, qk_rope_head_dim=16,
                           qk_nope_head_dim=8, v_head_dim=16, n_routed_experts=4, num_experts_per_tok=2,
                           moe_intermediate_size=32, index_head_dim=16, index_n_heads=2, index_topk=4,
                           no_rope_layers=[1, 1, 0, 1, 1], kv_source_layers=[0, 0, 2, 3, 4],
                           index_topk_pattern="FFSFF"),
    # Aria's language model: Llama's keys and values under MoE layers with shared experts
    "aria_text": dict(num_hidden_layers=2, moe_num_experts=4, moe_topk=2),
    # JetMoE: keys and values of num_key_value_heads × kv_channels, cached before the top-k repeat
    "jetmoe": dict(num_hidden_layers=3, kv_channels=16, num_local_experts=4, num_experts_per_tok=2),
    # Zamba2: Mamba-2 state in every layer; the hybrid layers' shared block caches K/V of 2·hidden / heads wide
    "zamba2": dict(num_hidden_layers=4, layers_block_type=["mamba", "hybrid", "mamba", "hybrid"], n_mamba_heads=4,
                   mamba_d_state=8, adapter_rank=8, num_mem_blocks=2),
    # Zamba: Mamba-1 state (fp32 SSM) in every layer; layer 2 and every attn_layer_period-th after it hybrid, each
    # hybrid layer caching its own K/V of the shared block
    "zamba": dict(num_hidden_layers=7, attn_layer_period=2, attn_layer_offset=0, n_mamba_heads=4, mamba_d_state=8,
                  mamba_d_conv=3),
    # Inkling: four fp32 convolution states per layer beside its keys and values; sliding and full layers of different
    # key shapes (inkling2_loop: the loop's section repeated, a cache slot per run)
    "inkling2_text": dict(num_hidden_layers=4, layer_types=["hybrid_sliding", "hybrid", "hybrid_sliding", "hybrid"],
                          num_attention_heads=4, num_key_value_heads=2, head_dim=8, swa_num_attention_heads=4,
                          swa_num_key_value_heads=1, swa_head_dim=4, sliding_window_size=8, d_rel=4, rel_extent=12,
                          conv_kernel_size=3, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                          n_layers_per_attn_res_block=1, unpadded_vocab_size=120),
    "inkling2_loop_text": dict(num_hidden_layers=4, layer_types=["hybrid_sliding", "hybrid", "hybrid_sliding", "hybrid"],
                               num_attention_heads=4, num_key_value_heads=2, head_dim=8, swa_num_attention_heads=4,
                               swa_num_key_value_heads=1, swa_head_dim=4, sliding_window_size=8, d_rel=4, rel_extent=12,
                               conv_kernel_size=3, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                               n_layers_per_attn_res_block=1, unpadded_vocab_size=120, loop_layer_index_start=1,
                               loop_layer_index_end=3, loop_num_passes=3, loop_gate_rank=4),
    # added 2026-11-28 (thirtieth session): RecurrentGemma keeps its RG-LRU and convolution states on
    # the recurrent blocks (`rg_lru.recurrent_states`, `conv1d_state`), its local attention's keys and
    # values in a DynamicCache; lru_width apart from the hidden size, the blocks cycled
    "recurrent_gemma": dict(num_hidden_layers=4, block_types=["recurrent", "attention", "recurrent"],
                            lru_width=96, conv1d_width=3, attention_window_size=WINDOW,
                            num_key_value_heads=1),
    # added 2026-11-28: xLSTM's `xLSTMCache.rnn_state` (C, n, m per layer, in the model's dtype);
    # q/k and v widths multiples of 64, as its cached forward needs
    "xlstm": dict(num_hidden_layers=2, hidden_size=128, num_heads=2, qk_dim_factor=0.5,
                  v_dim_factor=1.0, chunk_size=8),
    "inkling_text": dict(num_hidden_layers=3, layer_types=["hybrid", "hybrid_sliding", "hybrid_sliding"],
                         num_attention_heads=4, num_key_value_heads=1, head_dim=12, swa_num_attention_heads=4,
                         swa_num_key_value_heads=2, swa_head_dim=6, sliding_window_size=5, d_rel=4, rel_extent=12,
                         conv_kernel_size=4, n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=2,
                         moe_intermediate_size=16, intermediate_size=48, unpadded_vocab_size=120),
    # HRM-Text: H_cycles × (L_cycles + 1) runs of each stack's layers, every run a full-attention cache slot
    "hrm_text": dict(num_hidden_layers=2, H_cycles=2, L_cycles=2, head_dim=8),
    "gemma4_text:bidirectional": dict(num_hidden_layers=4, num_key_value_heads=1, global_head_dim=16,
                                      sliding_window=10, use_bidirectional_attention="all",
                                      hidden_size_per_layer_input=0,
                                      layer_types=["sliding_attention", "full_attention"] * 2),
    # dots.3-note: MLA latent + rope key on every layer, at the layer's own widths (the sliding layers' per_layer_config,
    # written as transformers saves the swa_* keys: other heads, ranks and a narrower rope key), the window less one
    # on sliding layers; the indexer's key per token on indexed layers; "full_attention" plain MLA (a per_layer_config
    # keeps it from being read as DSA)
    "dots3_note_text": dict(num_hidden_layers=6, num_key_value_heads=4, q_lora_rank=32, kv_lora_rank=16,
                            qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, n_routed_experts=4,
                            num_experts_per_tok=2, moe_intermediate_size=32, shared_experts_intermediate_size=32,
                            index_n_heads=2, index_head_dim=24, index_topk=4, sliding_window=WINDOW,
                            layer_types=["indexed_attention", "sliding_attention", "full_attention",
                                         "sliding_attention", "indexed_attention", "sliding_attention"],
                            per_layer_config={i: dict(num_attention_heads=2, num_key_value_heads=2, q_lora_rank=24,
                                                      kv_lora_rank=12, head_dim=16, qk_nope_head_dim=12,
                                                      qk_rope_head_dim=4, v_head_dim=8) for i in (1, 3, 5)}),
}
DROP_COMMON = {  # config fields a family does not take
    "mamba": {"num_attention_heads", "num_key_value_heads", "head_dim", "max_position_embeddings"},
    "mamba2": {"num_attention_heads", "num_key_value_heads", "max_position_embeddings"},
    "deepseek_v4": {"num_key_value_heads"},
    "glm5_next": {"head_dim"},
    "mistral_large4": {"head_dim"},
    "xlstm": {"num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
              "max_position_embeddings"},
}
# wrappers without a CausalLM class: built with a tiny tower, their text config recorded as `text_config`
WRAPPED = {"glm5_next": dict(depth=1, hidden_size=32, num_heads=4, intermediate_size=32, out_hidden_size=64,
                             projection_intermediate_size=32),
           "mistral_large4": dict(hidden_size=32, intermediate_size=48, num_hidden_layers=1, num_attention_heads=2,
                                  patch_size=14, image_size=112)}


# families whose fp32-kept modules change the cache: DeepSeek-V4's fp32 position bias makes its overlap gate fp32
# (GLM-5.3-Flash keeps its KDA convolutions, gates and connections fp32, as from_pretrained loads it)
# (Inkling keeps its routers, convolutions and residual queries fp32; its convolutions cache fp32 states)
KEEPS_FP32 = {"deepseek_v4", "glm5_next", "mistral_large4", "inkling_text", "inkling2_text", "inkling2_loop_text"}


def tiny_config(key):
    mt = key.split(":")[0]
    kw = {k: v for k, v in COMMON.items() if k not in DROP_COMMON.get(mt, set())}
    kw.update(TINY[key])
    if mt in WRAPPED:
        return AutoConfig.for_model(mt, text_config=kw, vision_config=WRAPPED[mt])
    return AutoConfig.for_model(mt, **kw)


RELEVANT = ("block_types", "lru_width", "conv1d_width", "attention_window_size", "no_rope_layers", "kv_source_layers", "n_input_layers", "n_recurrent_layers", "n_output_layers", "n_recurrent_loops", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
            "layer_types", "layers_block_type", "sliding_window", "attention_chunk_size",
            "linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
            "linear_num_key_heads", "linear_num_value_heads", "state_size", "conv_kernel", "expand",
            "intermediate_size", "num_heads", "n_groups", "mamba_num_heads", "mamba_head_dim",
            "ssm_state_size", "mamba_ssm_cache_dtype", "mamba_d_ssm", "mamba_n_heads", "mamba_d_head",
            "mamba_n_groups", "mamba_d_state", "mamba_d_conv", "mamba_expand", "conv_L_cache",
            "block_size", "attn_layer_period", "attn_layer_offset", "vocab_size",
            "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
            "n_routed_experts", "num_experts_per_tok", "n_shared_experts", "first_k_dense_replace",
            "moe_intermediate_size", "index_n_heads", "index_head_dim", "indexer_types",
            "per_layer_config", "attention_k_eq_v", "num_kv_shared_layers", "use_bidirectional_attention",
            "hidden_size_per_layer_input", "vocab_size_per_layer_input", "attn_layer_indices",
            "max_window_layers", "mamba_expand", "linear_head_dim", "linear_num_heads", "kv_channels",
            "num_local_experts", "num_attention_heads_per_layer", "n_mamba_heads", "mamba_ngroups",
            "num_mem_blocks", "adapter_rank", "attention_head_dim", "compress_rates", "index_kpool",
            "index_topk", "hc_mult", "mlp_layer_types", "num_experts", "shared_expert_intermediate_size",
            "hc_count", "hc_lowrank", "indexer_n_heads", "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
            "indexer_compress_ratio", "ple_layer_ids", "ple_embed_dim", "ple_conv_kernel_size", "ngram_size",
            "heads_per_ngram", "ngram_vocab_size_base", "make_ngram_vocab_size_divisible_by", "eos_token_id",
            "cca_time0", "cca_time1", "router_hidden_size", "moe_intermediate_size", "swa_num_attention_heads",
            "swa_num_key_value_heads", "swa_head_dim", "sliding_window_size", "d_rel", "rel_extent", "conv_kernel_size",
            "unpadded_vocab_size", "n_layers_per_attn_res_block", "loop_layer_index_start", "loop_layer_index_end",
            "loop_num_passes", "loop_gate_rank", "n_shared_experts", "mlp_layer_types", "num_layers_per_stack",
            "H_cycles", "L_cycles", "local_attention")


def config_summary(cfg):
    out = {"model_type": cfg.model_type}
    saved = cfg.to_dict()
    for k in RELEVANT:
        # Gemma 4's config rewrites fields at init (the window under bidirectional attention,
        # heads per layer, which raise when read globally): record them as it saves them.
        # dots.3-note's per-layer widths raise too when read globally: its saved values as well.
        if cfg.model_type.startswith(("gemma4", "dots3_note")) or k == "per_layer_config":
            if k not in saved:
                continue
            v = saved[k]
        else:
            try:
                v = getattr(cfg, k)
            except AttributeError:
                continue
        if v is not None and not callable(v):
            out[k] = v
    return out


def tensor_entries(name, obj, seen):
    """Every tensor reachable from obj (tensors, dicts, lists, tuples), skipping ones already counted."""
    if isinstance(obj, torch.Tensor):
        key = (obj.data_ptr(), obj.numel(), obj.dtype) if obj.numel() else (id(obj),)
        if key in seen:
            return []
        seen.add(key)
        return [{"name": name, "shape": list(obj.shape), "dtype": str(obj.dtype).replace("torch.", ""),
                 "bytes": obj.numel() * obj.element_size()}]
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += tensor_entries(f"{name}[{k}]", v, seen)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out += tensor_entries(f"{name}[{i}]", v, seen)
    return out


def layer_kinds(cfg):
    lt = getattr(cfg, "layer_types", None)
    if callable(lt) or lt is None:
        lt = getattr(cfg, "layers_block_type", None)
    return list(lt) if lt is not None else None


def walk(cache, cfg):
    seen = set()
    kinds = layer_kinds(cfg)
    layers = []
    for i, layer in enumerate(getattr(cache, "layers", [])):
        tensors = []
        for attr, val in vars(layer).items():
            tensors += tensor_entries(attr, val, seen)
        kind = kinds[i] if kinds and i < len(kinds) else None
        if kind is None and type(layer).__name__ == "DynamicLayer":
            kind = "full_attention"  # config has no layer_types: every layer is full attention
        layers.append({"index": i, "kind": kind,
                       "cache_layer_class": type(layer).__name__, "tensors": tensors})
    # cache-level containers (e.g. MiniMaxCache.linear_cache): attribute them to a layer by index
    for attr, val in vars(cache).items():
        if attr == "layers":
            continue
        if isinstance(val, list) and any(isinstance(v, torch.Tensor) for v in val):
            for i, v in enumerate(val):
                while len(layers) <= i:
                    layers.append({"index": len(layers), "kind": kinds[len(layers)] if kinds else None,
                                   "cache_layer_class": None, "tensors": []})
                layers[i]["tensors"] += tensor_entries(attr, v, seen)
        else:
            extra = tensor_entries(attr, val, seen)
            if extra:
                layers.append({"index": None, "kind": "cache-level", "cache_layer_class": type(cache).__name__,
                               "tensors": extra})
    return layers


def retained_storage(cache):
    """Bytes of the distinct storages behind the cache's tensors (0-d counters left out): a view keeps its
    whole base alive, which DeepSeek-V4's windows and buffers are after a multi-token step, and so is a sliding
    layer's window (`DynamicSlidingWindowLayer.update` slices the torch.cat of the past and the step)."""
    seen, total = set(), 0
    for layer in getattr(cache, "layers", []):
        for val in vars(layer).values():
            for t in (val.values() if isinstance(val, dict) else [val]):
                if isinstance(t, torch.Tensor) and t.dim() > 0:
                    st = t.untyped_storage()
                    if st.data_ptr() not in seen:
                        seen.add(st.data_ptr())
                        total += st.nbytes()
    return total


def module_states(model, layers):
    """States a model keeps on its modules instead of in the cache object (RecurrentGemma's recurrent
    blocks): plain tensor attributes of each decoder layer's submodules, neither parameters nor
    buffers, added to that layer's entry."""
    base = getattr(model, "model", None)
    for i, block in enumerate(getattr(base, "layers", [])):
        while len(layers) <= i:
            layers.append({"index": len(layers), "kind": None, "cache_layer_class": None, "tensors": []})
        for name, module in block.named_modules():
            for attr, val in vars(module).items():
                if isinstance(val, torch.Tensor) and not isinstance(val, torch.nn.Parameter):
                    layers[i]["tensors"].append({"name": attr, "module": name, "shape": list(val.shape),
                                                 "dtype": str(val.dtype).replace("torch.", ""),
                                                 "bytes": val.numel() * val.element_size()})
    return layers


def record(mt, model, cfg, cache, dtype_name, batch, prompt_len, steps, impl="dynamic"):
    text = cfg.text_config if mt in WRAPPED else cfg
    layers = walk(cache, text)
    if mt == "recurrent_gemma":
        layers = module_states(model, layers)
    # windows are views that keep whole projections alive (see retained_storage): DeepSeek-V4's buffers, and
    # every sliding or chunked layer's keys and values right after a prefill
    extra = {"retained_storage_bytes": retained_storage(cache)}
    summary = {"text_config": config_summary(text)} if mt in WRAPPED else config_summary(cfg)
    return {**extra, "model_type": mt, "hf_class": type(model).__name__, "cache_class": type(cache).__name__,
            "cache_impl": impl if impl == "dynamic" else f"{impl}(max_cache_len={STATIC_MAX_LEN})",
            "config": summary, "dtype": dtype_name, "batch": batch,
            "prompt_len": prompt_len, "decode_steps": steps, "total_len": prompt_len + steps,
            "layers": layers, "total_bytes": sum(t["bytes"] for l in layers for t in l["tensors"])}


def run(key, dtype_name, impl="dynamic"):
    mt = key.split(":")[0]
    cfg = tiny_config(key)
    torch.manual_seed(0)
    auto = AutoModelForImageTextToText if mt in WRAPPED else AutoModelForCausalLM
    if mt in KEEPS_FP32:  # as from_pretrained(dtype=...) builds it: `_keep_in_fp32_modules_strict` stay fp32
        model = auto.from_config(cfg, dtype=DTYPES[dtype_name]).eval()
    else:
        model = AutoModelForCausalLM.from_config(cfg).to(DTYPES[dtype_name]).eval()
    for batch, prompt_len in SIZES:
        ids = torch.randint(3, VOCAB, (batch, prompt_len))
        kwargs = {}
        if impl == "static":
            kwargs["cache"] = StaticCache(config=cfg, max_cache_len=STATIC_MAX_LEN)
        position = {}
        if mt == "recurrent_gemma":
            # its output carries no cache: build the one RecurrentGemmaModel.forward fills
            model.model._setup_cache(cfg, batch, ids.device, DTYPES[dtype_name])
            kwargs["cache"] = transformers.DynamicCache(config=cfg)
            position = {"position_ids": torch.arange(prompt_len)[None].expand(batch, prompt_len)}
        with torch.no_grad():
            out = model(input_ids=ids, use_cache=True, **kwargs, **position)
            if mt != "recurrent_gemma":
                cache = out.cache if hasattr(out, "cache") else out.past_key_values
            else:
                cache = kwargs["cache"]
            # walk now: decoding updates some states in place
            yield record(mt, model, cfg, cache, dtype_name, batch, prompt_len, 0, impl)
            for _ in range(DECODE_STEPS):
                nxt = out.logits[:, -1:].argmax(-1)
                if mt == "recurrent_gemma":
                    pos = torch.full((batch, 1), prompt_len + _)
                    out = model(input_ids=nxt, cache=cache, use_cache=True, position_ids=pos)
                    continue
                out = model(input_ids=nxt, cache=cache, use_cache=True)
                cache = out.cache if hasattr(out, "cache") else out.past_key_values
            yield record(mt, model, cfg, cache, dtype_name, batch, prompt_len, DECODE_STEPS, impl)


def main(types):
    for mt in types or TINY:
        for dt in DTYPES:
            for rec in run(mt, dt):
                print(json.dumps(rec), flush=True)
            if mt in STATIC_TYPES:
                for rec in run(mt, dt, "static"):
                    print(json.dumps(rec), flush=True)
    print(f"# torch {torch.__version__} transformers {transformers.__version__}", file=sys.stderr)




# ---------------------------------------------------------------------------------------------
# Closed-form check: `python measure_cache.py --check hybrid_cache.jsonl` recomputes every
# layer's bytes from the formulas in README.md and compares them with the measured ones.
# ---------------------------------------------------------------------------------------------
SIZE = {"float32": 4, "bfloat16": 2}


def predict_layer(rec, layer):
    c, B, T = rec["config"].get("text_config", rec["config"]), rec["batch"], rec["total_len"]
    s, f32 = SIZE[rec["dtype"]], 4
    kind, cls = layer["kind"], layer["cache_layer_class"] or ""
    mt = rec["model_type"]
    kv = lambda tokens: 2 * B * c["num_key_value_heads"] * tokens * c["head_dim"] * s
    if mt == "mimo_v2_flash":  # values v_head_dim wide; sliding layers hold twice the KV heads
        heads = c["num_key_value_heads"] * (2 if kind == "sliding_attention" else 1)
        kv = lambda tokens: B * heads * tokens * (c["head_dim"] + c["v_head_dim"]) * s
    if "kv_lora_rank" in c:  # MLA: the normed latent as keys, the shared rope key as values, one head
        kv = lambda tokens: B * tokens * (c["kv_lora_rank"] + c["qk_rope_head_dim"]) * s
    if mt == "dots3_note_text":  # the layer's own latent + rope key (the window less one on sliding layers), and on
        # indexed layers the indexer's key, fp32 in any model dtype (its rotary cos/sin come from the fp32 embeddings)
        own = dict(c, **{int(i): v for i, v in (c.get("per_layer_config") or {}).items()}.get(layer["index"], {}))
        S = min(T, c["sliding_window"] - 1) if kind == "sliding_attention" else T
        return (B * S * (own["kv_lora_rank"] + own["qk_rope_head_dim"]) * s + (8 if kind == "sliding_attention" else 0)
                + (B * T * own["index_head_dim"] * f32 if kind == "indexed_attention" else 0))
    if mt == "deepseek_v4":  # one K=V head: two tensors on sliding layers, one on compressing ones
        D, Di, w = c["head_dim"], c["index_head_dim"], min(T, c["sliding_window"] - 1)
        rates = c["compress_rates"]
        if kind == "sliding_attention":
            return 2 * B * w * D * s + 8      # + the 0-d int64 _sliding_window_tensor, as every V4 layer has
        m = rates[kind]
        if kind == "heavily_compressed_attention":
            return B * s * D * (w + T // m + 2 * (T % m)) + 8
        overlap = B * m * (D + Di) * (s + f32) if T >= m else 0  # the gate rows stay fp32
        return B * s * (D * w + (D + Di) * (T // m) + 4 * (D + Di) * (T % m)) + overlap + 8
    if mt == "zaya":  # K, V (sliding layers: the window less one) and CCA's conv steps and delayed value
        S = T if kind == "hybrid" else min(T, W - 1) if (W := c.get("sliding_window")) else T
        steps = (c["cca_time0"] - 1) + (c["cca_time1"] - 1)
        hd, nh, kvh = c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"]
        extra = 8 if kind == "hybrid_sliding" else 0  # the sliding layer's 0-d int64 window tensor
        return 2 * B * kvh * S * hd * s + B * (nh + kvh) * hd * steps * s + B * (kvh * hd // 2) * s + extra
    if mt == "qwen4_exp_text" and kind == "indexed_attention":  # QSA keys; the first indexed layer's position ids
        first = c["layer_types"].index("indexed_attention") == layer["index"]
        return kv(T) + B * T * c["indexer_head_dim"] * s + (24 * B * T if first else 0)
    if kind == "indexed_attention":  # and DeepSeek Sparse Attention's indexer keys, where the layer indexes
        shared = (c.get("indexer_types") or [])[layer["index"]:layer["index"] + 1] == ["shared"]
        # GLM-5.3-Flash's pooled indexer: its key, the gate's scores and a flag (2·d + 1)
        width = 2 * c["index_head_dim"] + 1 if mt == "glm5_next" else c["index_head_dim"]
        return kv(T) + (0 if shared else B * T * width * s)
    if mt == "gemma4_text":  # a layer's own heads (`per_layer_config`); the window as saved
        own = (c.get("per_layer_config") or {}).get(str(layer["index"]), {})
        heads, d = own.get("num_key_value_heads", c["num_key_value_heads"]), own.get("head_dim", c["head_dim"])
        kv = lambda tokens: 2 * B * heads * tokens * d * s
        if c.get("use_bidirectional_attention") == "all":  # the config halves it at init, then saves 2·(W − 1)
            c = dict(c, sliding_window=c["sliding_window"] // 2 + 1)
    static = rec.get("cache_impl", "dynamic") != "dynamic"
    W = c.get("sliding_window") or c.get("attention_chunk_size")
    if kind in ("mlp", "moe") or cls == "DummyLayer":
        return 0  # DummyLayer: Gemma 3n's and 4's shared layers read an earlier layer's keys and values
    if cls == "StaticLayer":
        return kv(STATIC_MAX_LEN) + 8
    if cls == "StaticSlidingWindowLayer":
        return kv(min(W, STATIC_MAX_LEN)) + 8
    if kind in ("sliding_attention", "chunked_attention"):
        return kv(min(T, W - 1)) + 8          # + the 0-d int64 _sliding_window_tensor
    if kind in ("full_attention", "attention"):
        return kv(T)
    # recurrent layers
    if mt == "mamba":
        I, K, N = c["intermediate_size"], c["conv_kernel"], c["state_size"]
        return B * I * K * s + B * I * N * f32
    if mt == "jamba":
        I, K, N = c["mamba_expand"] * c["hidden_size"], c["mamba_d_conv"], c["mamba_d_state"]
        return B * I * K * s + B * I * N * f32
    if mt == "qwen4_exp_text":  # Qwen3.5's state; n-gram layers: their conv's steps and the last token ids
        hk, dk, hv, dv = (c["linear_num_key_heads"], c["linear_key_head_dim"],
                          c["linear_num_value_heads"], c["linear_value_head_dim"])
        gdn = B * (2 * hk * dk + hv * dv) * c["linear_conv_kernel_dim"] * s + B * hv * dk * dv * f32
        if layer["index"] + 1 not in c.get("ple_layer_ids", []):
            return gdn
        n = c["ngram_size"]
        steps = (c["ple_conv_kernel_size"] - 1) * n
        return gdn + B * c["hc_count"] * c["hidden_size"] * steps * s + B * (n - 1) * 8
    if mt in ("qwen3_next", "qwen3_5_text"):
        hk, dk, hv, dv = (c["linear_num_key_heads"], c["linear_key_head_dim"],
                          c["linear_num_value_heads"], c["linear_value_head_dim"])
        return B * (2 * hk * dk + hv * dv) * c["linear_conv_kernel_dim"] * s + B * hv * dk * dv * f32
    if mt in ("lfm2", "lfm2_moe", "lfm3"):
        return B * c["hidden_size"] * c["conv_L_cache"] * s
    if mt == "olmo_hybrid":  # Qwen3-Next's Gated DeltaNet, unfused
        hk, dk, hv, dv = (c["linear_num_key_heads"], c["linear_key_head_dim"],
                          c["linear_num_value_heads"], c["linear_value_head_dim"])
        return B * (2 * hk * dk + hv * dv) * c["linear_conv_kernel_dim"] * s + B * hv * dk * dv * f32
    if mt in ("kimi_linear", "glm5_next"):  # conv over q, k and v; the fp32 [heads, d, d] state
        H, d = c["linear_num_heads"], c["linear_head_dim"]
        return B * 3 * H * d * c["linear_conv_kernel_dim"] * s + B * H * d * d * f32
    if mt == "minimax":
        return B * c["num_attention_heads"] * c["head_dim"] ** 2 * s
    if mt == "mamba2":
        H, P, G, N, K = c["num_heads"], c["head_dim"], c["n_groups"], c["state_size"], c["conv_kernel"]
        I = c["expand"] * c["hidden_size"]
    elif mt == "nemotron_h":
        H, P, G, N, K = (c["mamba_num_heads"], c["mamba_head_dim"], c["n_groups"], c["ssm_state_size"],
                         c["conv_kernel"])
        I = H * P
    elif mt == "zamba2":
        I = c["mamba_expand"] * c["hidden_size"]
        H, G, N, K = c["n_mamba_heads"], c["mamba_ngroups"], c["mamba_d_state"], c["mamba_d_conv"]
        P = I // H
    elif mt in ("granitemoehybrid", "bamba"):
        H, P, G, N, K = (c["mamba_n_heads"], c["mamba_d_head"], c["mamba_n_groups"], c["mamba_d_state"],
                         c["mamba_d_conv"])
        I = c["mamba_expand"] * c["hidden_size"]
    elif mt == "falcon_h1":
        H, P, G, N, K = (c["mamba_n_heads"], c["mamba_d_head"], c["mamba_n_groups"], c["mamba_d_state"],
                         c["mamba_d_conv"])
        I = c["mamba_d_ssm"]
    else:
        raise ValueError(f"no formula for {mt}/{kind}")
    ssm = B * (I + 2 * G * N) * K * s + B * H * P * N * f32
    return ssm + (kv(T) if kind == "hybrid" else 0)


def check(path):
    bad = n = 0
    for line in open(path):
        rec = json.loads(line)
        for layer in rec["layers"]:
            got = sum(t["bytes"] for t in layer["tensors"])
            want = predict_layer(rec, layer)
            n += 1
            if got != want:
                bad += 1
                print("MISMATCH", rec["model_type"], rec["dtype"], rec["batch"], rec["prompt_len"],
                      rec["decode_steps"], layer["index"], layer["kind"], got, want)
    print(f"{n - bad}/{n} layer measurements match the formulas")
    return bad == 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--check"]:
        sys.exit(0 if check(sys.argv[2]) else 1)
    main(sys.argv[1:])
