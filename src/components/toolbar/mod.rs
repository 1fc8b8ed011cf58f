//! Title bar: units and language toggles and the share link with its copy button.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::format::Units;
use crate::i18n::{text, tr, Lang};
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
        let link_text = link.get_untracked();
        spawn_local(async move {
            let clipboard = window().navigator().clipboard();
            let done = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&link_text)).await;
            let lang = state.lang.get_untracked();
            copy_status.set(match done {
                Ok(_) => text(lang, "copied"),
                Err(_) => text(lang, "copy-failed"),
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
    let lang_button = move |lang: Lang, name: &'static str| {
        view! {
            <button
                type="button"
                lang=if lang == Lang::Zh { "zh" } else { "en" }
                data-testid=format!("lang-{}", if lang == Lang::Zh { "zh" } else { "en" })
                aria-pressed=move || (state.lang.get() == lang).to_string()
                on:click=move |_| state.lang.set(lang)
            >
                {name}
            </button>
        }
    };
    view! {
        <header class="toolbar">
            <h1>"vramfit"</h1>
            <p class="tagline">{tr("tagline")}</p>
            <div class="units" role="group" aria-label=tr("units")>
                {unit_button(Units::Binary, "GiB")}
                {unit_button(Units::Decimal, "GB")}
            </div>
            <div class="units lang" role="group" aria-label=tr("language")>
                {lang_button(Lang::En, "English")}
                {lang_button(Lang::Zh, "中文")}
            </div>
            <div class="share">
                <label for="share-link" class="visually-hidden">{tr("share-link")}</label>
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
                    {tr("copy-link")}
                </button>
                <span class="copy-status" role="status">{move || copy_status.get()}</span>
            </div>
        </header>
    }
}
