//! `vramfit score FILE.jsonl`: the estimator against measured runs.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::cases::{parse_cases, score_case, summarize, CaseScore, Status};

use crate::output::{fail, gib};

#[derive(ClapArgs)]
pub struct Args {
    /// Measured cases, one JSON object per line (shared/groundtruth/FORMAT.md).
    pub file: String,
    /// One JSON object per case, then a summary line.
    #[arg(long)]
    pub json: bool,
    /// Only cases of these reliabilities (comma-separated: high,medium,low).
    #[arg(long, value_delimiter = ',')]
    pub reliability: Vec<String>,
}

pub fn run(args: Args) -> ExitCode {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", args.file)),
    };
    let mut scores: Vec<CaseScore> = Vec::new();
    for parsed in parse_cases(&text) {
        match parsed {
            Ok(case) => {
                if args.reliability.is_empty()
                    || args.reliability.iter().any(|r| r == &case.reliability)
                {
                    scores.push(score_case(&case));
                }
            }
            Err(e) => return fail(format!("{}: {e}", args.file)),
        }
    }
    let summary = summarize(&scores);
    if args.json {
        for s in &scores {
            match serde_json::to_string(s) {
                Ok(line) => println!("{line}"),
                Err(e) => return fail(e),
            }
        }
        match serde_json::to_string(&serde_json::json!({ "summary": summary })) {
            Ok(line) => println!("{line}"),
            Err(e) => return fail(e),
        }
        return ExitCode::SUCCESS;
    }
    println!(
        "{:<28} {:<24} {:>11} {:>11} {:>8}  status",
        "case", "metric", "estimate", "measured", "error"
    );
    for s in &scores {
        let est = s.estimate_bytes.map_or("-".to_string(), gib);
        let mea = s.measured_bytes.map_or("-".to_string(), gib);
        let err = s
            .rel_error
            .map_or("".to_string(), |e| format!("{:+.1}%", e * 100.0));
        let status = match s.status {
            Status::Ok => "ok".to_string(),
            Status::BoundPass => "bound pass".to_string(),
            Status::BoundFail => "BOUND FAIL".to_string(),
            Status::Unsupported => format!("unsupported: {}", s.reason.as_deref().unwrap_or("")),
        };
        println!(
            "{:<28} {:<24} {:>11} {:>11} {:>8}  {status}",
            s.id, s.metric, est, mea, err
        );
    }
    let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    println!();
    println!(
        "scored {}  unsupported {}  median |error| {}  p90 |error| {}  within ±10% {}/{}  bounds passed {}/{}",
        summary.scored,
        summary.unsupported,
        pct(summary.median_abs_rel_error),
        pct(summary.p90_abs_rel_error),
        summary.within_10pct,
        summary.scored,
        summary.bound_pass,
        summary.bound_pass + summary.bound_fail
    );
    ExitCode::SUCCESS
}
