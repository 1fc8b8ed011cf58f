//! Solvers against direct estimates: the fast fit table must agree with
//! solving every card on its own, and "largest that fits" must be tight.

use vramfit_core::estimate::{estimate, resolve_model};
use vramfit_core::scenario::{Checkpointing, Method, ModelSource, Scenario, TaskKind};
use vramfit_core::solver::{fit_table, max_context, max_micro_batch, min_gpus};

fn lora_7b() -> Scenario {
    let mut s = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    s.training.method = Method::Lora;
    s.training.seq_len = 2048;
    s.training.checkpointing = Checkpointing::Full;
    s
}

fn used_on(s: &Scenario, gpu: &str) -> u64 {
    let mut s = s.clone();
    s.gpu.name = Some(gpu.into());
    estimate(&s).unwrap().headline_gpu().device_used_bytes
}

#[test]
fn fit_table_matches_per_card_solves() {
    for task in [TaskKind::Training, TaskKind::Inference] {
        let mut sc = lora_7b();
        sc.task = task;
        let spec = resolve_model(&sc.model).unwrap();
        let rows = fit_table(&sc).unwrap();
        assert!(rows.len() >= 30);
        for row in &rows {
            let direct = used_on(&sc, &row.gpu_id);
            assert_eq!(row.device_used_bytes, direct, "{}", row.gpu_id);
            assert_eq!(row.fits, direct <= row.capacity_bytes, "{}", row.gpu_id);
            let mut on_card = sc.clone();
            on_card.gpu.name = Some(row.gpu_id.clone());
            let solved = match task {
                TaskKind::Training => max_micro_batch(&on_card, &spec, row.capacity_bytes).unwrap(),
                TaskKind::Inference => max_context(&on_card, &spec, row.capacity_bytes).unwrap(),
            };
            assert_eq!(row.largest, solved, "{} {:?}", row.gpu_id, task);
        }
    }
}

#[test]
fn largest_micro_batch_is_tight() {
    let sc = lora_7b();
    let spec = resolve_model(&sc.model).unwrap();
    let capacity = 80u64 << 30;
    let mut s = sc.clone();
    s.gpu.memory_bytes = Some(capacity);
    let b = max_micro_batch(&s, &spec, capacity)
        .unwrap()
        .expect("a 7B LoRA fits on 80 GiB");
    let at = |mb: u64| {
        let mut t = s.clone();
        t.training.micro_batch = mb;
        estimate(&t).unwrap().headline_gpu().device_used_bytes
    };
    assert!(at(b) <= capacity);
    assert!(at(b + 1) > capacity);
    // Llama-2-7B in bf16 is 13.5 GB of weights: a 16 GiB card leaves room for
    // a few sequences of 2048 tokens with checkpointing, an 8 GiB card none.
    assert!(max_micro_batch(&s, &spec, 8 << 30).unwrap().is_none());
}

#[test]
fn fewest_gpus_for_a_70b_full_fine_tune() {
    let mut sc = lora_7b();
    sc.model = ModelSource::Catalog("meta-llama/Llama-2-70b-hf".into());
    sc.training.method = Method::Full;
    let spec = resolve_model(&sc.model).unwrap();
    // 69 B params × (2 weights + 2 grads + 4 bf16 Adam states) = 552 GB: at
    // least eight 80 GiB cards under ZeRO-3, and a power of two.
    let n = min_gpus(&sc, &spec, 80 << 30)
        .unwrap()
        .expect("fits on some count");
    assert!(n >= 8 && n.is_power_of_two(), "{n}");
}

