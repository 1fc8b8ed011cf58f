//! `vramfit link`: the web calculator's share link for a scenario, so that a
//! result from the terminal (or a measured case) opens in the browser as is.

use std::process::ExitCode;

use vramfit_core::url::{share_url, DEFAULT_BASE};

use crate::cmd_estimate::ScenarioArgs;
use crate::output::fail;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Address of the web calculator the link opens.
    #[arg(long, value_name = "URL", default_value = DEFAULT_BASE)]
    pub base: String,
}

pub fn run(args: &Args) -> ExitCode {
    match args.scenario.build() {
        Ok(scenario) => {
            println!("{}", share_url(&args.base, &scenario));
            ExitCode::SUCCESS
        }
        Err(error) => fail(error),
    }
}
