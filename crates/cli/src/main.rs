//! `vramfit`: the native companion. Estimates with the same core as the web
//! app, scores the estimator against measured runs, reads real GPUs.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd_doctor;
mod cmd_logs;
mod output;

#[derive(Parser)]
#[command(name = "vramfit", version, about = "Will it fit? GPU memory for training and serving LLMs and VLMs.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explain a PyTorch out-of-memory message (or memory_summary table).
    Doctor(cmd_doctor::Args),
    /// Find leaks in a training log's memory readings and predict the OOM step.
    Logs(cmd_logs::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Doctor(args) => cmd_doctor::run(args),
        Command::Logs(args) => cmd_logs::run(args),
    }
}
