//! The wizard: a few answers (goal, model, GPU and count, priority) walk the
//! decision table of `data/decision_table.json` to a recommended scenario,
//! estimated by the core; when the row's configuration does not fit, the
//! fix-it plan search takes over from it.
//!
//! The table's memory ranges are bytes of one GPU per model parameter, so a
//! row written for 7B on 16 GB applies to 70B on 160 GB alike.

use crate::decimal::Decimal;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::error::{check_range, InputError, Result};
use crate::estimate::{estimate_with_model, resolve_model};
use crate::gpu::{find_gpu, GpuSpec};
use crate::model::ModelSpec;
use crate::plan::{fix_plans_with_model, CostWeights, Plan, PlanOptions, Text};
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::resolved::effective_counts;
use crate::scenario::choice::choice;
use crate::scenario::limits::{MAX_COUNT, MAX_MEMORY, MIN_MEMORY};
use crate::scenario::{
    Checkpointing, Engine, GpuChoice, Method, ModelSource, Offload, Optimizer, Parallel, Scenario,
    Strategy, TaskKind,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// Train every parameter (pre-training, full fine-tuning).
    TrainFull,
    /// Adapt a model; parameter-efficient methods welcome.
    FineTune,
    Serve,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Speed,
    Quality,
    Cost,
}

// The answers' keys, read by `Choice::parse` like every other enum.
choice!(Goal { TrainFull => "train_full", FineTune => "fine_tune", Serve => "serve" });
choice!(Priority { Speed => "speed", Quality => "quality", Cost => "cost" });

impl Priority {
    /// How the fix-it plans weigh costs for this priority: the chosen cost
    /// counts three times (vramfit's policy).
    pub fn cost_weights(self) -> CostWeights {
        let mut w = CostWeights::default();
        match self {
            Priority::Speed => w.speed = 3.0,
            Priority::Quality => w.quality = 3.0,
            Priority::Cost => w.hardware = 3.0,
        }
        w
    }
}

/// The GPU: a catalog name or a capacity in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WizardGpu {
    Catalog(String),
    MemoryBytes(u64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WizardAnswers {
    pub goal: Goal,
    pub model: ModelSource,
    /// `None` only with `gpu_count` 0.
    pub gpu: Option<WizardGpu>,
    /// 0 = no GPU (serving on the CPU).
    pub gpu_count: u64,
    pub priority: Priority,
    /// The setup the user has (the calculator's scenario): the wizard keeps
    /// its sequence length, batch, LoRA rank and the rest, and changes only
    /// what the row prescribes. `None`: the defaults.
    #[serde(default)]
    pub start: Option<Scenario>,
}

/// One field the recommendation changed from the user's setup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    /// The share-link key (`w`, `ckpt`).
    pub key: String,
    /// The scenario path (`weights`, `training.checkpointing`).
    pub path: String,
    /// The message id of the field's label in the web app, when it has one.
    pub label: Option<String>,
    pub from: String,
    pub to: String,
}

/// A `[min, max)` range; `None` is unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Range {
    pub fn contains(&self, x: f64) -> bool {
        self.min.is_none_or(|m| x >= m) && self.max.is_none_or(|m| x < m)
    }
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show =
            |v: Option<f64>, open: &str| v.map_or(open.to_string(), |v| Decimal(v).to_string());
        write!(f, "[{}, {})", show(self.min, "0"), show(self.max, "∞"))
    }
}

/// How the row uses the GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// No GPU: the estimate's figures are the process's memory on the CPU.
    Cpu,
    /// Each GPU holds the whole model (DDP when training on several).
    Replicas,
    /// Data parallel with the row's ZeRO/FSDP strategy.
    Shard,
    /// Serving split across the GPUs by tensor parallelism.
    TensorParallel,
    /// Tensor parallel within a node, pipeline across nodes.
    ThreeD,
}

/// GPU-count bounds of a row, `[min, max)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountRange {
    pub min: u64,
    pub max: Option<u64>,
}

/// One row of `data/decision_table.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRow {
    pub id: String,
    pub goals: Vec<Goal>,
    pub gpus: CountRange,
    /// Usable bytes of one GPU per parameter.
    pub bytes_per_param: Range,
    /// The same for all GPUs together.
    pub total_bytes_per_param: Range,
    /// Empty: any priority.
    pub priorities: Vec<Priority>,
    pub layout: Layout,
    /// Scenario fields to set on the wizard's base scenario.
    pub config: RowConfig,
    pub text: Text,
    pub source: String,
}

