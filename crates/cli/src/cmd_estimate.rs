//! `vramfit estimate`: the breakdown for one scenario.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::report::{Counter, Estimate, Verdict};

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
    }
    v
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
        println!("CPU RAM {}:", gib(e.cpu_ram_bytes));
        for l in &e.cpu_lines {
            println!(
                "    {:<40} {:>11}   {}",
                l.part.label(),
                gib(l.bytes),
                l.formula
            );
        }
    }
    match e.verdict() {
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
    for n in &e.notes {
        println!("note: {}", n.message);
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
