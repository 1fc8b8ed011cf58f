"""Parameter counts of Qwen2.5-Omni and Qwen3-Omni-MoE (whole models and
their thinkers alone), on the config classes' defaults, on the released
checkpoints' geometries and on varied small configs that flip the keys the
importer reads (tied heads, head_dim, sparse steps, talker and vocoder
shapes, enable_audio_output).

Each config is written to ../configs/omni/<model_type>__<n>.json (its
`to_dict()`), built on the meta device (the whole model's class,
`Qwen2_5OmniForConditionalGeneration` / `Qwen3OmniMoeForConditionalGeneration`,
as AutoModelForMultimodalLM builds it; the thinker's with
AutoModelForImageTextToText) and its `model.num_parameters()` recorded in
hf_omni.csv. Qwen3-Omni-30B-A3B-Instruct's geometry (a public dump of its
config) gives 35,259,818,545, the total of its safetensors files. Run with
HF_HUB_OFFLINE=1; nothing is downloaded:

    HF_HUB_OFFLINE=1 python measure_omni.py
"""
import csv, json, os, warnings
import torch, transformers
from transformers import AutoModelForImageTextToText
from transformers.models.qwen2_5_omni.configuration_qwen2_5_omni import Qwen2_5OmniConfig
from transformers.models.qwen2_5_omni.modeling_qwen2_5_omni import Qwen2_5OmniForConditionalGeneration
from transformers.models.qwen3_omni_moe.configuration_qwen3_omni_moe import Qwen3OmniMoeConfig
from transformers.models.qwen3_omni_moe.modeling_qwen3_omni_moe import Qwen3OmniMoeForConditionalGeneration

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.join(here, "..", "configs", "omni")
os.makedirs(out_dir, exist_ok=True)


def q25(th=None, tk=None, t2w=None, **top):
    return Qwen2_5OmniConfig(thinker_config=th, talker_config=tk, token2wav_config=t2w, **top)


Q25 = [
    q25(),
    # Qwen2.5-Omni-7B's tower (Qwen2.5-VL's 1280 wide)
    q25(th={"vision_config": {"hidden_size": 1280}}),
    q25(th={"tie_word_embeddings": True,
            "text_config": {"hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2,
                            "intermediate_size": 512, "vocab_size": 1000, "head_dim": 48},
            "vision_config": {"depth": 3, "hidden_size": 128, "num_heads": 4, "intermediate_size": 200,
                              "out_hidden_size": 256, "fullatt_block_indexes": [2], "patch_size": 16},
            "audio_config": {"encoder_layers": 2, "d_model": 96, "encoder_attention_heads": 4, "encoder_ffn_dim": 300,
                             "output_dim": 256, "num_mel_bins": 80}},
        tk={"hidden_size": 128, "embedding_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
            "num_key_value_heads": 1, "head_dim": 64, "intermediate_size": 300, "vocab_size": 500},
        t2w={"dit_config": {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 32,
                            "ff_mult": 3, "emb_dim": 64, "num_embeds": 100, "mel_dim": 40,
                            "enc_channels": [64, 64, 64, 192], "enc_kernel_sizes": [5, 3, 3, 1],
                            "enc_dilations": [1, 2, 3, 1], "enc_attention_channels": 32, "enc_res2net_scale": 4,
                            "enc_se_channels": 16, "enc_dim": 48, "enc_emb_dim": 24},
             "bigvgan_config": {"mel_dim": 40, "upsample_initial_channel": 256, "upsample_rates": [4, 2, 2],
                                "upsample_kernel_sizes": [8, 4, 4], "resblock_kernel_sizes": [3, 5],
                                "resblock_dilation_sizes": [[1, 3, 5], [1, 3, 5]]}}),
    # the text config's own tie flag is not read
    q25(th={"tie_word_embeddings": False,
            "text_config": {"hidden_size": 384, "num_hidden_layers": 5, "num_attention_heads": 6,
                            "num_key_value_heads": 6, "intermediate_size": 1000, "vocab_size": 2000,
                            "tie_word_embeddings": True},
            "vision_config": {"depth": 4, "hidden_size": 96, "num_heads": 3, "intermediate_size": 150,
                              "out_hidden_size": 384, "spatial_merge_size": 3, "fullatt_block_indexes": [1, 3]},
            "audio_config": {"encoder_layers": 3, "d_model": 64, "encoder_attention_heads": 2, "encoder_ffn_dim": 128,
                             "output_dim": 384}},
        tk={"hidden_size": 96, "embedding_size": 384, "num_hidden_layers": 3, "num_attention_heads": 3,
            "num_key_value_heads": 3, "head_dim": 32, "intermediate_size": 200, "vocab_size": 300}),
    q25(th={"text_config": {"hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 16,
                            "num_key_value_heads": 4, "intermediate_size": 700, "vocab_size": 3000},
            "vision_config": {"depth": 2, "hidden_size": 64, "num_heads": 2, "intermediate_size": 100,
                              "out_hidden_size": 512},
            "audio_config": {"encoder_layers": 1, "d_model": 32, "encoder_attention_heads": 2, "encoder_ffn_dim": 64,
                             "output_dim": 512}}, enable_audio_output=False),
]

