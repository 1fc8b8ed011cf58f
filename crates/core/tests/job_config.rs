//! Training configs (HF TrainingArguments, DeepSpeed, torchtune, axolotl) read
//! into scenarios, and hostile inputs refused quickly.

use std::time::{Duration, Instant};

use vramfit_core::job_config::{read_job_config, JobConfig, JobFormat, MAX_INPUT_BYTES};
use vramfit_core::precision::{Dtype, TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, Checkpointing, Framework, LoraTarget, Method, ModelSource, Offload, Optimizer,
    Scenario, Strategy, TaskKind,
};
use vramfit_core::InputError;

fn read(name: &str) -> JobConfig {
    let path = format!(
        "{}/tests/data/job_configs/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture");
    read_job_config(&text, None, Scenario::default()).expect(name)
}

fn read_text(text: &str) -> Result<JobConfig, InputError> {
    read_job_config(text, None, Scenario::default())
}

fn ignored<'a>(job: &'a JobConfig, key: &str) -> Option<&'a Option<String>> {
    job.ignored.iter().find(|i| i.key == key).map(|i| &i.reason)
}

fn read_into<'a>(job: &'a JobConfig, key: &str) -> Vec<&'a str> {
    job.read
        .iter()
        .filter(|r| r.key == key)
        .map(|r| r.field)
        .collect()
}

#[test]
fn trl_qlora_arguments() {
    let job = read("hf_trl_qlora.json");
    assert_eq!(job.format, JobFormat::HfTrainingArgs);
    let sc = &job.scenario;
    assert_eq!(
        sc.model,
        ModelSource::Catalog("meta-llama/Llama-3.1-8B".into())
    );
    assert_eq!(sc.task, TaskKind::Training);
    let t = &sc.training;
    assert_eq!((t.micro_batch, t.grad_accum, t.seq_len), (4, 8, 2048));
    assert_eq!(t.checkpointing, Checkpointing::Full);
    assert_eq!(
        (t.optimizer, t.fused_optimizer),
        (Optimizer::PagedAdamw8bit, false)
    );
    assert_eq!(t.method, Method::Qlora);
    assert_eq!((t.lora.rank, t.lora.dropout), (16, 0.05));
    assert_eq!(t.lora.targets, LoraTarget::ATTENTION);
    // 4-bit weights over a bf16 load: pure 16-bit compute, NF4 with double quant.
    assert_eq!(sc.weights, WeightFormat::Nf4);
    assert!(sc.double_quant);
    assert_eq!(sc.compute_dtype, Dtype::Bf16);
    assert_eq!(sc.training_precision, TrainingPrecision::Pure16);
    assert_eq!(sc.attention, Attention::Flash);
    assert_eq!(
        read_into(&job, "load_in_4bit"),
        ["weights", "training.method"]
    );
    assert_eq!(ignored(&job, "learning_rate"), Some(&None));
    assert_eq!(ignored(&job, "lora_alpha"), Some(&None));
    assert_eq!(
        ignored(&job, "gradient_checkpointing_kwargs.use_reentrant"),
        Some(&None)
    );
    sc.validate().expect("a valid scenario");
}

#[test]
fn trainer_arguments_with_a_zero3_deepspeed_mapping_of_autos() {
    let job = read("hf_zero3_auto.json");
    assert_eq!(job.format, JobFormat::HfTrainingArgs);
    assert_eq!(job.model, None);
    let sc = &job.scenario;
    let t = &sc.training;
    assert_eq!((t.micro_batch, t.grad_accum), (2, 4));
    assert_eq!((t.optimizer, t.fused_optimizer), (Optimizer::Adamw, true));
    assert_eq!(t.checkpointing, Checkpointing::Off);
    assert_eq!(t.framework, Framework::Deepspeed);
    // bf16 through DeepSpeed: 16-bit module weights, fp32 master in the optimizer.
    assert_eq!(
        (sc.weights, sc.compute_dtype, sc.training_precision),
        (WeightFormat::Bf16, Dtype::Bf16, TrainingPrecision::Amp)
    );
    assert_eq!(sc.parallel.strategy, Strategy::Zero3);
    assert_eq!(sc.parallel.offload, Offload::Optimizer);
    let auto = ignored(&job, "deepspeed.train_micro_batch_size_per_gpu")
        .cloned()
        .flatten()
        .expect("auto has a reason");
    assert!(auto.starts_with("\"auto\""), "{auto}");
    let compile = ignored(&job, "torch_compile").cloned().flatten().unwrap();
    assert!(compile.contains("does not model"), "{compile}");
    assert_eq!(
        ignored(&job, "deepspeed.zero_optimization.overlap_comm"),
        Some(&None)
    );
}

