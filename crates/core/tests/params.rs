//! Parameter counts against the measured CSV (groups included), validation
//! of bad specs, and overflow safety.

mod common;

use common::{csv_rows, get, get_u64, import};
use proptest::prelude::*;
use vramfit_core::model::{Arch, MlpKind, ModelSpec, NormKind, MAX_TOTAL_PARAMS};

/// CSV row name -> config fixture with the same architecture.
const CSV_FIXTURES: &[(&str, &str)] = &[
    ("Llama-2-7B", "meta-llama__Llama-2-7b-hf.json"),
    ("Llama-2-13B", "meta-llama__Llama-2-13b-hf.json"),
    ("Llama-2-70B", "meta-llama__Llama-2-70b-hf.json"),
    ("CodeLlama-7B", "codellama__CodeLlama-7b-hf.json"),
    ("Meta-Llama-3-8B", "meta-llama__Meta-Llama-3-8B.json"),
    ("Llama-3.1-70B", "meta-llama__Llama-3.1-70B.json"),
    ("Mistral-7B-v0.1", "mistralai__Mistral-7B-v0.1.json"),
    ("Mixtral-8x7B", "mistralai__Mixtral-8x7B-v0.1.json"),
    ("Qwen2.5-7B", "Qwen__Qwen2.5-7B.json"),
    ("Qwen2.5-0.5B", "Qwen__Qwen2.5-0.5B.json"),
    ("Gemma-2B", "google__gemma-2b.json"),
    ("Phi-2", "microsoft__phi-2.json"),
    ("GPT-2", "openai-community__gpt2.json"),
    ("GPT-2-XL", "gpt2-xl.json"),
    (
        "BERT-base-uncased (BertModel+pooler)",
        "bert-base-uncased.json",
    ),
    (
        "BERT-large-uncased (BertModel+pooler)",
        "bert-large-uncased.json",
    ),
    ("T5-small", "google-t5__t5-small.json"),
    ("T5-base", "google-t5__t5-base.json"),
    (
        "CLIP-ViT-L/14-336 vision tower",
        "openai__clip-vit-large-patch14-336--vision_tower.json",
    ),
    (
        "CLIP-ViT-L/14-336 vision +proj",
        "openai__clip-vit-large-patch14-336--vision_+_projection.json",
    ),
    ("LLaVA-1.5-7B", "llava-hf__llava-1.5-7b-hf.json"),
];

