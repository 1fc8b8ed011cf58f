//! `vramfit estimate`: the breakdown for one scenario.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::report::{Counter, Estimate, Verdict};
use vramfit_core::scenario::Engine;
use vramfit_core::serving::ServingPool;

use crate::output::{fail, gib};
use crate::scenario_args::ScenarioArgs;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// One JSON object with integer byte fields.
    #[arg(long)]
    pub json: bool,
}

/// The JSON `vramfit estimate --json` prints: the estimate plus the busiest
/// GPU's three totals at the top level.
pub fn estimate_json(e: &Estimate) -> serde_json::Value {
    let g = e.headline_gpu();
    let mut v = serde_json::to_value(e).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.insert("peak_allocated_bytes".into(), g.peak_allocated_bytes.into());
        obj.insert("peak_reserved_bytes".into(), g.peak_reserved_bytes.into());
        obj.insert("device_used_bytes".into(), g.device_used_bytes.into());
        obj.insert("fits".into(), e.fits().into());
        if let Ok(verdict) = serde_json::to_value(e.verdict()) {
            obj.insert("verdict".into(), verdict);
        }
        // A serving engine's answers at the top level, as the engine logs
        // them (`GPU KV cache size: N tokens`), per engine instance.
        if let Some(pool) = &e.serving {
            obj.insert("kv_pool_bytes".into(), pool.kv_pool_bytes.into());
            obj.insert("kv_pool_tokens".into(), pool.kv_pool_tokens.into());
            obj.insert(
                "max_concurrent_sequences".into(),
                pool.max_concurrent_sequences.into(),
            );
            obj.insert("max_context".into(), pool.max_context.into());
        }
    }
    v
}

/// The serving engine's pool and what it holds, for the text output.
fn print_pool(pool: &ServingPool) {
    if pool.block_bytes <= 1 {
        println!(
            "KV pool {} per GPU: no attention layers, one recurrent state per sequence",
            gib(pool.kv_pool_bytes)
        );
    } else {
        print_blocks(pool);
    }
    print_answers(pool);
}

fn print_blocks(pool: &ServingPool) {
    if pool.engine == Engine::Sglang {
        println!(
            "KV pool {} per GPU = {} tokens (max_total_num_tokens, {} per token)",
            gib(pool.kv_pool_bytes),
            pool.kv_pool_tokens,
            gib(pool.block_bytes),
        );
        return;
    }
    println!(
        "KV pool {} per GPU = {} tokens ({} blocks of {} tokens, {} per block)",
        gib(pool.kv_pool_bytes),
        pool.kv_pool_tokens,
        pool.kv_pool_tokens / pool.block_tokens.max(1),
        pool.block_tokens,
        gib(pool.block_bytes),
    );
}

fn print_answers(pool: &ServingPool) {
    let limits = &pool.limits;
    let (seqs, tokens, engine) = match pool.engine {
        Engine::Sglang => ("max_running_requests", "chunked_prefill_size", "SGLang"),
        _ => ("max_num_seqs", "max_num_batched_tokens", "vLLM"),
    };
    println!(
        "  engine: {seqs} {}, {tokens} {}{}",
        limits.max_num_seqs,
        limits.max_num_batched_tokens,
        if limits.given {
            String::new()
        } else {
            format!(" ({engine}'s defaults for this card where not given)")
        }
    );
    let prefix = if pool.shared_prefix_tokens > 0 {
        format!(
            ", {} shared prefix tokens stored once",
            pool.shared_prefix_tokens
        )
    } else {
        String::new()
    };
    println!(
        "  holds {} concurrent sequences of {} tokens{prefix} (asked: {})",
        pool.max_concurrent_sequences, pool.requested_context, pool.requested_sequences
    );
    println!(
        "  longest context at {} sequences: {} tokens{}",
        pool.requested_sequences,
        pool.max_context,
        if pool.context_bound_by_model {
            " (the model's limit)"
        } else {
            ""
        }
    );
}

