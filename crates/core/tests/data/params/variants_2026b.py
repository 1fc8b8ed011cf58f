"""Variants of the families added in the 2026-11-27 (third) session, read by
measure_variants_2026.py: each family's class defaults ({}) and small configs
that flip the keys the importer reads. `_raw`: written as given (the importer
derives what the config class derives)."""

ID2_VIS = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, image_size=56,
               patch_size=14)
ID2_PERC = dict(resampler_n_latents=8, resampler_depth=2, resampler_n_heads=4, resampler_head_dim=16,
                num_key_value_heads=2)
MISTRAL_SMALL = dict(model_type="mistral", vocab_size=1000, hidden_size=64, intermediate_size=96,
                     num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, pad_token_id=0)

VARIANTS = {
    # Idefics2: SigLIP-shaped tower, SwiGLU projection and perceiver resampler over Mistral
    "idefics2": [
        {},
        dict(vision_config=ID2_VIS, perceiver_config=ID2_PERC, text_config=MISTRAL_SMALL),
        # the text config's own tie flag is not read
        dict(vision_config=ID2_VIS, perceiver_config=dict(ID2_PERC, resampler_depth=1),
             text_config=dict(MISTRAL_SMALL, tie_word_embeddings=True)),
        dict(vision_config=dict(ID2_VIS, patch_size=8, num_channels=1), perceiver_config=dict(
            ID2_PERC, num_key_value_heads=4, resampler_n_latents=5, resampler_head_dim=24),
            text_config=dict(MISTRAL_SMALL, model_type="llama", intermediate_size=80), tie_word_embeddings=True),
        # hand-written: only a text config; the tower and perceiver take their classes' defaults
        dict(_raw=True, text_config=dict(MISTRAL_SMALL, hidden_size=128, num_attention_heads=4)),
        # idefics2-8b's shape (its model card: SigLIP-so400m at 980 px in 14 px patches, Mistral-7B with
        # the two image tokens and <end_of_utterance> added), written here, not downloaded
        dict(vision_config=dict(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27,
                                num_attention_heads=16, image_size=980, patch_size=14),
             text_config=dict(model_type="mistral", vocab_size=32003, pad_token_id=0)),
    ],
}
SIGLIP_SMALL = dict(model_type="siglip_vision_model", hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                    num_attention_heads=4, image_size=64, patch_size=16)
COHERE2_SMALL = dict(model_type="cohere2", vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=4,
                     num_attention_heads=4, num_key_value_heads=2, sliding_window=8, pad_token_id=0)
# Command A Vision: Aya Vision's SigLIP, pixel shuffle and SwiGLU projector without its norm, over Cohere 2
VARIANTS["cohere2_vision"] = [
    {},
    dict(vision_config=SIGLIP_SMALL, text_config=COHERE2_SMALL, alignment_intermediate_size=48),
    # the text config's tie is not read; no pooling head; a shuffle of 4
    dict(vision_config=dict(SIGLIP_SMALL, vision_use_head=False), downsample_factor=4,
         text_config=dict(COHERE2_SMALL, tie_word_embeddings=False), alignment_intermediate_size=40),
    dict(vision_config=dict(SIGLIP_SMALL, num_channels=1, image_size=96), tie_word_embeddings=False,
         text_config=COHERE2_SMALL, alignment_intermediate_size=64),
]
DSV3_SMALL = dict(model_type="deepseek_v3", vocab_size=1000, hidden_size=64, intermediate_size=96,
                  moe_intermediate_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4,
                  kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16,
                  n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1,
                  n_group=1, topk_group=1, pad_token_id=0)
MOONVIT_SMALL = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                     pos_emb_height=8, pos_emb_width=8)
# Kimi K2.5: the MoonViT tower and a LayerNorm + two-linear projector over DeepSeek-V3 (kimi_k2 read as it)
VARIANTS["kimi_k25"] = [
    {},
    dict(text_config=DSV3_SMALL, vision_config=MOONVIT_SMALL, projection_hidden_size=64),
    # the text config's tie is not read; a position grid that is not square, 8 px patches
    dict(text_config=dict(DSV3_SMALL, tie_word_embeddings=True), tie_word_embeddings=False,
         vision_config=dict(MOONVIT_SMALL, pos_emb_height=6, pos_emb_width=10, patch_size=8)),
    dict(text_config=dict(DSV3_SMALL, model_type="kimi_k2"),
         vision_config=dict(MOONVIT_SMALL, merge_kernel_size=[2, 1], num_hidden_layers=3),
         projection_hidden_size=48),
]
WRAPPERS = {"idefics2", "cohere2_vision", "kimi_k25", "step3p7", "lfm2_vl", "glm5_next", "qwen4_exp", "apertus1p5",
            "glmga", "minimax_m3_vl", "hy_v4_vl", "mistral_large4", "aria", "cohere_compass", "paddleocr_vl",
            "cosmos3_edge", "ernie4_5_vl_moe", "qianfan_ocr",
            "vipllava", "video_llava", "lighton_ocr",
            "granite_docling", "hunyuan_vl", "minicpmv4_6", "minicpmv4_7", "gemma4_unified", "granite4_vision"}
# LongCat-Flash: blocks of two MLA sublayers, two dense MLPs and one shortcut MoE whose router
# also scores `zero_expert_num` identity experts (no parameters of their own)
LONGCAT_SMALL = dict(vocab_size=1000, hidden_size=64, num_layers=2, num_attention_heads=4, ffn_hidden_size=96,
                     expert_ffn_hidden_size=32, n_routed_experts=4, zero_expert_num=2, moe_topk=2, q_lora_rank=24,
                     kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16, pad_token_id=0)
VARIANTS["longcat_flash"] = [
    {},
    LONGCAT_SMALL,
    # no zero experts, a router bias, attention biases, a tied head, three blocks
    dict(LONGCAT_SMALL, zero_expert_num=0, router_bias=True, attention_bias=True, tie_word_embeddings=True,
         num_layers=3),
    # the config class's own names (attribute_map): intermediate_size, num_local_experts, moe_intermediate_size
    dict(vocab_size=1000, hidden_size=64, num_layers=2, num_attention_heads=4, intermediate_size=80,
         moe_intermediate_size=24, num_local_experts=6, zero_expert_num=3, num_experts_per_tok=2,
         q_lora_rank=16, kv_lora_rank=8, qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, pad_token_id=0),
]
# ZAYA: every layer CCA attention (q/k through a depthwise and a grouped causal convolution, the value
# half from the current and half from the previous token) and a top-1 MoE behind an MLP router
VARIANTS["zaya"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
         head_dim=16, num_experts=4, moe_intermediate_size=96, router_hidden_size=32, attention_bias=True,
         tie_word_embeddings=False, lm_head_bias=True),
    dict(vocab_size=1000, hidden_size=48, num_hidden_layers=4, num_attention_heads=6, num_key_value_heads=3,
         head_dim=10, num_experts=5, moe_intermediate_size=40, router_hidden_size=24, cca_time0=3, cca_time1=4,
         layer_types=["hybrid", "hybrid_sliding", "hybrid", "hybrid_sliding"], sliding_window=8,
         tie_word_embeddings=True),
    # one layer: no router_states_scale
    dict(vocab_size=777, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
         head_dim=24, num_experts=2, moe_intermediate_size=16, router_hidden_size=8, tie_word_embeddings=False),
    # a tied head with its own bias; heads x head_dim != hidden; kernels of 1 and 2
    dict(vocab_size=500, hidden_size=40, num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8,
         head_dim=8, num_experts=3, moe_intermediate_size=20, router_hidden_size=16, attention_bias=True,
         tie_word_embeddings=True, lm_head_bias=True, cca_time0=1, cca_time1=2),
    # an odd key-value width: the two value halves are floor(kv*d/2) wide
    dict(vocab_size=300, hidden_size=24, num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=1,
         head_dim=7, num_experts=2, moe_intermediate_size=12, router_hidden_size=8, attention_bias=True),
]
# Step-3.7-Flash: a CLIP-shaped tower with layer scales and two stride-2 downsamplers, a linear projector,
# and Step-3.5's GQA with an output gate over dense then MoE layers with a shared expert
VARIANTS["step3p7"] = [
    {},
    # sliding layers with heads of their own, biases everywhere, the wrapper's tie
    dict(tie_word_embeddings=True, projector_bias=True,
         text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=6,
                          num_attention_heads=8, num_key_value_heads=2, head_dim=16, n_routed_experts=4,
                          num_experts_per_tok=2, moe_intermediate_size=32, share_expert_dim=48,
                          layer_types=["sliding_attention", "full_attention"] * 3, sliding_window=8,
                          num_sliding_attention_heads=4, attention_bias=True, mlp_bias=True,
                          moe_layers_enum="1,2,4"),
         vision_config=dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, image_size=56)),
    # legacy names, two prediction layers' entries in the lists, a gate per element; the text
    # config's tie is not read
    dict(text_config=dict(vocab_size=500, hidden_size=48, intermediate_size=80, num_hidden_layers=4,
                          num_attention_heads=6, num_key_value_heads=3, head_dim=8, moe_num_experts=5, moe_top_k=2,
                          moe_intermediate_size=24, share_expert_dims=40, gating="per-element",
                          num_nextn_predict_layers=2,
                          layer_types=["full_attention", "sliding_attention", "sliding_attention", "full_attention",
                                       "full_attention", "full_attention"],
                          mlp_layer_types=["dense", "sparse", "dense", "sparse", "sparse", "sparse"],
                          attention_other_setting={"num_attention_heads": 3, "num_attention_groups": 3},
                          sliding_window=4, tie_word_embeddings=True),
         vision_config=dict(width=40, layers=1, heads=4, image_size=70, patch_size=7, mlp_ratio=2.5)),
    # num_local_experts is overwritten by n_routed_experts' default; the first three layers dense; one channel
    dict(text_config=dict(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=5,
                          num_attention_heads=4, num_key_value_heads=1, head_dim=24, num_local_experts=7,
                          moe_intermediate_size=16, share_expert_dim=20, num_attention_groups=2),
         vision_config=dict(hidden_size=24, num_hidden_layers=3, num_attention_heads=3, image_size=28,
                            patch_size=14, num_channels=1, intermediate_size=999)),
]
# hand-written, as the Hub's remote-code configs read: the legacy keys as given (moe_layers_enum,
# attention_other_setting, lists with the prediction layers' tail), the wrapper untied
VARIANTS["step3p7"].append(dict(
    _raw=True,
    text_config=dict(vocab_size=500, hidden_size=48, intermediate_size=80, num_hidden_layers=4, num_attention_heads=6,
                     num_attention_groups=3, head_dim=8, moe_num_experts=5, moe_top_k=2, moe_intermediate_size=24,
                     share_expert_dim=40, num_nextn_predict_layers=1, moe_layers_enum="2,3",
                     layer_types=["full_attention", "sliding_attention", "full_attention", "sliding_attention",
                                  "full_attention"],
                     attention_other_setting={"num_attention_heads": 3}, sliding_window=4),
    vision_config=dict(width=40, layers=1, heads=4, image_size=70, patch_size=7, mlp_ratio=2.5)))
# LFM2-VL: a SigLIP2 NaFlex tower (its pooling head built by default), a pixel-unshuffle projector, LFM2
LFM2_SMALL = dict(model_type="lfm2", vocab_size=1000, hidden_size=96, intermediate_size=256, num_hidden_layers=4,
                  num_attention_heads=4, num_key_value_heads=2,
                  layer_types=["conv", "full_attention", "conv", "full_attention"])
SIGLIP2_SMALL = dict(model_type="siglip2_vision_model", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, patch_size=8, num_patches=64, vision_use_head=False)
VARIANTS["lfm2_vl"] = [
    {},
    # no projector norm or biases, a shuffle of 3, untied
    dict(text_config=LFM2_SMALL, vision_config=SIGLIP2_SMALL, projector_use_layernorm=False, projector_bias=False,
         downsample_factor=3, projector_hidden_size=200, tie_word_embeddings=False),
    # the pooling head, one channel, no shuffle; the text config's tie is not read; vision_feature_layer ignored
    dict(text_config=dict(LFM2_SMALL, tie_word_embeddings=False),
         vision_config=dict(SIGLIP2_SMALL, hidden_size=48, intermediate_size=100, num_hidden_layers=3, num_channels=1,
                            patch_size=14, num_patches=144, vision_use_head=True),
         downsample_factor=1, projector_hidden_size=64, vision_feature_layer=-2, tie_word_embeddings=True),
    # the old tie flag's name
    dict(_raw=True, text_config=dict(LFM2_SMALL, hidden_size=128),
         vision_config=dict(SIGLIP2_SMALL, hidden_size=32, intermediate_size=80, num_hidden_layers=1,
                            num_attention_heads=2, patch_size=4, num_patches=100),
         downsample_factor=4, projector_hidden_size=50, tie_embedding=False),
]

# GLM-5.3-Flash: KDA layers and NoPE MLA with a pooled indexer, DeepSeek-V3's experts, mHC streams, GLM-OCR's tower
GLM5_TEXT = dict(vocab_size=1000, pad_token_id=0, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                 num_hidden_layers=9, num_attention_heads=4, num_key_value_heads=4, n_routed_experts=8,
                 num_experts_per_tok=2, n_shared_experts=2, kv_lora_rank=32, q_lora_rank=48, qk_nope_head_dim=16,
                 v_head_dim=24, index_topk=32, index_head_dim=16, index_n_heads=4, index_kpool=4, linear_head_dim=16,
                 linear_num_heads=4, linear_conv_kernel_dim=3, hc_mult=2)
GLM5_VISION = dict(depth=2, hidden_size=32, num_heads=4, intermediate_size=48, out_hidden_size=64,
                   projection_intermediate_size=80, patch_size=14, spatial_merge_size=2)
VARIANTS["glm5_next"] = [
    {},
    # biased attention; index_topk_freq 4 leaves both MLA layers (3, 7) "shared", without an indexer
    dict(text_config=dict(GLM5_TEXT, attention_bias=True, index_topk_freq=4), vision_config=GLM5_VISION),
    # the kwargs as a checkpoint writes them: layer and MLP lists, an F/S pattern, linear_attn_config; a
    # tower without biases, one temporal patch, a 3 x 3 merge of 4 channels; tied by the wrapper
    dict(_raw=True, text_config=dict(GLM5_TEXT, num_hidden_layers=6, num_attention_heads=2, num_key_value_heads=2,
                                     n_routed_experts=4, n_shared_experts=1, kv_lora_rank=16, q_lora_rank=24,
                                     qk_nope_head_dim=8, v_head_dim=8, index_topk=16, index_head_dim=8,
                                     index_n_heads=2, index_kpool=8, hc_mult=3,
                                     layer_types=["full_attention", "linear_attention", "indexed_attention",
                                                  "linear_attention", "linear_attention", "full_attention"],
                                     mlp_layer_types=["sparse", "dense", "sparse", "dense", "sparse", "sparse"],
                                     index_topk_pattern="FSFSFS",
                                     linear_attn_config=dict(head_dim=12, num_heads=3, short_conv_kernel_size=5)),
         vision_config=dict(depth=1, hidden_size=48, num_heads=3, intermediate_size=40, out_hidden_size=64,
                            projection_intermediate_size=72, attention_bias=False, temporal_patch_size=1,
                            patch_size=8, spatial_merge_size=3, in_channels=4),
         tie_word_embeddings=True),
    # a flat text-only checkpoint: the top level is the text config, the tower its defaults
    dict(_raw=True, vocab_size=2000, pad_token_id=0, hidden_size=32, intermediate_size=64, moe_intermediate_size=16,
         num_hidden_layers=4, num_attention_heads=2, num_key_value_heads=2, n_routed_experts=6,
         num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=16, qk_nope_head_dim=8, v_head_dim=16, index_topk=16,
         index_head_dim=8, index_n_heads=2, index_kpool=16, hc_mult=1, linear_head_dim=8, linear_num_heads=2),
    # all MLA, all dense, explicit indexer_types
    dict(text_config=dict(vocab_size=512, pad_token_id=0, hidden_size=48, intermediate_size=80, num_hidden_layers=3,
                          num_attention_heads=3, num_key_value_heads=3, kv_lora_rank=24, q_lora_rank=32,
                          qk_nope_head_dim=8, v_head_dim=8, index_topk=8, index_head_dim=8, index_n_heads=2,
                          index_kpool=2, hc_mult=4, layer_types=["indexed_attention"] * 3,
                          mlp_layer_types=["dense"] * 3, indexer_types=["full", "shared", "full"]),
         vision_config=dict(depth=1, hidden_size=16, num_heads=2, intermediate_size=16, out_hidden_size=48,
                            projection_intermediate_size=16)),
    # hand-written: the experts under their alias, a head_dim the class overwrites, first_k_dense_replace and
    # the text config's tie flag (neither read), the default layer pattern at 10 layers
    dict(_raw=True, text_config=dict({k: v for k, v in GLM5_TEXT.items()
                                      if k != "n_routed_experts"},
                                     num_hidden_layers=10, num_local_experts=5, head_dim=128,
                                     first_k_dense_replace=1, tie_word_embeddings=True),
         vision_config=GLM5_VISION),
]

# Qwen4-Exp: Qwen3.5-MoE's layers under low-rank hyper-connections (no norms), a QSA indexer on every attention
# layer, n-gram per-layer embeddings (prime-sized tables). The class defaults cannot build (the indexer's keys
# default to None), so the first config adds the five QSA keys to them.
QSA = dict(indexer_n_heads=16, indexer_kv_heads=1, indexer_head_dim=256, indexer_budget=2048, indexer_compress_ratio=4)
LIN = "linear_attention"
VARIANTS["qwen4_exp"] = [
    dict(text_config=dict(QSA)),
    # n-gram layers (listed out of order) with a small prime base, attention biases, tied by the wrapper
    dict(text_config=dict(vocab_size=1000, hidden_size=64, num_hidden_layers=6, num_attention_heads=4,
                          num_key_value_heads=2, head_dim=32, attention_bias=True, linear_num_key_heads=2,
                          linear_num_value_heads=4, linear_key_head_dim=16, linear_value_head_dim=24,
                          linear_conv_kernel_dim=3, moe_intermediate_size=32, shared_expert_intermediate_size=48,
                          num_experts=8, num_experts_per_tok=2, hc_count=3, hc_lowrank=16, tie_word_embeddings=True,
                          layer_types=[LIN, "full_attention", LIN, LIN, "indexed_attention", LIN],
                          ple_layer_ids=[6, 1, 3], ple_embed_dim=48, ple_conv_kernel_size=3, ngram_size=4,
                          heads_per_ngram=2, ngram_vocab_size_base=1000, make_ngram_vocab_size_divisible_by=64,
                          eos_token_id=[7, 8], indexer_n_heads=3, indexer_kv_heads=1, indexer_head_dim=40,
                          indexer_budget=8, indexer_compress_ratio=2),
         vision_config=dict(depth=2, hidden_size=32, intermediate_size=40, num_heads=4, patch_size=4,
                            spatial_merge_size=3, temporal_patch_size=1, out_hidden_size=64,
                            num_position_embeddings=49),
         tie_word_embeddings=True),
    # hand-written: attention every second layer by the interval kwarg, half-rotary heads, one channel
    dict(_raw=True, text_config=dict(vocab_size=500, hidden_size=96, num_hidden_layers=5, num_attention_heads=6,
                                     num_key_value_heads=3, head_dim=16, linear_num_key_heads=3,
                                     linear_num_value_heads=6, linear_key_head_dim=8, linear_value_head_dim=8,
                                     moe_intermediate_size=16, shared_expert_intermediate_size=8, num_experts=4,
                                     num_experts_per_tok=4, hc_count=2, hc_lowrank=7, full_attention_interval=2,
                                     rope_parameters=dict(rope_type="default", rope_theta=10000.0,
                                                          partial_rotary_factor=0.5),
                                     indexer_n_heads=2, indexer_kv_heads=1, indexer_head_dim=8, indexer_budget=4,
                                     indexer_compress_ratio=4),
         vision_config=dict(depth=1, hidden_size=48, intermediate_size=20, num_heads=2, in_channels=1, patch_size=2,
                            spatial_merge_size=1, temporal_patch_size=3, out_hidden_size=96,
                            num_position_embeddings=16)),
    # two n-gram layers at the default base of 2·10⁷: 32 primes from there
    dict(text_config=dict(vocab_size=300, hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                          num_key_value_heads=1, head_dim=16, linear_num_key_heads=1, linear_num_value_heads=2,
                          linear_key_head_dim=8, linear_value_head_dim=8, moe_intermediate_size=8,
                          shared_expert_intermediate_size=8, num_experts=3, num_experts_per_tok=1, hc_count=4,
                          hc_lowrank=5, ple_layer_ids=[2, 1], ple_embed_dim=32, eos_token_id=1, indexer_n_heads=1,
                          indexer_kv_heads=1, indexer_head_dim=16, indexer_budget=4, indexer_compress_ratio=2),
         vision_config=dict(depth=1, hidden_size=16, intermediate_size=16, num_heads=2, out_hidden_size=32)),
    # the text config's tie is not the wrapper's
    dict(text_config=dict(vocab_size=200, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                          num_key_value_heads=2, head_dim=8, linear_num_key_heads=1, linear_num_value_heads=1,
                          linear_key_head_dim=4, linear_value_head_dim=4, moe_intermediate_size=4,
                          shared_expert_intermediate_size=4, num_experts=2, num_experts_per_tok=1, hc_lowrank=3,
                          tie_word_embeddings=True, layer_types=["indexed_attention", LIN], indexer_n_heads=5,
                          indexer_kv_heads=1, indexer_head_dim=8, indexer_budget=6, indexer_compress_ratio=3),
         vision_config=dict(depth=1, hidden_size=8, intermediate_size=8, num_heads=1, out_hidden_size=16),
         tie_word_embeddings=False),
]
# its text model alone (Qwen4ExpForCausalLM): tied by the text config's own flag
VARIANTS["qwen4_exp_text"] = [
    dict(QSA, vocab_size=1000, hidden_size=64, num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=2,
         head_dim=32, linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=16,
         linear_value_head_dim=16, moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=4,
         num_experts_per_tok=2, hc_lowrank=8, indexer_head_dim=32, tie_word_embeddings=True,
         ple_layer_ids=[3], ple_embed_dim=64, eos_token_id=2),
]
# Apertus 1.5: the Apertus 1.5 text model, EMU3.5's VQGAN encoder with its IBQ codebook (a Linear) and WavTokenizer's
# encoder (its codebook is buffers); the wrapper's offsets must tile the vocabulary (image codes end where audio begins)
APERTUS_TEXT = dict(vocab_size=4096, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2)
APERTUS_VQ = dict(base_channels=64, channel_multiplier=[1, 2, 4], num_res_blocks=2, attn_resolutions=[64],
                  resolution=256, codebook_size=1024, embed_dim=32, latent_channels=64)
APERTUS_WAV = dict(num_filters=16, upsampling_ratios=[4, 2], num_residual_layers=2, compress=4, use_conv_shortcut=False,
                   num_lstm_layers=1, hidden_size=128, codebook_dim=128, codebook_size=512)
VARIANTS["apertus1p5"] = [
    {},
    # attention at 64 px of 256 (stage 2), no conv shortcut in the audio blocks
    dict(text_config=APERTUS_TEXT, vision_config=APERTUS_VQ, audio_config=APERTUS_WAV, image_token_id=10,
         audio_token_id=11, image_token_offset=1000, audio_token_offset=2024),
    # a pruned head (1000 rows), attention in two stages, one input channel, time group norm
    dict(text_config=dict(vocab_size=8192, hidden_size=128, intermediate_size=256, num_hidden_layers=1,
                          num_attention_heads=4, output_vocab_size=1000),
         vision_config=dict(base_channels=32, channel_multiplier=[1, 1, 2, 4], num_res_blocks=3,
                            attn_resolutions=[128, 32], resolution=256, codebook_size=2048, embed_dim=16,
                            latent_channels=96, in_channels=1),
         audio_config=dict(num_filters=8, upsampling_ratios=[5, 3, 2], num_residual_layers=1, compress=2,
                           norm_type="time_group_norm", kernel_size=5, last_kernel_size=3, residual_kernel_size=5,
                           num_lstm_layers=3, hidden_size=64, codebook_dim=64, codebook_size=1024),
         image_token_id=10, audio_token_id=11, image_token_offset=1000, audio_token_offset=3048),
    # no stage with attention (16 of 512 px is none of 512..32), only the middle's
    dict(text_config=dict(vocab_size=4096, hidden_size=64, intermediate_size=96, num_hidden_layers=3,
                          num_attention_heads=2),
         vision_config=dict(base_channels=32, channel_multiplier=[1, 2, 2, 4, 4], num_res_blocks=1,
                            attn_resolutions=[16], resolution=512, codebook_size=512, embed_dim=64, latent_channels=64),
         audio_config=dict(num_filters=32, upsampling_ratios=[8, 8], num_residual_layers=3, compress=2, hidden_size=256,
                           codebook_dim=256, codebook_size=256),
         image_token_id=10, audio_token_id=11, image_token_offset=500, audio_token_offset=1012),
    # tied by the wrapper: the head is the whole embedding, output_vocab_size aside
    dict(text_config=dict(APERTUS_TEXT, output_vocab_size=1000), vision_config=APERTUS_VQ, audio_config=APERTUS_WAV,
         image_token_offset=1000, audio_token_offset=2024, tie_word_embeddings=True),
    # hand-written: the text config without its type, its tie flag (not read) and a pruned head; a vision config
    # of two stages that both attend; an audio config naming its type
    dict(_raw=True, text_config=dict(vocab_size=3000, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                     num_attention_heads=4, output_vocab_size=500, tie_word_embeddings=True),
         vision_config=dict(base_channels=32, channel_multiplier=[2, 4], num_res_blocks=1, attn_resolutions=[256, 128],
                            codebook_size=1000, embed_dim=8, latent_channels=32),
         audio_config=dict(model_type="wavtokenizer_encoder", num_filters=4, upsampling_ratios=[3], num_residual_layers=2,
                           compress=4, hidden_size=16, codebook_dim=16, codebook_size=200),
         image_token_offset=1500, audio_token_offset=2500),
]
# A.X-K1: DeepSeek-V3's MLA and MoE with an RMSNorm after every MoE block; dense layers by mlp_layer_types,
# else by the legacy first_k_dense_replace / moe_layer_freq its __post_init__ reads
AXK1_SMALL = dict(vocab_size=1000, hidden_size=64, intermediate_size=128, moe_intermediate_size=32,
                  num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4, n_routed_experts=8,
                  num_experts_per_tok=2, n_group=2, topk_group=1, kv_lora_rank=32, q_lora_rank=48,
                  qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16)
