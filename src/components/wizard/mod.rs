//! The wizard: goal, model, GPU and count, priority walk the core's decision
//! table (`vramfit_core::wizard::recommend`) to a recommended configuration,
//! shown with the table row that applied, why, its estimate and, when it
//! does not fit, the fix-it plans. Model, GPU and count are the calculator's
//! own inputs (and link parameters); goal and priority are `goal=`, `prio=`.

use leptos::prelude::*;

use crate::components::controls::{key_label, InputErrorText};
use vramfit_core::scenario::Scenario;
use vramfit_core::wizard::{
    recommend, FieldChange, Goal, Priority, Recommendation, WizardAnswers, WizardGpu,
};
use vramfit_core::InputError;

use crate::components::gpu_picker::GpuPicker;
use crate::components::model_picker::ModelPicker;
use crate::components::plans::PlanList;
use crate::i18n::{colon, lang, pick, space, text, text_or, tr};
use crate::link::{goal_key, priority_key, View, WizardChoice, GOALS, PRIORITIES};
use crate::state::use_state;

/// The wizard's answers from the calculator's scenario and the wizard's choices.
pub fn answers(sc: &Scenario, choice: WizardChoice) -> WizardAnswers {
    let gpu = match (&sc.gpu.name, sc.gpu.memory_bytes) {
        (_, Some(bytes)) => Some(WizardGpu::MemoryBytes(bytes)),
        (Some(name), None) => Some(WizardGpu::Catalog(name.clone())),
        (None, None) => None,
    };
    WizardAnswers {
        goal: choice.goal,
        model: sc.model.clone(),
        // No GPU chosen: serving on the CPU (the table's row for it).
        gpu_count: if gpu.is_some() { sc.parallel.gpus } else { 0 },
        gpu,
        priority: choice.priority,
        // The user's own setup: the wizard changes only what its row prescribes.
        start: Some(sc.clone()),
    }
}

/// Whether the answers lack only a GPU: a training goal and none picked
/// (serving without one is the table's CPU row).
pub fn needs_a_gpu(sc: &Scenario, choice: WizardChoice) -> bool {
    let answers = answers(sc, choice);
    answers.gpu.is_none() && answers.goal != Goal::Serve
}

/// One radio button per value of a wizard answer, bound to the wizard's
/// choice (and so to the link).
fn radio_group<T: Copy + PartialEq + Send + Sync + 'static, const N: usize>(
    name: &'static str,
    values: [T; N],
    testid: fn(T) -> String,
    text_key: fn(T) -> &'static str,
    get: fn(&WizardChoice) -> T,
    set: fn(&mut WizardChoice, T),
) -> impl IntoView {
    let state = use_state();
    values
        .into_iter()
        .map(|value| {
            view! {
                <label class="choice">
                    <input
                        type="radio"
                        name=name
                        data-testid=testid(value)
                        prop:checked=move || state.wizard.with(|w| get(w) == value)
                        on:change=move |_| state.wizard.update(|w| set(w, value))
                    />
                    {tr(text_key(value))}
                </label>
            }
        })
        .collect_view()
}

fn goal_text_key(goal: Goal) -> &'static str {
    match goal {
        Goal::TrainFull => "goal-train-full",
        Goal::FineTune => "goal-fine-tune",
        Goal::Serve => "goal-serve",
    }
}

fn priority_text_key(priority: Priority) -> &'static str {
    match priority {
        Priority::Speed => "prio-speed",
        Priority::Quality => "prio-quality",
        Priority::Cost => "prio-cost",
    }
}

#[component]
pub fn Wizard() -> impl IntoView {
    let state = use_state();
    let result = Memo::new(move |_| {
        let sc = state.settled.get();
        recommend(&answers(&sc, state.wizard.get()))
    });
    let goal_buttons = radio_group(
        "wizard-goal",
        GOALS,
        |g| format!("goal-{}", goal_key(g)),
        goal_text_key,
        |w| w.goal,
        |w, g| w.goal = g,
    );
    let priority_buttons = radio_group(
        "wizard-priority",
        PRIORITIES,
        |p| format!("prio-{}", priority_key(p)),
        priority_text_key,
        |w| w.priority,
        |w, p| w.priority = p,
    );
    view! {
        <section class="inputs" aria-label=tr("inputs")>
            <section class="panel wizard-questions" aria-labelledby="wizard-heading">
                <h2 id="wizard-heading">{tr("wizard-heading")}</h2>
                <fieldset class="choices">
                    <legend>{tr("wizard-goal")}</legend>
                    {goal_buttons}
                </fieldset>
                <fieldset class="choices">
                    <legend>{tr("wizard-priority")}</legend>
                    {priority_buttons}
                </fieldset>
                <p class="hint">{tr("wizard-hint")}</p>
            </section>
            <ModelPicker/>
            <GpuPicker/>
        </section>
        <section class="outputs" aria-label=tr("results")>
            {move || {
                // The recommendation reads the units once: re-render on a change.
                state.units.track();
                match result.get() {
                    Ok(r) => view! { <RecommendationView rec=r/> }.into_any(),
                    // Training with no GPU picked yet (the page as first opened):
                    // a prompt, not an error.
                    Err(_) if needs_a_gpu(&state.settled.get(), state.wizard.get()) => view! {
                        <section class="panel wizard-result">
                            <p class="hint" data-testid="wizard-pick-gpu">{tr("wizard-pick-gpu")}</p>
                        </section>
                    }
                    .into_any(),
                    Err(err) => view! { <WizardError err/> }.into_any(),
                }
            }}
        </section>
    }
}

