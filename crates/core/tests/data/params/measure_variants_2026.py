"""Parameter counts of the families added in the 2026-11-27 session, each on its
config-class defaults and on varied small configs that flip the keys the
importer reads (so a formula is checked, not one number).

For every (model_type, overrides) below: build `CONFIG_MAPPING[model_type](**overrides)`,
write it to ../configs/variants_2026/<model_type>__<n>.json (n = 0 for the class
defaults), build the model on the meta device (AutoModelForCausalLM, or
AutoModelForImageTextToText for multimodal wrappers, or AutoModelForSeq2SeqLM for the
encoder-decoders of variants_2026b.SEQ2SEQ: BartForConditionalGeneration, MarianMTModel, ...) and record
`model.num_parameters()` in hf_variants_2026.csv. Run with HF_HUB_OFFLINE=1;
nothing is downloaded:

    HF_HUB_OFFLINE=1 python measure_variants_2026.py
"""
import csv, json, os, sys, warnings
import torch, transformers
from transformers import AutoModelForImageClassification, AutoModelForCausalLM, AutoModelForImageTextToText, AutoModelForSeq2SeqLM, CONFIG_MAPPING

warnings.filterwarnings("ignore")
SMALL = dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
             intermediate_size=640, vocab_size=1000, pad_token_id=0, bos_token_id=1, eos_token_id=2)
GLM_SMALL_VIS = dict(depth=2, hidden_size=64, num_heads=4, intermediate_size=96, out_hidden_size=48,
                     patch_size=14, image_size=112, spatial_merge_size=2, temporal_patch_size=2)
SW, FA = "sliding_attention", "full_attention"
SMALL_MOE = dict(vocab_size=100, hidden_size=64, intermediate_size=96, moe_intermediate_size=32, num_hidden_layers=3,
                 num_attention_heads=4, num_key_value_heads=4, pad_token_id=0)
LFM2_8B_TYPES = ["conv", "conv", FA, "conv", "conv", "conv", FA, "conv", "conv", "conv", FA, "conv", "conv", "conv",
                 FA, "conv", "conv", "conv", FA, "conv", "conv", FA, "conv", "conv"]
BAMBA_SMALL = dict(pad_token_id=0, vocab_size=100, hidden_size=64, intermediate_size=96, num_attention_heads=4)
GEMMA4_TEXT = [
    dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=7, num_attention_heads=4,
         num_key_value_heads=2, head_dim=16, global_head_dim=32, vocab_size_per_layer_input=500,
         hidden_size_per_layer_input=8),
    dict(vocab_size=777, hidden_size=96, intermediate_size=200, num_hidden_layers=6, num_attention_heads=6,
         num_key_value_heads=3, head_dim=24, global_head_dim=48, tie_word_embeddings=False, attention_bias=True,
         hidden_size_per_layer_input=0, layer_types=[SW, FA, SW, SW, FA, FA], num_kv_shared_layers=2,
         use_double_wide_mlp=True),
    dict(vocab_size=1500, hidden_size=80, intermediate_size=96, num_hidden_layers=8, num_attention_heads=8,
         num_key_value_heads=4, head_dim=16, global_head_dim=64, attention_k_eq_v=True,
         num_global_key_value_heads=1, hidden_size_per_layer_input=0, enable_moe_block=True, num_experts=5,
         top_k_experts=2, moe_intermediate_size=24, layer_types=([SW] * 3 + [FA]) * 2),
    dict(vocab_size=2048, hidden_size=128, intermediate_size=512, num_hidden_layers=10, num_attention_heads=4,
         num_key_value_heads=1, head_dim=32, global_head_dim=64, vocab_size_per_layer_input=1024,
         hidden_size_per_layer_input=16, num_kv_shared_layers=4, use_double_wide_mlp=True,
         layer_types=([SW] * 4 + [FA]) * 2),
    dict(vocab_size=300, hidden_size=48, intermediate_size=64, num_hidden_layers=4, num_attention_heads=3,
         num_key_value_heads=3, head_dim=16, global_head_dim=16, num_global_key_value_heads=1,
         hidden_size_per_layer_input=4, vocab_size_per_layer_input=300, layer_types=[SW, FA] * 2),
    dict(vocab_size=400, hidden_size=64, intermediate_size=100, num_hidden_layers=4, num_attention_heads=2,
         num_key_value_heads=2, head_dim=32, global_head_dim=999, hidden_size_per_layer_input=0,
         layer_types=[SW, FA] * 2, per_layer_config={"1": {"head_dim": 48, "num_key_value_heads": 1},
                                                     "3": {"head_dim": 48, "num_key_value_heads": 1}}),
    # the last layer is global whatever layer_types says
    dict(vocab_size=512, hidden_size=64, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4,
         num_key_value_heads=2, head_dim=16, global_head_dim=32, attention_k_eq_v=True, enable_moe_block=True,
         num_experts=3, top_k_experts=1, moe_intermediate_size=16, tie_word_embeddings=False,
         hidden_size_per_layer_input=0, layer_types=[SW] * 3),
    # an empty per_layer_config: global layers keep head_dim
    dict(vocab_size=256, hidden_size=32, intermediate_size=48, num_hidden_layers=12, num_attention_heads=2,
         num_key_value_heads=1, head_dim=8, hidden_size_per_layer_input=2, vocab_size_per_layer_input=64,
         num_kv_shared_layers=3, per_layer_config={}),
]
GEMMA4_VIS = dict(hidden_size=48, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, head_dim=16, patch_size=4, position_embedding_size=64,
                  use_clipped_linears=True, standardize=True)
GEMMA4_AUDIO = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, subsampling_conv_channels=[16, 8],
                    conv_kernel_size=3, output_proj_dims=40)