/// The chart's sweep and the fit table answer the same question: at the
/// longest context `max_context` finds, the sweep's split of a context into
/// prompt and new tokens gives the same memory as the solver's, so the chart
/// crosses the card where the table says.
#[test]
fn sweep_and_solver_split_a_context_alike() {
    use vramfit_core::solver::{max_context, sweep, SweepAxis};
    let mut sc = vramfit_core::Scenario::default();
    // More new tokens than half of the chart's first contexts: the old chart
    // rule (new ≤ ctx/2) and the solver's (new ≤ ctx − 1) differ here.
    sc.inference.new_tokens = 1500;
    sc.inference.batch = 8;
    let spec = vramfit_core::estimate::resolve_model(&sc.model).expect("catalog model");
    let points = sweep(&sc, &spec);
    assert_eq!(SweepAxis::of(sc.task), SweepAxis::Context);
    assert!(points.windows(2).all(|w| w[0].1 <= w[1].1), "{points:?}");
    // At context 2048 the solver keeps all 1500 new tokens (prompt 548).
    let mut direct = sc.clone();
    direct.inference.prompt_len = 548;
    let used = vramfit_core::estimate(&direct)
        .expect("estimates")
        .headline_gpu()
        .device_used_bytes;
    assert_eq!(points.iter().find(|p| p.0 == 2048).map(|p| p.1), Some(used));
    // A card just big enough for context 4096: the solver's answer is 4096
    // or a little more, and the sweep's 4096 point fits it.
    let at_4096 = points
        .iter()
        .find(|p| p.0 == 4096)
        .map(|p| p.1)
        .expect("4096 swept");
    let best = max_context(&sc, &spec, at_4096)
        .expect("solves")
        .expect("fits");
    assert!(best >= 4096, "{best}");
    // Training sweeps the micro-batch, starting at the scenario's estimate.
    let mut train = sc.clone();
    train.task = vramfit_core::scenario::TaskKind::Training;
    let batch = sweep(&train, &spec);
    assert_eq!(batch.first().map(|p| p.0), Some(1));
    train.training.micro_batch = 1;
    let one = vramfit_core::estimate(&train)
        .expect("estimates")
        .headline_gpu()
        .device_used_bytes;
    assert_eq!(batch.first().map(|p| p.1), Some(one));
}

/// No solver answer goes past the model: Llama-3.1-8B takes 131,072 tokens,
/// so an 80 GB card that could hold more says the model is the bound.
#[test]
fn the_longest_context_stops_at_the_models_limit_and_says_so() {
    use vramfit_core::solver::{context_limit, fit_table, max_context};
    let sc = vramfit_core::Scenario::default();
    let spec = vramfit_core::estimate::resolve_model(&sc.model).expect("catalog model");
    assert_eq!(context_limit(&spec), 131_072);
    let big = max_context(&sc, &spec, 80 << 30).expect("solves");
    assert_eq!(big, Some(131_072));
    let rows = fit_table(&sc).expect("table");
    let h100 = rows
        .iter()
        .find(|r| r.gpu_id == "h100-sxm5-80gb")
        .expect("h100 row");
    assert_eq!(h100.largest, Some(131_072));
    assert!(h100.model_bound);
    // A small card is bound by its memory, below the model's limit.
    let small = rows
        .iter()
        .find(|r| r.gpu_id == "rtx-4090")
        .expect("4090 row");
    assert!(
        small.largest.is_some_and(|n| n < 131_072) && !small.model_bound,
        "{small:?}"
    );
}

/// Serving on 4 GPUs with tensor parallel at 1 is 4 full copies: the
/// estimate says so and names the split that would share the model.
#[test]
fn serving_replicas_are_named_with_the_split_that_shares_the_model() {
    let mut sc = vramfit_core::Scenario::default();
    sc.parallel.gpus = 4;
    let e = vramfit_core::estimate(&sc).expect("estimates");
    let note = e
        .notes
        .iter()
        .find(|n| n.code == "serving_replicas")
        .expect("noted");
    assert!(
        note.message.contains("tensor parallel to 4"),
        "{}",
        note.message
    );
    assert_eq!(vramfit_core::estimate::tensor_parallel_for(6, 32), Some(2));
    assert_eq!(vramfit_core::estimate::tensor_parallel_for(3, 32), None);
    sc.parallel.tp = 4;
    let split = vramfit_core::estimate(&sc).expect("estimates");
    assert!(split.notes.iter().all(|n| n.code != "serving_replicas"));
}
