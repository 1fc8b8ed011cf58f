//! FastViT's parameters (timm 1.0's `FastVit`, which FastVLM's
//! `TimmWrapperModel` builds for its tower): the named architectures'
//! layouts (`fastvit_t8` … `fastvit_mci4`, timm's `@register_model`
//! entries) under the class's defaults, overridden by the config's
//! `model_args`, and the count of each block as timm constructs it:
//! MobileOne convolutions (one reparameterised convolution in
//! `inference_mode`, else their BatchNorm branches), RepMixer and attention
//! token mixers, convolutional MLPs, 7 × 7 conditional position encodings,
//! squeeze-excite on the chosen downsamples and the final convolution.
//! Checked against the meta-device count of transformers 5.24 with timm
//! 1.0.31 (`tests/data/params/hf_variants_2026.csv`).

use serde_json::Value;

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::MAX_DIM;

/// One architecture's layout: per stage its blocks, width, MLP ratio,
/// downsample, squeeze-excite on the downsample, position encoding and
/// attention (else RepMixer).
struct Layout {
    layers: Vec<u64>,
    dims: Vec<u64>,
    mlp_ratios: Vec<f64>,
    downsamples: Vec<bool>,
    se_downsamples: Vec<bool>,
    pos_embs: Vec<bool>,
    attention: Vec<bool>,
    stem_scale_branch: bool,
    /// `inference_mode`: each MobileOne block one reparameterised convolution.
    inference: bool,
    /// `repmixer_kernel_size`, `down_patch_size`, `in_chans`.
    mixer_kernel: u128,
    down_kernel: u128,
    channels: u128,
    cls_ratio: f64,
}

/// A named architecture of timm's registry.
struct Arch {
    name: &'static str,
    layers: &'static [u64],
    dims: &'static [u64],
    mlp_ratio: f64,
    /// The first stage whose downsample has squeeze-excite (past the last: none).
    se_from: usize,
    /// The last stages, with attention and a position encoding.
    attention: usize,
    stem_scale_branch: bool,
}

/// timm's registry (`timm/models/fastvit.py`, `@register_model`).
const ARCHS: [Arch; 12] = [
    Arch {
        name: "fastvit_t8",
        layers: &[2, 2, 4, 2],
        dims: &[48, 96, 192, 384],
        mlp_ratio: 3.0,
        se_from: 9,
        attention: 0,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_t12",
        layers: &[2, 2, 6, 2],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 3.0,
        se_from: 9,
        attention: 0,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_s12",
        layers: &[2, 2, 6, 2],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 0,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_sa12",
        layers: &[2, 2, 6, 2],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_sa24",
        layers: &[4, 4, 12, 4],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_sa36",
        layers: &[6, 6, 18, 6],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_ma36",
        layers: &[6, 6, 18, 6],
        dims: &[76, 152, 304, 608],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_mci0",
        layers: &[2, 6, 10, 2],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 3.0,
        se_from: 2,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_mci1",
        layers: &[4, 12, 20, 4],
        dims: &[64, 128, 256, 512],
        mlp_ratio: 3.0,
        se_from: 2,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_mci2",
        layers: &[4, 12, 24, 4],
        dims: &[80, 160, 320, 640],
        mlp_ratio: 3.0,
        se_from: 2,
        attention: 1,
        stem_scale_branch: true,
    },
    Arch {
        name: "fastvit_mci3",
        layers: &[2, 12, 24, 4, 2],
        dims: &[96, 192, 384, 768, 1536],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 2,
        stem_scale_branch: false,
    },
    Arch {
        name: "fastvit_mci4",
        layers: &[2, 12, 24, 4, 4],
        dims: &[128, 256, 512, 1024, 2048],
        mlp_ratio: 4.0,
        se_from: 9,
        attention: 2,
        stem_scale_branch: false,
    },
];

