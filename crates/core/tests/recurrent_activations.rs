//! Training activations of recurrent token mixers against what PyTorch's
//! saved-tensor hooks counted on tiny random-weight models of every hybrid
//! and state-space family (`data/recurrent_acts/`, torch 2.15.0,
//! transformers 5.24.0, CPU: the PyTorch reference paths). Per row the
//! mixer's own bytes must equal our mixer terms, and the recurrent layer's
//! bytes outside its feed-forward (and, in Falcon-H1, its attention) must
//! equal our norm and mixer terms, to the byte. The estimate itself is
//! checked end to end: one more recurrent layer adds exactly the measured
//! bytes, and a hybrid differs from the same model all-attention by its
//! recurrent layers' terms.

mod common;

use common::{data_dir, resolved_config};
use vramfit_core::activations::{
    act_fn, layer_terms, mixer_terms, recurrent_layer_terms, GradNeeds, LayerShape,
};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::model::ModelSpec;
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Checkpointing, Framework, Method, MixerKernels, ModelSource, Scenario, TaskKind,
};
use vramfit_core::{estimate, Part};

struct Row {
    model_type: String,
    spec: ModelSpec,
    fp32: bool,
    batch: u64,
    seq: u64,
    line: serde_json::Value,
}

fn rows() -> Vec<Row> {
    rows_in("recurrent_acts.jsonl")
}

/// The rows of one measurement file of `data/recurrent_acts/`.
fn rows_in(file: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(data_dir().join("recurrent_acts").join(file))
        .expect("measurements");
    text.lines()
        .map(|row| {
            let line: serde_json::Value = serde_json::from_str(row).expect("json line");
            let model_type = line["model_type"].as_str().unwrap_or_default().to_owned();
            let spec = from_hf_config(&resolved_config(&model_type, &line["config"]))
                .unwrap_or_else(|e| panic!("{model_type}: {e}"));
            Row {
                model_type,
                spec,
                fp32: line["dtype"] == "float32",
                batch: line["batch"].as_u64().unwrap_or(1),
                seq: line["seq"].as_u64().unwrap_or(1),
                line,
            }
        })
        .collect()
}

fn shape(r: &Row) -> LayerShape {
    let act_bytes = if r.fp32 { 4 } else { 2 };
    common::plain_layer_shape(&r.spec, u128::from(r.batch), u128::from(r.seq), act_bytes)
}

