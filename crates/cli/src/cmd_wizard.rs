//! `vramfit wizard`: four questions, the decision-table row that applies,
//! the recommended setup with its estimate, and fix-it plans if it is short.
//! Answers come from flags; each missing one is asked on stdin.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::scenario::limits::{MAX_COUNT, MAX_MEMORY, MIN_MEMORY};
use vramfit_core::scenario::{Choice, ModelSource};
use vramfit_core::wizard::{recommend, Goal, Priority, Recommendation, WizardAnswers, WizardGpu};
use vramfit_core::InputError;

use crate::output::{fail, gib};

#[derive(ClapArgs)]
pub struct Args {
    /// train_full | fine_tune | serve
    #[arg(long)]
    pub goal: Option<String>,
    /// Catalog model (Hugging Face id or short name).
    #[arg(long, short)]
    pub model: Option<String>,
    /// GPU from the catalog (e.g. rtx-4090), or "none" for no GPU.
    #[arg(long)]
    pub gpu: Option<String>,
    /// Memory of a GPU not in the catalog, in GiB (instead of --gpu).
    #[arg(long, value_name = "GIB", conflicts_with = "gpu")]
    pub gpu_memory: Option<f64>,
    /// How many GPUs (0 = none).
    #[arg(long)]
    pub gpus: Option<u64>,
    /// speed | quality | cost
    #[arg(long)]
    pub priority: Option<String>,
    /// The recommendation as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The flag's value, or the next line of stdin after printing `question` on stderr.
fn answer(
    flag: &Option<String>,
    field: &str,
    question: &str,
    input: &mut impl BufRead,
) -> Result<String, InputError> {
    if let Some(v) = flag {
        return Ok(v.clone());
    }
    if std::io::stdin().is_terminal() {
        eprint!("{question} ");
        let _ = std::io::stderr().flush();
    }
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(n) if n > 0 && !line.trim().is_empty() => Ok(line.trim().to_string()),
        Ok(_) => Err(InputError::new(
            field,
            "no answer given (pass it as a flag)",
        )),
        Err(e) => Err(InputError::new(field, format!("cannot read stdin: {e}"))),
    }
}

/// An enum answer, read as links and scenario flags read theirs.
fn parse_choice<T: Choice>(flag: &str, text: &str) -> Result<T, InputError> {
    T::parse_or_explain(text).map_err(|message| InputError::new(flag, message))
}

fn answers(args: &Args, input: &mut impl BufRead) -> Result<WizardAnswers, InputError> {
    let goal: Goal = parse_choice(
        "--goal",
        &answer(
            &args.goal,
            "--goal",
            "Goal? (train_full / fine_tune / serve)",
            input,
        )?,
    )?;
    let model = answer(
        &args.model,
        "--model",
        "Model? (catalog id, e.g. meta-llama/Llama-2-7b-hf)",
        input,
    )?;
    let gib = (1u64 << 30) as f64;
    let (min, max) = (MIN_MEMORY as f64 / gib, MAX_MEMORY as f64 / gib);
    let gpu = match args.gpu_memory {
        Some(g) if g.is_finite() && (min..=max).contains(&g) => {
            Some(WizardGpu::MemoryBytes((g * gib) as u64))
        }
        Some(g) => {
            return Err(InputError::new(
                "--gpu-memory",
                format!("{g} is out of range: allowed {min} to {max} GiB"),
            ))
        }
        None => {
            let name = answer(&args.gpu, "--gpu", "GPU? (catalog name, or none)", input)?;
            (!name.eq_ignore_ascii_case("none")).then_some(WizardGpu::Catalog(name))
        }
    };
    let gpu_count = match (args.gpus, &gpu) {
        (Some(n), _) => n,
        (None, None) => 0,
        (None, Some(_)) => {
            let text = answer(&None, "--gpus", "How many GPUs?", input)?;
            text.parse().map_err(|_| {
                InputError::new(
                    "--gpus",
                    format!("\"{text}\" is not a count: allowed 0 to {MAX_COUNT}"),
                )
            })?
        }
    };
    let priority: Priority = parse_choice(
        "--priority",
        &answer(
            &args.priority,
            "--priority",
            "What matters most? (speed / quality / cost)",
            input,
        )?,
    )?;
    Ok(WizardAnswers {
        goal,
        model: ModelSource::Catalog(model),
        gpu,
        gpu_count,
        priority,
        start: None,
    })
}

pub fn run(args: Args) -> ExitCode {
    let stdin = std::io::stdin();
    let a = match answers(&args, &mut stdin.lock()) {
        Ok(a) => a,
        Err(e) => return fail(e),
    };
    let r = match recommend(&a) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    if args.json {
        match serde_json::to_string_pretty(&r) {
            Ok(s) => println!("{s}"),
            Err(e) => return fail(e),
        }
    } else {
        print_recommendation(&r);
    }
    ExitCode::SUCCESS
}

fn print_recommendation(r: &Recommendation) {
    println!("row {}:", r.row_id);
    println!("  {}", r.row_text.en);
    println!("  {}", r.row_text.zh);
    println!("why: {}", r.why.en);
    println!("     {}", r.why.zh);
    println!("source: {}", r.source);
    if !r.changes.is_empty() {
        println!("changes from your setup:");
        for c in &r.changes {
            println!("  {}: {} → {}", c.path, c.from, c.to);
        }
    }
    let sc = &r.scenario;
    let p = &sc.parallel;
    let t = &sc.training;
    let work = if sc.task == vramfit_core::scenario::TaskKind::Training {
        format!(
            "method {:?}, checkpointing {:?}, optimizer {:?}, strategy {:?}, offload {:?}",
            t.method, t.checkpointing, t.optimizer, p.strategy, p.offload
        )
    } else {
        format!(
            "engine {:?}, batch {}, prompt {}, new tokens {}",
            sc.inference.engine,
            sc.inference.batch,
            sc.inference.prompt_len,
            sc.inference.new_tokens
        )
    };
    println!(
        "setup: weights {}, {work}, {} GPU(s) (tp {}, pp {})",
        sc.weights.name(),
        p.gpus,
        p.tp,
        p.pp
    );
    println!(
        "estimate: peak allocated {}, reserved {}, device used {}",
        gib(r.peak_allocated_bytes),
        gib(r.peak_reserved_bytes),
        gib(r.device_used_bytes)
    );
    match (r.capacity_bytes, r.headroom_bytes) {
        (Some(c), Some(h)) if h >= 0 => println!("fits: {} to spare of {}", gib(h as u64), gib(c)),
        (Some(c), Some(h)) => {
            println!(
                "does NOT fit: short by {} of {}",
                gib(h.unsigned_abs()),
                gib(c)
            );
            if r.plans.is_empty() {
                println!(
                    "no plan within the limits fits: a larger GPU, more GPUs or a smaller model"
                );
            }
            for (i, plan) in r.plans.iter().enumerate() {
                println!();
                crate::cmd_plan::print_plan(i + 1, plan, vramfit_core::url::DEFAULT_BASE);
            }
        }
        _ => println!(
            "no GPU: the process needs about {} of CPU memory",
            gib(r.device_used_bytes)
        ),
    }
}
