//! The multimodal encoder in vLLM's profile run (`GPUModelRunner.profile_run`,
//! vLLM 0.10 to 0.19): before the language model's dummy step, a VLM's
//! tower runs over a dummy batch of its largest image, and the embeddings
//! it returns stay in the encoder cache through the language model's step
//! (cleared only after the sampler's run), so the activation peak vLLM
//! reports, and subtracts before the KV pool, is the larger of the tower's
//! forward and the embeddings plus the text step.
//!
//! The batch (`vllm/multimodal/encoder_budget.py`, `compute_mm_encoder_budget`
//! and `_get_max_items_per_batch`): the encoder budget is
//! `max(max_num_batched_tokens, tokens of one item)` (both the compute
//! budget, `max_num_encoder_input_tokens`, and the cache size default to
//! `max_num_batched_tokens` in `SchedulerConfig`), and the items
//! `max(1, min(budget ÷ item tokens, max_num_seqs × items per prompt))`,
//! items per prompt being `max(1, min(limit_mm_per_prompt, max_model_len ÷
//! item tokens))`; chunked prefill (vLLM's default) lifts the cap by
//! `max_num_batched_tokens`. vLLM's vision encoders run FlashAttention or
//! SDPA kernels, so no scores are kept.

use super::pool::EngineLimits;
use crate::resolved::Resolved;
use crate::scenario::Attention;

/// vLLM's default `--limit-mm-per-prompt` for a modality
/// (`MultiModalConfig.get_limit_per_prompt`: 999 when not set).
const DEFAULT_ITEMS_PER_PROMPT: u128 = 999;

/// The encoder's part of the profile run, per GPU.
pub struct EncoderProfile {
    /// The tower's forward peak over the dummy batch.
    pub forward: u128,
    /// The embeddings held in the encoder cache through the text step.
    pub embeddings: u128,
    pub formula: String,
}

/// The encoder profile of a served VLM; `None` for a text model.
pub fn encoder_profile(r: &Resolved, limits: &EngineLimits) -> Option<EncoderProfile> {
    let tower = r.spec.vision.as_ref()?;
    let item = crate::vision::most_features(r.spec)?;
    let lm_tokens = u128::from(item.language_model_tokens).max(1);
    let tower_tokens = u128::from(item.tower_tokens).max(1);
    let budget = u128::from(limits.max_num_batched_tokens).max(lm_tokens);
    let context = u128::from(
        r.inference
            .prompt_len
            .saturating_add(r.inference.new_tokens),
    );
    let per_prompt = DEFAULT_ITEMS_PER_PROMPT.min(context / lm_tokens).max(1);
    let items = (budget / lm_tokens)
        .min(u128::from(limits.max_num_seqs) * per_prompt)
        .max(1);
    // One pass per tile of a tiling rule, else per image.
    let tiles = u128::from(item.tiles.unwrap_or(1)).max(1);
    let total = items * tower_tokens;
    let passes = if tower.block.one_sequence() {
        vec![(1, total)]
    } else {
        vec![(items * tiles, tower_tokens / tiles)]
    };
    let act = r.serving_dtype().bytes() as u128;
    let (forward, forward_formula) =
        crate::activations::tower_forward_bytes(tower, total, &passes, act, Attention::Flash);
    let hidden = u128::from(r.spec.hidden);
    let embeddings = items * lm_tokens * hidden * act;
    Some(EncoderProfile {
        forward,
        embeddings,
        formula: format!(
            "encoder over {items} largest images ({tower_tokens} tower tokens, {lm_tokens} embeddings each): {forward_formula}; embeddings {items}·{lm_tokens}·{hidden}·{act} B kept through the text step"
        ),
    })
}
