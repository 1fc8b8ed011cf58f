//! Model picker: the catalog (searchable), a pasted or uploaded config.json
//! (through the core's importer, its errors next to the field), raw
//! architecture fields, or a bare parameter count.

mod hub;

use leptos::prelude::*;
use leptos::task::spawn_local;
use vramfit_core::catalog::search_models;
use vramfit_core::estimate::resolve_model;
use vramfit_core::model::{Arch, ModelSpec, MAX_DIM, MAX_HEADS, MAX_LAYERS};
use vramfit_core::scenario::ModelSource;
use vramfit_core::Scenario;

use crate::components::controls::{
    next_id, parse_count, parse_decimal, ActionNote, CheckField, ChoiceField, NumberField,
};
use crate::components::search_select::SearchSelect;
use crate::format;
use crate::i18n::{current_lang, lang, space, text, text_with, tr};
use crate::state::{use_state, AppState, Stale};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Catalog,
    Config,
    Custom,
    Params,
}

/// The architecture the custom fields start from: the model as it is now.
pub fn editable_spec(sc: &Scenario) -> ModelSpec {
    match &sc.model {
        ModelSource::Spec(spec) => (**spec).clone(),
        other => resolve_model(other).unwrap_or_default(),
    }
}

/// Sets one field of the custom architecture (switching the model to custom).
fn edit_spec(state: AppState, change: impl FnOnce(&mut ModelSpec)) {
    state.update(|sc| {
        let mut spec = editable_spec(sc);
        change(&mut spec);
        sc.model = ModelSource::Spec(Box::new(spec));
    });
}

/// One of the custom fields as a number input.
fn dimension(
    state: AppState,
    label: &'static str,
    max: u64,
    get: fn(&ModelSpec) -> u64,
    set: fn(&mut ModelSpec, u64),
) -> impl IntoView {
    let value = Signal::derive(move || state.scenario.with(|sc| get(&editable_spec(sc))));
    let on_change = Callback::new(move |n: u64| edit_spec(state, |s| set(s, n)));
    view! { <NumberField label value on_change parse=move |t| parse_count(t, 1, max)/> }
}

#[component]
pub fn ModelPicker() -> impl IntoView {
    let state = use_state();
    let initial = state.scenario.with_untracked(|sc| match sc.model {
        ModelSource::Catalog(_) => Mode::Catalog,
        ModelSource::Spec(_) => Mode::Custom,
        ModelSource::Params(_) => Mode::Params,
    });
    let mode = RwSignal::new(initial);
    // What was last typed in the catalog search: names a pasted config.
    let typed = RwSignal::new(String::new());
    let mode_button = move |m: Mode, key: &'static str| {
        view! {
            <label class="tab">
                <input
                    type="radio"
                    name="model-mode"
                    prop:checked=move || mode.get() == m
                    on:change=move |_| mode.set(m)
                />
                {tr(key)}
            </label>
        }
    };
    let summary = move || match state.estimate.get() {
        Ok(e) => {
            let lang = lang();
            let mut shown = text_with(
                lang,
                "model-summary",
                &[
                    ("model", e.model.clone()),
                    ("params", format::count(e.params)),
                ],
            );
            if e.approximate {
                shown.push_str(space(lang));
                shown.push_str(&text(lang, "model-guessed"));
            }
            shown
        }
        Err(_) => String::new(),
    };
    view! {
        <section class="panel model-picker" aria-labelledby="model-heading">
            <h2 id="model-heading">{tr("model-heading")}</h2>
            <fieldset class="tabs">
                <legend class="visually-hidden">{tr("model-how")}</legend>
                {mode_button(Mode::Catalog, "model-catalog")}
                {mode_button(Mode::Config, "model-config")}
                {mode_button(Mode::Custom, "model-custom")}
                {mode_button(Mode::Params, "model-params")}
            </fieldset>
            {move || match mode.get() {
                Mode::Catalog => view! { <CatalogSearch mode typed/> }.into_any(),
                Mode::Config => view! { <ConfigImport typed/> }.into_any(),
                Mode::Custom => view! { <CustomFields/> }.into_any(),
                Mode::Params => view! { <ParamCount/> }.into_any(),
            }}
            <p class="model-summary" data-testid="model-summary">{summary}</p>
        </section>
    }
}