VARIANTS = {
    "granite_swa": [{}, dict(SMALL, sliding_window=64, layer_types=["sliding_attention", "full_attention"] * 2,
                             tie_word_embeddings=False)],
    "hyperclovax": [{}, dict(SMALL, use_post_norm=False), dict(SMALL, use_post_norm=True, head_dim=48)],
    "iquestcoder": [{}, dict(SMALL, attention_bias=True, mlp_bias=True)],
    "cwm": [{}, dict(SMALL, head_dim=32, sliding_window=32,
                     layer_types=["sliding_attention"] * 3 + ["full_attention"])],
    "granitemoeshared": [{}, dict(SMALL, num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=384)],
    "granitemoe_swa": [{}, dict(SMALL, num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=512,
                                sliding_window=64, layer_types=["sliding_attention", "full_attention"] * 2)],
    "flex_olmo": [{}, dict(SMALL, num_experts=4, num_experts_per_tok=2, num_key_value_heads=8)],
    "sarvam_mla": [{}, dict(hidden_size=256, num_hidden_layers=3, num_attention_heads=4, intermediate_size=512,
                            moe_intermediate_size=128, n_routed_experts=8, num_experts_per_tok=2,
                            n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=96, kv_lora_rank=64,
                            qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32, vocab_size=1000, pad_token_id=0,
                            n_group=1, topk_group=1)],
    "sarvam_moe": [{}, dict(SMALL, moe_intermediate_size=128, n_routed_experts=8, num_experts_per_tok=2,
                            n_shared_experts=1, first_k_dense_replace=1, use_qk_norm=False, head_dim=32,
                            n_group=1, topk_group=1)],
    "glm_moe_dsa": [{}, dict(hidden_size=256, num_hidden_layers=3, num_attention_heads=4, intermediate_size=512,
                             moe_intermediate_size=128, n_routed_experts=8, num_experts_per_tok=2,
                             n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=96, kv_lora_rank=64,
                             qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32, vocab_size=1000, pad_token_id=0,
                             index_n_heads=4, index_head_dim=32, n_group=1, topk_group=1, num_key_value_heads=4),
                    # every other layer reuses the previous indexer's top-k ("shared": no indexer)
                    dict(hidden_size=192, num_hidden_layers=5, num_attention_heads=6, intermediate_size=384,
                         moe_intermediate_size=64, n_routed_experts=4, num_experts_per_tok=2,
                         n_shared_experts=2, first_k_dense_replace=2, q_lora_rank=64, kv_lora_rank=48,
                         qk_nope_head_dim=16, qk_rope_head_dim=16, v_head_dim=24, vocab_size=1000, pad_token_id=0,
                         index_n_heads=3, index_head_dim=48, n_group=1, topk_group=1, num_key_value_heads=6,
                         index_topk_freq=2, index_skip_topk_offset=1)],
    # DeepSeek-V3's layers (MLA, MoE with shared experts), no router bias buffer
    "mistral4": [{}, dict(hidden_size=256, num_hidden_layers=3, num_attention_heads=4, intermediate_size=512,
                          moe_intermediate_size=128, n_routed_experts=8, num_experts_per_tok=2,
                          n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=96, kv_lora_rank=64,
                          qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32, vocab_size=1000,
                          pad_token_id=0, bos_token_id=1, eos_token_id=2, num_key_value_heads=4)],
    # Mistral Small 4 ships as a mistral3 wrapper over a mistral4 text model and a pixtral tower
    "mistral3": [dict(text_config=dict(model_type="mistral4", hidden_size=256, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=4, intermediate_size=512,
                                       moe_intermediate_size=64, n_routed_experts=4, num_experts_per_tok=2,
                                       n_shared_experts=1, q_lora_rank=64, kv_lora_rank=32,
                                       qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32,
                                       vocab_size=1000, pad_token_id=0, bos_token_id=1, eos_token_id=2),
                      vision_config=dict(model_type="pixtral", hidden_size=64, intermediate_size=128,
                                         num_hidden_layers=2, num_attention_heads=4, head_dim=16,
                                         image_size=224, patch_size=16),
                      image_token_index=10),
                 # hand-written: a partial vision_config takes PixtralVisionConfig's class defaults (patch 16 of 1024 px,
                 # not Mistral3Config's 14 of 1540), here in 3 channels over a small Mistral
                 dict(_raw=True, model_type="mistral3",
                      text_config=dict(model_type="mistral", vocab_size=1000, hidden_size=64, intermediate_size=96,
                                       num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
                      vision_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                         num_attention_heads=4))],
    # GLM-4.1V / 4.5V / 4.6V: GLM vision tower and merger over a GLM-4 or GLM-4.5 decoder
    "glm4v": [{}, dict(vision_config=dict(depth=3, hidden_size=80, num_heads=5, intermediate_size=72,
                                          out_hidden_size=56, patch_size=8, image_size=96, spatial_merge_size=3,
                                          temporal_patch_size=3, attention_bias=True),
                       text_config=dict(vocab_size=1000, hidden_size=56, intermediate_size=120,
                                        num_hidden_layers=3, num_attention_heads=7, num_key_value_heads=1,
                                        tie_word_embeddings=True)),
              # head_dim is ignored by Glm4vTextAttention (hidden / heads); saved as a diff
              dict(_diff=True, vision_config=GLM_SMALL_VIS,
                   text_config=dict(vocab_size=512, hidden_size=64, intermediate_size=200, num_hidden_layers=2,
                                    num_attention_heads=4, num_key_value_heads=2, head_dim=32)),
              # hand-written: sub-configs without model_type, every other key the class default's
              dict(_raw=True, text_config=dict(num_hidden_layers=2, vocab_size=4096),
                   vision_config=dict(depth=1))],
    "glm4v_moe": [{}, dict(vision_config=dict(GLM_SMALL_VIS, intermediate_size=80),
                           text_config=dict(vocab_size=300, hidden_size=64, intermediate_size=160,
                                            num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                                            head_dim=24, moe_intermediate_size=32, n_routed_experts=6,
                                            n_shared_experts=2, num_experts_per_tok=2, first_k_dense_replace=2,
                                            attention_bias=False))],
    "glm46v": [{}, dict(vision_config=dict(model_type="glm4v_moe_vision", **GLM_SMALL_VIS),
                        text_config=dict(model_type="glm4v_moe_text", vocab_size=400, hidden_size=48,
                                         intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                                         num_key_value_heads=4, moe_intermediate_size=16, n_routed_experts=4,
                                         n_shared_experts=1, num_experts_per_tok=2, tie_word_embeddings=True))],
    # Gemma 4: sliding and global layers with heads of their own, the last layers sharing keys and
    # values, per-layer embeddings, MoE beside the dense MLP. `_raw`: written as the Hub writes it
    # (global_head_dim, num_global_key_value_heads); otherwise as transformers saves it (per_layer_config).
    "gemma4_text": [{}] + [dict(c, _raw=raw) for c in GEMMA4_TEXT for raw in (True, False)],
    "gemma4": [{}, dict(text_config={}, vision_config={}, audio_config={}),
               dict(text_config=GEMMA4_TEXT[0], vision_config=GEMMA4_VIS, audio_config=GEMMA4_AUDIO),
               dict(text_config=GEMMA4_TEXT[1], vision_config=GEMMA4_VIS, tie_word_embeddings=False),
               # the text config's own tie flag does not count in the wrapper
               dict(text_config=dict(GEMMA4_TEXT[4], tie_word_embeddings=False)),
               dict(_raw=True, text_config=dict(num_hidden_layers=6, vocab_size=1024, hidden_size=128,
                                                intermediate_size=256, vocab_size_per_layer_input=1024,
                                                hidden_size_per_layer_input=8),
                    vision_config=dict(num_hidden_layers=1, hidden_size=96, intermediate_size=128,
                                       num_attention_heads=4, num_key_value_heads=4, head_dim=24))],
    # dots.llm1: Qwen3's attention (q/k head norms) over DeepSeek-V3's MoE (shared experts, dense first
    # layers); the class has no expert count, so its default is measured with dots.llm1's MoE keys
    "dots1": [dict(n_routed_experts=128, n_shared_experts=2, num_experts_per_tok=6, first_k_dense_replace=1),
              dict(vocab_size=100, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                   num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, n_routed_experts=4,
                   n_shared_experts=1, num_experts_per_tok=2, first_k_dense_replace=1, pad_token_id=0),
              dict(vocab_size=100, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                   num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4, n_routed_experts=5,
                   n_shared_experts=2, num_experts_per_tok=2, first_k_dense_replace=0, attention_bias=True,
                   tie_word_embeddings=True, head_dim=8, pad_token_id=0)],
    # Bamba: GraniteMoeHybrid's Mamba-2 and attention layers without experts, attention at
    # `attn_layer_indices`, a dense MLP of `intermediate_size` in every layer
    "bamba": [{}, dict(attn_layer_indices=[9, 18, 27]),
              dict(BAMBA_SMALL, num_hidden_layers=4, num_key_value_heads=2, attn_layer_indices=[1, 3],
                   mamba_n_heads=8, mamba_d_state=16, mamba_n_groups=1, mamba_d_conv=4, mamba_expand=2),
              dict(BAMBA_SMALL, num_hidden_layers=3, num_key_value_heads=1, attn_layer_indices=[0],
                   mamba_n_heads=4, mamba_d_state=8, mamba_n_groups=2, mamba_d_conv=3, mamba_expand=1,
                   mamba_conv_bias=False, mamba_proj_bias=True, attention_bias=True, mlp_bias=True,
                   tie_word_embeddings=True)],
    # --- families added in the second 2026-11-27 session (triaged in transformers 5.24) ---
    # GLM-4.7-Flash: DeepSeek-V3's MLA layers over GLM-4.5's MoE; dense layers from `mlp_layer_types`
    "glm4_moe_lite": [{}, dict(SMALL_MOE, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=16,
                               v_head_dim=12, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2),
                      dict(SMALL_MOE, num_hidden_layers=4, n_routed_experts=6, n_shared_experts=2,
                           num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8,
                           qk_nope_head_dim=16, v_head_dim=12, attention_bias=True, tie_word_embeddings=True),
                      dict(SMALL_MOE, num_hidden_layers=4, num_attention_heads=2, num_key_value_heads=2,
                           n_routed_experts=4, n_shared_experts=0, num_experts_per_tok=2, kv_lora_rank=16,
                           q_lora_rank=20, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=8,
                           mlp_layer_types=["sparse", "dense", "sparse", "dense"], attention_bias=True)],
    # LFM2-MoE: LFM2's conv and attention layers, dense MLPs on the first `num_dense_layers`, experts after
    "lfm2_moe": [dict(layer_types=LFM2_8B_TYPES, num_hidden_layers=24),
                 dict(SMALL_MOE, num_hidden_layers=4, num_experts=4, num_experts_per_tok=2, num_dense_layers=1,
                      layer_types=["conv", FA, "conv", FA]),
                 dict(SMALL_MOE, num_key_value_heads=1, num_experts=3, num_experts_per_tok=1, num_dense_layers=2,
                      conv_bias=True, conv_L_cache=4, tie_word_embeddings=False, head_dim=24,
                      layer_types=[FA, "conv", "conv"]),
                 dict(SMALL_MOE, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      moe_intermediate_size=16, num_experts=5, num_experts_per_tok=2, num_dense_layers=0,
                      layer_types=["conv", FA])],
    # K-EXAONE: EXAONE-4's sliding / NoPE-global attention (q/k head norms) over DeepSeek-V3's MoE
    "exaone_moe": [{}, dict(SMALL_MOE, num_hidden_layers=4, num_experts=4, num_experts_per_tok=2,
                            num_shared_experts=1, first_k_dense_replace=1, sliding_window=8),
                   dict(SMALL_MOE, num_hidden_layers=4, num_key_value_heads=1, num_experts=6, num_experts_per_tok=2,
                        num_shared_experts=2, first_k_dense_replace=2, head_dim=32, tie_word_embeddings=True,
                        sliding_window=8, sliding_window_pattern=2),
                   dict(SMALL_MOE, intermediate_size=80, moe_intermediate_size=16, num_attention_heads=2,
                        num_key_value_heads=2, num_experts=4, num_experts_per_tok=2, num_shared_experts=0,
                        mlp_layer_types=["sparse", "dense", "sparse"], sliding_window=8,
                        layer_types=[SW, FA, FA])],
    # Nemotron(-4, Minitron): Llama's attention, relu² up/down MLP, LayerNorms with weight and bias
    "nemotron": [dict(num_key_value_heads=8),
                 dict(BAMBA_SMALL, num_hidden_layers=2, num_key_value_heads=2),
                 dict(BAMBA_SMALL, num_hidden_layers=3, num_key_value_heads=4, head_dim=24, attention_bias=True,
                      mlp_bias=True, tie_word_embeddings=True)],
    # HunYuan 3 (HY-V3): Qwen3's attention over DeepSeek-style MoE, dense layers from `mlp_layer_types`;
    # num_shared_experts = 0 still builds a shared MLP of intermediate_size (`HYV3MLP`: `size or config's`)
    "hy_v3": [{}, dict(BAMBA_SMALL, moe_intermediate_size=32, num_hidden_layers=3, num_key_value_heads=2,
                       head_dim=16, num_experts=4, num_experts_per_tok=2, num_shared_experts=1),
              dict(BAMBA_SMALL, moe_intermediate_size=32, num_hidden_layers=3, num_key_value_heads=1, head_dim=24,
                   num_experts=3, num_experts_per_tok=1, num_shared_experts=2, attention_bias=True,
                   tie_word_embeddings=True),
              dict(BAMBA_SMALL, intermediate_size=80, moe_intermediate_size=16, num_hidden_layers=3,
                   num_key_value_heads=4, head_dim=16, num_experts=2, num_experts_per_tok=1, num_shared_experts=0,
                   mlp_layer_types=["sparse", "dense", "sparse"])],
    # Cohere2-MoE: Cohere-2's parallel block and sliding pattern over Mixtral-style experts as wide as
    # intermediate_size, a dense prefix of prefix_dense_intermediate_size
    "cohere2_moe": [{}, dict(BAMBA_SMALL, intermediate_size=32, num_hidden_layers=4, num_key_value_heads=2,
                             head_dim=16, num_experts=4, num_experts_per_tok=2, sliding_window=8),
                    dict(BAMBA_SMALL, intermediate_size=32, num_hidden_layers=5, num_key_value_heads=1, head_dim=24,
                         num_experts=3, num_experts_per_tok=1, num_shared_experts=2, first_k_dense_replace=2,
                         prefix_dense_intermediate_size=72, attention_bias=True, tie_word_embeddings=False,
                         rms_norm_eps=1e-6, sliding_window=8),
                    dict(BAMBA_SMALL, intermediate_size=32, num_hidden_layers=3, num_key_value_heads=4, head_dim=16,
                         num_experts=2, num_experts_per_tok=1, num_shared_experts=1, sliding_window=8,
                         mlp_layer_types=["sparse", "dense", "sparse"])],
    # OLMo-Hybrid: OLMo-3's attention layers and Gated DeltaNet layers (Qwen3-Next's, projections unfused)
    "olmo_hybrid": [{}, dict(BAMBA_SMALL, num_hidden_layers=4, intermediate_size=96),
                    dict(BAMBA_SMALL, num_hidden_layers=5, intermediate_size=96, num_key_value_heads=2,
                         attention_bias=True, tie_word_embeddings=True, linear_num_key_heads=2,
                         linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=12,
                         linear_conv_kernel_dim=3),
                    dict(BAMBA_SMALL, num_hidden_layers=3, intermediate_size=96, head_dim=8,
                         layer_types=[FA, "linear_attention", FA])],
    # AFMoE (Arcee Trinity): Qwen3's attention with a sigmoid output gate, four norms per layer, dense
    # first `num_dense_layers`, experts with a learned `expert_bias` parameter and ungated shared experts
    "afmoe": [{}, dict(BAMBA_SMALL, moe_intermediate_size=32, num_hidden_layers=4, num_key_value_heads=2,
                       head_dim=16, num_experts=4, num_experts_per_tok=2, num_shared_experts=1, sliding_window=8),
              dict(BAMBA_SMALL, moe_intermediate_size=32, num_hidden_layers=4, num_key_value_heads=4, head_dim=8,
                   num_experts=3, num_experts_per_tok=1, num_shared_experts=0, num_dense_layers=2,
                   attention_bias=True, tie_word_embeddings=True, sliding_window=8)],
    # Kolibri-1: Qwen3's attention, four norms per layer, every 5th layer global, every layer MoE with an
    # ungated shared MLP of `shared_expert_intermediate_size`
    "kolibri1": [{}, dict(BAMBA_SMALL, moe_intermediate_size=32, num_hidden_layers=5, num_key_value_heads=2,
                          head_dim=16, num_experts=4, num_experts_per_tok=2, shared_expert_intermediate_size=48,
                          sliding_window=8),
                 dict(BAMBA_SMALL, moe_intermediate_size=16, num_hidden_layers=3, num_key_value_heads=1,
                      head_dim=24, num_experts=3, num_experts_per_tok=1, shared_expert_intermediate_size=24,
                      tie_word_embeddings=True, sliding_window=8, layer_types=[FA, SW, FA])],
}
# Gemma 3n: Gemma 4's KV sharing and per-layer embeddings, plus AltUp's extra residual streams and the
# LAuReL low-rank residual in every layer; the wrapper's timm MobileNet-V5 tower and conformer audio tower.
GEMMA3N_TEXT = [
    dict(vocab_size=1000, vocab_size_per_layer_input=500, hidden_size=64, hidden_size_per_layer_input=8,
         intermediate_size=128, num_hidden_layers=10, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
         num_kv_shared_layers=4, laurel_rank=8, altup_num_inputs=4, sliding_window=16),
    dict(vocab_size=777, hidden_size=96, intermediate_size=[200] * 6, num_hidden_layers=6, num_attention_heads=6,
         num_key_value_heads=3, head_dim=24, tie_word_embeddings=False, attention_bias=True,
         hidden_size_per_layer_input=16, vocab_size_per_layer_input=300, layer_types=[SW, FA, SW, SW, FA, FA],
         num_kv_shared_layers=2, altup_num_inputs=2, laurel_rank=4),
    dict(vocab_size=512, hidden_size=48, intermediate_size=64, num_hidden_layers=4, num_attention_heads=3,
         num_key_value_heads=1, head_dim=16, num_kv_shared_layers=0, altup_num_inputs=3, laurel_rank=16,
         hidden_size_per_layer_input=4, vocab_size_per_layer_input=100, layer_types=[SW, FA, SW, FA]),
]
VARIANTS["gemma3n_text"] = [{}] + GEMMA3N_TEXT + [
    # hand-written: the class derives layer_types (every 5th global), AltUp's 4 streams and rank 64
    dict(_raw=True, num_hidden_layers=12, hidden_size=128, num_attention_heads=4, num_key_value_heads=2,
         head_dim=32, intermediate_size=[256] * 12, vocab_size=2048, vocab_size_per_layer_input=1024,
         hidden_size_per_layer_input=8, num_kv_shared_layers=5),
    # one AltUp stream and no per-layer inputs: the layer still builds post_per_layer_input_norm
    dict(vocab_size=500, hidden_size=96, num_hidden_layers=7, num_attention_heads=3, num_key_value_heads=1,
         head_dim=32, intermediate_size=[200] * 7, altup_num_inputs=1, laurel_rank=5, hidden_size_per_layer_input=0,
         num_kv_shared_layers=2, sliding_window=33)]
