//! vramfit-core: estimates the GPU memory of training and serving LLMs and VLMs.
//!
//! Pure library: plain structs in, plain structs out, no I/O. Every byte count
//! it returns carries the formula that produced it.

// Bad input must never panic (the core runs inside the wasm app): no
// unwrap, expect or panic outside tests (clippy.toml allows them in tests).
#![warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod attention_run;
pub mod catalog;
pub mod decimal;
pub mod doctor;
pub mod error;
pub mod gpu;
pub mod hf_config;
pub mod hub;
pub mod image_tokens;
pub mod inventory;
pub mod lang;
pub mod logs;
pub mod model;
pub mod precision;
pub mod scenario;
pub mod search;
pub mod solver;
pub mod url;
pub mod video_tokens;

pub use error::{InputError, Result};
pub mod activations;
pub mod band;
pub mod cases;
pub mod compressed_kv;
pub mod cross_attention;
pub mod dequant;
pub mod estimate;
pub mod inference;
pub mod job_config;
pub mod llama_cpp;
pub mod llama_cpp_fit;
pub mod offload;
pub mod overhead;
pub mod parallel;
pub mod plan;
pub mod positions;
pub mod reconcile;
pub mod recurrent_state;
pub mod report;
pub mod resolved;
pub mod serving;
pub mod short_sort;
pub mod trainable;
pub mod training;
pub mod vision;
pub mod weights;
pub mod wizard;
pub mod zero3;

pub use estimate::estimate;
pub use report::{Estimate, GpuReport, Line, Part};
pub use scenario::Scenario;
