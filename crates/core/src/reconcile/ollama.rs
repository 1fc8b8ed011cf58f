//! `ollama ps`: the models Ollama has loaded, each with its SIZE (the
//! memory of its llama.cpp runner, `format.HumanBytes`: GB of 10^9 bytes to
//! 0.1), where it sits (PROCESSOR: `100% GPU`, `100% CPU`, or `48%/52%
//! CPU/GPU`, the shares of SIZE rounded to whole percents) and, since Ollama
//! 0.6, its CONTEXT (the runner's `num_ctx` times its parallel requests:
//! llama.cpp's `-c`). The scenario is llama.cpp's with the model the NAME
//! stands for in Ollama's library.

use crate::catalog::find_model;
use crate::doctor::size::{read_number, size_at, GbMeaning};
use crate::precision::WeightFormat;
use crate::scenario::{Engine, ModelSource, Scenario, TaskKind};

use super::reading::{Figure, Reading, RuntimeLog};

/// Longest line read.
const MAX_LINE: usize = 1024;
/// Ollama's `num_ctx` before the CONTEXT column was printed (Ollama < 0.6).
const OLD_DEFAULT_CONTEXT: u64 = 2048;

/// An Ollama library name (before the `:`), its default size tag, and the
/// catalog model of each size tag.
type Family = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Ollama's library: the catalog model whose architecture each GGUF carries.
const LIBRARY: &[Family] = &[
    (
        "llama2",
        "7b",
        &[
            ("7b", "meta-llama/Llama-2-7b-hf"),
            ("13b", "meta-llama/Llama-2-13b-hf"),
            ("70b", "meta-llama/Llama-2-70b-hf"),
        ],
    ),
    ("llama3", "8b", &[("8b", "meta-llama/Meta-Llama-3-8B")]),
    (
        "llama3.1",
        "8b",
        &[
            ("8b", "meta-llama/Llama-3.1-8B-Instruct"),
            ("70b", "meta-llama/Llama-3.1-70B"),
            ("405b", "meta-llama/Llama-3.1-405B"),
        ],
    ),
    (
        "llama3.2",
        "3b",
        &[
            ("1b", "meta-llama/Llama-3.2-1B"),
            ("3b", "meta-llama/Llama-3.2-3B"),
        ],
    ),
    (
        "llama3.3",
        "70b",
        &[("70b", "meta-llama/Llama-3.3-70B-Instruct")],
    ),
    ("mistral", "7b", &[("7b", "mistralai/Mistral-7B-v0.3")]),
    (
        "mistral-nemo",
        "12b",
        &[("12b", "mistralai/Mistral-Nemo-Base-2407")],
    ),
    (
        "mistral-small",
        "24b",
        &[("24b", "mistralai/Mistral-Small-24B-Instruct-2501")],
    ),
    (
        "mixtral",
        "8x7b",
        &[
            ("8x7b", "mistralai/Mixtral-8x7B-v0.1"),
            ("8x22b", "mistralai/Mixtral-8x22B-v0.1"),
        ],
    ),
    (
        "qwen2.5",
        "7b",
        &[
            ("0.5b", "Qwen/Qwen2.5-0.5B"),
            ("1.5b", "Qwen/Qwen2.5-1.5B"),
            ("3b", "Qwen/Qwen2.5-3B"),
            ("7b", "Qwen/Qwen2.5-7B-Instruct"),
            ("14b", "Qwen/Qwen2.5-14B"),
            ("32b", "Qwen/Qwen2.5-32B"),
            ("72b", "Qwen/Qwen2.5-72B-Instruct"),
        ],
    ),
    (
        "qwen2.5-coder",
        "7b",
        &[
            ("7b", "Qwen/Qwen2.5-Coder-7B-Instruct"),
            ("32b", "Qwen/Qwen2.5-Coder-32B-Instruct"),
        ],
    ),
    (
        "qwen3",
        "8b",
        &[
            ("0.6b", "Qwen/Qwen3-0.6B"),
            ("1.7b", "Qwen/Qwen3-1.7B"),
            ("4b", "Qwen/Qwen3-4B"),
            ("8b", "Qwen/Qwen3-8B"),
            ("14b", "Qwen/Qwen3-14B"),
            ("30b", "Qwen/Qwen3-30B-A3B"),
            ("32b", "Qwen/Qwen3-32B"),
            ("235b", "Qwen/Qwen3-235B-A22B"),
        ],
    ),
    ("qwq", "32b", &[("32b", "Qwen/QwQ-32B")]),
    (
        "gemma2",
        "9b",
        &[
            ("2b", "google/gemma-2-2b"),
            ("9b", "google/gemma-2-9b"),
            ("27b", "google/gemma-2-27b"),
        ],
    ),
    (
        "gemma3",
        "4b",
        &[
            ("270m", "google/gemma-3-270m"),
            ("1b", "google/gemma-3-1b-it"),
            ("4b", "google/gemma-3-4b-it"),
            ("12b", "google/gemma-3-12b-it"),
            ("27b", "google/gemma-3-27b-it"),
        ],
    ),
    (
        "phi3",
        "3.8b",
        &[
            ("3.8b", "microsoft/Phi-3-mini-4k-instruct"),
            ("mini", "microsoft/Phi-3-mini-4k-instruct"),
            ("14b", "microsoft/Phi-3-medium-4k-instruct"),
            ("medium", "microsoft/Phi-3-medium-4k-instruct"),
        ],
    ),
    (
        "phi3.5",
        "3.8b",
        &[("3.8b", "microsoft/Phi-3.5-mini-instruct")],
    ),
    ("phi4", "14b", &[("14b", "microsoft/phi-4")]),
    (
        "phi4-mini",
        "3.8b",
        &[("3.8b", "microsoft/Phi-4-mini-instruct")],
    ),
    (
        "deepseek-r1",
        "8b",
        &[
            ("1.5b", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B"),
            ("7b", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"),
            ("8b", "Qwen/Qwen3-8B"),
            ("14b", "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B"),
            ("32b", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"),
            ("70b", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"),
            ("671b", "deepseek-ai/DeepSeek-R1"),
        ],
    ),
    (
        "command-r",
        "35b",
        &[("35b", "CohereForAI/c4ai-command-r-v01")],
    ),
    (
        "tinyllama",
        "1.1b",
        &[(
            "1.1b",
            "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
        )],
    ),
    (
        "smollm2",
        "1.7b",
        &[
            ("135m", "HuggingFaceTB/SmolLM2-135M"),
            ("360m", "HuggingFaceTB/SmolLM2-360M"),
            ("1.7b", "HuggingFaceTB/SmolLM2-1.7B"),
        ],
    ),
];

/// One model row of the table.
struct Row {
    name: String,
    size: f64,
    size_rounding: f64,
    /// The share on the GPUs, 0 to 1.
    gpu_share: Option<f64>,
    context: Option<u64>,
    line: String,
}

/// Reads `ollama ps`; `None` when no header line `NAME ID SIZE PROCESSOR`
/// is found. Rows it cannot read are named in `unread`.
pub fn read(text: &str) -> Option<RuntimeLog> {
    let mut lines = text.lines().map(|l| cut(l.trim(), MAX_LINE));
    let header = lines.by_ref().find(|l| is_header(l))?;
    let has_context = header.split_whitespace().any(|w| w == "CONTEXT");
    let mut log = RuntimeLog {
        engine: "ollama".to_owned(),
        ..RuntimeLog::default()
    };
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        // The table ends at a blank line or one without a model's ID (the
        // first 12 hex digits of its digest): what follows is another paste.
        let id = line.split_whitespace().nth(1).unwrap_or_default();
        if id.len() != 12 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            break;
        }
        match row(line, has_context) {
            Ok(r) => rows.push(r),
            Err(what) => log.unread.push(format!("ollama ps, row {}: {what}", i + 1)),
        }
    }
    let Some(first) = rows.first() else {
        if log.unread.is_empty() {
            log.unread
                .push("ollama ps lists no loaded model (run a model, then ollama ps)".to_owned());
        }
        return Some(log);
    };
    if rows.len() > 1 {
        log.assumed.push(format!(
            "ollama ps lists {} models: the first, {}, is compared",
            rows.len(),
            first.name
        ));
    }
    log.readings.push(Reading {
        figure: Figure::OllamaSize,
        value: first.size,
        rounding: first.size_rounding,
        line: first.line.clone(),
    });
    if let Some(share) = first.gpu_share {
        log.readings.push(Reading {
            figure: Figure::GpuShare,
            value: share,
            // Whole percents.
            rounding: 0.005,
            line: first.line.clone(),
        });
    }
    log.scenario = scenario(first, &mut log);
    Some(log)
}

fn cut(line: &str, max: usize) -> &str {
    let mut end = line.len().min(max);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

fn is_header(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().take(8).collect();
    words.len() >= 4 && words[..4] == ["NAME", "ID", "SIZE", "PROCESSOR"]
}

/// `NAME ID SIZE(number unit) PROCESSOR [CONTEXT] UNTIL…`, read by words so
/// that a paste whose column spacing was lost still reads.
fn row(line: &str, has_context: bool) -> Result<Row, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let name = words.first().copied().unwrap_or_default();
    let Some(&number) = words.get(2) else {
        return Err(format!("\"{line}\" has no SIZE"));
    };
    let unit = words.get(3).copied().unwrap_or_default();
    let printed = format!("{number} {unit}");
    let (size, _) = size_at(printed.as_bytes(), 0, GbMeaning::Decimal)
        .ok_or_else(|| format!("SIZE \"{printed}\" of {name} is not a size"))?;
    // `%.1f GB`: ±0.05 GB; a whole number (newer Ollama prints `11 GB` for
    // 11.x GB) is cut, not rounded: up to one unit more.
    let unit_bytes = crate::doctor::size::unit_multiplier(unit, GbMeaning::Decimal).unwrap_or(1.0);
    let size_rounding = if number.contains('.') {
        size.rounding_bytes as f64
    } else {
        unit_bytes
    };
    let rest = &words[4.min(words.len())..];
    let (gpu_share, used) = processor(rest)
        .ok_or_else(|| format!("PROCESSOR \"{}\" of {name} is not read", rest.join(" ")))?;
    let context = if has_context {
        let word = rest.get(used).copied().unwrap_or_default();
        Some(
            word.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("CONTEXT \"{word}\" of {name} is not a token count"))?,
        )
    } else {
        None
    };
    Ok(Row {
        name: name.to_owned(),
        size: size.bytes as f64,
        size_rounding,
        gpu_share,
        context,
        line: line.to_owned(),
    })
}

/// PROCESSOR: the GPU share (`None` for `Unknown`) and the words it took.
fn processor(words: &[&str]) -> Option<(Option<f64>, usize)> {
    let first = *words.first()?;
    if first.eq_ignore_ascii_case("unknown") {
        return Some((None, 1));
    }
    let second = words.get(1).copied().unwrap_or_default();
    let percent = |s: &str| -> Option<f64> {
        let n = s.strip_suffix('%')?;
        let (v, _, end) = read_number(n.as_bytes(), 0)?;
        (end == n.len() && v <= 100.0).then_some(v / 100.0)
    };
    match second {
        "GPU" => Some((Some(percent(first)?), 2)),
        "CPU" => Some((Some(1.0 - percent(first)?), 2)),
        "CPU/GPU" => {
            let (_, gpu) = first.split_once('/')?;
            Some((Some(percent(gpu)?), 2))
        }
        _ => None,
    }
}

/// The catalog model a library name stands for (`qwen2.5:14b-instruct-q8_0`),
/// and the size tag read (or taken as the library's default).
fn library_model(name: &str, assumed: &mut Vec<String>) -> Option<&'static str> {
    let name = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let (family, tag) = name.split_once(':').unwrap_or((name.as_str(), "latest"));
    let (_, default, sizes) = LIBRARY.iter().find(|(f, _, _)| *f == family)?;
    let size = tag.split('-').next().unwrap_or_default();
    let size = match sizes.iter().find(|(s, _)| *s == size) {
        Some((s, _)) => *s,
        None => {
            assumed.push(format!(
                "ollama tag {family}:{tag}: read as {family}:{default}, the library's default"
            ));
            default
        }
    };
    sizes.iter().find(|(s, _)| *s == size).map(|(_, id)| *id)
}

