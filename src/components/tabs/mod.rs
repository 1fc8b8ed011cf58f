//! The view switcher: Calculator | Wizard | Doctor | Logs. The active view is
//! in the link (`view=`; the calculator, the default, has none).

use leptos::prelude::*;

use crate::i18n::tr;
use crate::link::View;
use crate::state::use_state;

fn tab_key(view: View) -> &'static str {
    match view {
        View::Calculator => "tab-calculator",
        View::Wizard => "tab-wizard",
        View::Doctor => "tab-doctor",
        View::Logs => "tab-logs",
    }
}

/// The view a key press moves to from `current` (the WAI-ARIA tabs pattern:
/// arrows wrap around, Home and End jump to the ends).
pub fn tab_after_key(current: View, key: &str) -> Option<View> {
    let all = View::ALL;
    let i = all.iter().position(|v| *v == current)?;
    let n = all.len();
    let to = match key {
        "ArrowRight" => (i + 1) % n,
        "ArrowLeft" => (i + n - 1) % n,
        "Home" => 0,
        "End" => n - 1,
        _ => return None,
    };
    all.get(to).copied()
}

#[component]
pub fn Tabs() -> impl IntoView {
    let state = use_state();
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if let Some(next) = tab_after_key(state.view.get_untracked(), &ev.key()) {
            ev.prevent_default();
            state.view.set(next);
            // Focus follows the selection, so the next arrow press continues from it.
            let selector = format!("[data-testid='tab-{}']", next.key());
            if let Some(el) = document()
                .query_selector(&selector)
                .ok()
                .flatten()
                .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
            {
                let _ = el.focus();
            }
        }
    };
    view! {
        <nav class="view-tabs" aria-label=tr("views")>
            <div role="tablist" on:keydown=on_key>
                {View::ALL
                    .into_iter()
                    .map(|v| {
                        let label = tr(tab_key(v));
                        view! {
                            <button
                                type="button"
                                role="tab"
                                data-testid=format!("tab-{}", v.key())
                                aria-selected=move || (state.view.get() == v).to_string()
                                tabindex=move || if state.view.get() == v { "0" } else { "-1" }
                                on:click=move |_| state.view.set(v)
                            >
                                {label}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
        </nav>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_wrap_and_home_end_jump() {
        assert_eq!(
            tab_after_key(View::Calculator, "ArrowRight"),
            Some(View::Wizard)
        );
        assert_eq!(
            tab_after_key(View::Calculator, "ArrowLeft"),
            Some(View::Logs)
        );
        assert_eq!(
            tab_after_key(View::Logs, "ArrowRight"),
            Some(View::Calculator)
        );
        assert_eq!(tab_after_key(View::Doctor, "Home"), Some(View::Calculator));
        assert_eq!(tab_after_key(View::Wizard, "End"), Some(View::Logs));
        assert_eq!(tab_after_key(View::Wizard, "a"), None);
    }
}
