//! How data, tensor and pipeline parallelism and ZeRO/FSDP split memory per GPU.

use crate::scenario::{Offload, Parallel, Strategy};

/// Divisors for one GPU's share of each kind of memory.
#[derive(Clone, Debug)]
pub struct Shards {
    pub gpus: u128,
    pub tp: u128,
    pub pp: u128,
    /// Data-parallel ranks: gpus / (tp · pp).
    pub dp: u128,
    pub strategy: Strategy,
    pub offload: Offload,
    pub sequence_parallel: bool,
    pub layers: u128,
    pub training: bool,
}

impl Shards {
    pub fn new(p: &Parallel, layers: u64, training: bool) -> Shards {
        let tp = p.tp.max(1) as u128;
        let pp = p.pp.max(1) as u128;
        let gpus = p.gpus.max(1) as u128;
        Shards {
            gpus,
            tp,
            pp,
            dp: (gpus / (tp * pp)).max(1),
            strategy: p.strategy,
            offload: p.offload,
            sequence_parallel: p.sequence_parallel,
            layers: layers.max(1) as u128,
            training,
        }
    }

    fn zero_stage(&self) -> u8 {
        match self.strategy {
            Strategy::None | Strategy::Ddp => 0,
            Strategy::Zero1 => 1,
            Strategy::Zero2 => 2,
            Strategy::Zero3 | Strategy::Fsdp => 3,
        }
    }

    fn model_parallel(&self, bytes: u128) -> u128 {
        bytes / (self.tp * self.pp)
    }

    /// Weights held by one GPU.
    pub fn weights(&self, bytes: u128) -> u128 {
        let b = self.model_parallel(bytes);
        if self.zero_stage() >= 3 {
            b / self.dp
        } else {
            b
        }
    }

    pub fn gradients(&self, bytes: u128) -> u128 {
        let b = self.model_parallel(bytes);
        if self.zero_stage() >= 2 {
            b / self.dp
        } else {
            b
        }
    }

    pub fn optimizer(&self, bytes: u128) -> u128 {
        let b = self.model_parallel(bytes);
        if self.zero_stage() >= 1 {
            b / self.dp
        } else {
            b
        }
    }

    pub fn optimizer_offloaded(&self) -> bool {
        self.offload != Offload::None
    }

    pub fn params_offloaded(&self) -> bool {
        self.offload == Offload::OptimizerParams
    }

    /// `n` layers' worth of full (gathered) weights.
    pub fn gathered_layers(&self, weight_bytes: u128, n: u128) -> u128 {
        self.model_parallel(weight_bytes) * n / self.layers
    }

    /// ZeRO-3/FSDP gather the current layer and prefetch the next.
    pub fn zero3_gathered(&self, weight_bytes: u128, n: u128) -> u128 {
        if self.zero_stage() >= 3 && self.dp > 1 && !self.params_offloaded() {
            // Never more than the rest of a full replica (tiny models gather all).
            let full = self.model_parallel(weight_bytes);
            self.gathered_layers(weight_bytes, n)
                .min(full - full / self.dp)
        } else {
            0
        }
    }

    /// DDP keeps flat buckets as large as the gradients (PyTorch DDP with
    /// gradient_as_bucket_view=False, the default).
    pub fn ddp_bucket_bytes(&self, grad_bytes: u128) -> u128 {
        if self.strategy == Strategy::Ddp && self.gpus > 1 {
            self.model_parallel(grad_bytes)
        } else {
            0
        }
    }

    /// The attention layers with a cache of their own in the busiest
    /// pipeline stage (all of them without pipeline parallelism) and how
    /// many of those slide: stages split the layers evenly, the sliding ones
    /// among them, so the busiest stage holds `ceil(L / pp)` layers of
    /// which `floor(W / pp)` slide.
    pub fn stage_attention(&self, spec: &crate::model::ModelSpec) -> (u128, u128) {
        let pp = self.pp.max(1);
        let (cached, sliding) = spec.cached_attention_layers();
        let layers = (cached as u128).div_ceil(pp);
        (layers, (sliding as u128 / pp).min(layers))
    }

