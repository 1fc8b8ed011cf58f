//! PerceptionLM (`perception_lm`, `PerceptionLMForConditionalGeneration`,
//! transformers 5.24): a Llama language model, a timm Perception Encoder
//! tower (`TimmWrapperModel` over timm's `Eva`, no classifier head) and a
//! two-layer projector whose output is pooled by `projector_pooling_ratio`.
//! The tower's parameters follow timm's `Eva.__init__` for the PE
//! architectures' own arguments with `model_args` over them; checked on the
//! meta device against a timm source snapshot (`tests/data/params/
//! measure_perception_lm.py`). The class defaults (a resnet50 wrapper
//! without `model_args`) do not build, and are refused by field.

use serde_json::{Map, Value};

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, siglip_shape};
use crate::error::{InputError, Result};
use crate::image_tokens::PlmTiles;
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// A Perception Encoder tower as timm builds it.
pub(super) struct PeTower {
    pub dim: u64,
    pub depth: u64,
    pub heads: u64,
    pub mlp: u64,
    /// `img_size` (height, width) and the patch.
    pub image: (u64, u64),
    pub patch: u64,
    pub class_token: bool,
    pub params: u128,
}

/// timm's PE architectures (`timm/models/eva.py`): patch, width, depth,
/// heads, MLP width over the embedding (as a fraction), class token,
/// `global_pool`, post-transformer norm, fc norm, LayerScale.
struct PeArch {
    name: &'static str,
    patch: u64,
    depth: u64,
    heads: u64,
    mlp_ratio: f64,
    class_token: bool,
    /// `'map'` (an attention-pool head) or Eva's default `'avg'`.
    map_pool: bool,
    post_norm: Option<bool>,
    fc_norm: Option<bool>,
    init_values: Option<f64>,
}

const GIGANTIC_MLP: f64 = 8960.0 / 1536.0;

const ARCHS: [PeArch; 5] = [
    PeArch {
        name: "vit_pe_core_base_patch16_224",
        patch: 16,
        depth: 12,
        heads: 12,
        mlp_ratio: 4.0,
        class_token: true,
        map_pool: true,
        post_norm: None,
        fc_norm: None,
        init_values: None,
    },
    PeArch {
        name: "vit_pe_core_large_patch14_336",
        patch: 14,
        depth: 24,
        heads: 16,
        mlp_ratio: 4.0,
        class_token: true,
        map_pool: true,
        post_norm: None,
        fc_norm: None,
        init_values: None,
    },
    PeArch {
        name: "vit_pe_core_gigantic_patch14_448",
        patch: 14,
        depth: 50,
        heads: 16,
        mlp_ratio: GIGANTIC_MLP,
        class_token: false,
        map_pool: true,
        post_norm: None,
        fc_norm: None,
        init_values: None,
    },
    PeArch {
        name: "vit_pe_lang_large_patch14_448",
        patch: 14,
        depth: 23,
        heads: 16,
        mlp_ratio: 4.0,
        class_token: true,
        map_pool: false,
        post_norm: Some(false),
        fc_norm: Some(false),
        init_values: Some(0.1),
    },
    PeArch {
        name: "vit_pe_lang_gigantic_patch14_448",
        patch: 14,
        depth: 47,
        heads: 16,
        mlp_ratio: GIGANTIC_MLP,
        class_token: false,
        map_pool: false,
        post_norm: Some(false),
        fc_norm: Some(false),
        init_values: Some(0.1),
    },
];

/// A tri-state flag: absent or null is `None`.
fn opt_flag(cfg: &Cfg, key: &str) -> Result<Option<bool>> {
    match cfg.obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(InputError::new(
            cfg.field(key),
            format!("expected true, false or null, got {other}"),
        )),
    }
}

/// `vision_config`, which the class defaults lack a usable one of.
fn vision_config<'a>(cfg: &Cfg<'a>) -> Result<Cfg<'a>> {
    cfg.object("vision_config")?.ok_or_else(|| {
        InputError::new(
            cfg.field("vision_config"),
            "is required: the class defaults' resnet50 wrapper has no model_args and does not build",
        )
    })
}

