//! `vramfit`: the native companion. Estimates with the same core as the web
//! app, scores the estimator against measured runs, reads real GPUs.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd_estimate;
mod cmd_gpus;
mod cmd_link;
mod cmd_score;
mod cmd_watch;
mod gpu;
mod output;

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
    /// Score the estimator against measured runs (JSONL cases).
    Score(cmd_score::Args),
    /// List this machine's GPUs: memory, MIG mode, processes, catalog match.
    Gpus(cmd_gpus::Args),
    /// Sample used GPU memory until Ctrl-C or --samples; optionally log a CSV.
    Watch(cmd_watch::Args),
    /// Print the web calculator's share link for a scenario or a measured case.
    Link(Box<cmd_link::Args>),
}

/// `vramfit ... | head` closes the pipe early: die quietly as other Unix
/// tools do instead of panicking on the failed write.
#[cfg(unix)]
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
        Command::Gpus(args) => cmd_gpus::run(&args),
        Command::Watch(args) => cmd_watch::run(&args),
        Command::Link(args) => cmd_link::run(&args),
    }
}
