//! RecurrentGemma (`RecurrentGemmaConfig`, Google's Griffin): residual
//! blocks cycling through `block_types` (default recurrent, recurrent,
//! attention), each a temporal block (the RG-LRU recurrent block or local
//! multi-query attention over `attention_window_size` tokens) and a
//! GeGLU MLP half `intermediate_size` wide, both with biases; Gemma's
//! RMSNorms and tied embedding. Counted as `modeling_recurrent_gemma.py`
//! builds it (`tests/data/params/hf_variants_2026.csv`); its cache and
//! states in `tests/data/cache/hybrid_cache.jsonl`, its saved activations
//! in `tests/data/recurrent_acts/`.

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, Recurrent, RecurrentKind, SlidingWindow, MAX_DIM, MAX_POSITION};

/// `RecurrentGemmaConfig`'s default `block_types`.
const DEFAULT_BLOCKS: [&str; 3] = ["recurrent", "recurrent", "attention"];

/// Fills RecurrentGemma's layers into `spec` (holding the common decoder
/// fields read as Gemma's).
pub(super) fn recurrent_gemma(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let listed = cfg.strings("block_types")?;
    let blocks = listed.as_deref().unwrap_or(&DEFAULT_BLOCKS);
    if blocks.is_empty() {
        return Err(InputError::new(
            cfg.field("block_types"),
            "is empty: list \"recurrent\" and \"attention\" blocks (the config cycles through them)",
        ));
    }
    if let Some(other) = blocks
        .iter()
        .find(|b| !matches!(**b, "recurrent" | "attention"))
    {
        return Err(InputError::new(
            cfg.field("block_types"),
            format!("has \"{other}\": RecurrentGemma's blocks are \"recurrent\" or \"attention\""),
        ));
    }
    // `layers_block_type`: the list repeated, cut at num_hidden_layers
    let attention = (0..layers)
        .filter(|i| blocks[(*i % blocks.len() as u64) as usize] == "attention")
        .count() as u64;
    let width = cfg.int(&["lru_width"], 1, MAX_DIM)?.unwrap_or(spec.hidden);
    if spec.heads == 0 || !width.is_multiple_of(spec.heads) {
        return Err(InputError::new(
            cfg.field("lru_width"),
            format!(
                "is {width}: it must split evenly into num_attention_heads ({}) gate blocks",
                spec.heads
            ),
        ));
    }
    spec.attention_layers = Some(attention);
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::RgLru,
        layers: layers - attention,
        inner: width,
        heads: spec.heads,
        conv_kernel: cfg.int(&["conv1d_width"], 1, 64)?.unwrap_or(4),
        proj_bias: true,
        conv_bias: true,
        ..Recurrent::default()
    });
    // every attention block is local; the cache keeps its last window − 1
    // tokens as any sliding layer's
    spec.sliding_window = Some(SlidingWindow {
        window: cfg
            .int(&["attention_window_size"], 1, MAX_POSITION)?
            .unwrap_or(2048),
        layers: attention,
        keeps_prompt: false,
    });
    // the MLP is `intermediate_size // 2` wide (`RecurrentGemmaMlp`)
    spec.intermediate = (spec.intermediate / 2).max(1);
    spec.mlp_bias = Some(true);
    // `o_proj` always has a bias; q, k and v by `attention_bias`
    spec.qkv_bias = cfg.flag("attention_bias", false)?;
    spec.out_bias = true;
    Ok(())
}
