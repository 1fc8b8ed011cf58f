//! `vramfit`: the native companion. Estimates with the same core as the web
//! app, scores the estimator against measured runs, reads real GPUs.

// Bad input must never panic (the core runs inside the wasm app): no
// unwrap, expect or panic outside tests (clippy.toml allows them in tests).
#![warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod child;
mod cmd_catalog;
mod cmd_check;
mod cmd_completions;
mod cmd_doctor;
mod cmd_estimate;
mod cmd_gpus;
mod cmd_link;
mod cmd_logs;
mod cmd_plan;
mod cmd_score;
mod cmd_tokens;
mod cmd_watch;
mod cmd_wizard;
mod gpu;
mod hf_cache;
mod job_args;
mod output;
mod reconcile_view;
mod scenario_args;

#[derive(Parser)]
#[command(
    name = "vramfit",
    version,
    about = "Will it fit? GPU memory for training and serving LLMs and VLMs."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Estimate the memory of one training or inference setup.
    Estimate(Box<cmd_estimate::Args>),
    /// The tokens each image costs a VLM (tower and language model), as its
    /// image processor computes them.
    Tokens(cmd_tokens::Args),
    /// Score the estimator against measured runs (JSONL cases).
    Score(cmd_score::Args),
    /// Does this job fit on this machine's GPUs now? Exit 0 fits, 1 not, 2 error.
    Check(Box<cmd_check::Args>),
    /// List the built-in model or GPU catalog.
    Catalog(cmd_catalog::Args),
    /// Explain a PyTorch out-of-memory message (or memory_summary table).
    Doctor(cmd_doctor::Args),
    /// Find leaks in a training log's memory readings and predict the OOM step.
    Logs(cmd_logs::Args),
    /// List this machine's GPUs: memory, MIG mode, processes, catalog match.
    Gpus(cmd_gpus::Args),
    /// Sample used GPU memory until Ctrl-C or --samples, or while a command
    /// runs (`watch -- python train.py`); optionally log a CSV.
    Watch(cmd_watch::Args),
    /// The cheapest changes that make a setup fit its GPU, ranked by cost.
    Plan(Box<cmd_plan::Args>),
    /// Answer four questions, get the decision-table row and a setup that fits.
    Wizard(cmd_wizard::Args),
    /// Print the web calculator's share link for a scenario or a measured case.
    Link(Box<cmd_link::Args>),
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    Completions(cmd_completions::Args),
    /// Print the man page (roff), or one command's, or write them all.
    Man(cmd_completions::ManArgs),
}

/// `vramfit ... | head` closes the pipe early: die quietly as other Unix
/// tools do instead of panicking on the failed write.
#[cfg(unix)]
#[allow(unsafe_code)] // the workspace denies unsafe; this libc call has no safe wrapper
fn restore_default_sigpipe() {
    // SAFETY: setting a signal disposition to its default at start-up, before
    // any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    restore_default_sigpipe();
    let cli = Cli::parse();
    match cli.command {
        Command::Estimate(args) => cmd_estimate::run(*args),
        Command::Score(args) => cmd_score::run(args),
        Command::Check(args) => cmd_check::run(*args),
        Command::Catalog(args) => cmd_catalog::run(args),
        Command::Tokens(args) => cmd_tokens::run(args),
        Command::Doctor(args) => cmd_doctor::run(args),
        Command::Logs(args) => cmd_logs::run(args),
        Command::Gpus(args) => cmd_gpus::run(&args),
        Command::Watch(args) => cmd_watch::run(&args),
        Command::Plan(args) => cmd_plan::run(*args),
        Command::Wizard(args) => cmd_wizard::run(args),
        Command::Link(args) => cmd_link::run(&args),
        Command::Completions(args) => cmd_completions::completions(&args, Cli::command()),
        Command::Man(args) => cmd_completions::man(&args, Cli::command()),
    }
}
