//! `vramfit plan`: the cheapest changes that make a setup fit its GPU.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::llama_cpp_fit::{llama_cpp_default_fit, DefaultFit};
use vramfit_core::offload::{plan_offload, OffloadPlan, Placement};
use vramfit_core::plan::{fix_plans, Plan, PlanOptions, PlanReport};
use vramfit_core::scenario::{Engine, TaskKind};
use vramfit_core::url::share_url;

use crate::output::{fail, gib};
use crate::scenario_args::ScenarioArgs;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// How many plans to propose (1 to 20).
    #[arg(long, default_value_t = 3)]
    pub max_plans: usize,
    /// Most GPUs a plan may add up to (1 to 1024).
    #[arg(long, default_value_t = 64)]
    pub max_gpus: u64,
    /// A JSON list of plans (changes, cost, peak_allocated_bytes, scenario, url, ...).
    #[arg(long)]
    pub json: bool,
    /// Address of the web calculator each plan's share link opens.
    #[arg(long, value_name = "URL", default_value = vramfit_core::url::DEFAULT_BASE)]
    pub base: String,
}

pub fn run(args: Args) -> ExitCode {
    let sc = match args.scenario.build() {
        Ok(sc) => sc,
        Err(e) => return fail(e),
    };
    // llama.cpp: where each layer goes comes first, as flags to paste.
    if sc.task == TaskKind::Inference && sc.inference.engine == Engine::LlamaCpp {
        let planned = vramfit_core::estimate::resolve_model(&sc.model).and_then(|spec| {
            let plan = plan_offload(&sc, &spec)?;
            // What llama.cpp picks itself with no -ngl/-c (its --fit).
            Ok((plan, llama_cpp_default_fit(&sc, &spec).ok()))
        });
        match planned {
            Ok((p, default_fit)) if args.json => {
                let mut v = serde_json::to_value(&p).unwrap_or(serde_json::Value::Null);
                if let (Some(map), Some(fit)) = (v.as_object_mut(), &default_fit) {
                    map.insert(
                        "llama_cpp_default_fit".to_owned(),
                        serde_json::to_value(fit).unwrap_or(serde_json::Value::Null),
                    );
                }
                return match serde_json::to_string_pretty(&v) {
                    Ok(s) => {
                        println!("{s}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(e),
                };
            }
            Ok((p, default_fit)) => print_offload(&p, default_fit.as_ref()),
            Err(e) => return fail(e),
        }
    }
    let options = PlanOptions {
        max_plans: args.max_plans,
        max_gpus: args.max_gpus,
        ..PlanOptions::default()
    };
    let report = match fix_plans(&sc, &options) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    if args.json {
        // Each plan with its share link beside its scenario.
        let plans: Vec<serde_json::Value> = report
            .plans
            .iter()
            .map(|p| {
                let mut v = serde_json::to_value(p).unwrap_or(serde_json::Value::Null);
                if let Some(obj) = v.as_object_mut() {
                    obj.insert("url".into(), share_url(&args.base, &p.scenario).into());
                }
                v
            })
            .collect();
        match serde_json::to_string_pretty(&plans) {
            Ok(s) => println!("{s}"),
            Err(e) => return fail(e),
        }
    } else {
        print_report(&report, &args.base);
    }
    ExitCode::SUCCESS
}

pub fn print_plan(rank: usize, p: &Plan, base: &str) {
    println!(
        "plan {rank}: {:.2}× step time, {:.1}% quality risk, {:.0}× GPUs (score {:.1})",
        p.cost.slowdown, p.cost.quality_risk_pct, p.cost.gpu_factor, p.cost.score
    );
    for c in &p.changes {
        println!("  - {}  /  {}", c.en, c.zh);
        println!(
            "      speed: {} · quality: {}",
            c.speed_cost.en, c.quality_risk.en
        );
        if let Some(source) = c.sources.first() {
            println!("      source: {source}");
        }
    }
    println!(
        "  peak allocated {}, device used {} of {} ({} to spare)",
        gib(p.peak_allocated_bytes),
        gib(p.device_used_bytes),
        gib(p.capacity_bytes),
        gib(p.headroom_bytes.max(0) as u64)
    );
    println!("  {}", share_url(base, &p.scenario));
}

fn print_report(r: &PlanReport, base: &str) {
    if r.fits {
        println!(
            "already fits: {} of {} used; nothing to change",
            gib(r.device_used_bytes),
            gib(r.capacity_bytes)
        );
        return;
    }
    if r.pool_verdict {
        println!(
            "does NOT fit: the KV pool is short by {} for the requested sequences",
            gib(r.headroom_bytes.unsigned_abs())
        );
    } else {
        println!(
            "does NOT fit: {} needed of {} (short by {})",
            gib(r.device_used_bytes),
            gib(r.capacity_bytes),
            gib(r.headroom_bytes.unsigned_abs())
        );
    }
    if r.plans.is_empty() {
        println!(
            "no plan within the limits fits ({} candidates estimated): try a larger GPU, --max-gpus, or a smaller model",
            r.evaluated
        );
    }
    for (i, p) in r.plans.iter().enumerate() {
        println!();
        print_plan(i + 1, p, base);
    }
}

/// The llama.cpp placement: flags, Ollama options, memory on each side.
fn print_offload(p: &OffloadPlan, default_fit: Option<&DefaultFit>) {
    let what = match p.placement {
        Placement::AllOnGpu => "everything on the GPU",
        Placement::ExpertsOnCpu => "all layers on the GPU, some experts in host memory",
        Placement::LayersOnCpu => "some layers on the CPU",
        Placement::CpuOnly => "CPU only",
    };
    println!("llama.cpp placement: {what}");
    println!("  llama.cpp: {}", p.llama_cpp_flags);
    if let Some(f) = default_fit {
        let ngl = match (f.n_gpu_layers > f.layers, f.n_cpu_moe) {
            (true, 0) => "all layers".to_owned(),
            (true, k) => format!("all layers, the experts of the first {k} in host memory"),
            (false, _) => format!("-ngl {}", f.n_gpu_layers),
        };
        println!(
            "  with no -ngl/-c, llama.cpp's --fit (on by default, 1 GiB left free) picks -c {} and {ngl}{}",
            f.n_ctx,
            if f.leaves_margin {
                ""
            } else {
                " and still does not leave its margin"
            }
        );
    }
    println!("  Ollama:    {}", p.ollama_options);
    println!(
        "  GPU {} of {} · host RAM {}",
        gib(p.gpu_bytes),
        gib(p.capacity_bytes),
        gib(p.cpu_ram_bytes)
    );
    match p.max_context {
        Some(c) => println!("  longest -c with this placement: {c} tokens"),
        None => println!("  no context fits with this placement"),
    }
    println!("  {}", p.trade_off);
    println!();
}