SMALL_AUDIO = dict(hidden_size=64, conf_num_attention_heads=4, conf_num_hidden_layers=2, conf_conv_kernel_size=3,
                   input_feat_size=32, sscp_conv_channel_size=[16, 8])
VARIANTS["gemma3n"] = [
    {},
    dict(text_config=GEMMA3N_TEXT[0], audio_config=SMALL_AUDIO,
         vision_config=dict(architecture="mobilenetv5_base")),
    # heads that do not divide the audio width (floored), uneven kernels and strides
    dict(text_config=GEMMA3N_TEXT[1], tie_word_embeddings=False,
         audio_config=dict(hidden_size=48, conf_num_attention_heads=5, conf_num_hidden_layers=1, input_feat_size=20,
                           sscp_conv_kernel_size=[[3, 5], [3, 3]], sscp_conv_stride_size=[[2, 3], [2, 2]],
                           sscp_conv_channel_size=[8, 4], vocab_size=64),
         vision_config=dict(vocab_size=32, hidden_size=256)),
    # the text config's own tie flag does not count in the wrapper
    dict(text_config=dict(GEMMA3N_TEXT[2], tie_word_embeddings=False), audio_config=SMALL_AUDIO),
    dict(_raw=True, text_config=dict(num_hidden_layers=6, vocab_size=1024, hidden_size=128, intermediate_size=256,
                                     vocab_size_per_layer_input=1024, hidden_size_per_layer_input=8,
                                     num_kv_shared_layers=1),
         audio_config=dict(conf_num_hidden_layers=1), vision_config=dict(architecture="mobilenetv5_base")),
]
# MiMo-V2-Flash: GLM-4.5's experts without shared ones, keys `head_dim` wide and values `v_head_dim`, sliding
# layers with twice the KV heads and a learned sink per query head
MIMO_SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                  num_attention_heads=8, num_key_value_heads=2, head_dim=16, n_routed_experts=4,
                  num_experts_per_tok=2, pad_token_id=0)