#[test]
fn totals_and_groups_equal_the_measured_csv() {
    let rows = csv_rows("cpu_param_counts.csv");
    let mut checked = 0;
    for row in &rows {
        let name = get(row, "model");
        let Some((_, file)) = CSV_FIXTURES.iter().find(|(n, _)| *n == name) else {
            // BertForPreTraining adds MLM/NSP heads that ModelSpec does not model.
            assert!(name.contains("BertForPreTraining"), "no fixture for {name}");
            continue;
        };
        let counts = import(file).param_counts();
        assert_eq!(counts.total, get_u64(row, "total_params"), "{name} total");
        if !name.starts_with("CLIP") && !name.starts_with("LLaVA") {
            let token = get_u64(row, "tok_embedding_params");
            let other_emb = get_u64(row, "other_embedding_params");
            // T5's "other" embeddings are the relative-attention buckets, kept in `other`.
            let positions = if name.starts_with("T5") { 0 } else { other_emb };
            assert_eq!(counts.embedding, token + positions, "{name} embedding");
            let head = if get(row, "lm_head_tied") == "True" {
                0
            } else {
                get_u64(row, "lm_head_params_untied")
            };
            if !name.starts_with("BERT") {
                assert_eq!(counts.lm_head, head, "{name} lm_head");
            }
        }
        if let Ok(active) = get(row, "active_params_per_token").parse::<u64>() {
            assert_eq!(counts.active_per_token, active, "{name} active");
        } else {
            assert_eq!(counts.active_per_token, counts.total, "{name} dense");
        }
        if name.starts_with("LLaVA") {
            assert_eq!(
                counts.vision,
                get_u64(row, "vision_tower_params"),
                "{name} vision"
            );
            assert_eq!(
                counts.projector,
                get_u64(row, "projector_params"),
                "{name} projector"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, CSV_FIXTURES.len());
}

/// GPT-2 (124M) written out by hand, independent of the importer:
/// 50257*768 + 1024*768 embeddings, 12 x 7,087,872 per layer, 1,536 final norm
/// = 38,597,376 + 786,432 + 85,054,464 + 1,536 = 124,439,808 (param_counts.csv).
#[test]
fn hand_written_gpt2_spec() {
    let spec = ModelSpec {
        name: "gpt2".into(),
        arch: Arch::Gpt2,
        hidden: 768,
        layers: 12,
        heads: 12,
        kv_heads: 12,
        intermediate: 3072,
        vocab: 50257,
        max_position: 1024,
        tied_embeddings: true,
        mlp: MlpKind::Plain,
        norm: NormKind::Layer,
        qkv_bias: true,
        out_bias: true,
        ..ModelSpec::default()
    };
    spec.validate().expect("valid");
    let c = spec.param_counts();
    assert_eq!(c.total, 124_439_808);
    assert_eq!(c.embedding, 38_597_376 + 786_432);
    assert_eq!(c.layers.total(), 85_054_464);
    assert_eq!(c.layers.linear(), 12 * (4 * 768 * 768 + 2 * 768 * 3072));
}

fn llama_small() -> ModelSpec {
    import("meta-llama__Llama-2-7b-hf.json")
}

fn field_of(spec: &ModelSpec) -> String {
    spec.validate().expect_err("must be rejected").field
}

#[test]
fn bad_specs_name_the_field_and_range() {
    let mut s = llama_small();
    s.hidden = 0;
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "model.hidden");
    assert!(e.message.contains("allowed 1 to"), "{e}");
    let mut s = llama_small();
    s.layers = 1_000_000_000_000_000;
    assert_eq!(field_of(&s), "model.layers");
    let mut s = llama_small();
    s.kv_heads = 64;
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "model.kv_heads");
    assert!(e.message.contains("allowed 1 to heads (32)"), "{e}");
    let mut s = llama_small();
    s.kv_heads = 3;
    assert_eq!(field_of(&s), "model.kv_heads");
    let mut s = llama_small();
    s.heads = 30;
    s.kv_heads = 30;
    assert_eq!(field_of(&s), "model.heads"); // 30 does not divide 4096
    let mut s = llama_small();
    s.vocab = 0;
    assert_eq!(field_of(&s), "model.vocab");
    let mut s = import("mistralai__Mixtral-8x7B-v0.1.json");
    if let Some(m) = s.moe.as_mut() {
        m.experts_per_token = 9;
    }
    assert_eq!(field_of(&s), "model.moe.experts_per_token");
    let mut s = import("llava-hf__llava-1.5-7b-hf.json");
    s.vision = None;
    assert_eq!(field_of(&s), "model.vision");
}

#[test]
fn totals_above_2_pow_44_are_rejected() {
    let mut s = llama_small();
    s.hidden = 1 << 24;
    s.intermediate = 1 << 24;
    s.layers = 10_000;
    s.heads = 1;
    s.kv_heads = 1;
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "model");
    assert!(e.message.contains("2^44"), "{e}");
    // param_counts on the unvalidated spec saturates instead of panicking
    assert!(s.param_counts().total > MAX_TOTAL_PARAMS);
}

proptest! {
    /// Any spec, valid or not, counts without panicking; a valid one stays
    /// under 2^44 and its groups add up to the total.
    #[test]
    fn counting_never_panics(
        hidden in 0u64..=u64::MAX, layers in 0u64..=u64::MAX, heads in 0u64..=1024,
        kv in 0u64..=1024, inter in 0u64..=u64::MAX, vocab in 0u64..=u64::MAX,
        head_dim in proptest::option::of(0u64..=u64::MAX), experts in 0u64..=10_000,
        arch_pick in 0usize..6,
    ) {
        let arches = [Arch::Llama, Arch::Gpt2, Arch::T5, Arch::Bert, Arch::Mixtral, Arch::Opt];
        let mut s = ModelSpec {
            name: "p".into(), arch: arches[arch_pick], hidden, layers, heads, kv_heads: kv,
            head_dim, intermediate: inter, vocab, ..ModelSpec::default()
        };
        if arch_pick == 2 { s.encoder_layers = Some(layers); }
        if arch_pick == 4 {
            s.moe = Some(vramfit_core::model::Moe { experts, experts_per_token: 2, shared_experts: 0,
                expert_intermediate: inter, shared_intermediate: None, dense_layers: 0, router_bias: false, latent: 0 });
        }
        let c = s.param_counts();
        if s.validate().is_ok() {
            prop_assert!(c.total <= MAX_TOTAL_PARAMS);
            prop_assert_eq!(c.total, c.embedding + c.lm_head + c.layers.total() + c.other + c.vision + c.projector);
            prop_assert!(c.active_per_token <= c.total);
        }
    }
}
