//! `vramfit estimate`: the breakdown for one scenario.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use serde::de::DeserializeOwned;
use vramfit_core::cases::{case_model, case_scenario, parse_cases};
use vramfit_core::report::{Counter, Estimate};
use vramfit_core::scenario::{LoraTarget, ModelSource, Scenario, TaskKind};
use vramfit_core::InputError;

use crate::output::{fail, gib};

#[derive(ClapArgs, Clone, Default)]
pub struct ScenarioArgs {
    /// Scenario JSON file (the flags below override its fields).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<String>,
    /// Hugging Face config.json of the model.
    #[arg(long, value_name = "FILE")]
    pub config: Option<String>,
    /// A share link of the web calculator (`https://…/?v=1&m=…`): its scenario.
    #[arg(long, value_name = "SHARE_URL", conflicts_with_all = ["scenario", "case"])]
    pub url: Option<String>,
    /// Measured-case JSONL file; with --id, estimate that case's setup.
    #[arg(long, value_name = "FILE", requires = "id")]
    pub case: Option<String>,
    /// Case id in --case.
    #[arg(long)]
    pub id: Option<String>,
    /// Catalog model (Hugging Face id or short name).
    #[arg(long, short)]
    pub model: Option<String>,
    /// Bare parameter count (approximate), e.g. 7e9.
    #[arg(long)]
    pub params: Option<f64>,
    /// training | inference
    #[arg(long)]
    pub task: Option<String>,
    /// fp32, fp16, bf16, fp8, int8, nf4, fp4, gptq4, awq4, mxfp4, gguf_q4_k_m, ...
    #[arg(long)]
    pub weights: Option<String>,
    /// NF4/FP4 double quantization.
    #[arg(long)]
    pub double_quant: bool,
    /// pure16 | amp | fp32
    #[arg(long)]
    pub precision: Option<String>,
    /// full | lora | qlora | adapter | adapter_v2 | forward_backward
    #[arg(long)]
    pub method: Option<String>,
    #[arg(long)]
    pub lora_rank: Option<u64>,
    /// Comma-separated: q,k,v,o,gate,up,down,mlp,head,all
    #[arg(long)]
    pub lora_targets: Option<String>,
    /// sgd, sgd_momentum, adam, adamw, adamw8bit, paged_adamw, paged_adamw8bit, adafactor, lion
    #[arg(long)]
    pub optimizer: Option<String>,
    /// torch's fused AdamW/Adam/SGD step (fused=True): no foreach temporary
    #[arg(long)]
    pub fused_optimizer: bool,
    /// Images per sample (training) or per prompt (inference) of a VLM
    #[arg(long)]
    pub images: Option<u64>,
    /// Decoder (target) tokens of an encoder-decoder model such as T5
    #[arg(long)]
    pub target_len: Option<u64>,
    /// torch.cuda.empty_cache() after loading: no loading blocks stay reserved
    #[arg(long)]
    pub empty_cache: bool,
    /// NF4 quantized by torchao 0.1 (torchtune before June 2024): unchunked, large loading working sets
    #[arg(long)]
    pub unchunked_nf4: bool,
    /// transformers' static KV cache (cache_implementation="static")
    #[arg(long)]
    pub static_cache: bool,
    /// transformers before 4.36: past_key_values as tuples (the old and new cache coexist)
    #[arg(long)]
    pub tuple_cache: bool,
    #[arg(long)]
    pub micro_batch: Option<u64>,
    #[arg(long)]
    pub grad_accum: Option<u64>,
    #[arg(long)]
    pub seq_len: Option<u64>,
    /// off | full | selective
    #[arg(long)]
    pub checkpointing: Option<String>,
    /// eager | sdpa | flash
    #[arg(long)]
    pub attention: Option<String>,
    /// transformers | litgpt | torchtune | deepspeed
    #[arg(long)]
    pub framework: Option<String>,
    #[arg(long)]
    pub batch: Option<u64>,
    #[arg(long)]
    pub prompt_len: Option<u64>,
    #[arg(long)]
    pub new_tokens: Option<u64>,
    /// fp32 | fp16 | bf16 | fp8 | int8
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// transformers | litgpt | vllm | llama_cpp
    #[arg(long)]
    pub engine: Option<String>,
    #[arg(long)]
    pub gpu_memory_utilization: Option<f64>,
    #[arg(long)]
    pub gpus: Option<u64>,
    /// none | ddp | zero1 | zero2 | zero3 | fsdp
    #[arg(long)]
    pub strategy: Option<String>,
    #[arg(long)]
    pub tp: Option<u64>,
    #[arg(long)]
    pub pp: Option<u64>,
    /// none | optimizer | optimizer_params
    #[arg(long)]
    pub offload: Option<String>,
}