/// The measured layers with a recurrent mixer: (mixer bytes, bytes of the
/// layer outside its feed-forward and softmax attention).
fn measured_recurrent_layers(r: &Row) -> Vec<(u128, u128)> {
    let get = |l: &serde_json::Value, k: &str| u128::from(l[k].as_u64().unwrap_or(0));
    r.line["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["kind"].as_str().is_some_and(|k| k.contains("mixer")))
        .map(|l| {
            let layer = get(l, "layer_bytes");
            (
                get(l, "mixer_bytes"),
                layer - get(l, "ffn_bytes") - get(l, "attn_bytes"),
            )
        })
        .collect()
}

/// Every measured recurrent layer of `file` against our mixer terms and
/// the layer's terms outside its feed-forward, on shapes whose gradient
/// needs are `grads`: to the byte, over at least 300 layers.
fn check_layers(file: &str, grads: GradNeeds) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for r in &rows_in(file) {
        let rec = r.spec.recurrent.as_ref().expect("a recurrent mixer");
        let l = LayerShape { grads, ..shape(r) };
        let act = act_fn(&r.spec, Framework::Transformers);
        let mixer: u128 = mixer_terms(&l, rec, MixerKernels::Torch)
            .iter()
            .map(|t| t.bytes)
            .sum();
        let without_ffn: u128 =
            recurrent_layer_terms(&l, &r.spec, rec, act, MixerKernels::Torch, false)
                .iter()
                .map(|t| t.bytes)
                .sum();
        let measured = measured_recurrent_layers(r);
        assert!(
            !measured.is_empty(),
            "{} has no recurrent layer",
            r.model_type
        );
        for (want_mixer, want_layer) in measured {
            checked += 1;
            if (mixer, without_ffn) != (want_mixer, want_layer) {
                failures.push(format!(
                    "{} {} b={} s={} {}: mixer {mixer} vs {want_mixer}, layer {without_ffn} vs {want_layer}",
                    r.model_type, r.line["variant"], r.batch, r.seq, r.line["dtype"]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 300, "{file}: {checked} layers");
}

#[test]
fn mixer_and_norm_terms_equal_the_measured_saved_bytes() {
    check_layers("recurrent_acts.jsonl", GradNeeds::all());
}

/// Every weight frozen, the layer's input still needing a gradient (the
/// embeddings' output requires one: transformers' PEFT setup under
/// gradient checkpointing, and every layer behind an adapted one under
/// LoRA): a frozen linear keeps no input, a frozen A, D or norm weight none
/// of the tensors only its own gradient reads (`measure_frozen.py`).
#[test]
fn frozen_mixers_save_what_the_measured_frozen_layers_save() {
    check_layers(
        "recurrent_acts_frozen.jsonl",
        GradNeeds {
            qkv: false,
            o: false,
            gate_up: false,
            down: false,
            norms: false,
            linear_outputs: false,
        },
    );
}

#[test]
fn the_table_covers_every_family_both_dtypes_and_the_chunk_cases() {
    let rows = rows();
    for family in [
        "mamba",
        "mamba2",
        "jamba",
        "nemotron_h",
        "falcon_h1",
        "granitemoehybrid",
        "qwen3_next",
        "qwen3_5_text",
        "lfm2",
        "minimax",
        "kimi_linear",
    ] {
        for fp32 in [false, true] {
            let n = rows
                .iter()
                .filter(|r| r.model_type == family && r.fp32 == fp32)
                .count();
            assert!(n >= 8, "{family} fp32={fp32}: {n} rows");
        }
    }
    // Every row records the versions it was measured with.
    assert!(rows
        .iter()
        .all(|r| r.line["versions"]["transformers"] == "5.24.0"
            && r.line["versions"]["torch"]
                .as_str()
                .is_some_and(|v| v.starts_with("2.15"))));
}

/// The activations line of a full bf16 fine-tune of `spec` on the PyTorch
/// path, no checkpointing.
fn activations(spec: &ModelSpec, batch: u64, seq: u64, kernels: MixerKernels) -> (u64, String) {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec.clone())),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.weights = WeightFormat::Bf16;
    sc.training_precision = TrainingPrecision::Pure16;
    sc.training.framework = Framework::Transformers;
    sc.training.method = Method::Full;
    sc.training.checkpointing = Checkpointing::Off;
    sc.training.micro_batch = batch;
    sc.training.seq_len = seq;
    sc.training.mixer_kernels = kernels;
    let e = estimate(&sc).expect("estimates");
    let line = e.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::Activations)
        .expect("activations line");
    (line.bytes, line.formula.clone())
}

fn row<'a>(rows: &'a [Row], model_type: &str, variant: u64, batch: u64, seq: u64) -> &'a Row {
    rows.iter()
        .find(|r| {
            r.model_type == model_type
                && r.line["variant"] == variant
                && !r.fp32
                && r.batch == batch
                && r.seq == seq
        })
        .expect("measured row")
}

#[test]
fn each_mamba2_layer_adds_the_measured_bytes_to_the_estimate() {
    let rows = rows();
    let r = row(&rows, "mamba2", 0, 2, 130);
    let (_, per_layer) = measured_recurrent_layers(r)[0];
    let with = |layers: u64| {
        let mut spec = r.spec.clone();
        spec.layers = layers;
        if let Some(rec) = spec.recurrent.as_mut() {
            rec.layers = layers;
        }
        activations(&spec, 2, 130, MixerKernels::Torch)
    };
    let (three, formula) = with(3);
    let (five, _) = with(5);
    assert_eq!(u128::from(five - three), 2 * per_layer, "{formula}");
    // 1,014,272 B per Mamba-2 layer at b 2 × s 130 (hidden 64, 8 heads of
    // 16, state 16, chunk 16), measured.
    // 3,419,896 B per Mamba-2 layer at b 2 × s 130 in bf16 (hidden 64, 8
    // heads of 16, 2 groups, state 16, chunk 16: 9 padded chunks), measured.
    assert_eq!(per_layer, 3_419_896);
    assert!(formula.contains("3 recurrent layers"), "{formula}");
    assert!(formula.contains("PyTorch fallback"), "{formula}");
    // mamba_ssm's fused kernel keeps the norm's fp32 input and 1/rms, its
    // normalized output, in_proj's input and output (2·t·(64 + 128 + 192 +
    // 8)), out_x (2·t·128), A twice and the gated norm's rstd (4·t·2).
    let mut spec = r.spec.clone();
    spec.layers = 5;
    if let Some(rec) = spec.recurrent.as_mut() {
        rec.layers = 5;
    }
    let (fused_five, _) = activations(&spec, 2, 130, MixerKernels::Fused);
    let t = 2 * 130;
    let fused_layer = (4 * 64 + 4) * t
        + 2 * 64 * t
        + 2 * (64 + 128 + 192 + 8) * t
        + 2 * 128 * t
        + 2 * 4 * 8
        + 4 * 2 * t;
    assert_eq!(five - fused_five, 5 * (3_419_896 - fused_layer));
}

