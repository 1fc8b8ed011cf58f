//! llama.cpp's load log (`llama-cli`, `llama-server`, Ollama's runner): the
//! buffers it printed per device (`<device> [model] buffer size`, `KV buffer
//! size`, `compute buffer size`, `output buffer size`), and the settings that
//! decided them (`offloaded N/M layers`, `n_ctx`, `n_ubatch`, `flash_attn`,
//! `type_k`, the file type, `general.name`). Ollama's server log says the
//! same in its own words (its engine's `ml/device.go` and `llm/server.go`:
//! `msg="model weights" device=CUDA0 size="4.1 GiB"`, `"kv cache"`,
//! `"compute graph"`; the runner's `KvSize:8192 ... BatchSize:512`, or
//! `--ctx-size 8192 --batch-size 512` on its command line).

use crate::doctor::size::{read_number, size_at, GbMeaning};
use crate::precision::WeightFormat;
use crate::scenario::{CacheType, Engine, ModelSource, Scenario, TaskKind};

use super::llama_cpp_breakdown::Breakdown;
use super::reading::{Figure, Reading, RuntimeLog};

/// Longest line read (a pasted log may carry long lines).
const MAX_LINE: usize = 4096;

/// What a buffer line is about.
enum Buffer {
    Model,
    Kv,
    Compute,
    Output,
}

/// Bytes per device of one kind of buffer, GPU devices apart from host ones.
#[derive(Default)]
struct Devices {
    gpu: Vec<(String, f64)>,
    host: f64,
    lines: Vec<String>,
    /// The printed rounding of its lines (llama.cpp's 0.01 MiB, Ollama's
    /// one decimal of GiB or MiB), the widest.
    rounding: f64,
}

impl Devices {
    fn add(&mut self, device: &str, bytes: f64, rounding: f64, line: &str) {
        self.rounding = self.rounding.max(rounding);
        let host = device.contains("CPU") || device.ends_with("_Host");
        if host {
            self.host += bytes;
        } else if let Some(d) = self.gpu.iter_mut().find(|(d, _)| d == device) {
            d.1 += bytes;
        } else {
            self.gpu.push((device.to_owned(), bytes));
        }
        self.lines.push(line.to_owned());
    }

    /// The busiest GPU's bytes.
    fn busiest(&self) -> Option<f64> {
        self.gpu.iter().map(|(_, b)| *b).reduce(f64::max)
    }
}

#[derive(Default)]
struct Settings {
    name: Option<String>,
    file_type: Option<WeightFormat>,
    offloaded: Option<u64>,
    /// M of `offloaded N/M layers`: the repeating layers plus the output.
    offloadable: Option<u64>,
    /// `offloading output layer to GPU`: printed whenever the output layer
    /// moves, which builds since PR #18148 do first.
    output_layer_moved: bool,
    /// Compute buffers printed by `sched_reserve`, as the 2026 build
    /// measured in `tests/data/llama_cpp/measured` does (earlier builds
    /// print them from `llama_context` or `llama_new_context_with_model`).
    sched_reserve: bool,
    flash_attn_auto: bool,
    n_ctx: Option<u64>,
    n_ubatch: Option<u64>,
    flash_attn: Option<bool>,
    cache: Option<CacheType>,
    /// The first GPU the backend listed, as it printed the name.
    gpu: Option<String>,
    /// Ollama's server log (its engine's buffer lines).
    ollama: bool,
}

