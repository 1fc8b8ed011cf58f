//! GPU picker: the catalog (searchable), the GPU count, a custom capacity,
//! or the pasted output of `vramfit gpus --json`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vramfit_core::estimate::tensor_parallel_for;
use vramfit_core::gpu::{find_gpu, search_gpus, GpuSpec};
use vramfit_core::Scenario;

use crate::components::controls::{
    key_label, next_id, parse_decimal, parse_field_count, ActionNote, NumberField,
};
use crate::components::search_select::{Choice, SearchSelect};
use crate::format::Units;
use crate::i18n::{lang, text, text_with, tr};
use crate::state::use_state;

/// A card as the GPU menus list it: its id, and its name with its memory.
fn gpu_choice(g: &GpuSpec, units: Units) -> Choice {
    (
        g.id.clone(),
        format!("{} · {}", g.name, units.bytes(g.memory_bytes)),
    )
}

/// What the GPU menus say when no catalog card is chosen: "custom" when
/// the estimate checks against a custom capacity, else that nothing is
/// checked.
pub fn no_card_label(sc: &Scenario) -> String {
    match sc.gpu.memory_bytes {
        Some(_) => key_label("custom"),
        None => text(lang(), "gpu-none"),
    }
}

#[component]
pub fn GpuPicker() -> impl IntoView {
    let state = use_state();
    let query = RwSignal::new(String::new());
    let options = Signal::derive(move || {
        let units = state.units.get();
        query.with(|q| {
            search_gpus(q)
                .into_iter()
                .map(|g| gpu_choice(g, units))
                .collect::<Vec<_>>()
        })
    });
    let selected = Signal::derive(move || {
        state.scenario.with(|sc| {
            sc.gpu
                .name
                .as_deref()
                .and_then(find_gpu)
                .map(|g| g.id.clone())
        })
    });
    let label_of =
        Callback::new(move |id: String| find_gpu(&id).map(|g| gpu_choice(g, state.units.get()).1));
    let pick = Callback::new(move |id: String| {
        state.update(|sc| {
            sc.gpu.name = (!id.is_empty()).then_some(id);
            sc.gpu.memory_bytes = None;
        });
    });
    let gpus = Signal::derive(move || state.scenario.with(|sc| sc.parallel.gpus));
    let custom = Signal::derive(move || {
        let giga = state.units.get().giga() as f64;
        state
            .scenario
            .with(|sc| sc.gpu.memory_bytes.map_or(0.0, |b| b as f64 / giga))
    });
    view! {
        <section class="panel gpu-picker" aria-labelledby="gpu-heading">
            <h2 id="gpu-heading">{tr("gpu-heading")}</h2>
            <SearchSelect
                search_label=Signal::derive(|| text(lang(), "gpu-search"))
                list_label=Signal::derive(|| text(lang(), "gpu-card"))
                placeholder="a100 40"
                query
                options
                selected
                label_of
                on_pick=pick
                list_testid="gpu-select"
                none=Signal::derive(move || state.scenario.with(no_card_label))
                pick_single=true
            />
            <div class="grid">
                <NumberField
                    label="GPU count"
                    value=gpus
                    on_change=Callback::new(move |n| state.update(|sc| sc.parallel.gpus = n))
                    parse=|t| parse_field_count(t, "n")
                    testid="gpu-count"
                />
                <NumberField
                    label="custom capacity (GiB or GB, 0 = card's)"
                    value=custom
                    on_change=Callback::new(move |x: f64| {
                        let giga = state.units.get_untracked().giga() as f64;
                        state.update(|sc| {
                            // 0 clears the override; others round to whole bytes (range-checked by the field).
                            sc.gpu.memory_bytes = (x > 0.0).then(|| (x * giga).round() as u64);
                        });
                    })
                    parse=|t| parse_decimal(t, 0.0, 1_000_000.0)
                />
            </div>
            <ReplicaNote/>
            <GpuPaste/>
        </section>
    }
}

/// The core's note that several GPUs serving with tensor and pipeline
/// parallel at 1 each hold a full copy, at the GPU count, with a button
/// that sets the tensor-parallel degree the core proposes.
#[component]
fn ReplicaNote() -> impl IntoView {
    let state = use_state();
    let tp = move || {
        let gpus = state.scenario.with(|sc| sc.parallel.gpus);
        let heads = state.spec.with(|s| s.as_ref().map_or(0, |s| s.heads));
        tensor_parallel_for(gpus, heads)
    };
    let text = Signal::derive(move || {
        let lang = lang();
        state.estimate.with(|e| {
            let notes = &e.as_ref().ok()?.notes;
            let note = notes.iter().find(|n| n.code == "serving_replicas")?;
            Some(note.text(lang).to_owned())
        })
    });
    let action = Signal::derive(move || {
        tp().map(|tp| text_with(lang(), "set-tp", &[("tp", tp.to_string())]))
    });
    let on_click = Callback::new(move |_| {
        if let Some(tp) = tp() {
            state.update(|sc| sc.parallel.tp = tp);
        }
    });
    view! {
        <ActionNote class="replica-note" testid="replica-note" button_testid="set-tp" text action on_click/>
    }
}

/// The pasted output of `vramfit gpus --json`: sets the card and the count.
#[component]
fn GpuPaste() -> impl IntoView {
    let state = use_state();
    let message = RwSignal::new(None::<Result<String, String>>);
    // The importer answers later (crate::importer): only the latest text's
    // answer is shown.
    let latest = StoredValue::new(0u64);
    let on_paste = move |ev| {
        let text = event_target_value(&ev);
        let ticket = latest.get_value() + 1;
        latest.set_value(ticket);
        if text.trim().is_empty() {
            message.set(None);
            return;
        }
        spawn_local(async move {
            let machine = crate::importer::machine_gpus(&text).await;
            if latest.try_get_value() != Some(ticket) {
                return;
            }
            message.set(Some(match machine {
                Ok(machine) => {
                    state.update(|sc| machine.apply(sc));
                    Ok(format!("{} × {}", machine.count, machine.name))
                }
                Err(error) => Err(error),
            }));
        });
    };
    let paste_id = next_id("gpu-paste");
    view! {
        <div class="field">
            <label for=paste_id.clone()>{tr("gpu-paste")}</label>
            <textarea
                id=paste_id
                rows="2"
                spellcheck="false"
                aria-describedby="gpu-paste-msg"
                on:input=on_paste
            ></textarea>
            <span
                id="gpu-paste-msg"
                class="field-msg"
                class:field-error=move || matches!(message.get(), Some(Err(_)))
                role="status"
            >
                {move || match message.get() {
                    Some(Ok(m)) | Some(Err(m)) => m,
                    None => String::new(),
                }}
            </span>
        </div>
    }
}
