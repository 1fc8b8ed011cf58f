//! Task panels: training or inference, with only the controls that apply to
//! the chosen method, engine, weight format, parallelism and model.

use leptos::prelude::*;
use vramfit_core::precision::WeightFormat;
use vramfit_core::scenario::fields::{by_key, Kind};
use vramfit_core::scenario::{Engine, LoraTarget, Method, Optimizer, Scenario, Strategy, TaskKind};
use vramfit_core::url::Choice;

use crate::components::controls::{
    field_range, parse_count, parse_decimal, CheckField, ChoiceField, NumberField,
    OptionalChoiceField,
};
use crate::i18n::tr;
use crate::state::{use_state, AppState};

/// Weight formats that apply (the core's rule, `WeightFormat::applies`):
/// GGUF only with llama.cpp, QLoRA over bitsandbytes 4- or 8-bit weights.
pub fn weight_formats(sc: &Scenario) -> Vec<WeightFormat> {
    WeightFormat::ALL
        .into_iter()
        .filter(|w| w.applies(sc))
        .collect()
}

/// A whole-number field bound to one scenario field, within the range the
/// core's registry gives the field at link key `key`.
fn count(
    state: AppState,
    label: &'static str,
    key: &'static str,
    get: fn(&Scenario) -> u64,
    set: fn(&mut Scenario, u64),
) -> impl IntoView {
    let (min, max) = field_range(key);
    view! {
        <NumberField
            label
            value=Signal::derive(move || state.scenario.with(get))
            on_change=Callback::new(move |n| state.update(|sc| set(sc, n)))
            parse=move |t| parse_count(t, min, max)
        />
    }
}

/// Each image's width and height (0: the model's own size; a height of 0
/// follows the width): the model's image rule turns them into tokens.
fn image_size_fields(state: AppState) -> impl IntoView {
    view! {
        {optional_count(state, "image width", "imgw")}
        {optional_count(state, "image height", "imgh")}
        {image_mix(state)}
        {image_tokens(state)}
        <Show when=move || state.scenario.with(|sc| applies("vfr", sc))>
            {optional_count(state, "video frames (0 = none)", "vfr")}
            {optional_count(state, "video fps (0 = unknown)", "vfps")}
        </Show>
    }
}

/// Each image size's tokens as the model's processor makes them (the
/// core's `sample_images`), one line per size of the batch; nothing when
/// the sizes are refused (their fields say why).
fn image_tokens(state: AppState) -> impl IntoView {
    let lines = move || {
        let sizes = state.spec.with(|spec| {
            let Ok(spec) = spec else {
                return Vec::new();
            };
            state
                .scenario
                .with(|sc| match vramfit_core::vision::sample_images(sc, spec) {
                    Ok(Some(sized)) => sized
                        .groups
                        .iter()
                        .map(|g| (g.width, g.height, g.tokens))
                        .collect(),
                    _ => Vec::new(),
                })
        });
        sizes
            .into_iter()
            .map(|(w, h, t)| {
                let args = [
                    ("w", w.to_string()),
                    ("h", h.to_string()),
                    ("lm", t.language_model.to_string()),
                    ("tower", t.tower.to_string()),
                ];
                view! { <li>{crate::i18n::text_with(crate::i18n::lang(), "image-tokens-line", &args)}</li> }
            })
            .collect_view()
    };
    view! { <ul class="image-tokens" data-testid="image-tokens" aria-live="polite">{lines}</ul> }
}

/// The batch's mixed image sizes (`phone, 336x336`; empty: one size),
/// read and checked by the registry row `imix`.
fn image_mix(state: AppState) -> impl IntoView {
    let field = by_key("imix")?;
    Some(view! {
        <NumberField
            label="image mix"
            hint="image mix hint"
            words=true
            value=Signal::derive(move || state.scenario.with(|sc| field.get_text(sc)))
            on_change=Callback::new(move |t: String| state.update(|sc| {
                // Checked by `parse` first: a refusal leaves the list as it was.
                let _ = field.set_text(sc, &t);
            }))
            parse=move |t: &str| {
                let mut probe = Scenario::default();
                field
                    .set_text(&mut probe, t)
                    .map(|()| t.to_owned())
                    .map_err(|_| crate::i18n::text(crate::i18n::current_lang(), "err-image-mix"))
            }
        />
    })
}

