//! `vramfit check`: will this job fit on the GPUs of this machine, right now?
//! Exit code 0 fits, 1 does not fit, 2 error — for job scripts.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use serde::Serialize;
use vramfit_core::estimate::{estimate_with_model, resolve_model};
use vramfit_core::gpu::find_gpu;
use vramfit_core::plan::{fix_plans_with_model, Plan, PlanOptions};
use vramfit_core::scenario::Scenario;

use crate::gpu::{open_source, DeviceInfo};
use crate::job_args::{self, JobArgs, JobConfigReport};
use crate::output::{fail, gib};
use crate::scenario_args::ScenarioArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// GPU indices to run on (default: the first `--gpus` of this machine).
    // Declared before the scenario flags: `--gpu` takes indices here, and the
    // scenario's GPU-name flag (the cards are read from the machine) is left out.
    #[arg(long = "gpu", value_name = "INDEX", num_args = 1.., value_delimiter = ',')]
    pub indices: Vec<u32>,
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    #[command(flatten)]
    pub job: JobArgs,
    /// One JSON object: per GPU free memory, need, fit; the best plan when short.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct GpuCheck {
    index: u32,
    name: Option<String>,
    catalog_id: Option<String>,
    total_bytes: u64,
    free_bytes: u64,
    needed_bytes: u64,
    fits: bool,
    /// Free minus needed: negative when short.
    headroom_bytes: i64,
}

#[derive(Serialize)]
struct CheckReport {
    fits: bool,
    gpus: Vec<GpuCheck>,
    best_plan: Option<Plan>,
    /// What each `--job-config` file set and left unused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    job_configs: Vec<JobConfigReport>,
}

fn chosen<'a>(
    devices: &'a [DeviceInfo],
    indices: &[u32],
    needed: u64,
) -> Result<Vec<&'a DeviceInfo>, String> {
    if indices.is_empty() {
        let mut all: Vec<&DeviceInfo> = devices.iter().collect();
        all.sort_by_key(|d| d.index);
        if (all.len() as u64) < needed {
            return Err(format!(
                "the job uses {needed} GPU(s) (parallel.gpus) but this machine has {}",
                all.len()
            ));
        }
        all.truncate(needed as usize);
        return Ok(all);
    }
    indices
        .iter()
        .map(|i| {
            devices
                .iter()
                .find(|d| d.index == Some(*i))
                .ok_or_else(|| format!("--gpu: no GPU with index {i} on this machine"))
        })
        .collect()
}

pub fn run(args: Args) -> ExitCode {
    let (mut sc, job_configs) = match job_args::scenario(&args.job, &args.scenario) {
        Ok(built) => built,
        Err(e) => return fail(e),
    };
    let spec = match resolve_model(&sc.model) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let devices = match open_source().and_then(|source| source.devices()) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let picked = match chosen(&devices, &args.indices, sc.parallel.gpus) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if !args.indices.is_empty() {
        sc.parallel.gpus = picked.len() as u64;
    }
    let mut checks = Vec::new();
    let mut tightest: Option<(u64, Scenario)> = None;
    for d in &picked {
        let (Some(index), Some(total), Some(free)) =
            (d.index, d.memory_total_bytes, d.memory_free_bytes)
        else {
            return fail(format!(
                "GPU {}: NVML did not report its memory, so the fit cannot be checked",
                d.index.map_or("?".into(), |i| i.to_string())
            ));
        };
        let catalog = d.name.as_deref().and_then(find_gpu);
        let mut s = sc.clone();
        s.gpu.name = catalog.map(|g| g.id.clone());
        s.gpu.memory_bytes = Some(total);
        let e = match estimate_with_model(&s, &spec) {
            Ok(e) => e,
            Err(e) => return fail(e),
        };
        let needed = e.headline_gpu().device_used_bytes;
        if tightest.as_ref().is_none_or(|(f, _)| free < *f) {
            tightest = Some((free, s.clone()));
        }
        checks.push(GpuCheck {
            index,
            name: d.name.clone(),
            catalog_id: catalog.map(|g| g.id.clone()),
            total_bytes: total,
            free_bytes: free,
            needed_bytes: needed,
            fits: needed <= free,
            headroom_bytes: (free as i128 - needed as i128)
                .clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        });
    }
    let fits = checks.iter().all(|c| c.fits);
    // Short somewhere: the cheapest change that fits the tightest GPU's free memory.
    let best_plan = match (&tightest, fits) {
        (Some((free, s)), false) => {
            let options = PlanOptions {
                max_plans: 1,
                max_gpus: 1,
                ..PlanOptions::default()
            };
            fix_plans_with_model(s, &spec, *free, &options)
                .ok()
                .and_then(|r| r.plans.into_iter().next())
        }
        _ => None,
    };
    if args.json {
        let report = CheckReport {
            fits,
            gpus: checks,
            best_plan,
            job_configs,
        };
        match serde_json::to_string(&report) {
            Ok(s) => println!("{s}"),
            Err(e) => return fail(e),
        }
    } else {
        for c in &checks {
            let name = c.name.as_deref().unwrap_or("unknown GPU");
            if c.fits {
                println!(
                    "GPU {} ({name}): fits with {} to spare ({} needed, {} free)",
                    c.index,
                    gib(c.headroom_bytes as u64),
                    gib(c.needed_bytes),
                    gib(c.free_bytes)
                );
            } else {
                println!(
                    "GPU {} ({name}): short by {} ({} needed, {} free)",
                    c.index,
                    gib(c.headroom_bytes.unsigned_abs()),
                    gib(c.needed_bytes),
                    gib(c.free_bytes)
                );
            }
        }
        if let Some(p) = &best_plan {
            println!(
                "best plan ({:.2}× step time, {:.1}% quality risk):",
                p.cost.slowdown, p.cost.quality_risk_pct
            );
            for ch in &p.changes {
                println!("  - {}", ch.en);
            }
            println!("  then {} needed", gib(p.device_used_bytes));
        } else if !fits {
            println!("no single-GPU plan fits the free memory: free the GPU or use more GPUs (`vramfit plan`)");
        }
    }
    if fits {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
