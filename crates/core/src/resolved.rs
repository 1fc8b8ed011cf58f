//! What every term of an estimate needs, resolved once from the scenario and
//! the model: the weight format in effect, the dtypes, the parameter counts,
//! the weights' bytes and each GPU's shards. The terms (training, inference,
//! overheads) read this instead of the scenario, so a rule such as "QLoRA on
//! 16-bit weights means NF4" or "AMP over fp32 weights trains fp32
//! parameters" is applied in one place.

use crate::model::{LayerParams, ModelSpec, ParamCounts};
use crate::parallel::Shards;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::scenario::{
    Attention, Inference, KbitPrep, LoraTarget, Method, Scenario, TaskKind, Training,
};
use crate::trainable::trainable_params;
use crate::weights::{quantized_targets, weight_bytes, WeightBytes};

/// One scenario on one model, resolved.
#[derive(Clone, Debug)]
pub struct Resolved<'a> {
    pub spec: &'a ModelSpec,
    /// Parameter groups, scaled to a total the source states.
    pub counts: ParamCounts,
    pub task: TaskKind,
    /// The task's own settings (read only for what they say directly).
    pub training: &'a Training,
    pub inference: &'a Inference,
    pub parallel: &'a crate::scenario::Parallel,
    pub attention: Attention,
    pub precision: TrainingPrecision,
    /// The weight format as chosen ...
    pub chosen_format: WeightFormat,
    /// ... and in effect: QLoRA on a 16-bit choice means NF4.
    pub format: WeightFormat,
    /// The 16-bit type of compute and of tensors nothing quantizes.
    pub compute: Dtype,
    /// dtype of the trainable parameters and their gradients.
    pub trainable_dtype: Dtype,
    /// torch autocast: fp32 weights with 16-bit compute.
    pub autocast: bool,
    /// The casts a 4-bit (QLoRA) model got before training.
    pub kbit_prep: KbitPrep,
    /// Parameters the training method trains (whatever the task).
    pub trainable: u128,
    /// Of those, LoRA's A and B matrices (0 for other methods) ...
    pub adapters: u128,
    /// ... and their dtype: PEFT's `autocast_adapter_dtype=True` (the
    /// default since PEFT 0.12) upcasts 16-bit adapters to fp32 (measured:
    /// "adapter weights fp32" in every LoRA row of
    /// tests/data/groundtruth/h100_measured.jsonl); else the trainable dtype.
    pub adapter_dtype: Dtype,
    /// The linears a 4/8-bit format quantizes; `None`: every linear.
    pub quantized_targets: Option<&'a [LoraTarget]>,
    /// The weights as stored, all GPUs together.
    pub weights: WeightBytes,
    /// One GPU's share of each kind of memory.
    pub shards: Shards,
    pub empty_cache_after_load: bool,
    pub expandable_segments: bool,
    pub unchunked_nf4_quantizer: bool,
    /// The images of one sample or prompt as the vision tower sees them
    /// (`None`: no tower or no images).
    pub images: Option<crate::vision::SampleImages>,
}

