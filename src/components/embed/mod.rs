//! Embed mode's views: the compact calculator of `embed=1` (the result, the
//! inputs the author listed in `show=`, an "open in vramfit" link), which
//! posts its height to the parent page so the iframe fits its content, and
//! the full app's "Embed" panel that writes the iframe snippet.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vramfit_core::report::Verdict;
use vramfit_core::scenario::fields::{Choices, Field, Kind};
use vramfit_core::scenario::Scenario;

use crate::components::controls::{
    field_label, key_label, parse_count, ChoiceSelect, InputErrorText, NumberField,
};
use crate::components::gpu_picker::no_card_label;
use crate::components::result::Bar;
use crate::components::totals::Totals;
use crate::format::Units;
use crate::i18n::{lang, lang_untracked, text, text_with, tr};
use crate::link::embed::{embed_url, iframe_snippet, EmbedOptions, Exposed, HEIGHT_MESSAGE};
use crate::state::{use_state, AppState};

/// The page address without query or fragment.
fn app_address() -> String {
    let location = window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

fn gpu_name(sc: &Scenario) -> Option<String> {
    let name = sc.gpu.name.as_deref()?;
    Some(vramfit_core::gpu::find_gpu(name).map_or_else(|| name.to_owned(), |g| g.name.clone()))
}

/// "Llama-2-7b-hf on NVIDIA A100 40GB", or the model alone.
fn scenario_title(state: AppState) -> String {
    let model = state
        .estimate
        .with(|e| e.as_ref().map(|e| e.model.clone()).ok())
        .unwrap_or_else(|| "vramfit".to_owned());
    match state.scenario.with(gpu_name) {
        Some(gpu) => format!("{model} on {gpu}"),
        None => model,
    }
}

/// The compact page of embed mode.
#[component]
pub fn EmbedView(options: EmbedOptions) -> impl IntoView {
    let state = use_state();
    let root = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        if let Some(element) = root.get() {
            post_height_on_resize(&element);
        }
    });
    let open_link = Memo::new(move |_| {
        state.query.track();
        state.share_link()
    });
    let ignored = move || {
        let mut params: Vec<String> = state
            .notices
            .with(|n| n.iter().map(|n| n.param.clone()).collect());
        params.extend(options.unknown.iter().map(|k| format!("show={k}")));
        (!params.is_empty()).then(|| {
            let params = params.join(", ");
            view! {
                <p class="embed-ignored" data-testid="link-notices">
                    {move || text_with(lang(), "embed-ignored", &[("params", params.clone())])}
                </p>
            }
        })
    };
    let inputs = options
        .exposed
        .iter()
        .map(|&e| exposed_input(state, e))
        .collect_view();
    view! {
        <div class="embed" node_ref=root data-testid="embed">
            <header class="embed-head">
                <span class="embed-title">{move || scenario_title(state)}</span>
                <a href=move || open_link.get() target="_blank" rel="noopener" data-testid="open-in-vramfit">
                    {tr("embed-open")}
                </a>
            </header>
            {move || match state.estimate.get() {
                Ok(estimate) => compact_result(estimate, state.units.get()).into_any(),
                Err(err) => view! {
                    <p class="error" role="alert" data-testid="estimate-error">
                        <InputErrorText err=err.clone()/>
                    </p>
                }.into_any(),
            }}
            <div class="embed-inputs">{inputs}</div>
            {ignored}
        </div>
    }
}

/// Rendered inside a tracked closure (estimate, units): the language is read
/// untracked, as the full app's result does.
fn compact_result(estimate: vramfit_core::Estimate, units: Units) -> impl IntoView {
    let lang = lang_untracked();
    let capacity = estimate.capacity_bytes;
    if estimate.gpus.is_empty() {
        return view! { <p class="error">{text(lang, "no-gpu-in-estimate")}</p> }.into_any();
    }
    let first = estimate.headline_gpu().clone();
    let (verdict, fits) = match estimate.verdict() {
        Verdict::Fits { spare_bytes, .. } => (
            text_with(lang, "embed-fits", &[("spare", units.bytes(spare_bytes))]),
            true,
        ),
        Verdict::ShortBy { short_bytes, .. } => (
            text_with(lang, "embed-short", &[("short", units.bytes(short_bytes))]),
            false,
        ),
        Verdict::Unknown => (String::new(), false),
    };
    view! {
        <Bar name=text(lang, "bar-per-gpu") report=first.clone() capacity units/>
        <Totals report=first.clone() units compact=true/>
        <p class="embed-verdict" class:fits=fits class:short=move || !fits && !verdict.is_empty() data-testid="headroom">
            {verdict.clone()}
        </p>
    }
    .into_any()
}

/// One exposed input, bound to the scenario like the full app's field.
fn exposed_input(state: AppState, exposed: Exposed) -> AnyView {
    let label = exposed.label();
    match exposed.field().kind {
        Kind::Count { min, max, get, set } => view! {
            <NumberField
                label
                value=Signal::derive(move || state.scenario.with(get))
                on_change=Callback::new(move |n| state.update(|sc| set(sc, n)))
                parse=move |t| parse_count(t, min, max)
            />
        }
        .into_any(),
        Kind::Choice(choices) => choice_select(state, exposed.field(), choices, label),
        Kind::GpuName => gpu_select(state),
        // No embeddable field has another kind (the core's registry test).
        _ => ().into_any(),
    }
}

