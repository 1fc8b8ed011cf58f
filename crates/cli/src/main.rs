//! `vramfit`: the native companion. Estimates with the same core as the web
//! app, scores the estimator against measured runs, reads real GPUs.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
enum Command {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {}
}