#[test]
fn a_hybrid_differs_from_all_attention_by_its_recurrent_layers() {
    let rows = rows();
    let r = row(&rows, "lfm2", 0, 2, 130);
    let spec = &r.spec;
    let rec = spec.recurrent.as_ref().expect("short convolutions");
    let mut all_attention = spec.clone();
    all_attention.recurrent = None;
    all_attention.attention_layers = None;
    let (hybrid, formula) = activations(spec, 2, 130, MixerKernels::Torch);
    let (attention, _) = activations(&all_attention, 2, 130, MixerKernels::Torch);
    let l = shape(r);
    let act = act_fn(spec, Framework::Transformers);
    let sum = |t: Vec<vramfit_core::activations::Term>| -> u128 { t.iter().map(|x| x.bytes).sum() };
    let recurrent_layer = sum(recurrent_layer_terms(
        &l,
        spec,
        rec,
        act,
        MixerKernels::Torch,
        true,
    ));
    let attention_layer = sum(layer_terms(&l, spec, act));
    let layers = u128::from(spec.layers);
    let r_layers = u128::from(rec.layers);
    // Both answers are layers × the mean per layer, rounded up.
    let expected = |total: u128| total.div_ceil(layers) * layers;
    let want = expected(r_layers * recurrent_layer + (layers - r_layers) * attention_layer) as i128
        - expected(layers * attention_layer) as i128;
    assert_eq!(
        i128::from(hybrid) - i128::from(attention),
        want,
        "{formula}"
    );
    // LFM2 at b 2 × s 130, bf16: a short-convolution layer keeps 187,264 B
    // less than an attention layer (measured mixer 227,072 B + norms).
    // LFM2 at b 2 × s 130, bf16: a short-convolution layer keeps 1,000,992 B
    // (measured norms and mixer, and the gated MLP's terms) against 904,800
    // for an SDPA attention layer: the two conv layers add 192,384 B.
    assert_eq!((recurrent_layer, attention_layer), (1_000_992, 904_800));
    assert_eq!(want, 192_384);
    assert!(formula.contains("2 recurrent layers"), "{formula}");
    assert!(formula.contains("2 attention layers"), "{formula}");
}