VARIANTS["axk1"] = [
    {},
    AXK1_SMALL,
    dict(AXK1_SMALL, mlp_layer_types=["dense", "sparse", "dense", "sparse"], n_shared_experts=2,
         attention_bias=True, tie_word_embeddings=True),
    dict(AXK1_SMALL, num_hidden_layers=6, first_k_dense_replace=2, moe_layer_freq=2),
    dict(AXK1_SMALL, first_k_dense_replace=0, n_shared_experts=0, v_head_dim=24),
    # hand-written with the legacy keys (no mlp_layer_types): the importer derives the pattern
    dict(AXK1_SMALL, _raw=True, model_type="axk1", num_hidden_layers=7, first_k_dense_replace=3, moe_layer_freq=2),
]
# Aria's language model: Llama attention, every layer MoE with bias-free experts of intermediate_size and
# moe_num_shared_experts shared experts fused into one MLP (biased when mlp_bias)
ARIA_SMALL = dict(vocab_size=1000, hidden_size=64, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4,
                  num_key_value_heads=2, moe_num_experts=4, moe_topk=2)
VARIANTS["aria_text"] = [
    {},
    ARIA_SMALL,
    dict(ARIA_SMALL, attention_bias=True, mlp_bias=True, moe_num_shared_experts=3, tie_word_embeddings=True),
    dict(ARIA_SMALL, head_dim=24, moe_num_shared_experts=1, moe_num_experts=6, moe_topk=1),
    dict(ARIA_SMALL, mlp_bias=True, moe_num_shared_experts=0),
]
# Flint: Qwen2-MoE's layout (mlp_only_layers [0, 1] by default) with Qwen3's q/k norms, a sink per head on every
# layer, an ungated shared expert, and full attention on layers 0, 1, i % 4 == 1 and the last (the rest slide)
VARIANTS["flint"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
         num_key_value_heads=2, head_dim=24, moe_intermediate_size=32, shared_expert_intermediate_size=48,
         num_experts=8, num_experts_per_tok=2, attention_bias=True, tie_word_embeddings=False, sliding_window=8),
    dict(vocab_size=1000, hidden_size=48, intermediate_size=80, num_hidden_layers=6, num_attention_heads=6,
         num_key_value_heads=3, head_dim=10, moe_intermediate_size=16, shared_expert_intermediate_size=24,
         num_experts=5, num_experts_per_tok=2, mlp_only_layers=[], decoder_sparse_step=2, tie_word_embeddings=True,
         layer_types=["sliding_attention", "full_attention"] * 3, sliding_window=5),
    dict(vocab_size=777, hidden_size=32, intermediate_size=40, num_hidden_layers=3, num_attention_heads=2,
         num_key_value_heads=1, head_dim=16, moe_intermediate_size=8, shared_expert_intermediate_size=12,
         num_experts=3, num_experts_per_tok=1, mlp_only_layers=[1], tie_word_embeddings=True),
    dict(vocab_size=500, hidden_size=40, intermediate_size=64, num_hidden_layers=5, num_attention_heads=8,
         num_key_value_heads=8, head_dim=8, moe_intermediate_size=12, shared_expert_intermediate_size=20,
         num_experts=4, num_experts_per_tok=4, mlp_only_layers=[0, 4], attention_bias=True,
         layer_types=["full_attention"] * 5),
    # hand-written: no mlp_only_layers, no layer_types: the class's [0, 1] and its window pattern
    dict(_raw=True, model_type="flint", vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=10,
         num_attention_heads=4, num_key_value_heads=2, head_dim=16, moe_intermediate_size=32,
         shared_expert_intermediate_size=32, num_experts=4, num_experts_per_tok=2, decoder_sparse_step=1),
]
# Cohere Compass's language model: Cohere-2's parallel block; layer_types default to full attention (Cohere-2's
# sliding_window_pattern branch never runs) and rope_parameters must be nested by layer type to build
COMPASS_ROPE = {"sliding_attention": {"rope_type": "default", "rope_theta": 50000.0}, "full_attention": None}
VARIANTS["cohere_compass_text"] = [
    dict(rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}),
    dict(vocab_size=1000, hidden_size=64, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
         intermediate_size=96, sliding_window=8, layer_types=["sliding_attention"] * 3 + ["full_attention"],
         rope_parameters=COMPASS_ROPE),
    dict(vocab_size=777, hidden_size=48, num_hidden_layers=3, num_attention_heads=6, intermediate_size=40,
         attention_bias=True, tie_word_embeddings=False, sliding_window=4,
         layer_types=["sliding_attention", "full_attention", "sliding_attention"],
         rope_parameters={"sliding_attention": {"rope_theta": 1e4}, "full_attention": {"rope_theta": 1e6}}),
    dict(vocab_size=500, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
         head_dim=12, intermediate_size=64, rope_parameters={"full_attention": {"rope_theta": 1e4}}),
    # hand-written: no layer_types (all full, sliding_window_pattern ignored)
    dict(_raw=True, model_type="cohere_compass_text", vocab_size=1000, hidden_size=64, num_hidden_layers=4,
         num_attention_heads=4, num_key_value_heads=2, intermediate_size=96, sliding_window=8,
         sliding_window_pattern=2, rope_parameters={"full_attention": {"rope_theta": 1e4}}),
]
# Beam: Qwen3-MoE's attention with an output gate and a bias per head, sandwich norms, dense then MoE layers by
# mlp_layer_types (three dense by default) without a shared expert; every sixth layer and the last attend fully
VARIANTS["beam"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
         num_key_value_heads=2, head_dim=24, moe_intermediate_size=32, num_experts=8, num_experts_per_tok=2, n_group=2,
         topk_group=1, attention_bias=True, tie_word_embeddings=False, sliding_window=8),
    dict(vocab_size=1000, hidden_size=48, intermediate_size=80, num_hidden_layers=6, num_attention_heads=6,
         num_key_value_heads=3, head_dim=10, moe_intermediate_size=16, num_experts=6, num_experts_per_tok=2, n_group=3,
         topk_group=2, tie_word_embeddings=True,
         mlp_layer_types=["sparse", "dense", "sparse", "dense", "sparse", "sparse"],
         layer_types=["full_attention", "sliding_attention"] * 3, sliding_window=5),
    dict(vocab_size=777, hidden_size=32, intermediate_size=40, num_hidden_layers=2, num_attention_heads=2,
         num_key_value_heads=1, head_dim=16, moe_intermediate_size=8, num_experts=4, num_experts_per_tok=1, n_group=1,
         topk_group=1, tie_word_embeddings=True),
    dict(vocab_size=500, hidden_size=40, intermediate_size=64, num_hidden_layers=5, num_attention_heads=8,
         num_key_value_heads=8, head_dim=8, moe_intermediate_size=12, num_experts=8, num_experts_per_tok=4, n_group=4,
         topk_group=4, attention_bias=True, tie_word_embeddings=False, mlp_layer_types=["sparse"] * 5,
         layer_types=["sliding_attention"] * 5, final_logit_softcapping=None),
    # hand-written: no layer lists: 3 dense layers, every sixth and the last full
    dict(_raw=True, model_type="beam", vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=9,
         num_attention_heads=4, num_key_value_heads=2, head_dim=16, moe_intermediate_size=32, num_experts=4,
         num_experts_per_tok=2, n_group=2, topk_group=1, sliding_window=8),
]
# Lara-Mini: Qwen3.5's Gated DeltaNet on linear layers, Qwen3 attention (sliding or full, no output gate), an MoE with
# an ungated shared expert on every layer; layer_types repeat [linear, sliding, linear, full, sliding] by default
LARA = dict(vocab_size=1000, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
            linear_key_head_dim=16, linear_value_head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4,
            moe_intermediate_size=32, shared_expert_intermediate_size=48, num_experts=8, num_experts_per_tok=2,
            eos_token_id=1, sliding_window=8)
VARIANTS["lara_mini"] = [
    {},
    dict(LARA, num_hidden_layers=5),
    dict(LARA, num_hidden_layers=4, tie_word_embeddings=False, attention_bias=True,
         layer_types=["full_attention", "linear_attention", "sliding_attention", "linear_attention"]),
    dict(LARA, num_hidden_layers=3, layer_types=["linear_attention"] * 3, linear_num_key_heads=3,
         linear_num_value_heads=3, linear_key_head_dim=12, linear_value_head_dim=20, linear_conv_kernel_dim=3,
         num_experts=3, shared_expert_intermediate_size=8),
    dict(LARA, num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"], num_attention_heads=6,
         num_key_value_heads=3, head_dim=10, num_experts=1, num_experts_per_tok=1, tie_word_embeddings=False),
    # hand-written: the default pattern over 7 layers
    dict(LARA, _raw=True, model_type="lara_mini", num_hidden_layers=7, hidden_size=48, head_dim=24,
         num_attention_heads=2, num_key_value_heads=1, linear_num_key_heads=1, linear_conv_kernel_dim=2),
]
# Ling-3 (bailing_hybrid): KDA with full-rank forget and output gates, MLA with a per-head output gate every
# layer_group_size-th layer, DeepSeek-V3's experts after first_k_dense_replace dense layers; its head never tied
LING = dict(vocab_size=1000, hidden_size=64, num_attention_heads=4, num_key_value_heads=4, head_dim=16,
            intermediate_size=96, moe_intermediate_size=32, num_local_experts=8, n_group=2, topk_group=1,
            num_experts_per_tok=2, kv_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16,
            pad_token_id=0, eos_token_id=1)
VARIANTS["bailing_hybrid"] = [
    {},
    dict(LING, num_hidden_layers=6, layer_group_size=3, first_k_dense_replace=1, q_lora_rank=32, attention_bias=True,
         tie_word_embeddings=True),
    dict(LING, num_hidden_layers=5, layer_types=["full_attention", "linear_attention", "full_attention",
                                                 "linear_attention", "linear_attention"],
         mlp_layer_types=["sparse", "dense", "sparse", "dense", "sparse"], n_shared_experts=2,
         short_conv_kernel_size=3),
    dict(LING, num_hidden_layers=3, layer_group_size=10, first_k_dense_replace=0, kda_safe_gate=False,
         num_attention_heads=3, num_key_value_heads=3, head_dim=12, num_local_experts=6, n_group=3),
    dict(LING, num_hidden_layers=4, layer_group_size=2, first_k_dense_replace=4, q_lora_rank=20, qk_rope_head_dim=4,
         kv_lora_rank=8, v_head_dim=12, num_attention_heads=2, num_key_value_heads=1),
    dict(LING, num_hidden_layers=2, layer_group_size=2, linear_head_dim=8, linear_num_heads=6,
         linear_conv_kernel_dim=2),
    # hand-written: no derived keys; KDA from head_dim (16), the heads and short_conv_kernel_size
    dict(LING, _raw=True, model_type="bailing_hybrid", num_hidden_layers=7, layer_group_size=3,
         short_conv_kernel_size=3, num_experts=8),
]
# A.X-K2: DeepSeek-V3.2's MLA and indexer on every layer, a gated query (q_gate_proj over the low-rank query before
# and after its norm), gated RMSNorms before attention and after it on MoE layers
AXK2 = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, moe_intermediate_size=24, num_hidden_layers=4,
            num_attention_heads=4, num_key_value_heads=4, n_routed_experts=8, num_experts_per_tok=2, kv_lora_rank=32,
            q_lora_rank=48, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=24, index_topk=8, index_head_dim=16,
            index_n_heads=4, gated_norm_rank=4, bos_token_id=1, eos_token_id=2)
VARIANTS["axk2"] = [
    {},
    AXK2,
    dict(AXK2, attention_bias=True, tie_word_embeddings=True, n_shared_experts=2, gated_norm_rank=8,
         first_k_dense_replace=2, moe_layer_freq=2, num_hidden_layers=6),
    dict(AXK2, hidden_size=48, num_hidden_layers=3, num_attention_heads=3, num_key_value_heads=1, q_lora_rank=20,
         kv_lora_rank=12, qk_rope_head_dim=6, qk_nope_head_dim=10, v_head_dim=14, index_head_dim=12, index_n_heads=5,
         n_routed_experts=6, n_group=3, topk_group=2, mlp_layer_types=["sparse", "dense", "sparse"]),
    dict(AXK2, num_hidden_layers=2, mlp_layer_types=["dense", "dense"], n_shared_experts=3, gated_norm_rank=1,
         intermediate_size=40, vocab_size=333, attention_bias=True),
    dict(AXK2, num_hidden_layers=1, first_k_dense_replace=0, layer_types=["indexed_attention"],
         moe_intermediate_size=7, n_routed_experts=3, num_experts_per_tok=1),
    # hand-written with the legacy keys
    dict(AXK2, _raw=True, model_type="axk2", num_hidden_layers=5, first_k_dense_replace=2, moe_layer_freq=2),
]
# MiniMax-M3's language model: GQA with per-head q/k norms, MoE layers with a shared expert and dense layers of their
# own width by mlp_layer_types, a lightning indexer (one key head) on minimax_m3_sparse layers
MM3_S, MM3_F = "minimax_m3_sparse", "full_attention"
VARIANTS["minimax_m3_vl_text"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, head_dim=16,
         intermediate_size=32, dense_intermediate_size=96, shared_intermediate_size=24, num_local_experts=4,
         num_experts_per_tok=2, index_n_heads=2, index_head_dim=16, index_block_size=4, index_topk_blocks=2,
         index_local_blocks=1, layer_types=[MM3_F, MM3_S, MM3_S, MM3_F], mlp_layer_types=["dense", "sparse", "sparse", "dense"]),
    dict(vocab_size=777, hidden_size=48, num_hidden_layers=3, num_attention_heads=6, num_key_value_heads=3, head_dim=12,
         intermediate_size=20, dense_intermediate_size=40, shared_intermediate_size=8, num_local_experts=5,
         num_experts_per_tok=3, index_n_heads=3, index_head_dim=8, layer_types=[MM3_S] * 3,
         mlp_layer_types=["sparse"] * 3, tie_word_embeddings=True),
    dict(vocab_size=500, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4, head_dim=24,
         intermediate_size=16, dense_intermediate_size=64, shared_intermediate_size=16, num_local_experts=2,
         num_experts_per_tok=1, index_n_heads=4, index_head_dim=32, layer_types=[MM3_F, MM3_F],
         mlp_layer_types=["dense", "dense"]),
    dict(vocab_size=300, hidden_size=40, num_hidden_layers=5, num_attention_heads=4, num_key_value_heads=1, head_dim=10,
         intermediate_size=12, dense_intermediate_size=50, shared_intermediate_size=6, num_local_experts=8,
         num_experts_per_tok=2, index_n_heads=1, index_head_dim=6, layer_types=[MM3_S, MM3_F, MM3_S, MM3_F, MM3_S],
         mlp_layer_types=["sparse", "dense", "dense", "sparse", "sparse"]),
    # hand-written in the checkpoint's legacy keys: moe_layer_freq and sparse_attention_config
    dict(_raw=True, model_type="minimax_m3_vl_text", vocab_size=256, hidden_size=32, num_hidden_layers=3,
         num_attention_heads=4, num_key_value_heads=2, head_dim=8, intermediate_size=8, dense_intermediate_size=24,
         shared_intermediate_size=8, num_local_experts=3, num_experts_per_tok=2, moe_layer_freq=[0, 1, 1],
         sparse_attention_config={"sparse_attention_freq": [0, 1, 1], "sparse_num_index_heads": 2,
                                  "sparse_index_dim": 12, "sparse_block_size": 16, "sparse_topk_blocks": 4,
                                  "sparse_local_block": 2}),
]
# GLM-GA: GLM-4.6V's model under its own config class (its processor aligns to patch x merge x patch_expand_factor)
GLMGA_VIS = dict(depth=2, hidden_size=64, num_heads=4, intermediate_size=96, out_hidden_size=48, patch_size=14,
                 image_size=112, spatial_merge_size=2, temporal_patch_size=2)
VARIANTS["glmga"] = [
    {},
    dict(vision_config=dict(model_type="glm4v_moe_vision", **GLMGA_VIS),
         text_config=dict(model_type="glm4v_text", vocab_size=1000, hidden_size=48, intermediate_size=96,
                          num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)),
    dict(vision_config=dict(model_type="glm4v_moe_vision", **GLMGA_VIS),
         text_config=dict(model_type="glm4v_moe_text", vocab_size=1000, hidden_size=48, intermediate_size=96,
                          moe_intermediate_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                          n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2, first_k_dense_replace=1),
         tie_word_embeddings=True),
]
# Dory: gated, nGPT-normalised Llama-like layers, the recurrent section run n_recurrent_loops times (weights shared)
VARIANTS["dory"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=6, num_attention_heads=4,
         num_key_value_heads=2, head_dim=16, n_input_layers=2, n_output_layers=2),
    dict(vocab_size=777, hidden_size=48, intermediate_size=80, num_hidden_layers=5, num_attention_heads=6,
         num_key_value_heads=3, head_dim=12, attention_bias=True, mlp_bias=True, tie_word_embeddings=True,
         n_input_layers=1, n_output_layers=1, n_recurrent_loops=3),
    dict(vocab_size=500, hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=2,
         num_key_value_heads=1, head_dim=24, attention_bias=True, n_input_layers=0, n_output_layers=0,
         n_recurrent_loops=1),
    dict(vocab_size=640, hidden_size=40, intermediate_size=72, num_hidden_layers=4, num_attention_heads=5,
         num_key_value_heads=5, head_dim=8, mlp_bias=True, n_input_layers=1, n_recurrent_layers=2, n_output_layers=1,
         sliding_window=8, layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"]),
    # hand-written in the released layout: attention and mlp blocks listed apart, the counts doubled
    dict(_raw=True, model_type="dory", vocab_size=300, hidden_size=32, intermediate_size=48, num_hidden_layers=8,
         num_attention_heads=4, num_key_value_heads=2, head_dim=8, n_input_layers=2, n_recurrent_layers=4,
         n_output_layers=2, sliding_window=8,
         layer_types=["sliding_attention", "mlp", "full_attention", "mlp", "sliding_attention", "mlp",
                      "full_attention", "mlp"]),
]
# Gemma 4 Unified's language model: Gemma 4's text layers without per-layer embeddings or the MoE block (their keys
# are ignored), window 1024 by default
G4U = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=8, num_attention_heads=4,
           num_key_value_heads=2, head_dim=16)
VARIANTS["gemma4_unified_text"] = [
    {},
    dict(G4U, layer_types=["sliding_attention", "full_attention"] * 4, global_head_dim=32, attention_k_eq_v=True,
         num_global_key_value_heads=1, attention_bias=True, tie_word_embeddings=False),
    dict(G4U, num_kv_shared_layers=2, use_double_wide_mlp=True, global_head_dim=24),
    dict(G4U, num_global_key_value_heads=3, num_key_value_heads=1, global_head_dim=8),
    dict(G4U, per_layer_config={"03": {"head_dim": 24, "num_key_value_heads": 1},
                                "07": {"head_dim": 24, "num_key_value_heads": 1}}, global_head_dim=999,
         layer_types=["sliding_attention"] * 3 + ["full_attention"] + ["sliding_attention"] * 4),
    dict(G4U, hidden_size_per_layer_input=16, vocab_size_per_layer_input=500, enable_moe_block=True, num_experts=4,
         top_k_experts=2, moe_intermediate_size=32, use_bidirectional_attention="all",
         layer_types=["full_attention"] + ["sliding_attention"] * 7),
    dict(G4U, num_hidden_layers=10, attention_k_eq_v=True, num_global_key_value_heads=4, global_head_dim=32,
         num_kv_shared_layers=4, use_double_wide_mlp=True, tie_word_embeddings=False,
         layer_types=["sliding_attention", "sliding_attention", "full_attention"] * 3 + ["full_attention"]),
]
# Gemma 4 Unified's wrapper without an image embedder: the language model alone (the class defaults), tied by the
# wrapper's flag whatever the text config's, and the audio embedder (a norm and audio_embed_dim × H, no tower)
VARIANTS["gemma4_unified"] = [
    {},
    dict(tie_word_embeddings=False, text_config=dict(G4U, tie_word_embeddings=True)),
    dict(text_config=dict(G4U, tie_word_embeddings=False, num_kv_shared_layers=2)),
    dict(text_config=dict(G4U, attention_k_eq_v=True, num_global_key_value_heads=1),
         audio_config=dict(audio_samples_per_token=160)),
    dict(text_config=dict(G4U), audio_config={}),
]
# MiniMax-M3 VL: the MiniMax-M3 text model, a CLIP-like ViT (bias-free Conv3d patches, no position table) and a
# projector that widens every patch to the text width before merging merge² of them; either tie flag ties the head
MM3_TXT = dict(vocab_size=1000, hidden_size=64, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
               head_dim=16, intermediate_size=24, dense_intermediate_size=96, shared_intermediate_size=16,
               num_local_experts=4, num_experts_per_tok=2, index_n_heads=2, index_head_dim=8,
               layer_types=[MM3_F, MM3_S, MM3_F], mlp_layer_types=["dense", "sparse", "sparse"])
VARIANTS["minimax_m3_vl"] = [
    {},
    dict(projector_hidden_size=48, text_config={**MM3_TXT, "tie_word_embeddings": True},
         vision_config=dict(hidden_size=32, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4)),
    dict(projector_hidden_size=20, tie_word_embeddings=True, text_config=dict(MM3_TXT, vocab_size=777, hidden_size=48),
         vision_config=dict(hidden_size=24, intermediate_size=40, num_hidden_layers=3, num_attention_heads=2,
                            patch_size=7, temporal_patch_size=1, spatial_merge_size=3, num_channels=1)),
    dict(projector_hidden_size=100, text_config=dict(MM3_TXT, num_hidden_layers=2, layer_types=[MM3_S, MM3_S],
                                                     mlp_layer_types=["sparse", "dense"]),
         vision_config=dict(hidden_size=40, intermediate_size=64, num_hidden_layers=5, num_attention_heads=5,
                            patch_size=16, temporal_patch_size=3, spatial_merge_size=1, image_size=64)),
    dict(projector_hidden_size=8, text_config=dict(MM3_TXT, hidden_size=24, head_dim=6),
         vision_config=dict(hidden_size=12, intermediate_size=100, num_hidden_layers=12, num_attention_heads=3,
                            patch_size=2, temporal_patch_size=2, spatial_merge_size=2, num_channels=4)),
]
# HY-V4-VL: HY-V4's language model under larger defaults (MRoPE: mrope_section must sum to half the rope width), a ViT
# with a learned position grid and its merger (m x m conv, 1 x 1 conv, a newline per merged row) inside the tower


def HY_MROPE(dr):
    return {"rope_type": "default", "rope_theta": 1e4,
            "mrope_section": [dr // 2 - 2 * (dr // 2 // 3), dr // 2 // 3, dr // 2 // 3]}


HY_T = dict(vocab_size=400, pad_token_id=0, bos_token_id=1, eos_token_id=2, hidden_size=48, intermediate_size=80,
            moe_intermediate_size=16, num_hidden_layers=6, num_attention_heads=4, n_routed_experts=4,
            num_experts_per_tok=2, q_lora_rank=24, kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=12,
            v_head_dim=10, index_n_heads=2, index_head_dim=16, index_topk=4, rope_parameters=HY_MROPE(12))
HY_V = dict(hidden_size=32, intermediate_size=40, num_hidden_layers=2, num_attention_heads=2, patch_size=8,
            max_image_size=64, out_hidden_size=48)
VARIANTS["hy_v4_vl"] = [
    {},
    dict(text_config=HY_T, vision_config=HY_V),
    dict(tie_word_embeddings=True, text_config=dict(HY_T, num_hidden_layers=5, attention_bias=True, hc_mult=3,
                                                    n_shared_experts=2,
                                                    mlp_layer_types=["sparse", "dense", "sparse", "sparse", "dense"],
                                                    indexer_types=["full", "shared", "full", "full", "shared"]),
         vision_config=dict(HY_V, spatial_merge_size=3, num_channels=1, attention_heads=4)),
    dict(text_config=dict(HY_T, num_hidden_layers=9, num_local_experts=5, num_key_value_heads=1,
                          tie_word_embeddings=True),
         vision_config=dict(HY_V, max_image_size=100, patch_size=10, head_dim=24)),
    dict(text_config=dict(HY_T, num_hidden_layers=3, hc_mult=1, qk_rope_head_dim=16, rope_parameters=HY_MROPE(16),
                          q_lora_rank=40, index_head_dim=20),
         vision_config=dict(HY_V, num_hidden_layers=1, out_hidden_size=30)),
]
# Mistral Large 4: Pixtral and Mistral 3's projector over DeepSeek-V3.2's MLA and MoE with a full-rank query, NoPE
# layers caching the latent only, layers reusing an earlier layer's latent, per-head query scaling, an indexer over the
# hidden state, a softmax router and the rotary's learned alpha
ML4_T = dict(vocab_size=500, hidden_size=64, intermediate_size=96, moe_intermediate_size=24, num_hidden_layers=4,
             num_attention_heads=4, num_key_value_heads=4, n_routed_experts=4, num_experts_per_tok=2, kv_lora_rank=32,
             qk_rope_head_dim=16, v_head_dim=24, qk_nope_head_dim=8, index_head_dim=32, index_n_heads=2, index_topk=8)
ML4_V = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2, patch_size=14,
             image_size=112, hidden_act="silu")
VARIANTS["mistral_large4"] = [
    {},
    dict(text_config=ML4_T, vision_config=ML4_V),
    dict(tie_word_embeddings=True, multimodal_projector_bias=True, vision_feature_layer=[-1, -2], spatial_merge_size=3,
         text_config=dict(ML4_T, num_hidden_layers=6, attention_bias=True, no_rope_layers=[1, 1, 0, 1, 0, 1],
                          kv_source_layers=[0, 0, 2, 3, 2, 5], index_topk_pattern="FFFSSF"),
         vision_config=dict(ML4_V, num_channels=1)),
    dict(text_config=dict(ML4_T, num_hidden_layers=7, index_topk_freq=3, index_skip_topk_offset=1,
                          first_k_dense_replace=2, n_shared_experts=2, num_experts=6, no_rope_layer_interval=2,
                          tie_word_embeddings=True),
         vision_config=dict(hidden_size=24, intermediate_size=40, num_hidden_layers=3, num_attention_heads=3)),
    dict(text_config=dict(ML4_T, num_hidden_layers=5, num_local_experts=3,
                          mlp_layer_types=["sparse", "dense", "sparse", "dense", "sparse"],
                          no_rope_layers=[0, 0, 1, 1, 0], indexer_types=["full", "shared", "shared", "full", "shared"],
                          qk_rope_head_dim=12, rope_parameters={"rope_type": "default", "rope_theta": 1e4}),
         vision_config=dict(ML4_V, patch_size=8, image_size=64)),
    dict(text_config=dict(ML4_T, num_hidden_layers=2)),
]
# Aria: Aria's language model, Idefics3's SigLIP-shaped tower (post-layernorm built, unused) and AriaProjector (learned
# queries cross-attending to a crop's patches, then an MLP); the head tied by the wrapper's flag only
VARIANTS["aria"] = [
    {},
    dict(tie_word_embeddings=True, projector_patch_to_query_dict={16: 5, 64: 9},
         text_config=dict(vocab_size=500, hidden_size=48, intermediate_size=40, num_hidden_layers=3,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=16, attention_bias=True,
                          mlp_bias=True, moe_num_experts=4, moe_topk=2, moe_num_shared_experts=3),
         vision_config=dict(hidden_size=32, intermediate_size=40, num_hidden_layers=2, num_attention_heads=4,
                            image_size=56, patch_size=14)),
    dict(projector_patch_to_query_dict={"1225": 7, "4900": 3},
         text_config=dict(vocab_size=300, hidden_size=32, intermediate_size=24, num_hidden_layers=2,
                          num_attention_heads=4, moe_num_experts=3, moe_topk=1, moe_num_shared_experts=0,
                          tie_word_embeddings=True),
         vision_config=dict(hidden_size=24, intermediate_size=30, num_hidden_layers=1, num_attention_heads=3,
                            num_channels=1, image_size=50, patch_size=14)),
    dict(text_config=dict(vocab_size=256, hidden_size=40, intermediate_size=16, num_hidden_layers=2,
                          num_attention_heads=5, num_key_value_heads=1, moe_num_experts=6, moe_topk=2),
         vision_config=dict(hidden_size=24, intermediate_size=36, num_hidden_layers=2, num_attention_heads=2,
                            image_size=980, patch_size=14)),
    dict(projector_patch_to_query_dict={1225: 128, 4900: 256}, max_value_projector_patch_to_query_dict=300,
         text_config=dict(vocab_size=64, hidden_size=12, intermediate_size=6, num_hidden_layers=2,
                          num_attention_heads=3, num_key_value_heads=1, moe_num_experts=5, moe_topk=3),
         vision_config=dict(hidden_size=20, intermediate_size=28, num_hidden_layers=3, num_attention_heads=5,
                            image_size=490, patch_size=14)),
]
# Cohere Compass: Qwen3-VL's config and tower (DeepStack mergers) over Cohere Compass's text model (its rope_parameters
# nested by layer type to build); the head tied by the wrapper's flag only
CC_TEXT = dict(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
               intermediate_size=96, rope_parameters={"full_attention": {"rope_theta": 1e4}})
CC_VIS = dict(depth=2, hidden_size=32, intermediate_size=48, num_heads=4, out_hidden_size=64, patch_size=14,
              num_position_embeddings=64, deepstack_visual_indexes=[0])
VARIANTS["cohere_compass"] = [
    dict(text_config=dict(rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 10000.0}})),
    dict(text_config=CC_TEXT, vision_config=CC_VIS),
    dict(tie_word_embeddings=True, text_config=CC_TEXT,
         vision_config=dict(CC_VIS, spatial_merge_size=1, deepstack_visual_indexes=[])),
    dict(text_config=dict(CC_TEXT, tie_word_embeddings=False),
         vision_config=dict(CC_VIS, spatial_merge_size=3, deepstack_visual_indexes=[0, 1], num_heads=2)),
]
# PaddleOCR-VL: ERNIE-4.5's language model with M-RoPE, a SigLIP tower at each image's resolution (post-layernorm, no
# head) and a norm / merge / two-linear projector; tied unless both tie flags are false; the Hub's config is flat
PD_T = dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=16, rope_parameters={"rope_type": "default", "rope_theta": 5e5,
                                                                  "mrope_section": [2, 3, 3]})
