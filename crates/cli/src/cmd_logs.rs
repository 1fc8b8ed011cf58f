//! `vramfit logs [FILE|-] [--capacity BYTES] [--json]`: reads memory readings
//! from a training log and says whether memory leaks and when it runs out.

use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;
use vramfit_core::doctor::size::{human_bytes, parse_size, GbMeaning};
use vramfit_core::lang::Lang;
use vramfit_core::logs::{
    analyze_log, parse_log_with, GpuPick, LogAnalysis, Point, Text, UnitReading, XUnit,
};

use crate::cmd_doctor::read_input;
use crate::output::fail;

#[derive(clap::Args)]
pub struct Args {
    /// Log file (free text, Trainer dicts, progress bars or CSV); `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// Card capacity: bytes, or with a unit (80GiB, 24GB). A GPU's "24GB" means
    /// 24 GiB, so GB here is binary. Defaults to `total_bytes` of a companion CSV.
    #[arg(long)]
    pub capacity: Option<String>,
    /// Companion CSV with several GPUs: read only this one (default: the largest at each time).
    #[arg(long)]
    pub gpu: Option<u32>,
    /// Print JSON: points, trend, growth_bytes_per_step, predicted_oom_step,
    /// series (the one used), x_unit (step|sample|seconds) and the units assumed.
    #[arg(long)]
    pub json: bool,
}

/// The JSON the issue asks for, plus the causes, the capacity used, why this
/// series and how its numbers became bytes.
#[derive(Serialize)]
struct Json<'a> {
    points: &'a [Point],
    trend: &'static str,
    growth_bytes_per_step: f64,
    final_growth_bytes_per_step: f64,
    predicted_oom_step: Option<f64>,
    capacity_bytes: Option<u64>,
    series: &'a str,
    series_reason: &'a Text,
    x_unit: XUnit,
    units: UnitReading,
    units_note: &'a Text,
    /// Every series read (name and number of readings).
    all_series: Vec<(&'a str, usize)>,
    causes: &'a [vramfit_core::logs::Cause],
}

pub fn run(args: Args) -> ExitCode {
    let capacity = match args
        .capacity
        .as_deref()
        .map(|c| parse_size(c, GbMeaning::Binary, "--capacity"))
    {
        Some(Err(error)) => return fail(error),
        Some(Ok(bytes)) => Some(bytes),
        None => None,
    };
    let text = match read_input(args.file.as_ref()) {
        Ok(text) => text,
        Err(message) => return fail(message),
    };
    let pick = args.gpu.map_or(GpuPick::Max, GpuPick::One);
    let parsed = parse_log_with(&text, pick);
    let log = match analyze_log(&parsed, capacity) {
        Ok(log) => log,
        Err(error) => return fail(format!("{} ({} lines read)", error.message, parsed.lines)),
    };
    if args.json {
        let analysis = &log.analysis;
        let json = Json {
            points: &analysis.points,
            trend: analysis.trend.name(),
            growth_bytes_per_step: analysis.growth_bytes_per_step,
            final_growth_bytes_per_step: analysis.final_growth_bytes_per_step,
            predicted_oom_step: analysis.predicted_oom_step,
            capacity_bytes: analysis.capacity_bytes,
            series: &log.series,
            series_reason: &log.series_reason,
            x_unit: log.x_unit,
            units: log.units,
            units_note: &log.units_note,
            all_series: log
                .all_series
                .iter()
                .map(|s| (s.name.as_str(), s.points.len()))
                .collect(),
            causes: &analysis.causes,
        };
        match serde_json::to_string_pretty(&json) {
            Ok(text) => println!("{text}"),
            Err(error) => return fail(error),
        }
    } else {
        print!("{}", render(&log, Lang::En));
    }
    ExitCode::SUCCESS
}

fn signed_bytes(bytes: f64) -> String {
    let sign = if bytes < 0.0 { "-" } else { "+" };
    format!("{sign}{}", human_bytes(bytes.abs() as u64))
}

fn render(log: &LogAnalysis, lang: Lang) -> String {
    let analysis = &log.analysis;
    let unit = log.x_unit.name();
    let first = analysis.points.first().map_or(0.0, |p| p.step);
    let last = analysis.points.last().map_or(0.0, |p| p.step);
    let peak = analysis.points.iter().map(|p| p.bytes).max().unwrap_or(0);
    let pick = |text: &Text| match lang {
        Lang::En => text.en.clone(),
        Lang::Zh => text.zh.clone(),
    };
    let mut out = format!(
        "series: {}\nunits: {}\n{} readings, {unit}s {first}–{last}, peak {}\ntrend: {}\ngrowth: {} per {unit} on average, {} per {unit} at the end\n",
        pick(&log.series_reason),
        pick(&log.units_note),
        analysis.points.len(),
        human_bytes(peak),
        analysis.trend.name(),
        signed_bytes(analysis.growth_bytes_per_step),
        signed_bytes(analysis.final_growth_bytes_per_step),
    );
    match (analysis.capacity_bytes, analysis.predicted_oom_step) {
        (Some(capacity), Some(step)) => out.push_str(&format!(
            "reaches {} at {unit} {step:.0}\n",
            human_bytes(capacity)
        )),
        (Some(capacity), None) => out.push_str(&format!(
            "does not reach {} on this trend\n",
            human_bytes(capacity)
        )),
        (None, _) => out.push_str("capacity unknown: pass --capacity to predict the OOM step\n"),
    }
    if !analysis.causes.is_empty() {
        out.push_str("\nlikely causes:\n");
        for cause in &analysis.causes {
            out.push_str(&format!("[{}] {}\n", cause.code, cause.text(lang)));
        }
    }
    out
}
