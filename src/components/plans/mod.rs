//! Fix-it plans: for a setup that does not fit, the cheapest few sets of
//! changes that do (`vramfit_core::plan`), ranked by cost. Each change shows
//! its documented speed cost, quality risk and source; each plan its
//! resulting memory and a share link to the changed scenario.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vramfit_core::decimal::Decimal;
use vramfit_core::plan::{Plan, PlanReport};
use vramfit_core::url::encode;

use crate::format::Units;
use crate::i18n::{colon, lang, pick, text, text_with, tr, Lang};
use crate::state::use_state;

/// The relative share link of a plan's scenario: works under any deploy path.
pub fn plan_href(plan: &Plan) -> String {
    format!("?{}", encode(&plan.scenario))
}

/// Under the calculator's result: plans when the settled scenario does not
/// fit its GPU (the search runs once typing pauses).
#[component]
pub fn CalculatorPlans() -> impl IntoView {
    let state = use_state();
    // The search runs in the importer worker (`crate::importer::plans`):
    // its code is not part of the first load. A newer scenario's question
    // supersedes an older one still being answered.
    let report = RwSignal::new(None::<PlanReport>);
    let asked = StoredValue::new(0u64);
    Effect::new(move |_| {
        let sc = state.settled.get();
        asked.update_value(|n| *n += 1);
        let ticket = asked.get_value();
        report.set(None);
        // Only a chosen GPU gives a capacity; the search reports fits itself.
        if sc.gpu.name.is_none() && sc.gpu.memory_bytes.is_none() {
            return;
        }
        spawn_local(async move {
            let answer = crate::importer::plans(&sc).await;
            if asked.get_value() == ticket {
                report.set(answer);
            }
        });
    });
    view! {
        {move || {
            let report = report.get().filter(|r| !r.fits)?;
            let units = state.units.get();
            Some(view! {
                <section class="panel plans" aria-labelledby="plans-heading" data-testid="plans">
                    <h2 id="plans-heading">{tr("plan-heading")}</h2>
                    <p class="plans-intro">
                        {move || text_with(lang(), "plan-intro", &[
                            ("used", units.bytes(report.device_used_bytes)),
                            ("capacity", units.bytes(report.capacity_bytes)),
                        ])}
                    </p>
                    <PlanList plans=report.plans.clone() units/>
                </section>
            })
        }}
    }
}

/// The plans, cheapest first; a sentence when there is none.
#[component]
pub fn PlanList(plans: Vec<Plan>, units: Units) -> impl IntoView {
    if plans.is_empty() {
        return view! { <p class="plans-none" data-testid="plans-none">{tr("plan-none")}</p> }
            .into_any();
    }
    view! {
        <ol class="plan-list" data-testid="plan-list">
            {plans
                .into_iter()
                .enumerate()
                .map(|(i, plan)| view! { <PlanItem rank=i + 1 plan units/> })
                .collect_view()}
        </ol>
    }
    .into_any()
}

/// One source: a link when it names an address (the text after it is the
/// quote), plain text otherwise.
fn source_item(source: &str) -> impl IntoView {
    let (url, rest) = match source.split_once(' ') {
        Some((u, rest)) if u.starts_with("https://") => (Some(u.to_owned()), rest.to_owned()),
        _ if source.starts_with("https://") => (Some(source.to_owned()), String::new()),
        _ => (None, source.to_owned()),
    };
    view! {
        <li>
            {url.map(|u| { let shown = u.clone(); view! { <a href=u target="_blank" rel="noopener">{shown}</a>" " } })}
            {rest}
        </li>
    }
}

/// The quality side of a plan's cost: its risk in points, or, for a plan
/// that changes the job itself (a shorter context, a smaller batch), that
/// it does, never "0.0 pp" (with the risk too when its other changes have one).
pub fn plan_risk(lang: Lang, risk_pct: f64, changes_workload: bool) -> String {
    let risk = format!(
        "{} {}",
        text(lang, "plan-quality-risk"),
        text_with(
            lang,
            "plan-risk-points",
            &[("points", format!("{:.1}", Decimal(risk_pct)))]
        )
    );
    match (changes_workload, risk_pct > 0.0) {
        (false, _) => risk,
        (true, false) => text(lang, "plan-changes-workload"),
        (true, true) => format!(
            "{}{}{risk}",
            text(lang, "plan-changes-workload"),
            pick(lang, ", ", "，")
        ),
    }
}

