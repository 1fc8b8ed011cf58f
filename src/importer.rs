//! The importers the calculator runs only when asked: a pasted, uploaded or
//! fetched `config.json`, a pasted GPU inventory, the Hub's parameter count;
//! and the fix-it plan search, asked only for a setup that does not fit.
//!
//! With the `lazy-importer` feature (the site's builds: index.html and
//! tools.html) they run in a worker of their own (`src/bin/vramfit-importer.rs`,
//! built into `importer/` beside index.html), started on the first question,
//! so that their code, most of it the config importer, is not part of the
//! page's first load; the service worker precaches it for offline use.
//! Without the feature (the tests) the same questions are answered in the
//! page, through the same strings (`importer/protocol.rs`).

// With the worker, the page only reads answers: the worker writes them.
#[cfg_attr(feature = "lazy-importer", allow(dead_code))]
mod protocol;

use vramfit_core::inventory::MachineGpus;

/// The worker's script, relative to each page (the calculator's, the tools
/// page's): the site has one importer, beside the calculator.
pub const WORKER: &str = "importer/worker.js";
pub const WORKER_FROM_TOOLS: &str = "../importer/worker.js";

thread_local! {
    static WORKER_SCRIPT: std::cell::Cell<&'static str> = const { std::cell::Cell::new(WORKER) };
}

/// Where this page finds the worker's script ([`WORKER`] unless told).
pub fn use_worker_at(script: &'static str) {
    WORKER_SCRIPT.with(|s| s.set(script));
}

/// The model a `config.json` describes and the format a quantized
/// checkpoint stores its weights in, or what is wrong with it.
pub async fn import_config(json: &str) -> Result<protocol::Imported, String> {
    let answer = ask(protocol::CONFIG, json).await?;
    protocol::read_model(protocol::result(&answer)?).ok_or_else(unavailable)
}

/// The card and GPU count of the machine whose `vramfit gpus --json` this
/// is, or what is wrong with it.
pub async fn machine_gpus(text: &str) -> Result<MachineGpus, String> {
    let answer = ask(protocol::GPUS, text).await?;
    protocol::read_machine(protocol::result(&answer)?).ok_or_else(unavailable)
}

/// The fix-it plans of a scenario (`None` when the search fails or the
/// worker cannot answer): run in the worker, where the plan search and its
/// techniques live, off the page's first load and its thread.
pub async fn plans(
    sc: &vramfit_core::scenario::Scenario,
) -> Option<vramfit_core::plan::PlanReport> {
    let answer = ask(protocol::PLANS, &vramfit_core::url::encode(sc))
        .await
        .ok()?;
    protocol::read_plans(protocol::result(&answer).ok()?)
}

/// The parameter count in the Hub's model API answer (`safetensors.total`).
pub async fn hub_param_count(api_json: &str) -> Option<u64> {
    let answer = ask(protocol::HUB_COUNT, api_json).await.ok()?;
    protocol::result(&answer).ok()?.parse().ok()
}

/// Said when the importer cannot answer (its files could not be loaded).
fn unavailable() -> String {
    crate::i18n::text(crate::i18n::current_lang(), "importer-unavailable")
}

#[cfg(not(feature = "lazy-importer"))]
async fn ask(kind: &str, text: &str) -> Result<String, String> {
    Ok(protocol::answer(kind, text))
}

#[cfg(feature = "lazy-importer")]
async fn ask(kind: &str, text: &str) -> Result<String, String> {
    worker::ask(kind, text).await.ok_or_else(unavailable)
}

#[cfg(feature = "lazy-importer")]
mod worker {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    /// A started worker and the questions it has not answered yet.
    struct Worker {
        worker: web_sys::Worker,
        /// Each waiting question's resolve function, oldest first: the
        /// worker answers in the order it is asked.
        waiting: Rc<RefCell<Vec<js_sys::Function>>>,
        /// It failed to load (its script, or its wasm): the next question
        /// starts a new one (the network may be back).
        broken: Rc<Cell<bool>>,
        _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
        _on_error: Closure<dyn FnMut(web_sys::Event)>,
    }

