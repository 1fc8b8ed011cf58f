//! What the opened link got wrong: each parameter named, with what was used instead.

use leptos::prelude::*;

use crate::i18n::tr;
use crate::state::use_state;

/// A newer release took over this page's service worker: offer the reload
/// that shows it (the page keeps running the release it loaded).
#[component]
pub fn UpdateNotice() -> impl IntoView {
    let ready = RwSignal::new(false);
    crate::pwa::watch_for_updates(ready);
    view! {
        <Show when=move || ready.get()>
            <div class="notices update" role="status" data-testid="update-ready">
                <p>{tr("update-ready")}</p>
                <button type="button" on:click=move |_| { let _ = window().location().reload(); }>
                    {tr("reload")}
                </button>
            </div>
        </Show>
    }
}

#[component]
pub fn Notices() -> impl IntoView {
    let state = use_state();
    view! {
        <Show when=move || state.notices.with(|n| !n.is_empty())>
            <div class="notices" role="alert" data-testid="link-notices">
                <p>{tr("notices-intro")}</p>
                <ul>
                    {move || {
                        state
                            .notices
                            .get()
                            .into_iter()
                            .map(|n| {
                                view! {
                                    <li>
                                        <code>{n.param}</code>
                                        ": "
                                        {n.message}
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
                <button type="button" on:click=move |_| state.notices.set(Vec::new())>
                    {tr("dismiss")}
                </button>
            </div>
        </Show>
    }
}
