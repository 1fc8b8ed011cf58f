//! Turning a measured case into a scenario and a model: the framework
//! mechanics each case's fields imply, and the catalog shape of its model.

use crate::gpu::find_gpu;
use crate::model::{ModelSpec, Moe, SlidingWindow};
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::scenario::*;

use super::format::Case;

/// The model of a case: the catalog entry when the case names one, else its fields.
pub fn case_model(case: &Case) -> Result<ModelSpec, String> {
    let m = &case.model;
    if let Some(entry) = crate::catalog::find_model(&m.name) {
        let close = |spec: &ModelSpec, target: u64| {
            let total = spec.param_counts().total;
            total.abs_diff(target) * 1000 <= target
        };
        match m.params {
            None => return Ok(entry.spec.clone()),
            Some(target) if close(&entry.spec, target) => return Ok(entry.spec.clone()),
            // Some frameworks (litgpt) keep a separate copy of a tied head.
            Some(target) => {
                let mut untied = entry.spec.clone();
                untied.tied_embeddings = false;
                if close(&untied, target) {
                    return Ok(untied);
                }
            }
        }
    }
    // Defaults the case fields leave out (biases, norms, MLP shape): the
    // family's, from the architecture table.
    let arch_name = m
        .arch
        .as_deref()
        .ok_or_else(|| "model.arch is null: the case has no model to estimate".to_string())?;
    let family = crate::model::arch::by_case_name(arch_name).ok_or_else(|| {
        format!("architecture \"{arch_name}\" is not a transformer LLM the estimator models")
    })?;
    let (arch, mlp, norm) = (family.arch, family.mlp, family.norm);
    let (qkv_bias, out_bias, tied) = (family.qkv_bias, family.out_bias, family.tied);
    let need = |v: Option<u64>, f: &str| v.ok_or_else(|| format!("model.{f} not stated"));
    let hidden = need(m.hidden, "hidden")?;
    let heads = need(m.heads, "heads")?;
    let layers = need(m.layers.or(m.decoder_layers), "layers")?;
    let moe = match (m.experts, m.experts_per_token) {
        (Some(e), Some(k)) => Some(Moe {
            experts: e,
            experts_per_token: k,
            shared_experts: m.shared_experts.unwrap_or(0),
            expert_intermediate: m.moe_intermediate.or(m.intermediate).unwrap_or(hidden),
            shared_intermediate: None,
            dense_layers: 0,
            router_bias: false,
            latent: 0,
        }),
        _ => None,
    };
    let spec = ModelSpec {
        name: m.name.clone(),
        arch,
        hidden,
        layers,
        heads,
        kv_heads: m.kv_heads.unwrap_or(heads),
        head_dim: m.head_dim,
        intermediate: m.intermediate.unwrap_or(4 * hidden),
        vocab: need(m.vocab, "vocab")?,
        max_position: m.max_position.unwrap_or(2048),
        tied_embeddings: m.tied_embeddings.unwrap_or(tied),
        mlp,
        norm,
        qkv_bias,
        out_bias,
        moe,
        mla: None,
        sliding_window: m.sliding_window.map(|w| SlidingWindow {
            window: w,
            layers: 0,
            keeps_prompt: false,
        }),
        encoder_layers: m.encoder_layers,
        vision: None,
        params_override: m.params,
        approximate: false,
        ..ModelSpec::default()
    };
    spec.validate().map_err(|e| e.to_string())?;
    Ok(spec)
}

/// The number written just after `marker` in `text`.
fn number_after(text: &str, marker: &str) -> Option<u64> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The GPTQ/AWQ kernel a case's caveats name: exllama v2, exllama (v1),
/// Marlin, or one without scratch (`use_exllama=False`, cuda-old, triton).
fn kernel_named(caveats: &str) -> Option<QuantKernel> {
    let c = caveats.to_ascii_lowercase();
    let v2 = [
        "exllamav2",
        "exllama v2",
        "exllama_v2",
        "exllama-v2",
        "\"version\": 2",
    ];
    if v2.iter().any(|k| c.contains(k)) {
        Some(QuantKernel::ExllamaV2)
    } else if c.contains("use_exllama=false") || c.contains("cuda-old") || c.contains("triton") {
        Some(QuantKernel::None)
    } else if c.contains("exllama") {
        Some(QuantKernel::Exllama)
    } else if c.contains("marlin") {
        Some(QuantKernel::Marlin)
    } else {
        None
    }
}

