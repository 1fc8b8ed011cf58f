//! Properties every estimate must have, over random scenarios (proptest).

use proptest::prelude::*;
use vramfit_core::estimate::estimate_with_model;
use vramfit_core::model::{Arch, MlpKind, ModelSpec, NormKind};
use vramfit_core::precision::{Dtype, TrainingPrecision, WeightFormat};
use vramfit_core::report::{Estimate, Part};
use vramfit_core::scenario::{
    Attention, Checkpointing, Framework, Method, Optimizer, Scenario, Strategy as Sharding,
    TaskKind,
};

/// A Llama-shaped model from a few free dimensions.
fn spec(layers: u64, hidden_heads: u64, kv_div: u64, vocab: u64) -> ModelSpec {
    let heads = hidden_heads;
    ModelSpec {
        name: "prop".into(),
        arch: Arch::Llama,
        hidden: heads * 64,
        layers,
        heads,
        kv_heads: heads / kv_div,
        intermediate: heads * 64 * 8 / 3,
        vocab,
        max_position: 4096,
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        ..ModelSpec::default()
    }
}

fn arb_spec() -> impl Strategy<Value = ModelSpec> {
    (
        1u64..48,
        prop::sample::select(vec![8u64, 16, 32, 64]),
        prop::sample::select(vec![1u64, 2, 4, 8]),
        1000u64..160_000,
    )
        .prop_map(|(l, h, kv, v)| spec(l, h, kv, v))
}

/// Real LLM widths (2048 and 4096).
fn arb_wide_spec() -> impl Strategy<Value = ModelSpec> {
    (
        1u64..48,
        prop::sample::select(vec![32u64, 64]),
        prop::sample::select(vec![1u64, 2, 4, 8]),
        1000u64..160_000,
    )
        .prop_map(|(l, h, kv, v)| spec(l, h, kv, v))
}

fn arb_training() -> impl Strategy<Value = Scenario> {
    (
        1u64..16,
        1u64..4096,
        prop::sample::select(vec![Method::Full, Method::Lora, Method::Qlora]),
        prop::sample::select(vec![
            Optimizer::Adamw,
            Optimizer::Sgd,
            Optimizer::Adamw8bit,
            Optimizer::Adafactor,
        ]),
        prop::sample::select(vec![
            TrainingPrecision::Pure16,
            TrainingPrecision::Amp,
            TrainingPrecision::Fp32,
        ]),
        prop::sample::select(vec![Attention::Eager, Attention::Sdpa, Attention::Flash]),
        prop::sample::select(vec![
            Checkpointing::Off,
            Checkpointing::Full,
            Checkpointing::Selective,
        ]),
        prop::sample::select(vec![
            Framework::Transformers,
            Framework::Litgpt,
            Framework::Torchtune,
            Framework::HfTrainer,
        ]),
    )
        .prop_map(|(mb, seq, method, opt, prec, attn, ckpt, fw)| {
            let mut s = Scenario {
                task: TaskKind::Training,
                training_precision: prec,
                attention: attn,
                ..Scenario::default()
            };
            s.weights = if prec == TrainingPrecision::Pure16 {
                WeightFormat::Bf16
            } else {
                WeightFormat::Fp32
            };
            s.training.micro_batch = mb;
            s.training.seq_len = seq;
            s.training.method = method;
            s.training.optimizer = opt;
            s.training.checkpointing = ckpt;
            s.training.framework = fw;
            s
        })
}

/// Device used never falls with `extra` more sequences or `extra × 64`
/// more tokens per sequence.
fn grows_with_batch_and_sequence(
    spec: &ModelSpec,
    sc: &Scenario,
    extra: u64,
) -> Result<(), TestCaseError> {
    let base = used(&estimate_with_model(sc, spec).unwrap());
    let mut bigger = sc.clone();
    bigger.training.micro_batch += extra;
    prop_assert!(used(&estimate_with_model(&bigger, spec).unwrap()) >= base);
    let mut longer = sc.clone();
    longer.training.seq_len += extra * 64;
    prop_assert!(used(&estimate_with_model(&longer, spec).unwrap()) >= base);
    Ok(())
}

fn used(e: &Estimate) -> u64 {
    e.headline_gpu().device_used_bytes
}