PD_V = dict(hidden_size=32, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4, image_size=56,
            patch_size=14)
VARIANTS["paddleocr_vl"] = [
    {},
    dict(text_config=PD_T, vision_config=PD_V),
    dict(tie_word_embeddings=False, text_config=dict(PD_T, tie_word_embeddings=False, use_bias=True),
         vision_config=dict(PD_V, spatial_merge_size=3, patch_size=7, image_size=70, num_channels=1)),
    dict(tie_word_embeddings=False, text_config=dict(PD_T, vocab_size=321, num_hidden_layers=3),
         vision_config=dict(PD_V, hidden_size=24, num_attention_heads=2, num_hidden_layers=3, spatial_merge_size=1,
                            image_size=33, patch_size=4)),
    # hand-written flat, as the Hub's: the text keys at the top, a false top-level flag (the text's true wins)
    dict(_raw=True, model_type="paddleocr_vl", tie_word_embeddings=False, vocab_size=777, hidden_size=40,
         intermediate_size=64, num_hidden_layers=2, num_attention_heads=5, num_key_value_heads=1, head_dim=8,
         use_bias=True, vision_config=dict(PD_V, model_type="paddleocr_vl_vision")),
]
# Cosmos3-Edge: a Llama decoder with Arcee's relu² MLP and interleaved M-RoPE (mrope_section sums to half the head),
# a SigLIP2 tower (linear patch embedding, resized position table, post-layernorm), a norm-then-merge projector; the
# head never tied


def C3_MROPE(hd):
    half = hd // 2
    return {"rope_type": "default", "rope_theta": 1e8,
            "mrope_section": [half - 2 * (half * 10 // 32), half * 10 // 32, half * 10 // 32]}


VARIANTS["cosmos3_edge"] = [
    {},
    dict(projector_hidden_size=48, tie_word_embeddings=True,
         text_config=dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, head_dim=16, rope_parameters=C3_MROPE(16), tie_word_embeddings=True),
         vision_config=dict(hidden_size=32, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4,
                            patch_size=4, num_patches=16)),
    dict(projector_hidden_size=20,
         text_config=dict(vocab_size=300, hidden_size=48, intermediate_size=40, num_hidden_layers=3, num_attention_heads=4,
                          num_key_value_heads=1, head_dim=24, rope_parameters=C3_MROPE(24), attention_bias=True,
                          mlp_bias=True),
         vision_config=dict(hidden_size=24, intermediate_size=40, num_hidden_layers=3, num_attention_heads=2,
                            patch_size=7, num_patches=9, spatial_merge_size=3, num_channels=1)),
    dict(projector_hidden_size=8,
         text_config=dict(vocab_size=100, hidden_size=24, intermediate_size=100, num_hidden_layers=6,
                          num_attention_heads=2, num_key_value_heads=2, head_dim=12, rope_parameters=C3_MROPE(12),
                          mlp_bias=True),
         vision_config=dict(hidden_size=12, intermediate_size=100, num_hidden_layers=7, num_attention_heads=3,
                            patch_size=2, num_patches=4, spatial_merge_size=4, num_channels=4)),
]


# ERNIE-4.5-VL: two expert groups per sparse layer (text, and narrower vision experts, each with its own
# router and correction bias) beside one shared MLP; Qwen2-VL's ViT blocks behind a linear patch embedding
# and a final LayerNorm; a spatial and temporal resampler. M-RoPE needs mrope_section [a, a, b] with
# 2a + b = head_dim / 2.
def ERNIE_ROPE(head_dim):
    q = head_dim // 2
    return {"rope_type": "default", "rope_theta": 5e5, "mrope_section": [q // 4, q // 4, q - 2 * (q // 4)]}


ERNIE_VL_TEXT = dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                     num_key_value_heads=2, moe_num_experts=4, moe_k=2, moe_intermediate_size=[24, 8],
                     rope_parameters=ERNIE_ROPE(16))
VARIANTS["ernie4_5_vl_moe"] = [
    {},
    dict(text_config=ERNIE_VL_TEXT, vision_config=dict(depth=2, hidden_size=32, num_heads=4, intermediate_size=48)),
    # untied by the wrapper (the text config's flag is not read), biases, wider heads, three shared experts,
    # a dense layer between sparse ones; the vision keys by their aliases, one channel, 7 px patches, merge 3
    dict(tie_word_embeddings=False,
         text_config=dict(ERNIE_VL_TEXT, use_bias=True, head_dim=32, rope_parameters=ERNIE_ROPE(32),
                          moe_num_shared_experts=3, mlp_layer_types=["sparse", "dense", "sparse"],
                          tie_word_embeddings=True),
         vision_config=dict(num_hidden_layers=3, hidden_size=24, num_attention_heads=2, intermediate_size=40,
                            patch_size=7, spatial_merge_size=3, in_channels=1, temporal_merge_size=2)),
    # `num_experts` alias, no shared expert, vision experts wider than the text ones, merge 1, three frames
    dict(text_config=dict(ERNIE_VL_TEXT, num_experts=6, moe_num_shared_experts=0, num_hidden_layers=4,
                          moe_intermediate_size=[16, 32], tie_word_embeddings=False),
         vision_config=dict(depth=1, hidden_size=40, num_heads=5, intermediate_size=64, patch_size=16,
                            spatial_merge_size=1, temporal_merge_size=3)),
    # every layer dense, untied, merge 4, four channels
    dict(tie_word_embeddings=False, text_config=dict(ERNIE_VL_TEXT, vocab_size=321, mlp_layer_types=["dense"] * 3),
         vision_config=dict(depth=4, hidden_size=16, num_heads=2, intermediate_size=16, patch_size=4,
                            spatial_merge_size=4, in_channels=4)),
    # saved as a diff against the class defaults: the absent keys are the classes' own
    dict(text_config=dict(ERNIE_VL_TEXT, num_hidden_layers=2),
         vision_config=dict(depth=1, hidden_size=32, num_heads=4, intermediate_size=48), _diff=True),
]

# DiffLlama: Llama's projections and four lambda vectors per layer (a head wide each); an even KV head count
VARIANTS["diffllama"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
         num_key_value_heads=2),
    # biases on q, k, v and o; a head wider than hidden / heads; tied
    dict(vocab_size=777, hidden_size=48, intermediate_size=80, num_hidden_layers=3, num_attention_heads=6,
         num_key_value_heads=6, head_dim=16, attention_bias=True, tie_word_embeddings=True),
    dict(vocab_size=500, hidden_size=32, intermediate_size=40, num_hidden_layers=1, num_attention_heads=8,
         num_key_value_heads=4, head_dim=6, _diff=True),
]
# GPT-Neo: GPT-2's layout with unbiased q, k, v; global and local layers named by `attention_types`
VARIANTS["gpt_neo"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, num_layers=4, num_heads=4, attention_types=[[["global", "local"], 2]],
         max_position_embeddings=128),
    # an explicit MLP width, untied, local layers only
    dict(vocab_size=777, hidden_size=48, num_layers=3, num_heads=6, intermediate_size=80,
         attention_types=[[["local"], 3]], tie_word_embeddings=False, window_size=16, max_position_embeddings=64),
    # two patterns, saved as a diff against the class defaults
    dict(vocab_size=500, hidden_size=32, num_layers=5, num_heads=2,
         attention_types=[[["global"], 1], [["local", "global"], 2]], _diff=True),
]

# Qianfan-OCR: InternVL's modules under its own defaults (Qwen3 text, untied, biased tower q/k/v); RMSNorm and
# q/k-norm towers, a quarter-ratio shuffle, non-square images, a Qwen2 text model, both tie flags
VARIANTS["qianfan_ocr"] = [
    # defaults
    {},
    # v1_small_ln
    {'vision_config': {'hidden_size': 32, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'intermediate_size': 64, 'image_size': 56, 'patch_size': 14}, 'text_config': {'vocab_size': 1000, 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 16}},
    # v2_rms_qknorm_nobias_tie
    {'vision_config': {'hidden_size': 48, 'num_hidden_layers': 3, 'num_attention_heads': 6, 'intermediate_size': 96, 'image_size': 64, 'patch_size': 16, 'norm_type': 'rms_norm', 'use_qk_norm': True, 'attention_bias': False}, 'text_config': {'vocab_size': 1000, 'hidden_size': 96, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 24}, 'tie_word_embeddings': True},
    # v3_ds025_nomeanpool_mask
    {'vision_config': {'hidden_size': 40, 'num_hidden_layers': 1, 'num_attention_heads': 5, 'intermediate_size': 80, 'image_size': 112, 'patch_size': 7, 'use_mean_pooling': False, 'use_mask_token': True}, 'text_config': {'vocab_size': 1000, 'hidden_size': 80, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 5, 'num_key_value_heads': 5, 'head_dim': 16, 'attention_bias': True}, 'downsample_ratio': 0.25},
    # (the non-square variant builds for counting only: the forward needs a square patch grid, and the
    # importer refuses it as it refuses InternVL's)
    # v5_text_tie_only
    {'vision_config': {'hidden_size': 32, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'intermediate_size': 48, 'image_size': 28, 'patch_size': 14}, 'text_config': {'vocab_size': 1000, 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 16, 'tie_word_embeddings': True}, 'tie_word_embeddings': False},
    # v6_top_tie_text_untied
    {'vision_config': {'hidden_size': 32, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'intermediate_size': 48, 'image_size': 28, 'patch_size': 14, 'use_qk_norm': True}, 'text_config': {'vocab_size': 1000, 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 16, 'tie_word_embeddings': False}, 'tie_word_embeddings': True},
    # v7_qwen2_text
    {'vision_config': {'hidden_size': 32, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'intermediate_size': 64, 'image_size': 56, 'patch_size': 14}, 'text_config': {'model_type': 'qwen2', 'vocab_size': 1000, 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2}},
]

# VipLLaVA and Video-LLaVA: a CLIP tower (two of them for Video-LLaVA) and a Llama text model; VipLLaVA's projector
# norms the features of several tower layers. A partial vision_config takes CLIPVisionConfig's own defaults.
LV_TEXT = dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4)
LV_VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=4, num_attention_heads=2, patch_size=14,
                 image_size=56)
VARIANTS["vipllava"] = [
    {},
    {"vision_feature_layers": [-2, -3, 1], "text_config": dict(LV_TEXT), "vision_config": dict(LV_VISION)},
    {"vision_feature_layer": -1, "text_config": dict(LV_TEXT, num_key_value_heads=2, head_dim=8, attention_bias=True,
                                                     mlp_bias=True),
     "vision_config": dict(LV_VISION, hidden_size=48, num_hidden_layers=3, image_size=64, patch_size=16, num_channels=1)},
    {"vision_feature_layers": [-2, -5, -8, -11, 6], "tie_word_embeddings": True, "text_config": dict(LV_TEXT, hidden_size=96),
     "vision_config": dict(LV_VISION, num_hidden_layers=12)},
    {"vision_feature_layers": [0, 1], "tie_word_embeddings": False, "text_config": dict(LV_TEXT, tie_word_embeddings=True),
     "vision_config": dict(LV_VISION, intermediate_size=40)},
    {"vision_config": {"num_hidden_layers": 2}, "text_config": dict(LV_TEXT)},
]
VARIANTS["video_llava"] = [
    {},
    {"text_config": dict(LV_TEXT), "vision_config": dict(LV_VISION)},
    {"vision_feature_layer": [-2, -3, 1], "multimodal_projector_bias": False,
     "text_config": dict(LV_TEXT, num_key_value_heads=2, head_dim=8, attention_bias=True),
     "vision_config": dict(LV_VISION, hidden_size=48, num_hidden_layers=3, image_size=64, patch_size=16, num_channels=1)},
    {"vision_feature_layer": -1, "vision_feature_select_strategy": "full", "tie_word_embeddings": True,
     "text_config": dict(LV_TEXT, hidden_size=96, mlp_bias=True), "vision_config": dict(LV_VISION, num_hidden_layers=6)},
    {"vision_feature_layer": [0, 1], "tie_word_embeddings": False, "text_config": dict(LV_TEXT, tie_word_embeddings=True),
     "vision_config": dict(LV_VISION, intermediate_size=40)},
    {"vision_config": {"num_hidden_layers": 2}, "text_config": dict(LV_TEXT)},
]