/// `--gpu NAME`: the card to fit on (estimate, plan). `check` reads the real
/// cards instead and takes GPU indices.
#[derive(ClapArgs, Clone, Default)]
pub struct GpuNameArg {
    /// GPU from the catalog (e.g. a100-sxm4-40gb, "RTX 4090").
    #[arg(long)]
    pub gpu: Option<String>,
}

impl GpuNameArg {
    pub fn apply(&self, sc: &mut Scenario) {
        if let Some(g) = &self.gpu {
            sc.gpu.name = Some(g.clone());
        }
    }
}

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    #[command(flatten)]
    pub gpu: GpuNameArg,
    /// One JSON object with integer byte fields.
    #[arg(long)]
    pub json: bool,
}

/// Parses `value` as the serde name of an enum, naming `field` on error.
pub fn parse_enum<T: DeserializeOwned>(field: &str, value: &str) -> Result<T, InputError> {
    serde_json::from_value(serde_json::Value::String(
        value.trim().to_ascii_lowercase().replace('-', "_"),
    ))
    .map_err(|e| InputError::new(field, e.to_string()))
}

fn read(path: &str) -> Result<String, InputError> {
    if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| InputError::new(path, e.to_string()))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| InputError::new(path, format!("cannot read: {e}")))
    }
}