VARIANTS["mimo_v2_flash"] = [
    {},
    dict(MIMO_SMALL, num_hidden_layers=7, v_head_dim=8, sliding_window=16),
    dict(MIMO_SMALL, num_hidden_layers=4, v_head_dim=16, attention_bias=True, tie_word_embeddings=True,
         layer_types=[FA, SW, SW, FA], mlp_layer_types=["dense", "dense", "sparse", "sparse"]),
    dict(MIMO_SMALL, num_hidden_layers=3, v_head_dim=24, layer_types=[FA] * 3),
    # hand-written: SGLang's `sliding_window_size` (one less than the window), the default patterns
    dict(MIMO_SMALL, _raw=True, num_hidden_layers=12, v_head_dim=12, sliding_window_size=63),
]
# Kimi-Linear: DeepSeek-V3's MLA on the full-attention layers, Kimi Delta Attention on the rest, DeepSeek-V3's
# experts (`num_experts`, `num_experts_per_token`); its head never tied
KIMI_SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                  num_attention_heads=4, kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8, qk_nope_head_dim=16,
                  v_head_dim=12, num_experts=4, num_experts_per_token=2, n_shared_experts=1, linear_head_dim=16,
                  linear_num_heads=4, linear_conv_kernel_dim=3, pad_token_id=0)
