//! Encoders on BERT's layers (post- or pre-LayerNorm blocks of biased
//! q/k/v/o and a biased GELU MLP), ModernBERT and DeBERTa-v2. A config is counted as
//! the class transformers builds for it: `AutoModel` (the bare encoder), or
//! the sequence-classification class where `architectures` names one, whose
//! head (BERT's pooler and classifier, or RoBERTa's, ELECTRA's, MPNet's and
//! DistilBERT's two-layer classification head) holds the same
//! hidden² + hidden + labels·(hidden + 1) parameters. Checked on the meta
//! device with transformers 5.24 (`tests/data/params/hf_encoders.csv`).

use super::reader::Cfg;
use crate::error::Result;
use crate::model::{Arch, MlpKind, ModelSpec, MAX_DIM, MAX_POSITION, MAX_TOTAL_PARAMS};

/// The key of the MLP width: DistilBERT's config names it `hidden_dim`.
pub(super) fn intermediate_key(model_type: &str) -> &'static str {
    if model_type == "distilbert" {
        "hidden_dim"
    } else {
        "intermediate_size"
    }
}

/// The encoder fields beyond the common ones: token types, the head, and
/// each family's own embeddings.
pub(super) fn complete(
    cfg: &Cfg,
    arch: Arch,
    model_type: &str,
    spec: &mut ModelSpec,
) -> Result<()> {
    spec.intermediate = cfg.req(&[intermediate_key(model_type)], 1, MAX_DIM)?;
    spec.tied_embeddings = true;
    // DistilBERT, MPNet and ModernBERT embed no token types (their configs
    // have no `type_vocab_size`); BERT's class defaults to 2, DeBERTa-v2's to 0.
    let default_types = match (arch, model_type) {
        (Arch::DebertaV2, _) | (_, "distilbert" | "mpnet") => 0,
        _ => 2,
    };
    spec.type_vocab = match model_type {
        "distilbert" | "mpnet" | "modernbert" => 0,
        _ => cfg
            .int(&["type_vocab_size"], 0, MAX_DIM)?
            .unwrap_or(default_types),
    };
    if arch == Arch::DebertaV2 {
        let buckets = cfg.int(&["position_buckets"], 0, MAX_DIM)?.unwrap_or(0);
        // Without buckets the table spans max_relative_positions, itself
        // max_position_embeddings when unset (-1).
        spec.relative_attention_buckets = Some(if buckets > 0 {
            buckets
        } else {
            spec.max_position.max(1)
        });
        spec.conv_kernel = cfg.int(&["conv_kernel_size"], 0, 64)?.unwrap_or(0);
    }
    let classifier = cfg.has_architecture("ForSequenceClassification")?;
    if classifier {
        spec.classifier_labels = match cfg.object("id2label")? {
            Some(map) => map.obj.len() as u64,
            // PretrainedConfig's default num_labels
            None => cfg.int(&["num_labels"], 1, MAX_DIM)?.unwrap_or(2),
        };
    }
    let h = spec.hidden;
    spec.model_extra_params = match model_type {
        // an embeddings LayerNorm and the encoder's final one
        // (`RobertaPreLayerNormEmbeddings.LayerNorm`, `...Model.LayerNorm`)
        "roberta-prelayernorm" => 2 * h,
        // `use_task_id`: a task-type embedding table
        "ernie" if cfg.flag("use_task_id", false)? => {
            cfg.int(&["task_type_vocab_size"], 0, MAX_DIM)?.unwrap_or(3) * h
        }
        // T5-style relative position buckets, one bias per head
        // (`MPNetEncoder.relative_attention_bias`)
        "mpnet" => cfg
            .int(&["relative_attention_num_buckets"], 0, MAX_DIM)?
            .unwrap_or(32)
            .saturating_mul(spec.heads),
        // x, y, height and width position tables (`LayoutLMEmbeddings`)
        "layoutlm" => {
            let rows = cfg
                .int(&["max_2d_position_embeddings"], 0, MAX_POSITION)?
                .unwrap_or(1024);
            4 * rows * h
        }
        _ => 0,
    };
    if model_type == "modernbert" {
        return modernbert(cfg, spec, classifier);
    }
    // The bare DistilBERT and ELECTRA encoders have no pooler, and ELECTRA
    // embeds at `embedding_size` and projects up (`embeddings_project`, with
    // a bias) where it differs from the hidden size: their exact total.
    let bare = !classifier && model_type == "distilbert";
    if bare || model_type == "electra" {
        spec.params_override = Some(exact_total(cfg, model_type, spec, classifier)?);
    }
    Ok(())
}

/// DistilBERT's and ELECTRA's totals, where the fields' BERT count differs.
fn exact_total(cfg: &Cfg, model_type: &str, spec: &ModelSpec, classifier: bool) -> Result<u64> {
    let wide = |x: u64| x as u128;
    let (h, i, l) = (
        wide(spec.hidden),
        wide(spec.intermediate),
        wide(spec.layers),
    );
    let e = match model_type {
        "electra" => wide(
            cfg.int(&["embedding_size"], 1, MAX_DIM)?
                .unwrap_or(spec.hidden),
        ),
        _ => h,
    };
    let rows = wide(spec.vocab) + wide(spec.max_position) + wide(spec.type_vocab);
    let projection = if e == h { 0 } else { e * h + h };
    let embeddings = rows * e + 2 * e + projection;
    let layer = 4 * (h * h + h) + 2 * h * i + i + h + 2 * 2 * h;
    let labels = wide(spec.classifier_labels);
    let head = if classifier {
        h * h + h + labels * h + labels
    } else {
        0
    };
    let total = embeddings + l * layer + head;
    Ok(total.min(wide(MAX_TOTAL_PARAMS)) as u64)
}

/// ModernBERT (`ModernBertConfig`): rotary positions (no table), a GeGLU
/// MLP (`Wi`: hidden → 2·intermediate), LayerNorms whose bias is
/// `norm_bias`, none before layer 0's attention (`nn.Identity`), a final
/// norm; the classifier's head is a dense layer (`classifier_bias`) and a
/// norm before the labels. Its total is exact; the estimator reads its
/// layers as BERT's with a gated MLP.
fn modernbert(cfg: &Cfg, spec: &mut ModelSpec, classifier: bool) -> Result<()> {
    spec.mlp = MlpKind::Gated;
    let attention_bias = cfg.flag("attention_bias", false)?;
    spec.qkv_bias = attention_bias;
    spec.out_bias = attention_bias;
    let mlp_bias = cfg.flag("mlp_bias", false)?;
    spec.mlp_bias = Some(mlp_bias);
    let norm_bias = cfg.flag("norm_bias", false)?;
    let wide = |x: u64| x as u128;
    let (h, i, l, v) = (
        wide(spec.hidden),
        wide(spec.intermediate),
        wide(spec.layers),
        wide(spec.vocab),
    );
    let bias = |on: bool| u128::from(on);
    let norm = h * (1 + bias(norm_bias));
    let attention = 4 * h * h + 4 * h * bias(attention_bias);
    let mlp = 3 * h * i + (2 * i + h) * bias(mlp_bias);
    let layers = l * (norm + attention + norm + mlp) - norm.min(l * norm);
    let mut total = v * h + norm + layers + norm;
    if classifier {
        let labels = wide(spec.classifier_labels);
        let dense = h * h + h * bias(cfg.flag("classifier_bias", false)?);
        total += dense + norm + labels * h + labels;
    }
    spec.params_override = Some(total.min(wide(MAX_TOTAL_PARAMS)) as u64);
    Ok(())
}