impl ScenarioArgs {
    /// The scenario the flags describe (file first, then each flag on top).
    pub fn build(&self) -> Result<Scenario, InputError> {
        let mut sc = match (&self.scenario, &self.case) {
            (Some(path), _) => Scenario::from_json(&read(path)?)
                .map_err(|e| InputError::new(format!("{path}: {}", e.field), e.message))?,
            (None, Some(path)) => {
                let id = self.id.as_deref().unwrap_or_default();
                let text = read(path)?;
                let case = parse_cases(&text)
                    .into_iter()
                    .filter_map(Result::ok)
                    .find(|c| c.id == id)
                    .ok_or_else(|| {
                        InputError::new("--id", format!("no case \"{id}\" in {path}"))
                    })?;
                let mut sc = case_scenario(&case)
                    .map_err(|e| InputError::new(id, format!("unsupported case: {e}")))?;
                let spec = case_model(&case)
                    .map_err(|e| InputError::new(id, format!("unsupported case: {e}")))?;
                sc.model = ModelSource::Spec(Box::new(spec));
                sc
            }
            (None, None) => match &self.url {
                Some(link) => scenario_from_link(link)?,
                None => Scenario::default(),
            },
        };
        if let Some(path) = &self.config {
            let spec = vramfit_core::hf_config::from_hf_config(&read(path)?)?;
            sc.model = ModelSource::Spec(Box::new(spec));
        }
        if let Some(m) = &self.model {
            sc.model = ModelSource::Catalog(m.clone());
        }
        if let Some(p) = self.params {
            if !(p.is_finite() && (1e6..=1.7e13).contains(&p)) {
                return Err(InputError::new(
                    "--params",
                    format!("{p} is out of range: allowed 1e6 to 1.7e13"),
                ));
            }
            sc.model = ModelSource::Params(p as u64);
        }
        if let Some(t) = &self.task {
            sc.task = parse_enum("--task", t)?;
        }
        if let Some(w) = &self.weights {
            sc.weights = vramfit_core::precision::WeightFormat::parse(w).ok_or_else(|| {
                InputError::new("--weights", format!("unknown format \"{w}\": allowed fp32, fp16, bf16, fp8, int8, nf4, fp4, gptq4, awq4, mxfp4, gguf_q8_0, gguf_q6_k, gguf_q5_k_m, gguf_q4_k_m, gguf_q4_0, gguf_q3_k_m, gguf_q2_k"))
            })?;
        }
        if self.double_quant {
            sc.double_quant = true;
        }
        if let Some(p) = &self.precision {
            sc.training_precision = parse_enum("--precision", p)?;
        }
        if let Some(v) = self.images {
            sc.training.images_per_sample = v;
            sc.inference.images_per_prompt = v;
        }
        if self.empty_cache {
            sc.empty_cache_after_load = true;
        }
        if self.unchunked_nf4 {
            sc.unchunked_nf4_quantizer = true;
        }
        if self.static_cache {
            sc.inference.static_cache = true;
        }
        if self.tuple_cache {
            sc.inference.tuple_cache = true;
        }
        let t = &mut sc.training;
        if let Some(m) = &self.method {
            t.method = parse_enum("--method", m)?;
        }
        if let Some(r) = self.lora_rank {
            t.lora.rank = r;
        }
        if let Some(list) = &self.lora_targets {
            let mut targets = Vec::new();
            for name in list.split(',').filter(|s| !s.trim().is_empty()) {
                targets.extend(LoraTarget::parse(name).ok_or_else(|| {
                    InputError::new("--lora-targets", format!("unknown target \"{name}\": allowed q, k, v, o, gate, up, down, head, mlp, attn, all"))
                })?);
            }
            targets.dedup();
            t.lora.targets = targets;
        }
        if let Some(o) = &self.optimizer {
            t.optimizer = parse_enum("--optimizer", o)?;
        }
        if let Some(v) = self.micro_batch {
            t.micro_batch = v;
        }
        if let Some(v) = self.grad_accum {
            t.grad_accum = v;
        }
        if let Some(v) = self.seq_len {
            t.seq_len = v;
        }
        if self.fused_optimizer {
            t.fused_optimizer = true;
        }
        if let Some(v) = self.target_len {
            t.target_len = Some(v);
        }

        if let Some(v) = &self.checkpointing {
            t.checkpointing = parse_enum("--checkpointing", v)?;
        }
        if let Some(v) = &self.framework {
            t.framework = parse_enum("--framework", v)?;
        }
        if let Some(v) = &self.attention {
            sc.attention = parse_enum("--attention", v)?;
        }
        let i = &mut sc.inference;
        if let Some(v) = self.batch {
            i.batch = v;
        }
        if let Some(v) = self.prompt_len {
            i.prompt_len = v;
        }
        if let Some(v) = self.new_tokens {
            i.new_tokens = v;
        }
        if let Some(v) = &self.kv_dtype {
            i.kv_cache_dtype = Some(parse_enum("--kv-dtype", v)?);
        }
        if let Some(v) = &self.engine {
            i.engine = parse_enum("--engine", v)?;
        }
        if let Some(v) = self.gpu_memory_utilization {
            i.gpu_memory_utilization = v;
        }
        let p = &mut sc.parallel;
        if let Some(v) = self.gpus {
            p.gpus = v;
        }
        if let Some(v) = &self.strategy {
            p.strategy = parse_enum("--strategy", v)?;
        }
        if let Some(v) = self.tp {
            p.tp = v;
        }
        if let Some(v) = self.pp {
            p.pp = v;
        }
        if let Some(v) = &self.offload {
            p.offload = parse_enum("--offload", v)?;
        }
        // --config alone: inference at batch 1 with a short context.
        if self.config.is_some() && self.scenario.is_none() && self.task.is_none() {
            sc.task = TaskKind::Inference;
            sc.inference.batch = self.batch.unwrap_or(1);
            sc.inference.prompt_len = self.prompt_len.unwrap_or(128);
            sc.inference.new_tokens = self.new_tokens.unwrap_or(128);
        }
        Ok(sc)
    }
}

