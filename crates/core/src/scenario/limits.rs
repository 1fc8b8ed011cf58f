//! Every numeric limit of a scenario and a model, written once.
//!
//! A leaf: it imports nothing from the crate, so every module (the field
//! registry, the model checks, the planner, the faces) can read it without
//! an import circle. The limits are far above any real setup; they exist so
//! that no product of them can overflow the estimator's byte arithmetic
//! (u64 bytes, u128 intermediates) and a typo is an error, not a hang.

/// Largest sequence, prompt or generated token count: 2^24 tokens (16.8M),
/// 16× the longest context windows of 2025 models.
pub const MAX_TOKENS: u64 = 1 << 24;

/// Largest micro-batch, batch, LoRA rank, GPU count and tensor- or
/// pipeline-parallel degree: 2^16. Real batches and ranks stay under 2^12,
/// and one estimate describes one job's layout, not a whole datacenter.
pub const MAX_COUNT: u64 = 65_536;

/// Largest gradient accumulation: 2^20 micro-steps per optimizer update
/// (real runs use at most a few hundred).
pub const MAX_GRAD_ACCUM: u64 = 1 << 20;

/// Largest GPTQ/AWQ group size: 2^20 weights, wider than any layer, so
/// every per-tensor grouping is expressible (real groups are 32–128).
pub const MAX_GROUP_SIZE: u64 = 1 << 20;

/// Largest images per training sample or per prompt: 1024, far past the
/// multi-image VLM benchmarks (tens of images).
pub const MAX_IMAGES: u64 = 1024;

/// Smallest GPU capacity: 1 MiB (anything smaller holds no model at all).
pub const MIN_MEMORY: u64 = 1 << 20;
/// Largest GPU capacity: 1 PiB, 4000× today's largest cards.
pub const MAX_MEMORY: u64 = 1 << 50;

/// Smallest bare parameter count (`--params`, a `Params` model source):
/// one million; below that no Llama-shaped stand-in model is meaningful.
pub const MIN_PARAMS: u64 = 1_000_000;
/// Largest total parameter count accepted: 2^44 (17.6 trillion), 8x the
/// largest public models. Keeping every total under it means no sum or
/// product in the parameter counts or later byte math (x 16 bytes per
/// parameter for Adam in fp32) can overflow a u64.
pub const MAX_TOTAL_PARAMS: u64 = 1 << 44;

/// Largest value accepted for any architecture dimension: 2^24, well above
/// any real model (widest hidden sizes are ~2^15, vocabularies ~2^18).
pub const MAX_DIM: u64 = 1 << 24;
/// Largest layer count accepted (real models stay under 200).
pub const MAX_LAYERS: u64 = 10_000;
/// Largest head count accepted (real models stay under 256).
pub const MAX_HEADS: u64 = 65_536;
/// Largest expert count accepted (the largest public MoE models use 384).
pub const MAX_EXPERTS: u64 = 4096;
/// Largest context length or position-table size accepted: 2^30 tokens.
pub const MAX_POSITION: u64 = 1 << 30;
/// Largest image side in pixels accepted: 2^16 (VLM towers read 224–1024).
pub const MAX_IMAGE_SIZE: u64 = 1 << 16;
/// Most tiles (or crops, or grid pinpoints) an image rule may name: real
/// processors use 4 to 12; the tiling search is quadratic in it.
pub const MAX_IMAGE_TILES: u64 = 64;
/// Largest number of hidden-width norms per layer (Gemma-2 uses 4).
pub const MAX_NORMS_PER_LAYER: u64 = 16;