# LightOnOCR: a Pixtral tower, Mistral 3's projector without biases (the config's bias flag is not read) and Qwen3;
# absent sub-configs are LightOnOCR-1B's, partial ones take their classes' defaults; only the wrapper ties
VARIANTS["lighton_ocr"] = [
    # class_defaults: 1,005,647,872 parameters
    {},
    # tiny_merge2_tied: 525,024 parameters
    {'vision_config': {'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'patch_size': 14, 'image_size': 224}, 'text_config': {'vocab_size': 1000, 'hidden_size': 96, 'intermediate_size': 192, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 32}, 'spatial_merge_size': 2},
    # merge3_untied_wrapper_text_tie_true: 514,576 parameters
    {'vision_config': {'hidden_size': 48, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 3, 'patch_size': 16, 'image_size': 224}, 'text_config': {'vocab_size': 1000, 'hidden_size': 80, 'intermediate_size': 192, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 32, 'tie_word_embeddings': True}, 'spatial_merge_size': 3, 'tie_word_embeddings': False},
    # merge1_tied_wrapper_text_tie_false_attn_bias: 715,072 parameters
    {'vision_config': {'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'patch_size': 8, 'image_size': 224}, 'text_config': {'vocab_size': 1000, 'hidden_size': 96, 'intermediate_size': 192, 'num_hidden_layers': 5, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 32, 'tie_word_embeddings': False, 'attention_bias': True}, 'spatial_merge_size': 1, 'tie_word_embeddings': True},
    # partial_vision_hidden128_only: 39,886,688 parameters
    {'vision_config': {'hidden_size': 128}, 'text_config': {'vocab_size': 1000, 'hidden_size': 96, 'intermediate_size': 192, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 32}},
    # partial_text_hidden256_only_untied: 753,317,248 parameters
    {'vision_config': {'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'patch_size': 14, 'image_size': 224}, 'text_config': {'hidden_size': 256}, 'tie_word_embeddings': False},
    # projector_bias_true_act_relu_merge4_1ch: 696,704 parameters
    {'vision_config': {'hidden_size': 32, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'patch_size': 14, 'image_size': 224, 'num_channels': 1}, 'text_config': {'vocab_size': 1000, 'hidden_size': 128, 'intermediate_size': 256, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': None, 'head_dim': 32}, 'spatial_merge_size': 4, 'multimodal_projector_bias': True, 'projector_hidden_act': 'relu'},
    # vision_only_given_text_from_init_kwargs: 597,300,352 parameters
    {'vision_config': {'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'patch_size': 14, 'image_size': 224}},
    # defaults_untied: 1,161,230,336 parameters
    {'tie_word_embeddings': False},
]

# ShieldGemma 2: Gemma 3's whole model under an image classifier; tied when either flag is (the wrapper's
# defaulting to False, the text config's to True)
VARIANTS["shieldgemma2"] = [
    # defaults
    {},
    # v1_gemma3_4b_like
    {'mm_tokens_per_image': 256, 'text_config': {'hidden_size': 2560, 'intermediate_size': 10240, 'num_hidden_layers': 34, 'num_attention_heads': 8, 'num_key_value_heads': 4, 'head_dim': 256, 'vocab_size': 262208, 'sliding_window': 1024}, 'vision_config': {'hidden_size': 1152, 'intermediate_size': 4304, 'num_hidden_layers': 27, 'num_attention_heads': 16, 'image_size': 896, 'patch_size': 14, 'vision_use_head': False}},
    # v2_tiny_texttie_false_toptie_false
    {'tie_word_embeddings': False, 'mm_tokens_per_image': 4, 'text_config': {'vocab_size': 300, 'hidden_size': 32, 'intermediate_size': 24, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 8, 'tie_word_embeddings': False}, 'vision_config': {'hidden_size': 16, 'intermediate_size': 20, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'image_size': 32, 'patch_size': 8, 'vision_use_head': False}},
    # v3_tiny_toptie_false_texttie_default
    {'tie_word_embeddings': False, 'mm_tokens_per_image': 16, 'text_config': {'vocab_size': 256, 'hidden_size': 40, 'intermediate_size': 16, 'num_hidden_layers': 2, 'num_attention_heads': 5, 'num_key_value_heads': 1, 'head_dim': 12, 'attention_bias': True}, 'vision_config': {'hidden_size': 24, 'intermediate_size': 30, 'num_hidden_layers': 1, 'num_attention_heads': 3, 'num_channels': 1, 'image_size': 64, 'patch_size': 8}},
    # v4_tiny_head_bias
    {'mm_tokens_per_image': 9, 'text_config': {'vocab_size': 128, 'hidden_size': 64, 'intermediate_size': 96, 'num_hidden_layers': 7, 'num_attention_heads': 8, 'num_key_value_heads': 8, 'head_dim': 16, 'attention_bias': True, 'tie_word_embeddings': False}, 'vision_config': {'hidden_size': 40, 'intermediate_size': 16, 'num_hidden_layers': 2, 'num_attention_heads': 5, 'image_size': 48, 'patch_size': 16, 'vision_use_head': True}},
    # v5_tiny_toptie_true_texttie_false
    {'tie_word_embeddings': True, 'mm_tokens_per_image': 1, 'text_config': {'vocab_size': 100, 'hidden_size': 16, 'intermediate_size': 8, 'num_hidden_layers': 1, 'num_attention_heads': 2, 'num_key_value_heads': 1, 'head_dim': 8, 'tie_word_embeddings': False}, 'vision_config': {'hidden_size': 8, 'intermediate_size': 8, 'num_hidden_layers': 1, 'num_attention_heads': 1, 'image_size': 16, 'patch_size': 16, 'vision_use_head': False}},
]
# Gemma 3: the wrapper's tie flag alone decides (a text config's False is not read)
VARIANTS["gemma3"] = [
    dict(text_config=dict(vocab_size=300, hidden_size=32, intermediate_size=24, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, head_dim=8, tie_word_embeddings=False),
         vision_config=dict(hidden_size=16, intermediate_size=20, num_hidden_layers=1, num_attention_heads=2,
                            image_size=32, patch_size=8, vision_use_head=False), mm_tokens_per_image=4, _raw=True),
]
# Gemma-2 saved as a diff: its window (4096) and attention biases from the class
VARIANTS["gemma2"] = [
    dict(vocab_size=300, hidden_size=32, intermediate_size=24, num_hidden_layers=4, num_attention_heads=4,
         num_key_value_heads=2, head_dim=8, attention_bias=True, _diff=True),
]

# Granite-Docling: Idefics3's tower, a connector with coarse and fine pixel-shuffle routes and DeepStack mergers, an
# optional density router, Granite's text model; only the wrapper ties
VARIANTS["granite_docling"] = [
    # defaults
    {},
    # v1_tiny_untied_bias
    {'tie_word_embeddings': False, 'text_config': {'pad_token_id': 0, 'vocab_size': 500, 'hidden_size': 48, 'intermediate_size': 40, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'attention_bias': True, 'mlp_bias': True}, 'vision_config': {'hidden_size': 32, 'intermediate_size': 40, 'num_hidden_layers': 4, 'num_attention_heads': 4, 'image_size': 64, 'patch_size': 8, 'out_hidden_size': 48, 'scale_factor': 4, 'deepstack_visual_indexes': [1, 2]}},
    # v2_nofine_texttie_false
    {'density_router_hidden_size': None, 'text_config': {'pad_token_id': 0, 'vocab_size': 300, 'hidden_size': 32, 'intermediate_size': 24, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': None, 'tie_word_embeddings': False}, 'vision_config': {'hidden_size': 24, 'intermediate_size': 30, 'num_hidden_layers': 3, 'num_attention_heads': 3, 'num_channels': 1, 'image_size': 48, 'patch_size': 6, 'out_hidden_size': 32, 'scale_factor': 2, 'deepstack_visual_indexes': [0], 'use_fine_route': False}},
    # v3_router_s2
    {'density_router_hidden_size': 20, 'text_config': {'pad_token_id': 0, 'vocab_size': 256, 'hidden_size': 40, 'intermediate_size': 16, 'num_hidden_layers': 2, 'num_attention_heads': 5, 'num_key_value_heads': 1}, 'vision_config': {'hidden_size': 16, 'intermediate_size': 20, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'image_size': 32, 'patch_size': 4, 'out_hidden_size': 40, 'scale_factor': 2, 'deepstack_visual_indexes': [0, 1], 'use_fine_route': True}},
    # v4_no_deepstack_top_untied
    {'tie_word_embeddings': False, 'density_router_hidden_size': 7, 'text_config': {'pad_token_id': 0, 'vocab_size': 128, 'hidden_size': 64, 'intermediate_size': 96, 'num_hidden_layers': 1, 'num_attention_heads': 8, 'num_key_value_heads': 8, 'tie_word_embeddings': True}, 'vision_config': {'hidden_size': 40, 'intermediate_size': 16, 'num_hidden_layers': 2, 'num_attention_heads': 5, 'image_size': 96, 'patch_size': 12, 'out_hidden_size': 64, 'scale_factor': 8, 'deepstack_visual_indexes': []}},
    # v5_500m_2b_like_nofine
    {'vision_config': {'use_fine_route': False}},
]

# HunYuan-VL (HunyuanOCR): HunYuan's dense decoder and a ViT whose merger folds, widens and frames the patches;
# tied when either flag is; the class's own head_dim (None) cannot build, so every variant names one; the flat
# variant's text keys sit at the top, as the config class moves them
VARIANTS["hunyuan_vl"] = [
    # defaults_head_dim128
    {'text_config': {'head_dim': 128}},
    # tiny_bias_gqa_hd
    {'text_config': {'vocab_size': 1000, 'hidden_size': 64, 'intermediate_size': 160, 'num_hidden_layers': 2, 'num_attention_heads': 8, 'num_key_value_heads': 2, 'head_dim': 24, 'attention_bias': True}, 'vision_config': {'hidden_size': 32, 'intermediate_size': 80, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'patch_size': 16, 'spatial_merge_size': 2, 'max_image_size': 256}},
    # untied_merge3_patch8
    {'tie_word_embeddings': False, 'text_config': {'vocab_size': 777, 'hidden_size': 48, 'intermediate_size': 100, 'num_hidden_layers': 3, 'num_attention_heads': 6, 'num_key_value_heads': 3, 'head_dim': 8, 'tie_word_embeddings': False}, 'vision_config': {'hidden_size': 40, 'intermediate_size': 72, 'num_hidden_layers': 3, 'num_attention_heads': 5, 'patch_size': 8, 'spatial_merge_size': 3, 'max_image_size': 96}},
    # (a tower of 24 wide with 5 heads builds, its attention 20 wide; the importer refuses heads that do not
    # divide the width, so that variant is left out)
    # partial_subconfigs
    {'text_config': {'num_hidden_layers': 1, 'head_dim': 128}, 'vision_config': {'num_hidden_layers': 1}},
    # flat_text_keys_top_tie_false
    {'vocab_size': 300, 'hidden_size': 32, 'intermediate_size': 64, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 1, 'head_dim': 8, 'attention_bias': True, 'tie_word_embeddings': False, 'vision_config': {'hidden_size': 16, 'intermediate_size': 24, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'max_image_size': 64, 'text_hidden_size': 999}, '_raw': True},
    # tied_both_true_deep_vision
    {'tie_word_embeddings': True, 'text_config': {'vocab_size': 2048, 'hidden_size': 128, 'intermediate_size': 256, 'num_hidden_layers': 4, 'num_attention_heads': 4, 'num_key_value_heads': 4, 'head_dim': 32, 'tie_word_embeddings': True}, 'vision_config': {'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 6, 'num_attention_heads': 8, 'patch_size': 16, 'spatial_merge_size': 2, 'max_image_size': 512}},
]

# MiniCPM-V 4.6 and 4.7 (the same modules): a NaViT tower with a window merger inside, an MLP merger, Qwen3.5's
# hybrid text model; only the wrapper ties. The last variant is a SigLIP-400M tower over a small Qwen3.5 (guessed,
# not a checkpoint's config)
MINICPM_V = [
    # defaults
    {},
    # tiny_tied
    {'tie_word_embeddings': True, 'text_config': {'vocab_size': 1000, 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 4, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 16, 'linear_num_key_heads': 2, 'linear_num_value_heads': 4, 'linear_key_head_dim': 16, 'linear_value_head_dim': 16}, 'vision_config': {'hidden_size': 32, 'intermediate_size': 64, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'image_size': 56, 'patch_size': 14}, 'insert_layer_id': 0},
    # merger3_bias_interval2
    {'merger_times': 3, 'text_config': {'vocab_size': 5003, 'hidden_size': 96, 'intermediate_size': 200, 'num_hidden_layers': 6, 'num_attention_heads': 6, 'num_key_value_heads': 3, 'head_dim': 32, 'attention_bias': True, 'full_attention_interval': 2, 'linear_conv_kernel_dim': 3, 'linear_num_key_heads': 3, 'linear_num_value_heads': 6, 'linear_key_head_dim': 24, 'linear_value_head_dim': 20}, 'vision_config': {'hidden_size': 48, 'intermediate_size': 100, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'image_size': 70, 'patch_size': 14, 'num_channels': 1}, 'insert_layer_id': 1},
    # window3_layer_types
    {'vision_config': {'hidden_size': 40, 'intermediate_size': 72, 'num_hidden_layers': 4, 'num_attention_heads': 5, 'image_size': 448, 'patch_size': 14, 'window_kernel_size': [3, 3]}, 'text_config': {'vocab_size': 777, 'hidden_size': 80, 'intermediate_size': 160, 'num_hidden_layers': 5, 'num_attention_heads': 2, 'num_key_value_heads': 1, 'head_dim': 40, 'layer_types': ['full_attention', 'linear_attention', 'full_attention', 'full_attention', 'linear_attention'], 'linear_num_key_heads': 1, 'linear_num_value_heads': 2, 'linear_key_head_dim': 8, 'linear_value_head_dim': 12}},
    # all_linear_merger2_tied
    {'tie_word_embeddings': True, 'merger_times': 2, 'vision_config': {'hidden_size': 64, 'intermediate_size': 256, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'image_size': 980, 'patch_size': 14}, 'text_config': {'vocab_size': 4096, 'hidden_size': 128, 'intermediate_size': 384, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 4, 'head_dim': 32, 'layer_types': ['linear_attention', 'linear_attention', 'linear_attention']}},
    # all_full_untied_p16
    {'vision_config': {'hidden_size': 72, 'intermediate_size': 144, 'num_hidden_layers': 3, 'num_attention_heads': 6, 'image_size': 224, 'patch_size': 16}, 'text_config': {'vocab_size': 3000, 'hidden_size': 48, 'intermediate_size': 96, 'num_hidden_layers': 3, 'num_attention_heads': 3, 'num_key_value_heads': 1, 'head_dim': 64, 'layer_types': ['full_attention', 'full_attention', 'full_attention'], 'tie_word_embeddings': True}},
    # siglip400m_like_qwen35_08b_like
    {'vision_config': {'hidden_size': 1152, 'intermediate_size': 4304, 'num_hidden_layers': 27, 'num_attention_heads': 16, 'image_size': 980, 'patch_size': 14}, 'text_config': {'vocab_size': 248320, 'hidden_size': 1024, 'intermediate_size': 3584, 'num_hidden_layers': 24, 'num_attention_heads': 8, 'num_key_value_heads': 2, 'head_dim': 256, 'linear_num_key_heads': 16, 'linear_num_value_heads': 16, 'linear_key_head_dim': 128, 'linear_value_head_dim': 128}, 'tie_word_embeddings': True},
    # without slices or MLP times: a one-layer text model of another family (Qwen3)
    dict(text_config=dict(model_type="qwen3", vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=1,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=16),
         vision_config=dict(hidden_size=32, intermediate_size=48, num_hidden_layers=1, num_attention_heads=2,
                            image_size=56, patch_size=14)),
]
VARIANTS["minicpmv4_6"] = MINICPM_V
VARIANTS["minicpmv4_7"] = MINICPM_V[:4]

# Granite 4 Vision: LLaVA-NeXT's tiles over CLIP or SigLIP, a Granite text model, a Q-Former window
# downsampler per deepstack pair and four spatial ones. The class defaults leave `downsample_rate` and
# `deepstack_layer_map` None and do not build: the first variant adds granite-vision-4.1's two, the second
# is granite-vision-4.1-4b's shape as quoted in public third-party code (docling-mlx tests), not a
# downloaded config.
G4V_REQUIRED = dict(downsample_rate="4/8", deepstack_layer_map=[[-19, 9], [-13, 6], [-7, 3], [-1, 0]])
VARIANTS["granite4_vision"] = [
    dict(G4V_REQUIRED),
    dict(G4V_REQUIRED, image_token_index=100352, vision_feature_select_strategy="full",
         image_grid_pinpoints=[[384, 384], [384, 768], [384, 1152], [384, 1536], [768, 384], [768, 768],
                               [1152, 384], [1536, 384]],
         text_config=dict(attention_multiplier=0.015625, embedding_multiplier=12.0, hidden_size=2560,
                          intermediate_size=8192, logits_scaling=10.0, num_attention_heads=40, num_hidden_layers=40,
                          num_key_value_heads=8, residual_multiplier=0.22, rms_norm_eps=1e-5, vocab_size=100353,
                          pad_token_id=100256),
         vision_config=dict(model_type="siglip_vision_model", hidden_act="gelu_pytorch_tanh", hidden_size=1152,
                            image_size=384, intermediate_size=4304, layer_norm_eps=1e-6, num_attention_heads=16,
                            num_channels=3, num_hidden_layers=27, patch_size=16)),
    dict(downsample_rate="2/4", deepstack_layer_map=[[-1, 0], [-2, 1]], tie_word_embeddings=True,
         text_config=dict(vocab_size=500, hidden_size=48, intermediate_size=40, num_hidden_layers=3,
                          num_attention_heads=4, num_key_value_heads=2, attention_bias=True, mlp_bias=True),
         vision_config=dict(model_type="clip_vision_model", hidden_size=64, intermediate_size=40,
                            num_hidden_layers=2, num_attention_heads=4, image_size=64, patch_size=8)),
    dict(downsample_rate="3/6", deepstack_layer_map=[[0, 0]],
         qformer_config=dict(num_hidden_layers=2, intermediate_size=50, cross_attention_frequency=2,
                             use_qformer_text_input=True),
         text_config=dict(vocab_size=300, hidden_size=32, intermediate_size=24, num_hidden_layers=2,
                          num_attention_heads=4, tie_word_embeddings=True),
         vision_config=dict(model_type="siglip_vision_model", hidden_size=128, intermediate_size=30,
                            num_hidden_layers=3, num_attention_heads=4, num_channels=1, image_size=48, patch_size=8,
                            vision_use_head=True)),
    dict(downsample_rate="1/2", deepstack_layer_map=[],
         text_config=dict(vocab_size=256, hidden_size=40, intermediate_size=16, num_hidden_layers=2,
                          num_attention_heads=5, num_key_value_heads=1),
         vision_config=dict(model_type="siglip_vision_model", hidden_size=64, intermediate_size=20,
                            num_hidden_layers=2, num_attention_heads=2, image_size=32, patch_size=4,
                            vision_use_head=False)),
    # a partial qformer_config: Blip2QFormerConfig's defaults fill it (12 layers, cross-attention every 2nd)
    dict(downsample_rate="4/8", deepstack_layer_map=[[1, 0], [2, 1], [3, 2], [-1, 3], [-2, 4]],
         spatial_target_layers=[0, 1], qformer_config=dict(intermediate_size=64),
         text_config=dict(vocab_size=128, hidden_size=64, intermediate_size=96, num_hidden_layers=5,
                          num_attention_heads=8, num_key_value_heads=8),
         vision_config=dict(model_type="clip_vision_model", hidden_size=192, intermediate_size=16,
                            num_hidden_layers=4, num_attention_heads=3, image_size=96, patch_size=12)),
]

# DeepSeek-VL, DeepSeek-VL hybrid and Janus (Janus-Pro): a Llama language model, a SigLIP tower (Janus's own
# SigLIP-like ViT), the hybrid's SAM tower at 1024 px, Janus's VQ-VAE and generation head. Configs from
# /work/scratch's analysis (class defaults, checkpoint-like shapes written from their conversion scripts,
# tiny variants); the "assumed dims" ones are illustrations, not downloaded configs.
DSVL_TINY_llama = dict(vocab_size=1000, hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2)
DSVL_TINY_qwen = dict(model_type="qwen2", vocab_size=1200, hidden_size=96, intermediate_size=192, num_hidden_layers=3,
                 num_attention_heads=6, num_key_value_heads=2)
DSVL_TINY_siglip = dict(hidden_size=48, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, image_size=64,
                   patch_size=16)
DSVL_TINY_sam = dict(hidden_size=48, num_hidden_layers=4, num_attention_heads=4, image_size=128, patch_size=16,
                output_channels=32, window_size=4, global_attn_indexes=[1, 3])

DSVL_CASES = {
    "deepseek_vl": [
        ("class defaults", {}),
        ("1.3b-chat-like (assumed dims)", dict(
            text_config=dict(vocab_size=102400, hidden_size=2048, intermediate_size=5632, num_hidden_layers=24,
                             num_attention_heads=16, num_key_value_heads=16),
            vision_config=dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
                               image_size=384, patch_size=16, vision_use_head=False),
            tie_word_embeddings=False)),
        ("tiny A tied, head on", dict(text_config=DSVL_TINY_llama, vision_config=DSVL_TINY_siglip)),
        ("tiny B untied, no head, attn/mlp bias", dict(
            text_config={**DSVL_TINY_llama, "attention_bias": True, "mlp_bias": True, "head_dim": 32},
            vision_config={**DSVL_TINY_siglip, "vision_use_head": False, "image_size": 96}, tie_word_embeddings=False)),
        ("tiny C MHA, wide vision", dict(
            text_config={**DSVL_TINY_llama, "num_key_value_heads": 4, "num_hidden_layers": 3},
            vision_config={**DSVL_TINY_siglip, "hidden_size": 80, "num_attention_heads": 5, "patch_size": 8},
            tie_word_embeddings=True)),
    ],
    "deepseek_vl_hybrid": [
        ("class defaults", {}),
        ("7b-chat (convert script config)", dict(
            text_config=dict(hidden_size=4096, intermediate_size=11008, max_position_embeddings=16384,
                             num_attention_heads=32, num_hidden_layers=30, vocab_size=102400),
            vision_config=dict(hidden_size=1024, intermediate_size=4096, image_size=384, patch_size=16,
                               hidden_act="gelu", vision_use_head=False, num_attention_heads=16, num_hidden_layers=24),
            high_res_vision_config=dict(hidden_size=768, intermediate_size=3072, image_size=1024, patch_size=16,
                                        num_attention_heads=12, num_hidden_layers=12))),
        ("7b-chat same, tie=False", dict(
            text_config=dict(hidden_size=4096, intermediate_size=11008, num_attention_heads=32, num_hidden_layers=30,
                             vocab_size=102400),
            vision_config=dict(hidden_size=1024, intermediate_size=4096, image_size=384, patch_size=16,
                               vision_use_head=False, num_attention_heads=16, num_hidden_layers=24),
            tie_word_embeddings=False)),
        ("tiny A", dict(text_config=DSVL_TINY_llama, vision_config=DSVL_TINY_siglip, high_res_vision_config=DSVL_TINY_sam)),
        ("tiny B no relpos/abspos, mlp_ratio 2", dict(
            text_config={**DSVL_TINY_llama, "hidden_size": 72, "num_attention_heads": 6, "num_key_value_heads": 3},
            vision_config={**DSVL_TINY_siglip, "vision_use_head": False},
            high_res_vision_config={**DSVL_TINY_sam, "use_rel_pos": False, "use_abs_pos": False, "mlp_ratio": 2.0,
                                    "qkv_bias": False}, tie_word_embeddings=False)),
        ("tiny C H=50 (H//2=25), explicit mlp_dim", dict(
            text_config={**DSVL_TINY_llama, "hidden_size": 50, "num_attention_heads": 5, "num_key_value_heads": 5},
            vision_config=DSVL_TINY_siglip,
            high_res_vision_config={**DSVL_TINY_sam, "mlp_dim": 100, "output_channels": 24, "global_attn_indexes": [0]})),
    ],
    "janus": [
        ("class defaults", {}),
        ("Janus-Pro-1B-like (assumed dims)", dict(
            text_config=dict(vocab_size=102400, hidden_size=2048, intermediate_size=5632, num_hidden_layers=24,
                             num_attention_heads=16, num_key_value_heads=16),
            vision_config=dict(image_size=384, projection_dim=2048, depth=2),
            vq_config=dict(embed_dim=8, num_embeddings=16384, projection_dim=2048, image_token_embed_dim=2048),
            tie_word_embeddings=False)),
        ("tiny A", dict(
            text_config=DSVL_TINY_llama,
            vision_config=dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, image_size=64, patch_size=16,
                               projection_dim=64, depth=2),
            vq_config=dict(embed_dim=4, num_embeddings=256, base_channels=32, channel_multiplier=[1, 2], num_res_blocks=1,
                           latent_channels=32, projection_dim=64, image_token_embed_dim=64, num_hidden_layers=2))),
        ("tiny B qk_norm, no attn bias, depth 3, dbl latent", dict(
            text_config={**DSVL_TINY_llama, "num_key_value_heads": 1},
            vision_config=dict(hidden_size=48, num_hidden_layers=3, num_attention_heads=4, image_size=32, patch_size=8,
                               projection_dim=64, depth=3, use_qk_norm=True, attention_bias=False, mlp_ratio=2.5),
            vq_config=dict(embed_dim=8, num_embeddings=300, base_channels=32, channel_multiplier=[1, 1, 2],
                           num_res_blocks=2, latent_channels=64, double_latent=True, projection_dim=64,
                           image_token_embed_dim=64, num_hidden_layers=3),
            tie_word_embeddings=False)),
        ("tiny C depth 1, 1 gen layer", dict(
            text_config={**DSVL_TINY_llama, "hidden_size": 96, "num_attention_heads": 8, "num_key_value_heads": 8},
            vision_config=dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=48, patch_size=16,
                               projection_dim=96, depth=1),
            vq_config=dict(embed_dim=16, num_embeddings=128, base_channels=64, channel_multiplier=[1, 2, 2, 1],
                           num_res_blocks=1, latent_channels=32, projection_dim=96, image_token_embed_dim=96,
                           num_hidden_layers=1, in_channels=1, out_channels=4))),
    ],
}
for _t, _cases in DSVL_CASES.items():
    VARIANTS[_t] = [_c for _, _c in _cases]
WRAPPERS |= {"deepseek_vl", "deepseek_vl_hybrid", "janus"}

# Phi-4-multimodal: a flat Phi-3 decoder config with a SigLIP tower (pooling head built) and a Conformer audio
# encoder always built. Class defaults, the released checkpoint's shape as transformers' conversion script writes
# it (24 heads, tied, relative-position buckets 500: not a downloaded config) and five small variants.
PHI4MM_SMALL = [
    dict(
        label="small A: tied, GQA 4/2, vis depth 3, audio 2",
        text=dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, tie_word_embeddings=True),
        vis=dict(hidden_size=48, intermediate_size=80, num_hidden_layers=3, num_attention_heads=4, image_size=56,
                 patch_size=14),
        aud=dict(hidden_size=32, intermediate_size=40, num_blocks=2, num_attention_heads=4, ext_pw_out_channel=32,
                 depthwise_separable_out_channel=32, nemo_conv_channels=16, bias_max_distance=50),
    ),
    dict(
        label="small B: untied, MHA 8/8, vis depth 1, audio 3, tr=4",
        text=dict(vocab_size=777, hidden_size=96, intermediate_size=200, num_hidden_layers=3, num_attention_heads=8,
                  num_key_value_heads=8, tie_word_embeddings=False),
        vis=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2, image_size=70,
                 patch_size=14),
        aud=dict(hidden_size=48, intermediate_size=64, num_blocks=3, num_attention_heads=6, ext_pw_out_channel=48,
                 depthwise_separable_out_channel=48, nemo_conv_channels=8, time_reduction=4, kernel_size=5,
                 bias_symmetric=True, bias_max_distance=30),
    ),
    dict(
        label="small C: untied, MQA 6/1, vis depth 4, audio 1, ds=2",
        text=dict(vocab_size=500, hidden_size=48, intermediate_size=64, num_hidden_layers=5, num_attention_heads=6,
                  num_key_value_heads=1, tie_word_embeddings=False),
        vis=dict(hidden_size=32, intermediate_size=48, num_hidden_layers=4, num_attention_heads=4, image_size=28,
                 patch_size=7),
        aud=dict(hidden_size=24, intermediate_size=30, num_blocks=1, num_attention_heads=3, ext_pw_out_channel=24,
                 depthwise_separable_out_channel=24, nemo_conv_channels=12, time_reduction=16, downsample_rate=2,
                 depthwise_multiplier=2, input_size=64),
    ),
    dict(
        label="small D: tied, 12/4 heads, head_dim override, vis 2, audio 4",
        text=dict(vocab_size=2048, hidden_size=120, intermediate_size=256, num_hidden_layers=1, num_attention_heads=12,
                  num_key_value_heads=4, tie_word_embeddings=True, head_dim=16),
        vis=dict(hidden_size=40, intermediate_size=60, num_hidden_layers=2, num_attention_heads=5, image_size=42,
                 patch_size=14),
        aud=dict(hidden_size=16, intermediate_size=20, num_blocks=4, num_attention_heads=2, ext_pw_out_channel=16,
                 depthwise_separable_out_channel=16, nemo_conv_channels=4, kernel_size=1),
    ),
    dict(
        label="small E: untied, 32 layers-ish deep small, odd patches (15x15)",
        text=dict(vocab_size=300, hidden_size=32, intermediate_size=40, num_hidden_layers=8, num_attention_heads=2,
                  num_key_value_heads=1, tie_word_embeddings=False),
        vis=dict(hidden_size=24, intermediate_size=36, num_hidden_layers=5, num_attention_heads=3, image_size=210,
                 patch_size=14),
        aud=dict(hidden_size=20, intermediate_size=24, num_blocks=2, num_attention_heads=4, ext_pw_out_channel=20,
                 depthwise_separable_out_channel=20, nemo_conv_channels=6),
    ),
]
VARIANTS["phi4_multimodal"] = [
    {},
    dict(num_attention_heads=24, num_key_value_heads=8, tie_word_embeddings=True, sliding_window=262144,
         rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.75},
         audio_config=dict(bias_max_distance=500), vision_config=dict(crop_size=448)),
] + [dict(s["text"], pad_token_id=0, bos_token_id=0, eos_token_id=[1], vision_config=s["vis"], audio_config=s["aud"])
     for s in PHI4MM_SMALL]

# VideoLLaMA3: Qwen2 (or any text model_type) + SigLIP's encoder without a position table or head + a two-linear
# projector; tied when either flag is
VL3_TEXT = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, pad_token_id=0)
VL3_VIS = dict(hidden_size=48, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4, patch_size=14)
VARIANTS["video_llama_3"] = [
    {},
    dict(text_config=VL3_TEXT, vision_config=VL3_VIS),
    dict(text_config=dict(VL3_TEXT, num_key_value_heads=1, tie_word_embeddings=True),
         vision_config=dict(VL3_VIS, patch_size=16)),
    dict(text_config=dict(VL3_TEXT, num_key_value_heads=4), vision_config=dict(VL3_VIS, patch_size=8, num_channels=1),
         tie_word_embeddings=True),
    dict(text_config=dict(VL3_TEXT, head_dim=32), vision_config=dict(VL3_VIS, hidden_size=96, num_hidden_layers=3)),
    dict(text_config=dict(VL3_TEXT, model_type="llama", hidden_size=80, num_attention_heads=5, num_key_value_heads=5),
         vision_config=dict(VL3_VIS, patch_size=7)),
    # a 2B-like shape: Qwen2.5-1.5B's text sizes and SigLIP-so400m at 14 px, tied (written here, not downloaded)
    dict(text_config=dict(vocab_size=151936, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                          num_attention_heads=12, num_key_value_heads=2, tie_word_embeddings=True),
         vision_config=dict(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16,
                            patch_size=14)),
]
WRAPPERS |= {"video_llama_3"}

# Classic decoders on existing layers (2021-23): GPT-SW3 is GPT-2's classes; CodeGen is GPT-J's layout with a fused
# qkv_proj; OpenAI GPT has GPT-2's layers without the final norm; BioGPT is OPT's layers with intermediate_size; XGLM is
# OPT's with sinusoidal positions; CTRL has sinusoidal positions and a biased head; Persimmon is GPT-NeoX's with
# LayerNorm q/k norms and a relu² MLP.
VARIANTS["gpt-sw3"] = [
    {},
    dict(vocab_size=1000, n_embd=64, n_layer=3, n_head=4, n_positions=128),
    dict(vocab_size=500, n_embd=48, n_layer=2, n_head=6, n_positions=64, n_inner=100),
]
VARIANTS["codegen"] = [
    {},
    dict(vocab_size=1000, n_embd=64, n_layer=3, n_head=4, rotary_dim=8, n_positions=128),
    dict(vocab_size=500, n_embd=48, n_layer=2, n_head=6, rotary_dim=4, n_inner=100, n_positions=64,
         tie_word_embeddings=True),
]
VARIANTS["openai-gpt"] = [
    {},
    dict(vocab_size=1000, n_embd=64, n_layer=3, n_head=4, n_positions=128),
    dict(vocab_size=500, n_embd=48, n_layer=2, n_head=6, n_positions=64),
]
VARIANTS["biogpt"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, num_hidden_layers=3, num_attention_heads=4, intermediate_size=96,
         max_position_embeddings=128, pad_token_id=1),
    dict(vocab_size=500, hidden_size=48, num_hidden_layers=2, num_attention_heads=6, intermediate_size=100,
         max_position_embeddings=64, pad_token_id=1),
]
VARIANTS["xglm"] = [
    {},
    dict(vocab_size=1000, d_model=64, num_layers=3, attention_heads=4, ffn_dim=96, max_position_embeddings=128,
         pad_token_id=1),
    dict(vocab_size=500, d_model=48, num_layers=2, attention_heads=6, ffn_dim=100, max_position_embeddings=64,
         pad_token_id=1),
]
VARIANTS["ctrl"] = [
    {},
    dict(vocab_size=1000, n_embd=64, n_layer=3, n_head=4, dff=96, n_positions=128),
    dict(vocab_size=500, n_embd=48, n_layer=2, n_head=6, dff=100, n_positions=64),
]
VARIANTS["persimmon"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, num_hidden_layers=3, num_attention_heads=4, intermediate_size=96,
         max_position_embeddings=128, pad_token_id=0),
    dict(vocab_size=500, hidden_size=48, num_hidden_layers=2, num_attention_heads=6, intermediate_size=100,
         max_position_embeddings=64, qk_layernorm=False, tie_word_embeddings=True, pad_token_id=0),
]

# Gemma 4's MTP drafters (speculative decoding): every layer reads the main model's keys and values (no k/v
# projections, no cache), pre/post projections to the backbone's width, an optional centroid head. The released
# drafters' shapes are as reported in a third-party summary (written here, not downloaded).
G4A_TINY = dict(vocab_size=512, hidden_size=32, intermediate_size=64, num_hidden_layers=4, num_attention_heads=4,
                num_key_value_heads=2, head_dim=16, global_head_dim=32, hidden_size_per_layer_input=0,
                vocab_size_per_layer_input=0)
G4A_TINY_U = {k: v for k, v in G4A_TINY.items() if "per_layer_input" not in k}
G4A_NOPLE = dict(hidden_size_per_layer_input=0, vocab_size_per_layer_input=0)


def g4a_real(H, I, nh, kv, gkv, keqv, W, mpe):
    return dict(hidden_size=H, intermediate_size=I, num_hidden_layers=4, num_attention_heads=nh, num_key_value_heads=kv,
                num_global_key_value_heads=gkv, attention_k_eq_v=keqv, head_dim=256, global_head_dim=512,
                sliding_window=W, max_position_embeddings=mpe, num_kv_shared_layers=4, vocab_size=262144,
                layer_types=["sliding_attention"] * 3 + ["full_attention"], **G4A_NOPLE)


VARIANTS["gemma4_assistant"] = [
    dict(text_config=dict(G4A_NOPLE)),
    dict(backbone_hidden_size=1536, use_ordered_embeddings=True, text_config=g4a_real(256, 2048, 4, 1, None, False, 512, 131072)),
    dict(backbone_hidden_size=2816, text_config=g4a_real(1024, 8192, 16, 8, 2, True, 1024, 262144)),
    dict(backbone_hidden_size=48, tie_word_embeddings=False, text_config=dict(G4A_TINY)),
    dict(backbone_hidden_size=40, use_ordered_embeddings=True, num_centroids=8,
         text_config=dict(G4A_TINY, num_hidden_layers=7, attention_bias=True)),
    dict(backbone_hidden_size=24, text_config=dict(G4A_TINY, num_hidden_layers=3, tie_word_embeddings=False,
                                                  num_kv_shared_layers=3,
                                                  layer_types=["full_attention", "sliding_attention", "full_attention"])),
    dict(backbone_hidden_size=64, tie_word_embeddings=False,
         text_config=dict(G4A_TINY, tie_word_embeddings=True, attention_k_eq_v=True, num_global_key_value_heads=1,
                          global_head_dim=64)),
]
VARIANTS["gemma4_unified_assistant"] = [
    {},
    dict(backbone_hidden_size=40, tie_word_embeddings=False, use_ordered_embeddings=True, num_centroids=16,
         text_config=dict(G4A_TINY_U)),
    dict(backbone_hidden_size=40, text_config=dict(G4A_TINY_U, num_hidden_layers=6, num_kv_shared_layers=4,
                                                  use_double_wide_mlp=True, attention_k_eq_v=True,
                                                  num_global_key_value_heads=1,
                                                  layer_types=["sliding_attention", "full_attention"] * 3)),
    dict(backbone_hidden_size=16, text_config=dict(G4A_TINY_U, num_hidden_layers=1, attention_bias=True)),
]

# Cosmos3-Nano (`cosmos3_omni`): Qwen3-VL's wrapper exactly (its text model Qwen3's, its tower and DeepStack mergers)
C3O_TEXT = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                num_key_value_heads=2, head_dim=16, bos_token_id=1, eos_token_id=2)
C3O_VIS = dict(hidden_size=32, intermediate_size=48, depth=3, num_heads=2, patch_size=4, num_position_embeddings=16,
               out_hidden_size=64, deepstack_visual_indexes=[0, 2])
VARIANTS["cosmos3_omni"] = [
    {},
    dict(text_config=C3O_TEXT, vision_config=C3O_VIS),
    dict(text_config=dict(C3O_TEXT, attention_bias=True), vision_config=dict(C3O_VIS, deepstack_visual_indexes=[]),
         tie_word_embeddings=True),
    dict(text_config=C3O_TEXT, vision_config=dict(C3O_VIS, spatial_merge_size=3, temporal_patch_size=1, depth=4,
                                                  deepstack_visual_indexes=[0, 1, 2, 3])),
    dict(text_config=dict(C3O_TEXT, num_key_value_heads=None, tie_word_embeddings=True), vision_config=C3O_VIS),
]
WRAPPERS |= {"cosmos3_omni"}

# Inkling (Thinking Machines): relative-position attention with short convolutions on k and v, MoE on every layer
# (inkling2) or shared experts and dense layers (inkling); inkling2_loop runs a middle section several times. The
# sliding and full layers may differ in key heads and width (q heads equal, as in every released config).
INK2_A = dict(vocab_size=1000, unpadded_vocab_size=990, hidden_size=64, num_hidden_layers=6, num_attention_heads=4,
              num_key_value_heads=2, head_dim=16, swa_num_attention_heads=4, swa_num_key_value_heads=1, swa_head_dim=8,
              sliding_window_size=8, d_rel=4, rel_extent=12, conv_kernel_size=4, n_routed_experts=4,
              num_experts_per_tok=2, moe_intermediate_size=32, n_layers_per_attn_res_block=2)
INK2_B = dict(vocab_size=512, unpadded_vocab_size=500, hidden_size=48, num_hidden_layers=4, num_attention_heads=6,
              num_key_value_heads=3, head_dim=10, swa_num_attention_heads=6, swa_num_key_value_heads=2, swa_head_dim=12,
              sliding_window_size=5, d_rel=3, rel_extent=7, conv_kernel_size=3, n_routed_experts=5, num_experts_per_tok=2,
              moe_intermediate_size=40, layer_types=["hybrid", "hybrid_sliding", "hybrid", "hybrid_sliding"],
              n_layers_per_attn_res_block=1)
INK2_E = dict(vocab_size=300, unpadded_vocab_size=280, hidden_size=24, num_hidden_layers=12, num_attention_heads=3,
              num_key_value_heads=1, head_dim=6, swa_num_attention_heads=3, swa_num_key_value_heads=3, swa_head_dim=5,
              sliding_window_size=4, d_rel=5, rel_extent=9, conv_kernel_size=4, n_routed_experts=6, num_experts_per_tok=3,
              moe_intermediate_size=8, n_layers_per_attn_res_block=3)
VARIANTS["inkling2_text"] = [
    {},
    INK2_A,
    INK2_B,
    dict(vocab_size=300, unpadded_vocab_size=300, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
         num_key_value_heads=1, head_dim=24, swa_num_attention_heads=2, d_rel=8, rel_extent=20, sliding_window_size=16,
         conv_kernel_size=2, n_routed_experts=2, num_experts_per_tok=1, moe_intermediate_size=16, layer_types=["hybrid"]),
    dict(vocab_size=300, unpadded_vocab_size=256, hidden_size=40, num_hidden_layers=3, num_attention_heads=4,
         num_key_value_heads=4, head_dim=8, swa_num_attention_heads=4, swa_num_key_value_heads=2, swa_head_dim=12,
         sliding_window_size=6, d_rel=2, rel_extent=30, conv_kernel_size=5, n_routed_experts=3, num_experts_per_tok=2,
         moe_intermediate_size=20, layer_types=["hybrid_sliding"] * 3, n_layers_per_attn_res_block=1),
    INK2_E,
]
VARIANTS["inkling2_loop_text"] = [
    {},
    dict(INK2_A, loop_layer_index_start=2, loop_layer_index_end=6, loop_num_passes=3, loop_gate_rank=8),
    dict(INK2_B, loop_layer_index_start=1, loop_layer_index_end=3, loop_num_passes=2, loop_gate_rank=5),
    dict(INK2_E, loop_layer_index_start=3, loop_layer_index_end=9, loop_num_passes=2, loop_gate_rank=4),
    dict(INK2_E, loop_layer_index_start=6, loop_layer_index_end=6, loop_num_passes=3, loop_gate_rank=4),
    dict(INK2_A, loop_config=dict(core_start=2, core_end=4, num_passes=4, gate_rank=6)),
]
VARIANTS["inkling_text"] = [
    {},
    dict(vocab_size=1000, unpadded_vocab_size=990, hidden_size=64, num_hidden_layers=6, num_attention_heads=4,
         num_key_value_heads=2, head_dim=16, swa_num_attention_heads=4, swa_num_key_value_heads=1, swa_head_dim=8,
         sliding_window_size=8, d_rel=4, rel_extent=12, conv_kernel_size=4, n_routed_experts=4, num_experts_per_tok=2,
         n_shared_experts=2, moe_intermediate_size=32, intermediate_size=96),
    dict(vocab_size=512, hidden_size=48, num_hidden_layers=4, num_attention_heads=2, num_key_value_heads=1,
         head_dim=10, swa_num_attention_heads=2, swa_num_key_value_heads=1, swa_head_dim=24, sliding_window_size=5,
         d_rel=3, rel_extent=7, conv_kernel_size=3, n_routed_experts=5, num_experts_per_tok=2, n_shared_experts=1,
         moe_intermediate_size=40, intermediate_size=72, dense_mlp_idx=2, local_layer_ids=[0, 1, 2, 3]),
    dict(vocab_size=300, unpadded_vocab_size=256, hidden_size=40, num_hidden_layers=3, num_attention_heads=4,
         num_key_value_heads=4, head_dim=8, swa_num_attention_heads=4, swa_num_key_value_heads=2, swa_head_dim=12,
         sliding_window_size=6, d_rel=2, rel_extent=30, conv_kernel_size=5, n_routed_experts=3, num_experts_per_tok=2,
         n_shared_experts=1, intermediate_size=20, dense_intermediate_size=60,
         layer_types=["hybrid_sliding", "hybrid", "hybrid_sliding"], mlp_layer_types=["sparse", "dense", "sparse"]),
    dict(vocab_size=300, hidden_size=24, num_hidden_layers=12, num_attention_heads=3, num_key_value_heads=1,
         head_dim=6, swa_num_attention_heads=3, swa_num_key_value_heads=3, swa_head_dim=5, sliding_window_size=4,
         d_rel=5, rel_extent=9, conv_kernel_size=4, n_routed_experts=6, num_experts_per_tok=3, n_shared_experts=2,
         moe_intermediate_size=8, intermediate_size=30, local_layer_ids=[0, 1, 2, 3, 9]),
]

# HRM-Text: an L and an H stack of Llama-like layers with an output gate and weightless norms, run H_cycles ×
# (L_cycles + 1) times (each run its own cache slot); num_hidden_layers is rewritten to the run count unless
# num_layers_per_stack is given
VARIANTS["hrm_text"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, head_dim=16),
    dict(vocab_size=777, hidden_size=48, intermediate_size=80, num_hidden_layers=3, num_attention_heads=6, head_dim=12,
         attention_bias=True, mlp_bias=True, tie_word_embeddings=True, H_cycles=3, L_cycles=2, L_bp_cycles=[1, 2]),
    dict(vocab_size=500, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, head_dim=24,
         attention_bias=True, H_cycles=1, L_cycles=4),
    dict(vocab_size=640, hidden_size=40, intermediate_size=72, num_hidden_layers=4, num_attention_heads=5, head_dim=8,
         mlp_bias=True, H_cycles=2, L_cycles=1),
    dict(_raw=True, vocab_size=300, hidden_size=32, intermediate_size=48, num_hidden_layers=12, num_layers_per_stack=2,
         num_attention_heads=4, head_dim=8, H_cycles=2, L_cycles=2),
]

# Nemotron-H Omni: NemotronH's text model exactly, a RADIO tower, a pixel-shuffle projector, an optional Parakeet audio
# encoder with its projector (the released shape is written from a third-party summary, not downloaded)
NHO_TEXT = dict(vocab_size=1000, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                mamba_num_heads=8, mamba_head_dim=16, n_groups=2, ssm_state_size=16, intermediate_size=96,
                n_routed_experts=4, moe_intermediate_size=32, moe_shared_expert_intermediate_size=48, num_experts_per_tok=2)
NHO_VIS = dict(hidden_size=48, num_hidden_layers=2, num_attention_heads=4, max_img_size=256, video_temporal_patch_size=2)
NHO_AUDIO = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                 subsampling_conv_channels=16, num_mel_bins=128, projection_hidden_size=80, projection_bias=False)
VARIANTS["nemotron_h_omni"] = [
    {},
    dict(audio_config=dict(projection_hidden_size=4096, projection_bias=False)),
    dict(text_config=dict(NHO_TEXT, hybrid_override_pattern="ME*-"), vision_config=NHO_VIS, vision_hidden_size=48,
         projector_hidden_size=40),
    dict(text_config=dict(NHO_TEXT, layers_block_type=["linear_attention", "moe", "full_attention", "moe", "mlp",
                                                       "linear_attention"],
                          use_bias=True, mlp_bias=True, use_conv_bias=False, num_nextn_predict_layers=1,
                          conv_kernel=3, tie_word_embeddings=True),
         vision_config=dict(NHO_VIS, use_swiglu_ffn=True, qkv_bias=False, mlp_ratio=3.0, num_cls_tokens=2, num_registers=2,
                            patch_size=14),
         vision_hidden_size=48, projector_hidden_size=56),
    dict(text_config=dict(NHO_TEXT, hybrid_override_pattern="M*M*E", num_attention_heads=8, num_key_value_heads=8,
                          head_dim=8),
         vision_config=dict(NHO_VIS, num_hidden_layers=3, hidden_size=40, num_attention_heads=5, max_img_size=300),
         vision_hidden_size=24, downsample_ratio=0.25, projector_hidden_size=33, audio_config=NHO_AUDIO),
    dict(text_config=dict(NHO_TEXT, hybrid_override_pattern="MMMM*E", tie_word_embeddings=True), vision_config=NHO_VIS,
         vision_hidden_size=48, tie_word_embeddings=True,
         audio_config=dict(NHO_AUDIO, attention_bias=True, convolution_bias=False, subsampling_factor=4, conv_kernel_size=7,
                           subsampling_conv_kernel_size=5, num_mel_bins=80, projection_bias=True)),
]
WRAPPERS |= {"nemotron_h_omni"}

# Molmo2: Qwen3's (or OLMo-2's) decoder with extra embedding rows and an unbiased o_proj, a SigLIP-like tower without
# its final norm, a pooling cross-attention and a SwiGLU projector; never tied
VARIANTS["molmo2"] = [
    {},
    dict(text_config=dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=1000,
                          additional_vocab_size=16, num_hidden_layers=3, intermediate_size=96, attention_bias=True),
         vision_config=dict(hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4,
                            num_key_value_heads=4, head_dim=8),
         adapter_config=dict(vision_feature_layer=[-1, 0], hidden_size=32, num_attention_heads=4, num_key_value_heads=4,
                             head_dim=8, intermediate_size=40, text_hidden_size=64), tie_word_embeddings=True),
    dict(text_config=dict(hidden_size=48, num_attention_heads=6, num_key_value_heads=3, head_dim=20, vocab_size=777,
                          additional_vocab_size=0, num_hidden_layers=2, intermediate_size=100, qk_norm_type="olmo",
                          norm_after=True),
         vision_config=dict(hidden_size=24, intermediate_size=40, num_hidden_layers=2, num_attention_heads=3,
                            num_key_value_heads=1, head_dim=10),
         adapter_config=dict(vision_feature_layer=[1], hidden_size=24, num_attention_heads=3, num_key_value_heads=3,
                             head_dim=8, intermediate_size=30, text_hidden_size=48)),
    dict(text_config=dict(hidden_size=32, num_attention_heads=2, num_key_value_heads=1, head_dim=16, vocab_size=500,
                          additional_vocab_size=128, num_hidden_layers=1, intermediate_size=64),
         vision_config=dict(hidden_size=40, intermediate_size=56, num_hidden_layers=4, num_attention_heads=5,
                            num_key_value_heads=5, head_dim=8, image_size=[224, 320], patch_size=16, num_channels=1,
                            attention_bias=False),
         adapter_config=dict(vision_feature_layer=[3, 1, -1], hidden_size=40, num_attention_heads=2,
                             num_key_value_heads=1, head_dim=12, intermediate_size=50, text_hidden_size=32, mlp_bias=True,
                             attention_bias=False)),
    dict(text_config=dict(hidden_size=56, num_attention_heads=7, num_key_value_heads=7, head_dim=8, vocab_size=300,
                          num_hidden_layers=2, intermediate_size=70),
         vision_config=dict(hidden_size=36, intermediate_size=44, num_hidden_layers=2, num_attention_heads=6,
                            num_key_value_heads=2, head_dim=6, num_position_embeddings=50),
         adapter_config=dict(vision_feature_layer=[0, 1, 0, 1], hidden_size=20, num_attention_heads=5,
                             num_key_value_heads=5, head_dim=4, intermediate_size=33, text_hidden_size=56, mlp_bias=True)),
    # the Hub's legacy layout, written as given: `vit_config` (trimmed to the deepest feature layer) and `vit_layers`
    dict(_raw=True, text_config=dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=4, head_dim=8,
                                     vocab_size=256, num_hidden_layers=2, intermediate_size=64, qkv_bias=True),
         vit_config=dict(hidden_size=16, intermediate_size=24, num_hidden_layers=9, num_attention_heads=2,
                         num_key_value_heads=2, head_dim=8, image_default_input_size=[112, 112], image_patch_size=14),
         adapter_config=dict(vit_layers=[-3, -6], hidden_size=16, num_attention_heads=2, num_key_value_heads=2,
                             head_dim=8, intermediate_size=24, text_hidden_size=32)),
]
WRAPPERS |= {"molmo2"}

