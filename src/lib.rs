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
pub mod hub_fetch;
pub mod i18n;
pub mod importer;
pub mod link;
pub mod pwa;
pub mod remember;
pub mod state;
pub mod storage;

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
use link::{Page, View};
use state::AppState;

/// The calculator page (`index.html`). Reads the link it was opened with,
/// then keeps the address bar in step with every input; with `embed=1`, the
/// compact embed instead (whose address stays as opened: it is inside
/// someone else's page).
#[component]
pub fn App() -> impl IntoView {
    page_shell(Page::Calculator, |view| match view {
        View::Calculator => view! { <Calculator/> }.into_any(),
        _ => opening_other_page(),
    })
}

/// The tools page (`tools/index.html`, its own wasm): the wizard, the OOM
/// doctor and the log reader, with the same header, tabs and link state.
#[component]
pub fn ToolsApp() -> impl IntoView {
    page_shell(Page::Tools, |view| match view {
        View::Wizard => view! { <Wizard/> }.into_any(),
        View::Doctor => view! { <Doctor/> }.into_any(),
        View::Logs => view! { <Logs/> }.into_any(),
        View::Calculator => opening_other_page(),
    })
}

/// Receives the address of a page load instead of the browser.
type PageLoadReceiver = Box<dyn Fn(&str)>;

thread_local! {
    /// Where page loads go instead of the address bar (the browser tests,
    /// which run inside one page).
    static PAGE_LOADS: std::cell::RefCell<Option<PageLoadReceiver>> =
        const { std::cell::RefCell::new(None) };
}

/// Sends every later page load to `receive` instead of the browser.
pub fn intercept_page_loads(receive: impl Fn(&str) + 'static) {
    PAGE_LOADS.with(|slot| *slot.borrow_mut() = Some(Box::new(receive)));
}

/// Opens `address` (relative to this page): the other page of the site.
fn load_page(address: &str) {
    let intercepted = PAGE_LOADS.with(|slot| match slot.borrow().as_ref() {
        Some(receive) => {
            receive(address);
            true
        }
        None => false,
    });
    if !intercepted {
        // A failure leaves this page showing "opening…" with the link intact.
        let _ = window().location().assign(address);
    }
}

/// What a page shows for a view the other page holds, while it loads.
fn opening_other_page() -> AnyView {
    view! { <p class="page-loading" aria-live="polite">{i18n::tr("page-loading")}</p> }.into_any()
}

/// Header, tabs and the view this page holds; a view of the other page
/// loads that page with the same link.
fn page_shell(page: Page, render: fn(View) -> AnyView) -> AnyView {
    let mut opened = link::read(&remember::query_to_open(&state::location_query()));
    let embed = opened.embed.take();
    let state = AppState::new(opened);
    provide_context(state);
    i18n::LangSignal::provide(state.lang);
    // Switched to Chinese before its texts came: fetch them, then redraw.
    #[cfg(feature = "fetched-locale")]
    Effect::new(move |_| {
        if state.lang.get() == i18n::Lang::Zh && !i18n::chinese_ready() {
            leptos::task::spawn_local(async move {
                if let Some(texts) = hub_fetch::site_file("zh.ftl").await {
                    i18n::install_chinese(&texts);
                    state.lang.update(|_| {});
                }
            });
        }
    });
    if let Some(options) = embed {
        return view! { <EmbedView options/> }.into_any();
    }
    state.sync_with_address_bar();
    Effect::new(move |_| remember::remember(&state.query.get()));
    Effect::new(move |_| {
        let view = state.view.get();
        if let Some(address) = page.address_of(view.page(), &state.query.get_untracked()) {
            load_page(&address);
        }
    });
    view! {
        <a class="skip-link" href="#main">{i18n::tr("skip-to-main")}</a>
        <Toolbar/>
        <Tabs/>
        // The mark of a stale result, drawn by result.css where it shows.
        <main
            class="layout"
            id="main"
            tabindex="-1"
            style=move || format!("--stale:\"{}\"", i18n::text(state.lang.get(), "stale-tag"))
        >
            <UpdateNotice/>
            <Notices/>
            {move || render(state.view.get())}
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
