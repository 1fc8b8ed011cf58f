//! A catalog picker: a search box over a list of matches, the current choice
//! selected. The model and GPU pickers (and any later catalog) share it, so
//! the search behaves the same everywhere; what matches is the core's search.

use leptos::prelude::*;

use crate::components::controls::next_id;

/// One entry of the list: its id (what `on_pick` receives) and its label.
pub type Choice = (String, String);

/// `query` is the caller's, so that it derives `options` from it (with
/// whatever else the labels follow, such as the units). `selected` is the
/// id in the state: listed first, labelled by `label_of`, when the search
/// leaves it out, so the list always shows what the estimate uses. `none`
/// adds a first entry with an empty id that clears the choice; `rows` shows
/// a list box of that many rows instead of a drop-down.
#[component]
pub fn SearchSelect(
    #[prop(into)] search_label: Signal<String>,
    #[prop(into)] list_label: Signal<String>,
    placeholder: &'static str,
    query: RwSignal<String>,
    #[prop(into)] options: Signal<Vec<Choice>>,
    #[prop(into)] selected: Signal<Option<String>>,
    label_of: Callback<String, Option<String>>,
    on_pick: Callback<String>,
    #[prop(optional)] search_testid: &'static str,
    list_testid: &'static str,
    #[prop(optional, into)] none: Option<Signal<String>>,
    #[prop(optional)] rows: Option<u32>,
    /// Choose the only match as soon as the search narrows to one.
    #[prop(optional)]
    pick_single: bool,
) -> impl IntoView {
    let search_id = next_id("search");
    let list_id = next_id("list");
    if pick_single {
        Effect::new(move |_| {
            let only = options.with(|o| match o.as_slice() {
                [(id, _)] => Some(id.clone()),
                _ => None,
            });
            let typing = query.with(|q| !q.trim().is_empty());
            if let (Some(id), true) = (only, typing) {
                if selected.get_untracked().as_deref() != Some(id.as_str()) {
                    on_pick.run(id);
                }
            }
        });
    }
    // From the search box: ArrowDown moves into the list, Enter takes the first match.
    let list_for_keys = list_id.clone();
    let on_key = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "ArrowDown" => {
            ev.prevent_default();
            if let Some(list) = document().get_element_by_id(&list_for_keys) {
                if let Ok(list) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(list) {
                    let _ = list.focus();
                }
            }
        }
        "Enter" => {
            if let Some(id) = options.with(|o| o.first().map(|(id, _)| id.clone())) {
                ev.prevent_default();
                on_pick.run(id);
            }
        }
        _ => {}
    };
    let none_option = none.map(|label| {
        view! { <option value="" prop:selected=move || selected.with(Option::is_none)>{move || label.get()}</option> }
    });
    view! {
        <div class="field">
            <label for=search_id.clone()>{move || search_label.get()}</label>
            <input
                id=search_id
                type="search"
                placeholder=placeholder
                data-testid=(!search_testid.is_empty()).then_some(search_testid)
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
                on:keydown=on_key
            />
        </div>
        <div class="field search-select">
            <label for=list_id.clone()>{move || list_label.get()}</label>
            <select
                id=list_id
                size=rows.map(|r| r.to_string())
                data-testid=list_testid
                on:change=move |ev| on_pick.run(event_target_value(&ev))
            >
                {none_option}
                {move || {
                    let current = selected.get();
                    let mut list = options.get();
                    if let Some(id) = current.clone().filter(|c| !list.iter().any(|(i, _)| i == c)) {
                        if let Some(label) = label_of.run(id.clone()) {
                            list.insert(0, (id, label));
                        }
                    }
                    list.into_iter()
                        .map(|(id, label)| {
                            let is_current = current.as_deref() == Some(id.as_str());
                            view! { <option value=id prop:selected=is_current>{label}</option> }
                        })
                        .collect_view()
                }}
            </select>
        </div>
    }
}
