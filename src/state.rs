//! The page's reactive state: the scenario and units (mirrored in the URL),
//! the model and estimate derived from them, and the pinned result.

use leptos::prelude::*;
use vramfit_core::estimate::{estimate_with_model, resolve_model};
use vramfit_core::model::ModelSpec;
use vramfit_core::report::GpuReport;
use vramfit_core::url::Notice;
use vramfit_core::{Estimate, InputError, Scenario};

use crate::format::Units;
use crate::i18n::{browser_lang, Lang};
use crate::link::{self, PageSettings, View, WizardChoice};

/// Pause after the last input before the fit table and chart recompute: long
/// enough to coalesce a burst of keystrokes, short enough to feel immediate
/// (well under the ~100 ms people perceive as a delay).
const SETTLE_DELAY: std::time::Duration = std::time::Duration::from_millis(30);

/// Pause after the last edit of a pasted text before it is parsed: a paste
/// arrives as one input event, typing as many; 250 ms is a typing pause.
pub const PASTE_DELAY: std::time::Duration = std::time::Duration::from_millis(250);

/// A copy of `source` that follows it once it has been still for `delay`:
/// heavy work reads the copy, so a burst of edits costs one computation.
pub fn debounced<T>(source: RwSignal<T>, delay: std::time::Duration) -> RwSignal<T>
where
    T: Clone + Send + Sync + 'static,
{
    let settled = RwSignal::new(source.get_untracked());
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |first: Option<()>| {
        let next = source.get();
        if first.is_none() {
            return;
        }
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        // Settle after the browser has painted this edit's echo.
        let handle = set_timeout_with_handle(move || settled.set(next), delay).ok();
        pending.set_value(handle);
    });
    settled
}

/// A result kept for comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Pinned {
    pub model: String,
    pub query: String,
    pub report: GpuReport,
}

#[derive(Clone, Copy)]
pub struct AppState {
    pub scenario: RwSignal<Scenario>,
    pub units: RwSignal<Units>,
    /// The view shown (tabs), in the link as `view=`.
    pub view: RwSignal<View>,
    /// The language of the page, in the link as `lang=zh`.
    pub lang: RwSignal<Lang>,
    /// The wizard's goal and priority (`goal=`, `prio=`).
    pub wizard: RwSignal<WizardChoice>,
    /// What the opened link got wrong (kept until dismissed).
    pub notices: RwSignal<Vec<Notice>>,
    pub spec: Memo<Result<ModelSpec, InputError>>,
    pub estimate: Memo<Result<Estimate, InputError>>,
    pub pinned: RwSignal<Option<Pinned>>,
    /// The query string the state maps to (without `?`).
    pub query: Memo<String>,
    /// The scenario once typing pauses: what the heavy views (fit table,
    /// chart) follow, so a keystroke paints at once and they catch up after.
    pub settled: RwSignal<Scenario>,
    /// Why the result on screen is not for what the user last asked (a
    /// config that did not import, a search with no match): shown until the
    /// scenario next changes.
    pub stale: RwSignal<Option<Stale>>,
}

/// What made the result on screen stale.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stale {
    /// The pasted config.json did not import (the error is beside it).
    ConfigError,
    /// Nothing in the catalog matches what was typed.
    NoCatalogMatch(String),
}

impl AppState {
    /// The state of a page opened with `page` (`link::read` of its address).
    pub fn new(page: link::PageState) -> Self {
        let scenario = RwSignal::new(page.scenario);
        let settings = page.settings;
        let units = RwSignal::new(settings.units);
        let view = RwSignal::new(settings.view);
        let lang = RwSignal::new(settings.lang.unwrap_or_else(browser_lang));
        let wizard = RwSignal::new(settings.wizard);
        let spec = Memo::new(move |_| scenario.with(|sc| resolve_model(&sc.model)));
        let estimate = Memo::new(move |_| {
            let spec = spec.get()?;
            scenario.with(|sc| estimate_with_model(sc, &spec))
        });
        let query = Memo::new(move |_| {
            let settings = PageSettings {
                units: units.get(),
                view: view.get(),
                lang: Some(lang.get()),
                wizard: wizard.get(),
            };
            scenario.with(|sc| link::write(sc, &settings))
        });
        let settled = debounced(scenario, SETTLE_DELAY);
        let stale = RwSignal::new(None);
        // A new scenario is a fresh result: whatever made the old one stale is gone.
        Effect::new(move |_| {
            scenario.track();
            stale.set(None);
        });
        AppState {
            scenario,
            units,
            view,
            lang,
            wizard,
            notices: RwSignal::new(page.notices),
            spec,
            estimate,
            pinned: RwSignal::new(None),
            query,
            settled,
            stale,
        }
    }

    /// Changes the scenario in place (one URL replacement, no history entry).
    pub fn update(&self, change: impl FnOnce(&mut Scenario)) {
        self.scenario.update(change);
    }

    /// Writes each new query into the address bar with `history.replaceState`
    /// (no new history entry, no scroll), and reads it back on back/forward.
    pub fn sync_with_address_bar(self) {
        Effect::new(move |_| {
            let query = self.query.get();
            if location_query() != query {
                replace_query(&query);
            }
        });
        let handle = window_event_listener(leptos::ev::popstate, move |_| {
            let page = link::read(&location_query());
            self.scenario.set(page.scenario);
            self.units.set(page.settings.units);
            self.view.set(page.settings.view);
            self.wizard.set(page.settings.wizard);
            if let Some(lang) = page.settings.lang {
                self.lang.set(lang);
            }
            self.notices.set(page.notices);
        });
        on_cleanup(move || handle.remove());
    }

    /// The full share link for the current state.
    pub fn share_link(&self) -> String {
        let location = window().location();
        let origin = location.origin().unwrap_or_default();
        let path = location.pathname().unwrap_or_default();
        format!("{origin}{path}?{}", self.query.get())
    }
}

pub fn use_state() -> AppState {
    expect_context::<AppState>()
}

/// `location.search` without the leading `?`.
pub fn location_query() -> String {
    let search = window().location().search().unwrap_or_default();
    search.strip_prefix('?').unwrap_or(&search).to_owned()
}

fn replace_query(query: &str) {
    let url = format!("?{query}");
    if let Ok(history) = window().history() {
        // A failure leaves the old address; the page itself keeps working.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
