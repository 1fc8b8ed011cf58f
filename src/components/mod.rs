//! One folder per component, each with its own stylesheet (linked from
//! `index.html`; `tests/styles.rs` checks that every one is).

pub mod compare;
pub mod controls;
pub mod doctor;
pub mod embed;
pub mod fit_table;
pub mod gpu_picker;
pub mod logs;
pub mod model_picker;
pub mod notices;
pub mod plans;
pub mod reconcile;
pub mod result;
pub mod search_select;
pub mod sweep_chart;
pub mod tabs;
pub mod task_panel;
pub mod toolbar;
pub mod totals;
pub mod verdict_bar;
pub mod wizard;
