//! vramfit web calculator: Leptos (client-side rendered) over `vramfit-core`,
//! called directly as Rust.
//!
//! The URL is the state: every input lives in the query string (through the
//! core's codec, shared with `vramfit link`), replaced in place as the user
//! types so that history is not flooded and the page does not scroll.

// Bad input must never panic (the core runs inside the wasm app): no
// unwrap, expect or panic outside tests (clippy.toml allows them in tests).
#![warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod analysis;
pub mod components;
pub mod format;
pub mod i18n;
pub mod link;
pub mod pwa;
pub mod remember;
pub mod state;

use leptos::prelude::*;

use components::{
    compare::Compare,
    doctor::Doctor,
    embed::{EmbedSnippet, EmbedView},
    fit_table::FitTable,
    gpu_picker::GpuPicker,
    logs::Logs,
    model_picker::ModelPicker,
    notices::{Notices, UpdateNotice},
    plans::CalculatorPlans,
    result::ResultPanel,
    sweep_chart::SweepChart,
    tabs::Tabs,
    task_panel::TaskPanel,
    toolbar::Toolbar,
    verdict_bar::VerdictBar,
    wizard::Wizard,
};
use link::View;
use state::AppState;

/// The whole page. Reads the link it was opened with, then keeps the address
/// bar in step with every input; with `embed=1`, the compact embed instead
/// (whose address stays as opened: it is inside someone else's page).
#[component]
pub fn App() -> impl IntoView {
    let mut page = link::read(&remember::query_to_open(&state::location_query()));
    let embed = page.embed.take();
    let state = AppState::new(page);
    provide_context(state);
    i18n::LangSignal::provide(state.lang);
    if let Some(options) = embed {
        return view! { <EmbedView options/> }.into_any();
    }
    state.sync_with_address_bar();
    Effect::new(move |_| remember::remember(&state.query.get()));
    view! {
        <a class="skip-link" href="#main">{i18n::tr("skip-to-main")}</a>
        <Toolbar/>
        <Tabs/>
        <main class="layout" id="main" tabindex="-1">
            <UpdateNotice/>
            <Notices/>
            {move || match state.view.get() {
                View::Calculator => view! { <Calculator/> }.into_any(),
                View::Wizard => view! { <Wizard/> }.into_any(),
                View::Doctor => view! { <Doctor/> }.into_any(),
                View::Logs => view! { <Logs/> }.into_any(),
            }}
        </main>
    }
    .into_any()
}

#[component]
fn Calculator() -> impl IntoView {
    view! {
        <VerdictBar/>
        <section class="inputs" aria-label=i18n::tr("inputs")>
            <ModelPicker/>
            <GpuPicker/>
            <TaskPanel/>
        </section>
        <section class="outputs" aria-label=i18n::tr("results")>
            <ResultPanel/>
            <CalculatorPlans/>
            <EmbedSnippet/>
            <Compare/>
            <SweepChart/>
            <FitTable/>
        </section>
    }
}