# Qwen3OmniMoeConfig's class defaults cannot build a talker without these two
TK_FIX = {"spatial_merge_size": 2, "text_config": {"shared_expert_intermediate_size": 768}}


def q3(text=None, vision=None, audio=None, talker=None, tt=None, cp=None, c2w=None, **top):
    th = {"text_config": {"hidden_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
                          "intermediate_size": 256, "moe_intermediate_size": 64, "num_experts": 8,
                          "num_experts_per_tok": 2, "vocab_size": 1000, **(text or {})},
          "vision_config": {"depth": 3, "hidden_size": 64, "num_heads": 4, "intermediate_size": 100,
                            "out_hidden_size": 128, "num_position_embeddings": 144,
                            "deepstack_visual_indexes": [0, 1], **(vision or {})},
          "audio_config": {"encoder_layers": 2, "d_model": 64, "encoder_attention_heads": 4, "encoder_ffn_dim": 128,
                           "output_dim": 128, "downsample_hidden_size": 32, **(audio or {})}}
    th.update(top.pop("thinker_top", {}))
    tk = {"thinker_hidden_size": 128, "spatial_merge_size": 2,
          "text_config": {"hidden_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                          "intermediate_size": 160, "moe_intermediate_size": 48,
                          "shared_expert_intermediate_size": 80, "num_experts": 4, "num_experts_per_tok": 2,
                          "vocab_size": 300, **(tt or {})},
          "code_predictor_config": {"hidden_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
                                    "num_key_value_heads": 2, "head_dim": 32, "intermediate_size": 192,
                                    "vocab_size": 128, "num_code_groups": 4, **(cp or {})}, **(talker or {})}
    cw = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
          "num_hidden_layers": 2, "codebook_size": 64, "num_quantizers": 4, "decoder_dim": 96,
          "upsample_rates": [4, 3], "upsampling_ratios": [2], **(c2w or {})}
    return Qwen3OmniMoeConfig(thinker_config=th, talker_config=tk, code2wav_config=cw, **top)