/// The tower of `vision_config` (a `timm_wrapper` over a PE architecture).
pub(super) fn pe_tower(v: &Cfg) -> Result<PeTower> {
    let kind = v.string("model_type")?.unwrap_or("timm_wrapper");
    if kind != "timm_wrapper" {
        return Err(InputError::new(
            v.field("model_type"),
            format!("\"{kind}\": PerceptionLM's tower is a timm_wrapper"),
        ));
    }
    let name = v.string("architecture")?.unwrap_or("resnet50");
    let arch = ARCHS.iter().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = ARCHS.iter().map(|a| a.name).collect();
        InputError::new(
            v.field("architecture"),
            format!(
                "\"{name}\" is not a Perception Encoder tower here: supported {}",
                names.join(", ")
            ),
        )
    })?;
    let Some(args) = v.object("model_args")? else {
        // `PerceptionLMMultiModalProjector` reads `model_args["embed_dim"]`
        return Err(InputError::new(
            v.field("model_args"),
            "is required: PerceptionLM's projector reads its embed_dim",
        ));
    };
    let dim = args.req(&["embed_dim"], 1, MAX_DIM)?;
    let depth = args.int(&["depth"], 1, MAX_LAYERS)?.unwrap_or(arch.depth);
    let heads = args
        .int(&["num_heads"], 1, MAX_HEADS)?
        .unwrap_or(arch.heads);
    let ratio = args
        .float("mlp_ratio", 0.01, 64.0)?
        .unwrap_or(arch.mlp_ratio);
    // `int(embed_dim * mlp_ratio)`
    let mlp = (dim as f64 * ratio) as u64;
    let patch = args
        .int(&["patch_size"], 1, MAX_IMAGE_SIZE)?
        .unwrap_or(arch.patch);
    // Eva's own default is 224 px (the name's size is a pretrained setting)
    let image = match args.ints("img_size", 1, MAX_IMAGE_SIZE)? {
        Some(hw) if hw.len() == 2 => (hw[0], hw[1]),
        Some(_) => {
            return Err(InputError::new(
                args.field("img_size"),
                "expected a size or [height, width]",
            ))
        }
        None => {
            let side = args.int(&["img_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(224);
            (side, side)
        }
    };
    if image.0 < patch || image.1 < patch {
        return Err(InputError::new(
            args.field("img_size"),
            format!(
                "{}×{} is smaller than one {patch} px patch",
                image.0, image.1
            ),
        ));
    }
    let class_token = opt_flag(&args, "class_token")?.unwrap_or(arch.class_token);
    let map_pool = match args.string("global_pool")? {
        Some(pool) => pool == "map",
        None => arch.map_pool,
    };
    let avg_pool = args
        .string("global_pool")?
        .map_or(!arch.map_pool, |p| p == "avg");
    let fc_norm = opt_flag(&args, "use_fc_norm")?
        .or(arch.fc_norm)
        .unwrap_or(avg_pool);
    let post_norm = opt_flag(&args, "use_post_transformer_norm")?
        .or(arch.post_norm)
        .unwrap_or(!fc_norm);
    let layer_scale = match args.obj.get("init_values") {
        Some(Value::Null) => false,
        Some(_) => args.float("init_values", 0.0, 1e6)?.is_some(),
        None => arch.init_values.is_some(),
    };
    let (d, m) = (u128::from(dim), u128::from(mlp));
    let cls = u128::from(class_token);
    let patches = u128::from(image.0 / patch) * u128::from(image.1 / patch);
    // fused qkv with biases, proj, two LayerNorms, fc1 and fc2 biased, and
    // LayerScale's two gammas
    let block = 4 * d * d + 2 * d * m + m + 9 * d + if layer_scale { 2 * d } else { 0 };
    // the patch embedding has no bias (`use_pre_transformer_norm`), then the
    // class token, the absolute positions, `norm_pre`
    let mut params = 3 * u128::from(patch).pow(2) * d + cls * d + (patches + cls) * d + 2 * d;
    params += u128::from(depth) * block;
    params += if post_norm { 2 * d } else { 0 } + if fc_norm { 2 * d } else { 0 };
    if map_pool {
        // AttentionPoolLatent: latent, q, kv, proj, norm, its 4× MLP
        params += d + (d * d + d) + (2 * d * d + 2 * d) + (d * d + d) + 2 * d + (8 * d * d + 5 * d);
    }
    Ok(PeTower {
        dim,
        depth,
        heads,
        mlp,
        image,
        patch,
        class_token,
        params,
    })
}

/// The wrapper: the Llama text model (LlamaConfig's defaults where
/// `text_config` is silent), tied by the wrapper's flag (which takes the
/// text config's when unset), the PE tower, and the projector: `linear_1`
/// (tower width → text width) and `linear_2`, biased.
pub(super) fn import_perception_lm(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    if matches!(text.string("model_type")?, None | Some("llama")) {
        text.defaults = Defaults::Llama;
    }
    let mut spec = import_text(&text)?;
    let text_tied = text.flag("tie_word_embeddings", false)?;
    spec.tied_embeddings = opt_flag(cfg, "tie_word_embeddings")?.unwrap_or(text_tied);
    let v = vision_config(cfg)?;
    let tower = pe_tower(&v)?;
    let (d, t) = (u128::from(tower.dim), u128::from(spec.hidden));
    let projector = d * t + t + t * t + t;
    spec.name = "perception_lm".to_string();
    spec.vision = Some(counted(
        siglip_shape(
            tower.dim,
            tower.depth,
            tower.heads,
            tower.mlp,
            tower.image.0,
            tower.patch,
        ),
        tower.params,
        projector,
    )?);
    Ok(spec)
}

/// The image rule: the processor's tiles (`tile_size` 448, at most
/// `max_num_tiles` 36, `thumb+tile`; its preprocessor_config.json's when
/// given), the tower's patch and class token, and the projector's pooling.
pub(super) fn image_rule(cfg: &Cfg, pre: &Cfg) -> Result<PlmTiles> {
    let v = vision_config(cfg)?;
    let tower = pe_tower(&v)?;
    let pool = cfg.int(&["projector_pooling_ratio"], 1, 64)?.unwrap_or(1);
    let rule = PlmTiles {
        tile: pre.int(&["tile_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(448),
        patch: tower.patch,
        pool,
        max_tiles: pre.int(&["max_num_tiles"], 1, 256)?.unwrap_or(36),
        thumb_and_tiles: pre
            .string("vision_input_type")?
            .is_none_or(|t| t == "thumb+tile"),
        class_token: tower.class_token,
    };
    Ok(rule)
}
