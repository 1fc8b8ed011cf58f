//! `vramfit doctor [FILE|-] [--json]`: reads a pasted error (any stack the
//! core knows: PyTorch, JAX/XLA, TensorFlow, vLLM, SGLang, TGI, llama.cpp, Ollama, MLX,
//! NCCL, cuBLAS,
//! the OS) and says what it means; a runtime's own figures (a vLLM or
//! llama.cpp start-up log, `ollama ps`, nvidia-smi) are put beside vramfit's
//! instead (`reconcile_view`).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use vramfit_core::doctor::{parse_oom, picture, size::human_bytes, Memory, OomReport};
use vramfit_core::lang::Lang;
use vramfit_core::reconcile::read_runtime_log;

use crate::reconcile_view::reconcile_log;

use crate::output::fail;

#[derive(clap::Args)]
pub struct Args {
    /// File holding the message (a log, a traceback); `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// Print JSON: out_of_memory, memory (gpu|unified|host), framework, the byte
    /// counts (null where the message does not say) and the diagnoses; for a
    /// runtime's start-up log, `reconciliation` too.
    #[arg(long)]
    pub json: bool,
    /// The model a start-up log, `ollama ps` or nvidia-smi is compared with
    /// (a catalog id, or a Hub id whose config.json is in the local cache),
    /// when the text names none the catalog knows.
    #[arg(long, short = 'm')]
    pub model: Option<String>,
}

/// Reads a file, or stdin for `-`/none. Bytes that are not UTF-8 become U+FFFD:
/// pastes with binary junk are still read.
pub fn read_input(file: Option<&PathBuf>) -> Result<String, String> {
    let mut bytes = Vec::new();
    match file {
        Some(path) if path.as_os_str() != "-" => {
            bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        _ => {
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("stdin: {e}"))?;
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn run(args: Args) -> ExitCode {
    let text = match read_input(args.file.as_ref()) {
        Ok(text) => text,
        Err(message) => return fail(message),
    };
    // A start-up log of a serving engine: its figures beside ours, and the
    // error it ends with, if any.
    if let Some(log) = read_runtime_log(&text) {
        let report = parse_oom(&text).ok();
        let reconciled = reconcile_log(&log, args.model.as_deref());
        if args.json {
            let r = match &reconciled {
                Ok(r) => serde_json::to_value(r).unwrap_or_default(),
                Err(e) => serde_json::json!({ "error": e, "log": log }),
            };
            let v = serde_json::json!({ "reconciliation": r, "oom": report });
            println!("{v}");
            return ExitCode::SUCCESS;
        }
        match &reconciled {
            Ok(r) => print!("{}", crate::reconcile_view::render(r)),
            Err(e) => {
                println!("{} read; not compared: {e}", log.engine);
                for u in &log.unread {
                    println!("  not read: {u}");
                }
            }
        }
        if let Some(report) = report.filter(|r| r.out_of_memory) {
            print!("{}", render(&report, Lang::En));
        }
        return ExitCode::SUCCESS;
    }
    let report = match parse_oom(&text) {
        Ok(report) => report,
        Err(error) => return fail(error.message),
    };
    if args.json {
        print_json(&report)
    } else {
        print!("{}", render(&report, Lang::En));
        ExitCode::SUCCESS
    }
}

fn print_json(report: &OomReport) -> ExitCode {
    match serde_json::to_string_pretty(report) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(error) => fail(error),
    }
}

/// Width of the text bar in characters.
const BAR_WIDTH: usize = 60;

fn symbol(key: &str) -> char {
    match key {
        "allocated" => '#',
        "reserved_unallocated" => '+',
        "non_pytorch" => 'x',
        "other_processes" => 'o',
        "free" => '.',
        _ => '!',
    }
}

/// What ran out, in words: the stack, the memory and whether it is an OOM.
fn headline(report: &OomReport, lang: Lang) -> String {
    let memory = match (report.memory, lang) {
        (Memory::Gpu, Lang::En) => "GPU memory",
        (Memory::Unified, Lang::En) => "unified memory (CPU and GPU share it)",
        (Memory::Host, Lang::En) => "host RAM, not GPU memory",
        (Memory::Gpu, Lang::Zh) => "显存",
        (Memory::Unified, Lang::Zh) => "统一内存（CPU 与 GPU 共用）",
        (Memory::Host, Lang::Zh) => "主机内存（不是显存）",
    };
    let stack = report.framework.name();
    match (report.out_of_memory, lang) {
        (true, Lang::En) => format!("{stack}: out of {memory}\n"),
        (true, Lang::Zh) => format!("{stack}：{memory}不足\n"),
        (false, Lang::En) => format!("{stack}: not an out-of-memory error\n"),
        (false, Lang::Zh) => format!("{stack}：不是显存不足错误\n"),
    }
}

/// The card as a bar (the request that failed shown after it) and the diagnoses.
pub fn render(report: &OomReport, lang: Lang) -> String {
    let segments = picture(report);
    let mut out = headline(report, lang);
    let gpu = report
        .gpu_index
        .map_or_else(|| "GPU".to_string(), |i| format!("GPU {i}"));
    let total = report
        .total_bytes
        .map(human_bytes)
        .unwrap_or_else(|| "capacity not given".into());
    if report.memory != Memory::Host && report.out_of_memory {
        out.push_str(&format!("{gpu} · {total}\n"));
    }
    let on_card: Vec<_> = segments.iter().filter(|s| s.key != "request").collect();
    let scale = report
        .total_bytes
        .unwrap_or_else(|| on_card.iter().map(|s| s.bytes).sum())
        .max(1);
    if !on_card.is_empty() {
        let mut bar = String::new();
        for segment in &on_card {
            let width = (segment.bytes as f64 / scale as f64 * BAR_WIDTH as f64).round() as usize;
            bar.extend(std::iter::repeat_n(
                symbol(segment.key),
                width.min(BAR_WIDTH),
            ));
        }
        let request = report
            .requested_bytes
            .map(|r| format!(" needs {} more", human_bytes(r)))
            .unwrap_or_default();
        out.push_str(&format!("[{bar}]{request}\n"));
    }
    for segment in &segments {
        let label = if lang == Lang::Zh {
            segment.label_zh
        } else {
            segment.label
        };
        out.push_str(&format!(
            "  {} {label:<34} {:>12}\n",
            symbol(segment.key),
            human_bytes(segment.bytes)
        ));
    }
    out.push('\n');
    for diagnosis in &report.diagnoses {
        out.push_str(&format!("[{}] {}\n", diagnosis.code, diagnosis.text(lang)));
    }
    out
}
