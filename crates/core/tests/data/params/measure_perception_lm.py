"""Parameter counts of PerceptionLM (`perception_lm`) on released-checkpoint-like and varied
configs. Its vision tower is a timm model (`TimmWrapperModel` over timm's Eva / Perception
Encoder); timm is not installed here, so `timm_shim.py` makes a source snapshot of
huggingface/pytorch-image-models importable (see there). The class defaults do not build (a
resnet50 wrapper without `model_args`), so every row is a variant.

For each variant: `AutoConfig.for_model("perception_lm", **kw)`, written to
../configs/variants_2026/perception_lm__<n>.json, built on the meta device with
AutoModelForImageTextToText, `num_parameters()` appended to hf_variants_2026.csv (rows of
perception_lm replaced). Run with HF_HUB_OFFLINE=1; nothing is downloaded:

    HF_HUB_OFFLINE=1 PYTHONPATH=<torchvision stub> python measure_perception_lm.py
"""
import csv, json, os, sys, warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import timm_shim  # noqa: E402

timm, TIMM_COMMIT = timm_shim.install()
import torch  # noqa: E402
from transformers import AutoConfig, AutoModelForImageTextToText  # noqa: E402

warnings.filterwarnings("ignore")
CONFIGS = os.path.join(HERE, "..", "configs", "variants_2026")
CSV = os.path.join(HERE, "hf_variants_2026.csv")


def vis(arch, **ma):
    return {"model_type": "timm_wrapper", "architecture": arch, "do_pooling": False, "model_args": ma}


def llama(**kw):
    return dict({"model_type": "llama"}, **kw)


