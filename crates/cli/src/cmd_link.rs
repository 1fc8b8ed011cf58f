//! `vramfit link`: the web calculator's share link for a scenario, so that a
//! result from the terminal (or a measured case) opens in the browser as is.
//! `--detect` fills in this machine's GPU model and count; `--open` opens it.

use std::process::ExitCode;

use vramfit_core::inventory::Inventory;
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

/// This machine's GPUs (read through NVML), as the core's inventory rule
/// names them in a scenario.
fn detected_gpu(scenario: &mut Scenario) -> Result<(), String> {
    let devices = open_source()
        .and_then(|s| s.devices())
        .map_err(|e| e.to_string())?;
    let machine = Inventory::new(devices)
        .machine_gpus()
        .map_err(|e| e.to_string())?;
    machine.apply(scenario);
    Ok(())
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