/// A length a case leaves null but states in words in its caveats, as a
/// bound or an approximation: "roughly <=128 tokens", "~512 tokens",
/// "about 2000 tokens", "up to 256 tokens". A bare "several thousand
/// tokens" gives none, and the case stays unsupported.
fn approximate_length(caveats: &str) -> Option<u64> {
    const MARKERS: [&str; 6] = ["<=", "≤", "~", "about", "roughly", "up to"];
    let mut rest = caveats;
    while let Some(at) = rest.find(" tokens") {
        let head = &rest[..at];
        let digits = head
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_digit())
            .last()
            .map(|(i, _)| i);
        if let Some(start) = digits {
            let before = head[..start].trim_end();
            if MARKERS.iter().any(|m| before.ends_with(m)) {
                if let Ok(n) = head[start..].parse::<u64>() {
                    return Some(n).filter(|&n| n > 0);
                }
            }
        }
        rest = &rest[at + " tokens".len()..];
    }
    None
}

/// The number written just before `marker` in `text`.
fn number_before(text: &str, marker: &str) -> Option<u64> {
    let head = &text[..text.find(marker)?];
    // After the last non-digit, whatever its width in UTF-8.
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(0, |(i, c)| i + c.len_utf8());
    head[start..].parse().ok()
}

/// Whether a transformers run predates v4.36 (December 2023), when
/// `DynamicCache` replaced the tuples of `past_key_values`: by the
/// transformers version the case names, else by the year it is dated.
fn predates_dynamic_cache(version: &str) -> bool {
    if let Some(at) = version.find("transformers ") {
        let rest = &version[at + "transformers ".len()..];
        let major = number_after(rest, "");
        let minor = rest
            .split_once('.')
            .and_then(|(_, after)| number_after(after, ""));
        if let (Some(major), Some(minor)) = (major, minor) {
            return (major, minor) < (4, 36);
        }
    }
    // Any year written before 2024; none: not known to be old.
    (0..version.len())
        .filter_map(|i| year_at(version, i))
        .any(|(year, end)| {
            (2019..2024).contains(&year)
                && version
                    .as_bytes()
                    .get(end)
                    .is_none_or(|b| !b.is_ascii_digit())
        })
}

/// Four digits starting a word at byte `i` (not inside a longer number or
/// hash): the number and the byte after it.
fn year_at(text: &str, i: usize) -> Option<(u64, usize)> {
    let bytes = text.as_bytes();
    let starts_word = i == 0 || !bytes.get(i - 1)?.is_ascii_digit();
    let digits = bytes.get(i..i + 4)?;
    (starts_word && digits.iter().all(u8::is_ascii_digit))
        .then(|| text[i..i + 4].parse().ok())
        .flatten()
        .map(|year| (year, i + 4))
}

/// The first date written as YYYY-MM (a day may follow), as (year, month).
fn first_year_month(version: &str) -> Option<(u64, u64)> {
    let bytes = version.as_bytes();
    (0..version.len()).find_map(|i| {
        let (year, end) = year_at(version, i)?;
        let month_digits = bytes.get(end + 1..end + 3)?;
        let is_month = bytes.get(end) == Some(&b'-')
            && month_digits.iter().all(u8::is_ascii_digit)
            && bytes.get(end + 3).is_none_or(|b| !b.is_ascii_digit());
        if !is_month {
            return None;
        }
        // ASCII digits only: the slice is on character boundaries.
        let month: u64 = version[end + 1..end + 3].parse().ok()?;
        (1..=12).contains(&month).then_some((year, month))
    })
}