/// The architecture's layout with the config's `model_args` over it.
fn read_layout(v: &Cfg) -> Result<Layout> {
    let arch = v.string("architecture")?.unwrap_or("resnet50");
    let Some(a) = ARCHS.iter().find(|a| a.name == arch) else {
        return Err(InputError::new(
            v.field("architecture"),
            format!(
                "\"{arch}\" is not supported: FastVLM's towers are timm's FastViT ({})",
                ARCHS.map(|a| a.name).join(", ")
            ),
        ));
    };
    let n = a.layers.len();
    let mut l = Layout {
        layers: a.layers.to_vec(),
        dims: a.dims.to_vec(),
        mlp_ratios: vec![a.mlp_ratio; n],
        downsamples: (0..n).map(|i| i > 0).collect(),
        se_downsamples: (0..n).map(|i| i >= a.se_from).collect(),
        pos_embs: (0..n).map(|i| i + a.attention >= n).collect(),
        attention: (0..n).map(|i| i + a.attention >= n).collect(),
        stem_scale_branch: a.stem_scale_branch,
        inference: false,
        mixer_kernel: 3,
        down_kernel: 7,
        channels: 3,
        cls_ratio: 2.0,
    };
    let args = v.obj.get("model_args").and_then(Value::as_object);
    let arg = |key: &str| args.and_then(|a| a.get(key)).filter(|x| !x.is_null());
    let field = || v.field("model_args");
    let numbers = |key: &str| -> Result<Option<Vec<f64>>> {
        match arg(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|x| {
                    x.as_f64()
                        .filter(|f| f.is_finite() && *f >= 0.0 && *f <= MAX_DIM as f64)
                })
                .collect::<Option<Vec<f64>>>()
                .map(Some)
                .ok_or_else(|| InputError::new(field(), format!("{key} expects a list of sizes"))),
            Some(_) => Err(InputError::new(field(), format!("{key} expects a list"))),
        }
    };
    let flags = |key: &str, truthy: &dyn Fn(&Value) -> bool| -> Option<Vec<bool>> {
        arg(key)?.as_array().map(|a| a.iter().map(truthy).collect())
    };
    if let Some(x) = numbers("layers")? {
        l.layers = x.iter().map(|f| *f as u64).collect();
    }
    if let Some(x) = numbers("embed_dims")? {
        l.dims = x.iter().map(|f| *f as u64).collect();
    }
    if let Some(x) = numbers("mlp_ratios")? {
        l.mlp_ratios = x;
    }
    let truth = |x: &Value| x.as_bool().unwrap_or(!x.is_null());
    if let Some(x) = flags("downsamples", &truth) {
        l.downsamples = x;
    }
    if let Some(x) = flags("se_downsamples", &truth) {
        l.se_downsamples = x;
    }
    // a position encoding is a timm partial; JSON can only say none
    if let Some(x) = flags("pos_embs", &|x| !x.is_null()) {
        l.pos_embs = x;
    }
    if let Some(x) = flags("token_mixers", &|x| x.as_str() == Some("attention")) {
        l.attention = x;
    }
    if let Some(x) = arg("stem_use_scale_branch").and_then(Value::as_bool) {
        l.stem_scale_branch = x;
    }
    let stages = l.layers.len();
    let lists = [
        l.dims.len(),
        l.mlp_ratios.len(),
        l.downsamples.len(),
        l.se_downsamples.len(),
        l.pos_embs.len(),
        l.attention.len(),
    ];
    if stages == 0 || lists.iter().any(|&k| k != stages) {
        return Err(InputError::new(
            field(),
            format!("lists {lists:?} entries for {stages} stages: one each per stage"),
        ));
    }
    let int = |key: &str, default: u64| {
        u128::from(
            arg(key)
                .and_then(Value::as_u64)
                .unwrap_or(default)
                .min(MAX_DIM),
        )
    };
    l.inference = arg("inference_mode")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    l.mixer_kernel = int("repmixer_kernel_size", 3);
    l.down_kernel = int("down_patch_size", 7);
    l.channels = int("in_chans", 3);
    l.cls_ratio = arg("cls_ratio")
        .and_then(Value::as_f64)
        .filter(|r| r.is_finite() && *r > 0.0 && *r <= 64.0)
        .unwrap_or(2.0);
    Ok(l)
}

/// The tower's parameters and its layers' sizes (blocks, the widest
/// stage's width and MLP width).
pub(super) fn fastvit(v: &Cfg) -> Result<(u128, (u64, u64, u64))> {
    let l = read_layout(v)?;
    let stages = l.layers.len();
    let (inference, k, big, channels) = (l.inference, l.mixer_kernel, l.down_kernel, l.channels);
    // `layer_scale_init_value` None is dropped by timm.create_model: always
    let layer_scale = true;
    let one = |cin: u128,
               cout: u128,
               kk: u128,
               stride1: bool,
               depthwise: bool,
               se: u128,
               branch: bool| {
        let per_group = if depthwise { 1 } else { cin };
        if inference {
            return se + cout * per_group * kk * kk + cout;
        }
        let mut n = se + cout * per_group * kk * kk + 2 * cout;
        if cout == cin && stride1 {
            n += 2 * cin;
        }
        if kk > 1 && branch {
            n += cout * per_group + 2 * cout;
        }
        n
    };
    let w = |x: u64| u128::from(x);
    let c0 = w(l.dims[0]);
    let usb = l.stem_scale_branch;
    let mut n = one(channels, c0, 3, false, false, 0, usb)
        + one(c0, c0, 3, false, true, 0, usb)
        + one(c0, c0, 1, true, false, 0, usb);
    let mut prev = c0;
    let ls = u128::from(layer_scale);
    for i in 0..stages {
        let d = w(l.dims[i]);
        if l.downsamples[i] || prev != d {
            n += if inference {
                d * big * big + d
            } else {
                (d * big * big + 2 * d) + (d * 9 + 2 * d)
            };
            if l.se_downsamples[i] {
                n += squeeze_excite(d, 0.25, 8);
            }
            n += one(d, d, 1, true, false, 0, true);
        }
        if l.pos_embs[i] {
            n += d * 49 + d;
        }
        let h = (d as f64 * l.mlp_ratios[i]) as u128;
        let mlp = (d * 49 + 2 * d) + (d * h + h) + (h * d + d);
        let block = if l.attention[i] {
            2 * d + 4 * d * d + d + mlp + 2 * d * ls
        } else if inference {
            d * k * k + d + mlp + d * ls
        } else {
            let scale = if k > 1 { 3 * d } else { 0 };
            2 * d + (4 * d + d * k * k + scale) + d * ls + mlp + d * ls
        };
        n += w(l.layers[i]) * block;
        prev = d;
    }
    let last = prev;
    let out = (last as f64 * l.cls_ratio) as u128;
    n += one(
        last,
        out,
        3,
        true,
        true,
        squeeze_excite(out, 1.0 / 16.0, 1),
        true,
    );
    let blocks = l.layers.iter().sum();
    let widest = l.dims.iter().copied().max().unwrap_or(0);
    let ratio = l.mlp_ratios.iter().copied().fold(0.0, f64::max);
    Ok((n, (blocks, widest, (widest as f64 * ratio) as u64)))
}

/// timm's `SEModule(c, rd_ratio, rd_divisor)`: two biased 1 × 1
/// convolutions through `make_divisible(c·ratio, divisor)` channels.
fn squeeze_excite(c: u128, ratio: f64, divisor: u128) -> u128 {
    let rd = (((c as f64 * ratio + divisor as f64 / 2.0) as u128) / divisor * divisor).max(divisor);
    2 * c * rd + rd + c
}
