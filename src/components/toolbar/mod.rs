//! Title bar: units toggle and the share link with its copy button.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::format::Units;
use crate::state::use_state;

#[component]
pub fn Toolbar() -> impl IntoView {
    let state = use_state();
    let link = Memo::new(move |_| {
        state.query.track();
        state.share_link()
    });
    let copy_status = RwSignal::new(String::new());
    let copy = move |_| {
        let text = link.get_untracked();
        spawn_local(async move {
            let clipboard = window().navigator().clipboard();
            let done = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text)).await;
            copy_status.set(match done {
                Ok(_) => "Copied".to_owned(),
                Err(_) => "Select the link and copy it".to_owned(),
            });
        });
    };
    let unit_button = move |units: Units, text: &'static str| {
        view! {
            <button
                type="button"
                aria-pressed=move || (state.units.get() == units).to_string()
                on:click=move |_| state.units.set(units)
            >
                {text}
            </button>
        }
    };
    view! {
        <header class="toolbar">
            <h1>"vramfit"</h1>
            <p class="tagline">"Will it fit? GPU memory for training and serving LLMs."</p>
            <div class="units" role="group" aria-label="Units">
                {unit_button(Units::Binary, "GiB")}
                {unit_button(Units::Decimal, "GB")}
            </div>
            <div class="share">
                <label for="share-link" class="visually-hidden">"Share link"</label>
                <input
                    id="share-link"
                    data-testid="share-link"
                    readonly
                    prop:value=move || link.get()
                    on:focus=move |ev| {
                        use wasm_bindgen::JsCast;
                        if let Some(input) = ev
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                        {
                            input.select();
                        }
                    }
                />
                <button type="button" data-testid="copy-link" on:click=copy>
                    "Copy link"
                </button>
                <span class="copy-status" role="status">{move || copy_status.get()}</span>
            </div>
        </header>
    }
}