#[test]
fn a_deepspeed_config_gives_the_gpu_count_from_the_global_batch() {
    let job = read("ds_config_zero2.json");
    assert_eq!(job.format, JobFormat::Deepspeed);
    let sc = &job.scenario;
    // 64 = 2 per GPU × 4 accumulation steps × 8 GPUs.
    assert_eq!(sc.parallel.gpus, 8);
    assert_eq!(read_into(&job, "train_batch_size"), ["parallel.gpus"]);
    assert_eq!(
        (sc.weights, sc.compute_dtype, sc.training_precision),
        (WeightFormat::Fp16, Dtype::Fp16, TrainingPrecision::Amp)
    );
    assert_eq!(
        (sc.parallel.strategy, sc.parallel.offload),
        (Strategy::Zero2, Offload::Optimizer)
    );
    assert_eq!(sc.training.optimizer, Optimizer::Adamw);
    assert_eq!(ignored(&job, "optimizer.params.lr"), Some(&None));
    assert_eq!(ignored(&job, "fp16.loss_scale"), Some(&None));
}

#[test]
fn a_torchtune_qlora_recipe() {
    let job = read("torchtune_llama3_1_8b_qlora.yaml");
    assert_eq!(job.format, JobFormat::Torchtune);
    assert_eq!(job.model.as_deref(), Some("meta-llama/Llama-3.1-8B"));
    let sc = &job.scenario;
    assert_eq!(
        sc.model,
        ModelSource::Catalog("meta-llama/Llama-3.1-8B".into())
    );
    let t = &sc.training;
    assert_eq!(t.framework, Framework::Torchtune);
    assert_eq!((t.method, sc.weights), (Method::Qlora, WeightFormat::Nf4));
    // torchtune's LoRA dropout default is 0; the recipe does not set it.
    assert_eq!((t.lora.rank, t.lora.dropout), (8, 0.0));
    let mut targets = LoraTarget::ATTENTION.to_vec();
    targets.extend(LoraTarget::MLP);
    let mut got = t.lora.targets.clone();
    got.sort_by_key(|t| format!("{t:?}"));
    targets.sort_by_key(|t| format!("{t:?}"));
    assert_eq!(got, targets);
    assert_eq!((t.micro_batch, t.grad_accum, t.seq_len), (2, 16, 4096));
    assert_eq!(
        (sc.compute_dtype, sc.training_precision),
        (Dtype::Bf16, TrainingPrecision::Pure16)
    );
    assert_eq!(t.checkpointing, Checkpointing::Full);
    assert!(!t.activation_offload);
    assert_eq!((t.optimizer, t.fused_optimizer), (Optimizer::Adamw, true));
    assert!(t.chunked_loss);
    assert!(ignored(&job, "compile").cloned().flatten().is_some());
    assert_eq!(ignored(&job, "checkpointer.checkpoint_files"), Some(&None));
    assert_eq!(ignored(&job, "model.lora_alpha"), Some(&None));
    sc.validate().expect("a valid scenario");
}

#[test]
fn an_axolotl_qlora_config() {
    let job = read("axolotl_mistral_qlora.yaml");
    assert_eq!(job.format, JobFormat::Axolotl);
    let sc = &job.scenario;
    assert_eq!(
        sc.model,
        ModelSource::Catalog("mistralai/Mistral-7B-v0.1".into())
    );
    let t = &sc.training;
    assert_eq!((t.method, sc.weights), (Method::Qlora, WeightFormat::Nf4));
    // axolotl quantizes QLoRA's base with double quantization.
    assert!(sc.double_quant);
    assert_eq!((t.lora.rank, t.lora.dropout), (32, 0.05));
    assert_eq!(t.lora.targets.len(), 7, "lora_target_linear: every linear");
    assert_eq!((t.micro_batch, t.grad_accum, t.seq_len), (2, 4, 4096));
    assert_eq!(t.optimizer, Optimizer::Adamw8bit);
    // bf16: auto is bf16.
    assert_eq!(
        (sc.compute_dtype, sc.training_precision),
        (Dtype::Bf16, TrainingPrecision::Pure16)
    );
    assert_eq!(t.checkpointing, Checkpointing::Full);
    assert_eq!(sc.attention, Attention::Flash);
    assert_eq!(ignored(&job, "datasets"), Some(&None));
    assert_eq!(ignored(&job, "sample_packing"), Some(&None));
    sc.validate().expect("a valid scenario");
}

