//! What the opened link got wrong: each parameter named, with what was used instead.

use leptos::prelude::*;

use crate::i18n::tr;
use crate::state::use_state;

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
