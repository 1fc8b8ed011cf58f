//! What today's llama.cpp chooses when it is given neither `-ngl` nor `-c`:
//! its `--fit` (on by default since late 2025, `common_params::fit_params`)
//! fits the unset parameters to the device's free memory, leaving a margin
//! of 1 GiB (`fit_params_target`), in this order (`common_fit_params`,
//! `common/fit.cpp` of llama.cpp `0c1e57098bba`):
//! 1. the model's own context (`-c 0`) with every layer on the GPU, if it
//!    leaves the margin;
//! 2. else a context between 4,096 (`fit_params_min_ctx`) and the model's,
//!    interpolated linearly on the memory it takes and rounded down to 256
//!    cells, if every layer then fits;
//! 3. else 4,096 tokens and, for a MoE model whose dense weights fit with
//!    every expert in host memory, every layer on the GPU with the experts
//!    of as few layers as it takes on the CPU (its `-ot` overrides, as
//!    `--n-cpu-moe`); else the most layers that fit (`-ngl`), the output
//!    layer counted first.
//!
//! The buffers are this crate's (`llama_cpp::buffers`), which give
//! llama.cpp's own `-ngl` choice on all 20 plans measured on an H200
//! (`tests/data/llama_cpp/measured/llama_cpp_fit.jsonl`).

use serde::Serialize;

use crate::error::Result;
use crate::estimate::estimate_with_model;
use crate::model::ModelSpec;
use crate::scenario::Scenario;

/// The margin `--fit` leaves free on each device (`fit_params_target`).
pub const FIT_MARGIN_BYTES: u64 = 1 << 30;
/// The shortest context `--fit` reduces to (`fit_params_min_ctx`).
pub const FIT_MIN_CONTEXT: u64 = 4096;
/// `--fit` rounds a reduced context down to whole 256-cell blocks.
const CELLS: u64 = 256;

/// The `-c` and `-ngl` llama.cpp's `--fit` would choose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DefaultFit {
    pub n_ctx: u64,
    pub n_gpu_layers: u64,
    /// Layers whose routed experts stay in host memory (MoE models).
    pub n_cpu_moe: u64,
    /// The model's layers (`-ngl` above them puts everything on the GPU).
    pub layers: u64,
    /// Whether the choice leaves the margin (false: even `-ngl 0` at 4,096
    /// tokens does not, and llama.cpp runs into the margin or fails).
    pub leaves_margin: bool,
}

/// `--fit`'s choice for the scenario's model, file type, flags and card.
pub fn llama_cpp_default_fit(sc: &Scenario, spec: &ModelSpec) -> Result<DefaultFit> {
    let all = spec.layers + 1;
    let used_with = |ctx: u64, ngl: u64, cpu_moe: u64| -> Result<(u64, u64)> {
        let mut s = sc.clone();
        s.inference.prompt_len = ctx.max(1);
        s.inference.new_tokens = 0;
        s.inference.batch = 1;
        s.inference.gpu_layers = Some(ngl);
        s.inference.cpu_moe_layers = cpu_moe;
        let e = estimate_with_model(&s, spec)?;
        let capacity = e.capacity_bytes.unwrap_or(u64::MAX);
        Ok((e.headline_gpu().device_used_bytes, capacity))
    };
    let used = |ctx: u64, ngl: u64| used_with(ctx, ngl, 0);
    let leaves = |(used, capacity): (u64, u64)| used.saturating_add(FIT_MARGIN_BYTES) <= capacity;
    let trained = spec.context_limit();
    let at_trained = used(trained, all)?;
    let fit = |n_ctx, n_gpu_layers, leaves_margin| DefaultFit {
        n_ctx,
        n_gpu_layers,
        n_cpu_moe: 0,
        layers: spec.layers,
        leaves_margin,
    };
    if leaves(at_trained) {
        return Ok(fit(trained, all, true));
    }
    let min_ctx = FIT_MIN_CONTEXT.min(trained);
    let at_min = used(min_ctx, all)?;
    if leaves(at_min) {
        // Linear between the two contexts' memory, as fit.cpp interpolates.
        let target = at_min.1.saturating_sub(FIT_MARGIN_BYTES);
        let span = at_trained.0.saturating_sub(at_min.0).max(1) as u128;
        let extra = (trained - min_ctx) as u128 * (target - at_min.0) as u128 / span;
        let ctx = (min_ctx + extra as u64) / CELLS * CELLS;
        return Ok(fit(ctx.max(min_ctx), all, true));
    }
    if spec.moe.is_some() && leaves(used_with(min_ctx, all, spec.layers)?) {
        for k in 1..=spec.layers {
            if leaves(used_with(min_ctx, all, k)?) {
                return Ok(DefaultFit {
                    n_cpu_moe: k,
                    ..fit(min_ctx, all, true)
                });
            }
        }
    }
    for ngl in (0..all).rev() {
        if leaves(used(min_ctx, ngl)?) {
            return Ok(fit(min_ctx, ngl, true));
        }
    }
    Ok(fit(min_ctx, 0, false))
}