# DeepSeek-OCR 2: SAM's ViT-B with two convs, a Qwen2 stack as encoder with learned queries, a linear projector, and
# DeepSeek-V2's MoE decoder without MLA (its dense and sparse layers only from mlp_layer_types). The released shape is
# as a third-party test fixture states it, not downloaded.
OCR2_SAM = dict(hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, image_size=1024,
                patch_size=16, window_size=14, global_attn_indexes=[2, 5, 8, 11], downsample_channels=[512, 896])
VARIANTS["deepseek_ocr2"] = [
    dict(text_config=dict(vocab_size=129280, hidden_size=1280, intermediate_size=6848, num_hidden_layers=12,
                          num_attention_heads=10, num_key_value_heads=10, n_routed_experts=64, n_shared_experts=2,
                          moe_intermediate_size=896, num_experts_per_tok=6,
                          mlp_layer_types=["dense"] + ["sparse"] * 11),
         vision_config=dict(sam_config=OCR2_SAM, encoder_config=dict(hidden_size=896, intermediate_size=4864,
                                                                     num_hidden_layers=24, num_attention_heads=14,
                                                                     num_key_value_heads=2))),
    dict(text_config=dict(vocab_size=77, hidden_size=48, intermediate_size=64, num_hidden_layers=3, num_attention_heads=6,
                          num_key_value_heads=2, attention_bias=True, mlp_bias=True, n_routed_experts=5,
                          n_shared_experts=3, moe_intermediate_size=12, num_experts_per_tok=2,
                          mlp_layer_types=["sparse", "dense", "sparse"]),
         vision_config=dict(sam_config=dict(hidden_size=32, output_channels=16, num_hidden_layers=3,
                                            num_attention_heads=4, image_size=64, patch_size=8, window_size=3,
                                            global_attn_indexes=[1], downsample_channels=[24, 40]),
                            encoder_config=dict(hidden_size=40, intermediate_size=56, num_hidden_layers=2,
                                                num_attention_heads=4, num_key_value_heads=2)),
         tie_word_embeddings=True),
    dict(text_config=dict(vocab_size=33, hidden_size=16, intermediate_size=24, num_hidden_layers=2, num_attention_heads=2,
                          n_routed_experts=3, n_shared_experts=1, moe_intermediate_size=8, num_experts_per_tok=1,
                          mlp_layer_types=["sparse", "sparse"]),
         vision_config=dict(sam_config=dict(hidden_size=24, output_channels=8, num_hidden_layers=2, num_attention_heads=3,
                                            image_size=48, patch_size=16, qkv_bias=False, use_abs_pos=False,
                                            use_rel_pos=False, mlp_dim=50, downsample_channels=[12, 20]),
                            encoder_config=dict(hidden_size=20, intermediate_size=30, num_hidden_layers=1,
                                                num_attention_heads=5, num_key_value_heads=1))),
    dict(text_config=dict(vocab_size=64, hidden_size=32, intermediate_size=40, num_hidden_layers=4, num_attention_heads=4,
                          n_routed_experts=4, n_shared_experts=2, moe_intermediate_size=8, num_experts_per_tok=2,
                          mlp_layer_types=["dense", "dense", "sparse", "dense"]),
         vision_config=dict(sam_config=dict(hidden_size=16, output_channels=8, num_hidden_layers=2, num_attention_heads=2,
                                            image_size=100, patch_size=16, window_size=0, global_attn_indexes=[],
                                            mlp_ratio=2.5, downsample_channels=[8, 16]),
                            encoder_config=dict(hidden_size=16, intermediate_size=20, num_hidden_layers=2,
                                                num_attention_heads=4, num_key_value_heads=4))),
    dict(text_config=dict(vocab_size=101, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=8,
                          num_key_value_heads=4, mlp_bias=True, n_routed_experts=6, n_shared_experts=0,
                          moe_intermediate_size=16, num_experts_per_tok=3, mlp_layer_types=["sparse", "dense"]),
         vision_config=dict(sam_config=dict(hidden_size=32, output_channels=16, num_hidden_layers=4, num_attention_heads=2,
                                            image_size=32, patch_size=4, window_size=5, global_attn_indexes=[0, 3],
                                            downsample_channels=[16, 32]),
                            encoder_config=dict(hidden_size=32, intermediate_size=48, num_hidden_layers=3,
                                                num_attention_heads=8, num_key_value_heads=2)),
         tie_word_embeddings=False),
    dict(text_config=dict(vocab_size=40, hidden_size=24, intermediate_size=30, num_hidden_layers=1, num_attention_heads=3,
                          n_routed_experts=2, n_shared_experts=1, moe_intermediate_size=6, num_experts_per_tok=1,
                          mlp_layer_types=["sparse"]),
         vision_config=dict(sam_config=dict(hidden_size=16, output_channels=8, num_hidden_layers=1, num_attention_heads=4,
                                            num_channels=1, image_size=32, patch_size=8, window_size=2,
                                            global_attn_indexes=[], downsample_channels=[8, 12]),
                            encoder_config=dict(hidden_size=12, intermediate_size=16, num_hidden_layers=2,
                                                num_attention_heads=3, num_key_value_heads=1, head_dim=8)),
         tie_word_embeddings=True),
]
WRAPPERS |= {"deepseek_ocr2"}

# Muse Glimmer and Muse Spark: Gemma-3-like layers with an output gate and no q/k norm weights (Spark: residual gates
# and experts run at their own width), a windowed ViT, a two-linear adapter; Spark's conv audio tower
MUSE_T = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
              num_key_value_heads=2, head_dim=16, bos_token_id=1, eos_token_id=2)
MUSE_V = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2, patch_size=4,
              pos_emb_height=5, pos_emb_width=5)
SPARK_T = dict(MUSE_T, num_local_experts=4, moe_intermediate_size=24, moe_hidden_size=40, num_experts_per_tok=2)
SPARK_A = dict(hidden_sizes=[8, 16], patch_sizes=[4, 4], depths=[1, 1], num_hidden_layers=2, out_hidden_size=64)
VARIANTS["muse_glimmer"] = [
    {},
    dict(text_config=dict(MUSE_T, attention_bias=True), vision_config=MUSE_V, out_hidden_size=128,
         projector_hidden_size=40),
    dict(text_config=dict(MUSE_T, head_dim=24, num_key_value_heads=1), vision_config=dict(MUSE_V, patch_temporal=1),
         out_hidden_size=128, projector_hidden_size=40, tie_word_embeddings=True),
    dict(text_config=dict(MUSE_T, num_hidden_layers=5), vision_config=dict(MUSE_V, merge_size=3, pos_emb_height=4,
                                                                           pos_emb_width=6),
         out_hidden_size=288, projector_hidden_size=48),
    dict(text_config=dict(MUSE_T, tie_word_embeddings=True), vision_config=MUSE_V, out_hidden_size=128,
         projector_hidden_size=40),
]
VARIANTS["muse_spark"] = [
    {},
    dict(text_config=SPARK_T, vision_config=MUSE_V, audio_config=SPARK_A, out_hidden_size=128, projector_hidden_size=40),
    dict(text_config=dict(SPARK_T, mlp_layer_types=["dense", "sparse", "dense"], attention_bias=True),
         vision_config=MUSE_V, audio_config=SPARK_A, out_hidden_size=128, projector_hidden_size=40,
         tie_word_embeddings=True),
    dict(text_config=SPARK_T, vision_config=dict(MUSE_V, patch_temporal=1),
         audio_config=dict(hidden_sizes=[8, 12, 20], patch_sizes=[2, 3, 5], depths=[1, 3, 2], num_hidden_layers=3,
                           mlp_ratio=2.5, conv_kernel_size=5, out_hidden_size=64),
         out_hidden_size=128, projector_hidden_size=40),
    dict(text_config=dict(SPARK_T, head_dim=8, num_local_experts=3, mlp_layer_types=["sparse", "dense", "sparse"]),
         vision_config=MUSE_V, audio_config=dict(SPARK_A, hidden_sizes=[12, 18], mlp_ratio=1.3),
         out_hidden_size=128, projector_hidden_size=40),
]
WRAPPERS |= {"muse_glimmer", "muse_spark"}

# Inkling 2 and its looped form with images: the text CausalLM whole plus a ViT (class and position embeddings, layer
# scales) and a two-linear merger to the text width; `text_hidden_size` must equal the text model's width
INK2_V = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, patch_size=4, posemb_grid_size=8,
              spatial_merge_size=2, projection_hidden_dim=96, text_hidden_size=64)
INK2_LOOP_A = dict(INK2_A, loop_layer_index_start=2, loop_layer_index_end=6, loop_num_passes=3, loop_gate_rank=8)
for t, text_a, text_b in (("inkling2", INK2_A, INK2_B), ("inkling2_loop", INK2_LOOP_A,
                                                          dict(INK2_B, loop_layer_index_start=1, loop_layer_index_end=3,
                                                               loop_num_passes=2, loop_gate_rank=5))):
    VARIANTS[t] = [
        {},
        dict(text_config=text_a, vision_config=INK2_V),
        dict(text_config=text_b, vision_config=dict(hidden_size=96, num_hidden_layers=3, num_attention_heads=2,
                                                    patch_size=14, num_channels=1, posemb_grid_size=5,
                                                    spatial_merge_size=3, projection_hidden_dim=40, projector_bias=True,
                                                    text_hidden_size=48)),
        dict(text_config=text_a, vision_config=dict(hidden_size=32, intermediate_size=50, num_hidden_layers=1,
                                                    num_attention_heads=1, patch_size=8, posemb_grid_size=3,
                                                    spatial_merge_size=1, projection_hidden_dim=16, projector_bias=True,
                                                    text_hidden_size=64)),
        dict(text_config=dict(text_b, hidden_size=80),
             vision_config=dict(hidden_size=128, mlp_ratio=2.5, num_hidden_layers=0, num_attention_heads=8,
                                patch_size=2, num_channels=4, posemb_grid_size=16, projection_hidden_dim=256,
                                text_hidden_size=80)),
        dict(text_config=dict(text_a, tie_word_embeddings=True), tie_word_embeddings=True,
             vision_config=dict(INK2_V, hidden_size=48, num_attention_heads=3, patch_size=6, projection_hidden_dim=32)),
    ]
WRAPPERS |= {"inkling2", "inkling2_loop"}

# HyperCLOVA X Vision V2: HyperCLOVA X's language model (Granite's layers, post-norms), Qwen2.5-VL's tower, one biased
# linear to the text width; only the wrapper's tie flag counts (the text config's is set opposite in one variant)
HCX_T = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2)
HCX_V = dict(depth=2, hidden_size=32, intermediate_size=48, num_heads=4, out_hidden_size=40, patch_size=14,
             temporal_patch_size=2, spatial_merge_size=2, fullatt_block_indexes=[1])
VARIANTS["hyperclovax_vision_v2"] = [
    {},
    dict(text_config=HCX_T, vision_config=HCX_V),
    dict(tie_word_embeddings=False,
         text_config=dict(HCX_T, tie_word_embeddings=True, attention_bias=True, mlp_bias=True, use_post_norm=False,
                          head_dim=24),
         vision_config=dict(HCX_V, out_hidden_size=72, in_channels=1)),
    dict(text_config=dict(vocab_size=777, hidden_size=48, num_hidden_layers=3, num_attention_heads=6,
                          intermediate_size=80),
         vision_config=dict(model_type="qwen2_5_vl", depth=3, hidden_size=24, intermediate_size=40, num_heads=2,
                            out_hidden_size=56, patch_size=8, temporal_patch_size=1, spatial_merge_size=3)),
    dict(vision_config=dict(HCX_V, out_hidden_size=4096)),
]
WRAPPERS |= {"hyperclovax_vision_v2"}

# MiniCPM-OCR: MiniCPM-V 4.6's modules (a SigLIP-shaped NaViT with a window merger inside, an MLP merger) over a
# Qwen3.5 language model, tied by default; merge_kernel_size and insert_layer_id change no count
MCO_T = dict(vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4,
             linear_key_head_dim=8, linear_value_head_dim=12)
MCO_V = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=64,
             patch_size=8)