#[component]
fn WizardError(err: InputError) -> impl IntoView {
    view! {
        <section class="panel wizard-result">
            <p class="error" role="alert" data-testid="wizard-error">
                <InputErrorText err=err.clone()/>
            </p>
        </section>
    }
}

#[component]
fn RecommendationView(rec: Recommendation) -> impl IntoView {
    let state = use_state();
    let units = state.units.get_untracked();
    let Recommendation {
        row_id,
        row_text,
        why,
        source,
        scenario,
        device_used_bytes,
        capacity_bytes,
        fits,
        plans,
        changes,
        ..
    } = rec;
    let fit_line = move || {
        let lang = lang();
        match (fits, capacity_bytes) {
            (Some(true), Some(c)) => format!(
                "{}{}{} / {}",
                text(lang, "wizard-fits"),
                space(lang),
                units.bytes(device_used_bytes),
                units.bytes(c)
            ),
            (Some(false), Some(c)) => format!(
                "{}{}{} / {}",
                text(lang, "wizard-does-not-fit"),
                space(lang),
                units.bytes(device_used_bytes),
                units.bytes(c)
            ),
            _ => format!(
                "{}{}{}",
                text(lang, "wizard-cpu-memory"),
                space(lang),
                units.bytes(device_used_bytes)
            ),
        }
    };
    let open = move |_| {
        state.scenario.set(scenario.clone());
        state.view.set(View::Calculator);
    };
    let show_plans = fits == Some(false);
    view! {
        <section class="panel wizard-result">
            <h2>{tr("wizard-recommendation")}</h2>
            <p class="row-text" data-testid="wizard-row-text" data-row=row_id>
                {move || pick(lang(), &row_text.en, &row_text.zh).to_owned()}
            </p>
            <dl class="wizard-facts">
                <dt>{tr("wizard-changes")}</dt>
                <dd data-testid="wizard-changes">{change_list(changes)}</dd>
                <dt>{tr("wizard-why")}</dt>
                <dd data-testid="wizard-why">{move || pick(lang(), &why.en, &why.zh).to_owned()}</dd>
                <dt>{tr("plan-source")}</dt>
                <dd class="source">{source}</dd>
                <dt>{tr("wizard-memory")}</dt>
                <dd data-testid="wizard-fit" class:short=fits == Some(false) aria-live="polite">{fit_line}</dd>
            </dl>
            <button type="button" data-testid="wizard-open" on:click=open>
                {tr("wizard-open")}
            </button>
            {show_plans.then(|| view! {
                <h3>{tr("plan-heading")}</h3>
                <PlanList plans units/>
            })}
        </section>
    }
}

/// What the recommendation changes in the user's setup, one line a field
/// (its label in the page's language, the old and the new value).
fn change_list(changes: Vec<FieldChange>) -> AnyView {
    if changes.is_empty() {
        return view! { <span>{tr("wizard-no-changes")}</span> }.into_any();
    }
    view! {
        <ul class="wizard-changes">
            {changes
                .into_iter()
                .map(|c| {
                    let FieldChange { path, label, from, to, key } = c;
                    let name = move || {
                        label
                            .as_deref()
                            .map_or_else(|| path.clone(), |id| text_or(lang(), id, || path.clone()))
                    };
                    view! {
                        <li data-key=key>
                            {name}{move || colon(lang())}<del>{key_label(&from)}</del>" → "<ins>{key_label(&to)}</ins>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_training_without_a_gpu_waits_for_one() {
        let mut sc = Scenario::default();
        sc.gpu.name = None;
        sc.gpu.memory_bytes = None;
        let choice = |goal| WizardChoice {
            goal,
            priority: Priority::Cost,
        };
        assert!(needs_a_gpu(&sc, choice(Goal::TrainFull)));
        assert!(needs_a_gpu(&sc, choice(Goal::FineTune)));
        // Serving without a GPU is a row of the table, not a missing answer.
        assert!(!needs_a_gpu(&sc, choice(Goal::Serve)));
        assert!(recommend(&answers(&sc, choice(Goal::Serve))).is_ok());
        sc.gpu.name = Some("rtx-4090".into());
        assert!(!needs_a_gpu(&sc, choice(Goal::FineTune)));
        assert!(recommend(&answers(&sc, choice(Goal::FineTune))).is_ok());
    }
}
