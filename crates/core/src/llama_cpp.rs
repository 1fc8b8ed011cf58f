//! llama.cpp as it allocates memory: GGUF tensor types by block layout and
//! quantization recipe, the buffers of a `-ngl`/`--n-cpu-moe`/`-c`
//! placement per device, and the planner that picks the flags that fit.
//! Rules read from llama.cpp's source, cited in
//! `tests/data/llama_cpp/RULES.md` and checked on published load logs
//! (`tests/data/llama_cpp/logs/`).

pub mod buffers;
pub mod ggml;
pub mod recipe;
pub mod tensors;