impl<'a> Resolved<'a> {
    /// Resolves a (validated) scenario on its model.
    pub fn new(sc: &'a Scenario, spec: &'a ModelSpec) -> Resolved<'a> {
        let counts = effective_counts(spec);
        let training = sc.task == TaskKind::Training;
        let trainable = trainable_params(spec, &counts, &sc.training);
        let adapters = if matches!(sc.training.method, Method::Lora | Method::Qlora) {
            crate::trainable::lora_params(spec, &counts, &sc.training).min(trainable)
        } else {
            0
        };
        let peft_lora =
            sc.training.method == Method::Lora && sc.training.framework.is_hugging_face();
        Resolved {
            spec,
            trainable,
            adapters,
            adapter_dtype: if peft_lora {
                Dtype::Fp32
            } else {
                trainable_dtype(sc)
            },
            weights: weight_bytes(spec, &counts, sc),
            counts,
            task: sc.task,
            training: &sc.training,
            inference: &sc.inference,
            parallel: &sc.parallel,
            attention: crate::attention_run::attention_run(sc, spec),
            precision: sc.training_precision,
            chosen_format: sc.weights,
            format: sc.effective_weights(),
            compute: sc.compute_dtype,
            trainable_dtype: trainable_dtype(sc),
            autocast: uses_autocast(sc),
            kbit_prep: sc.kbit_prep_in_effect(),
            quantized_targets: quantized_targets(sc),
            shards: Shards::new(&sc.parallel, spec.layers, training),
            empty_cache_after_load: sc.empty_cache_after_load,
            expandable_segments: sc.expandable_segments,
            unchunked_nf4_quantizer: sc.unchunked_nf4_quantizer,
            // Sizes the estimate refuses fail earlier (`with_image_tokens`).
            images: crate::vision::sample_images(sc, spec).ok().flatten(),
        }
    }

    /// Bytes of one value per trainable parameter: the adapters in their
    /// dtype, the rest in the trainable dtype (gradients, a foreach step's
    /// temporary).
    pub fn trainable_bytes(&self) -> u128 {
        (self.trainable - self.adapters) * self.trainable_dtype.bytes() as u128
            + self.adapters * self.adapter_dtype.bytes() as u128
    }

    /// The dtype a forward pass computes in when serving: fp32 weights run
    /// in fp32 (vLLM `--dtype float32`, transformers without a cast), any
    /// other format in the 16-bit compute dtype.
    pub fn serving_dtype(&self) -> Dtype {
        if self.format == WeightFormat::Fp32 {
            Dtype::Fp32
        } else {
            self.compute
        }
    }

    pub fn is_training(&self) -> bool {
        self.task == TaskKind::Training
    }

    /// Tokens the decoder of an encoder-decoder model trains on (the
    /// target); the sequence length for every other model.
    pub fn decoder_tokens(&self) -> u128 {
        let t = self.training;
        match (self.spec.encoder_layers, t.target_len) {
            (Some(e), Some(target)) if e > 0 => target as u128,
            _ => t.seq_len as u128,
        }
    }
}

/// dtype of the trainable (floating) parameters.
fn trainable_dtype(sc: &Scenario) -> Dtype {
    match sc.training_precision {
        TrainingPrecision::Fp32 => Dtype::Fp32,
        // AMP over fp32 weights (torch autocast) trains fp32 parameters;
        // 16-bit weights with an fp32 master copy have 16-bit parameters and gradients.
        TrainingPrecision::Amp if sc.weights == WeightFormat::Fp32 => Dtype::Fp32,
        TrainingPrecision::Amp | TrainingPrecision::Pure16 => match sc.weights.plain_dtype() {
            Some(Dtype::Fp32) | None => sc.compute_dtype,
            Some(d) => d,
        },
    }
}

/// torch autocast: fp32 weights with 16-bit compute (HF Trainer `fp16=True`).
/// 16-bit weights with an fp32 master copy (DeepSpeed, Megatron) run without it.
fn uses_autocast(sc: &Scenario) -> bool {
    sc.task == TaskKind::Training
        && sc.training_precision == TrainingPrecision::Amp
        && sc.weights == WeightFormat::Fp32
}

/// Parameter groups, scaled to `params_override` when the source states a
/// total the fields cannot rebuild exactly.
pub fn effective_counts(spec: &ModelSpec) -> ParamCounts {
    let mut c = spec.param_counts();
    if let Some(target) = spec.params_override {
        if c.total > 0 && target != c.total {
            let fixed = c.embedding + c.lm_head + c.other + c.vision + c.projector;
            let layers_total = c.layers.total().max(1);
            let want = target.saturating_sub(fixed).max(1);
            let scale = |x: u64| ((x as u128 * want as u128) / layers_total as u128) as u64;
            let l = &mut c.layers;
            *l = LayerParams {
                q: scale(l.q),
                k: scale(l.k),
                v: scale(l.v),
                o: scale(l.o),
                gate: scale(l.gate),
                up: scale(l.up),
                down: scale(l.down),
                router: scale(l.router),
                norms: scale(l.norms),
                biases: scale(l.biases),
                mixer: scale(l.mixer),
            };
            // what the rounding down of each group left (fewer than one
            // parameter per group), so that the total is the target
            l.norms += want.saturating_sub(l.total());
            c.total = fixed + c.layers.total();
            c.active_per_token = c.active_per_token.min(c.total);
        }
    }
    c
}