/// The scenario fields a decision-table row may set. Typed, so a row that
/// names a field or value the scenario does not have fails to parse (and the
/// table test with it), and no JSON value machinery ships in the web app.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RowConfig {
    pub weights: Option<WeightFormat>,
    pub double_quant: Option<bool>,
    pub training_precision: Option<TrainingPrecision>,
    pub training: TrainingPatch,
    pub inference: InferencePatch,
    pub parallel: ParallelPatch,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingPatch {
    pub method: Option<Method>,
    pub checkpointing: Option<Checkpointing>,
    pub optimizer: Option<Optimizer>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InferencePatch {
    pub engine: Option<Engine>,
    pub new_tokens: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParallelPatch {
    pub strategy: Option<Strategy>,
    pub offload: Option<Offload>,
    pub sequence_parallel: Option<bool>,
}

impl RowConfig {
    /// Sets the fields the row names; leaves the rest.
    pub fn apply(&self, sc: &mut Scenario) {
        fn set<T: Clone>(field: &mut T, value: &Option<T>) {
            if let Some(v) = value {
                *field = v.clone();
            }
        }
        set(&mut sc.weights, &self.weights);
        set(&mut sc.double_quant, &self.double_quant);
        set(&mut sc.training_precision, &self.training_precision);
        set(&mut sc.training.method, &self.training.method);
        set(&mut sc.training.checkpointing, &self.training.checkpointing);
        set(&mut sc.training.optimizer, &self.training.optimizer);
        set(&mut sc.inference.engine, &self.inference.engine);
        set(&mut sc.inference.new_tokens, &self.inference.new_tokens);
        set(&mut sc.parallel.strategy, &self.parallel.strategy);
        set(&mut sc.parallel.offload, &self.parallel.offload);
        set(
            &mut sc.parallel.sequence_parallel,
            &self.parallel.sequence_parallel,
        );
    }
}

#[derive(Deserialize)]
struct TableFile {
    rows: Vec<DecisionRow>,
}

const TABLE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/decision_table.json"));

/// Parses a table in the format of `data/decision_table.json`.
pub fn parse_table(json: &str) -> std::result::Result<Vec<DecisionRow>, serde_json::Error> {
    serde_json::from_str::<TableFile>(json).map(|t| t.rows)
}

/// The shipped table, parsed once (empty if the embedded JSON were broken;
/// `tests/wizard.rs` guards against that).
pub fn decision_table() -> &'static [DecisionRow] {
    static TABLE: OnceLock<Vec<DecisionRow>> = OnceLock::new();
    TABLE.get_or_init(|| parse_table(TABLE_JSON).unwrap_or_default())
}

/// What the wizard recommends, with its reasons and the estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    pub row_id: String,
    pub row_text: Text,
    pub source: String,
    /// Why the row matched: the computed ratios against its ranges.
    pub why: Text,
    pub params: u64,
    /// Usable bytes of one GPU per parameter (`None` without a GPU).
    pub bytes_per_param: Option<f64>,
    pub total_bytes_per_param: Option<f64>,
    pub row_bytes_per_param: Range,
    pub row_total_bytes_per_param: Range,
    pub scenario: Scenario,
    pub peak_allocated_bytes: u64,
    pub peak_reserved_bytes: u64,
    pub device_used_bytes: u64,
    /// Usable bytes of one GPU (`None` without a GPU).
    pub capacity_bytes: Option<u64>,
    pub fits: Option<bool>,
    pub headroom_bytes: Option<i64>,
    /// When the row's configuration does not fit: the cheapest changes that do.
    pub plans: Vec<Plan>,
    /// What the recommended scenario changes from the user's setup
    /// (`WizardAnswers::start`), field by field: everything else is theirs.
    pub changes: Vec<FieldChange>,
}

/// The GPU's usable bytes and its catalog entry, if any.
fn resolve_answer_gpu(gpu: &WizardGpu) -> Result<(u64, Option<&'static GpuSpec>)> {
    match gpu {
        WizardGpu::Catalog(name) => find_gpu(name)
            .map(|g| (g.usable_bytes(), Some(g)))
            .ok_or_else(|| {
                InputError::new(
                    "gpu",
                    format!("\"{name}\" is not in the GPU catalog (`vramfit gpus --catalog` lists it); give the memory in bytes for another card"),
                )
            }),
        WizardGpu::MemoryBytes(b) => {
            check_range("gpu", *b, MIN_MEMORY, MAX_MEMORY)?;
            Ok((*b, None))
        }
    }
}

/// The first row that matches.
pub fn find_row(
    rows: &[DecisionRow],
    goal: Goal,
    gpu_count: u64,
    bytes_per_param: f64,
    total_bytes_per_param: f64,
    priority: Priority,
) -> Option<&DecisionRow> {
    rows.iter().find(|r| {
        r.goals.contains(&goal)
            && gpu_count >= r.gpus.min
            && r.gpus.max.is_none_or(|m| gpu_count < m)
            && (r.priorities.is_empty() || r.priorities.contains(&priority))
            && r.bytes_per_param.contains(bytes_per_param)
            && r.total_bytes_per_param.contains(total_bytes_per_param)
    })
}

