//! Qwen4-Exp (`qwen4_exp`, `Qwen4ExpForConditionalGeneration`; its text
//! model `qwen4_exp_text`): Qwen3.5-MoE's Gated DeltaNet and gated
//! attention layers (read by `modern::qwen3_next`) under `hc_count`
//! residual streams mixed by low-rank gated hyper-connections, which
//! replace every norm; a QSA indexer on every attention layer; n-gram
//! per-layer embeddings on the `ple_layer_ids` layers; experts on every
//! layer; Qwen3.5's vision tower. Counts name the modules of
//! `modeling_qwen4_exp.py` (transformers 5.24); the configs are in
//! `tests/data/params/variants_2026b.py` and their counts in
//! `hf_variants_2026.csv`.

use serde_json::Map;

use super::reader::{per_layer_strings, Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{
    Arch, HyperConnections, HyperKind, ModelSpec, NgramEmbedding, QsaIndexer, MAX_DIM, MAX_HEADS,
    MAX_LAYERS, MAX_POSITION,
};

/// The wrapper: the text model (`qwen4_exp_text`, completed by
/// [`complete_text`] through the common importer), Qwen3.5's tower and
/// merger, the head tied by the wrapper's own flag.
pub(super) fn import_qwen4_exp(
    cfg: &Cfg,
    import_decoder: impl Fn(&Cfg, Arch, &str) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "qwen4_exp_text")?;
    let mut spec = import_decoder(&text, Arch::Qwen3Next, "qwen4_exp_text")?;
    // `Qwen4ExpForConditionalGeneration` ties by the outer flag (default
    // False); `Qwen4ExpForCausalLM` by the text config's
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let mut vision = cfg.object_or_empty("vision_config", &empty)?;
    vision.defaults = Defaults::Class("qwen4_exp_vision");
    spec.vision = Some(super::vlm::qwen3_vision(&vision, 0)?);
    spec.name = "qwen4_exp".to_string();
    Ok(spec)
}

/// What Qwen4-Exp's text model adds to Qwen3.5-MoE's layers:
/// - `Qwen4ExpTextHyperConnection` twice per layer (`hc_norm` n·h,
///   `input_mix_weight_down` n·h·r, `..._up` r·n·h, `block_inject_weight`
///   n·h·n) and the model's mixer without the injection, in place of the
///   layers' two norms and the final one;
/// - the QSA indexer on every attention layer ([`QsaIndexer`]);
/// - the n-gram embeddings ([`NgramEmbedding`]);
/// - experts on every layer (`decoder_sparse_step` and `mlp_only_layers`
///   are not read).
pub(super) fn complete_text(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    if let Some(types) = per_layer_strings(cfg, "layer_types", spec.layers)? {
        if let Some(bad) = types.iter().find(|t| {
            !matches!(
                **t,
                "linear_attention" | "indexed_attention" | "full_attention"
            )
        }) {
            return Err(InputError::new(
                cfg.field("layer_types"),
                format!(
                    "\"{bad}\" is not a Qwen4-Exp layer: allowed \"linear_attention\", \
                     \"indexed_attention\", \"full_attention\""
                ),
            ));
        }
    }
    if let Some(r) = spec.recurrent.as_mut() {
        // `Qwen4ExpTextGatedDeltaNet` projects z on its own, as Qwen3.5's
        r.separate_z = true;
    }
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = 0;
    }
    let streams = cfg.req(&["hc_count"], 2, 64)?;
    let rank = cfg.req(&["hc_lowrank"], 1, MAX_DIM)?;
    let (n, h) = (streams, spec.hidden);
    let mixer = n.saturating_mul(h).saturating_mul(1 + 2 * rank);
    spec.norms_per_layer = Some(0);
    spec.final_norm = Some(false);
    spec.layer_extra_params = spec
        .layer_extra_params
        .saturating_add(2 * mixer.saturating_add(n * n * h));
    spec.model_extra_params = spec.model_extra_params.saturating_add(mixer);
    spec.hyper_connections = Some(HyperConnections {
        streams,
        kind: HyperKind::LowRank { rank },
    });
    spec.qsa_indexer = Some(qsa_indexer(cfg, spec)?);
    spec.ngram_embedding = ngram_embedding(cfg, spec, streams)?;
    Ok(())
}