/// The JSON `vramfit estimate --json` prints: the estimate plus the busiest
/// GPU's three totals at the top level.
pub fn estimate_json(e: &Estimate) -> serde_json::Value {
    let g = e.worst_gpu();
    let mut v = serde_json::to_value(e).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.insert("peak_allocated_bytes".into(), g.peak_allocated_bytes.into());
        obj.insert("peak_reserved_bytes".into(), g.peak_reserved_bytes.into());
        obj.insert("device_used_bytes".into(), g.device_used_bytes.into());
        obj.insert("fits".into(), e.fits().into());
    }
    v
}

pub fn print_breakdown(e: &Estimate) {
    let g = e.worst_gpu();
    println!(
        "{}  ·  {:.3}B parameters ({} trainable){}",
        e.model,
        e.params as f64 / 1e9,
        e.trainable_params,
        if e.approximate {
            "  ·  APPROXIMATE"
        } else {
            ""
        }
    );
    println!(
        "per GPU ({} GPU{}), peak during {}:",
        e.gpu_count,
        if e.gpu_count == 1 { "" } else { "s, each" },
        g.peak_phase
    );
    for l in &g.lines {
        let mark = match l.counter {
            Counter::Allocated => " ",
            Counter::Reserved => "r",
            Counter::Device => "d",
            Counter::NotAtPeak => "·",
        };
        println!(
            "  {mark} {:<40} {:>11}   {}",
            l.part.label(),
            gib(l.bytes),
            l.formula
        );
    }
    println!("  (r: reserved only · d: outside PyTorch · ·: not alive at the peak)");
    println!(
        "  peak allocated {:>11}   torch.cuda.max_memory_allocated(): live tensors",
        gib(g.peak_allocated_bytes)
    );
    println!(
        "  peak reserved  {:>11}   torch.cuda.max_memory_reserved(): + allocator cache",
        gib(g.peak_reserved_bytes)
    );
    println!(
        "  device used    {:>11}   nvidia-smi: + CUDA context, libraries, unified memory",
        gib(g.device_used_bytes)
    );
    if e.cpu_ram_bytes > 0 {
        println!("CPU RAM {}:", gib(e.cpu_ram_bytes));
        for l in &e.cpu_lines {
            println!(
                "    {:<40} {:>11}   {}",
                l.part.label(),
                gib(l.bytes),
                l.formula
            );
        }
    }
    if let (Some(cap), Some(head)) = (e.capacity_bytes, e.headroom_bytes()) {
        if head >= 0 {
            println!("fits: {} to spare of {}", gib(head as u64), gib(cap));
        } else {
            println!(
                "does NOT fit: short by {} of {}",
                gib(head.unsigned_abs() as u64),
                gib(cap)
            );
        }
    }
    for n in &e.notes {
        println!("note: {}", n.message);
    }
}

pub fn run(args: Args) -> ExitCode {
    let mut sc = match args.scenario.build() {
        Ok(sc) => sc,
        Err(e) => return fail(e),
    };
    args.gpu.apply(&mut sc);
    let e = match vramfit_core::estimate(&sc) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    if args.json {
        println!("{}", estimate_json(&e));
    } else {
        print_breakdown(&e);
    }
    ExitCode::SUCCESS
}

/// The scenario of a share link. Parameters the link could not use are
/// reported on stderr, as the web app shows them, and left at their defaults.
pub fn scenario_from_link(link: &str) -> Result<Scenario, InputError> {
    let query = match link.split_once('?') {
        Some((_, q)) => q,
        None if link.contains('=') => link,
        None => {
            return Err(InputError::new(
                "--url",
                "not a share link: expected an address with a query string (…/?v=1&m=…)",
            ))
        }
    };
    let query = query.split('#').next().unwrap_or_default();
    let decoded = vramfit_core::url::decode(query);
    for n in &decoded.notices {
        eprintln!("vramfit: link parameter `{}`: {}", n.param, n.message);
    }
    Ok(decoded.scenario)
}
