//! DeepSeek-VL (`deepseek_vl`), DeepSeek-VL hybrid (`deepseek_vl_hybrid`)
//! and Janus / Janus-Pro (`janus`), transformers 5.24: a Llama language
//! model (`text_config`, LlamaConfig's defaults), a SigLIP tower (Janus's
//! own SigLIP-like ViT) at a fixed square, and an MLP aligner; the hybrid
//! adds SAM's ViT at 1024 px with its neck and two projection convolutions;
//! Janus adds the image-generation side, always loaded (the VQ-VAE, the
//! generation embeddings, aligner and head). Only the wrapper's
//! `tie_word_embeddings` ties (default True). Counts follow the modeling
//! files and equal `sum(p.numel())` on the meta device
//! (`tests/data/params/hf_variants_2026.csv`); the SAM tower and the
//! generation side are counted, their activations are not modelled.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::siglip::siglip_from;
use super::vlm::{counted, siglip_shape};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

pub(super) fn import_deepseek_vl(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    if text.string("model_type")?.is_none() {
        text.defaults = Defaults::Llama;
    }
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let h = u128::from(spec.hidden);
    let mut v = cfg.object_or_empty("vision_config", &empty)?;
    let int = |c: &Cfg, key: &'static str, max: u64, default: u64| -> Result<u64> {
        Ok(c.int(&[key], 1, max)?.unwrap_or(default))
    };
    let (shape, tower, projector) = if model_type == "janus" {
        v.defaults = Defaults::Class("janus_vision_model");
        let d = int(&v, "hidden_size", MAX_DIM, 1024)?;
        let layers = int(&v, "num_hidden_layers", MAX_LAYERS, 24)?;
        let heads = int(&v, "num_attention_heads", MAX_HEADS, 16)?;
        let image = int(&v, "image_size", MAX_IMAGE_SIZE, 384)?;
        let patch = int(&v, "patch_size", image, 16)?;
        let channels = u128::from(int(&v, "num_channels", 64, 3)?);
        let ratio = v.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
        let i = (d as f64 * ratio) as u64;
        let (dw, iw) = (u128::from(d), u128::from(i));
        let bias = u128::from(v.flag("attention_bias", true)?);
        let qk_norm = u128::from(v.flag("use_qk_norm", false)?);
        // JanusVisionEncoderLayer: two LayerNorms, q/k/v (biased with
        // attention_bias), the output projection, q/k LayerNorms when
        // use_qk_norm, the MLP
        let layer = 4 * dw
            + 3 * (dw * dw + bias * dw)
            + (dw * dw + dw)
            + qk_norm * 4 * dw
            + 2 * dw * iw
            + iw
            + dw;
        let patches = u128::from(image / patch).pow(2);
        let tower = channels * u128::from(patch).pow(2) * dw
            + dw
            + patches * dw
            + u128::from(layers) * layer
            + 2 * dw;
        // JanusVisionAlignerMLP: fc1 D → projection_dim, then depth − 1 hidden layers
        let pd = u128::from(int(&v, "projection_dim", MAX_DIM, 2048)?);
        let depth = u128::from(int(&v, "depth", 64, 2)?);
        let aligner = dw * pd + pd + (depth - 1) * (pd * pd + pd);
        spec.model_extra_params = super::vlm::narrow(
            u128::from(spec.model_extra_params) + janus_generation(cfg, &empty)?,
            "vq_config",
        )?;
        (
            siglip_shape(d, layers, heads, i, image, patch),
            tower,
            aligner,
        )
    } else {
        v.defaults = Defaults::SiglipVision;
        let siglip = siglip_from(&v)?;
        let mut tower = u128::from(siglip.params.unwrap_or(0));
        let dw = u128::from(siglip.hidden);
        let aligner = if model_type == "deepseek_vl_hybrid" {
            let mut hv = cfg.object_or_empty("high_res_vision_config", &empty)?;
            hv.defaults = Defaults::Class("sam_vision_model");
            let out = u128::from(int(&hv, "output_channels", MAX_DIM, 256)?);
            // SAM's ViT and neck, then the wrapper's own neck (a 1×1 and a
            // 3×3 convolution without bias, two LayerNorm2d), two stride-2
            // projection convolutions and the learned `alpha`
            tower += sam(&hv)?
                + (u128::from(int(&hv, "hidden_size", MAX_DIM, 768)?) * out
                    + 4 * out
                    + 9 * out * out)
                + (9 * out * 2 * out + 9 * 2 * out * 4 * out)
                + 1;
            // DeepseekVLHybridAligner: the SigLIP and SAM features each to
            // half the text width, concatenated, then text → text
            let half = h / 2;
            dw * half + half + 4 * out * half + half + h * h + h
        } else {
            // DeepseekVLAligner: Linear(D, H), GELU, Linear(H, H)
            dw * h + h + h * h + h
        };
        (siglip, tower, aligner)
    };
    spec.vision = Some(counted(shape, tower, projector)?);
    spec.name = model_type.to_string();
    Ok(spec)
}