/// Reads a llama.cpp load log; `None` when no line carries a buffer size.
pub fn read(text: &str) -> Option<RuntimeLog> {
    let mut buffers: [Devices; 4] = Default::default();
    let mut table = Breakdown::default();
    let mut s = Settings::default();
    for raw in text.lines() {
        let line = cut(raw.trim(), MAX_LINE);
        // Comment lines (a pasted header, a shell prompt's note) are not the log.
        if line.starts_with('#') {
            continue;
        }
        if table.read_line(line) {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        let read = buffer_line(line, &lower).or_else(|| {
            let found = ollama_line(line, &lower);
            s.ollama |= found.is_some();
            found
        });
        if let Some((kind, device, bytes, rounding)) = read {
            let slot = match kind {
                Buffer::Model => 0,
                Buffer::Kv => 1,
                Buffer::Compute => 2,
                Buffer::Output => 3,
            };
            buffers[slot].add(&device, bytes, rounding, line);
            continue;
        }
        s.read(line, &lower);
    }
    let no_buffer_lines = buffers.iter().all(|d| d.lines.is_empty());
    if no_buffer_lines && table.is_empty() {
        return None;
    }
    let mut log = RuntimeLog {
        engine: if s.ollama { "ollama log" } else { "llama.cpp" }.to_owned(),
        model: s.name.clone(),
        ..RuntimeLog::default()
    };
    let [model, kv, compute, output] = &buffers;
    let mut push = |figure: Figure, value: Option<f64>, devices: &Devices| {
        if let Some(v) = value {
            log.readings.push(Reading {
                figure,
                value: v,
                rounding: devices.rounding,
                line: devices.lines.join("\n"),
            });
        }
    };
    let host = |d: &Devices| (!d.lines.is_empty()).then_some(d.host);
    push(Figure::ModelBufferGpu, model.busiest(), model);
    push(Figure::ModelBufferHost, host(model), model);
    push(Figure::KvBufferGpu, kv.busiest(), kv);
    push(
        Figure::KvBufferHost,
        kv.busiest().and(host(kv)).filter(|b| *b > 0.0),
        kv,
    );
    push(Figure::ComputeBufferGpu, compute.busiest(), compute);
    let host_buffers = host(compute).map(|c| c + output.host);
    push(Figure::HostBuffers, host_buffers, compute);
    if no_buffer_lines {
        breakdown_buffers(&table, &mut log.readings);
    }
    breakdown_process(&table, &mut log.readings);
    // The table comes with the builds that print `sched_reserve` (late 2025 on).
    s.sched_reserve |= !table.is_empty();
    let gpus = model.gpu.len().max(table.gpus.len()).max(1) as u64;
    log.scenario = s.scenario(gpus, &mut log.assumed);
    log.context_from_kv = s.n_ctx.is_none();
    log.model_layers = s.offloadable.map(|m| m.saturating_sub(1));
    Some(log)
}

/// A log whose only memory lines are the breakdown table: its buffers per
/// device (whole MiB) and, where no `offloaded N/M` line says the split,
/// the share of them on the GPUs, from which the layer count is found.
fn breakdown_buffers(table: &Breakdown, readings: &mut Vec<Reading>) {
    let lines = table.lines.join("\n");
    let mut push = |figure: Figure, value: f64| {
        readings.push(Reading {
            figure,
            value,
            // Whole MiB, rounded down.
            rounding: (1u64 << 20) as f64,
            line: lines.clone(),
        });
    };
    if let Some(gpu) = table.busiest() {
        push(Figure::ModelBufferGpu, gpu.model);
        push(Figure::KvBufferGpu, gpu.context);
        push(Figure::ComputeBufferGpu, gpu.compute);
    }
    if let Some(host) = &table.host {
        push(Figure::ModelBufferHost, host.model);
        if host.context > 0.0 {
            push(Figure::KvBufferHost, host.context);
        }
        push(Figure::HostBuffers, host.compute);
    }
    let on_gpus: f64 = table
        .gpus
        .iter()
        .map(|g| g.model + g.context + g.compute)
        .sum();
    let on_host = table
        .host
        .as_ref()
        .map_or(0.0, |h| h.model + h.context + h.compute);
    if on_gpus > 0.0 && on_host > 0.0 {
        push(Figure::GpuShare, on_gpus / (on_gpus + on_host));
    }
}

/// The busiest GPU's whole process as the table counts it: its buffers and
/// what it holds beside them, the figure nvidia-smi would show for it.
fn breakdown_process(table: &Breakdown, readings: &mut Vec<Reading>) {
    if let Some(gpu) = table.busiest() {
        readings.push(Reading {
            figure: Figure::DeviceUsed,
            value: gpu.process(),
            rounding: 2.0 * (1u64 << 20) as f64,
            line: table.lines.join("\n"),
        });
    }
}

fn cut(line: &str, max: usize) -> &str {
    let mut end = line.len().min(max);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// Ollama's engine: `msg="model weights" device=CUDA0 size="4.1 GiB"` (an
/// older build: `buffer=CUDA0`), `msg="kv cache" ...`, `msg="compute graph"
/// backend=CUDA0 buffer_type=CUDA0 size="0 B"`.
fn ollama_line(line: &str, lower: &str) -> Option<(Buffer, String, f64, f64)> {
    let kind = if lower.contains("msg=\"model weights\"") {
        Buffer::Model
    } else if lower.contains("msg=\"kv cache\"") {
        Buffer::Kv
    } else if lower.contains("msg=\"compute graph\"") {
        Buffer::Compute
    } else {
        return None;
    };
    let device = ["device=", "buffer_type=", "buffer="]
        .iter()
        .find_map(|key| {
            let at = lower.find(key)? + key.len();
            let rest = line.get(at..)?.trim_start_matches('"');
            let end = rest.find([' ', '"']).unwrap_or(rest.len());
            (end > 0).then(|| rest[..end].to_owned())
        })?;
    let at = lower.find("size=")? + "size=".len();
    let start = at + usize::from(lower.as_bytes().get(at) == Some(&b'"'));
    let (size, _) = size_at(lower.as_bytes(), start, GbMeaning::Binary)?;
    Some((kind, device, size.bytes as f64, size.rounding_bytes as f64))
}

/// `<prefix>: <device> [model|KV|compute|output] buffer size = <n> MiB`.
fn buffer_line(line: &str, lower: &str) -> Option<(Buffer, String, f64, f64)> {
    let at = lower.find("buffer size")?;
    let kind = if lower.contains("compute buffer size") {
        Buffer::Compute
    } else if lower.contains("kv buffer size") {
        Buffer::Kv
    } else if lower.contains("output buffer size") {
        Buffer::Output
    } else if lower.contains("load_tensors") || lower.contains("model buffer size") {
        Buffer::Model
    } else {
        return None;
    };
    let head = line[..at].trim_end();
    let head = head
        .strip_suffix("model")
        .or_else(|| head.strip_suffix("KV"))
        .or_else(|| head.strip_suffix("compute"))
        .or_else(|| head.strip_suffix("output"))
        .unwrap_or(head)
        .trim_end();
    // The device follows the function's `: ` (RPC devices carry their own
    // `host:port`).
    let device = head
        .rsplit(": ")
        .next()?
        .split_whitespace()
        .last()?
        .to_owned();
    if device.is_empty() {
        return None;
    }
    let eq = lower[at..].find('=')? + at + 1;
    let start = eq + lower[eq..].len() - lower[eq..].trim_start().len();
    let (size, _) = size_at(lower.as_bytes(), start, GbMeaning::Binary)?;
    Some((kind, device, size.bytes as f64, size.rounding_bytes as f64))
}

/// The number after `key` and an `=` on the line.
fn after(lower: &str, key: &str) -> Option<(f64, usize)> {
    let at = lower.find(key)? + key.len();
    let eq = lower[at..].find('=')? + at + 1;
    let start = eq + lower[eq..].len() - lower[eq..].trim_start().len();
    read_number(lower.as_bytes(), start).map(|(v, _, end)| (v, end))
}

/// The GPU a backend's start-up line names: CUDA/ROCm `Device 0: NVIDIA
/// GeForce RTX 4090, compute capability 8.9`, the loader's `using device
/// CUDA0 (NVIDIA GeForce RTX 3070) - 7100 MiB free`, Metal's `found device:
/// Apple M1 Pro` or `GPU name: Apple M3 Max`, Vulkan's `ggml_vulkan: 0 = AMD
/// Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0`. RPC workers and the
/// CPU are not GPUs.
fn gpu_name(line: &str, lower: &str) -> Option<String> {
    let text = if let Some(at) = lower.find("using device ") {
        let rest = &line[at + "using device ".len()..];
        let open = rest.find('(')?;
        let close = rest.rfind(')')?;
        rest.get(open + 1..close)?
    } else if let Some(at) = lower.find("device 0:") {
        line[at + "device 0:".len()..].split(',').next()?
    } else if let Some(at) = lower
        .find("found device:")
        .or_else(|| lower.find("gpu name:"))
    {
        let key = if lower[at..].starts_with("found") {
            "found device:"
        } else {
            "gpu name:"
        };
        &line[at + key.len()..]
    } else if let Some(at) = lower.find("ggml_vulkan: 0 = ") {
        line[at + "ggml_vulkan: 0 = ".len()..].split(" (").next()?
    } else {
        return None;
    };
    let name = text.trim();
    let not_gpu = name.is_empty() || name.starts_with("RPC[") || name.eq_ignore_ascii_case("cpu");
    (!not_gpu).then(|| cut(name, 120).to_owned())
}

impl Settings {
    fn read(&mut self, line: &str, lower: &str) {
        if self.gpu.is_none() {
            self.gpu = gpu_name(line, lower);
        }
        if self.name.is_none() && lower.contains("general.name") {
            if let Some(eq) = line.find('=') {
                let name = line[eq + 1..].trim();
                if !name.is_empty() {
                    self.name = Some(name.to_owned());
                }
            }
        }
        if self.file_type.is_none()
            && (lower.contains("file type") || lower.contains("model ftype"))
        {
            if let Some(eq) = lower.find('=') {
                self.file_type = file_type(lower[eq + 1..].trim());
            }
        }
        // Ollama says where it stays too (`offloading output layer to CPU`)
        if lower.contains("offloading output layer") && !lower.contains("layer to cpu") {
            self.output_layer_moved = true;
        }
        if lower.contains("sched_reserve") {
            self.sched_reserve = true;
        }
        if let Some(at) = lower.find("offloaded ") {
            if let Some((n, _, end)) = read_number(lower.as_bytes(), at + "offloaded ".len()) {
                self.offloaded = Some(n as u64);
                if lower[end..].starts_with('/') {
                    self.offloadable =
                        read_number(lower.as_bytes(), end + 1).map(|(m, _, _)| m as u64);
                }
            }
        }
        if lower.contains("n_ctx ") || lower.contains("n_ctx\t") {
            if let Some((n, _)) = after(lower, "n_ctx") {
                self.n_ctx = self.n_ctx.or(Some(n as u64));
            }
        }
        if let Some((n, _)) = after(lower, "n_ubatch") {
            self.n_ubatch = self.n_ubatch.or(Some(n as u64));
        }
        if let Some(at) = lower.find("flash_attn") {
            let rest = lower[at..].split('=').nth(1).unwrap_or("").trim();
            self.flash_attn = self.flash_attn.or(match rest {
                r if r.starts_with('1') || r.starts_with("enabled") || r.starts_with("true") => {
                    Some(true)
                }
                r if r.starts_with('0') || r.starts_with("disabled") || r.starts_with("false") => {
                    Some(false)
                }
                // `-fa auto` turns it on where the backend supports it.
                r if r.starts_with("auto") => {
                    self.flash_attn_auto = true;
                    Some(true)
                }
                _ => None,
            });
        }
        self.read_ollama(line, lower);
        for key in ["type_k = '", "k ("] {
            if let Some(at) = lower.find(key) {
                let rest = &lower[at + key.len()..];
                let t = rest.split(['\'', ')']).next().unwrap_or("");
                self.cache = self.cache.or(match t {
                    "f16" => Some(CacheType::F16),
                    "q8_0" => Some(CacheType::Q8_0),
                    "q4_0" => Some(CacheType::Q4_0),
                    _ => None,
                });
            }
        }
    }

    /// Ollama's settings: its runner's load request (`KvSize:8192
    /// BatchSize:512 FlashAttention:true KvCacheType:q8_0`) or its older
    /// command line (`--ctx-size 8192 --batch-size 512 --flash-attn`; its
    /// batch is llama.cpp's `n_batch` and `n_ubatch` both), the model line of
    /// its engine (`architecture=... file_type=Q4_K_M name="..."`) and the
    /// GPU it found (`msg="inference compute" ... name="NVIDIA ..."`).
    fn read_ollama(&mut self, line: &str, lower: &str) {
        // its structured lines (`time=... level=INFO source=... msg=...`)
        self.ollama |= lower.contains(" level=") && lower.contains(" msg=");
        let number = |keys: [&str; 2]| {
            keys.iter().find_map(|key| {
                let at = lower.find(key)? + key.len();
                read_number(lower.as_bytes(), at).map(|(v, _, _)| v as u64)
            })
        };
        if let Some(n) = number(["kvsize:", "--ctx-size "]) {
            self.n_ctx = self.n_ctx.or(Some(n));
        }
        if let Some(n) = number(["batchsize:", "--batch-size "]) {
            self.n_ubatch = self.n_ubatch.or(Some(n));
        }
        // its scheduler's plan (`msg="offload to cuda" layers.model=29
        // layers.offload=29`, the repeating layers and the output) and its
        // runner's command line (`--n-gpu-layers 29`)
        if let Some(n) = number(["layers.offload=", "--n-gpu-layers "]) {
            self.offloaded = self.offloaded.or(Some(n));
        }
        if let Some(m) = number(["layers.model=", "layers.model="]) {
            self.offloadable = self.offloadable.or(Some(m));
        }
        if [
            "flashattention:true",
            "flashattention:enabled",
            "--flash-attn",
        ]
        .iter()
        .any(|k| lower.contains(k))
        {
            self.flash_attn = self.flash_attn.or(Some(true));
        } else if ["flashattention:false", "flashattention:disabled"]
            .iter()
            .any(|k| lower.contains(k))
            // the runner's command line names `--flash-attn` when it is on
            || lower.contains("msg=\"starting llama server\"")
        {
            self.flash_attn = self.flash_attn.or(Some(false));
        }
        for key in ["kvcachetype:", "--kv-cache-type "] {
            if let Some(at) = lower.find(key) {
                let t = lower[at + key.len()..]
                    .split([' ', '}'])
                    .next()
                    .unwrap_or("");
                self.cache = self.cache.or(match t {
                    "f16" => Some(CacheType::F16),
                    "q8_0" => Some(CacheType::Q8_0),
                    "q4_0" => Some(CacheType::Q4_0),
                    _ => None,
                });
            }
        }
        let quoted = |key: &str| {
            let at = lower.find(key)? + key.len();
            let rest = line.get(at..)?;
            let rest = rest.strip_prefix('"').unwrap_or(rest);
            let end = rest.find(['"', ' ']).unwrap_or(rest.len());
            (end > 0).then(|| rest[..end].to_owned())
        };
        if lower.contains(" architecture=") {
            if let Some(t) = quoted(" file_type=") {
                self.file_type = self.file_type.or(ollama_file_type(&t.to_ascii_lowercase()));
            }
            if self.name.is_none() {
                if let Some(at) = lower.find(" name=\"") {
                    let rest = &line[at + " name=\"".len()..];
                    let name = rest.split('"').next().unwrap_or("").trim();
                    if !name.is_empty() {
                        self.name = Some(cut(name, 200).to_owned());
                    }
                }
            }
        }
        if self.gpu.is_none() && lower.contains("msg=\"inference compute\"") {
            if let Some(at) = lower.find(" name=\"") {
                let rest = &line[at + " name=\"".len()..];
                let name = rest.split('"').next().unwrap_or("").trim();
                if !name.is_empty() {
                    self.gpu = Some(cut(name, 120).to_owned());
                }
            }
        }
    }

    fn scenario(&self, gpus: u64, assumed: &mut Vec<String>) -> Scenario {
        let mut sc = Scenario {
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        let inf = &mut sc.inference;
        inf.engine = Engine::LlamaCpp;
        if let Some(name) = &self.name {
            sc.model = ModelSource::Catalog(name.clone());
        }
        match self.file_type {
            Some(w) => sc.weights = w,
            None => assumed.push("file type not printed: Q4_K_M".to_owned()),
        }
        if sc.weights == WeightFormat::Bf16 && self.file_type.is_none() {
            sc.weights = WeightFormat::GgufQ4KM;
        }
        inf.gpu_layers = self.offloaded;
        // A partial offload without the output layer is a build from before
        // PR #18148 (December 2025), whose -ngl counted repeating layers; so
        // is, for its buffers, one printing them outside `sched_reserve`.
        let partial_without_output = match (self.offloaded, self.offloadable) {
            (Some(n), Some(m)) => n > 0 && n < m && !self.output_layer_moved,
            _ => false,
        };
        if partial_without_output || !self.sched_reserve {
            inf.output_layer_last = true;
            assumed.push(
                "a build before December 2025 (PR #18148): the output layer moves last, one input stream in host memory"
                    .to_owned(),
            );
        }
        if self.offloaded.is_none() {
            assumed.push("offloaded layers not printed: all".to_owned());
        }
        match self.n_ctx {
            Some(n) => inf.prompt_len = n.max(1),
            None => assumed.push(format!("n_ctx not printed: {}", inf.prompt_len)),
        }
        inf.new_tokens = 0;
        inf.batch = 1;
        if let Some(ub) = self.n_ubatch {
            inf.ubatch = ub.max(1);
        }
        match self.flash_attn {
            Some(fa) if self.flash_attn_auto => {
                inf.flash_attn = fa;
                assumed.push("flash_attn auto: read as on (the backend supports it)".to_owned());
            }
            Some(fa) => inf.flash_attn = fa,
            None => assumed.push("flash_attn not printed: on".to_owned()),
        }
        inf.cache_type = self.cache.unwrap_or_default();
        sc.parallel.gpus = gpus;
        match self.gpu.as_deref() {
            // The catalog's id, as a link names a card.
            Some(name) if crate::gpu::find_gpu(name).is_some() => {
                sc.gpu.name = crate::gpu::find_gpu(name).map(|g| g.id.clone());
            }
            Some(name) => assumed.push(format!(
                "GPU \"{name}\" is not in the catalog: pick the card to check the fit"
            )),
            None => {}
        }
        sc
    }
}

/// Ollama's file type names (`Q4_K_M`, `Q8_0`, `F16`) as a format.
fn ollama_file_type(t: &str) -> Option<WeightFormat> {
    Some(match t {
        "q4_k_m" => WeightFormat::GgufQ4KM,
        "q5_k_m" => WeightFormat::GgufQ5KM,
        "q3_k_m" => WeightFormat::GgufQ3KM,
        "q2_k" => WeightFormat::GgufQ2K,
        "q6_k" => WeightFormat::GgufQ6K,
        "q8_0" => WeightFormat::GgufQ8_0,
        "q4_0" => WeightFormat::GgufQ4_0,
        "bf16" => WeightFormat::Bf16,
        "f16" => WeightFormat::Fp16,
        "f32" => WeightFormat::Fp32,
        _ => return None,
    })
}

/// llama.cpp's printed file type (`Q4_K - Medium`, `Q8_0`) as a format.
fn file_type(text: &str) -> Option<WeightFormat> {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(match t.as_str() {
        s if s.starts_with("q4_k - medium") => WeightFormat::GgufQ4KM,
        s if s.starts_with("q5_k - medium") => WeightFormat::GgufQ5KM,
        s if s.starts_with("q3_k - medium") => WeightFormat::GgufQ3KM,
        s if s.starts_with("q2_k") => WeightFormat::GgufQ2K,
        s if s.starts_with("q6_k") => WeightFormat::GgufQ6K,
        s if s.starts_with("q8_0") => WeightFormat::GgufQ8_0,
        s if s.starts_with("q4_0") => WeightFormat::GgufQ4_0,
        s if s.starts_with("bf16") => WeightFormat::Bf16,
        s if s.starts_with("f16") || s.starts_with("mostly f16") => WeightFormat::Fp16,
        s if s.starts_with("all f32") || s.starts_with("f32") => WeightFormat::Fp32,
        _ => return None,
    })
}
