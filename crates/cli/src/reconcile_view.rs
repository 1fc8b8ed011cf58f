//! `vramfit doctor` on a runtime's start-up log: the engine's figures beside
//! ours, line by line (the core's `reconcile`).

use vramfit_core::doctor::size::human_bytes;
use vramfit_core::model::ModelSpec;
use vramfit_core::reconcile::{reconcile, Figure, Reconciliation, RuntimeLog};

/// Reconciles `log` with `model` (a catalog id or a Hub id in the local
/// cache) or the model the log names.
pub fn reconcile_log(log: &RuntimeLog, model: Option<&str>) -> Result<Reconciliation, String> {
    let id = model.or(log.model.as_deref());
    let spec: Option<ModelSpec> = match id {
        Some(id) => {
            let source = crate::scenario_args::model_source(id).map_err(|e| e.to_string())?;
            Some(vramfit_core::estimate::resolve_model(&source).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    reconcile(log, spec.as_ref()).map_err(|e| e.to_string())
}

fn value(figure: Figure, v: f64) -> String {
    if figure.is_share() {
        format!("{:.0}%", 100.0 * v)
    } else if figure.is_bytes() {
        human_bytes(v.round() as u64)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The reconciliation as text: the setup read, then one row per figure.
pub fn render(r: &Reconciliation) -> String {
    let log = &r.log;
    let sc = &log.scenario;
    let inf = &sc.inference;
    let mut out = if log.engine == "nvidia-smi" {
        format!(
            "nvidia-smi · {} · {}\n",
            r.estimate.model,
            sc.gpu
                .name
                .clone()
                .unwrap_or_else(|| human_bytes(sc.gpu.memory_bytes.unwrap_or_default())),
        )
    } else if inf.engine == vramfit_core::scenario::Engine::LlamaCpp {
        format!(
            "{} · {} · -ngl {} · -c {} · -ub {} · -fa {} · {} GPU(s)\n",
            match log.engine.as_str() {
                "ollama" => "ollama ps",
                "ollama log" => "Ollama server log",
                _ => "llama.cpp load log",
            },
            r.estimate.model,
            inf.gpu_layers
                .map_or_else(|| "all".to_owned(), |n| n.to_string()),
            inf.prompt_len,
            inf.ubatch,
            if inf.flash_attn { "on" } else { "off" },
            sc.parallel.gpus,
        )
    } else if inf.engine == vramfit_core::scenario::Engine::Sglang {
        format!(
            "SGLang start-up log · {} · tp {} · pp {} · context {} · mem_fraction_static {}\n",
            r.estimate.model,
            sc.parallel.tp,
            sc.parallel.pp,
            inf.prompt_len,
            inf.mem_fraction_static
                .map_or_else(|| "(SGLang's default)".to_owned(), |f| f.to_string()),
        )
    } else {
        format!(
            "{} {} start-up log · {} · tp {} · pp {} · context {} · gpu_memory_utilization {}\n",
            log.engine,
            log.version.as_deref().unwrap_or("(version not printed)"),
            r.estimate.model,
            sc.parallel.tp,
            sc.parallel.pp,
            inf.prompt_len,
            inf.gpu_memory_utilization,
        )
    };
    out.push_str(&format!(
        "  {:<34} {:>12} {:>12} {:>9}\n",
        "", "printed", "vramfit", "diff"
    ));
    for row in &r.rows {
        let mark = if row.within_rounding {
            " (within rounding)"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {:<34} {:>12} {:>12} {:>+8.2}%{mark}\n      ours: {}\n",
            row.figure.label(),
            value(row.figure, row.runtime),
            value(row.figure, row.ours),
            100.0 * row.difference,
            row.ours_formula,
        ));
    }
    for reading in &log.readings {
        if !r.rows.iter().any(|row| row.figure == reading.figure) {
            out.push_str(&format!(
                "  {:<34} {:>12}   (printed; not estimated)\n",
                reading.figure.label(),
                value(reading.figure, reading.value)
            ));
        }
    }
    for a in &log.assumed {
        out.push_str(&format!("  assumed: {a}\n"));
    }
    for u in &log.unread {
        out.push_str(&format!("  not read: {u}\n"));
    }
    out
}