VARIANTS["kimi_linear"] = [
    {},
    dict(KIMI_SMALL, num_hidden_layers=5),
    dict(KIMI_SMALL, num_hidden_layers=4, q_lora_rank=24, attention_bias=True, tie_word_embeddings=True,
         n_shared_experts=2, layer_types=[FA, "linear_attention", FA, "linear_attention"],
         mlp_layer_types=["dense", "sparse", "dense", "sparse"]),
    # hand-written as the checkpoint writes it: `linear_attn_config` with 1-based layer lists
    dict(KIMI_SMALL, _raw=True, num_hidden_layers=6, first_k_dense_replace=2,
         linear_attn_config=dict(head_dim=8, num_heads=2, short_conv_kernel_size=4, full_attn_layers=[2, 6],
                                 kda_layers=[1, 3, 4, 5])),
]
# Laguna: Qwen3-MoE's attention with an output gate per head (or per channel), a head count per layer, a router
# bias learned as a parameter and an ungated shared MLP
LAGUNA_SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                    shared_expert_intermediate_size=24, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                    num_experts=4, num_experts_per_tok=2, pad_token_id=0)
VARIANTS["laguna"] = [
    {},
    dict(LAGUNA_SMALL, num_hidden_layers=4),
    dict(LAGUNA_SMALL, num_hidden_layers=5, gating="per-element", attention_bias=True, tie_word_embeddings=True,
         num_attention_heads_per_layer=[4, 6, 8, 4, 2], layer_types=[FA, SW, SW, FA, SW], sliding_window=16,
         mlp_layer_types=["dense", "sparse", "dense", "sparse", "sparse"]),
    dict(LAGUNA_SMALL, num_hidden_layers=3, gating=False, num_attention_heads_per_layer=[2, 4, 4]),
    dict(LAGUNA_SMALL, num_hidden_layers=4, attention_bias=True, num_attention_heads_per_layer=[8, 2, 2, 4]),
    # hand-written: the class's defaults for what it leaves out
    dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
         num_key_value_heads=2, head_dim=16, num_experts=4, num_experts_per_tok=2, _raw=True),
]
# LFM3: LFM2's conv and attention layers, sliding attention layers, sandwich norms, a gate per attention head
LFM3_SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_attention_heads=4, num_key_value_heads=2,
                  head_dim=16, pad_token_id=0, bos_token_id=1, eos_token_id=2)
VARIANTS["lfm3"] = [
    {},
    dict(LFM3_SMALL, num_hidden_layers=9),
    dict(LFM3_SMALL, num_hidden_layers=6, use_sandwich_norm=False, use_attention_gate=False, conv_bias=True,
         attention_bias=True, tie_word_embeddings=False, conv_L_cache=3,
         layer_types=["conv", FA, SW, "conv", SW, FA], sliding_window=8),
    dict(LFM3_SMALL, num_hidden_layers=5, sliding_window=None),
    dict(LFM3_SMALL, num_hidden_layers=7, _raw=True, conv_L_cache=5),
]
# Apertus 1.5's language model: Apertus with a head of `output_vocab_size` rows
APERTUS_SMALL = dict(vocab_size=300, hidden_size=64, intermediate_size=96, num_hidden_layers=3,
                     num_attention_heads=4, num_key_value_heads=2, pad_token_id=0, bos_token_id=1, eos_token_id=2)
VARIANTS["apertus1p5_text"] = [
    {},
    dict(APERTUS_SMALL, output_vocab_size=200),
    dict(APERTUS_SMALL, output_vocab_size=200, tie_word_embeddings=True, attention_bias=True),
    dict(APERTUS_SMALL, output_vocab_size=300, tie_word_embeddings=True),
    dict(APERTUS_SMALL, tie_word_embeddings=False, head_dim=24),
]
# BitNet b1.58: Llama's layers with an RMSNorm before o_proj and one before down_proj
BITNET_SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=3,
                    num_attention_heads=4, num_key_value_heads=2, pad_token_id=0, bos_token_id=1, eos_token_id=2)
VARIANTS["bitnet"] = [
    {},
    dict(BITNET_SMALL),
    dict(BITNET_SMALL, attention_bias=True, tie_word_embeddings=True, num_key_value_heads=4),
    dict(BITNET_SMALL, head_dim=24, intermediate_size=40, _raw=True),
]
# JetMoE: a mixture of attention heads (q and o experts over one shared kv_proj) and Mixtral-style experts
JETMOE_SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_key_value_heads=2,
                    kv_channels=16, num_local_experts=4, num_experts_per_tok=2, pad_token_id=0, bos_token_id=1,
                    eos_token_id=2)
