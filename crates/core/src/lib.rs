//! vramfit-core: estimates the GPU memory of training and serving LLMs and VLMs.
//!
//! Pure library: plain structs in, plain structs out, no I/O. Every byte count
//! it returns carries the formula that produced it.

pub mod doctor;
pub mod error;
pub mod gpu;
pub mod logs;
pub mod model;
pub mod precision;
pub mod scenario;

pub use error::{InputError, Result};