/// Setup details a case states only in its caveats, in the words of the
/// measuring harness (shared/measure/measure_cases.py) and of HF Trainer
/// options: torch's fused AdamW, and a VLM's images, which the fields count
/// inside the sequence length.
fn caveat_details(case: &Case, sc: &mut Scenario) {
    let caveats = case.caveats.as_str();
    // No loading temporaries in the cache: the model was built from its
    // config with random weights ("random init, no checkpoint"), or the
    // cache was emptied before measuring. shared/measure/measure_cases.py
    // does both for every run (its README: weights "created directly on the
    // GPU"; `empty_cache` after each build), whatever a run's caveats say.
    sc.empty_cache_after_load = caveats.contains("random init")
        || caveats.contains("no checkpoint")
        || caveats.contains("empty_cache")
        || case.source.file.ends_with("measure/measure_cases.py");
    // The allocator's configuration, where the run states it (the harness
    // writes `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` into its
    // version line); torchtitan's `run_train.sh` exports
    // `PYTORCH_ALLOC_CONF="expandable_segments:True"` for every run.
    let stated = |text: &str| text.contains("expandable_segments:True");
    sc.expandable_segments = stated(caveats)
        || stated(&case.source.version)
        || (case.framework == "torchtitan" && !caveats.contains("expandable_segments:False"));
    // torchtitan builds its optimizer with `implementation = "fused"` by
    // default (`components/optimizer/optimizer.py`), unless a run says otherwise.
    let titan_fused = case.framework == "torchtitan"
        && !caveats.contains("foreach")
        && !caveats.contains("for-loop");
    if titan_fused || caveats.contains("fused=True") || caveats.contains("adamw_torch_fused") {
        sc.training.fused_optimizer = true;
    }
    // The GPTQ/AWQ kernel a run names (its scratch buffer, dequant.rs).
    if let Some(kernel) = kernel_named(caveats) {
        sc.inference.quant_kernel = kernel;
    }
    // "encoder input 512 tokens, decoder (target) 128 tokens" (T5 training),
    // or "targets are 2-token labels".
    if let Some(target) = number_after(caveats, "decoder (target) ")
        .or_else(|| number_before(caveats, "-token label"))
    {
        sc.training.target_len = Some(target);
    }
    // "VLM: 4 image(s) of 336x336 per sample = 2304 image tokens + 512 text
    // tokens; vision tower frozen"
    if let (Some(images), Some(text)) = (
        number_after(caveats, "VLM: "),
        number_before(caveats, " text tokens"),
    ) {
        let t = &mut sc.training;
        t.images_per_sample = images;
        t.image_size = number_after(caveats, " image(s) of ");
        t.seq_len = text;
        t.freeze_vision = caveats.contains("vision tower frozen");
    }
    // "optimizer states after step 1: 3.545 GiB (bf16 1.162 GiB, fp32 2.383
    // GiB)": states of two dtypes follow their parameters' (a trained bf16
    // tower beside PEFT's fp32 adapters), not the one the fields name.
    if caveats.contains("(bf16 ") && caveats.contains(" GiB, fp32 ") {
        sc.training.optimizer_state_dtype = None;
    }
    // "StaticCache preallocated for prompt+new tokens (cache_implementation='static')"
    if caveats.contains("cache_implementation='static'")
        || caveats.contains("cache_implementation=\"static\"")
    {
        sc.inference.static_cache = true;
    }
    // "prompt 640 random tokens (1 image(s) x 576 image tokens + 64 text)"
    if let (Some(images), Some(text)) = (
        number_before(caveats, " image(s) x "),
        number_before(caveats, " text)"),
    ) {
        sc.inference.images_per_prompt = images;
        sc.inference.prompt_len = text.max(1);
    }
}