#[test]
fn a_deepspeed_file_applies_over_the_trainer_arguments() {
    let args = read_text(r#"{"output_dir": "o", "per_device_train_batch_size": 3, "bf16": true}"#)
        .expect("args");
    let ds = read_job_config(
        r#"{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 1}}"#,
        None,
        args.scenario,
    )
    .expect("ds");
    assert_eq!(ds.scenario.training.micro_batch, 3);
    assert_eq!(ds.scenario.parallel.strategy, Strategy::Zero1);
    assert_eq!(ds.scenario.compute_dtype, Dtype::Bf16);
}

#[test]
fn unknown_keys_and_values_are_named() {
    let job = read_text(
        r#"{"per_device_train_batch_size": 1, "my_flag": 3, "optim": "galore_adamw", "lora_target_modules": ["c_attn"]}"#,
    )
    .expect("reads");
    assert_eq!(ignored(&job, "my_flag"), Some(&None));
    let optim = ignored(&job, "optim").cloned().flatten().unwrap();
    assert!(optim.contains("galore_adamw"), "{optim}");
    let modules = ignored(&job, "lora_target_modules")
        .cloned()
        .flatten()
        .unwrap();
    assert!(modules.contains("c_attn"), "{modules}");
    assert_eq!(job.scenario.training.optimizer, Optimizer::Adamw);
}

#[test]
fn bad_values_name_the_key_and_the_field() {
    let err = read_text("base_model: gpt2\nmicro_batch_size: 0\n").expect_err("0");
    assert_eq!(err.field, "micro_batch_size (training.micro_batch)");
    assert_eq!(err.message, "\"0\" is not a whole number from 1 to 65536");
    let err = read_text(r#"{"zero_optimization": {"stage": 4}}"#).expect_err("stage 4");
    assert_eq!(err.field, "zero_optimization.stage");
    let err =
        read_text(r#"{"train_batch_size": 8, "fp16": {"enabled": "maybe"}}"#).expect_err("maybe");
    assert_eq!(err.field, "fp16.enabled");
    let err = read_text(r#"{"lr": 1}"#).expect_err("which framework");
    assert!(
        err.message.starts_with("cannot tell which framework"),
        "{}",
        err.message
    );
    let err = read_text("- a\n- b\n").expect_err("a list");
    assert!(err.message.contains("mapping"), "{}", err.message);
}

/// Runs `f`, asserting it returns an error within two seconds (a debug build).
fn refused_quickly(what: &str, f: impl FnOnce() -> Result<JobConfig, InputError>) -> InputError {
    let start = Instant::now();
    let err = f().expect_err(what);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{what} took {:?}",
        start.elapsed()
    );
    err
}

#[test]
fn a_billion_laughs_yaml_stops_at_the_node_budget() {
    let mut text = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(", ");
        text += &format!("{}: &{} [{refs}]\n", pair[1], pair[1]);
    }
    text += "base_model: gpt2\n";
    let err = refused_quickly("billion laughs", || read_text(&text));
    assert!(
        err.message.contains("expands to more than"),
        "{}",
        err.message
    );
}

#[test]
fn a_100_mb_config_is_refused_before_parsing() {
    let text = format!("base_model: \"{}\"\n", "x".repeat(100 << 20));
    let err = refused_quickly("100 MB", || read_text(&text));
    assert!(
        err.message
            .contains(&format!("allowed at most {MAX_INPUT_BYTES} bytes")),
        "{}",
        err.message
    );
}

#[test]
fn deep_nesting_is_refused() {
    // The scanner's own limit on flow nesting (255) or ours, whichever first.
    let flow = "[".repeat(200_000);
    let err = refused_quickly("deep flow YAML", || read_text(&flow));
    assert!(
        err.message.contains("nests deeper") || err.message.contains("recursion limit"),
        "{}",
        err.message
    );
    let block: String = (0..100)
        .map(|depth| format!("{}k{depth}:\n", "  ".repeat(depth)))
        .collect();
    let err = refused_quickly("deep block YAML", || read_text(&block));
    assert!(err.message.contains("nests deeper"), "{}", err.message);
    let json = "{\"a\":".repeat(100_000);
    let err = refused_quickly("deep JSON", || read_text(&json));
    assert!(err.message.starts_with("not valid JSON"), "{}", err.message);
}

#[test]
fn broken_yaml_says_where() {
    let err = read_text("base_model: [gpt2\nadapter: lora\n").expect_err("unclosed");
    assert!(err.message.starts_with("not valid YAML"), "{}", err.message);
    assert!(err.message.contains("line"), "{}", err.message);
    let err = read_text("a: *nowhere\n").expect_err("dangling alias");
    assert!(err.message.contains("anchor"), "{}", err.message);
    // An alias inside its own anchor would be infinite.
    let err = read_text("a: &x [1, *x]\n").expect_err("recursive alias");
    assert!(err.message.contains("anchor"), "{}", err.message);
}

#[test]
fn a_zero3_config_sets_the_parameter_coordinators_knobs() {
    let job = read("ds_config_zero3_offload.json");
    let p = &job.scenario.parallel;
    assert_eq!(
        (p.strategy, p.offload),
        (Strategy::Zero3, Offload::OptimizerParams)
    );
    // "auto" stays unset (filled from the model's hidden size); numbers
    // written as 1e5, 3e8, 5e8 are read as whole elements.
    assert_eq!(p.zero3_prefetch_bucket, None);
    assert_eq!(p.zero3_persistence_threshold, Some(100_000));
    assert_eq!(p.zero3_max_live, Some(300_000_000));
    assert_eq!(p.zero3_max_reuse, Some(500_000_000));
    assert_eq!(
        read_into(&job, "zero_optimization.stage3_max_live_parameters"),
        ["parallel.zero3_max_live"]
    );
}