VARIANTS["jetmoe"] = [
    {},
    dict(JETMOE_SMALL),
    dict(JETMOE_SMALL, num_local_experts=6, num_experts_per_tok=1, tie_word_embeddings=False, kv_channels=8),
    dict(JETMOE_SMALL, num_key_value_heads=4, num_local_experts=3, num_experts_per_tok=3),
    dict(JETMOE_SMALL, num_hidden_layers=2, _raw=True),
]
# GPT-J: Phi's parallel block without attention biases; MPT and DBRX: sizes under their own names and nested
# attention / feed-forward configs
VARIANTS["gptj"] = [
    {},
    dict(vocab_size=300, n_embd=64, n_layer=3, n_head=4, rotary_dim=8, n_inner=100),
    dict(vocab_size=300, n_embd=64, n_layer=2, n_head=8, rotary_dim=4, tie_word_embeddings=True),
]
VARIANTS["mpt"] = [
    {},
    dict(vocab_size=300, d_model=64, n_layers=3, n_heads=4, expansion_ratio=2, max_seq_len=128),
    dict(vocab_size=300, d_model=96, n_layers=2, n_heads=6, no_bias=False, tie_word_embeddings=False,
         attn_config=dict(alibi=False, qk_ln=True)),
]
VARIANTS["dbrx"] = [
    dict(vocab_size=300, d_model=64, n_layers=3, n_heads=4, max_seq_len=128),
    dict(vocab_size=300, d_model=64, n_layers=2, n_heads=8, attn_config=dict(kv_n_heads=2, clip_qkv=8),
         ffn_config=dict(ffn_hidden_size=48, moe_num_experts=6, moe_top_k=2)),
    dict(vocab_size=500, d_model=96, n_layers=2, n_heads=4, attn_config=dict(kv_n_heads=4),
         ffn_config=dict(ffn_hidden_size=80, moe_num_experts=3, moe_top_k=3), _raw=True),
]
# Zamba2: Mamba-2 in every layer, shared transformer blocks with per-position adapters on the hybrid layers (tied
# only when tie_word_embeddings is true, in transformers 5.24)
ZAMBA2_SMALL = dict(vocab_size=100, hidden_size=64, num_attention_heads=4, n_mamba_heads=4, mamba_d_state=8,
                    adapter_rank=8, pad_token_id=0, bos_token_id=1, eos_token_id=2)
MB, HY = "mamba", "hybrid"
VARIANTS["zamba2"] = [
    {},
    dict(ZAMBA2_SMALL, num_hidden_layers=5, layers_block_type=[MB, HY, MB, HY, HY]),
    dict(ZAMBA2_SMALL, num_hidden_layers=6, layers_block_type=[MB, HY, HY, MB, HY, HY], num_mem_blocks=2,
         use_shared_attention_adapter=True, intermediate_size=96, num_key_value_heads=2),
    dict(ZAMBA2_SMALL, num_hidden_layers=5, layers_block_type=[HY, MB, HY, HY, HY], num_mem_blocks=3,
         tie_word_embeddings=False, add_bias_linear=True, mamba_ngroups=2, mamba_expand=1),
    dict(ZAMBA2_SMALL, num_hidden_layers=4, layers_block_type=[MB, HY, MB, HY], num_mem_blocks=4,
         use_shared_attention_adapter=True, tie_word_embeddings=False),
]
# Zamba (v1): Mamba-1 in every layer, one shared attention + MLP block on the hybrid layers (copied per hybrid
# layer when tie_word_embeddings is false, in transformers 5.24)
ZAMBA_SMALL = dict(vocab_size=1000, hidden_size=64, intermediate_size=160, num_attention_heads=4, pad_token_id=0,
                   bos_token_id=1, eos_token_id=2)
VARIANTS["zamba"] = [
    {},
    dict(tie_word_embeddings=False),
    dict(ZAMBA_SMALL, num_hidden_layers=10, num_key_value_heads=2, n_mamba_heads=4, attn_layer_period=3,
         attn_layer_offset=1),
    dict(ZAMBA_SMALL, num_hidden_layers=10, num_key_value_heads=2, n_mamba_heads=4, attn_layer_period=3,
         attn_layer_offset=1, tie_word_embeddings=False),
    dict(vocab_size=777, hidden_size=48, intermediate_size=100, num_hidden_layers=7, num_attention_heads=6,
         num_key_value_heads=3, attention_head_dim=20, n_mamba_heads=1, mamba_expand=3, mamba_dt_rank=7,
         mamba_d_state=8, mamba_d_conv=3, mamba_conv_bias=False, mamba_proj_bias=True, attn_layer_period=2,
         attn_layer_offset=0, pad_token_id=0),
    dict(vocab_size=500, hidden_size=32, intermediate_size=64, num_hidden_layers=13, num_attention_heads=2,
         num_key_value_heads=2, n_mamba_heads=8, mamba_expand=4, attn_layer_period=4, attn_layer_offset=3,
         tie_word_embeddings=False, mamba_proj_bias=True, pad_token_id=0),
    dict(vocab_size=300, hidden_size=24, intermediate_size=50, num_hidden_layers=5, num_attention_heads=3,
         num_key_value_heads=1, n_mamba_heads=2, layers_block_type=[MB, HY, MB, HY, HY], pad_token_id=0),
    dict(vocab_size=300, hidden_size=24, intermediate_size=50, num_hidden_layers=4, num_attention_heads=3,
         num_key_value_heads=3, n_mamba_heads=3, layers_block_type=[MB] * 4, tie_word_embeddings=False,
         pad_token_id=0),
]
# HY-V4: GLM-MoE-DSA's MLA and indexer, an output gate and sinks, DeepSeek-V4-style hyper-connections
HYV4_SMALL = dict(vocab_size=300, hidden_size=64, intermediate_size=96, moe_intermediate_size=32, num_attention_heads=4,
                  q_lora_rank=48, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=24,
                  n_routed_experts=4, num_experts_per_tok=2, index_n_heads=2, index_head_dim=16, pad_token_id=0,
                  bos_token_id=1, eos_token_id=2)
VARIANTS["hy_v4"] = [
    {},
    dict(HYV4_SMALL, num_hidden_layers=6),
    dict(HYV4_SMALL, num_hidden_layers=5, hc_mult=2, n_shared_experts=2, tie_word_embeddings=True,
         mlp_layer_types=["dense", "dense", "sparse", "dense", "sparse"]),
    dict(HYV4_SMALL, num_hidden_layers=4, hc_mult=3, attention_bias=True, q_lora_rank=24,
         indexer_types=["full", "shared", "full", "full"]),
    dict(HYV4_SMALL, num_hidden_layers=9, hc_mult=1, n_shared_experts=0),
]
# DeepSeek-V4: a window of one K=V head on every layer, compressed entries on CSA / HCA layers, low-rank q and
# grouped low-rank o, hyper-connections; legacy keys (`compress_ratios`, `compress_rate_hca`) in a hand-written config
DSV4_SMALL = dict(vocab_size=1000, hidden_size=64, moe_intermediate_size=32, num_hidden_layers=4, num_attention_heads=4,
                  head_dim=32, q_lora_rank=48, n_routed_experts=8, num_experts_per_tok=2, o_groups=2, o_lora_rank=24,
                  index_n_heads=4, index_head_dim=16, index_topk=4, sliding_window=8)