/// Gated DeltaNet through flash-linear-attention on an H100
/// (`data/recurrent_acts/fused_fla.jsonl`: fla 0.6.0, torch 2.11,
/// transformers 5.24, bf16, no causal_conv1d installed, so the convolution
/// ran transformers' torch fallback): our fused terms, with the torch
/// convolution's padded output in place of `CausalConv1dFn`'s nothing,
/// equal the measured mixer bytes.
#[test]
fn fla_gated_deltanet_keeps_what_the_fused_terms_say() {
    let text = std::fs::read_to_string(data_dir().join("recurrent_acts/fused_fla.jsonl"))
        .expect("GPU measurements");
    let mut checked = 0;
    for line in text.lines() {
        let line: serde_json::Value = serde_json::from_str(line).expect("json line");
        let model_type = line["model_type"].as_str().unwrap_or_default().to_owned();
        let spec = from_hf_config(&resolved_config(&model_type, &line["config"])).expect("spec");
        let r = Row {
            model_type,
            spec,
            fp32: false,
            batch: line["batch"].as_u64().unwrap_or(1),
            seq: line["seq"].as_u64().unwrap_or(1),
            line,
        };
        let rec = r.spec.recurrent.as_ref().expect("Gated DeltaNet");
        let fused: u128 = mixer_terms(&shape(&r), rec, MixerKernels::Fused)
            .iter()
            .map(|t| t.bytes)
            .sum();
        // The torch causal_conv1d_fn's output (b, conv channels, s + K − 1),
        // kept by the activation; the conv channels are q, k and v.
        let channels = 2 * u128::from(rec.groups * rec.state) + u128::from(rec.inner);
        let torch_conv = 2
            * u128::from(r.batch)
            * channels
            * (u128::from(r.seq) + u128::from(rec.conv_kernel) - 1);
        for (mixer, _) in measured_recurrent_layers(&r) {
            assert_eq!(
                fused + torch_conv,
                mixer,
                "{} b={} s={}",
                r.model_type,
                r.batch,
                r.seq
            );
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked} layers");
}

/// Kimi Delta Attention through flash-linear-attention's `chunk_kda`, read
/// from its `ChunkKDAFunction.save_for_backward` (not measured: fla needs a
/// GPU): at the class defaults' widths (32 heads of 128, hidden 2304) and
/// 4096 bf16 tokens, a trained layer's mixer keeps its input (18,874,368 B),
/// the low-rank gates' and out_proj's inputs (35,651,584), the conv input
/// (100,663,296), the forget gate and beta (218,366,208), q, k and v with
/// the two rstd (101,711,872), the gate and its cumsum in fp32
/// (134,217,728), Aqk and Akk of 64 per token and head (33,554,432) and the
/// gated norm (268,960,256): 0.89 GiB, where the PyTorch path's
/// per-channel decay products keep 14.6 GiB.
#[test]
fn fla_kimi_delta_keeps_its_chunk_products_not_the_decay_cubes() {
    let spec = from_hf_config(&resolved_config("kimi_linear", &serde_json::json!({})))
        .expect("Kimi-Linear");
    let rec = spec.recurrent.as_ref().expect("KDA layers");
    let layer = common::plain_layer_shape(&spec, 1, 4096, 2);
    let bytes = |kernels| -> u128 {
        mixer_terms(&layer, rec, kernels)
            .iter()
            .map(|t| t.bytes)
            .sum()
    };
    assert_eq!(bytes(MixerKernels::Fused), 911_999_744);
    assert!(bytes(MixerKernels::Torch) > 14 * (1 << 30));
}

/// HRM-Text's runs (`data/looped/hrm_text_acts.out`): only the runs that
/// keep autograd save, each one ordinary layer's bytes: 82,176 B eager and
/// 74,496 B with SDPA at batch 2, 16 tokens, hidden 32 in fp32 (the first
/// saving run 1,024 B more, the shared rotary table). Our saving runs equal
/// the measured count, and one more of them adds exactly one measured run.
#[test]
fn hrm_text_saves_only_its_gradient_runs() {
    let base = r#""model_type":"hrm_text","vocab_size":128,"hidden_size":32,"intermediate_size":64,"num_attention_heads":4,"head_dim":8,"prefix_lm":false"#;
    // (cycles, runs that save, runs computed)
    let measured = [
        (r#""num_hidden_layers":2,"H_cycles":2,"L_cycles":3"#, 10, 16),
        (
            r#""num_hidden_layers":1,"H_cycles":3,"L_cycles":4,"L_bp_cycles":[2,3]"#,
            9,
            15,
        ),
        (
            r#""num_hidden_layers":2,"H_cycles":1,"L_cycles":2,"L_bp_cycles":[5]"#,
            6,
            6,
        ),
        (
            r#""num_hidden_layers":1,"H_cycles":2,"L_cycles":2,"L_bp_cycles":[0,0]"#,
            2,
            6,
        ),
    ];
    for (cycles, saving, computed) in measured {
        let spec = from_hf_config(&format!("{{{base},{cycles}}}")).expect("imports");
        assert_eq!(spec.saving_runs(), saving, "{cycles}");
        assert_eq!(spec.layers, computed, "{cycles}: a cache slot per run");
        for (attention, per_run) in [
            (vramfit_core::scenario::Attention::Eager, 82_176),
            (vramfit_core::scenario::Attention::Sdpa, 74_496),
        ] {
            let activations = |runs: u64| {
                let mut s = spec.clone();
                s.grad_runs = Some(runs);
                let mut sc = Scenario {
                    model: ModelSource::Spec(Box::new(s)),
                    task: TaskKind::Training,
                    training_precision: TrainingPrecision::Fp32,
                    weights: WeightFormat::Fp32,
                    attention,
                    ..Scenario::default()
                };
                sc.training.micro_batch = 2;
                sc.training.seq_len = 16;
                let e = estimate(&sc).expect("estimates");
                e.headline_gpu()
                    .lines
                    .iter()
                    .find(|l| l.part == Part::Activations)
                    .map_or(0, |l| l.bytes)
            };
            if saving > 1 {
                assert_eq!(
                    activations(saving) - activations(saving - 1),
                    per_run,
                    "{cycles} {attention:?}"
                );
            }
        }
    }
}