/// One plan: its cost, its changes and the memory they leave in sight;
/// each change's costs and sources folded under it (a phone shows a plan
/// in a few lines).
#[component]
fn PlanItem(rank: usize, plan: Plan, units: Units) -> impl IntoView {
    let href = plan_href(&plan);
    let cost = plan.cost;
    let workload = plan.changes.iter().any(|c| c.changes_workload);
    let summary = move || {
        let lang = lang();
        text_with(
            lang,
            "plan-cost",
            &[
                ("rank", rank.to_string()),
                ("slowdown", format!("{:.2}", Decimal(cost.slowdown))),
                ("risk", plan_risk(lang, cost.quality_risk_pct, workload)),
                ("gpus", format!("{:.0}", Decimal(cost.gpu_factor))),
            ],
        )
    };
    let memory = move || {
        text_with(
            lang(),
            "plan-memory",
            &[
                ("used", units.bytes(plan.device_used_bytes)),
                ("capacity", units.bytes(plan.capacity_bytes)),
                ("headroom", units.bytes(plan.headroom_bytes.max(0) as u64)),
            ],
        )
    };
    let changes = plan.changes.clone();
    view! {
        <li class="plan" data-testid="plan">
            <p class="plan-summary" data-testid="plan-summary">{summary}</p>
            <ul class="plan-changes">
                {changes
                    .into_iter()
                    .map(|c| {
                        let (en, zh) = (c.en.clone(), c.zh.clone());
                        let (speed, risk) = (c.speed_cost.clone(), c.quality_risk.clone());
                        let sources = c
                            .sources
                            .iter()
                            .map(|s| source_item(s))
                            .collect_view();
                        view! {
                            <li><details>
                                <summary class="change">{move || pick(lang(), &en, &zh).to_owned()}</summary>
                                <dl class="change-costs">
                                    <dt>{tr("plan-speed-cost")}</dt>
                                    <dd>
                                        {move || {
                                            let lang = lang();
                                            format!("×{:.2}{}{}", Decimal(c.speed_factor), colon(lang), pick(lang, &speed.en, &speed.zh))
                                        }}
                                    </dd>
                                    <dt>{tr("plan-quality-risk")}</dt>
                                    <dd>
                                        {move || {
                                            let lang = lang();
                                            // A smaller batch or shorter context changes the job, not its quality.
                                            let head = if c.changes_workload {
                                                text(lang, "plan-changes-workload")
                                            } else {
                                                text_with(lang, "plan-risk-points", &[("points", format!("{:.1}", Decimal(c.quality_risk_pct)))])
                                            };
                                            format!("{head}{}{}", colon(lang), pick(lang, &risk.en, &risk.zh))
                                        }}
                                    </dd>
                                    <dt>{tr("plan-sources")}</dt>
                                    <dd><ul class="change-sources">{sources}</ul></dd>
                                </dl>
                            </details></li>
                        }
                    })
                    .collect_view()}
            </ul>
            <p class="plan-memory">{memory}</p>
            <a class="plan-link" data-testid="plan-link" href=href>{tr("plan-open")}</a>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_that_changes_the_workload_says_so_instead_of_zero_risk() {
        assert_eq!(plan_risk(Lang::En, 0.0, false), "quality risk 0.0 pp");
        assert_eq!(plan_risk(Lang::En, 0.0, true), "changes your workload");
        assert_eq!(plan_risk(Lang::Zh, 0.0, true), "改变了你的工作负载");
        assert_eq!(
            plan_risk(Lang::En, 1.0, true),
            "changes your workload, quality risk 1.0 pp"
        );
        assert_eq!(
            plan_risk(Lang::Zh, 1.0, true),
            "改变了你的工作负载，质量风险 1.0 个百分点"
        );
        let line = text_with(
            Lang::En,
            "plan-cost",
            &[("risk", plan_risk(Lang::En, 0.0, true))],
        );
        assert!(
            line.contains("changes your workload") && !line.contains("pp"),
            "{line}"
        );
    }
}