#[component]
fn CatalogSearch(mode: RwSignal<Mode>, typed: RwSignal<String>) -> impl IntoView {
    let state = use_state();
    let query = typed;
    let hits = Memo::new(move |_| query.with(|q| search_models(q)));
    let no_match =
        Memo::new(move |_| hits.with(Vec::is_empty) && query.with(|q| !q.trim().is_empty()));
    // A Hub id the catalog does not know can be fetched from the Hub.
    let hub_id = Memo::new(move |_| {
        if !no_match.get() {
            return None;
        }
        query.with(|q| vramfit_core::hub::parse_hub_id(q))
    });
    // The notice names the whole query as typed so far, not its first
    // letters that matched nothing.
    Effect::new(move |_| {
        if no_match.get() {
            state
                .stale
                .set(Some(Stale::NoCatalogMatch(query.get().trim().to_owned())));
        }
    });
    let choice = |m: &vramfit_core::catalog::CatalogModel| {
        let label = format!("{} · {} · {}", m.name, format::count(m.params), m.family);
        (m.id.clone(), label)
    };
    let options = Signal::derive(move || hits.get().into_iter().map(choice).collect::<Vec<_>>());
    let selected = Signal::derive(move || {
        state.scenario.with(|sc| match &sc.model {
            ModelSource::Catalog(id) => vramfit_core::catalog::find_model(id).map(|m| m.id.clone()),
            _ => None,
        })
    });
    let label_of = Callback::new(move |id: String| {
        vramfit_core::catalog::find_model(&id).map(|m| choice(m).1)
    });
    let list_label = Signal::derive(move || {
        text_with(
            lang(),
            "model-list",
            &[("count", hits.with(Vec::len).to_string())],
        )
    });
    view! {
        <SearchSelect
            search_label=Signal::derive(|| text(lang(), "model-search"))
            list_label
            placeholder="llama 8b"
            query
            options
            selected
            label_of
            on_pick=Callback::new(move |id: String| state.update(|sc| sc.model = ModelSource::Catalog(id)))
            search_testid="model-search"
            list_testid="model-select"
            rows=7
        />
        <ActionNote
            class="no-match"
            testid="model-no-match"
            button_testid="model-paste-instead"
            text=Signal::derive(move || {
                no_match.get().then(|| {
                    text_with(lang(), "model-no-match", &[("query", query.get().trim().to_owned())])
                })
            })
            action=Signal::derive(move || Some(text(lang(), "model-paste-instead")))
            on_click=Callback::new(move |_| mode.set(Mode::Config))
        />
        {move || hub_id.get().map(|id| {
            let id = Signal::derive(move || id.clone());
            view! { <hub::HubFetch id/> }
        })}
    }
}

#[component]
fn ConfigImport(typed: RwSignal<String>) -> impl IntoView {
    let state = use_state();
    let text = RwSignal::new(String::new());
    let message = RwSignal::new(None::<Result<String, String>>);
    // The importer answers later (crate::importer): only the latest text's
    // answer is shown.
    let latest = StoredValue::new(0u64);
    let import = move |json: String| {
        let ticket = latest.get_value() + 1;
        latest.set_value(ticket);
        text.set(json.clone());
        // A config.json rarely names its model: the id the user typed does.
        let asked = typed.get_untracked().trim().to_owned();
        spawn_local(async move {
            let outcome = crate::importer::import_config(&json).await;
            if latest.try_get_value() != Some(ticket) {
                return;
            }
            message.set(Some(match outcome {
                Ok((mut spec, checkpoint, unmodelled)) => {
                    if spec.name.is_empty() && !asked.is_empty() {
                        spec.name = asked;
                    }
                    let name = if spec.name.is_empty() {
                        "model".to_owned()
                    } else {
                        spec.name.clone()
                    };
                    let mut stored = None;
                    state.update(|sc| {
                        sc.model = ModelSource::Spec(Box::new(spec));
                        // a quantized checkpoint loads as it is stored
                        stored = checkpoint.filter(|q| q.apply(sc));
                    });
                    let mut line = text_with(current_lang(), "config-imported", &[("name", name)]);
                    hub::say_stored(&mut line, stored, unmodelled);
                    Ok(line)
                }
                Err(e) => {
                    state.stale.set(Some(Stale::ConfigError));
                    Err(e)
                }
            }));
        });
    };
    let on_file = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|input| input.files())
            .and_then(|files| files.get(0));
        if let Some(file) = file {
            let promise = file.text();
            spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(promise).await {
                    Ok(v) => import(v.as_string().unwrap_or_default()),
                    Err(_) => message.set(Some(Err(crate::i18n::text(
                        current_lang(),
                        "config-unreadable",
                    )))),
                }
            });
        }
    };
    let area_id = next_id("config");
    let file_id = next_id("config-file");
    view! {
        <div class="field">
            <label for=area_id.clone()>{tr("config-paste")}</label>
            <textarea
                id=area_id
                rows="6"
                spellcheck="false"
                data-testid="config-json"
                aria-describedby="config-msg"
                prop:value=move || text.get()
                on:input=move |ev| import(event_target_value(&ev))
            ></textarea>
            <span
                id="config-msg"
                class="field-msg"
                class:field-error=move || matches!(message.get(), Some(Err(_)))
                data-testid="config-message"
                role="status"
            >
                {move || match message.get() {
                    Some(Ok(m)) | Some(Err(m)) => m,
                    None => crate::i18n::text(lang(), "config-hint"),
                }}
            </span>
        </div>
        <div class="field">
            <label for=file_id.clone()>{tr("config-upload")}</label>
            <input id=file_id type="file" accept=".json,application/json" on:change=on_file/>
        </div>
    }
}