/// Recursively overlays `patch` onto `base` (objects merge, the rest replaces).
/// Largest divisor of `n` that is at most `cap` and satisfies `ok`.
fn largest_divisor(n: u64, cap: u64, ok: impl Fn(u64) -> bool) -> u64 {
    (1..=cap.min(n).max(1))
        .rev()
        .find(|d| n.is_multiple_of(*d) && ok(*d))
        .unwrap_or(1)
}

/// Tensor-parallel degree within one node: vLLM and Megatron keep it to the
/// 8 GPUs an NVLink node holds (001 业界案例: 8路张量并行).
const MAX_TP_PER_NODE: u64 = 8;

fn set_layout(sc: &mut Scenario, layout: Layout, count: u64, spec: &ModelSpec) {
    let training = sc.task == TaskKind::Training;
    let p = &mut sc.parallel;
    p.gpus = count.max(1);
    match layout {
        Layout::Cpu => p.gpus = 1,
        Layout::Replicas => {
            if training && count > 1 {
                p.strategy = Strategy::Ddp;
            }
        }
        Layout::Shard => {}
        Layout::TensorParallel => {
            p.tp = largest_divisor(count, count, |d| spec.heads.is_multiple_of(d));
        }
        Layout::ThreeD => {
            p.tp = largest_divisor(count, MAX_TP_PER_NODE, |d| spec.heads.is_multiple_of(d));
            let rest = count / p.tp;
            p.pp = largest_divisor(rest, spec.layers, |_| true);
        }
    }
}

/// The scenario the answers describe before any row applies: the user's
/// setup (or the defaults) with the goal's task, the answers' model and GPU,
/// the GPUs' layout left to the row, and 16-bit in the type the GPU supports.
fn base_scenario(a: &WizardAnswers, gpu: Option<&GpuSpec>) -> Scenario {
    let mut sc = Scenario {
        model: a.model.clone(),
        task: match a.goal {
            Goal::Serve => TaskKind::Inference,
            Goal::TrainFull | Goal::FineTune => TaskKind::Training,
        },
        parallel: Parallel::default(),
        ..a.start.clone().unwrap_or_default()
    };
    let uses_bf16 = sc.weights == WeightFormat::Bf16 || sc.compute_dtype == Dtype::Bf16;
    if gpu.is_some_and(|g| !g.bf16) && uses_bf16 {
        sc.weights = WeightFormat::Fp16;
        sc.compute_dtype = Dtype::Fp16;
    }
    sc.gpu = match &a.gpu {
        Some(WizardGpu::Catalog(_)) if a.gpu_count > 0 => GpuChoice {
            name: gpu.map(|g| g.id.clone()),
            ..GpuChoice::default()
        },
        Some(WizardGpu::MemoryBytes(b)) if a.gpu_count > 0 => GpuChoice {
            memory_bytes: Some(*b),
            ..GpuChoice::default()
        },
        _ => GpuChoice::default(),
    };
    sc
}

/// Walks the decision table for the answers.
pub fn recommend(a: &WizardAnswers) -> Result<Recommendation> {
    check_range("gpu_count", a.gpu_count, 0, MAX_COUNT)?;
    if a.gpu_count == 0 && a.goal != Goal::Serve {
        return Err(InputError::new(
            "gpu_count",
            format!("0 is out of range for training: allowed 1 to {MAX_COUNT} (only serving can run without a GPU)"),
        ));
    }
    let gpu = match (&a.gpu, a.gpu_count) {
        (_, 0) => None,
        (Some(g), _) => Some(resolve_answer_gpu(g)?),
        (None, _) => {
            return Err(InputError::new(
                "gpu",
                "choose a GPU (a catalog name or its memory in bytes) or set gpu_count to 0",
            ))
        }
    };
    let spec = resolve_model(&a.model)?;
    let params = effective_counts(&spec).total.max(1);
    let capacity = gpu.map(|(bytes, _)| bytes);
    let per_gpu = capacity.map_or(0.0, |c| c as f64 / params as f64);
    let total = per_gpu * a.gpu_count as f64;
    let table = decision_table();
    let row =
        find_row(table, a.goal, a.gpu_count, per_gpu, total, a.priority).ok_or_else(|| {
            InputError::new(
                "decision_table",
                format!(
                    "no row covers goal {:?} with {} GPU(s) at {:.2} B/param",
                    a.goal,
                    a.gpu_count,
                    Decimal(per_gpu)
                ),
            )
        })?;

    let mut sc = base_scenario(a, gpu.and_then(|(_, g)| g));
    set_layout(&mut sc, row.layout, a.gpu_count, &spec);
    row.config.apply(&mut sc);
    let e = estimate_with_model(&sc, &spec)?;
    let g = e.headline_gpu();
    let fits = capacity.map(|c| g.device_used_bytes <= c);
    let plans = match (capacity, fits) {
        (Some(c), Some(false)) => {
            let options = PlanOptions {
                weights: a.priority.cost_weights(),
                ..PlanOptions::default()
            };
            fix_plans_with_model(&sc, &spec, c, &options)?.plans
        }
        _ => Vec::new(),
    };
    Ok(Recommendation {
        row_id: row.id.clone(),
        row_text: row.text.clone(),
        source: row.source.clone(),
        why: why(row, a, params, capacity, per_gpu, total),
        params,
        bytes_per_param: capacity.map(|_| per_gpu),
        total_bytes_per_param: capacity.map(|_| total),
        row_bytes_per_param: row.bytes_per_param,
        row_total_bytes_per_param: row.total_bytes_per_param,
        peak_allocated_bytes: g.peak_allocated_bytes,
        peak_reserved_bytes: g.peak_reserved_bytes,
        device_used_bytes: g.device_used_bytes,
        capacity_bytes: capacity,
        fits,
        headroom_bytes: capacity.map(|c| {
            (c as i128 - g.device_used_bytes as i128).clamp(i64::MIN as i128, i64::MAX as i128)
                as i64
        }),
        plans,
        changes: changes(&a.start.clone().unwrap_or_default(), &sc),
        scenario: sc,
    })
}