/// SAM's ViT (`SamVisionConfig`'s defaults): the patch embedding, the
/// absolute positions, per layer two LayerNorms, the fused qkv and the
/// output projection, decomposed relative positions (a global layer's over
/// the whole grid, a windowed one's over its window) and the MLP; its neck.
fn sam(v: &Cfg) -> Result<u128> {
    let get = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(v.int(&[key], 0, MAX_DIM)?.unwrap_or(default)))
    };
    let d = get("hidden_size", 768)?;
    let layers = get("num_hidden_layers", 12)?;
    let heads = get("num_attention_heads", 12)?.max(1);
    let channels = get("num_channels", 3)?;
    let patch = get("patch_size", 16)?.max(1);
    let image = get("image_size", 1024)?;
    let out = get("output_channels", 256)?;
    let window = get("window_size", 14)?;
    let ratio = v.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
    let m = match v.int(&["mlp_dim"], 1, MAX_DIM)? {
        Some(m) => u128::from(m),
        None => (d as f64 * ratio) as u128,
    };
    let global: Vec<u64> = v
        .ints("global_attn_indexes", 0, MAX_LAYERS)?
        .unwrap_or_else(|| vec![2, 5, 8, 11]);
    let qkv_bias = u128::from(v.flag("qkv_bias", true)?);
    let (head_dim, grid) = (d / heads, image / patch);
    let mut total = channels * patch * patch * d + d;
    if v.flag("use_abs_pos", true)? {
        total += grid * grid * d;
    }
    let rel_pos = v.flag("use_rel_pos", true)?;
    for layer in 0..layers {
        let side = if global.contains(&(layer as u64)) {
            grid
        } else {
            window
        };
        total += 4 * d + 3 * d * d + qkv_bias * 3 * d + d * d + d + d * m + m + m * d + d;
        if rel_pos {
            total += 2 * (2 * side).saturating_sub(1) * head_dim;
        }
    }
    Ok(total + d * out + 2 * out + 9 * out * out + 2 * out)
}

/// Janus's image-generation side (`JanusVQVAEConfig`'s defaults): the
/// VQ-VAE (encoder, decoder, codebook, quantization convolutions), the
/// generation embeddings, aligner and head.
fn janus_generation(cfg: &Cfg, empty: &Map<String, serde_json::Value>) -> Result<u128> {
    let mut q = cfg.object_or_empty("vq_config", empty)?;
    q.defaults = Defaults::Class("janus_vqgan");
    let get = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(q.int(&[key], 0, MAX_DIM)?.unwrap_or(default)))
    };
    let base = get("base_channels", 128)?;
    let mult: Vec<u128> = q
        .ints("channel_multiplier", 1, 64)?
        .unwrap_or_else(|| vec![1, 1, 2, 2, 4])
        .into_iter()
        .map(u128::from)
        .collect();
    let blocks = get("num_res_blocks", 2)?;
    let latent = get("latent_channels", 256)?;
    let embed = get("embed_dim", 8)?;
    let codes = get("num_embeddings", 16384)?;
    let (cin, cout) = (get("in_channels", 3)?, get("out_channels", 3)?);
    let double = q.flag("double_latent", false)?;
    let res = |a: u128, b: u128| {
        2 * a + 9 * a * b + b + 2 * b + 9 * b * b + b + if a == b { 0 } else { a * b + b }
    };
    let attn = |c: u128| 2 * c + 4 * (c * c + c);
    let levels = mult.len();
    let Some(&top_mult) = mult.last() else {
        return Err(crate::error::InputError::new(
            q.field("channel_multiplier"),
            "lists no level",
        ));
    };
    let top = base * top_mult;
    let mut enc = 9 * cin * base + base;
    for i in 0..levels {
        let mut c = base * if i == 0 { 1 } else { mult[i - 1] };
        let to = base * mult[i];
        for _ in 0..blocks {
            enc += res(c, to);
            c = to;
            if i == levels - 1 {
                enc += attn(c);
            }
        }
        if i != levels - 1 {
            enc += 9 * c * c + c;
        }
    }
    let lat_out = latent * if double { 2 } else { 1 };
    enc += 2 * res(top, top) + attn(top) + 2 * top + 9 * top * lat_out + lat_out;
    let mut dec = 9 * latent * top + top + 2 * res(top, top) + attn(top);
    let mut c = top;
    for i in (0..levels).rev() {
        let to = base * mult[i];
        for _ in 0..=blocks {
            dec += res(c, to);
            c = to;
            if i == levels - 1 {
                dec += attn(c);
            }
        }
        if i != 0 {
            dec += 9 * c * c + c;
        }
    }
    dec += 2 * c + 9 * c * cout + cout;
    let quant = codes * embed + (latent * embed + embed) + (embed * latent + latent);
    let pg = get("projection_dim", 2048)?;
    let gen_layers = get("num_hidden_layers", 2)?.max(1);
    let token_width = get("image_token_embed_dim", 2048)?;
    let generation = codes * embed
        + (embed * pg + pg + (gen_layers - 1) * (pg * pg + pg))
        + (token_width * pg + pg + pg * codes + codes);
    Ok(enc + dec + quant + generation)
}