pub fn print_breakdown(e: &Estimate) {
    let g = e.headline_gpu();
    println!(
        "{}  ·  {:.3}B parameters ({} trainable){}",
        e.model,
        e.params as f64 / 1e9,
        e.trainable_params,
        if e.approximate {
            "  ·  APPROXIMATE"
        } else {
            ""
        }
    );
    println!(
        "per GPU ({} GPU{}), peak during {}:",
        e.gpu_count,
        if e.gpu_count == 1 { "" } else { "s, each" },
        g.peak_phase
    );
    for l in &g.lines {
        let mark = match l.counter {
            Counter::Allocated => " ",
            Counter::Reserved => "r",
            Counter::Device => "d",
            Counter::NotAtPeak => "·",
        };
        println!(
            "  {mark} {:<40} {:>11}   {}",
            l.part.label(),
            gib(l.bytes),
            l.formula
        );
    }
    println!("  (r: reserved only · d: outside PyTorch · ·: not alive at the peak)");
    println!(
        "  peak allocated {:>11}   torch.cuda.max_memory_allocated(): live tensors",
        gib(g.peak_allocated_bytes)
    );
    println!(
        "  peak reserved  {:>11}   torch.cuda.max_memory_reserved(): + allocator cache",
        gib(g.peak_reserved_bytes)
    );
    println!(
        "  device used    {:>11}   nvidia-smi: + CUDA context, libraries, unified memory",
        gib(g.device_used_bytes)
    );
    if e.cpu_ram_bytes > 0 {
        if e.gpu_count > 1 {
            // Every GPU's process keeps its own share in host memory.
            println!(
                "CPU RAM {} per GPU process (a node with n of these GPUs holds n times it):",
                gib(e.cpu_ram_bytes)
            );
        } else {
            println!("CPU RAM {}:", gib(e.cpu_ram_bytes));
        }
        for l in &e.cpu_lines {
            println!(
                "    {:<40} {:>11}   {}",
                l.part.label(),
                gib(l.bytes),
                l.formula
            );
        }
    }
    if let Some(pool) = &e.serving {
        print_pool(pool);
    }
    match e.verdict() {
        Verdict::Fits { spare_bytes, .. } if e.serving.is_some() => println!(
            "fits: the KV pool holds the requested sequences, {} of it to spare",
            gib(spare_bytes)
        ),
        Verdict::ShortBy { .. } if e.notes.iter().any(|n| n.code == "context_beyond_model") => {
            println!("does NOT fit: the context is beyond what the model takes (see the note)")
        }
        Verdict::ShortBy { short_bytes, .. } if e.serving.is_some() => println!(
            "does NOT fit: the KV pool is short by {} for the requested sequences",
            gib(short_bytes)
        ),
        Verdict::Fits {
            spare_bytes,
            capacity_bytes,
        } => println!(
            "fits: {} to spare of {}",
            gib(spare_bytes),
            gib(capacity_bytes)
        ),
        Verdict::ShortBy {
            short_bytes,
            capacity_bytes,
        } => println!(
            "does NOT fit: short by {} of {}",
            gib(short_bytes),
            gib(capacity_bytes)
        ),
        Verdict::Unknown => {}
    }
    if let Some(b) = &e.band {
        print_band(b, g.device_used_bytes, e.capacity_bytes);
    }
    for n in &e.notes {
        println!("note: {}", n.message);
    }
}

/// The error band of the total, and the fit read through it.
fn print_band(b: &vramfit_core::band::ErrorBand, used: u64, capacity: Option<u64>) {
    if b.few_runs {
        println!(
            "band: {} to {} (few measured runs of this kind, {}: a wide ±25 % band)",
            gib(b.band_low_bytes),
            gib(b.band_high_bytes),
            b.regime
        );
    } else {
        println!(
            "band: {} to {} for 8 runs in 10 of this kind ({}, {} measured runs; the estimate was low {} % of the time)",
            gib(b.band_low_bytes),
            gib(b.band_high_bytes),
            b.regime,
            b.regime_cases,
            b.under_estimate_percent
        );
    }
    if let Some(c) = capacity {
        if let vramfit_core::band::BandedFit::FitsUnless { margin_percent } = b.fit(used, c) {
            println!("fits unless the estimate is more than {margin_percent} % low (the band's top does not fit)");
        }
    }
}

pub fn run(args: Args) -> ExitCode {
    let sc = match args.scenario.build() {
        Ok(sc) => sc,
        Err(e) => return fail(e),
    };
    let e = match vramfit_core::estimate(&sc) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    if args.json {
        println!("{}", estimate_json(&e));
    } else {
        print_breakdown(&e);
    }
    ExitCode::SUCCESS
}
