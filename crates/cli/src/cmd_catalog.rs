//! `vramfit catalog models|gpus [QUERY]`: what the built-in catalogs hold.

use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};
use vramfit_core::{catalog, gpu};

use crate::output::gib;

#[derive(Clone, Copy, ValueEnum)]
pub enum Which {
    Models,
    Gpus,
}

#[derive(ClapArgs)]
pub struct Args {
    /// models or gpus
    pub which: Which,
    /// Words to search for in ids and names ("llama 7b", "a100 40").
    pub query: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> ExitCode {
    match args.which {
        Which::Models => {
            let found = catalog::search_models(args.query.as_deref().unwrap_or(""));
            if args.json {
                let rows: Vec<_> = found
                    .iter()
                    .map(|m| serde_json::json!({"id": m.id, "name": m.name, "family": m.family, "params": m.params, "source": m.source}))
                    .collect();
                println!("{}", serde_json::Value::Array(rows));
            } else {
                for m in found {
                    println!(
                        "{:<58} {:<14} {:>9.2}B",
                        m.id,
                        m.family,
                        m.params as f64 / 1e9
                    );
                }
            }
        }
        Which::Gpus => {
            let found = gpu::search_gpus(args.query.as_deref().unwrap_or(""));
            if args.json {
                match serde_json::to_string(&found) {
                    Ok(s) => println!("{s}"),
                    Err(e) => return crate::output::fail(e),
                }
            } else {
                for g in found {
                    println!(
                        "{:<22} {:<36} {:>11}  {:>6.0} GB/s",
                        g.id,
                        g.name,
                        gib(g.memory_bytes),
                        g.bandwidth_gb_s
                    );
                }
            }
        }
    }
    ExitCode::SUCCESS
}