/// The quantization a tag names (`8b-instruct-q8_0`), if any.
fn tag_format(name: &str) -> Option<Result<WeightFormat, String>> {
    let tag = name.split_once(':')?.1.to_ascii_lowercase();
    tag.split('-').find_map(|part| {
        Some(match part {
            "q4_k_m" => Ok(WeightFormat::GgufQ4KM),
            "q5_k_m" => Ok(WeightFormat::GgufQ5KM),
            "q3_k_m" => Ok(WeightFormat::GgufQ3KM),
            "q2_k" => Ok(WeightFormat::GgufQ2K),
            "q6_k" => Ok(WeightFormat::GgufQ6K),
            "q8_0" => Ok(WeightFormat::GgufQ8_0),
            "q4_0" => Ok(WeightFormat::GgufQ4_0),
            "fp16" | "f16" => Ok(WeightFormat::Fp16),
            "bf16" => Ok(WeightFormat::Bf16),
            p if p.starts_with('q') && p.len() > 1 && p.as_bytes()[1].is_ascii_digit() => {
                Err(p.to_owned())
            }
            _ => return None,
        })
    })
}

fn scenario(row: &Row, log: &mut RuntimeLog) -> Scenario {
    let mut sc = Scenario {
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    match library_model(&row.name, &mut log.assumed) {
        Some(id) if find_model(id).is_some() => {
            log.model = Some(id.to_owned());
            sc.model = ModelSource::Catalog(id.to_owned());
        }
        _ => {
            // Named, so that the doctor says which model it could not find.
            log.model = Some(row.name.clone());
            sc.model = ModelSource::Catalog(row.name.clone());
        }
    }
    sc.weights = match tag_format(&row.name) {
        Some(Ok(format)) => format,
        Some(Err(other)) => {
            log.assumed
                .push(format!("quantization {other} is read as Q4_K_M"));
            WeightFormat::GgufQ4KM
        }
        None => {
            log.assumed.push(
                "the tag names no quantization: Q4_K_M, the library's usual default".to_owned(),
            );
            WeightFormat::GgufQ4KM
        }
    };
    let inf = &mut sc.inference;
    inf.engine = Engine::LlamaCpp;
    match row.context {
        Some(n) => inf.prompt_len = n,
        None => {
            inf.prompt_len = OLD_DEFAULT_CONTEXT;
            log.assumed.push(format!(
                "CONTEXT not printed (Ollama before 0.6): num_ctx {OLD_DEFAULT_CONTEXT}, its default then"
            ));
        }
    }
    inf.new_tokens = 0;
    inf.batch = 1;
    inf.flash_attn = false;
    log.assumed.push(
        "flash attention off and an f16 KV cache (OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE unset)"
            .to_owned(),
    );
    // Ollama's layer split is its own (`num_gpu` layers, the output layer
    // last, as the llama.cpp it vendored before PR #18148).
    inf.output_layer_last = true;
    // The layers on the GPU follow from the share once the model is known
    // (`reconcile`); all or none here.
    inf.gpu_layers = match row.gpu_share {
        Some(s) if s <= 0.0 => Some(0),
        _ => None,
    };
    sc
}
