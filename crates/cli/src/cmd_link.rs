//! `vramfit link`: the web calculator's share link for a scenario, so that a
//! result from the terminal (or a measured case) opens in the browser as is.
//! `--detect` fills in this machine's GPU model and count; `--open` opens it.

use std::collections::BTreeMap;
use std::process::ExitCode;

use vramfit_core::gpu::find_gpu;
use vramfit_core::scenario::Scenario;
use vramfit_core::url::{share_url, DEFAULT_BASE};

use crate::gpu::open_source;
use crate::output::fail;
use crate::scenario_args::ScenarioArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Address of the web calculator the link opens.
    #[arg(long, value_name = "URL", default_value = DEFAULT_BASE)]
    pub base: String,
    /// Fill in the GPU model and count of this machine (read through NVML).
    #[arg(long)]
    pub detect: bool,
    /// Open the link in the default browser.
    #[arg(long)]
    pub open: bool,
}

/// The most common catalog GPU among the detected ones, and how many there are.
fn detected_gpu(scenario: &mut Scenario) -> Result<(), String> {
    let devices = open_source()
        .and_then(|s| s.devices())
        .map_err(|e| e.to_string())?;
    let mut by_model: BTreeMap<String, u64> = BTreeMap::new();
    let mut unknown = Vec::new();
    for d in &devices {
        match d.name.as_deref().and_then(find_gpu) {
            Some(g) => *by_model.entry(g.id.clone()).or_default() += 1,
            None => unknown.push(d),
        }
    }
    match by_model.into_iter().max_by_key(|(_, n)| *n) {
        Some((id, count)) => {
            scenario.gpu.name = Some(id);
            scenario.gpu.memory_bytes = None;
            scenario.parallel.gpus = count;
            Ok(())
        }
        // A card the catalog does not know: link its capacity instead.
        None => match unknown.first().and_then(|d| d.memory_total_bytes) {
            Some(total) => {
                scenario.gpu.name = None;
                scenario.gpu.memory_bytes = Some(total);
                scenario.parallel.gpus = devices.len() as u64;
                Ok(())
            }
            None => Err("no GPU with a known model or memory size was detected".into()),
        },
    }
}

/// Hands the link to the desktop's opener; vramfit itself never connects.
fn open_in_browser(link: &str) -> Result<(), String> {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![link])
    } else if cfg!(target_os = "windows") {
        ("cmd", vec!["/C", "start", "", link])
    } else {
        ("xdg-open", vec![link])
    };
    match std::process::Command::new(program).args(&args).status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!(
            "{program} failed ({status}); open the link above by hand"
        )),
        Err(e) => Err(format!(
            "cannot run {program} ({e}); open the link above by hand"
        )),
    }
}

pub fn run(args: &Args) -> ExitCode {
    let mut scenario = match args.scenario.build() {
        Ok(s) => s,
        Err(error) => return fail(error),
    };
    if args.detect {
        if let Err(e) = detected_gpu(&mut scenario) {
            return fail(e);
        }
    }
    let link = share_url(&args.base, &scenario);
    println!("{link}");
    if args.open {
        if let Err(e) = open_in_browser(&link) {
            return fail(e);
        }
    }
    ExitCode::SUCCESS
}
