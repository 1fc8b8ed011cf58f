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

#[component]
pub fn Tabs() -> impl IntoView {
    let state = use_state();
    view! {
        <nav class="view-tabs" aria-label=tr("views")>
            <div role="tablist">
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
