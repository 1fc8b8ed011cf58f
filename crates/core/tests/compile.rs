//! torch.compile's saved activations against the CPU measurements in
//! `tests/data/compile/` (`measure_compile.py`: transformers 5.24, torch 2.15,
//! inductor's partitioner; README there). Every measured row, eager and
//! compiled, is rebuilt as a scenario and the estimator's activation bytes
//! per layer, (4 layers − 2 layers) / 2, must equal the measured ones
//! exactly: the formulas are checked over shapes, dtypes and families, not
//! fitted to one number.

mod common;

use common::{csv_fields, data_dir};
use vramfit_core::model::{Arch, MlpKind, ModelSpec, NormKind};
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{Attention, Checkpointing, Framework, Method, ModelSource, TaskKind};
use vramfit_core::{estimate, Part, Scenario};

struct Row {
    family: String,
    attention: String,
    dtype: String,
    hidden: u64,
    intermediate: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    vocab: u64,
    batch: u64,
    seq: u64,
    compiled: bool,
    per_layer: u64,
    outside: u64,
}

fn rows() -> Vec<Row> {
    rows_of("compile_saved.csv")
}

fn rows_of(file: &str) -> Vec<Row> {
    let path = data_dir().join("compile").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = csv_fields(lines.next().expect("header"));
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("column {name}"))
    };
    let n = |f: &[String], name: &str| -> u64 {
        f[col(name)]
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    lines
        .map(|l| {
            let f = csv_fields(l);
            Row {
                family: f[col("family")].clone(),
                attention: f[col("attention")].clone(),
                dtype: f[col("dtype")].clone(),
                hidden: n(&f, "hidden"),
                intermediate: n(&f, "intermediate"),
                heads: n(&f, "heads"),
                kv_heads: n(&f, "kv_heads"),
                head_dim: n(&f, "head_dim"),
                vocab: n(&f, "vocab"),
                batch: n(&f, "batch"),
                seq: n(&f, "seq"),
                compiled: f[col("mode")] != "eager",
                per_layer: n(&f, "per_layer"),
                outside: n(&f, "outside"),
            }
        })
        .collect()
}

fn spec(r: &Row, layers: u64) -> ModelSpec {
    let arch = match r.family.as_str() {
        "llama" | "llama_eager" => Arch::Llama,
        "qwen2" => Arch::Qwen2,
        "qwen3" => Arch::Qwen3,
        "gemma" => Arch::Gemma,
        "gemma2" => Arch::Gemma2,
        other => panic!("family {other}"),
    };
    ModelSpec {
        name: format!("{}-cpu", r.family),
        arch,
        hidden: r.hidden,
        layers,
        heads: r.heads,
        kv_heads: r.kv_heads,
        head_dim: Some(r.head_dim),
        intermediate: r.intermediate,
        vocab: r.vocab,
        max_position: 1024,
        tied_embeddings: r.family.starts_with("gemma"),
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        qkv_bias: r.family == "qwen2",
        ..ModelSpec::default()
    }
}

/// The activations line of a full fine-tune of the row's model, as measured:
/// transformers, no checkpointing, pure bf16 or fp32.
fn activations(r: &Row, layers: u64, compile: bool) -> u64 {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec(r, layers))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    (sc.weights, sc.training_precision) = match r.dtype.as_str() {
        "bf16" => (WeightFormat::Bf16, TrainingPrecision::Pure16),
        "fp32" => (WeightFormat::Fp32, TrainingPrecision::Fp32),
        other => panic!("dtype {other}"),
    };
    sc.attention = match r.attention.as_str() {
        "sdpa" => Attention::Sdpa,
        "eager" => Attention::Eager,
        other => panic!("attention {other}"),
    };
    sc.training.framework = Framework::Transformers;
    sc.training.method = Method::Full;
    sc.training.checkpointing = Checkpointing::Off;
    sc.training.micro_batch = r.batch;
    sc.training.seq_len = r.seq;
    sc.training.compile = compile;
    common::part_bytes(&sc, Part::Activations)
}

fn per_layer(r: &Row, compile: bool) -> u64 {
    (activations(r, 4, compile) - activations(r, 2, compile)) / 2
}

#[test]
fn the_measured_table_covers_every_family_both_modes_and_both_dtypes() {
    let rows = rows();
    for family in ["llama", "qwen2", "qwen3", "gemma", "gemma2", "llama_eager"] {
        for dtype in ["bf16", "fp32"] {
            for compiled in [false, true] {
                let n = rows
                    .iter()
                    .filter(|r| r.family == family && r.dtype == dtype && r.compiled == compiled)
                    .count();
                assert!(n >= 4, "{family} {dtype} compiled={compiled}: {n} rows");
            }
        }
    }
}

/// Eager layers save exactly what was measured, every family included:
/// Qwen3's q/k norm copies, GemmaRMSNorm's fp32 normalized tensor and
/// `1 + weight`, Gemma-2's two extra norms and tanh softcap output are terms
/// of the estimator (`activations/layer.rs`, `activations/attention.rs`).
#[test]
fn eager_layers_save_what_was_measured() {
    for r in rows().iter().filter(|r| !r.compiled) {
        assert_eq!(
            per_layer(r, false),
            r.per_layer,
            "{} {} {} h{} i{} a{} kv{} d{} b{} s{}",
            r.family,
            r.attention,
            r.dtype,
            r.hidden,
            r.intermediate,
            r.heads,
            r.kv_heads,
            r.head_dim,
            r.batch,
            r.seq
        );
    }
}