/// A menu of the keys the field's rules offer for the scenario.
fn choice_select(
    state: AppState,
    field: &'static Field,
    choices: Choices,
    label: &'static str,
) -> AnyView {
    let keys = Signal::derive(move || {
        state
            .scenario
            .with(|sc| (choices.offered)(sc))
            .into_iter()
            .map(|key| (key, key_label(key)))
            .collect()
    });
    let selected = Signal::derive(move || state.scenario.with(|sc| choices.current(sc)));
    let pick = Callback::new(move |key: String| {
        // The key comes from the menu: the field accepts it.
        state.update(|sc| {
            let _ = field.set_text(sc, &key);
        });
    });
    view! { <ChoiceSelect label keys selected pick testid=""/> }.into_any()
}

fn gpu_select(state: AppState) -> AnyView {
    let current = move || {
        state.scenario.with(|sc| {
            sc.gpu
                .name
                .as_deref()
                .and_then(vramfit_core::gpu::find_gpu)
                .map(|g| g.id.clone())
        })
    };
    view! {
        <div class="field">
            <label for="embed-gpu">"GPU"</label>
            <select
                id="embed-gpu"
                data-testid="gpu-select"
                on:change=move |ev| {
                    let id = event_target_value(&ev);
                    state.update(|sc| {
                        sc.gpu.name = (!id.is_empty()).then_some(id);
                        sc.gpu.memory_bytes = None;
                    });
                }
            >
                <option value="" prop:selected=move || current().is_none()>
                    {move || state.scenario.with(no_card_label)}
                </option>
                {vramfit_core::gpu::gpus()
                    .iter()
                    .map(|g| {
                        let id = g.id.clone();
                        let is_current = move || current().as_deref() == Some(id.as_str());
                        view! { <option value=g.id.clone() prop:selected=is_current>{g.name.clone()}</option> }
                    })
                    .collect_view()}
            </select>
            <span class="field-msg"></span>
        </div>
    }
    .into_any()
}

/// Posts the element's height to the parent page whenever it changes (a
/// ResizeObserver sees every cause: inputs, fonts, the iframe's width).
fn post_height_on_resize(element: &web_sys::HtmlElement) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    let window = window();
    let parent = match window.parent() {
        Ok(Some(parent)) if !js_sys::Object::is(&parent, &window) => parent,
        _ => return, // not inside a frame: nobody to tell
    };
    let observed = element.clone();
    let post = Closure::<dyn FnMut()>::new(move || {
        let message = js_sys::Object::new();
        let height = f64::from(observed.offset_height().max(0));
        // Setting plain data properties on a fresh object cannot fail.
        let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        // The parent may be any page that embeds vramfit; the height is public.
        let _ = parent.post_message(&message, "*");
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(post.as_ref().unchecked_ref()) {
        observer.observe(element);
    }
    // The observer lives as long as the page: so does its callback.
    post.forget();
}

/// The full app's "Embed" panel: which inputs to expose, and the snippet.
#[component]
pub fn EmbedSnippet() -> impl IntoView {
    let state = use_state();
    let chosen = RwSignal::new(None::<Vec<Exposed>>);
    let task = Memo::new(move |_| state.scenario.with(|sc| sc.task));
    let exposed = Memo::new(move |_| {
        let list = chosen
            .get()
            .unwrap_or_else(|| Exposed::defaults(task.get()));
        state.scenario.with(|sc| {
            list.into_iter()
                .filter(|e| e.applies(sc))
                .collect::<Vec<_>>()
        })
    });
    let snippet = Memo::new(move |_| {
        let src = embed_url(&app_address(), &state.query.get(), &exposed.get());
        iframe_snippet(&src, &format!("vramfit: {}", scenario_title(state)))
    });
    let copy_status = RwSignal::new(String::new());
    let copy = move |_| {
        let snippet_text = snippet.get_untracked();
        spawn_local(async move {
            let clipboard = window().navigator().clipboard();
            let done =
                wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&snippet_text)).await;
            copy_status.set(match done {
                Ok(_) => text(lang_untracked(), "copied"),
                Err(_) => text(lang_untracked(), "embed-copy-failed"),
            });
        });
    };
    let toggle = move |e: Exposed, on: bool| {
        let mut list = exposed.get_untracked();
        list.retain(|x| *x != e);
        if on {
            list.push(e);
        }
        // Keep the panel's order, whatever the clicking order.
        vramfit_core::short_sort::sort_by_key(&mut list, |x| Exposed::all().position(|a| a == *x));
        chosen.set(Some(list));
    };
    view! {
        <details class="panel embed-panel" data-testid="embed-panel">
            <summary data-testid="embed-toggle">{tr("embed-heading")}</summary>
            <fieldset class="embed-choices">
                <legend>{tr("embed-inputs")}</legend>
                {move || {
                    Exposed::all()
                        .filter(|e| state.scenario.with(|sc| e.applies(sc)))
                        .map(|e| view! {
                            <label class="check">
                                <input
                                    type="checkbox"
                                    data-testid=format!("embed-show-{}", e.key())
                                    prop:checked=move || exposed.with(|l| l.contains(&e))
                                    on:change=move |ev| toggle(e, event_target_checked(&ev))
                                />
                                {field_label(e.label())}
                            </label>
                        })
                        .collect_view()
                }}
            </fieldset>
            <textarea class="embed-code" readonly rows="5" data-testid="embed-snippet" prop:value=move || snippet.get()></textarea>
            <button type="button" data-testid="copy-embed" on:click=copy>{tr("embed-copy")}</button>
            <span class="copy-status" role="status">{move || copy_status.get()}</span>
        </details>
    }
}