/// A decimal field whose `auto` (derived) value is typed as 0, bound
/// through the registry row at link key `key`: its accessors.
fn optional_fraction(state: AppState, label: &'static str, key: &'static str) -> impl IntoView {
    let Some(Kind::OptionalFraction { get, set, .. }) = by_key(key).map(|f| f.kind) else {
        // Every key passed here is an optional fraction (tested below).
        return None;
    };
    Some(view! {
        <NumberField
            label
            value=Signal::derive(move || state.scenario.with(|sc| get(sc).unwrap_or(0.0)))
            on_change=Callback::new(move |x: f64| state.update(|sc| set(sc, (x > 0.0).then_some(x))))
            parse=|t| parse_decimal(t, 0.0, 1.0)
        />
    })
}

/// A whole-number field whose `auto` (derived) value is typed as 0, bound
/// through the registry row at link key `key`: its accessors and range.
fn optional_count(state: AppState, label: &'static str, key: &'static str) -> impl IntoView {
    let Some(Kind::OptionalCount { max, get, set, .. }) = by_key(key).map(|f| f.kind) else {
        // Every key passed here is an optional count (tested below).
        return None;
    };
    Some(view! {
        <NumberField
            label
            value=Signal::derive(move || state.scenario.with(|sc| get(sc).unwrap_or(0)))
            on_change=Callback::new(move |n: u64| state.update(|sc| set(sc, (n > 0).then_some(n))))
            parse=move |t| parse_count(t, 0, max)
        />
    })
}

fn flag(
    state: AppState,
    label: &'static str,
    get: fn(&Scenario) -> bool,
    set: fn(&mut Scenario, bool),
) -> impl IntoView {
    view! {
        <CheckField
            label
            value=Signal::derive(move || state.scenario.with(get))
            on_change=Callback::new(move |b| state.update(|sc| set(sc, b)))
        />
    }
}

/// Whether the registry's field `key` applies to `sc`: a menu is shown
/// exactly where the estimate reads it.
fn applies(key: &str, sc: &Scenario) -> bool {
    by_key(key).is_some_and(|f| f.applies(sc))
}

fn pick<T: Choice + Send + Sync>(
    state: AppState,
    label: &'static str,
    get: fn(&Scenario) -> T,
    set: fn(&mut Scenario, T),
) -> impl IntoView {
    view! {
        <ChoiceField
            label
            value=Signal::derive(move || state.scenario.with(get))
            on_change=Callback::new(move |c| state.update(|sc| set(sc, c)))
        />
    }
}