#[test]
fn compiled_layers_save_what_the_partitioned_forward_saved() {
    for r in rows().iter().filter(|r| r.compiled) {
        assert_eq!(
            per_layer(r, true),
            r.per_layer,
            "{} {} {} h{} i{} a{} kv{} d{} b{} s{}",
            r.family,
            r.attention,
            r.dtype,
            r.hidden,
            r.intermediate,
            r.heads,
            r.kv_heads,
            r.head_dim,
            r.batch,
            r.seq
        );
    }
}

/// Outside the layers a compiled SDPA model saves the embedding output, the
/// final norm's output and statistic and the 4-D mask (the activations
/// line), plus what
/// the logits-and-loss line accounts for: the 16-bit logits, the loss's
/// fp32 row max and log-sum (8·b·s), the int64 input ids (8·b·s), the
/// padded int64 labels (8·b·(s + 1)) and the fp32 token count (4).
#[test]
fn compiled_non_layer_bytes_are_the_measured_ones_less_the_loss_tensors() {
    for r in rows()
        .iter()
        .filter(|r| r.compiled && r.attention == "sdpa")
    {
        let big_b = if r.dtype == "bf16" { 2 } else { 4 };
        let (b, s) = (r.batch, r.seq);
        let loss_side = big_b * b * s * r.vocab + 8 * b * s + 8 * b * s + 8 * b * (s + 1) + 4;
        let ours = activations(r, 2, true) - 2 * per_layer(r, true);
        assert_eq!(
            ours + loss_side,
            r.outside,
            "{} {} h{} b{} s{}",
            r.family,
            r.dtype,
            r.hidden,
            b,
            s
        );
    }
}

/// The mechanism's size on a real shape: Llama-3-8B (h 4096, i 14336, 32
/// heads, 8 kv heads), bf16, b 1, s 4096: eager SDPA saves
/// 20·bsh + 4·bs·kv·d + 8·bsi + 8·bs + 4·a·b·s per layer; compiled
/// 8·bsh + 4·bs·(a·d) (q, output) + 4·bs·(a·d) (k, v repeated) + 6·bsi +
/// 8·bs + 4·a·b·s.
#[test]
fn compile_saves_less_on_llama_3_8b_by_the_derived_terms() {
    let r = Row {
        family: "llama".into(),
        attention: "sdpa".into(),
        dtype: "bf16".into(),
        hidden: 4096,
        intermediate: 14_336,
        heads: 32,
        kv_heads: 8,
        head_dim: 128,
        vocab: 128_256,
        batch: 1,
        seq: 4096,
        compiled: true,
        per_layer: 0,
        outside: 0,
    };
    let (bs, h, i, a) = (4096u64, 4096u64, 14_336u64, 32u64);
    let eager = 20 * bs * h + 4 * bs * 8 * 128 + 8 * bs * i + 8 * bs + 4 * a * bs;
    let compiled = 8 * bs * h + 4 * bs * h + 4 * bs * h + 6 * bs * i + 8 * bs + 4 * a * bs;
    assert_eq!(per_layer(&r, false), eager);
    assert_eq!(per_layer(&r, true), compiled);
    // 784 MiB vs 592 MiB per layer.
    assert_eq!(eager >> 20, 784);
    assert_eq!(compiled >> 20, 592);
}

/// Setups the measurements do not cover keep the eager terms and say so.
#[test]
fn uncovered_setups_keep_the_eager_terms() {
    let r = Row {
        family: "llama".into(),
        attention: "sdpa".into(),
        dtype: "bf16".into(),
        hidden: 256,
        intermediate: 688,
        heads: 4,
        kv_heads: 2,
        head_dim: 64,
        vocab: 512,
        batch: 2,
        seq: 160,
        compiled: true,
        per_layer: 0,
        outside: 0,
    };
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec(&r, 4))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.seq_len = 160;
    let act = |sc: &Scenario| -> (u64, String) {
        let e = estimate(sc).expect("estimates");
        let l = e.gpus[0]
            .lines
            .iter()
            .find(|l| l.part == Part::Activations)
            .expect("activations line")
            .clone();
        (l.bytes, l.formula)
    };
    let (eager, _) = act(&sc);
    sc.training.compile = true;
    let (compiled, formula) = act(&sc);
    assert_eq!(compiled, eager);
    assert!(formula.contains("not measured compiled"), "{formula}");
    sc.training.method = Method::Full;
    let (full, formula) = act(&sc);
    assert!(
        formula.contains("torch.compile: what the min-cut"),
        "{formula}"
    );
    assert!(full > 0);
}

/// The real inductor backend (C++ generated by gcc) saves exactly what the
/// partition-only measurement counted, and what the estimator says: GQA
/// (S1) and MQA (S2, k/v kept as kv-sized views) at both (b, s).
#[test]
fn real_inductor_saves_what_its_partition_saved() {
    let partition = rows();
    let checked = rows_of("inductor_check.csv");
    let compiled: Vec<&Row> = checked.iter().filter(|r| r.compiled).collect();
    assert_eq!(compiled.len(), 4);
    for r in compiled {
        let twin = partition
            .iter()
            .find(|p| {
                p.compiled
                    && p.family == r.family
                    && p.dtype == r.dtype
                    && (p.hidden, p.kv_heads, p.batch, p.seq)
                        == (r.hidden, r.kv_heads, r.batch, r.seq)
            })
            .expect("the same config in compile_saved.csv");
        assert_eq!(r.per_layer, twin.per_layer);
        assert_eq!(per_layer(r, true), r.per_layer);
    }
}