Q3_30B = dict(
    thinker_config=dict(
        audio_config=dict(d_model=1280, encoder_attention_heads=20, encoder_ffn_dim=5120, encoder_layers=32,
                          num_mel_bins=128, output_dim=2048, n_window=50, n_window_infer=800,
                          downsample_hidden_size=480),
        text_config=dict(hidden_size=2048, head_dim=128, intermediate_size=768, moe_intermediate_size=768,
                         num_attention_heads=32, num_key_value_heads=4, num_hidden_layers=48, num_experts=128,
                         num_experts_per_tok=8, vocab_size=152064, decoder_sparse_step=1, mlp_only_layers=[]),
        vision_config=dict(depth=27, hidden_size=1152, intermediate_size=4304, num_heads=16,
                           num_position_embeddings=2304, out_hidden_size=2048, patch_size=16, spatial_merge_size=2,
                           temporal_patch_size=2, deepstack_visual_indexes=[8, 16, 24]),
        tie_word_embeddings=False),
    talker_config=dict(
        thinker_hidden_size=2048, num_code_groups=16, spatial_merge_size=2, tie_word_embeddings=False,
        text_config=dict(hidden_size=1024, head_dim=128, intermediate_size=2048, moe_intermediate_size=384,
                         shared_expert_intermediate_size=768, num_attention_heads=16, num_key_value_heads=2,
                         num_hidden_layers=20, num_experts=128, num_experts_per_tok=6, vocab_size=3072),
        code_predictor_config=dict(hidden_size=1024, head_dim=128, intermediate_size=3072, num_attention_heads=16,
                                   num_key_value_heads=8, num_hidden_layers=5, vocab_size=2048, num_code_groups=16)),
    code2wav_config=dict(codebook_size=2048, hidden_size=1024, num_attention_heads=16, num_key_value_heads=16,
                         intermediate_size=3072, num_hidden_layers=8, num_quantizers=16, decoder_dim=1536,
                         upsample_rates=[8, 5, 4, 3], upsampling_ratios=[2, 2], sliding_window=72))

Q3 = [
    Qwen3OmniMoeConfig(talker_config=TK_FIX),
    Qwen3OmniMoeConfig(**Q3_30B),
    q3(),
    q3(text={"head_dim": 40, "mlp_only_layers": [0], "decoder_sparse_step": 2, "attention_bias": True},
       tt={"attention_bias": True, "mlp_only_layers": [0]}, cp={"attention_bias": True}, c2w={"attention_bias": True},
       thinker_top={"tie_word_embeddings": True}, talker={"tie_word_embeddings": True}),
    q3(text={"num_experts": 16, "num_experts_per_tok": 4, "num_key_value_heads": 4, "num_hidden_layers": 6},
       vision={"depth": 5, "spatial_merge_size": 3, "deepstack_visual_indexes": [1, 2, 4], "patch_size": 14},
       audio={"encoder_layers": 4, "num_mel_bins": 80, "downsample_hidden_size": 48},
       tt={"num_experts": 8, "num_hidden_layers": 3}, cp={"num_code_groups": 8},
       c2w={"upsample_rates": [2, 2, 2], "upsampling_ratios": [2, 3], "num_hidden_layers": 3}),
    q3(text={"num_experts": 0, "hidden_size": 192, "num_attention_heads": 6, "num_key_value_heads": 3},
       enable_audio_output=False),
]

rows = []


def record(model_type, n, cfg, build):
    with torch.device("meta"):
        model = build(cfg)
    name = f"omni/{model_type}__{n}.json"
    with open(os.path.join(out_dir, f"{model_type}__{n}.json"), "w") as f:
        json.dump(cfg.to_dict(), f, indent=1, sort_keys=True)
        f.write("\n")
    rows.append((name, type(model).__name__, model.num_parameters()))
    print(rows[-1])


for model_type, configs, whole in [("qwen2_5_omni", Q25, Qwen2_5OmniForConditionalGeneration),
                                   ("qwen3_omni_moe", Q3, Qwen3OmniMoeForConditionalGeneration)]:
    for n, cfg in enumerate(configs):
        record(model_type, n, cfg, whole)
        # the thinker alone, as AutoModelForImageTextToText builds it
        record(f"{model_type}_thinker", n, cfg.thinker_config, AutoModelForImageTextToText.from_config)

with open(os.path.join(here, "hf_omni.csv"), "w", newline="") as f:
    f.write(f"# transformers {transformers.__version__}, torch {torch.__version__}: measure_omni.py\n")
    w = csv.writer(f)
    w.writerow(["config", "hf_class", "num_parameters"])
    w.writerows(rows)