#[component]
pub fn TaskPanel() -> impl IntoView {
    let state = use_state();
    // Memos, not derived signals: the blocks below are rebuilt only when the
    // task changes, never on a keystroke in one of their own inputs (a
    // rebuilt input loses focus mid-number).
    let task = Memo::new(move |_| state.scenario.with(|sc| sc.task));
    // The format the estimate uses (QLoRA over a 16-bit choice is NF4): the
    // menu shows what is computed, never a value the estimate ignores.
    let weights = Memo::new(move |_| state.scenario.with(|sc| sc.effective_weights()));
    let has_vision = Memo::new(move |_| {
        state
            .spec
            .with(|s| s.as_ref().is_ok_and(|s| s.vision.is_some()))
    });
    let weight_options = Signal::derive(move || state.scenario.with(weight_formats));
    view! {
        <section class="panel task-panel" aria-labelledby="task-heading">
            <h2 id="task-heading">{tr("task-heading")}</h2>
            <fieldset class="tabs">
                <legend class="visually-hidden">{tr("task-heading")}</legend>
                {[(TaskKind::Inference, "task-inference"), (TaskKind::Training, "task-training")]
                    .into_iter()
                    .map(|(t, text)| {
                        view! {
                            <label class="tab">
                                <input
                                    type="radio"
                                    name="task"
                                    data-testid=format!("task-{}", t.key())
                                    prop:checked=move || task.get() == t
                                    on:change=move |_| state.update(|sc| sc.task = t)
                                />
                                {tr(text)}
                            </label>
                        }
                    })
                    .collect_view()}
            </fieldset>
            <div class="grid">
                <ChoiceField
                    label="weight format"
                    value=weights
                    options=weight_options
                    testid="weights"
                    on_change=Callback::new(move |w| state.update(|sc| sc.weights = w))
                />
                {pick(state, "compute dtype", |sc| sc.compute_dtype, |sc, d| sc.compute_dtype = d)}
                {pick(state, "attention kernel", |sc| sc.attention, |sc, a| sc.attention = a)}
                <Show when=move || matches!(weights.get(), WeightFormat::Nf4 | WeightFormat::Fp4)>
                    {flag(state, "double quantization", |sc| sc.double_quant, |sc, b| sc.double_quant = b)}
                </Show>
                <Show when=move || matches!(weights.get(), WeightFormat::Gptq4 | WeightFormat::Awq4)>
                    {count(state, "group size", "gs", |sc| sc.group_size, |sc, n| sc.group_size = n)}
                </Show>
                {flag(state, "empty_cache() after loading", |sc| sc.empty_cache_after_load, |sc, b| sc.empty_cache_after_load = b)}
                <Show when=move || state.scenario.with(|sc| applies("es", sc))>
                    {flag(state, "expandable segments", |sc| sc.expandable_segments, |sc, b| sc.expandable_segments = b)}
                </Show>
            </div>
            {move || match task.get() {
                TaskKind::Training => view! { <TrainingFields has_vision/> }.into_any(),
                TaskKind::Inference => view! { <InferenceFields has_vision/> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn TrainingFields(has_vision: Memo<bool>) -> impl IntoView {
    let state = use_state();
    let method = Memo::new(move |_| state.scenario.with(|sc| sc.training.method));
    let lora = move || matches!(method.get(), Method::Lora | Method::Qlora);
    let strategy = Memo::new(move |_| state.scenario.with(|sc| sc.parallel.strategy));
    let targets = move || state.scenario.with(|sc| sc.training.lora.targets.clone());
    view! {
        <h3>{tr("section-training")}</h3>
        <div class="grid">
            {pick(state, "framework", |sc| sc.training.framework, |sc, f| sc.training.framework = f)}
            {pick(state, "method", |sc| sc.training.method, |sc, m| sc.training.method = m)}
            {pick(state, "precision mode", |sc| sc.training_precision, |sc, p| sc.training_precision = p)}
            <Show when=move || method.get() != Method::ForwardBackward>
                {pick(state, "optimizer", |sc| sc.training.optimizer, |sc, o| sc.training.optimizer = o)}
                <OptionalChoiceField
                    label="optimizer state dtype"
                    none_label="follow precision"
                    value=Signal::derive(move || state.scenario.with(|sc| sc.training.optimizer_state_dtype))
                    on_change=Callback::new(move |d| state.update(|sc| sc.training.optimizer_state_dtype = d))
                />
            </Show>
            {count(state, "micro-batch", "mb", |sc| sc.training.micro_batch, |sc, n| sc.training.micro_batch = n)}
            {count(state, "gradient accumulation", "ga", |sc| sc.training.grad_accum, |sc, n| sc.training.grad_accum = n)}
            {count(state, "sequence length", "seq", |sc| sc.training.seq_len, |sc, n| sc.training.seq_len = n)}
            // Encoder-decoder models (T5): the decoder's own length.
            <Show when=move || state.spec.with(|s| s.as_ref().is_ok_and(|s| s.encoder_layers.is_some_and(|e| e > 0)))>
                {optional_count(state, "target tokens (0 = sequence length)", "tgt")}
            </Show>
            // Whisper: the encoder's frames are fixed, the sequence is the labels.
            <Show when=move || state.spec.with(|s| s.as_ref().is_ok_and(|s| s.encoder_tokens.is_some()))>
                <p class="fixed-encoder" data-testid="fixed-encoder">{tr("hint-fixed-encoder")}</p>
            </Show>
            {pick(state, "checkpointing", |sc| sc.training.checkpointing, |sc, c| sc.training.checkpointing = c)}
            // Hybrid and state-space models: fused kernels or PyTorch code for their recurrent mixers.
            <Show when=move || state.scenario.with(|sc| applies("mk", sc))>
                {pick(state, "recurrent mixer kernels", |sc| sc.training.mixer_kernels, |sc, k| sc.training.mixer_kernels = k)}
            </Show>
        </div>
        <Show when=lora>
            <h3>{tr("section-lora")}</h3>
            <div class="grid">
                {count(state, "rank", "r", |sc| sc.training.lora.rank, |sc, n| sc.training.lora.rank = n)}
                <NumberField
                    label="dropout"
                    value=Signal::derive(move || state.scenario.with(|sc| sc.training.lora.dropout))
                    on_change=Callback::new(move |p| state.update(|sc| sc.training.lora.dropout = p))
                    parse=|t| parse_decimal(t, 0.0, 0.99)
                />
                // PEFT/TRL cast a 4-bit model's norms (and maybe head) to fp32 first.
                <Show when=move || state.scenario.with(|sc| applies("kp", sc))>
                    {pick(state, "kbit prep", |sc| sc.training.kbit_prep, |sc, k| sc.training.kbit_prep = k)}
                </Show>
            </div>
            <fieldset class="targets">
                <legend>{tr("lora-targets")}</legend>
                {LoraTarget::ALL
                    .iter()
                    .map(|&t| {
                        view! {
                            <label class="check">
                                <input
                                    type="checkbox"
                                    prop:checked=move || targets().contains(&t)
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        state.update(|sc| {
                                            let list = &mut sc.training.lora.targets;
                                            list.retain(|x| *x != t);
                                            if on {
                                                list.push(t);
                                            }
                                        });
                                    }
                                />
                                {t.key()}
                            </label>
                        }
                    })
                    .collect_view()}
            </fieldset>
        </Show>
        <div class="checks">
            {flag(state, "chunked loss", |sc| sc.training.chunked_loss, |sc, b| sc.training.chunked_loss = b)}
            {flag(state, "activation offload to CPU", |sc| sc.training.activation_offload, |sc, b| sc.training.activation_offload = b)}
            {flag(state, "torch.compile", |sc| sc.training.compile, |sc, b| sc.training.compile = b)}
            <Show when=move || state.scenario.with(|sc| sc.training.optimizer != Optimizer::None)>
                {flag(state, "optimizer step in backward", |sc| sc.training.optimizer_in_backward, |sc, b| sc.training.optimizer_in_backward = b)}
            </Show>
            <Show when=move || state.scenario.with(|sc| matches!(sc.training.optimizer, Optimizer::Adam | Optimizer::Adamw | Optimizer::SgdMomentum))>
                {flag(state, "fused optimizer (fused=True)", |sc| sc.training.fused_optimizer, |sc, b| sc.training.fused_optimizer = b)}
            </Show>
        </div>
        <h3>{tr("section-parallelism")}</h3>
        <div class="grid">
            {pick(state, "ZeRO / FSDP", |sc| sc.parallel.strategy, |sc, s| sc.parallel.strategy = s)}
            <Show when=move || strategy.get() != Strategy::None && strategy.get() != Strategy::Ddp>
                {pick(state, "offload", |sc| sc.parallel.offload, |sc, o| sc.parallel.offload = o)}
            </Show>
            <Show when=move || state.scenario.with(|sc| applies("z3pb", sc))>
                {optional_count(state, "ZeRO-3 prefetch bucket (elements, 0 = auto)", "z3pb")}
                {optional_count(state, "ZeRO-3 persistence threshold (elements, 0 = auto)", "z3pt")}
                {optional_count(state, "ZeRO-3 max live parameters (elements, 0 = auto)", "z3ml")}
                {optional_count(state, "ZeRO-3 max reuse distance (elements, 0 = auto)", "z3rd")}
            </Show>
            {count(state, "tensor parallel", "tp", |sc| sc.parallel.tp, |sc, n| sc.parallel.tp = n)}
            {count(state, "pipeline parallel", "pp", |sc| sc.parallel.pp, |sc, n| sc.parallel.pp = n)}
            <Show when=move || state.scenario.with(|sc| sc.parallel.tp > 1)>
                {flag(state, "sequence parallel", |sc| sc.parallel.sequence_parallel, |sc, b| sc.parallel.sequence_parallel = b)}
            </Show>
        </div>
        <Show when=move || has_vision.get()>
            <h3>{tr("section-images")}</h3>
            <div class="grid">
                {count(state, "images per sample", "img", |sc| sc.training.images_per_sample, |sc, n| sc.training.images_per_sample = n)}
                {optional_count(state, "image side (px, 0 = model's)", "imgsz")}
                {flag(state, "freeze vision tower", |sc| sc.training.freeze_vision, |sc, b| sc.training.freeze_vision = b)}
                {image_size_fields(state)}
            </div>
        </Show>
    }
}

#[component]
fn InferenceFields(has_vision: Memo<bool>) -> impl IntoView {
    let state = use_state();
    let engine = Memo::new(move |_| state.scenario.with(|sc| sc.inference.engine));
    view! {
        <h3>{tr("section-inference")}</h3>
        <div class="grid">
            {pick(state, "engine", |sc| sc.inference.engine, |sc, e| sc.inference.engine = e)}
            {count(state, "batch", "bs", |sc| sc.inference.batch, |sc, n| sc.inference.batch = n)}
            {count(state, "prompt tokens", "pl", |sc| sc.inference.prompt_len, |sc, n| sc.inference.prompt_len = n)}
            {count(state, "new tokens", "nt", |sc| sc.inference.new_tokens, |sc, n| sc.inference.new_tokens = n)}
            <OptionalChoiceField
                label="KV cache dtype"
                none_label="same as compute"
                value=Signal::derive(move || state.scenario.with(|sc| sc.inference.kv_cache_dtype))
                on_change=Callback::new(move |d| state.update(|sc| sc.inference.kv_cache_dtype = d))
            />
            <Show when=move || engine.get() == Engine::Vllm>
                <NumberField
                    label="gpu_memory_utilization"
                    value=Signal::derive(move || state.scenario.with(|sc| sc.inference.gpu_memory_utilization))
                    on_change=Callback::new(move |u| state.update(|sc| sc.inference.gpu_memory_utilization = u))
                    parse=|t| parse_decimal(t, 0.01, 1.0)
                />
                {optional_count(state, "max_num_seqs (0 = default)", "mns")}
                {optional_count(state, "max_num_batched_tokens (0 = default)", "mnbt")}
                {count(state, "shared prefix tokens", "pfx", |sc| sc.inference.shared_prefix_tokens, |sc, n| sc.inference.shared_prefix_tokens = n)}
            </Show>
            <Show when=move || engine.get() == Engine::Sglang>
                {optional_fraction(state, "mem_fraction_static (0 = SGLang's default)", "mfs")}
                {optional_count(state, "chunked_prefill_size (0 = SGLang's default)", "cps")}
                {optional_count(state, "max_running_requests (0 = SGLang's default)", "mns")}
                {count(state, "shared prefix tokens", "pfx", |sc| sc.inference.shared_prefix_tokens, |sc, n| sc.inference.shared_prefix_tokens = n)}
            </Show>
            <Show when=move || engine.get() == Engine::LlamaCpp>
                {optional_count(state, "gpu layers (-ngl, 0 = all)", "ngl")}
                {count(state, "experts on CPU (--n-cpu-moe)", "ncmoe", |sc| sc.inference.cpu_moe_layers, |sc, n| sc.inference.cpu_moe_layers = n)}
                {count(state, "ubatch (-ub)", "ub", |sc| sc.inference.ubatch, |sc, n| sc.inference.ubatch = n)}
                {pick(state, "KV cache type (-ctk/-ctv)", |sc| sc.inference.cache_type, |sc, t| sc.inference.cache_type = t)}
                {flag(state, "flash attention", |sc| sc.inference.flash_attn, |sc, b| sc.inference.flash_attn = b)}
            </Show>
            <Show when=move || engine.get() == Engine::Transformers>
                <Show when=move || state.scenario.with(|sc| applies("qk", sc))>
                    {pick(state, "GPTQ/AWQ kernel", |sc| sc.inference.quant_kernel, |sc, k| sc.inference.quant_kernel = k)}
                </Show>
                {flag(state, "static KV cache", |sc| sc.inference.static_cache, |sc, b| sc.inference.static_cache = b)}
                <Show when=move || state.scenario.with(|sc| sc.inference.static_cache)>
                    {optional_count(state, "static cache length (tokens, 0 = prompt + new)", "clen")}
                </Show>
                {flag(state, "tuple KV cache (transformers < 4.36)", |sc| sc.inference.tuple_cache, |sc, b| sc.inference.tuple_cache = b)}
            </Show>
            {count(state, "tensor parallel", "tp", |sc| sc.parallel.tp, |sc, n| sc.parallel.tp = n)}
            {count(state, "pipeline parallel", "pp", |sc| sc.parallel.pp, |sc, n| sc.parallel.pp = n)}
            <Show when=move || has_vision.get()>
                {count(state, "images per prompt", "ipp", |sc| sc.inference.images_per_prompt, |sc, n| sc.inference.images_per_prompt = n)}
                {image_size_fields(state)}
            </Show>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_take_the_ranges_of_the_core_registry() {
        let keys = [
            "gs", "mb", "ga", "seq", "tgt", "r", "tp", "pp", "img", "imgsz", "bs", "pl", "nt",
            "ipp", "n", "mns", "mnbt", "pfx", "ngl", "ncmoe", "ub", "imgw", "imgh", "clen", "cps",
            "z3pb", "z3pt", "z3ml", "z3rd", "vfr", "vfps",
        ];
        for key in keys {
            assert_ne!(field_range(key), (0, u64::MAX), "{key} has no range");
        }
        // The fields typed as "0 = auto" are the registry's optional counts.
        for key in [
            "tgt", "imgsz", "mns", "mnbt", "ngl", "imgw", "imgh", "clen", "cps", "z3pb", "z3pt",
            "z3ml", "z3rd",
        ] {
            assert!(
                matches!(
                    by_key(key).map(|f| f.kind),
                    Some(Kind::OptionalCount { .. })
                ),
                "{key}"
            );
        }
        // The fields typed as "0 = auto" decimals are optional fractions.
        assert!(matches!(
            by_key("mfs").map(|f| f.kind),
            Some(Kind::OptionalFraction { .. })
        ));
        assert_eq!(field_range("mb"), (1, 65_536));
        assert_eq!(field_range("ga"), (1, 1 << 20));
        assert_eq!(field_range("nt"), (0, 1 << 24));
    }

    #[test]
    fn gguf_only_with_llama_cpp_and_qlora_only_quantized() {
        let mut sc = Scenario::default();
        assert!(weight_formats(&sc).iter().all(|w| !w.is_gguf()));
        sc.inference.engine = Engine::LlamaCpp;
        let formats = weight_formats(&sc);
        assert!(formats.contains(&WeightFormat::GgufQ4KM) && formats.contains(&WeightFormat::Fp16));
        assert!(!formats.contains(&WeightFormat::Nf4));
        sc.task = TaskKind::Training;
        sc.training.method = Method::Qlora;
        assert_eq!(
            weight_formats(&sc),
            [WeightFormat::Int8, WeightFormat::Nf4, WeightFormat::Fp4]
        );
    }
}
