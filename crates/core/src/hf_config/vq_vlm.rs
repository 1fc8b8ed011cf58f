//! Early-fusion models whose images are a VQ-VAE's codes in the text
//! vocabulary (transformers 5.24): Chameleon (`chameleon`, a flat config:
//! Llama's layers with per-head LayerNorms (weight and bias) on q and k,
//! the VQ-VAE's encoder only; every image a 512 px square of 1,024 codes
//! between two markers) and Emu3 (`emu3`: Llama under a head tied by the
//! wrapper's flag, the VQ-VAE's encoder and decoder with their temporal
//! convolutions; an image resized as Qwen-VL does at 8 px cells within
//! 512² to 1024² px, its codes in rows with an end-of-line token each).
//! The parameters are exact (`tests/data/params/hf_variants_2026.csv`).

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM};

fn conv(ci: u128, co: u128, k: u128) -> u128 {
    ci * co * k * k + co
}

/// The VQ-VAE's numbers from `vq_config`.
struct Vq {
    base: u128,
    multipliers: Vec<u128>,
    blocks: u128,
    latent: u128,
    embed: u128,
    codes: u128,
    double_latent: bool,
    in_channels: u128,
}

fn read_vq(v: &Cfg, emu3: bool) -> Result<Vq> {
    let int = |keys: &[&'static str], default: u64| -> Result<u128> {
        Ok(u128::from(v.int(keys, 1, MAX_DIM)?.unwrap_or(default)))
    };
    let multipliers = match v.obj.get("channel_multiplier") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|x| x.as_u64().filter(|n| (1..=64).contains(n)).map(u128::from))
            .collect::<Option<Vec<u128>>>()
            .filter(|m| !m.is_empty())
            .ok_or_else(|| {
                InputError::new(
                    v.field("channel_multiplier"),
                    "expects a list of small multipliers",
                )
            })?,
        _ if emu3 => vec![1, 2, 2, 4],
        _ => vec![1, 1, 2, 2, 4],
    };
    Ok(Vq {
        base: int(&["base_channels"], if emu3 { 256 } else { 128 })?,
        multipliers,
        blocks: int(&["num_res_blocks"], 2)?,
        latent: int(&["latent_channels"], if emu3 { 4 } else { 256 })?,
        embed: int(&["embed_dim"], if emu3 { 4 } else { 256 })?,
        codes: int(
            &["codebook_size", "num_embeddings"],
            if emu3 { 32_768 } else { 8192 },
        )?,
        double_latent: v.flag("double_latent", false)?,
        in_channels: int(&["in_channels"], 3)?,
    })
}

/// Chameleon's VQ encoder with its codebook and quant convolutions.
fn chameleon_vq(v: &Cfg, q: &Vq) -> Result<u128> {
    let res = |ci: u128, co: u128| {
        2 * ci
            + conv(ci, co, 3)
            + 2 * co
            + conv(co, co, 3)
            + if ci != co { conv(ci, co, 1) } else { 0 }
    };
    let att = |c: u128| 2 * c + 4 * conv(c, c, 1);
    let vanilla = v.string("attn_type")?.unwrap_or("vanilla") == "vanilla";
    let attn_at: Vec<u64> = match v.obj.get("attn_resolutions") {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_u64).collect(),
        _ => Vec::new(),
    };
    let mut resolution = v.int(&["resolution"], 1, 1 << 20)?.unwrap_or(512);
    let mut p = conv(q.in_channels, q.base, 3);
    let levels = q.multipliers.len();
    for i in 0..levels {
        let ci = q.base * if i == 0 { 1 } else { q.multipliers[i - 1] };
        let co = q.base * q.multipliers[i];
        p += res(ci, co) + (q.blocks - 1) * res(co, co);
        if vanilla && attn_at.contains(&resolution) {
            p += q.blocks * att(co);
        }
        if i + 1 != levels {
            p += conv(co, co, 3);
            resolution /= 2;
        }
    }
    let c = q.base * q.multipliers[levels - 1];
    let out = if q.double_latent {
        2 * q.latent
    } else {
        q.latent
    };
    p += 2 * res(c, c) + if vanilla { att(c) } else { 0 } + 2 * c + conv(c, out, 3);
    Ok(p + q.codes * q.embed + conv(q.latent, q.embed, 1) + conv(q.embed, q.latent, 1))
}