/// The scenario a case describes, or why it cannot be expressed.
pub fn case_scenario(case: &Case) -> Result<Scenario, String> {
    let mut sc = Scenario::default();
    case_precision(case, &mut sc)?;
    sc.attention = match case.attention.as_deref() {
        Some("eager") => Attention::Eager,
        Some("flash") => Attention::Flash,
        _ => Attention::Sdpa,
    };
    let framework = case_framework(case)?;
    // DeepSpeed "fp16" keeps 16-bit module weights and an fp32 master copy in
    // the optimizer (FORMAT maps it to weights fp32 / amp).
    if framework == Framework::Deepspeed && sc.training_precision == TrainingPrecision::Amp {
        sc.weights = WeightFormat::Fp16;
        sc.compute_dtype = Dtype::Fp16;
    }
    case_parallel(case, &mut sc);
    match case.task.as_str() {
        "training" | "model_load" => case_training(case, framework, &mut sc)?,
        "inference" => case_inference(case, &mut sc)?,
        "cuda_context" => {}
        other => return Err(format!("task \"{other}\"")),
    }
    caveat_details(case, &mut sc);
    // torchtune pinned torchao 0.1, whose NF4 quantizer is unchunked, until
    // 2024-06-26 (torchtune #1125 "Pin ao==0.3"; torchao 0.2 added chunks).
    if sc.training.framework == Framework::Torchtune
        && sc.effective_weights() == WeightFormat::Nf4
        && first_year_month(&case.source.version).is_some_and(|date| date < (2024, 6))
    {
        sc.unchunked_nf4_quantizer = true;
    }
    if sc.task == TaskKind::Inference
        && sc.inference.engine == Engine::Transformers
        && predates_dynamic_cache(&case.source.version)
    {
        sc.inference.tuple_cache = true;
    }
    Ok(sc)
}

/// The rules a case's framework follows (format 1.1 names included), or
/// why it is not modelled.
fn case_framework(case: &Case) -> Result<Framework, String> {
    Ok(match case.framework.as_str() {
        "litgpt" => Framework::Litgpt,
        "torchtune" => Framework::Torchtune,
        "deepspeed" => Framework::Deepspeed,
        // TRL's trainers and axolotl run transformers' Trainer loop.
        "hf-trainer" | "trl" | "axolotl" => Framework::HfTrainer,
        // torchtitan's step: `pred = model(...)`, `loss = cross_entropy(
        // pred.float(), labels)`, `del pred`, `backward()`: the upcast
        // logits freed before backward, as transformers' loss is
        // (torchtitan `train.py`, `components/loss.py`).
        "torchtitan" => Framework::Transformers,
        // Inference stacks: their engine is read from the inference fields.
        "transformers" | "peft" | "vllm" | "gpt-fast" | "autoawq" | "llama.cpp" => {
            Framework::Transformers
        }
        "diffusers" => {
            return Err(
                "diffusers (UNet) training is not a transformer LLM the estimator models"
                    .to_owned(),
            )
        }
        other => {
            return Err(format!(
                "framework \"{other}\" is not one the estimator has rules for"
            ))
        }
    })
}

