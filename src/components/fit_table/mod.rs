//! Every catalog GPU: does the scenario fit, the headroom, and the largest
//! micro-batch (training) or context (inference) that fits. Computed in a
//! memo, so only a change of the scenario recomputes it. A phone drops the
//! capacity and headroom columns (fit_table.css) rather than hiding the
//! answer off-screen: the card, whether it fits and the largest size stay.

use leptos::prelude::*;
use vramfit_core::estimate::resolve_model;
use vramfit_core::gpu::gpus;
use vramfit_core::scenario::{GpuChoice, TaskKind};
use vramfit_core::solver::fit_table_with_model;

use crate::format::{grouped, Units};
use crate::i18n::{lang, space, text, tr};
use crate::state::use_state;

#[component]
pub fn FitTable() -> impl IntoView {
    let state = use_state();
    // The table sets each card itself: the chosen GPU does not enter it, so
    // picking another card does not recompute it.
    let inputs = Memo::new(move |_| {
        let mut sc = state.settled.get();
        sc.gpu = GpuChoice::default();
        sc
    });
    let rows = Memo::new(move |_| {
        let sc = inputs.get();
        let spec = resolve_model(&sc.model).ok()?;
        fit_table_with_model(&sc, &spec, gpus()).ok()
    });
    // A serving engine's rows also say how many sequences of the context
    // each card's KV pool holds.
    let serving = move || {
        rows.with(|r| {
            r.as_ref()
                .is_some_and(|r| r.iter().any(|row| row.concurrent_sequences.is_some()))
        })
    };
    let largest_label = move || match state.scenario.with(|sc| sc.task) {
        TaskKind::Training => text(lang(), "fit-largest-batch"),
        TaskKind::Inference => text(lang(), "fit-longest-context"),
    };
    view! {
        <section class="panel fit-table" aria-labelledby="fit-heading">
            <h2 id="fit-heading">{tr("fit-heading")}</h2>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="fit-heading">
                <table>
                    <thead>
                        <tr>
                            <th scope="col">{tr("fit-gpu")}</th>
                            <th scope="col">{tr("fit-memory")}</th>
                            <th scope="col">{tr("fit-fits")}</th>
                            <th scope="col">{tr("fit-headroom")}</th>
                            <th scope="col">{largest_label}</th>
                            <Show when=serving>
                                <th scope="col">{tr("fit-concurrent")}</th>
                            </Show>
                        </tr>
                    </thead>
                    <tbody data-testid="fit-rows">
                        {move || {
                            let units: Units = state.units.get();
                            let lang = lang();
                            let (yes, no) = (text(lang, "yes"), text(lang, "no"));
                            let model_max = format!("{}{}", space(lang), text(lang, "fit-model-max"));
                            rows.get()
                                .unwrap_or_default()
                                .into_iter()
                                .map(|r| {
                                    let headroom = i128::from(r.headroom_bytes);
                                    view! {
                                        <tr class:no=!r.fits>
                                            <th scope="row">{r.gpu_name}</th>
                                            <td>{units.bytes(r.capacity_bytes)}</td>
                                            <td>{if r.fits { yes.clone() } else { no.clone() }}</td>
                                            <td class:short=!r.fits>{units.signed_bytes(headroom)}</td>
                                            <td>
                                                {r.largest.map_or_else(|| "—".to_owned(), grouped)}
                                                {r.model_bound.then(|| view! { <span class="model-bound" data-testid="model-bound">{model_max.clone()}</span> })}
                                            </td>
                                            {r.concurrent_sequences.map(|n| view! { <td data-testid="fit-concurrent">{grouped(n)}</td> })}
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