/// Emu3's VQ encoder, decoder, codebook and quant convolutions.
fn emu3_vq(v: &Cfg, q: &Vq) -> Result<u128> {
    let hs = u128::from(v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1024));
    let out_channels = u128::from(v.int(&["out_channels"], 1, 64)?.unwrap_or(3));
    let temporal = v
        .int(&["temporal_downsample_factor"], 1, 1 << 10)?
        .unwrap_or(4);
    let nt = u128::from(temporal.max(1).ilog2());
    let attn_at: Vec<u64> = match v.obj.get("attn_resolutions") {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_u64).collect(),
        _ => vec![3],
    };
    let e = q.embed;
    let sn = |c: u128| 2 * c + 2 * conv(e, c, 1);
    let res = |ci: u128, co: u128, spatial: bool| {
        (if spatial {
            sn(ci) + sn(co)
        } else {
            2 * ci + 2 * co
        }) + conv(ci, co, 3)
            + conv(co, co, 3)
            + if ci != co { conv(ci, co, 1) } else { 0 }
    };
    let attention = 4 * (hs * hs + hs);
    let c3 = |ci: u128, co: u128, k: u128| ci * co * k + co;
    let temporal_res = |c: u128| 4 * c + 2 * c3(c, c, 27);
    let (b, n, lat) = (q.base, q.blocks, q.latent);
    let levels = q.multipliers.len();
    let c = b * q.multipliers[levels - 1];
    let out = if q.double_latent { 2 * lat } else { lat };
    let mut enc = conv(q.in_channels, b, 3);
    for i in 0..levels {
        let ci = b * if i == 0 { 1 } else { q.multipliers[i - 1] };
        let co = b * q.multipliers[i];
        enc += res(ci, co, false) + (n - 1) * res(co, co, false);
        if attn_at.contains(&(i as u64)) {
            enc += n * (attention + 2 * co);
        }
        if i + 1 != levels {
            enc += conv(co, co, 3);
        }
    }
    enc += 2 * res(c, c, false) + attention + 4 * c + conv(c, out, 3);
    enc += nt * c3(out, out, 36) + n * temporal_res(out);
    let mut dec = n * temporal_res(lat) + nt * c3(lat, lat, 27) + conv(lat, c, 3);
    dec += 2 * res(c, c, true) + attention + sn(c);
    let mut previous = c;
    for i in (0..levels).rev() {
        let co = b * q.multipliers[i];
        dec += res(previous, co, true) + n * res(co, co, true);
        previous = co;
        if attn_at.contains(&(i as u64)) {
            dec += (n + 1) * (attention + sn(co));
        }
        if i != 0 {
            dec += conv(co, co, 3);
        }
    }
    let first = b * q.multipliers[0];
    dec += sn(first) + conv(first, out_channels, 3);
    Ok(enc + dec + q.codes * e + c3(lat, e, 3) + c3(e, lat, 3))
}

/// Chameleon: its flat config is the language model's.
pub(super) fn import_chameleon(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut flat: Map<String, Value> = cfg.obj.clone();
    flat.insert("model_type".into(), "llama".into());
    flat.remove("head_dim");
    let mut text = Cfg::new(&flat, "");
    text.defaults = super::reader::Defaults::Class("llama");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    // the per-head LayerNorms on q and k: weight and bias over each head
    let hd = u128::from(spec.hidden / spec.heads.max(1));
    let qk = 2 * (u128::from(spec.heads) + u128::from(spec.kv_heads)) * hd;
    let empty = Map::new();
    let v = cfg.object_or_empty("vq_config", &empty)?;
    let q = read_vq(&v, false)?;
    let vq = chameleon_vq(&v, &q)?;
    let layers = u128::from(spec.layers);
    finish(cfg, spec, (layers * qk, vq, &q), "chameleon")
}

/// Emu3: Llama from `text_config`, the head tied by the wrapper's flag.
pub(super) fn import_emu3(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    // `Emu3TextConfig` (`emu3_text_model`): Llama's layers, its own
    // defaults where the config is silent
    let mut map = cfg.object_over_defaults(
        "text_config",
        r#"{"vocab_size":184622,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
        "num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":9216}"#,
        true,
    )?;
    map.insert("model_type".into(), "llama".into());
    let mut text = Cfg::new(&map, "text_config.");
    text.defaults = super::reader::Defaults::Class("llama");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let v = cfg.object_or_empty("vq_config", &empty)?;
    let q = read_vq(&v, true)?;
    let vq = emu3_vq(&v, &q)?;
    finish(cfg, spec, (0, vq, &q), "emu3")
}

/// The spec with the text model's extra parameters and the VQ-VAE as its
/// tower: a convolutional network whose saved tensors were not measured (a
/// GPT-2-style block of its widest channels stands in), over the codes it
/// hands on (a 16 px square each at 512 px for Chameleon, 8 px for Emu3).
fn finish(
    cfg: &Cfg,
    mut spec: ModelSpec,
    (extra, vq, q): (u128, u128, &Vq),
    name: &str,
) -> Result<ModelSpec> {
    let widest = q.base * q.multipliers.iter().copied().max().unwrap_or(1);
    let blocks = (q.blocks * q.multipliers.len() as u128) as u64;
    let (image, cell) = if name == "chameleon" {
        (512, 16)
    } else {
        (1024, 8)
    };
    let shape =
        super::vlm::tower_shape(widest as u64, blocks.max(1), 1, widest as u64, image, cell);
    spec.vision = Some(super::vlm::counted(shape, vq, 0)?);
    super::vlm::add_extra_params(cfg, &mut spec, extra, "vq_config")?;
    spec.name = name.to_string();
    Ok(spec)
}

/// Chameleon: a 512 px square, 1,024 codes and two markers; Emu3: Qwen-VL's
/// resize at 8 px cells within 512² to 1024² px, a code a cell and an
/// end-of-line token a row.
pub(super) fn image_rule(model_type: &str) -> crate::image_tokens::ImageRule {
    if model_type == "chameleon" {
        crate::image_tokens::ImageRule::Fixed {
            tower: 1024,
            language_model: 1026,
        }
    } else {
        crate::image_tokens::ImageRule::QwenVlRows {
            patch: 8,
            merge: 1,
            min_pixels: 512 * 512,
            max_pixels: 1024 * 1024,
        }
    }
}