CSA_, HCA_, SWA_ = "compressed_sparse_attention", "heavily_compressed_attention", "sliding_attention"
VARIANTS["deepseek_v4"] = [
    {},
    dict(DSV4_SMALL),
    dict(DSV4_SMALL, num_hidden_layers=5, hc_mult=3, tie_word_embeddings=True, n_shared_experts=3,
         num_key_value_heads=4, attention_bias=True),
    dict(DSV4_SMALL, num_hidden_layers=6, layer_types=[SWA_, CSA_, HCA_, SWA_, CSA_, CSA_],
         compress_rates={CSA_: 8, HCA_: 16}, mlp_bias=True, o_groups=4, hc_mult=2, mlp_layer_types=["moe"] * 6),
    dict(DSV4_SMALL, _raw=True, num_hidden_layers=3, hidden_size=96, head_dim=64, num_attention_heads=6, o_groups=3,
         o_lora_rank=40, q_lora_rank=80, index_n_heads=3, index_head_dim=24, n_routed_experts=5,
         moe_intermediate_size=40, vocab_size=777, compress_ratios=[0, 4, 128, 4], num_hash_layers=1,
         compress_rate_hca=32),
    dict(DSV4_SMALL, num_hidden_layers=7, hc_mult=1, index_n_heads=2, vocab_size=5003),
]
# nanochat (Karpathy's): Arcee's relu² MLP under RMSNorms without weights
VARIANTS["nanochat"] = [
    {},
    dict(tie_word_embeddings=True),
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
         num_key_value_heads=2),
    dict(vocab_size=1000, hidden_size=64, intermediate_size=80, num_hidden_layers=3, num_attention_heads=4,
         num_key_value_heads=1, attention_bias=True, tie_word_embeddings=True),
    dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
         num_key_value_heads=2, head_dim=24),
]
# LLaVA-NeXT-Video: LLaVA-NeXT with a frame pooler (parameters only as a strided conv)
CLIP_SMALL = dict(hidden_size=48, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                  image_size=56, patch_size=14, projection_dim=32)
LLAMA_SMALL = dict(model_type="llama", vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, pad_token_id=0)
VARIANTS["llava_next_video"] = [
    {},
    dict(vision_config=CLIP_SMALL, text_config=LLAMA_SMALL),
    dict(vision_config=CLIP_SMALL, text_config=LLAMA_SMALL, spatial_pool_mode="conv"),
    dict(vision_config=CLIP_SMALL, text_config=dict(LLAMA_SMALL, tie_word_embeddings=True)),
    dict(vision_config=CLIP_SMALL, text_config=LLAMA_SMALL, vision_feature_layer=[-2, -1],
         multimodal_projector_bias=False, spatial_pool_mode="max", spatial_pool_stride=3),
    dict(vision_config=CLIP_SMALL, text_config=dict(LLAMA_SMALL, model_type="mistral"), spatial_pool_mode="conv",
         spatial_pool_out_channels=48, spatial_pool_stride=4, tie_word_embeddings=True),
]
# EXAONE 4.5: Qwen2.5-VL's tower with grouped key-value heads over EXAONE 4
QVIS_SMALL = dict(depth=2, hidden_size=64, num_heads=4, num_key_value_heads=2, intermediate_size=96,
                  out_hidden_size=64, patch_size=14, spatial_merge_size=2, temporal_patch_size=2,
                  fullatt_block_indexes=[1], window_size=56)
EXA_SMALL = dict(model_type="exaone4", vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=4,
                 num_attention_heads=4, num_key_value_heads=2, sliding_window=16, pad_token_id=0)
VARIANTS["exaone4_5"] = [
    {},
    dict(vision_config=QVIS_SMALL, text_config=EXA_SMALL),
    dict(vision_config=dict(QVIS_SMALL, num_key_value_heads=4, patch_size=8, temporal_patch_size=1,
                            spatial_merge_size=3), text_config=EXA_SMALL, tie_word_embeddings=True),
    dict(vision_config=dict(QVIS_SMALL, num_key_value_heads=1),
         text_config=dict(EXA_SMALL, model_type="exaone4_5_text", head_dim=20, tie_word_embeddings=True)),
]
# GLM-OCR: GLM-4's decoder without attention biases and GLM-4V's tower with q/k norms, biases, its own MLP width
OCR_VIS = dict(depth=2, hidden_size=64, num_heads=4, intermediate_size=96, out_hidden_size=64, patch_size=14,
               spatial_merge_size=2, temporal_patch_size=2)
OCR_TEXT = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, pad_token_id=0)
VARIANTS["glm_ocr"] = [
    {},
    dict(vision_config=OCR_VIS, text_config=OCR_TEXT),
    dict(vision_config=dict(OCR_VIS, attention_bias=False, spatial_merge_size=3, temporal_patch_size=1, patch_size=8,
                            in_channels=1), text_config=dict(OCR_TEXT, tie_word_embeddings=True)),
    dict(vision_config=dict(OCR_VIS, num_heads=8), text_config=dict(OCR_TEXT, head_dim=24), tie_word_embeddings=True),
]
# LFM3-VL: LFM3 with a conv + attention tower and a two-layer projector
LFM3_VIS = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
                num_key_value_heads=2, patch_size=16, spatial_merge_size=2, temporal_patch_size=2)
LFM3_TEXT = dict(model_type="lfm3", vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=4,
                 num_attention_heads=4, num_key_value_heads=2, sliding_window=8, pad_token_id=0)