/// Weights, compute dtype and precision mode of a case.
fn case_precision(case: &Case, sc: &mut Scenario) -> Result<(), String> {
    let p = &case.precision;
    let compute = p
        .compute
        .as_deref()
        .and_then(Dtype::parse)
        .unwrap_or(Dtype::Bf16);
    sc.compute_dtype = if compute == Dtype::Fp32 {
        Dtype::Bf16
    } else {
        compute
    };
    sc.weights = match p.weights.as_deref() {
        None => WeightFormat::Bf16,
        Some("w8a8") => WeightFormat::Int8,
        Some(w) => WeightFormat::parse(w).ok_or_else(|| format!("weight format \"{w}\""))?,
    };
    sc.double_quant = p.double_quant.unwrap_or(false);
    if let Some(prep) = p.kbit_prep.as_deref() {
        sc.training.kbit_prep =
            KbitPrep::parse(prep).ok_or_else(|| format!("kbit_prep \"{prep}\""))?;
    }
    sc.group_size = p.group_size.unwrap_or(128);
    sc.training_precision = match p.mixed_precision.as_deref() {
        Some("amp") => TrainingPrecision::Amp,
        Some("none") => TrainingPrecision::Fp32,
        _ => TrainingPrecision::Pure16,
    };
    if sc.training_precision == TrainingPrecision::Fp32 && sc.weights == WeightFormat::Fp32 {
        sc.compute_dtype = Dtype::Fp16;
    }
    // torchtitan trains under FSDP2's MixedPrecisionPolicy: the model is
    // built in fp32, its shards stay fp32, each layer is all-gathered in
    // `mixed_precision_param` (bf16 by default) and gradients are reduced in
    // fp32 (`config/configs.py`). That is 16-bit compute over an fp32 master
    // copy, never torch autocast, however a run states its weights.
    let unquantized = matches!(
        sc.weights,
        WeightFormat::Fp32 | WeightFormat::Bf16 | WeightFormat::Fp16
    );
    if case.framework == "torchtitan"
        && case.task == "training"
        && unquantized
        && sc.training_precision != TrainingPrecision::Fp32
    {
        sc.weights = match sc.compute_dtype {
            Dtype::Fp16 => WeightFormat::Fp16,
            _ => WeightFormat::Bf16,
        };
        sc.training_precision = TrainingPrecision::Amp;
    }
    Ok(())
}

/// GPUs, strategy, offload and the card of a case.
fn case_parallel(case: &Case, sc: &mut Scenario) {
    let par = &case.parallel;
    sc.parallel.gpus = par.gpus.unwrap_or(1);
    sc.parallel.tp = par.tp.unwrap_or(1);
    sc.parallel.pp = par.pp.unwrap_or(1);
    sc.parallel.strategy = match par.strategy.as_deref() {
        Some("ddp") => Strategy::Ddp,
        Some("zero1") => Strategy::Zero1,
        Some("zero2") => Strategy::Zero2,
        Some("zero3") => Strategy::Zero3,
        Some("fsdp") => Strategy::Fsdp,
        _ => Strategy::None,
    };
    sc.parallel.offload = match par.offload.as_deref() {
        Some("optimizer") => Offload::Optimizer,
        Some("optimizer+params") => Offload::OptimizerParams,
        _ => Offload::None,
    };
    // Format 1.1: saved activations offloaded to the CPU.
    if par.offload.as_deref() == Some("activations") {
        sc.training.activation_offload = true;
    }
    if let Some(name) = &case.gpu.name {
        if find_gpu(name).is_some() {
            sc.gpu.name = Some(name.clone());
        }
    }
    sc.gpu.memory_bytes = case.gpu.memory_bytes;
}

