//! One folder per component, each with its own stylesheet (linked from
//! `index.html`; `tests/styles.rs` checks that every one is).

pub mod compare;
pub mod controls;
pub mod fit_table;
pub mod gpu_picker;
pub mod model_picker;
pub mod notices;
pub mod result;
pub mod sweep_chart;
pub mod task_panel;
pub mod toolbar;
