//! Encoders. Encoder-decoder training (T5): the encoder runs over the
//! input tokens, the decoder over the target tokens, and the loss covers
//! the targets (shared/measure/measure_cases.py trains t5-base on 512 input
//! and 128 target tokens and says so only in its caveats). Encoder-only
//! inference (BERT): one forward pass, no KV cache.

use vramfit_core::estimate::estimate;
use vramfit_core::report::{Estimate, Part};
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};

fn t5(target_len: Option<u64>) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("google-t5/t5-base".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.micro_batch = 16;
    sc.training.seq_len = 512;
    sc.training.target_len = target_len;
    sc
}

fn bytes(e: &Estimate, part: Part) -> u64 {
    e.gpus[0]
        .lines
        .iter()
        .filter(|l| l.part == part)
        .map(|l| l.bytes)
        .sum()
}

#[test]
fn the_loss_covers_the_target_tokens() {
    let same = estimate(&t5(None)).expect("t5");
    assert_eq!(same, estimate(&t5(Some(512))).expect("t5"));
    let short = estimate(&t5(Some(128))).expect("t5");
    // 12·b·t·V with t = 128 target tokens, V = 32128: the saved fp32
    // log-softmax, its incoming gradient and the one it makes (the logits
    // are freed with the model output before backward).
    assert_eq!(bytes(&short, Part::LogitsLoss), 12 * 16 * 128 * 32_128);
    assert_eq!(
        bytes(&same, Part::LogitsLoss),
        4 * bytes(&short, Part::LogitsLoss)
    );
    // T5's relative-position bias: one (b, heads, s, s) tensor per stack.
    let formula = |e: &Estimate| {
        e.gpus[0]
            .lines
            .iter()
            .find(|l| l.part == Part::Activations)
            .expect("activations")
            .formula
            .clone()
    };
    assert!(
        formula(&short).contains("position bias 2·b·a·(s² + t²)"),
        "{}",
        formula(&short)
    );
    // Shorter decoder, fewer activations; the encoder's part stays.
    let (a_short, a_same) = (
        bytes(&short, Part::Activations),
        bytes(&same, Part::Activations),
    );
    assert!(
        a_short < a_same && a_short > a_same / 2,
        "{a_short} vs {a_same}"
    );
}

#[test]
fn a_longer_source_grows_the_decoders_cross_attention() {
    let mut long_source = t5(Some(128));
    long_source.training.seq_len = 1024;
    let short = estimate(&t5(Some(128))).expect("t5");
    let long = estimate(&long_source).expect("t5");
    assert_eq!(
        bytes(&short, Part::LogitsLoss),
        bytes(&long, Part::LogitsLoss)
    );
    assert!(bytes(&long, Part::Activations) > bytes(&short, Part::Activations));
}

#[test]
fn decoder_only_models_ignore_a_target_length() {
    let mut llama = t5(Some(128));
    llama.model = ModelSource::Catalog("meta-llama/Llama-3.2-1B".into());
    let mut without = llama.clone();
    without.training.target_len = None;
    assert_eq!(
        estimate(&llama).expect("llama"),
        estimate(&without).expect("llama")
    );
}

#[test]
fn a_zero_target_names_the_field() {
    let err = estimate(&t5(Some(0))).expect_err("0 target tokens");
    assert_eq!(err.field, "training.target_len");
}

