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
    /// Case-insensitive text to search for in ids and names.
    pub query: Option<String>,
    #[arg(long)]
    pub json: bool,
}

fn matches(query: &Option<String>, fields: &[&str]) -> bool {
    match query {
        None => true,
        Some(q) => {
            let q = q.to_lowercase();
            fields.iter().any(|f| f.to_lowercase().contains(&q))
        }
    }
}

pub fn run(args: Args) -> ExitCode {
    match args.which {
        Which::Models => {
            let found: Vec<_> = catalog::models()
                .iter()
                .filter(|m| matches(&args.query, &[&m.id, &m.name, &m.family]))
                .collect();
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
            let found: Vec<_> = gpu::gpus()
                .iter()
                .filter(|g| matches(&args.query, &[&g.id, &g.name, &g.vendor]))
                .collect();
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