/// The five QSA keys, all required: `Qwen4ExpTextAttention` builds its
/// indexer on every attention layer (transformers cannot build one
/// without), with `validate_architecture`'s refusals.
fn qsa_indexer(cfg: &Cfg, spec: &ModelSpec) -> Result<QsaIndexer> {
    let required = |key: &'static str, max: u64| -> Result<u64> {
        cfg.int(&[key], 1, max)?.ok_or_else(|| {
            InputError::new(
                cfg.field(key),
                format!(
                    "is required: every Qwen4-Exp attention layer builds its QSA indexer \
                     (1 to {max})"
                ),
            )
        })
    };
    let heads = required("indexer_n_heads", MAX_HEADS)?;
    let kv = required("indexer_kv_heads", MAX_HEADS)?;
    let head_dim = required("indexer_head_dim", MAX_HEADS)?;
    let budget = required("indexer_budget", MAX_POSITION)?;
    let ratio = required("indexer_compress_ratio", MAX_POSITION)?;
    if kv != 1 {
        return Err(InputError::new(
            cfg.field("indexer_kv_heads"),
            format!("must be 1 (Qwen4-Exp's QSA), got {kv}"),
        ));
    }
    if !budget.is_multiple_of(ratio) {
        return Err(InputError::new(
            cfg.field("indexer_budget"),
            format!("must be a multiple of indexer_compress_ratio ({ratio}), got {budget}"),
        ));
    }
    // the rotary part of the attention heads must fit the index head
    let fraction = match cfg.object("rope_parameters")? {
        Some(r) => r.float("partial_rotary_factor", 0.0, 1.0)?.unwrap_or(1.0),
        None => 1.0,
    };
    let rotary = (spec.head_dim() as f64 * fraction) as u64;
    if rotary > head_dim {
        return Err(InputError::new(
            cfg.field("indexer_head_dim"),
            format!("must hold the heads' rotary part ({rotary}), got {head_dim}"),
        ));
    }
    Ok(QsaIndexer {
        heads: heads + kv,
        head_dim,
        layers: spec.attention_layer_count(),
        keys_only: false,
    })
}

/// The most n-gram heads whose table sizes the importer searches primes
/// for (a real model lists a few layers of 16).
const MAX_NGRAM_HEADS: u64 = 4096;

/// `ple_layer_ids` (one-based, deduplicated, on linear-attention layers
/// only): each layer's `Qwen4ExpTextNGramEmbedding` hashes into
/// (n − 1)·`heads_per_ngram` heads, head j of the p-th listed layer
/// `_find_nth_prime_after(base − 1, p·heads + j + 1)` rows (the primes from
/// `ngram_vocab_size_base` on), the layer's table padded to a multiple of
/// `make_ngram_vocab_size_divisible_by`.
fn ngram_embedding(cfg: &Cfg, spec: &ModelSpec, streams: u64) -> Result<Option<NgramEmbedding>> {
    let Some(list) = cfg.array("ple_layer_ids")? else {
        return Ok(None);
    };
    let layers = spec.layers;
    let mut ids: Vec<u64> = Vec::with_capacity(list.len().min(layers as usize));
    for v in list {
        match v.as_u64() {
            Some(id) if (1..=layers).contains(&id) => ids.push(id),
            _ => {
                return Err(InputError::new(
                    cfg.field("ple_layer_ids"),
                    format!("entries must be layer numbers from 1 to {layers}, got {v}"),
                ))
            }
        }
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(None);
    }
    check_linear(cfg, &ids, layers)?;
    let eos = cfg.obj.get("eos_token_id");
    if eos.is_none_or(|e| e.is_null() || e.as_array().is_some_and(Vec::is_empty)) {
        return Err(InputError::new(
            cfg.field("eos_token_id"),
            "must be set when ple_layer_ids lists layers (Qwen4-Exp's n-grams stop at it)",
        ));
    }
    let ngram = cfg.req(&["ngram_size"], 2, 64)?;
    let per_ngram = cfg.req(&["heads_per_ngram"], 1, MAX_NGRAM_HEADS)?;
    let heads = (ngram - 1).saturating_mul(per_ngram);
    let embed_dim = cfg
        .int(&["ple_embed_dim"], 1, MAX_DIM)?
        .unwrap_or(spec.hidden);
    if !embed_dim.is_multiple_of(heads) {
        return Err(InputError::new(
            cfg.field("ple_embed_dim"),
            format!("must be a multiple of (ngram_size − 1) × heads_per_ngram ({heads}), got {embed_dim}"),
        ));
    }
    let count = heads.saturating_mul(ids.len() as u64);
    if count > MAX_NGRAM_HEADS {
        return Err(InputError::new(
            cfg.field("ple_layer_ids"),
            format!("gives {count} n-gram heads: at most {MAX_NGRAM_HEADS} are counted"),
        ));
    }
    let base = cfg.req(&["ngram_vocab_size_base"], 0, 1 << 40)?;
    let divisor = cfg.req(&["make_ngram_vocab_size_divisible_by"], 1, 1 << 20)?;
    let mut primes = Primes::from(base);
    let mut rows: u64 = 0;
    for _ in &ids {
        let sum: u64 = (0..heads).map(|_| primes.next_prime()).sum();
        rows = rows.saturating_add(sum.div_ceil(divisor) * divisor);
    }
    Ok(Some(NgramEmbedding {
        layers: ids.len() as u64,
        rows,
        width: embed_dim / heads,
        embed_dim,
        streams,
        conv_kernel: cfg.req(&["ple_conv_kernel_size"], 1, 64)?,
        ngram,
    }))
}