VARIANTS["lfm3_vl"] = [
    {},
    dict(vision_config=LFM3_VIS, text_config=LFM3_TEXT, projector_hidden_size=48),
    dict(vision_config=dict(LFM3_VIS, spatial_merge_size=3, temporal_patch_size=1, conv_kernel_size=5),
         text_config=dict(LFM3_TEXT, tie_word_embeddings=True), tie_word_embeddings=False, projector_bias=False,
         projector_hidden_size=32),
    dict(vision_config=dict(LFM3_VIS, num_hidden_layers=6), text_config=LFM3_TEXT, projector_hidden_size=40),
    dict(vision_config=dict(LFM3_VIS, layer_types=["full_attention"] * 4), text_config=LFM3_TEXT,
         projector_hidden_size=40),
]
RAW_2 = {
    # hand-written configs (`_raw`): the importer derives what the config class derives
    "glm4_moe_lite": [dict(SMALL_MOE, _raw=True, num_hidden_layers=4, n_routed_experts=4, num_experts_per_tok=2,
                           kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=12)],
    "exaone_moe": [dict(SMALL_MOE, _raw=True, num_hidden_layers=9, num_experts=4, num_experts_per_tok=2,
                        first_k_dense_replace=2, sliding_window=8, sliding_window_pattern=3)],
    "cohere2_moe": [dict(BAMBA_SMALL, _raw=True, num_hidden_layers=7, num_key_value_heads=2, head_dim=16,
                         num_experts=3, num_experts_per_tok=1, first_k_dense_replace=3,
                         prefix_dense_sliding_window_pattern=2, prefix_dense_intermediate_size=40, sliding_window=8)],
    "hy_v3": [dict(BAMBA_SMALL, _raw=True, moe_intermediate_size=16, num_hidden_layers=4, num_key_value_heads=2,
                   head_dim=16, num_experts=4, num_experts_per_tok=2)],
    "afmoe": [dict(BAMBA_SMALL, _raw=True, moe_intermediate_size=16, num_hidden_layers=7, head_dim=16,
                   num_experts=4, num_experts_per_tok=2, num_dense_layers=2, global_attn_every_n_layers=3,
                   sliding_window=8)],
    "kolibri1": [dict(BAMBA_SMALL, _raw=True, moe_intermediate_size=16, num_hidden_layers=11, num_key_value_heads=2,
                      head_dim=16, num_experts=4, num_experts_per_tok=2, shared_expert_intermediate_size=16)],
    "olmo_hybrid": [dict(BAMBA_SMALL, _raw=True, num_hidden_layers=6, num_key_value_heads=2),
                    dict(BAMBA_SMALL, _raw=True, num_hidden_layers=2, linear_num_key_heads=2)],
}
for t, extra in RAW_2.items():
    VARIANTS[t] = VARIANTS[t] + extra
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import variants_2026b  # noqa: E402  (the third session's families)
VARIANTS.update(variants_2026b.VARIANTS)
CLASSIFIERS = {"shieldgemma2"}
# encoder-decoders built as their generation class (AutoModelForCausalLM would build the decoder alone)
SEQ2SEQ = variants_2026b.SEQ2SEQ
class TextModelWithHead(torch.nn.Module):
    """A text config no CausalLM class maps (Step-3.5's `step3p5`): the text model its wrapper
    builds plus the wrapper's head, tied only by the config's own `tie_word_embeddings`."""

    def __init__(self, cls, cfg):
        super().__init__()
        self.model = cls(cfg)
        self.lm_head = torch.nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        if cfg.tie_word_embeddings:
            self.lm_head.weight = self.model.get_input_embeddings().weight

    def num_parameters(self):
        return sum(p.numel() for p in {id(p): p for p in self.parameters()}.values())


def _step3p5(cfg):
    from transformers.models.step3p7.modeling_step3p7 import Step3p7TextModel
    return TextModelWithHead(Step3p7TextModel, cfg)


def _by_class(name):
    """A model no Auto class of this script builds (the audio LMs): its class by name."""
    def build(cfg):
        return getattr(transformers, name)(cfg)
    return build


TEXT_MODELS = {"step3p5": _step3p5, "voxtral": _by_class("VoxtralForConditionalGeneration"),
               "qwen2_audio": _by_class("Qwen2AudioForConditionalGeneration"),
               "qwen3_asr": _by_class("Qwen3ASRForConditionalGeneration"),
               "glmasr": _by_class("GlmAsrForConditionalGeneration"),
               "granite_speech": _by_class("GraniteSpeechForConditionalGeneration"),
               "audioflamingo3": _by_class("AudioFlamingo3ForConditionalGeneration"),
               "musicflamingo": _by_class("MusicFlamingoForConditionalGeneration"),
               "voxtral_realtime": _by_class("VoxtralRealtimeForConditionalGeneration"),
               "whisper": _by_class("WhisperForConditionalGeneration")}
WRAPPERS = variants_2026b.WRAPPERS | {"lfm3_vl", "glm_ocr", "exaone4_5", "llava_next_video", "mistral4", "mistral3", "glm4v", "glm4v_moe", "glm46v", "gemma4", "gemma3n"}
here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.join(here, "..", "configs", "variants_2026")
os.makedirs(out_dir, exist_ok=True)
only = set(sys.argv[1:])
table = os.path.join(here, "hf_variants_2026.csv")
rows = {}
if os.path.exists(table):
    for r in csv.DictReader(open(table)):
        rows[r["config"]] = r
for t, variants in VARIANTS.items():
    if only and t not in only:
        continue
    for n, over in enumerate(variants):
        over = dict(over)
        diff = over.pop("_diff", False)
        raw = over.pop("_raw", False)
        cfg = CONFIG_MAPPING[t](**over)
        d = dict(over) if raw else json.loads(cfg.to_json_string(use_diff=diff))
        for k in ("transformers_version", "_name_or_path"):
            d.pop(k, None)
        d["model_type"] = t
        name = f"variants_2026/{t}__{n}.json"
        with open(os.path.join(out_dir, f"{t}__{n}.json"), "w") as f:
            json.dump(d, f, indent=1, sort_keys=True, allow_nan=True)
        if t == "dbrx" and not hasattr(cfg.attn_config, "rope_theta"):
            # DbrxAttention reads attn_config.rope_theta, which DbrxAttentionConfig (5.24) lacks; no parameter
            cfg.attn_config.rope_theta = 500000.0
        auto = AutoModelForImageTextToText if t in WRAPPERS else AutoModelForCausalLM
        if t in CLASSIFIERS:  # ShieldGemma 2 is an image classifier around Gemma 3's whole model
            auto = AutoModelForImageClassification
        if t in SEQ2SEQ:
            auto = AutoModelForSeq2SeqLM
        with torch.device("meta"):
            if t in TEXT_MODELS:
                model = TEXT_MODELS[t](cfg)
            else:
                model = auto.from_config(cfg)
        # what the config class derived: sliding layers (`layer_types`) and dense MLP layers
        # (`mlp_layer_types`) of a text model, blank where the class keeps no such list
        text = getattr(cfg, "text_config", None) or cfg
        lt, mlt = getattr(text, "layer_types", None), getattr(text, "mlp_layer_types", None)
        rows[name] = dict(config=name, hf_class=type(model).__name__, num_parameters=model.num_parameters(),
                          # a null `sliding_window` leaves the "sliding" layers unwindowed
                          sliding_layers="" if lt is None else 0 if getattr(text, "sliding_window", 0) is None
                          else sum(t in ("sliding_attention", "hybrid_sliding", "reference_sliding_attention") for t in lt),
                          dense_mlp_layers="" if mlt is None else sum(t == "dense" for t in mlt))
        print(name, rows[name]["num_parameters"], file=sys.stderr)
with open(table, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["config", "hf_class", "num_parameters", "sliding_layers", "dense_mlp_layers"])
    w.writeheader()
    for k in sorted(rows):
        w.writerow(rows[k])
print(f"torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