    impl Worker {
        fn start() -> Option<Self> {
            let script = super::WORKER_SCRIPT.with(Cell::get);
            let worker = web_sys::Worker::new(script).ok()?;
            let waiting = Rc::new(RefCell::new(Vec::<js_sys::Function>::new()));
            let broken = Rc::new(Cell::new(false));
            let on_message = {
                let (waiting, broken) = (waiting.clone(), broken.clone());
                Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
                    move |event: web_sys::MessageEvent| {
                        let answer = event.data();
                        // null: the worker could not load its wasm.
                        if answer.is_null() {
                            broken.set(true);
                        }
                        let next = {
                            let mut waiting = waiting.borrow_mut();
                            (!waiting.is_empty()).then(|| waiting.remove(0))
                        };
                        if let Some(resolve) = next {
                            let _ = resolve.call1(&JsValue::NULL, &answer);
                        }
                    },
                )
            };
            let on_error = {
                let (waiting, broken) = (waiting.clone(), broken.clone());
                Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
                    broken.set(true);
                    answer_all(&waiting);
                })
            };
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            Some(Self {
                worker,
                waiting,
                broken,
                _on_message: on_message,
                _on_error: on_error,
            })
        }
    }

    impl Drop for Worker {
        fn drop(&mut self) {
            self.worker.terminate();
            answer_all(&self.waiting);
        }
    }

    /// Resolves every waiting question with no answer.
    fn answer_all(waiting: &RefCell<Vec<js_sys::Function>>) {
        let all = std::mem::take(&mut *waiting.borrow_mut());
        for resolve in all {
            let _ = resolve.call0(&JsValue::NULL);
        }
    }

    thread_local! {
        static WORKER: RefCell<Option<Rc<Worker>>> = const { RefCell::new(None) };
    }

    /// The worker's answer, or `None` when it cannot be loaded.
    pub(super) async fn ask(kind: &str, text: &str) -> Option<String> {
        let worker = WORKER.with(|slot| {
            let mut slot = slot.borrow_mut();
            // Replaced here, never inside its own callbacks.
            if slot.as_ref().is_some_and(|w| w.broken.get()) {
                *slot = None;
            }
            if slot.is_none() {
                *slot = Worker::start().map(Rc::new);
            }
            slot.clone()
        })?;
        let answered = js_sys::Promise::new(&mut |resolve, _| {
            worker.waiting.borrow_mut().push(resolve);
        });
        let question = js_sys::Array::of2(&kind.into(), &text.into());
        if worker.worker.post_message(&question).is_err() {
            worker.broken.set(true);
            answer_all(&worker.waiting);
        }
        wasm_bindgen_futures::JsFuture::from(answered)
            .await
            .ok()?
            .as_string()
    }
}

#[cfg(test)]
mod tests {
    use super::protocol::{
        answer, read_machine, read_model, read_plans, result, CONFIG, GPUS, HUB_COUNT, PLANS,
    };
    use vramfit_core::inventory::{Card, Inventory};

    /// Setups that do not fit come back from the worker with the very plans
    /// the core's search finds, each changed scenario included, though they
    /// travel as share links.
    #[test]
    fn plans_come_back_as_the_search_found_them() {
        use vramfit_core::plan::{fix_plans, PlanOptions};
        use vramfit_core::url::decode;
        let links = [
            "v=1&m=meta-llama/Llama-3.1-8B&t=train&gpu=rtx-4090&mb=4&seq=4096",
            "v=1&m=Qwen/Qwen2.5-72B&gpu=a100-sxm4-80gb&bs=8&pl=30000&nt=1000&eng=vllm",
            "v=1&t=train&meth=lora&ckpt=op&gpu=rtx-3090&mb=8&seq=8192&m=meta-llama/Llama-3.1-8B",
        ];
        let mut plans = 0;
        for link in links {
            let direct = fix_plans(&decode(link).scenario, &PlanOptions::default()).expect(link);
            let through = read_plans(result(&answer(PLANS, link)).expect(link)).expect(link);
            assert_eq!(through.plans.len(), direct.plans.len(), "{link}");
            for (a, b) in through.plans.iter().zip(&direct.plans) {
                assert_eq!(a.scenario, b.scenario, "{link}");
                assert_eq!(a.changes, b.changes, "{link}");
                assert_eq!(
                    (
                        a.peak_allocated_bytes,
                        a.device_used_bytes,
                        a.headroom_bytes
                    ),
                    (
                        b.peak_allocated_bytes,
                        b.device_used_bytes,
                        b.headroom_bytes
                    ),
                    "{link}"
                );
                // floats travel as their bits: the ranking comes back exact
                assert_eq!(a.cost, b.cost, "{link}");
            }
            assert_eq!(
                (through.fits, through.headroom_bytes, through.evaluated),
                (direct.fits, direct.headroom_bytes, direct.evaluated),
                "{link}"
            );
            plans += direct.plans.len();
        }
        assert!(
            plans >= 3,
            "only {plans} plans: the check needs setups that do not fit"
        );
    }