VARIANTS["minicpm_ocr"] = [
    {},
    dict(text_config=MCO_T, vision_config=MCO_V),
    dict(tie_word_embeddings=False, merger_times=3,
         text_config=dict(MCO_T, num_hidden_layers=5, full_attention_interval=2, attention_bias=True,
                          tie_word_embeddings=True),
         vision_config=dict(MCO_V, window_kernel_size=[1, 2], num_channels=1)),
    dict(insert_layer_id=1, merge_kernel_size=[3, 3],
         text_config=dict(MCO_T, num_hidden_layers=3, linear_conv_kernel_dim=3,
                          layer_types=["full_attention", "linear_attention", "full_attention"]),
         vision_config=dict(MCO_V, image_size=40, patch_size=4, window_kernel_size=[3, 1])),
    dict(vision_config=MCO_V),
]
WRAPPERS |= {"minicpm_ocr"}
# Step-3.5-Flash's own config.json (`model_type: step3p5`, Step3p7TextConfig): no CausalLM class
# maps it, so the language model is counted as Step3p7ForConditionalGeneration holds it: the text
# model (Step3p7TextModel) plus its head, tied only by the config's own flag (`TEXT_MODELS` in
# measure_variants_2026.py).
VARIANTS["step3p5"] = [
    {},
    dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=6, num_attention_heads=8,
         num_key_value_heads=2, head_dim=16, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
         share_expert_dim=48, layer_types=["sliding_attention", "full_attention"] * 3, sliding_window=8,
         num_sliding_attention_heads=4, attention_bias=True, mlp_bias=True, moe_layers_enum="1,2,4",
         tie_word_embeddings=True),
    dict(vocab_size=500, hidden_size=48, intermediate_size=80, num_hidden_layers=4, num_attention_heads=6,
         num_key_value_heads=3, head_dim=8, moe_num_experts=5, moe_top_k=2, moe_intermediate_size=24,
         share_expert_dims=40, gating="per-element", num_nextn_predict_layers=2,
         layer_types=["full_attention", "sliding_attention", "sliding_attention", "full_attention",
                      "full_attention", "full_attention"],
         mlp_layer_types=["dense", "sparse", "dense", "sparse", "sparse", "sparse"],
         attention_other_setting={"num_attention_heads": 3, "num_attention_groups": 3}, sliding_window=4),
    dict(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=5, num_attention_heads=4,
         num_key_value_heads=1, head_dim=24, num_local_experts=7, moe_intermediate_size=16, share_expert_dim=20,
         num_attention_groups=2),
    dict(_raw=True, vocab_size=500, hidden_size=48, intermediate_size=80, num_hidden_layers=4,
         num_attention_heads=6, num_attention_groups=3, head_dim=8, moe_num_experts=5, moe_top_k=2,
         moe_intermediate_size=24, share_expert_dim=40, num_nextn_predict_layers=1, moe_layers_enum="2,3",
         layer_types=["full_attention", "sliding_attention", "full_attention", "sliding_attention",
                      "full_attention"],
         attention_other_setting={"num_attention_heads": 3}, sliding_window=4),
]
# Unlimited-OCR: SAM + CLIP-L body + DeepSeek-V2's decoder without MLA (reference sliding attention);
# the legacy `language_config` with a top-level `sliding_window` kept as written (_raw)
VARIANTS["unlimited_ocr"] = [
    {},  # defaults
    {'text_config': {'vocab_size': 300, 'hidden_size': 64, 'intermediate_size': 96, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 4, 'n_routed_experts': 4, 'moe_intermediate_size': 16, 'n_shared_experts': 1, 'num_experts_per_tok': 2}, 'vision_config': {'sam_config': {'hidden_size': 32, 'output_channels': 16, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'image_size': 64, 'patch_size': 8, 'window_size': 2, 'global_attn_indexes': [1], 'mlp_dim': 48, 'downsample_channels': [24, 40]}, 'encoder_config': {'hidden_size': 40, 'intermediate_size': 80, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'image_size': 32, 'patch_size': 8}}},  # small_untied
    {'tie_word_embeddings': True, 'text_config': {'vocab_size': 300, 'hidden_size': 64, 'intermediate_size': 96, 'num_hidden_layers': 4, 'num_attention_heads': 4, 'num_key_value_heads': 4, 'n_routed_experts': 4, 'moe_intermediate_size': 16, 'n_shared_experts': 1, 'num_experts_per_tok': 2, 'first_k_dense_replace': 2, 'attention_bias': True, 'mlp_bias': True}, 'vision_config': {'sam_config': {'hidden_size': 32, 'output_channels': 16, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'image_size': 64, 'patch_size': 8, 'window_size': 2, 'global_attn_indexes': [1], 'mlp_dim': 48, 'downsample_channels': [24, 40], 'qkv_bias': False, 'use_abs_pos': False, 'use_rel_pos': False}, 'encoder_config': {'hidden_size': 40, 'intermediate_size': 80, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'image_size': 32, 'patch_size': 8}}},  # tied_attnbias_mlpbias_samnoqkvbias_noabs_norel_kdense2
    {'language_config': {'vocab_size': 300, 'hidden_size': 64, 'intermediate_size': 96, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'n_routed_experts': 4, 'moe_intermediate_size': 16, 'n_shared_experts': 3, 'num_experts_per_tok': 2, 'head_dim': 7, 'mlp_layer_types': ['sparse', 'dense', 'dense']}, 'sliding_window': 64, 'vision_config': {'sam_config': {'hidden_size': 32, 'output_channels': 16, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'image_size': 64, 'patch_size': 8, 'window_size': 0, 'global_attn_indexes': [1], 'mlp_dim': 48, 'downsample_channels': [24, 40], 'num_channels': 1}, 'encoder_config': {'hidden_size': 40, 'intermediate_size': 80, 'num_hidden_layers': 1, 'num_attention_heads': 4, 'image_size': 32, 'patch_size': 8}}, '_raw': True},  # language_config_bc_gqa_mixed
    {'text_config': {'vocab_size': 300, 'hidden_size': 64, 'intermediate_size': 96, 'num_hidden_layers': 3, 'num_attention_heads': 4, 'num_key_value_heads': 4, 'n_routed_experts': 8, 'moe_intermediate_size': 16, 'n_shared_experts': 1, 'num_experts_per_tok': 2}},  # default_vision_small_text
]
WRAPPERS |= {"unlimited_ocr"}

# DiffusionGemma: Gemma 4's text layers (shared-K/V full layers, experts everywhere) in an encoder and a
# decoder tied by the wrapper's flag, a self-conditioning MLP, Gemma 4's vision tower always built; its class
# defaults leave the experts unsized (they cannot be built): an assumed 128 x 704, top 8, for the first.
DG_SMALL_VIS = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=4, head_dim=8, patch_size=4, position_embedding_size=64, pooling_kernel_size=2)

DG_VARIANTS = {
    # class defaults: num_experts/top_k/moe_intermediate_size are None -> cannot build; recorded as an error
    "defaults": {},
    # class defaults plus an MoE shape (ASSUMED, Gemma-4-26B-A4B-like experts: 128 x 704, top 8)
    "defaults_moe": dict(text_config=dict(num_experts=128, top_k_experts=8, moe_intermediate_size=704)),
    # 1: 5:1 default pattern, 6 layers, tied, default-sized vision tower shrunk
    "v1": dict(text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=6,
                                num_attention_heads=4, num_key_value_heads=2, head_dim=16, global_head_dim=32,
                                num_experts=4, top_k_experts=2, moe_intermediate_size=24, sliding_window=16),
               vision_config=DG_SMALL_VIS),
    # 2: explicit mixed layer_types, global kv heads override, untied
    "v2": dict(text_config=dict(vocab_size=1200, hidden_size=80, intermediate_size=112, num_hidden_layers=5,
                                num_attention_heads=8, num_key_value_heads=4, head_dim=16, global_head_dim=64,
                                num_global_key_value_heads=1, num_experts=6, top_k_experts=2,
                                moe_intermediate_size=40, sliding_window=8,
                                layer_types=["sliding_attention", "full_attention", "sliding_attention",
                                             "sliding_attention", "full_attention"]),
               vision_config=DG_SMALL_VIS, tie_word_embeddings=False),
    # 3: all full attention, bidirectional "all", attention_bias, text tie flag False but wrapper True
    "v3": dict(text_config=dict(vocab_size=900, hidden_size=48, intermediate_size=64, num_hidden_layers=3,
                                num_attention_heads=4, num_key_value_heads=1, head_dim=12, global_head_dim=24,
                                num_experts=3, top_k_experts=1, moe_intermediate_size=16, attention_bias=True,
                                use_bidirectional_attention="all", tie_word_embeddings=False,
                                layer_types=["full_attention"] * 3),
               vision_config=dict(DG_SMALL_VIS, hidden_size=48, num_hidden_layers=1)),
    # 4: mostly sliding, MoE minimal (1 expert), default vision tower (class defaults of gemma4_vision)
    "v4": dict(text_config=dict(vocab_size=1500, hidden_size=96, intermediate_size=128, num_hidden_layers=7,
                                num_attention_heads=6, num_key_value_heads=3, head_dim=16, global_head_dim=16,
                                num_experts=1, top_k_experts=1, moe_intermediate_size=8, sliding_window=32)),
    # 5: wrapper untied, text tied; vision with standardize + clipped linears
    "v5": dict(text_config=dict(vocab_size=700, hidden_size=64, intermediate_size=80, num_hidden_layers=4,
                                num_attention_heads=4, num_key_value_heads=4, head_dim=16, global_head_dim=48,
                                num_global_key_value_heads=2, num_experts=8, top_k_experts=4,
                                moe_intermediate_size=12, tie_word_embeddings=True,
                                layer_types=["sliding_attention", "full_attention", "sliding_attention",
                                             "full_attention"]),
               vision_config=dict(DG_SMALL_VIS, standardize=True, use_clipped_linears=True), tie_word_embeddings=False),
    # 6: vision_config=None -> the wrapper still builds a default Gemma4VisionConfig tower (not optional)
    "v6_vision_none": dict(text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                            num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                            global_head_dim=32, num_experts=4, top_k_experts=2,
                                            moe_intermediate_size=24), vision_config=None),
}
VARIANTS["diffusion_gemma"] = [v for k, v in DG_VARIANTS.items() if k != "defaults"]
WRAPPERS |= {"diffusion_gemma"}

# Ovis2: a Qwen2 language model, an AIMv2-like tower, its visual tokenizer and visual-word table; the head
# and the table sized by the wrapper's hidden_size and vocab_size (the class defaults disagree with the text
# model's, as the first variant keeps)
VARIANTS["ovis2"] = [
    # v0: class defaults (inconsistent: text hidden 4096 vs wrapper hidden 1536, text vocab 151936 vs 151643)
    {},
    # v1: consistent small, tied (wrapper tie_word_embeddings=True, the default)
    dict(
        hidden_size=64, vocab_size=1000, tie_word_embeddings=True,
        text_config=dict(model_type="qwen2", hidden_size=64, vocab_size=1000, intermediate_size=160,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
        vision_config=dict(hidden_size=32, intermediate_size=88, num_hidden_layers=2, num_attention_heads=4,
                           image_size=56, patch_size=14, vocab_size=300, hidden_stride=2),
    ),
    # v2: same shapes, untied
    dict(
        hidden_size=64, vocab_size=1000, tie_word_embeddings=False,
        text_config=dict(model_type="qwen2", hidden_size=64, vocab_size=1000, intermediate_size=160,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
        vision_config=dict(hidden_size=32, intermediate_size=88, num_hidden_layers=2, num_attention_heads=4,
                           image_size=56, patch_size=14, vocab_size=300, hidden_stride=2),
    ),
    # v3: wider/deeper tower with biases, stride 1, more indicator tokens, untied, GQA 8/1, text head_dim default
    dict(
        hidden_size=96, vocab_size=2048, tie_word_embeddings=False,
        text_config=dict(model_type="qwen2", hidden_size=96, vocab_size=2048, intermediate_size=256,
                         num_hidden_layers=3, num_attention_heads=8, num_key_value_heads=1),
        vision_config=dict(hidden_size=48, intermediate_size=128, num_hidden_layers=5, num_attention_heads=6,
                           image_size=64, patch_size=16, num_channels=3, vocab_size=777, hidden_stride=1,
                           qkv_bias=True, mlp_bias=True, num_visual_indicator_tokens=7),
    ),
    # v4: tied, stride 3, large visual vocab, MHA
    dict(
        hidden_size=128, vocab_size=5000, tie_word_embeddings=True,
        text_config=dict(model_type="qwen2", hidden_size=128, vocab_size=5000, intermediate_size=352,
                         num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=8),
        vision_config=dict(hidden_size=40, intermediate_size=96, num_hidden_layers=3, num_attention_heads=5,
                           image_size=84, patch_size=14, vocab_size=4096, hidden_stride=3),
    ),
    # v5: wrapper sizes differ from text sizes (like the class defaults), untied; text tie flag True (ignored)
    dict(
        hidden_size=80, vocab_size=900, tie_word_embeddings=False,
        text_config=dict(model_type="qwen2", hidden_size=64, vocab_size=1000, intermediate_size=160,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                         tie_word_embeddings=True),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                           image_size=28, patch_size=14, vocab_size=64, hidden_stride=2),
    ),
    # v6: Ovis2-1B-like shapes (tower aimv2-large-448-like, stride 2, Qwen2.5-0.5B-like LM), tied
    dict(
        hidden_size=896, vocab_size=151936, tie_word_embeddings=True,
        text_config=dict(model_type="qwen2", hidden_size=896, vocab_size=151936, intermediate_size=4864,
                         num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2),
        vision_config=dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=8,
                           image_size=448, patch_size=14, vocab_size=65536, hidden_stride=2),
    ),
]
WRAPPERS |= {"ovis2"}

# FastVLM: LLaVA's layout over Qwen2 with timm's FastViT tower (timm 1.0.31 and torchvision 0.29.2 installed
# without dependencies on PYTHONPATH to build it); sub-config dicts replace the defaults whole
FASTVLM_TINY_TOWER = {  # the transformers test suite's tiny tower: 2 repmixer stages, no attention
    "inference_mode": True,
    "layers": [2, 2],
    "embed_dims": [8, 16],
    "mlp_ratios": [4, 4],
    "se_downsamples": [False, False],
    "downsamples": [False, True],
    "pos_embs": [None, None],
    "token_mixers": ["repmixer", "repmixer"],
    "lkc_use_act": True,
    "stem_use_scale_branch": False,
}

VARIANTS["fast_vlm"] = [
    # 0: class defaults (FastVLM-7B: Qwen2-7B text, fastvit_mci3 tower, 3072-wide features)
    {},
    # 1: tiny tower from the HF test suite, tiny untied qwen2
    {
        "vision_config": {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "hidden_size": 32,
                          "do_pooling": True, "global_pool": "avg", "model_args": dict(FASTVLM_TINY_TOWER)},
        "text_config": {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 160,
                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2},
        "image_token_index": 999,
    },
    # 2: mci3 layout with 5 stages (3 repmixer + 2 attention, pos-emb on stages 3,4 from the registry entry)
    #    but small widths/depths; text ties through text_config.tie_word_embeddings (forwarded to the wrapper)
    {
        "vision_config": {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "hidden_size": 512,
                          "model_args": {"inference_mode": True, "layers": [1, 1, 2, 1, 1],
                                         "embed_dims": [16, 32, 64, 128, 256]}},
        "text_config": {"model_type": "qwen2", "vocab_size": 1024, "hidden_size": 96, "intermediate_size": 256,
                        "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 3,
                        "tie_word_embeddings": True},
        "image_token_index": 1000,
    },
    # 3: wrapper-level tie, explicit text head_dim, no projector bias; tower: SE in two downsamples,
    #    odd mlp ratios, cls_ratio 3, bigger repmixer kernel / patch kernel, layer_scale_init_value None (dropped by timm.create_model: no effect)
    {
        "vision_config": {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "hidden_size": 576,
                          "model_args": {"inference_mode": True, "layers": [1, 2, 1, 1, 2],
                                         "embed_dims": [24, 48, 96, 192, 192],
                                         "mlp_ratios": [3, 3, 2.5, 2, 3],
                                         "se_downsamples": [False, True, False, True, False],
                                         "cls_ratio": 3.0, "repmixer_kernel_size": 5, "down_patch_size": 5,
                                         "layer_scale_init_value": None}},
        "text_config": {"model_type": "qwen2", "vocab_size": 2048, "hidden_size": 128, "intermediate_size": 320,
                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
                        "head_dim": 48},
        "tie_word_embeddings": True,
        "multimodal_projector_bias": False,
        "image_token_index": 2000,
    },
    # 4: another timm architecture (fastvit_mci2: 4 stages, SE downsamples on stages 2,3, BatchNorm in the
    #    attention stage, mlp_ratio 3) at full size, FastVLM-0.5B-like text (Qwen2-0.5B, vocab 151936+64, tied)
    {
        "vision_config": {"model_type": "timm_wrapper", "architecture": "fastvit_mci2", "hidden_size": 1280,
                          "model_args": {"inference_mode": True}},
        "text_config": {"model_type": "qwen2", "vocab_size": 152000, "hidden_size": 896, "intermediate_size": 4864,
                        "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
                        "tie_word_embeddings": True},
    },
    # 5: training-time (un-reparameterised) tower: inference_mode False adds BatchNorm / scale branches;
    #    stem scale branch on; tiny untied text
    {
        "vision_config": {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "hidden_size": 256,
                          "model_args": {"inference_mode": False, "layers": [1, 1, 1, 1, 1],
                                         "embed_dims": [16, 32, 64, 128, 128],
                                         "se_downsamples": [False, True, False, False, True],
                                         "stem_use_scale_branch": True, "cls_ratio": 2.0}},
        "text_config": {"model_type": "qwen2", "vocab_size": 512, "hidden_size": 64, "intermediate_size": 128,
                        "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 2},
        "image_token_index": 500,
    },
    # 6: FastVLM-1.5B-like (default mci3 tower, Qwen2-1.5B text, vocab 151936 resized to 152000, tied)
    {
        "text_config": {"model_type": "qwen2", "vocab_size": 152000, "hidden_size": 1536, "intermediate_size": 8960,
                        "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2,
                        "tie_word_embeddings": True},
    },
]
WRAPPERS |= {"fast_vlm"}

# GOT-OCR 2.0: SAM ViT-B, a convolutional projector, Qwen2 (a text_config dict replaces its defaults whole)
VARIANTS["got_ocr2"] = [
    {},  # class defaults (= stepfun-ai/GOT-OCR-2.0-hf architecture)
    {   # small text, untied, GQA
        "tie_word_embeddings": False,
        "text_config": {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 176,
                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                        "tie_word_embeddings": False},
        "vision_config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 64,
                          "output_channels": 16, "image_size": 64, "patch_size": 8, "window_size": 4,
                          "global_attn_indexes": [1]},
    },
    {   # tied, explicit head_dim, vision w/o rel pos, no qkv bias
        "tie_word_embeddings": True,
        "text_config": {"model_type": "qwen2", "vocab_size": 777, "hidden_size": 48, "intermediate_size": 100,
                        "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 3, "head_dim": 16,
                        "tie_word_embeddings": True},
        "vision_config": {"hidden_size": 40, "num_hidden_layers": 3, "num_attention_heads": 5, "mlp_dim": 72,
                          "output_channels": 24, "image_size": 96, "patch_size": 16, "window_size": 3,
                          "global_attn_indexes": [0, 2], "use_rel_pos": False, "qkv_bias": False},
        "image_seq_length": 9,
    },
    {   # untied, vision w/o abs pos, all global layers, 1 channel input
        "tie_word_embeddings": False,
        "text_config": {"model_type": "qwen2", "vocab_size": 500, "hidden_size": 32, "intermediate_size": 64,
                        "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
                        "tie_word_embeddings": False},
        "vision_config": {"hidden_size": 24, "num_hidden_layers": 4, "num_attention_heads": 3, "mlp_dim": 48,
                          "output_channels": 8, "image_size": 80, "patch_size": 10, "window_size": 5,
                          "global_attn_indexes": [0, 1, 2, 3], "use_abs_pos": False, "num_channels": 1},
    },
    {   # vit-L-like widths, tied; window 0 => every layer global
        "tie_word_embeddings": True,
        "text_config": {"model_type": "qwen2", "vocab_size": 2048, "hidden_size": 128, "intermediate_size": 344,
                        "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 8,
                        "tie_word_embeddings": True},
        "vision_config": {"hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4, "mlp_dim": 256,
                          "output_channels": 32, "image_size": 128, "patch_size": 16, "window_size": 0,
                          "global_attn_indexes": [5]},
    },
    {   # mixed tie flags: top-level False, text True (which flag wins?)
        "tie_word_embeddings": False,
        "text_config": {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 176,
                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
                        "tie_word_embeddings": True},
        "vision_config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 64,
                          "output_channels": 16, "image_size": 64, "patch_size": 8, "window_size": 4,
                          "global_attn_indexes": [0]},
    },
    {   # mixed tie flags: top-level True, text False
        "tie_word_embeddings": True,
        "text_config": {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 176,
                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
                        "tie_word_embeddings": False},
        "vision_config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 64,
                          "output_channels": 16, "image_size": 64, "patch_size": 8, "window_size": 4,
                          "global_attn_indexes": [0]},
    },
]
WRAPPERS |= {"got_ocr2"}

# BLIP-2 and InstructBLIP: EVA-CLIP, a Q-Former, any language model of text_config (OPT, Llama, Qwen2, T5)
BLIP_V1 = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, image_size=56, patch_size=14)
VARIANTS["blip-2"] = [
    {},
    dict(vision_config=BLIP_V1,
         qformer_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4, cross_attention_frequency=2),
         num_query_tokens=8,
         text_config=dict(model_type="opt", vocab_size=500, hidden_size=48, ffn_dim=96, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=128, tie_word_embeddings=True)),
    dict(vision_config=dict(hidden_size=96, intermediate_size=200, num_hidden_layers=3, num_attention_heads=6, image_size=70, patch_size=14, qkv_bias=False),
         qformer_config=dict(hidden_size=48, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4, cross_attention_frequency=1),
         num_query_tokens=16,
         text_config=dict(model_type="opt", vocab_size=700, hidden_size=64, word_embed_proj_dim=32, ffn_dim=128, num_hidden_layers=3, num_attention_heads=4, max_position_embeddings=100, tie_word_embeddings=False)),
    dict(vision_config=BLIP_V1,
         qformer_config=dict(hidden_size=32, intermediate_size=72, num_hidden_layers=4, num_attention_heads=4, cross_attention_frequency=3, use_qformer_text_input=True),
         num_query_tokens=4,
         text_config=dict(model_type="llama", vocab_size=600, hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=False)),
    dict(vision_config=dict(hidden_size=80, intermediate_size=160, num_hidden_layers=1, num_attention_heads=5, image_size=64, patch_size=16),
         qformer_config=dict(hidden_size=40, intermediate_size=96, num_hidden_layers=5, num_attention_heads=5, cross_attention_frequency=2),
         num_query_tokens=12,
         text_config=dict(model_type="qwen2", vocab_size=800, hidden_size=56, intermediate_size=112, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)),
    dict(vision_config=BLIP_V1,
         qformer_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4, cross_attention_frequency=2),
         num_query_tokens=8,
         text_config=dict(model_type="t5", vocab_size=400, d_model=48, d_kv=12, d_ff=96, num_layers=2, num_decoder_layers=3, num_heads=4, feed_forward_proj="gated-gelu", tie_word_embeddings=False)),
]
VARIANTS["instructblip"] = [
    {},
    dict(vision_config=BLIP_V1,
         qformer_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4, cross_attention_frequency=2, vocab_size=300, max_position_embeddings=64),
         num_query_tokens=8,
         text_config=dict(model_type="opt", vocab_size=500, hidden_size=48, ffn_dim=96, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=128, tie_word_embeddings=True)),
    dict(vision_config=dict(hidden_size=96, intermediate_size=200, num_hidden_layers=3, num_attention_heads=6, image_size=70, patch_size=14, qkv_bias=False),
         qformer_config=dict(hidden_size=48, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4, cross_attention_frequency=1, vocab_size=250, max_position_embeddings=40),
         num_query_tokens=16,
         text_config=dict(model_type="opt", vocab_size=700, hidden_size=64, word_embed_proj_dim=32, ffn_dim=128, num_hidden_layers=3, num_attention_heads=4, max_position_embeddings=100, tie_word_embeddings=False)),
    dict(vision_config=BLIP_V1,
         qformer_config=dict(hidden_size=32, intermediate_size=72, num_hidden_layers=4, num_attention_heads=4, cross_attention_frequency=3, vocab_size=128, max_position_embeddings=32),
         num_query_tokens=4,
         text_config=dict(model_type="llama", vocab_size=600, hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=False)),
    dict(vision_config=dict(hidden_size=80, intermediate_size=160, num_hidden_layers=1, num_attention_heads=5, image_size=64, patch_size=16),
         qformer_config=dict(hidden_size=40, intermediate_size=96, num_hidden_layers=5, num_attention_heads=5, cross_attention_frequency=2, vocab_size=200, max_position_embeddings=50),
         num_query_tokens=12,
         text_config=dict(model_type="qwen2", vocab_size=800, hidden_size=56, intermediate_size=112, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)),
    dict(vision_config=BLIP_V1,
         qformer_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4, cross_attention_frequency=2, vocab_size=300, max_position_embeddings=64),
         num_query_tokens=8,
         text_config=dict(model_type="t5", vocab_size=400, d_model=48, d_kv=12, d_ff=96, num_layers=2, num_decoder_layers=3, num_heads=4, feed_forward_proj="gated-gelu", tie_word_embeddings=False)),
]
WRAPPERS |= {"blip-2", "instructblip"}