#[test]
fn a_harness_t5_case_reads_its_target_length_from_the_caveats() {
    let case = r#"{"id": "vfm-example-t5-base-full-bf16-adamw-mb16-s512-t128-nogc-eager-alloc",
      "framework": "transformers", "model": {"name": "google-t5/t5-base", "arch": "t5"},
      "task": "training", "precision": {"weights": "bf16", "compute": "bf16", "mixed_precision": "pure"},
      "training": {"method": "full", "optimizer": "adamw", "micro_batch": 16, "grad_accum": 1,
        "seq_len": 512, "gradient_checkpointing": "off"},
      "attention": "eager", "parallel": {"gpus": 1}, "gpu": {},
      "measured": {"metric": "peak_allocated", "bytes": 1},
      "caveats": "measured as: 2 training steps; loss = the model's seq2seq LM loss on random target ids (decoder inputs shifted from them); encoder input 512 tokens, decoder (target) 128 tokens; gradient checkpointing off"}"#;
    let case: vramfit_core::cases::Case = serde_json::from_str(case).expect("case");
    let sc = vramfit_core::cases::case_scenario(&case).expect("expressible");
    assert_eq!(
        (sc.training.seq_len, sc.training.target_len),
        (512, Some(128))
    );
}

fn bert_forward(attention: vramfit_core::scenario::Attention, new_tokens: u64) -> Estimate {
    let mut sc = Scenario {
        model: ModelSource::Catalog("bert-large-uncased".into()),
        task: TaskKind::Inference,
        weights: vramfit_core::precision::WeightFormat::Fp16,
        compute_dtype: vramfit_core::precision::Dtype::Fp16,
        attention,
        ..Scenario::default()
    };
    sc.inference.batch = 64;
    sc.inference.prompt_len = 512;
    sc.inference.new_tokens = new_tokens;
    estimate(&sc).expect("bert")
}

#[test]
fn an_encoder_forward_has_no_kv_cache_and_generates_nothing() {
    use vramfit_core::scenario::Attention;
    let sdpa = bert_forward(Attention::Sdpa, 0);
    assert_eq!(bytes(&sdpa, Part::KvCache), 0);
    assert_eq!(sdpa.gpus[0].kv_bytes_per_token, 0);
    assert_eq!(sdpa.gpus[0].peak_phase, "forward");
    // New tokens mean nothing to an encoder.
    assert_eq!(sdpa, bert_forward(Attention::Sdpa, 128));
    // Eager attention adds one layer's fp16 scores and softmax: 2·2·b·a·p².
    let eager = bert_forward(Attention::Eager, 0);
    assert_eq!(
        bytes(&eager, Part::Activations) - bytes(&sdpa, Part::Activations),
        2 * 2 * 64 * 16 * 512 * 512
    );
    // Weights (335 M fp16) plus about one layer's working set: far below a cache of 64 × 512 tokens.
    assert!(sdpa.gpus[0].peak_allocated_bytes < 2 << 30);
}

/// BERT-large fine-tuned with fp16 AMP (HF Trainer `fp16=True`, eager
/// attention): per score the fp32 softmax output (4 B, saved by softmax),
/// the 1-byte dropout mask, and the fp16 copy P·V reads (2 B). The fp32
/// dropout output is saved by nothing and is gone at the peak; counting it
/// put hf-bert-v100-006 10% over. Against sdpa (fp32 logsumexp, 4·a·b·s) the
/// rest of the layer is the same.
#[test]
fn amp_eager_attention_keeps_seven_bytes_per_score() {
    use vramfit_core::precision::{Dtype, TrainingPrecision, WeightFormat};
    use vramfit_core::scenario::Attention;
    let activations = |attention: Attention| {
        let mut sc = Scenario {
            model: ModelSource::Catalog("bert-large-uncased".into()),
            task: TaskKind::Training,
            weights: WeightFormat::Fp32,
            compute_dtype: Dtype::Fp16,
            training_precision: TrainingPrecision::Amp,
            attention,
            ..Scenario::default()
        };
        sc.training.micro_batch = 4;
        sc.training.seq_len = 512;
        bytes(&estimate(&sc).expect("bert"), Part::Activations)
    };
    let (layers, heads, batch, seq) = (24u64, 16, 4, 512);
    assert_eq!(
        activations(Attention::Eager) - activations(Attention::Sdpa),
        layers * (7 * heads * batch * seq * seq - 4 * heads * batch * seq)
    );
}