/// The fields of `to` that differ from `from` and mean something in `to`.
fn changes(from: &Scenario, to: &Scenario) -> Vec<FieldChange> {
    crate::scenario::fields::FIELDS
        .iter()
        .filter(|f| f.applies(to) && f.differs(from, to))
        .map(|f| FieldChange {
            key: f.key.to_owned(),
            path: f.path.to_owned(),
            label: f.label.map(str::to_owned),
            from: f.get_text(from),
            to: f.get_text(to),
        })
        .collect()
}

fn why(
    row: &DecisionRow,
    a: &WizardAnswers,
    params: u64,
    capacity: Option<u64>,
    per_gpu: f64,
    total: f64,
) -> Text {
    let billions = Decimal(params as f64 / 1e9);
    let (per_gpu, total) = (Decimal(per_gpu), Decimal(total));
    let Some(c) = capacity else {
        return Text {
            en: format!("No GPU: a {billions:.2}B-parameter model served on the CPU."),
            zh: format!("没有 GPU：{billions:.2}B 参数的模型在 CPU 上推理。"),
        };
    };
    let gib = Decimal(c as f64 / (1u64 << 30) as f64);
    let (en_band, zh_band) = band_words(row.bytes_per_param);
    let (en_many, zh_many) = if a.gpu_count > 1 {
        (
            format!(", {total:.2} on all {} GPUs together", a.gpu_count),
            format!("，{} 块 GPU 合计 {total:.2} 字节", a.gpu_count),
        )
    } else {
        (String::new(), String::new())
    };
    let (en_priority, zh_priority) = if row.priorities.is_empty() {
        (String::new(), String::new())
    } else {
        let word = format!("{:?}", a.priority).to_ascii_lowercase();
        (
            format!(", and you put {word} first"),
            format!("，且你优先考虑 {word}"),
        )
    };
    Text {
        en: format!(
            "{gib:.2} GiB per GPU for {billions:.2}B parameters is {per_gpu:.2} bytes per parameter{en_many}: {en_band}{en_priority}."
        ),
        zh: format!(
            "每块 GPU {gib:.2} GiB、{billions:.2}B 参数，即每参数 {per_gpu:.2} 字节{zh_many}：{zh_band}{zh_priority}。"
        ),
    }
}

/// The row's bytes-per-parameter range in words ("between 2.45 and 3.68
/// bytes per parameter"), in English and Chinese.
fn band_words(r: Range) -> (String, String) {
    match (r.min.map(Decimal), r.max.map(Decimal)) {
        (Some(lo), Some(hi)) => (
            format!("this setup is the guide's choice between {lo} and {hi} bytes per parameter"),
            format!("指南在每参数 {lo} 到 {hi} 字节之间推荐这一方案"),
        ),
        (Some(lo), None) => (
            format!("this setup is the guide's choice from {lo} bytes per parameter up"),
            format!("指南在每参数 {lo} 字节以上推荐这一方案"),
        ),
        (None, Some(hi)) => (
            format!("this setup is the guide's choice below {hi} bytes per parameter"),
            format!("指南在每参数低于 {hi} 字节时推荐这一方案"),
        ),
        (None, None) => (
            "this setup is the guide's choice at any memory".to_owned(),
            "指南在任何显存下都推荐这一方案".to_owned(),
        ),
    }
}
