//! Granite-Docling (`granite_docling`, `GraniteDoclingForConditionalGeneration`,
//! transformers 5.24): Idefics3's SigLIP-shaped tower (no pooling head)
//! over fixed square tiles, a connector inside the vision model and a
//! Granite language model (Llama's tensors under four parameter-free
//! multipliers). The connector norms the tower's output and pixel-shuffles
//! it along a coarse route (`scale_factor`) and, with `use_fine_route`, a
//! fine one (half the factor, four times the tokens); each route projects
//! to `out_hidden_size` and carries a DeepStack merger per entry of
//! `deepstack_visual_indexes`, whose outputs join the first decoder layers.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, siglip_params, siglip_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper: its Granite text model (`GraniteDoclingTextConfig`'s
/// defaults), tied by its own `tie_word_embeddings` alone (default True),
/// the tower and the connector (with the density router when
/// `density_router_hidden_size` is set) as the projector.
pub(super) fn import_granite_docling(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    text.defaults = Defaults::Class("granite_docling_text");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    // GraniteDoclingVisionConfig's defaults
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(768);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(12);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(512);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(16);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let out = v.int(&["out_hidden_size"], 1, MAX_DIM)?.unwrap_or(1024);
    if out != spec.hidden {
        // the config class's own check
        return Err(InputError::new(
            v.field("out_hidden_size"),
            format!(
                "is {out}: it must equal the text model's hidden_size, {}",
                spec.hidden
            ),
        ));
    }
    let scale = v.int(&["scale_factor"], 1, 64)?.unwrap_or(4);
    let taps = match v.array("deepstack_visual_indexes")? {
        Some(list) => list.len() as u128,
        None => 3,
    };
    let fine = v.flag("use_fine_route", true)?;
    let router = cfg.int(&["density_router_hidden_size"], 1, MAX_DIM)?;
    if router.is_some() && !fine {
        return Err(InputError::new(
            cfg.field("density_router_hidden_size"),
            "needs vision_config.use_fine_route: the router chooses between the two routes",
        ));
    }
    let (dw, ow) = (u128::from(d), u128::from(out));
    // a route of pixel-shuffle factor k: `proj` (d·k² → out, no bias) and a
    // DeepStack merger per tap (LayerNorm(d·k²), Linear(d·k², out), GELU,
    // Linear(out, out), both biased)
    let route = |k: u64| {
        let w = dw * u128::from(k).pow(2);
        w * ow + taps * (2 * w + w * ow + ow + ow * ow + ow)
    };
    // ln_in (LayerNorm(d)), mlp_fc2 (out × out, no bias), ln_mid, ln_out
    // (LayerNorm(out)) are shared by the routes
    let mut connector = route(scale) + 2 * dw + ow * ow + 4 * ow;
    if fine {
        connector += route((scale / 2).max(1));
    }
    if let Some(r) = router.map(u128::from) {
        // the density router: attention vector and LayerNorm over d, fc1
        // (d → r) and fc2 (r → 1), biased
        connector += 3 * dw + dw * r + 2 * r + 2;
    }
    let tower = siglip_params(d, layers, m, image, patch, channels, false);
    spec.name = "granite_docling".to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, image, patch),
        tower,
        connector,
    )?);
    Ok(spec)
}