# Audio LMs with a Whisper encoder (their audio not modelled as inputs): Voxtral and Qwen2-Audio, built by
# class (`TEXT_MODELS` in measure_variants_2026.py); their heads are never tied
VARIANTS["voxtral"] = [
    {},
    # 1: small llama text, tie on (wrapper + text), tiny whisper-like encoder, 80 mel bins
    {"text_config": {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "tie_word_embeddings": True},
     "audio_config": {"hidden_size": 32, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                      "num_mel_bins": 80, "max_source_positions": 100},
     "tie_word_embeddings": True, "projector_hidden_act": "gelu"},
    # 2: tie off, different head_dim (num_heads*head_dim != hidden), silu projector
    {"text_config": {"vocab_size": 2048, "hidden_size": 96, "intermediate_size": 256, "num_hidden_layers": 3,
                     "num_attention_heads": 6, "num_key_value_heads": 3, "head_dim": 32, "tie_word_embeddings": False},
     "audio_config": {"hidden_size": 48, "intermediate_size": 192, "num_hidden_layers": 3, "num_attention_heads": 6,
                      "num_mel_bins": 128, "max_source_positions": 1500},
     "tie_word_embeddings": False, "projector_hidden_act": "silu"},
    # 3: mistral text_config, intermediate not 4x hidden, relu projector
    {"text_config": {"model_type": "mistral", "vocab_size": 3000, "hidden_size": 128, "intermediate_size": 344,
                     "num_hidden_layers": 1, "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 16},
     "audio_config": {"hidden_size": 64, "intermediate_size": 100, "num_hidden_layers": 1, "num_attention_heads": 4,
                      "num_mel_bins": 64, "max_source_positions": 750},
     "projector_hidden_act": "relu"},
    # 4: text-only tie flag on the text config, deeper audio, 3B-like ratios scaled down
    {"text_config": {"vocab_size": 512, "hidden_size": 80, "intermediate_size": 200, "num_hidden_layers": 4,
                     "num_attention_heads": 5, "num_key_value_heads": 1, "head_dim": 16, "tie_word_embeddings": True,
                     "attention_bias": True, "mlp_bias": True},
     "audio_config": {"hidden_size": 40, "intermediate_size": 160, "num_hidden_layers": 5, "num_attention_heads": 5,
                      "num_mel_bins": 40, "max_source_positions": 3000}},
    # 5: wrapper tie flag on only, big vocab small model
    {"text_config": {"vocab_size": 32000, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16},
     "audio_config": {"hidden_size": 16, "intermediate_size": 64, "num_hidden_layers": 6, "num_attention_heads": 2,
                      "num_mel_bins": 128, "max_source_positions": 1500, "activation_function": "relu"},
     "tie_word_embeddings": True, "projector_hidden_act": "gelu_new"},
]
VARIANTS["qwen2_audio"] = [
    {},
    {"text_config": {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 176,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                     "tie_word_embeddings": False},
     "audio_config": {"model_type": "qwen2_audio_encoder", "d_model": 48, "encoder_layers": 2,
                      "encoder_attention_heads": 4, "encoder_ffn_dim": 96, "num_mel_bins": 80,
                      "max_source_positions": 1500}},
    {"text_config": {"model_type": "qwen2", "vocab_size": 1200, "hidden_size": 96, "intermediate_size": 200,
                     "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 6,
                     "tie_word_embeddings": True},
     "audio_config": {"model_type": "qwen2_audio_encoder", "d_model": 64, "encoder_layers": 3,
                      "encoder_attention_heads": 4, "encoder_ffn_dim": 256, "num_mel_bins": 128,
                      "max_source_positions": 750}},
    {"text_config": {"model_type": "qwen2", "vocab_size": 777, "hidden_size": 128, "intermediate_size": 300,
                     "num_hidden_layers": 1, "num_attention_heads": 8, "num_key_value_heads": 1,
                     "head_dim": 32, "tie_word_embeddings": True},
     "audio_config": {"model_type": "qwen2_audio_encoder", "d_model": 32, "encoder_layers": 1,
                      "encoder_attention_heads": 2, "encoder_ffn_dim": 64, "num_mel_bins": 40,
                      "max_source_positions": 100}},
    {"tie_word_embeddings": True,
     "text_config": {"model_type": "qwen2", "vocab_size": 500, "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 1,
                     "tie_word_embeddings": False},
     "audio_config": {"model_type": "qwen2_audio_encoder", "d_model": 80, "encoder_layers": 5,
                      "encoder_attention_heads": 5, "encoder_ffn_dim": 160, "num_mel_bins": 64,
                      "max_source_positions": 3000}},
    {"tie_word_embeddings": False,
     "text_config": {"model_type": "qwen2", "vocab_size": 2048, "hidden_size": 160, "intermediate_size": 400,
                     "num_hidden_layers": 2, "num_attention_heads": 10, "num_key_value_heads": 5,
                     "tie_word_embeddings": True},
     "audio_config": {"model_type": "qwen2_audio_encoder", "d_model": 128, "encoder_layers": 2,
                      "encoder_attention_heads": 8, "encoder_ffn_dim": 512, "num_mel_bins": 128,
                      "max_source_positions": 200}},
]

# Speech LMs (their audio not modelled as inputs), built by class (`TEXT_MODELS` in measure_variants_2026.py)
VARIANTS["qwen3_asr"] = [
    {},
    {"tie_word_embeddings": False,
     "text_config": {"vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 48},
     "audio_config": {"d_model": 192, "encoder_layers": 2, "encoder_attention_heads": 4, "encoder_ffn_dim": 384,
                      "num_mel_bins": 80, "downsample_hidden_size": 32, "output_dim": 256, "max_position_embeddings": 20}},
    {"tie_word_embeddings": True,
     "text_config": {"vocab_size": 777, "hidden_size": 128, "intermediate_size": 300, "num_hidden_layers": 3,
                     "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 16},
     "audio_config": {"d_model": 64, "encoder_layers": 3, "encoder_attention_heads": 2, "encoder_ffn_dim": 100,
                      "num_mel_bins": 129, "downsample_hidden_size": 16, "output_dim": 128}},
    {"tie_word_embeddings": False,
     "text_config": {"vocab_size": 500, "hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 1,
                     "num_attention_heads": 3, "num_key_value_heads": 1, "head_dim": 32, "tie_word_embeddings": True},
     "audio_config": {"d_model": 48, "encoder_layers": 1, "encoder_attention_heads": 3, "encoder_ffn_dim": 64,
                      "num_mel_bins": 64, "downsample_hidden_size": 8, "output_dim": 96, "n_window": 25,
                      "n_window_infer": 400}},
    {"tie_word_embeddings": True,
     "text_config": {"vocab_size": 300, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 64, "tie_word_embeddings": False},
     "audio_config": {"d_model": 32, "encoder_layers": 4, "encoder_attention_heads": 4, "encoder_ffn_dim": 48,
                      "num_mel_bins": 7, "downsample_hidden_size": 4, "output_dim": 64}},
]
VARIANTS["glmasr"] = [
    {},
    {"tie_word_embeddings": False,
     "text_config": {"vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "num_key_value_heads": 2},
     "audio_config": {"hidden_size": 192, "intermediate_size": 768, "num_hidden_layers": 2,
                      "num_attention_heads": 4, "num_mel_bins": 80, "max_position_embeddings": 300}},
    {"tie_word_embeddings": True,
     "text_config": {"vocab_size": 777, "hidden_size": 128, "intermediate_size": 300, "num_hidden_layers": 3,
                     "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 32},
     "audio_config": {"hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 3,
                      "num_attention_heads": 4, "num_key_value_heads": 2, "num_mel_bins": 129}},
    {"tie_word_embeddings": False,
     "text_config": {"vocab_size": 500, "hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 1,
                     "num_attention_heads": 3, "num_key_value_heads": 1, "tie_word_embeddings": True},
     "audio_config": {"hidden_size": 48, "intermediate_size": 100, "num_hidden_layers": 1,
                      "num_attention_heads": 3, "num_key_value_heads": 1, "num_mel_bins": 64}},
    {"tie_word_embeddings": True,
     "text_config": {"vocab_size": 300, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "num_key_value_heads": 1, "tie_word_embeddings": False},
     "audio_config": {"hidden_size": 32, "intermediate_size": 128, "num_hidden_layers": 4,
                      "num_attention_heads": 4, "num_mel_bins": 7}},
]
VARIANTS["granite_speech"] = [
    {},
    {"text_config": {"model_type": "granite", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "tie_word_embeddings": False},
     "encoder_config": {"input_dim": 80, "num_layers": 3, "hidden_dim": 48, "feedforward_mult": 3, "num_heads": 4, "output_dim": 17, "context_size": 20, "max_pos_emb": 30, "conv_kernel_size": 7, "conv_expansion_factor": 3},
     "projector_config": {"model_type": "blip_2_qformer", "hidden_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 72, "cross_attention_frequency": 2, "encoder_hidden_size": 48},
     "window_size": 12, "downsample_rate": 4, "tie_word_embeddings": False},
    {"text_config": {"model_type": "granite", "vocab_size": 777, "hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 3, "attention_bias": True},
     "encoder_config": {"input_dim": 40, "num_layers": 2, "hidden_dim": 64, "feedforward_mult": 2, "num_heads": 4, "dim_head": 24, "output_dim": 11, "context_size": 50, "max_pos_emb": 64, "conv_kernel_size": 8, "conv_expansion_factor": 1},
     "projector_config": {"model_type": "blip_2_qformer", "hidden_size": 48, "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 100, "cross_attention_frequency": 3, "encoder_hidden_size": 64, "use_qformer_text_input": True},
     "window_size": 15, "downsample_rate": 5, "has_lora_adapter": False},
    {"text_config": {"model_type": "granite", "vocab_size": 500, "hidden_size": 40, "intermediate_size": 88, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "mlp_bias": True},
     "encoder_config": {"input_dim": 20, "num_layers": 1, "hidden_dim": 24, "num_heads": 2, "output_dim": 5, "context_size": 10, "max_pos_emb": 10, "conv_kernel_size": 3},
     "projector_config": {"model_type": "blip_2_qformer", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 30, "cross_attention_frequency": 1, "encoder_hidden_size": 24},
     "window_size": 8, "downsample_rate": 2, "tie_word_embeddings": True},
    {"text_config": {"model_type": "granite", "vocab_size": 2048, "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 8, "tie_word_embeddings": True},
     "encoder_config": {"input_dim": 160, "num_layers": 4, "hidden_dim": 80, "feedforward_mult": 4, "num_heads": 5, "output_dim": 42, "context_size": 40, "max_pos_emb": 40, "conv_kernel_size": 15, "conv_expansion_factor": 2},
     "projector_config": {"model_type": "blip_2_qformer", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "cross_attention_frequency": 1, "encoder_hidden_size": 80},
     "window_size": 9, "downsample_rate": 3, "tie_word_embeddings": False},
]
VARIANTS["audioflamingo3"] = [
    {},
    {"text_config": {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2},
     "audio_config": {"model_type": "audioflamingo3_encoder", "num_mel_bins": 80, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 96, "hidden_size": 48, "max_source_positions": 100}},
    {"text_config": {"model_type": "qwen2", "vocab_size": 777, "hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 3, "tie_word_embeddings": True},
     "audio_config": {"model_type": "audioflamingo3_encoder", "num_mel_bins": 128, "num_hidden_layers": 3, "num_attention_heads": 2, "intermediate_size": 128, "hidden_size": 32, "max_source_positions": 1500},
     "projector_bias": False},
    {"text_config": {"model_type": "qwen2", "vocab_size": 500, "hidden_size": 40, "intermediate_size": 88, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1},
     "audio_config": {"model_type": "audioflamingo3_encoder", "num_mel_bins": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 50, "hidden_size": 16, "max_source_positions": 37},
     "tie_word_embeddings": True},
    {"text_config": {"model_type": "qwen2", "vocab_size": 2048, "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 4, "tie_word_embeddings": False},
     "audio_config": {"model_type": "audioflamingo3_encoder", "num_mel_bins": 128, "num_hidden_layers": 4, "num_attention_heads": 5, "intermediate_size": 320, "hidden_size": 80, "max_source_positions": 200},
     "projector_bias": True, "projector_hidden_act": "relu"},
]

# Music Flamingo (Audio Flamingo 3's modules) and Voxtral Realtime (a streaming encoder, adaptive norms)
VARIANTS["musicflamingo"] = [
    {},
    {"audio_config": {"model_type": "audioflamingo3_encoder", "hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 4, "num_mel_bins": 16, "max_source_positions": 30},
     "text_config": {"model_type": "qwen2", "hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 500}},
    {"projector_bias": False,
     "audio_config": {"model_type": "audioflamingo3_encoder", "hidden_size": 48, "intermediate_size": 100, "num_hidden_layers": 3, "num_attention_heads": 3, "num_mel_bins": 20, "max_source_positions": 50},
     "text_config": {"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 300, "tie_word_embeddings": True}},
    {"tie_word_embeddings": True,
     "audio_config": {"model_type": "audioflamingo3_encoder", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2, "num_mel_bins": 8, "max_source_positions": 10},
     "text_config": {"model_type": "qwen2", "hidden_size": 80, "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 5, "num_key_value_heads": 1, "vocab_size": 700}},
    {"audio_config": {"model_type": "audioflamingo3_encoder", "hidden_size": 40, "intermediate_size": 72, "num_hidden_layers": 2, "num_attention_heads": 5, "num_mel_bins": 12, "max_source_positions": 25},
     "text_config": {"model_type": "qwen2", "hidden_size": 40, "intermediate_size": 88, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2, "vocab_size": 111}},
]
VARIANTS["voxtral_realtime"] = [
    {},
    {"audio_config": {"hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 16, "num_mel_bins": 16},
     "text_config": {"hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 24, "vocab_size": 500}},
    {"tie_word_embeddings": False, "downsample_factor": 2,
     "audio_config": {"hidden_size": 48, "intermediate_size": 100, "num_hidden_layers": 3, "num_attention_heads": 3, "head_dim": 20, "num_mel_bins": 20},
     "text_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 32, "vocab_size": 300}},
    {"downsample_factor": 3,
     "audio_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2, "head_dim": 8, "num_mel_bins": 8},
     "text_config": {"hidden_size": 80, "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 5, "num_key_value_heads": 1, "head_dim": 16, "vocab_size": 700, "tie_word_embeddings": False}},
    {"tie_word_embeddings": False,
     "audio_config": {"hidden_size": 40, "intermediate_size": 72, "num_hidden_layers": 2, "num_attention_heads": 5, "head_dim": 8, "num_mel_bins": 12},
     "text_config": {"hidden_size": 40, "intermediate_size": 88, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 20, "vocab_size": 111, "tie_word_embeddings": True}},
]

# Chameleon and Emu3: images as VQ-VAE codes (the VQ-VAE part of the model); both classes need a
# `vocabulary_map` holding "<image>" to build (no parameters), merged into every variant below
VARIANTS["chameleon"] = [
    {},
    {"vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True, "swin_norm": True,
     "vq_config": {"embed_dim": 16, "num_embeddings": 100, "latent_channels": 32, "resolution": 64, "base_channels": 32, "channel_multiplier": [1, 2, 2], "num_res_blocks": 1, "attn_resolutions": [32, 16]}},
    {"vocab_size": 777, "hidden_size": 192, "intermediate_size": 300, "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 6,
     "vq_config": {"embed_dim": 8, "num_embeddings": 64, "latent_channels": 64, "double_latent": True, "resolution": 128, "in_channels": 4, "base_channels": 64, "channel_multiplier": [1, 1, 2, 4], "num_res_blocks": 3, "attn_resolutions": [16], "attn_type": "none"}},
    {"vocab_size": 512, "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 1,
     "vq_config": {"embed_dim": 32, "num_embeddings": 256, "latent_channels": 32, "resolution": 32, "base_channels": 32, "channel_multiplier": [2, 4], "num_res_blocks": 2, "attn_resolutions": [32, 16]}},
]
VARIANTS["emu3"] = [
    {},
    {"tie_word_embeddings": True,
     "text_config": {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
     "vq_config": {"codebook_size": 100, "embed_dim": 8, "latent_channels": 8, "base_channels": 32, "channel_multiplier": [1, 2, 2], "num_res_blocks": 1, "attn_resolutions": [2], "hidden_size": 64, "num_attention_heads": 2, "temporal_downsample_factor": 2}},
    {"text_config": {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "vocab_size": 777, "hidden_size": 192, "intermediate_size": 300, "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 3, "head_dim": 48},
     "vq_config": {"codebook_size": 64, "embed_dim": 4, "latent_channels": 16, "double_latent": True, "in_channels": 4, "out_channels": 5, "base_channels": 64, "channel_multiplier": [1, 1, 2, 4], "num_res_blocks": 3, "attn_resolutions": [0, 3], "hidden_size": 256, "num_attention_heads": 4, "temporal_downsample_factor": 8}},
    {"text_config": {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "vocab_size": 512, "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 4},
     "vq_config": {"codebook_size": 256, "embed_dim": 16, "latent_channels": 4, "base_channels": 32, "channel_multiplier": [2, 4], "num_res_blocks": 2, "attn_resolutions": [], "hidden_size": 128, "num_attention_heads": 1, "temporal_downsample_factor": 1}},
]
for _k in ("chameleon", "emu3"):
    VARIANTS[_k] = [dict(v, vocabulary_map={"<image>": 3}) for v in VARIANTS[_k]]
WRAPPERS |= {"chameleon", "emu3"}

# RecurrentGemma (Griffin): RG-LRU blocks and local attention blocks cycling through `block_types`;
# the RG-LRU `lru_width` apart from the hidden size, and an untied head (variant 3)
VARIANTS["recurrent_gemma"] = [
    {},
    {"vocab_size": 1000, "hidden_size": 128, "intermediate_size": 384, "num_hidden_layers": 3, "num_attention_heads": 4, "attention_window_size": 8},
    {"vocab_size": 777, "hidden_size": 96, "intermediate_size": 200, "num_hidden_layers": 5, "num_attention_heads": 4, "num_key_value_heads": 1, "lru_width": 160, "conv1d_width": 3, "attention_window_size": 16},
    {"vocab_size": 512, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4, "num_attention_heads": 2, "attention_bias": True, "block_types": ["recurrent", "attention"], "tie_word_embeddings": False, "attention_window_size": 6},
    {"vocab_size": 640, "hidden_size": 160, "intermediate_size": 330, "num_hidden_layers": 7, "num_attention_heads": 5, "num_key_value_heads": 5, "lru_width": 320, "conv1d_width": 5, "attention_window_size": 10},
    {"vocab_size": 300, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 5, "num_attention_heads": 4, "block_types": ["attention", "recurrent", "recurrent", "recurrent"]},
]

# Nemotron-H with LatentMoE (Nemotron 3): the routed experts over `moe_latent_size` channels between
# fc1/fc2 latent projections (biased with `mlp_bias`); a dense MLP block beside MoE blocks
VARIANTS["nemotron_h"] = [
    dict(vocab_size=1000, hidden_size=128, num_hidden_layers=6, hybrid_override_pattern="ME*EM-",
         num_attention_heads=4, num_key_value_heads=2, head_dim=32, intermediate_size=256,
         mamba_num_heads=8, mamba_head_dim=16, n_groups=2, ssm_state_size=16,
         n_routed_experts=8, num_experts_per_tok=2, moe_intermediate_size=48,
         moe_shared_expert_intermediate_size=96, moe_latent_size=32),
    dict(vocab_size=777, hidden_size=96, num_hidden_layers=4, hybrid_override_pattern="M*EE",
         num_attention_heads=4, num_key_value_heads=4, head_dim=24, intermediate_size=200,
         mamba_num_heads=4, mamba_head_dim=24, n_groups=1, ssm_state_size=8,
         n_routed_experts=6, num_experts_per_tok=3, moe_intermediate_size=40,
         moe_shared_expert_intermediate_size=80, moe_latent_size=24, mlp_bias=True, use_bias=True),
    dict(vocab_size=512, hidden_size=64, num_hidden_layers=3, hybrid_override_pattern="E*M",
         num_attention_heads=2, num_key_value_heads=1, head_dim=32, intermediate_size=128,
         mamba_num_heads=4, mamba_head_dim=16, n_groups=1, ssm_state_size=8,
         n_routed_experts=16, num_experts_per_tok=4, moe_intermediate_size=24,
         moe_shared_expert_intermediate_size=0, moe_latent_size=48, tie_word_embeddings=True),
]

# Whisper: the audio encoder over max_source_positions frames and the text decoder; encoder and decoder
# widths and head counts apart, tied and untied heads, scaled embeddings (no parameter)
VARIANTS["whisper"] = [
    {},
    {'d_model': 64, 'encoder_layers': 2, 'decoder_layers': 3, 'encoder_attention_heads': 4, 'decoder_attention_heads': 4, 'encoder_ffn_dim': 160, 'decoder_ffn_dim': 200, 'vocab_size': 500, 'num_mel_bins': 16, 'max_source_positions': 30, 'max_target_positions': 40, 'pad_token_id': 498, 'bos_token_id': 498, 'eos_token_id': 498, 'decoder_start_token_id': 499, 'begin_suppress_tokens': []},
    {'d_model': 48, 'encoder_layers': 3, 'decoder_layers': 1, 'encoder_attention_heads': 3, 'decoder_attention_heads': 6, 'encoder_ffn_dim': 100, 'decoder_ffn_dim': 72, 'vocab_size': 300, 'num_mel_bins': 128, 'max_source_positions': 50, 'max_target_positions': 20, 'tie_word_embeddings': False, 'pad_token_id': 298, 'bos_token_id': 298, 'eos_token_id': 298, 'decoder_start_token_id': 299, 'begin_suppress_tokens': []},
    {'d_model': 32, 'encoder_layers': 1, 'decoder_layers': 2, 'encoder_attention_heads': 2, 'decoder_attention_heads': 2, 'encoder_ffn_dim': 64, 'decoder_ffn_dim': 128, 'vocab_size': 700, 'num_mel_bins': 8, 'max_source_positions': 10, 'max_target_positions': 64, 'pad_token_id': 698, 'bos_token_id': 698, 'eos_token_id': 698, 'decoder_start_token_id': 699, 'begin_suppress_tokens': []},
    {'d_model': 80, 'encoder_layers': 2, 'decoder_layers': 2, 'encoder_attention_heads': 5, 'decoder_attention_heads': 8, 'encoder_ffn_dim': 96, 'decoder_ffn_dim': 96, 'vocab_size': 111, 'num_mel_bins': 80, 'max_source_positions': 1500, 'max_target_positions': 448, 'scale_embedding': True, 'pad_token_id': 109, 'bos_token_id': 109, 'eos_token_id': 109, 'decoder_start_token_id': 110, 'begin_suppress_tokens': []},
    {'d_model': 40, 'encoder_layers': 4, 'decoder_layers': 3, 'encoder_attention_heads': 5, 'decoder_attention_heads': 4, 'encoder_ffn_dim': 72, 'decoder_ffn_dim': 88, 'vocab_size': 1000, 'num_mel_bins': 80, 'max_source_positions': 25, 'max_target_positions': 100, 'tie_word_embeddings': False, 'pad_token_id': 998, 'bos_token_id': 998, 'eos_token_id': 998, 'decoder_start_token_id': 999, 'begin_suppress_tokens': []},
]

# xLSTM (NX-AI's xLSTM-7B): mLSTM blocks only; q/k and v widths from factors of the hidden size, the
# MLP rounded up to a multiple; biases everywhere under use_bias; the head never tied
VARIANTS["xlstm"] = [
    {},
    {"vocab_size": 1000, "hidden_size": 256, "num_hidden_layers": 2, "num_heads": 4},
    {"vocab_size": 777, "hidden_size": 384, "num_hidden_layers": 3, "num_heads": 2, "use_bias": True, "qk_dim_factor": 0.25, "v_dim_factor": 0.5, "ffn_proj_factor": 1.3, "ffn_round_up_to_multiple_of": 32},
    {"vocab_size": 512, "hidden_size": 128, "num_hidden_layers": 1, "num_heads": 2, "tie_word_embeddings": True},
    {"vocab_size": 640, "hidden_size": 192, "num_hidden_layers": 4, "num_heads": 3, "qk_dim_factor": 1.0, "v_dim_factor": 2.0, "ffn_proj_factor": 3.0},
]

# dots.3-note (Dots Studio): MLA attention with a per-head sigmoid gate (g_proj) and an RMSNorm on the shared rope
# key (k_rope_only_layernorm) on every layer; sliding layers with their own geometry (`swa_*` keys, saved as
# `per_layer_config`), indexed (DSA) layers with an indexer, plain full layers (use_dsa False); MoE with shared
# experts of their own width and an fp32 router. The `swa_*` defaults are absolute (64 heads, q/kv ranks 1024, ...),
# not the global geometry; "full_attention" in layer_types means DSA unless use_dsa is False or a
# per_layer_config is given; the text config's num_key_value_heads must equal its heads; mlp_bias is not read.
D3_TEXT = dict(vocab_size=1000, hidden_size=64, intermediate_size=96, moe_intermediate_size=24, num_hidden_layers=6,
               num_attention_heads=4, num_key_value_heads=4, n_routed_experts=4, num_experts_per_tok=2,
               q_lora_rank=32, kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16, head_dim=24,
               index_n_heads=2, index_head_dim=16, shared_experts_intermediate_size=40, sliding_window=8,
               pad_token_id=0, bos_token_id=1, eos_token_id=2)
D3_SWA = dict(swa_num_attention_heads=2, swa_num_key_value_heads=2, swa_q_lora_rank=24, swa_kv_lora_rank=12,
              swa_head_dim=20, swa_qk_nope_head_dim=12, swa_v_head_dim=8)
D3_SWA_GEOM = dict(num_attention_heads=2, num_key_value_heads=2, q_lora_rank=24, kv_lora_rank=12, head_dim=20,
                   qk_nope_head_dim=12, v_head_dim=8)
SW_, IX_, FA_ = "sliding_attention", "indexed_attention", "full_attention"
VARIANTS["dots3_note_text"] = [
    {},
    # the default pattern (indexed on 0, 1, 5; sliding on 2-4), the swa_* geometry; saved as transformers saves it
    # (per_layer_config on the sliding layers, layer_types, mlp_layer_types)
    dict(D3_TEXT, **D3_SWA),
    # hand-written as published: swa_* keys (an explicit swa_qk_rope_head_dim apart from the global one), two dense
    # first layers then MoE on every other layer (moe_layer_freq 2), two shared experts of the aliased width
    dict(D3_TEXT, _raw=True, num_hidden_layers=8, swa_num_attention_heads=3, swa_num_key_value_heads=3,
         swa_q_lora_rank=40, swa_kv_lora_rank=20, swa_head_dim=32, swa_qk_nope_head_dim=20, swa_qk_rope_head_dim=12,
         swa_v_head_dim=24, first_k_dense_replace=2, moe_layer_freq=2, n_shared_experts=2,
         moe_shared_expert_intermediate_size=24),
    # use_dsa False: plain MLA full attention, no indexer; attention biases (q_a, kv_a, o); a tied head
    dict(D3_TEXT, _raw=True, num_hidden_layers=5, use_dsa=False, attention_bias=True, tie_word_embeddings=True,
         **D3_SWA),
    # use_sliding_window False: every layer indexed (the swa_* keys unused); a wider indexer over a larger q rank,
    # an explicit mlp_layer_types, two shared experts
    dict(D3_TEXT, _raw=True, num_hidden_layers=4, use_sliding_window=False, index_n_heads=4, index_head_dim=32,
         q_lora_rank=48, mlp_layer_types=["sparse", "dense", "sparse", "dense"], n_shared_experts=2, **D3_SWA),
    # hand-written per_layer_config (as transformers saves it): sliding, indexed and full layers mixed, the indexed
    # layers with a q rank of their own (their indexer's wq_b reads it too); MoE by a moe_layer_freq list
    dict(D3_TEXT, _raw=True, layer_types=[SW_, IX_, FA_, SW_, IX_, FA_],
         per_layer_config={"0": D3_SWA_GEOM, "1": {"q_lora_rank": 40}, "3": D3_SWA_GEOM, "4": {"q_lora_rank": 40}},
         first_k_dense_replace=0, moe_layer_freq=[0, 1, 1, 0, 1, 1]),
    # the same mix through the class (saved resolved): MoE every third layer from layer 0, more experts
    dict(D3_TEXT, layer_types=[IX_, SW_, FA_, SW_, SW_, IX_], n_routed_experts=6,
         per_layer_config={"1": D3_SWA_GEOM, "3": D3_SWA_GEOM, "4": D3_SWA_GEOM},
         first_k_dense_replace=0, moe_layer_freq=3),
    # no swa_* keys: the sliding layer (2) takes the absolute defaults (64 heads, q/kv ranks 1024, nope 192, rope 64,
    # v 128) whatever the global geometry
    dict(D3_TEXT, _raw=True, num_hidden_layers=3),
    # legacy layer_types: "full_attention" without use_dsa or per_layer_config is DSA (indexed, with its indexer)
    dict(D3_TEXT, _raw=True, num_hidden_layers=4, layer_types=[FA_, SW_, SW_, FA_], **D3_SWA),
]
# the wrapper: a vision tower (patch conv + RMSNorm, q/k-normed attention blocks, dense or routed-expert MLPs by
# mlp_layer_types, per-layer expert counts in per_layer_config; a 2-layer merger) and an audio encoder (three
# stride-2 convs, RoPE attention layers, a LayerNorm + 2-linear adapter) over the text model. A small vision config
# needs mlp_layer_types or pyramid_num_routed (else the 42-layer pyramid default raises); both adapters' out widths
# must be the text hidden size; the wrapper's tie flag counts, not the text config's.
D3_VIS = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4, patch_size=4,
              moe_intermediate_size=16, num_local_experts=4, num_experts_per_tok=2, adapter_in_dim=32,
              adapter_out_dim=64, mlp_layer_types=["dense", "sparse", "sparse"])
D3_AUD = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
              downsample_hidden_size=8, feature_size=16, adapter_input_size=32, adapter_out_dim=64)
VARIANTS["dots3_note"] = [
    {},
    # hand-written as published: the text keys at the top level (swa_* aliases), small towers
    dict(D3_TEXT, _raw=True, vision_config=D3_VIS, audio_config=D3_AUD, **D3_SWA),
    # the same under text_config, saved as transformers saves it
    dict(text_config=dict(D3_TEXT, **D3_SWA), vision_config=D3_VIS, audio_config=D3_AUD),
    # a pyramid of routed experts (saved as mlp_layer_types + per_layer_config: 2, 6 and 4 experts), 4 blocks of
    # 6-px single-channel patches with qkv/proj biases, a 3x3 merge; an audio encoder without q/v/o biases, a
    # feature size that is no multiple of 8; the wrapper's tie
    dict(text_config=dict(D3_TEXT, **D3_SWA), tie_word_embeddings=True,
         vision_config=dict(D3_VIS, num_hidden_layers=4, pyramid_num_routed=[-1, 2, 6, 4], patch_size=6,
                            num_channels=1, spatial_merge_size=3, adapter_merge_size=3, attention_bias=True),
         audio_config=dict(D3_AUD, num_hidden_layers=3, attention_bias=False, downsample_hidden_size=12,
                           feature_size=20, intermediate_size=40)),
    # hand-written legacy tower keys: embed_dim / num_heads / use_bias / pyramid_num_routed / capacity_factor, and
    # the audio encoder's whisper_config with whisper_adapter_* widths; the text config's own tie (not read)
    dict(_raw=True, text_config=dict(D3_TEXT, tie_word_embeddings=True, **D3_SWA),
         vision_config=dict(embed_dim=48, num_heads=6, use_bias=True, intermediate_size=40, num_hidden_layers=3,
                            patch_size=4, moe_intermediate_size=24, num_local_experts=8, capacity_factor=1,
                            pyramid_num_routed=[2, -1, 3], adapter_in_dim=48, adapter_out_dim=64),
         audio_config=dict(whisper_config=dict(d_model=48, encoder_layers=1, encoder_attention_heads=4,
                                               encoder_ffn_dim=40, num_mel_bins=20),
                           whisper_adapter_in_dim=48, whisper_adapter_out_dim=64, downsample_hidden_size=8)),
    # an all-dense tower with MLP biases; a wider audio encoder; the text model without DSA (saved resolved)
    dict(text_config=dict(D3_TEXT, use_dsa=False, num_hidden_layers=4, **D3_SWA),
         vision_config=dict(D3_VIS, num_hidden_layers=2, mlp_layer_types=["dense", "dense"], mlp_bias=True,
                            intermediate_size=40),
         audio_config=dict(D3_AUD, hidden_size=48, num_attention_heads=6, intermediate_size=64, adapter_input_size=48,
                           num_hidden_layers=1)),
    # hand-written: the text keys at the top level with a per_layer_config and mixed layer_types, a tied head; the
    # tower's per_layer_config as transformers saves it (6 experts on block 1, the global 4 on block 2)
    dict(D3_TEXT, _raw=True, tie_word_embeddings=True, layer_types=[IX_, SW_, FA_, SW_, IX_, SW_],
         per_layer_config={"1": D3_SWA_GEOM, "3": D3_SWA_GEOM, "5": D3_SWA_GEOM},
         vision_config=dict(D3_VIS, per_layer_config={"1": {"num_local_experts": 6}}), audio_config=D3_AUD),
]
WRAPPERS |= {"dots3_note"}
# --- BART-style encoder-decoders, built as their generation classes (AutoModelForSeq2SeqLM: SEQ2SEQ) ---
# Every family: `shared`, encoder.embed_tokens, decoder.embed_tokens and lm_head are four vocab x d_model
# tables tied into one by tie_word_embeddings (false: four counted, `shared` unused); final_logits_bias is a
# buffer; q/k/v/o and fc1/fc2 with biases; head count, activation and scale_embedding change no count.
# Legacy Hub keys (normalize_before, add_final_layer_norm, normalize_embedding, static_position_embeddings,
# extra_pos_embeddings, add_bias_logits, layernorm_variant) are read by no 5.24 class: the `_raw` configs below
# carry them set against what the class builds. `num_hidden_layers` / `num_attention_heads` / `hidden_size` are
# attribute_map aliases of encoder_layers / encoder_attention_heads / d_model and win over them when both are given.
SEQ2SEQ = {"bart", "mbart", "marian", "pegasus", "m2m_100", "plbart", "blenderbot", "blenderbot-small", "mvp"}
S2S_SMALL = dict(vocab_size=1000, d_model=64, encoder_layers=2, decoder_layers=3, encoder_ffn_dim=96,
                 decoder_ffn_dim=160, encoder_attention_heads=4, decoder_attention_heads=8,
                 max_position_embeddings=128)
# untied, wider, fewer decoder layers, scaled embeddings, relu
S2S_WIDE = dict(vocab_size=777, d_model=96, encoder_layers=3, decoder_layers=1, encoder_ffn_dim=200,
                decoder_ffn_dim=72, encoder_attention_heads=6, decoder_attention_heads=3, max_position_embeddings=100,
                tie_word_embeddings=False, scale_embedding=True, activation_function="relu")
S2S_DEEP = dict(vocab_size=500, d_model=32, encoder_layers=1, decoder_layers=4, encoder_ffn_dim=128,
                decoder_ffn_dim=48, encoder_attention_heads=2, decoder_attention_heads=4, max_position_embeddings=33)
# BART: post-norm layers, learned positions with 2 extra rows (offset 2), layernorm_embedding, no final norm
VARIANTS["bart"] = [
    {},
    S2S_SMALL,
    S2S_WIDE,
    dict(S2S_DEEP, scale_embedding=True),
    # hand-written as facebook/bart-* configs read, the legacy flags flipped (ignored); num_hidden_layers (3)
    # wins over encoder_layers (2)
    dict(S2S_SMALL, _raw=True, model_type="bart", num_hidden_layers=3, normalize_before=True,
         add_final_layer_norm=True, normalize_embedding=False, static_position_embeddings=True,
         extra_pos_embeddings=0, add_bias_logits=True, pad_token_id=1, bos_token_id=0, eos_token_id=2,
         decoder_start_token_id=2),
]
# mBART: BART's table and positions, pre-norm layers, a final LayerNorm after each stack
VARIANTS["mbart"] = [
    {},
    dict(S2S_SMALL, scale_embedding=True),
    S2S_WIDE,
    S2S_DEEP,
    # hand-written as facebook/mbart-large-cc25 reads, add_final_layer_norm / normalize_before false (ignored)
    dict(S2S_DEEP, _raw=True, model_type="mbart", scale_embedding=True, add_final_layer_norm=False,
         normalize_before=False, normalize_embedding=True, static_position_embeddings=False, add_bias_logits=False),
]
# Marian: post-norm, no layernorm_embedding or final norm, sinusoidal positions counted (a frozen nn.Embedding of
# max_position_embeddings rows per stack); share_encoder_decoder_embeddings builds `shared` (vocab_size rows, the
# decoder's decoder_vocab_size then unused); without it the encoder has vocab_size rows, the decoder and head
# decoder_vocab_size, tied by tie_word_embeddings. pad_token_id must lie below both sizes (else nn.Embedding raises).
MARIAN_IDS = dict(pad_token_id=1, decoder_start_token_id=1, eos_token_id=0)
VARIANTS["marian"] = [
    {},
    dict(S2S_SMALL, scale_embedding=True, **MARIAN_IDS),
    dict(S2S_WIDE, **MARIAN_IDS),
    # separate vocabularies: encoder 1000 rows, decoder and its tied head 600
    dict(S2S_SMALL, share_encoder_decoder_embeddings=False, decoder_vocab_size=600, **MARIAN_IDS),
    dict(S2S_DEEP, share_encoder_decoder_embeddings=False, decoder_vocab_size=300, tie_word_embeddings=False,
         **MARIAN_IDS),
    # shared with a decoder_vocab_size of its own: tied, the decoder takes `shared` (1000 rows); untied, the decoder
    # keeps 700 rows and the head has vocab_size
    dict(S2S_SMALL, decoder_vocab_size=700, **MARIAN_IDS),
    dict(S2S_SMALL, decoder_vocab_size=700, tie_word_embeddings=False, **MARIAN_IDS),
    # Helsinki-NLP/opus-mt-en-de's shape (its config.json as published), written here, not downloaded
    dict(vocab_size=58101, decoder_vocab_size=58101, d_model=512, encoder_layers=6, decoder_layers=6,
         encoder_ffn_dim=2048, decoder_ffn_dim=2048, encoder_attention_heads=8, decoder_attention_heads=8,
         max_position_embeddings=512, scale_embedding=True, activation_function="swish", pad_token_id=58100,
         decoder_start_token_id=58100, eos_token_id=0),
]
# Pegasus: pre-norm, a final LayerNorm per stack, sinusoidal positions counted as Marian's, no layernorm_embedding
VARIANTS["pegasus"] = [
    {},
    dict(S2S_SMALL, scale_embedding=True),
    S2S_WIDE,
    S2S_DEEP,
    # hand-written as google/pegasus-* configs read, the legacy flags flipped (ignored)
    dict(S2S_DEEP, _raw=True, model_type="pegasus", normalize_before=False, add_final_layer_norm=False,
         normalize_embedding=True, static_position_embeddings=False, extra_pos_embeddings=2, scale_embedding=True),
]
# M2M100 (NLLB-200's dense checkpoints): pre-norm, a final LayerNorm per stack, sinusoidal positions in a
# non-persistent buffer (not counted), no layernorm_embedding
VARIANTS["m2m_100"] = [
    {},
    S2S_SMALL,
    S2S_WIDE,
    dict(S2S_DEEP, scale_embedding=False, encoder_layerdrop=0.0, decoder_layerdrop=0.0),
    # hand-written: only sizes, the class's ids and scale_embedding
    dict(_raw=True, model_type="m2m_100", vocab_size=900, d_model=48, encoder_layers=2, decoder_layers=2,
         encoder_ffn_dim=64, decoder_ffn_dim=80, encoder_attention_heads=4, decoder_attention_heads=6,
         max_position_embeddings=64),
    # facebook/nllb-200-distilled-600M's shape (its config.json as published), written here, not downloaded
    dict(vocab_size=256206, d_model=1024, encoder_layers=12, decoder_layers=12, encoder_ffn_dim=4096,
         decoder_ffn_dim=4096, encoder_attention_heads=16, decoder_attention_heads=16, max_position_embeddings=1024,
         scale_embedding=True, activation_function="relu", pad_token_id=1, bos_token_id=0, eos_token_id=2,
         decoder_start_token_id=2),
]
# PLBART: BART's layout (post-norm, offset-2 learned positions, layernorm_embedding), scale_embedding by default
VARIANTS["plbart"] = [
    {},
    S2S_SMALL,
    S2S_WIDE,
    dict(S2S_DEEP, scale_embedding=False),
]
# Blenderbot: pre-norm, a final LayerNorm per stack, learned positions without an offset, no layernorm_embedding
VARIANTS["blenderbot"] = [
    {},
    dict(S2S_SMALL, pad_token_id=0, bos_token_id=1, eos_token_id=2),
    S2S_WIDE,
    S2S_DEEP,
    # hand-written as facebook/blenderbot-3B reads (its legacy flags flipped, ignored)
    dict(S2S_SMALL, _raw=True, model_type="blenderbot", normalize_before=False, add_final_layer_norm=False,
         layernorm_variant="xlm", normalize_embedding=True, extra_pos_embeddings=2, extra_layer_norm=True,
         static_position_embeddings=True),
]
# Blenderbot-small: post-norm, learned positions without an offset, layernorm_embedding, no final norm
VARIANTS["blenderbot-small"] = [
    {},
    S2S_SMALL,
    S2S_WIDE,
    dict(S2S_DEEP, scale_embedding=True),
    # hand-written as facebook/blenderbot_small-90M reads (its legacy flags flipped, ignored)
    dict(S2S_DEEP, _raw=True, model_type="blenderbot-small", normalize_before=True, add_final_layer_norm=True,
         layernorm_variant="prelayernorm", normalize_embedding=False, static_position_embeddings=True),
]
# MVP: BART's layout; use_prompt adds the decoder's self- and cross-attention prompts (each an Embedding of
# prompt_length x d_model and d_model -> prompt_mid_dim -> 2 x decoder_layers x d_model, biased). The encoder's
# prompt is never built in 5.24 (MvpModel passes use_prompt into MvpEncoder's `embed_tokens` argument).
VARIANTS["mvp"] = [
    {},
    S2S_SMALL,
    dict(S2S_SMALL, use_prompt=True, prompt_length=12, prompt_mid_dim=40),
    dict(S2S_WIDE, use_prompt=True, prompt_length=5, prompt_mid_dim=100),
    dict(S2S_DEEP, use_prompt=False, prompt_length=7, prompt_mid_dim=24),
    # hand-written: prompts at the class's length (100) and width (800)
    dict(_raw=True, model_type="mvp", vocab_size=600, d_model=64, encoder_layers=2, decoder_layers=2,
         encoder_ffn_dim=96, decoder_ffn_dim=96, encoder_attention_heads=4, decoder_attention_heads=4,
         max_position_embeddings=64, use_prompt=True),
]
# --- Florence-2: a DaViT tower (per stage a ConvEmbed, then blocks of a spatial (window-attention) and a channel
# (group-attention) half, each with two depthwise 3x3 position convs), a projector (bias-free linear, LayerNorm, a
# learned row/column table of embed_dim[-1] halves; the cosine temporal table is a buffer, not counted) and BART
# (text_config, model_type "bart"), built as Florence2ForConditionalGeneration (AutoModelForImageTextToText).
# The wrapper's tie_word_embeddings ties lm_head to `shared`; text_config's ties encoder/decoder embed_tokens to it.
FL_VIS = dict(depths=[1, 2], embed_dim=[32, 64], num_heads=[2, 4], num_groups=[2, 4], patch_size=[7, 3],
              patch_stride=[4, 2], patch_padding=[3, 1], patch_prenorm=[False, True], window_size=4,
              projection_dim=64, max_position_embeddings=20)
VARIANTS["florence2"] = [
    {},
    # Florence-2-large's shape, typed from its model card / config.json as published (DaViT 256-512-1024-2048 with
    # 8-16-32-64 heads and groups, depths 1-1-9-1, window 12; a 1024-wide BART-large of 12 + 12 layers, vocab 51289),
    # written here, not downloaded
    dict(vision_config=dict(embed_dim=[256, 512, 1024, 2048], num_heads=[8, 16, 32, 64], num_groups=[8, 16, 32, 64],
                            depths=[1, 1, 9, 1], window_size=12, projection_dim=1024),
         text_config=dict(model_type="bart", vocab_size=51289, d_model=1024, encoder_layers=12, decoder_layers=12,
                          encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
                          decoder_ffn_dim=4096, max_position_embeddings=1024)),
    # two stages over a small BART
    dict(vision_config=FL_VIS, text_config=dict(S2S_SMALL, model_type="bart")),
    # three stages, a pre-norm first stage (LayerNorm over in_channels = 1) and a post-norm second, mlp_ratio 2.7
    # (int(24 * 2.7) = 64, int(56 * 2.7) = 151), no qkv bias; an untied lm_head (the wrapper's flag)
    dict(vision_config=dict(in_channels=1, depths=[2, 1, 3], embed_dim=[24, 40, 56], num_heads=[2, 4, 7],
                            num_groups=[3, 5, 8], patch_size=[5, 2, 3], patch_stride=[2, 2, 3], patch_padding=[2, 0, 1],
                            patch_prenorm=[True, False, True], window_size=3, mlp_ratio=2.7, qkv_bias=False,
                            projection_dim=96, max_position_embeddings=33),
         text_config=dict(S2S_WIDE, model_type="bart", tie_word_embeddings=True), tie_word_embeddings=False),
    # four stages, an empty one, a last width of 46 (row and column tables 23 wide each; an odd last width cannot be
    # built: the cosine temporal buffer fills its even and odd columns with embed_dim // 2 sines and cosines);
    # text_config's own tie off (encoder / decoder embed_tokens apart from `shared`, lm_head still tied to `shared`);
    # projection_dim (40) is not d_model (32): counted as built, though such a model cannot merge its image features
    dict(vision_config=dict(depths=[1, 0, 2, 1], embed_dim=[16, 24, 36, 46], num_heads=[2, 3, 4, 2],
                            num_groups=[4, 2, 6, 23], window_size=5, mlp_ratio=3.0, projection_dim=40,
                            max_position_embeddings=7),
         text_config=dict(S2S_DEEP, model_type="bart", tie_word_embeddings=False, max_position_embeddings=40)),
    # hand-written: sub-configs without model_type (the text one is BART), every other key the class default's;
    # both ties off (four vocab tables)
    dict(_raw=True, tie_word_embeddings=False,
         vision_config=dict(depths=[1, 1, 1, 1], embed_dim=[32, 64, 96, 128], num_heads=[2, 2, 4, 4],
                            num_groups=[2, 2, 4, 4], projection_dim=128),
         text_config=dict(vocab_size=500, d_model=128, encoder_layers=1, decoder_layers=2, encoder_ffn_dim=256,
                          decoder_ffn_dim=192, encoder_attention_heads=4, decoder_attention_heads=2,
                          max_position_embeddings=64, tie_word_embeddings=False)),
]
WRAPPERS |= {"florence2"}
# --- UMT5, built as its generation class (AutoModelForSeq2SeqLM) ---
# All keep T5's layout: `shared` with encoder / decoder embed_tokens tied to it, q/k/v/o and wi(_0/_1)/wo without
# biases, one RMS norm per sub-layer plus one per stack, lm_head tied to `shared` by tie_word_embeddings.
# The difference counted: UMT5 gives every self-attention layer its own relative_attention_bias (buckets x heads;
# T5 only the first of each stack). UMT5's config class forces
# tie_word_embeddings to True as T5's does (the saved flag only sets the decoder's output scaling): its rows
# are tied counts, and the importer reads the checkpoint's flag, as for T5 (README.md).
SEQ2SEQ |= {"umt5"}
T5_SMALL = dict(vocab_size=600, d_model=64, d_kv=16, d_ff=160, num_layers=2, num_decoder_layers=3, num_heads=4,
                relative_attention_num_buckets=16)
VARIANTS["umt5"] = [
    {},
    # google/umt5-small's shape as its model card's config.json reads (typed here, not downloaded): 8 + 8 layers of
    # 512 wide, 6 heads of 64, gated-gelu 1024, 256,384 tokens, untied head
    dict(vocab_size=256384, d_model=512, d_kv=64, d_ff=1024, num_layers=8, num_decoder_layers=8, num_heads=6,
         feed_forward_proj="gated-gelu", tie_word_embeddings=False),
    T5_SMALL,
    dict(T5_SMALL, feed_forward_proj="relu", tie_word_embeddings=False, num_decoder_layers=1,
         relative_attention_num_buckets=8),
    # hand-written with the attribute_map names (num_hidden_layers is num_layers; no num_decoder_layers: symmetric)
    dict(_raw=True, vocab_size=300, hidden_size=48, d_kv=8, d_ff=96, num_hidden_layers=3, num_attention_heads=6,
         feed_forward_proj="gated-silu"),
]
# --- T5Gemma: Gemma-2 stacks as an encoder and a decoder (T5GemmaForConditionalGeneration) ---
# `encoder` and `decoder` are two T5GemmaModuleConfig dicts; encoder and decoder each embed with their own table
# (vocab x width), the head is tied to the decoder's by tie_word_embeddings; every layer has Gemma-2's four RMS
# norms, a decoder layer adds cross-attention (k/v from the encoder's width) with its own pre and post norm; each
# stack ends with a norm.
SEQ2SEQ |= {"t5gemma"}
TG_SMALL = dict(vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, head_dim=16, query_pre_attn_scalar=16)
VARIANTS["t5gemma"] = [
    {},
    dict(tie_word_embeddings=False),
    dict(encoder=TG_SMALL, decoder=dict(TG_SMALL, num_hidden_layers=3), vocab_size=500),
    # biased attention, one head group, explicit layer kinds, untied
    dict(encoder=dict(TG_SMALL, attention_bias=True, num_key_value_heads=1, layer_types=["full_attention"] * 2),
         decoder=dict(TG_SMALL, attention_bias=True, num_key_value_heads=1, num_hidden_layers=1,
                      layer_types=["sliding_attention"]),
         vocab_size=500, tie_word_embeddings=False),
    # T5Gemma-b-b's shape as its published config.json reads (typed here, not downloaded): 12 + 12 layers of 768,
    # 12 heads of 64, MLP 2048
    dict(encoder=dict(vocab_size=256000, hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
                      num_attention_heads=12, num_key_value_heads=12, head_dim=64, query_pre_attn_scalar=64),
         decoder=dict(vocab_size=256000, hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
                      num_attention_heads=12, num_key_value_heads=12, head_dim=64, query_pre_attn_scalar=64)),
]
# --- LongT5: T5's stacks with a blocked encoder attention (LongT5ForConditionalGeneration) ---
# local attention has T5's parameters; transient-global adds a summary bias table (buckets x heads) in the encoder's
# first layer and a summary RMS norm (d_model) in every encoder layer. The class ties the head whatever the config
# says (LongT5Config.__post_init__).
SEQ2SEQ |= {"longt5"}
LT5_SMALL = dict(vocab_size=500, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=3, num_heads=4,
                 local_radius=8, relative_attention_num_buckets=16)
VARIANTS["longt5"] = [
    {},
    # google/long-t5-tglobal-base's shape as its model card's config.json reads (typed here, not downloaded):
    # 12 + 12 layers of 768, 12 heads of 64, gated-gelu 2048, transient-global over blocks of 16
    dict(vocab_size=32128, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12, num_heads=12,
         feed_forward_proj="gated-gelu", encoder_attention_type="transient-global", global_block_size=16),
    LT5_SMALL,
    dict(LT5_SMALL, encoder_attention_type="transient-global", global_block_size=4, feed_forward_proj="gated-gelu"),
    # hand-written with the attribute_map names (no num_decoder_layers: symmetric)
    dict(_raw=True, vocab_size=300, hidden_size=48, d_kv=8, d_ff=96, num_hidden_layers=3, num_attention_heads=6,
         encoder_attention_type="transient-global", local_radius=3),
]
# --- ModernBERT's decoder (ModernBertDecoderForCausalLM): ModernBERT's layers run causally, every
# global_attn_every_n_layers-th layer global, the others within local_attention // 2 tokens; a dense + norm head
# before the (tied, biased) vocabulary projection.
MBD_SMALL = dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=5, num_attention_heads=4,
                 local_attention=16, pad_token_id=0)
VARIANTS["modernbert-decoder"] = [
    {},
    # jhu-clsp's ettin-decoder-150m shape as its model card's config.json reads (typed here, not downloaded):
    # 22 layers of 768, 12 heads, GeGLU 1152, 50,368 tokens, global every 3rd layer, local window 128
    dict(vocab_size=50368, hidden_size=768, intermediate_size=1152, num_hidden_layers=22, num_attention_heads=12,
         local_attention=128),
    MBD_SMALL,
    dict(MBD_SMALL, attention_bias=True, mlp_bias=True, norm_bias=True, classifier_bias=True, decoder_bias=False,
         tie_word_embeddings=False, num_hidden_layers=4),
    # hand-written as older configs on the Hub read: the legacy global_attn_every_n_layers, no layer_types
    dict(_raw=True, vocab_size=300, hidden_size=48, intermediate_size=80, num_hidden_layers=7,
         num_attention_heads=6, global_attn_every_n_layers=2, local_attention=8, pad_token_id=0),
]
# --- Switch Transformers: T5's stacks with top-1 routed ReLU experts in every step-th layer
# (SwitchTransformersForConditionalGeneration); step = layers // num_sparse_* (recomputed by __post_init__)
SEQ2SEQ |= {"switch_transformers"}
SW_SMALL = dict(vocab_size=500, d_model=64, d_kv=16, d_ff=128, num_layers=4, num_decoder_layers=5, num_heads=4,
                num_experts=4, relative_attention_num_buckets=16)
VARIANTS["switch_transformers"] = [
    {},
    # google/switch-base-8's shape as its model card's config.json reads (typed here, not downloaded): 12 + 12
    # layers of 768, 12 heads of 64, 8 experts of 3072, every other layer sparse
    dict(vocab_size=32128, d_model=768, d_kv=64, d_ff=3072, num_layers=12, num_decoder_layers=12, num_heads=12,
         num_experts=8, num_sparse_encoder_layers=6, num_sparse_decoder_layers=6),
    SW_SMALL,
    # every layer sparse, a biased router, untied head, one sparse decoder layer by the num_sparse=0 rule
    dict(SW_SMALL, num_sparse_encoder_layers=4, num_sparse_decoder_layers=0, router_bias=True,
         tie_word_embeddings=False),
    # more sparse layers asked than there are: step 0, no sparse encoder layer
    dict(SW_SMALL, num_layers=2, num_sparse_encoder_layers=3, num_sparse_decoder_layers=2),
]
