//! A Hub id that is not in the catalog: fetch its `config.json` from the
//! Hugging Face Hub (or the mirror set here), import it with the core's
//! importer, and say what was read, where it came from and what went wrong.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vramfit_core::hub::HubFailure;
use vramfit_core::model::ModelSpec;
use vramfit_core::scenario::ModelSource;

use crate::format;
use crate::hub_fetch::{fetch_config, hub_base, hub_param_count, set_hub_base};
use crate::i18n::{current_lang, lang, space, text, text_with, tr};
use crate::state::use_state;

/// Where a fetch stands.
#[derive(Clone, Debug, PartialEq)]
enum Fetch {
    Idle,
    Running,
    /// What was read (and, when it differs by more than 1 %, the Hub's count).
    Read(String),
    /// Why not; `retry` when trying again may help.
    Failed {
        message: String,
        retry: bool,
    },
}

/// The read line: architecture, parameters and context of the imported model.
fn read_line(id: &str, spec: &ModelSpec, from_cache: bool) -> String {
    let lang = current_lang();
    let mut line = text_with(
        lang,
        "hub-read",
        &[
            ("id", id.to_owned()),
            ("arch", vramfit_core::url::Choice::key(spec.arch).to_owned()),
            ("params", format::count(spec.total_params())),
            ("context", format::grouped(spec.max_position)),
        ],
    );
    if from_cache {
        line.push_str(space(lang));
        line.push_str(&text(lang, "hub-from-cache"));
    }
    line
}

/// Says which format a quantized checkpoint's weights were set to, or
/// which quantization method has no format here.
pub(super) fn say_stored(
    line: &mut String,
    stored: Option<vramfit_core::scenario::checkpoint::CheckpointWeights>,
    unmodelled: Option<String>,
) {
    let said = match (stored, unmodelled) {
        (Some(q), _) => (
            "checkpoint-weights",
            [("format", q.weights.name().to_owned())],
        ),
        (None, Some(method)) => ("checkpoint-unmodelled", [("method", method)]),
        (None, None) => return,
    };
    let lang = current_lang();
    line.push_str(space(lang));
    line.push_str(&text_with(lang, said.0, &said.1));
}

fn failure_message(id: &str, failure: HubFailure) -> Fetch {
    let lang = current_lang();
    // The limits the texts name are the ones the fetch applies.
    let args = [
        ("id", id.to_owned()),
        (
            "limit",
            format::Units::Binary.bytes(vramfit_core::hub::MAX_CONFIG_BYTES),
        ),
        ("seconds", (crate::hub_fetch::TIMEOUT_MS / 1000).to_string()),
        (
            "status",
            match failure {
                HubFailure::Status(status) => status.to_string(),
                _ => String::new(),
            },
        ),
    ];
    let message = text_with(lang, failure.key(), &args);
    let retry = matches!(
        failure,
        HubFailure::TimedOut | HubFailure::Offline | HubFailure::Status(_)
    );
    Fetch::Failed { message, retry }
}

/// The Hub fetch offered for `id` (a Hub id the catalog does not know). The
/// imported model goes into the link as its architecture fields, so the link
/// reproduces it with no network.
#[component]
pub fn HubFetch(id: Signal<String>) -> impl IntoView {
    let state = use_state();
    let status = RwSignal::new(Fetch::Idle);
    let base = RwSignal::new(hub_base());
    let base_message = RwSignal::new(None::<String>);
    let run = move || {
        let id = id.get_untracked();
        let hub = base.get_untracked();
        status.set(Fetch::Running);
        spawn_local(async move {
            let fetched = match fetch_config(&hub, &id).await {
                Ok(fetched) => fetched,
                Err(failure) => {
                    status.set(failure_message(&id, failure));
                    return;
                }
            };
            let (mut spec, checkpoint, unmodelled) =
                match crate::importer::import_config(&fetched.text).await {
                    Ok(imported) => imported,
                    Err(message) => {
                        status.set(Fetch::Failed {
                            message,
                            retry: false,
                        });
                        return;
                    }
                };
            spec.name = id.clone();
            let mut line = read_line(&id, &spec, fetched.from_cache);
            let ours = spec.total_params();
            let mut stored = None;
            state.update(|sc| {
                sc.model = ModelSource::Spec(Box::new(spec));
                // a quantized checkpoint loads as it is stored
                stored = checkpoint.filter(|q| q.apply(sc));
            });
            say_stored(&mut line, stored, unmodelled);
            status.set(Fetch::Read(line.clone()));
            if fetched.from_cache {
                return;
            }
            // The Hub's own count, as a cross-check, when it differs by over 1 %.
            if let Some(hub_count) = hub_param_count(&hub, &id).await {
                let differs = (hub_count as f64 - ours as f64).abs() > 0.01 * ours as f64;
                if differs {
                    line.push_str(space(current_lang()));
                    line.push_str(&text_with(
                        current_lang(),
                        "hub-count-differs",
                        &[
                            ("hub", format::count(hub_count)),
                            ("ours", format::count(ours)),
                        ],
                    ));
                    status.set(Fetch::Read(line));
                }
            }
        });
    };
    let on_base = move |ev: leptos::ev::Event| {
        let typed = event_target_value(&ev);
        if set_hub_base(&typed) {
            base.set(hub_base());
            base_message.set(None);
        } else {
            base_message.set(Some(text_with(
                lang(),
                "hub-base-invalid",
                &[("text", typed), ("base", base.get_untracked())],
            )));
        }
    };
    let message = move || match status.get() {
        Fetch::Idle => String::new(),
        Fetch::Running => text_with(lang(), "hub-fetching", &[("id", id.get())]),
        Fetch::Read(line) => line,
        Fetch::Failed { message, .. } => message,
    };
    let can_retry = move || matches!(status.get(), Fetch::Failed { retry: true, .. });
    view! {
        <div class="hub-fetch" data-testid="hub-panel">
            <button
                type="button"
                data-testid="hub-fetch"
                disabled=move || status.get() == Fetch::Running
                on:click=move |_| run()
            >
                {move || text_with(lang(), "hub-fetch", &[("id", id.get())])}
            </button>
            <p
                role="status"
                data-testid="hub-status"
                class:error=move || matches!(status.get(), Fetch::Failed { .. })
            >
                {message}
            </p>
            <Show when=can_retry>
                <button type="button" data-testid="hub-retry" on:click=move |_| run()>
                    {tr("hub-retry")}
                </button>
            </Show>
            <details class="hub-base">
                <summary>{tr("hub-base")}</summary>
                <input
                    type="url"
                    data-testid="hub-base"
                    aria-label=tr("hub-base")
                    prop:value=move || base.get()
                    placeholder=tr("hub-base-hint")
                    on:change=on_base
                />
                <p class="hint">{tr("hub-base-hint")}</p>
                <p role="status" class="error">{move || base_message.get()}</p>
            </details>
        </div>
    }
}