/// Refuses n-gram layers that are not linear-attention layers (the
/// default pattern's attention layers are every fourth, or every
/// `full_attention_interval`-th).
fn check_linear(cfg: &Cfg, ids: &[u64], layers: u64) -> Result<()> {
    let types = per_layer_strings(cfg, "layer_types", layers)?;
    let every = cfg
        .int(&["full_attention_interval"], 1, MAX_LAYERS)?
        .unwrap_or(4);
    for &id in ids {
        let linear = match &types {
            Some(t) => t[(id - 1) as usize] == "linear_attention",
            None => id % every != 0,
        };
        if !linear {
            return Err(InputError::new(
                cfg.field("ple_layer_ids"),
                format!("layer {id} is an attention layer: n-gram embeddings go on linear-attention layers only"),
            ));
        }
    }
    Ok(())
}

/// The primes from a base upwards, by a Miller-Rabin test that is exact
/// for every 64-bit number with these bases.
struct Primes(u64);

impl Primes {
    fn from(base: u64) -> Primes {
        Primes(base)
    }

    fn next_prime(&mut self) -> u64 {
        while !is_prime(self.0) {
            self.0 += 1;
        }
        let p = self.0;
        self.0 += 1;
        p
    }
}

fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let (mut d, mut s) = (n - 1, 0);
    while d.is_multiple_of(2) {
        d /= 2;
        s += 1;
    }
    let mul = |a: u64, b: u64| (u128::from(a) * u128::from(b) % u128::from(n)) as u64;
    let pow = |mut a: u64, mut e: u64| {
        let mut r = 1;
        while e > 0 {
            if e & 1 == 1 {
                r = mul(r, a);
            }
            a = mul(a, a);
            e >>= 1;
        }
        r
    };
    BASES.iter().all(|&a| {
        let mut x = pow(a, d);
        if x == 1 || x == n - 1 {
            return true;
        }
        (1..s).any(|_| {
            x = mul(x, x);
            x == n - 1
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// transformers' trial division (`_is_prime`) agrees below 10⁵, and the
    /// first primes from 2·10⁷ are the ones its tables use.
    #[test]
    fn primes_agree_with_trial_division() {
        let trial = |n: u64| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
        assert!((0..100_000).all(|n| is_prime(n) == trial(n)));
        let mut p = Primes::from(20_000_000);
        assert_eq!(
            [p.next_prime(), p.next_prime(), p.next_prime()],
            [20_000_003, 20_000_023, 20_000_033]
        );
    }
}