    /// A report cut short, a bad escape or an absurd length reads as no
    /// report, never as a panic or a huge allocation.
    #[test]
    fn a_garbled_plans_answer_reads_as_none() {
        let link = "v=1&m=meta-llama/Llama-3.1-8B&t=train&gpu=rtx-4090&mb=4&seq=4096";
        let text = result(&answer(PLANS, link)).expect("plans").to_owned();
        assert!(read_plans(&text).is_some_and(|r| !r.plans.is_empty()));
        for cut in [0, 1, text.len() / 3, text.len() / 2, text.len() - 2] {
            let cut = (0..=cut)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            assert!(read_plans(&text[..cut]).is_none(), "cut at {cut}");
        }
        let lines: Vec<&str> = text.split('\n').collect();
        let mut huge = lines.clone();
        huge[7] = "99999999999";
        assert!(read_plans(&huge.join("\n")).is_none());
        let escaped = text.replacen("\n", "\\q\n", 9);
        assert!(read_plans(&escaped).is_none());
    }

    /// Every config.json the core's tests import comes back through the
    /// worker's answer as the very model the importer built.
    #[test]
    fn every_test_config_comes_back_as_the_importer_built_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/tests/data");
        let mut folders = vec![root];
        let (mut models, mut quantized) = (0, 0);
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).expect("test data").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                if path.extension().and_then(|e| e.to_str()) != Some("json") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable");
                let direct = vramfit_core::hf_config::from_hf_config(&text);
                let through = result(&answer(CONFIG, &text))
                    .map(|r| read_model(r).expect("the model reads back"));
                let checkpoint = vramfit_core::hf_config::checkpoint_weights(&text)
                    .ok()
                    .flatten();
                let unmodelled = vramfit_core::hf_config::unmodelled_quantization(&text);
                match direct {
                    Ok(spec) => {
                        assert_eq!(
                            through,
                            Ok((spec, checkpoint, unmodelled)),
                            "{}",
                            path.display()
                        );
                        models += 1;
                        quantized += usize::from(checkpoint.is_some());
                    }
                    Err(error) => assert_eq!(through, Err(error.to_string()), "{}", path.display()),
                }
            }
        }
        assert!(models > 100, "only {models} configs imported");
        // and the quantized checkpoints' formats with them
        assert!(quantized >= 3, "only {quantized} quantized configs");
    }

    #[test]
    fn a_machine_comes_back_as_the_inventory_reads_it() {
        for text in [
            r#"[{"name":"NVIDIA A100-SXM4-40GB"},{"name":"NVIDIA A100-SXM4-40GB"},{"name":"NVIDIA T4"}]"#,
            r#"[{"name":"Mystery\tGPU 9000","memory_total_bytes":25769803776},{"name":null}]"#,
            r#"[{"memory_total_bytes":1073741824}]"#,
        ] {
            let direct = Inventory::parse(text)
                .and_then(|i| i.machine_gpus())
                .expect("a machine");
            let through = result(&answer(GPUS, text)).ok().and_then(read_machine);
            assert_eq!(through.as_ref(), Some(&direct), "{text}");
        }
        assert_eq!(
            read_machine("2\tc100\tx").map(|m| m.card),
            Some(Card::Catalog("100".into()))
        );
        assert_eq!(read_machine("2\tma100\tx"), None);
        for text in ["", "[]", "{}", "[{\"index\": \"one\"}]", "not json"] {
            let direct = Inventory::parse(text).and_then(|i| i.machine_gpus());
            let message = direct.expect_err("no machine").to_string();
            assert_eq!(result(&answer(GPUS, text)), Err(message), "{text}");
        }
    }

    #[test]
    fn the_hub_count_comes_back_as_the_core_reads_it() {
        for text in [
            r#"{"safetensors":{"total":1234567890123}}"#,
            r#"{"safetensors":{}}"#,
            "nonsense",
        ] {
            let through = result(&answer(HUB_COUNT, text))
                .ok()
                .and_then(|r| r.parse::<u64>().ok());
            assert_eq!(
                through,
                vramfit_core::hub::safetensors_total(text),
                "{text}"
            );
        }
    }
}