/// The training fields of a training or model-load case.
fn case_training(case: &Case, framework: Framework, sc: &mut Scenario) -> Result<(), String> {
    sc.task = TaskKind::Training;
    let t = case.training.clone().unwrap_or_default();
    let tr = &mut sc.training;
    tr.framework = framework;
    tr.method = match t.method.as_deref() {
        Some("lora") => Method::Lora,
        Some("qlora") => Method::Qlora,
        Some("adapter") => Method::Adapter,
        Some("adapter_v2") => Method::AdapterV2,
        Some("fwd_bwd_only") => Method::ForwardBackward,
        _ => Method::Full,
    };
    if let Some(l) = &t.lora {
        tr.lora.rank = l.rank.unwrap_or(8);
        let mut targets = Vec::new();
        for name in &l.targets {
            targets
                .extend(LoraTarget::parse(name).ok_or_else(|| format!("LoRA target \"{name}\""))?);
        }
        targets.dedup();
        if !targets.is_empty() {
            tr.lora.targets = targets;
        }
        // Framework defaults when the case does not say: litgpt 0.05
        // (finetune/lora.py), torchtune 0.0 (lora builders), PEFT examples 0.1.
        tr.lora.dropout = l.dropout.unwrap_or(match framework {
            Framework::Litgpt => 0.05,
            Framework::Torchtune => 0.0,
            _ => 0.1,
        });
    }
    tr.trainable_params = t.trainable_params;
    tr.optimizer = match t.optimizer.as_deref() {
        Some("adam") => Optimizer::Adam,
        Some("adamw_8bit") => Optimizer::Adamw8bit,
        Some("paged_adamw") => Optimizer::PagedAdamw,
        Some("paged_adamw_8bit") => Optimizer::PagedAdamw8bit,
        Some("adafactor") => Optimizer::Adafactor,
        Some("sgd") => Optimizer::Sgd,
        Some("sgd_momentum") => Optimizer::SgdMomentum,
        Some("none") => Optimizer::None,
        _ => Optimizer::Adamw,
    };
    tr.optimizer_state_dtype = t
        .optimizer_state_dtype
        .as_deref()
        .and_then(Dtype::parse)
        .filter(|d| *d != Dtype::Int8);
    tr.optimizer_in_backward = t.optimizer_in_backward.unwrap_or(false);
    tr.micro_batch = t.micro_batch.unwrap_or(1);
    tr.grad_accum = t.grad_accum.unwrap_or(1);
    tr.checkpointing = match t.gradient_checkpointing.as_deref() {
        Some("full") => Checkpointing::Full,
        // torchtitan's "selective" is its per-op SAC (the `op` option of
        // its activation_checkpoint config); Megatron's recomputes the
        // attention core.
        Some("selective") if case.framework == "torchtitan" => Checkpointing::Op,
        Some("selective") => Checkpointing::Selective,
        _ => Checkpointing::Off,
    };
    tr.activation_offload |= t.activation_offload.unwrap_or(false);
    tr.chunked_loss = t.chunked_loss.unwrap_or(false);
    tr.compile = t.compile.unwrap_or(false);
    if case.task == "training" {
        tr.seq_len = t
            .seq_len
            .or_else(|| approximate_length(&case.caveats))
            .ok_or_else(|| "training.seq_len not stated".to_owned())?;
    }
    Ok(())
}