#[component]
fn CustomFields() -> impl IntoView {
    let state = use_state();
    let arch = Signal::derive(move || state.scenario.with(|sc| editable_spec(sc).arch));
    let tied = Signal::derive(move || state.scenario.with(|sc| editable_spec(sc).tied_embeddings));
    view! {
        <div class="grid">
            <ChoiceField
                label="architecture"
                value=arch
                on_change=Callback::new(move |a: Arch| edit_spec(state, |s| s.arch = a))
            />
            {dimension(state, "hidden size", MAX_DIM, |s| s.hidden, |s, n| s.hidden = n)}
            {dimension(state, "layers", MAX_LAYERS, |s| s.layers, |s, n| s.layers = n)}
            {dimension(state, "attention heads", MAX_HEADS, |s| s.heads, |s, n| s.heads = n)}
            {dimension(state, "KV heads", MAX_HEADS, |s| s.kv_heads, |s, n| s.kv_heads = n)}
            {dimension(state, "MLP width", MAX_DIM, |s| s.intermediate, |s, n| s.intermediate = n)}
            {dimension(state, "vocabulary", MAX_DIM, |s| s.vocab, |s, n| s.vocab = n)}
        </div>
        <CheckField
            label="output head tied to the embedding"
            value=tied
            on_change=Callback::new(move |b| edit_spec(state, |s| s.tied_embeddings = b))
        />
    }
}

#[component]
fn ParamCount() -> impl IntoView {
    let state = use_state();
    let value = Signal::derive(move || {
        state.scenario.with(|sc| match sc.model {
            ModelSource::Params(n) => n as f64 / 1e9,
            _ => 7.0,
        })
    });
    let on_change = Callback::new(move |billions: f64| {
        // Billions to a whole count; the field's range keeps it within u64.
        let n = (billions * 1e9).round() as u64;
        state.update(|sc| sc.model = ModelSource::Params(n));
    });
    view! {
        <NumberField
            label="parameters (billions)"
            value
            on_change
            parse=|t| parse_decimal(t, 0.001, 17_000.0)
            hint="layer shapes are guessed from the count"
        />
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_fields_start_from_the_chosen_model() {
        let mut sc = Scenario {
            model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
            ..Scenario::default()
        };
        let spec = editable_spec(&sc);
        let catalog =
            vramfit_core::catalog::find_model("meta-llama/Llama-2-7b-hf").expect("in catalog");
        assert_eq!(spec, catalog.spec);
        // An invalid custom model is still editable (heads = 0 is kept, not replaced).
        let broken = ModelSpec {
            heads: 0,
            ..catalog.spec.clone()
        };
        sc.model = ModelSource::Spec(Box::new(broken.clone()));
        assert_eq!(editable_spec(&sc), broken);
    }
}