# released-checkpoint-like configs: vision model_args exactly as convert_perception_lm_weights_to_hf.py writes them
# (width/layers/image_size/use_ln_post/ls_init_value from perception_models apps/plm/configs/*/plm_{1b,3b,8b}.yaml);
# text via compute_intermediate_size(dim, ffn_dim_multiplier, multiple_of); vocab = len(tokenizer) = 128256.
L3 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192}
VARIANTS = {
    "PLM-1B-like": dict(
        vision_config=vis("vit_pe_core_large_patch14_336", embed_dim=1024, depth=23, img_size=(448, 448), global_pool="",
                          use_post_transformer_norm=False, init_values=0.1, ref_feat_shape=(32, 32)),
        text_config=llama(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                          num_attention_heads=32, num_key_value_heads=8, rms_norm_eps=1e-5, max_position_embeddings=11520,
                          tie_word_embeddings=True, rope_parameters=L3),
        projector_pooling_ratio=2, vision_use_cls_token=True),
    "PLM-3B-like": dict(
        vision_config=vis("vit_pe_core_large_patch14_336", embed_dim=1024, depth=23, img_size=(448, 448), global_pool="",
                          use_post_transformer_norm=False, init_values=0.1, ref_feat_shape=(32, 32)),
        text_config=llama(vocab_size=128256, hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
                          num_attention_heads=24, num_key_value_heads=8, rms_norm_eps=1e-5, max_position_embeddings=11520,
                          tie_word_embeddings=True, rope_parameters=L3),
        projector_pooling_ratio=2, vision_use_cls_token=True),
    "PLM-8B-like": dict(
        vision_config=vis("vit_pe_core_gigantic_patch14_448", embed_dim=1536, depth=47, img_size=(448, 448), global_pool="",
                          use_post_transformer_norm=False, init_values=0.1, ref_feat_shape=(32, 32)),
        text_config=llama(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                          num_attention_heads=32, num_key_value_heads=8, rms_norm_eps=1e-5, max_position_embeddings=11520,
                          tie_word_embeddings=False, rope_parameters={"rope_type": "default", "rope_theta": 500000.0}),
        projector_pooling_ratio=2, vision_use_cls_token=False),
    # class-default text config (Llama-2-7B shape) with the PLM-1B tower: the closest thing to "class defaults" that builds
    "defaults+PLM1B-tower": dict(
        vision_config=vis("vit_pe_core_large_patch14_336", embed_dim=1024, depth=23, img_size=(448, 448), global_pool="",
                          use_post_transformer_norm=False, init_values=0.1, ref_feat_shape=(32, 32))),
    # small varied ones
    "tiny-test-like": dict(  # transformers' own test vision_config
        vision_config=vis("vit_pe_core_large_patch14_336", embed_dim=64, img_size=(14, 14), depth=2, global_pool="",
                          use_post_transformer_norm=False, init_values=0.1, ref_feat_shape=(1, 1)),
        text_config=llama(vocab_size=99, hidden_size=32, intermediate_size=37, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2)),
    "v1-noLS-postnorm-untied": dict(
        vision_config=vis("vit_pe_core_large_patch14_336", embed_dim=96, img_size=(56, 56), depth=3, num_heads=4, global_pool="",
                          use_post_transformer_norm=True, ref_feat_shape=(4, 4)),
        text_config=llama(vocab_size=500, hidden_size=128, intermediate_size=300, num_hidden_layers=2, num_attention_heads=8,
                          num_key_value_heads=2, head_dim=32, attention_bias=True, tie_word_embeddings=False),
        projector_pooling_ratio=2),
    "v2-gigantic-nocls-mlpbias-tied": dict(
        vision_config=vis("vit_pe_core_gigantic_patch14_448", embed_dim=48, img_size=(42, 28), depth=2, num_heads=4,
                          mlp_ratio=8960 / 1536, global_pool="", use_post_transformer_norm=False, init_values=0.1,
                          ref_feat_shape=(3, 2)),
        text_config=llama(vocab_size=321, hidden_size=64, intermediate_size=100, num_hidden_layers=3, num_attention_heads=4,
                          num_key_value_heads=1, mlp_bias=True, tie_word_embeddings=True),
        vision_use_cls_token=False),
    "v3-large-default-pool(map)-top-tie-override": dict(
        vision_config=vis("vit_pe_core_large_patch14_336", embed_dim=64, img_size=(28, 28), depth=1, num_heads=4),
        text_config=llama(vocab_size=256, hidden_size=48, intermediate_size=96, num_hidden_layers=1, num_attention_heads=4,
                          num_key_value_heads=4, tie_word_embeddings=False),
        tie_word_embeddings=True),
    "v4-gigantic-full-default-mlp-ratio": dict(
        vision_config=vis("vit_pe_core_gigantic_patch14_448", embed_dim=1536, depth=2, img_size=(448, 448), global_pool="",
                          use_post_transformer_norm=False, init_values=0.1, ref_feat_shape=(32, 32)),
        text_config=llama(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=1,
                          num_attention_heads=4, num_key_value_heads=2)),
    "v5-lang-large-arch": dict(
        vision_config=vis("vit_pe_lang_large_patch14_448", embed_dim=80, depth=2, num_heads=4, img_size=(70, 70),
                          global_pool="", ref_feat_shape=(5, 5)),
        text_config=llama(vocab_size=300, hidden_size=40, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, tie_word_embeddings=True)),
}


def main():
    rows = []
    for n, (name, kw) in enumerate(VARIANTS.items()):
        cfg = AutoConfig.for_model("perception_lm", **kw)
        path = f"variants_2026/perception_lm__{n}.json"
        with open(os.path.join(HERE, "..", "configs", path), "w") as f:
            f.write(cfg.to_json_string(use_diff=False))
        with torch.device("meta"):
            model = AutoModelForImageTextToText.from_config(cfg)
        count = model.num_parameters()
        print(f"{path:45} {name:45} {count:>15,}", flush=True)
        rows.append({"config": path, "hf_class": type(model).__name__, "num_parameters": count,
                     "sliding_layers": 0, "dense_mlp_layers": ""})
    with open(CSV) as f:
        kept = [r for r in csv.DictReader(f) if "/perception_lm__" not in r["config"]]
        fields = list(kept[0].keys())
    with open(CSV, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(kept + rows)
    print(f"timm {timm.__version__} (pytorch-image-models {TIMM_COMMIT[:12]}), {len(rows)} rows")


if __name__ == "__main__":
    main()