    /// `per_token`, the KV bytes of one token over the busiest stage's
    /// cached layers, split into the full-attention layers' share and the
    /// sliding-window layers' share by their widths (Gemma 4's global
    /// layers have heads of their own). `b`: bytes of a cache element.
    pub fn kv_split(
        &self,
        spec: &crate::model::ModelSpec,
        (per_token, b): (u128, u128),
    ) -> (u128, u128) {
        let (layers, windowed) = self.stage_attention(spec);
        if windowed == 0 {
            return (per_token, 0);
        }
        // sliding MLA layers with a latent of their own (Dots3-Note) cache
        // that latent and their rope key, and no indexer key
        if let Some(sw) = spec.mla.as_ref().and_then(|m| m.sliding) {
            let sliding = windowed * u128::from(sw.kv_lora_rank + sw.qk_rope_head_dim) * b;
            let sliding = sliding.min(per_token);
            return (per_token - sliding, sliding);
        }
        // every cached layer slides (DeepSeek-V4's windows are not alike:
        // some keep keys and values apart, some one tensor for both)
        if windowed == layers {
            return (0, per_token);
        }
        let (global_width, sliding_width) = spec.kv_widths(self.tp);
        let sliding = windowed * sliding_width;
        let elements = (layers - windowed) * global_width + sliding;
        let sliding_bytes = per_token / elements.max(1) * sliding;
        (per_token - sliding_bytes, sliding_bytes)
    }

    pub fn layers_per_gpu(&self, layers: u128) -> u128 {
        layers.div_ceil(self.pp)
    }

    /// 1F1B pipelining: the first stage holds up to `pp` micro-batches' activations.
    pub fn micro_batches_in_flight(&self, grad_accum: u128) -> u128 {
        if self.pp > 1 {
            self.pp.min(grad_accum.max(1))
        } else {
            1
        }
    }

    /// One GPU's share of per-layer activations under tensor parallelism.
    /// Megatron (Korthikanti et al. 2022, eq. 2): of the 34 bytes per token·h
    /// of a 16-bit layer, 24 are split across tp ranks and 10 (norms, dropout,
    /// residual) stay replicated unless sequence parallelism splits them too.
    pub fn tp_activations(&self, bytes: u128) -> u128 {
        if self.tp <= 1 {
            bytes
        } else if self.sequence_parallel {
            bytes / self.tp
        } else {
            bytes * (10 * self.tp + 24) / (34 * self.tp)
        }
    }

    /// Vocabulary-parallel logits: each rank holds V / tp columns.
    pub fn tp_logits(&self, bytes: u128) -> u128 {
        bytes / self.tp
    }

    pub fn weight_note(&self) -> String {
        let mut s = String::new();
        if self.tp > 1 {
            s += &format!(" / tp {}", self.tp);
        }
        if self.pp > 1 {
            s += &format!(" / pp {}", self.pp);
        }
        if self.zero_stage() >= 3 && self.dp > 1 {
            s += &format!(" / {} data-parallel shards", self.dp);
        }
        s
    }

    /// `formula` divided as [`Shards::weight_note`] says, in parentheses
    /// only when something divides it.
    pub fn sharded_weights(&self, formula: &str) -> String {
        let note = self.weight_note();
        if note.is_empty() {
            formula.to_string()
        } else {
            format!("({formula}){note}")
        }
    }

    pub fn gradient_note(&self) -> String {
        if self.zero_stage() >= 2 && self.dp > 1 {
            format!(" / {} shards", self.dp)
        } else {
            String::new()
        }
    }

    pub fn optimizer_note(&self) -> String {
        let mut s = if self.zero_stage() >= 1 && self.dp > 1 {
            format!(" / {} shards", self.dp)
        } else {
            String::new()
        };
        if self.optimizer_offloaded() {
            s += " (offloaded to CPU)";
        }
        s
    }
}