/// The inference fields of an inference case.
fn case_inference(case: &Case, sc: &mut Scenario) -> Result<(), String> {
    sc.task = TaskKind::Inference;
    let i = case.inference.clone().unwrap_or_default();
    let inf = &mut sc.inference;
    inf.engine = match (case.framework.as_str(), i.engine.as_deref()) {
        (_, Some("vllm")) | ("vllm", _) => Engine::Vllm,
        (_, Some("litgpt")) | ("litgpt", _) => Engine::Litgpt,
        (_, Some("llama.cpp" | "llama_cpp")) | ("llama.cpp", _) => Engine::LlamaCpp,
        _ => Engine::Transformers,
    };
    // A cache allocated up front for `cache_len` tokens (gpt-fast's
    // `setup_caches`, AutoAWQ's fused modules, a static max_cache_len):
    // transformers' static cache of that length is the same allocation.
    if let Some(len) = i.cache_len {
        inf.static_cache = true;
        inf.cache_len = Some(len);
    }
    inf.kv_cache_dtype = i.kv_cache_dtype.as_deref().and_then(Dtype::parse);
    inf.gpu_memory_utilization = i.gpu_memory_utilization.unwrap_or(0.9);
    inf.batch = i.batch.unwrap_or(1);
    let per_token_only = matches!(
        case.measured.metric.as_str(),
        "weights_only" | "kv_bytes_per_token"
    );
    inf.prompt_len = match i.prompt_len {
        Some(p) => p.max(1),
        None if per_token_only => 1,
        None => approximate_length(&case.caveats)
            .ok_or_else(|| "inference.prompt_len not stated".to_owned())?,
    };
    inf.new_tokens = i.new_tokens.unwrap_or(0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case_of(framework: &str, task: &str, extra: &str) -> Case {
        let line = format!(
            r#"{{"id": "t", "framework": "{framework}", "task": "{task}",
               "model": {{"name": "meta-llama/Llama-2-7b-hf", "arch": "llama"}},
               "measured": {{"metric": "peak_allocated", "bytes": 1}}{extra}}}"#
        );
        serde_json::from_str(&line).expect("a case")
    }

    #[test]
    fn format_1_1_frameworks_follow_the_rules_they_run() {
        let training = r#", "training": {"seq_len": 1024}"#;
        for (name, rules) in [
            ("trl", Framework::HfTrainer),
            ("axolotl", Framework::HfTrainer),
            ("torchtitan", Framework::Transformers),
            ("torchtune", Framework::Torchtune),
        ] {
            let sc = case_scenario(&case_of(name, "training", training)).expect(name);
            assert_eq!(sc.training.framework, rules, "{name}");
        }
        let err = case_scenario(&case_of("megatron-lm", "training", training)).unwrap_err();
        assert!(err.contains("megatron-lm"), "{err}");
    }

    #[test]
    fn the_gptq_kernel_a_run_names_is_read_from_the_caveats() {
        assert_eq!(
            kernel_named("GPTQ, exllamav2 kernels"),
            Some(QuantKernel::ExllamaV2)
        );
        assert_eq!(
            kernel_named("ExLlama v2 backend"),
            Some(QuantKernel::ExllamaV2)
        );
        assert_eq!(
            kernel_named("exllama kernel, max_input_length 2048"),
            Some(QuantKernel::Exllama)
        );
        assert_eq!(
            kernel_named("use_exllama=False (cuda-old)"),
            Some(QuantKernel::None)
        );
        assert_eq!(kernel_named("Marlin kernel"), Some(QuantKernel::Marlin));
        assert_eq!(kernel_named("fp16, sdpa"), None);
    }

    #[test]
    fn a_length_stated_only_in_words_is_read_from_the_caveats() {
        assert_eq!(
            approximate_length(
                "padded to the longest in the batch of 8 (roughly <=128 tokens); targets"
            ),
            Some(128)
        );
        assert_eq!(approximate_length("prompts of ~512 tokens"), Some(512));
        assert_eq!(
            approximate_length("up to 2048 tokens per sample"),
            Some(2048)
        );
        assert_eq!(
            approximate_length("token count never published (several thousand tokens)"),
            None
        );
        assert_eq!(
            approximate_length("batch of 8, 300 tokens"),
            None,
            "a bare number is not a stated bound"
        );
        let training =
            r#", "training": {"seq_len": null}, "caveats": "short tweets (roughly <=128 tokens)""#;
        let sc = case_scenario(&case_of("peft", "training", training)).expect("read from words");
        assert_eq!(sc.training.seq_len, 128);
        let labels = r#", "training": {"seq_len": 512}, "caveats": "targets are 2-token labels""#;
        let sc = case_scenario(&case_of("peft", "training", labels)).expect("labels");
        assert_eq!(sc.training.target_len, Some(2));
        let unstated = r#", "training": {"seq_len": null}, "caveats": "several thousand tokens""#;
        let err = case_scenario(&case_of("peft", "training", unstated)).unwrap_err();
        assert!(err.contains("seq_len"), "{err}");
    }

    #[test]
    fn selective_means_what_the_framework_means_by_it() {
        let selective = r#", "training": {"seq_len": 1024, "gradient_checkpointing": "selective"}"#;
        let titan = case_scenario(&case_of("torchtitan", "training", selective)).expect("titan");
        assert_eq!(titan.training.checkpointing, Checkpointing::Op);
        assert!(
            titan.training.fused_optimizer,
            "torchtitan's default AdamW is fused"
        );
        let fp32 =
            r#", "precision": {"weights": "fp32", "compute": "bf16", "mixed_precision": "amp"}"#;
        let titan = case_scenario(&case_of(
            "torchtitan",
            "training",
            &format!("{selective}{fp32}"),
        ))
        .expect("titan fp32");
        assert_eq!(
            (titan.weights, titan.training_precision),
            (WeightFormat::Bf16, TrainingPrecision::Amp),
            "FSDP2 mixed precision: bf16 compute over fp32 shards, not autocast"
        );
        let other = case_scenario(&case_of("hf-trainer", "training", selective)).expect("hf");
        assert_eq!(other.training.checkpointing, Checkpointing::Selective);
        assert!(!other.training.fused_optimizer);
    }

    #[test]
    fn format_1_1_cache_len_and_activation_offload() {
        let inference = r#", "inference": {"batch": 2, "prompt_len": 100, "new_tokens": 28, "cache_len": 4096}"#;
        let sc = case_scenario(&case_of("gpt-fast", "inference", inference)).expect("gpt-fast");
        assert_eq!(sc.inference.engine, Engine::Transformers);
        assert!(sc.inference.static_cache);
        assert_eq!(sc.inference.cache_len, Some(4096));
        let sc = case_scenario(&case_of(
            "llama.cpp",
            "inference",
            r#", "inference": {"prompt_len": 10}"#,
        ))
        .expect("llama.cpp");
        assert_eq!(sc.inference.engine, Engine::LlamaCpp);
        let offloaded = r#", "training": {"seq_len": 512}, "parallel": {"offload": "activations"}"#;
        let sc = case_scenario(&case_of("torchtune", "training", offloaded)).expect("offload");
        assert!(sc.training.activation_offload);
        assert_eq!(sc.parallel.offload, Offload::None);
    }

    #[test]
    fn runs_before_transformers_4_36_used_tuple_caches() {
        assert!(predates_dynamic_cache("2023-08 blog"));
        assert!(predates_dynamic_cache(
            "commit 008f5c8c (doc read); runs from 2023"
        ));
        assert!(predates_dynamic_cache("transformers 4.35.2, torch 2.1"));
        assert!(!predates_dynamic_cache("transformers 4.36.0"));
        assert!(!predates_dynamic_cache(
            "torch 2.9.0 (CUDA 12.8), transformers 4.57.1"
        ));
        assert!(!predates_dynamic_cache("vLLM 0.19, 2025"));
        // A commit hash or a byte count is not a year.
        assert!(!predates_dynamic_cache("commit 20230801ab"));
        assert!(!predates_dynamic_cache(""));
    }

    #[test]
    fn dates_are_read_as_year_and_month() {
        assert_eq!(
            first_year_month("tables added commits ff594c231 / 0914d5cfb (2024-04-15); configs"),
            Some((2024, 4))
        );
        assert_eq!(
            first_year_month("runs of 2025-11, rerun 2026-01"),
            Some((2025, 11))
        );
        // Not a month, not a date: a version range, a hash, a bare year.
        assert_eq!(first_year_month("transformers 4.36-4.40"), None);
        assert_eq!(first_year_month("commit 12024-04ab"), None);
        assert_eq!(
            first_year_month("2024-13 typo, then 2023-12-01"),
            Some((2023, 12))
        );
        assert_eq!(first_year_month("2024"), None);
        assert_eq!(first_year_month("2024-0"), None);
        assert_eq!(first_year_month("版本 2024-05"), Some((2024, 5)));
        // A multi-byte character where the month would be.
        assert_eq!(first_year_month("2024-é1 then 2023-12"), Some((2023, 12)));
        assert_eq!(first_year_month(""), None);
    }

    #[test]
    fn numbers_next_to_words_in_any_script() {
        assert_eq!(number_after("VLM: 4 image(s)", "VLM: "), Some(4));
        assert_eq!(number_before("batch 16 text)", " text)"), Some(16));
        // A multi-byte character right before the digits.
        assert_eq!(number_before("图像12 text)", " text)"), Some(12));
        assert_eq!(number_before("图像 text)", " text)"), None);
        assert_eq!(number_after("no marker", "VLM: "), None);
    }
}
