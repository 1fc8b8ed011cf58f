//! vramfit web calculator: Leptos (client-side rendered) over `vramfit-core`,
//! called directly as Rust.
//!
//! The URL is the state: every input lives in the query string (through the
//! core's codec, shared with `vramfit link`), replaced in place as the user
//! types so that history is not flooded and the page does not scroll.

pub mod analysis;
pub mod components;
pub mod format;
pub mod link;
pub mod state;

use leptos::prelude::*;

use components::{
    compare::Compare, fit_table::FitTable, gpu_picker::GpuPicker, model_picker::ModelPicker,
    notices::Notices, result::ResultPanel, sweep_chart::SweepChart, task_panel::TaskPanel,
    toolbar::Toolbar,
};
use state::AppState;

/// The whole page. Reads the link it was opened with, then keeps the address
/// bar in step with every input.
#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new(&state::location_query());
    provide_context(state);
    state.sync_with_address_bar();
    view! {
        <Toolbar/>
        <main class="layout">
            <Notices/>
            <section class="inputs" aria-label="Inputs">
                <ModelPicker/>
                <GpuPicker/>
                <TaskPanel/>
            </section>
            <section class="outputs" aria-label="Results">
                <ResultPanel/>
                <Compare/>
                <SweepChart/>
                <FitTable/>
            </section>
        </main>
    }
}