fn part(e: &Estimate, p: Part) -> u64 {
    e.headline_gpu()
        .lines
        .iter()
        .filter(|l| l.part == p)
        .map(|l| l.bytes)
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn totals_are_ordered(spec in arb_spec(), sc in arb_training()) {
        let e = estimate_with_model(&sc, &spec).unwrap();
        let g = e.headline_gpu();
        prop_assert!(g.peak_allocated_bytes > 0);
        prop_assert!(g.peak_allocated_bytes <= g.peak_reserved_bytes);
        prop_assert!(g.peak_reserved_bytes <= g.device_used_bytes);
    }

    #[test]
    fn memory_grows_with_batch_and_sequence(spec in arb_spec(), sc in arb_training(), extra in 1u64..8) {
        grows_with_batch_and_sequence(&spec, &sc, extra)?;
    }

    /// FSDP's reduce-scatter inputs take new segments while the loss's
    /// freed blocks are smaller than them: the envelope over fewer tokens
    /// keeps the estimate from falling when more tokens make them fit.
    #[test]
    fn fsdp_memory_grows_with_batch_and_sequence(spec in arb_spec(), sc in arb_training(), extra in 1u64..8, gpus in prop::sample::select(vec![1u64, 2, 8])) {
        let mut sc = sc;
        sc.parallel.gpus = gpus;
        sc.parallel.strategy = Sharding::Fsdp;
        grows_with_batch_and_sequence(&spec, &sc, extra)?;
    }

    #[test]
    fn memory_grows_with_layers_and_hidden(spec in arb_spec(), sc in arb_training()) {
        let base = used(&estimate_with_model(&sc, &spec).unwrap());
        let deeper = ModelSpec { layers: spec.layers + 1, ..spec.clone() };
        prop_assert!(used(&estimate_with_model(&sc, &deeper).unwrap()) >= base);
        let wider = ModelSpec { heads: spec.heads * 2, kv_heads: spec.kv_heads * 2, hidden: spec.hidden * 2, intermediate: spec.intermediate * 2, ..spec.clone() };
        prop_assert!(used(&estimate_with_model(&sc, &wider).unwrap()) >= base);
    }

    #[test]
    fn zero_stages_shard_more_memory(spec in arb_spec(), sc in arb_training(), gpus in prop::sample::select(vec![2u64, 4, 8])) {
        let at = |strategy| {
            let mut s = sc.clone();
            s.parallel.gpus = gpus;
            s.parallel.strategy = strategy;
            used(&estimate_with_model(&s, &spec).unwrap())
        };
        let (ddp, z1, z2, z3) = (at(Sharding::Ddp), at(Sharding::Zero1), at(Sharding::Zero2), at(Sharding::Zero3));
        // ZeRO-3 allocates its gradient bucket once and gathers into new
        // tensors beside its own partition (the workspace lines), which a
        // model too small to shard usefully does not repay: it may exceed
        // ZeRO-2 by those, its partition and the allocator's share of them.
        let mut s3 = sc.clone();
        s3.parallel.gpus = gpus;
        s3.parallel.strategy = Sharding::Zero3;
        let e3 = estimate_with_model(&s3, &spec).unwrap();
        let part = |p: Part| -> u64 { e3.headline_gpu().lines.iter().filter(|l| l.part == p).map(|l| l.bytes).sum() };
        let extra = 2 * part(Part::Workspace) + part(Part::Weights);
        prop_assert!(z3 <= z2 + extra, "zero3 {z3} > zero2 {z2} + {extra}");
        prop_assert!(z2 <= z1, "zero2 {z2} > zero1 {z1}");
        prop_assert!(z1 <= ddp, "zero1 {z1} > ddp {ddp}");
    }

    #[test]
    fn checkpointing_never_adds_activations(spec in arb_spec(), sc in arb_training()) {
        let with = |c| {
            let mut s = sc.clone();
            s.training.checkpointing = c;
            part(&estimate_with_model(&s, &spec).unwrap(), Part::Activations)
        };
        prop_assert!(with(Checkpointing::Full) <= with(Checkpointing::Off));
        prop_assert!(with(Checkpointing::Selective) <= with(Checkpointing::Off));
    }

    /// From 128 tokens up. Below about (2·head_dim + 4)/6 tokens a fused
    /// kernel's saved output (s·d per head) really is larger than eager's
    /// s² scores, and the estimate says so.
    #[test]
    fn flash_never_exceeds_eager(spec in arb_spec(), sc in arb_training(), seq in 128u64..4096) {
        let with = |a| {
            let mut s = sc.clone();
            s.training.seq_len = seq;
            s.attention = a;
            used(&estimate_with_model(&s, &spec).unwrap())
        };
        prop_assert!(with(Attention::Flash) <= with(Attention::Eager));
        prop_assert!(with(Attention::Sdpa) <= with(Attention::Eager));
    }

    /// LoRA on q and v (the default targets) at any rank, with AdamW, on
    /// models 2048 wide and up. Outside that the estimate can rightly put
    /// LoRA above full fine-tuning: LoRA dropout keeps input copies that full
    /// fine-tuning does not, so with stateless SGD, on toy widths, or with
    /// every linear adapted at tens of thousands of tokens per micro-batch,
    /// those copies outweigh the optimizer states LoRA spares.
    #[test]
    fn lora_never_exceeds_full_fine_tuning(spec in arb_wide_spec(), sc in arb_training(), rank in prop::sample::select(vec![8u64, 64, 256])) {
        let with = |m| {
            let mut s = sc.clone();
            s.training.optimizer = Optimizer::Adamw;
            s.training.lora.rank = rank;
            s.training.method = m;
            used(&estimate_with_model(&s, &spec).unwrap())
        };
        prop_assert!(with(Method::Lora) <= with(Method::Full));
    }

    #[test]
    fn inference_grows_with_context(spec in arb_spec(), batch in 1u64..32, prompt in 1u64..8192, new in 0u64..4096, kv in prop::sample::select(vec![Dtype::Bf16, Dtype::Fp8, Dtype::Fp32])) {
        let mut s = Scenario { task: TaskKind::Inference, ..Scenario::default() };
        s.inference.batch = batch;
        s.inference.prompt_len = prompt;
        s.inference.new_tokens = new;
        s.inference.kv_cache_dtype = Some(kv);
        let base = used(&estimate_with_model(&s, &spec).unwrap());
        s.inference.new_tokens += 128;
        prop_assert!(used(&estimate_with_model(&s, &spec).unwrap()) >= base);
    }

    /// Any numbers at all, absurd ones included: an error or an estimate,
    /// never a panic or an overflow.
    #[test]
    fn absurd_inputs_error_instead_of_panicking(
        layers in prop::sample::select(vec![0u64, 1, 80, 10_000, 1_000_000_000_000_000]),
        hidden in prop::sample::select(vec![0u64, 7, 4096, 1 << 24, u64::MAX]),
        heads in prop::sample::select(vec![0u64, 3, 32, 1 << 20]),
        kv_heads in prop::sample::select(vec![0u64, 1, 8, 64]),
        vocab in prop::sample::select(vec![0u64, 32_000, u64::MAX]),
        batch in prop::sample::select(vec![0u64, 1, 65_536, u64::MAX]),
        seq in prop::sample::select(vec![0u64, 1, 1 << 24, u64::MAX]),
        gpus in prop::sample::select(vec![0u64, 1, 3, 1 << 40]),
        tp in prop::sample::select(vec![0u64, 1, 2, 7]),
        training in any::<bool>(),
    ) {
        let spec = ModelSpec { name: "absurd".into(), hidden, layers, heads, kv_heads, intermediate: hidden, vocab, ..spec(2, 8, 1, 1000) };
        let mut s = Scenario { task: if training { TaskKind::Training } else { TaskKind::Inference }, ..Scenario::default() };
        s.training.micro_batch = batch;
        s.training.seq_len = seq;
        s.inference.batch = batch;
        s.inference.prompt_len = seq;
        s.parallel.gpus = gpus;
        s.parallel.tp = tp;
        match estimate_with_model(&s, &spec) {
            Ok(e) => {
                let g = e.headline_gpu();
                prop_assert!(g.peak_allocated_bytes <= g.device_used_bytes);
            }
            Err(err) => prop_assert!(!err.field.is_empty() && !err.message.is_empty()),
        }
    }
}
