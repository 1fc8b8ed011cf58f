# vramfit web app: English texts (Project Fluent). Every key here must exist in zh.ftl
# (src/i18n.rs tests). Field labels are `field-` + the label in kebab case.

inputs = Inputs
results = Results
views = Views
tab-calculator = Calculator
tab-wizard = Wizard
skip-to-main = Skip to the main content
page-loading = Opening…
tab-doctor = OOM doctor
tab-logs = Memory logs
language = Language
tagline = Will it fit? GPU memory for training and serving LLMs.
units = Units
share-link = Share link
copy-link = Copy link
copied = Copied
copy-failed = Select the link and copy it
notices-intro = Some parts of this link could not be used; defaults stand in for them:
dismiss = Dismiss
memory-heading = Memory
total-peak-allocated = peak allocated
total-peak-reserved = peak reserved
total-device-used = nvidia-smi used
meaning-peak-allocated = Live tensors at the peak: torch.cuda.max_memory_allocated().
meaning-peak-reserved = Allocated plus the caching allocator's spare blocks: torch.cuda.max_memory_reserved().
meaning-device-used = Reserved plus CUDA context and libraries: what nvidia-smi shows, and what must fit.
fits-spare = Fits: { $spare } to spare on { $capacity }.
band = Trust: { $low } to { $high } for 8 runs in 10 of this kind ({ $regime }, { $cases } measured runs); the estimate was low { $under } % of the time.
band-few = Trust: { $low } to { $high }: few measured runs of this kind ({ $regime }), so a wide ±25 % band.
band-fits-unless = Fits unless the estimate is more than { $margin } % low: the band's top does not fit.
short-by = Does not fit: short by { $short } of { $capacity }.
pool-fits = The KV pool holds your sequences: { $spare } of it to spare.
pool-short = The KV pool is short by { $short } for your sequences.
pool-holds = KV pool: { $tokens } tokens; it holds { $seqs } sequences of { $context } tokens at once (you asked for { $asked }).
pool-longest = Longest context at { $asked } sequences: { $context } tokens.
offload-split = llama.cpp split: { $gpu } on the GPU, { $host } in host RAM.
pick-gpu = Pick a GPU to see the headroom.
peak-during = Peak during { $phase }.
show-math = Show the math
counter-allocated = allocated at the peak
counter-reserved = reserved, not allocated
counter-device = outside PyTorch (nvidia-smi only)
counter-not-at-peak = not alive at the peak
pin = Pin to compare
gpu-one = GPU { $index }
gpu-range = GPUs { $from }–{ $to }
no-gpu-in-estimate = The estimate has no GPU.
fit-heading = Every GPU
fit-gpu = GPU
fit-memory = memory
fit-fits = fits
fit-headroom = headroom
fit-largest-batch = largest micro-batch
fit-longest-context = longest context
fit-concurrent = sequences at this context
fit-model-max = (the model's limit)
yes = yes
no = no
compare-heading = Compare
compare-none = The current inputs have no estimate to compare.
compare-line = line
compare-pinned = pinned ({ $model })
compare-current = current
compare-difference = difference
compare-open = open the pinned inputs
unpin = Unpin
sweep-heading-batch = Memory against micro-batch size
sweep-heading-context = Memory against context (prompt + new tokens)
sweep-crossing = Crosses the card between { $fits } (fits) and { $over } (does not fit).
sweep-heading = Memory chart
capacity = capacity
model-heading = Model
model-how = How to give the model
model-catalog = Catalog
model-config = config.json
model-custom = Custom
model-params = Parameter count
model-summary = { $model }: { $params } parameters
model-guessed = (shape guessed from the count)
model-search = Search models (name, size, family)
model-no-match = No catalog model matches “{ $query }”.
model-paste-instead = Paste its config.json
stale-config = This result is still for the previous model: the pasted config could not be read (see the message beside it).
stale-no-match = This result is still for the previous model: nothing in the catalog matches “{ $query }”.
stale-tag = previous model's result
model-list = Models ({ $count } shown)
config-paste = Paste config.json
config-hint = Hugging Face config.json of the checkpoint
config-upload = or upload it
hub-fetch = Get { $id } from the Hugging Face Hub
hub-fetching = Fetching the config.json of { $id }…
hub-read = Read { $id }: { $arch }, { $params } parameters, { $context } tokens of context.
hub-count-differs = The Hub counts { $hub } parameters in its safetensors files; vramfit counts { $ours } from the config (the files may hold layers transformers does not build, such as MTP layers or a vision tower).
hub-from-cache = The Hub could not be reached: this is the copy saved when it was last fetched.
hub-gated = { $id } is gated or private: accept its terms on the Hub and paste its config.json, or use a mirror that serves it.
hub-not-found = This Hub has no config.json for { $id }: check the id, or paste the file.
hub-too-large = The Hub's answer is larger than { $limit }, which no config.json is: paste the file instead.
hub-timed-out = The Hub did not answer within { $seconds } seconds.
hub-offline = No network: the Hub cannot be reached. Paste the config.json to go on; configs fetched before work offline.
hub-status = The Hub answered HTTP { $status }.
hub-retry = Try again
hub-base = Hub address
hint-fixed-encoder = The encoder always runs over its fixed audio frames (Whisper: 1,500, 30 s of audio, however short the clip); the sequence length is the decoder's label tokens.
hub-base-hint = https://huggingface.co, or a mirror such as https://hf-mirror.com
hub-base-invalid = “{ $text }” is not an http(s) address; the Hub address stays { $base }.
config-imported = Imported { $name }.
checkpoint-weights = Its quantization_config sets the weights to { $format }.
checkpoint-unmodelled = Its quantization_config ({ $method }) has no weight format here: the weights are as the setup says.
config-unreadable = the file could not be read
importer-unavailable = the importer could not be loaded: check the connection and try again
layer-shapes-are-guessed-from-the-count = layer shapes are guessed from the count
gpu-heading = GPU
gpu-search = Search GPUs
gpu-card = Card
gpu-none = none (no fit check)
set-tp = Set tensor parallel to { $tp }
gpu-paste = or paste `vramfit gpus --json`
task-heading = Task
task-inference = Inference
task-training = Training
section-training = Training
section-lora = LoRA
section-parallelism = Parallelism
section-images = Images
section-inference = Inference
lora-targets = targets
follow-precision = follow precision
same-as-compute = same as compute
field-weight-format = weight format
field-compute-dtype = compute dtype
field-attention-kernel = attention kernel
field-double-quantization = double quantization
field-group-size = group size
field-framework = framework
field-method = method
field-precision-mode = precision mode
field-optimizer = optimizer
field-optimizer-state-dtype = optimizer state dtype
field-micro-batch = micro-batch
field-gradient-accumulation = gradient accumulation
field-sequence-length = sequence length
field-checkpointing = checkpointing
field-rank = rank
field-dropout = dropout
field-chunked-loss = chunked loss
field-activation-offload-to-cpu = activation offload to CPU
field-torch-compile = torch.compile
field-kbit-prep = 4-bit prep (QLoRA casts)
field-recurrent-mixer-kernels = recurrent mixer kernels
field-optimizer-step-in-backward = optimizer step in backward
field-zero-fsdp = ZeRO / FSDP
field-offload = offload
field-tensor-parallel = tensor parallel
field-pipeline-parallel = pipeline parallel
field-sequence-parallel = sequence parallel
field-images-per-sample = images per sample
field-image-side-px-0-model-s = image side (px, 0 = model's)
field-image-width = image width (px, 0 = the model's)
field-image-height = image height (px, 0 = the width)
field-image-mix = mixed sizes in one batch
image-mix-hint = WxH or phone, page, 1080p; comma-separated; empty: one size
image-tokens-line = { $w }×{ $h }: { $lm } image tokens in the language model, { $tower } in the vision tower
field-freeze-vision-tower = freeze vision tower
field-engine = engine
field-batch = batch
field-prompt-tokens = prompt tokens
field-new-tokens = new tokens
field-kv-cache-dtype = KV cache dtype
field-gpu-memory-utilization = gpu_memory_utilization
field-max-num-seqs-0-default = max_num_seqs (0 = vLLM's default)
field-max-num-batched-tokens-0-default = max_num_batched_tokens (0 = vLLM's default)
field-shared-prefix-tokens = shared prompt prefix (tokens)
field-gpu-layers-ngl-0-all = GPU layers (-ngl, 0 = all)
field-output-layer-last = output layer last (llama.cpp before Dec 2025, Ollama)
field-experts-on-cpu-n-cpu-moe = experts on the CPU (--n-cpu-moe)
field-ubatch-ub = ubatch (-ub)
field-kv-cache-type-ctk-ctv = KV cache type (-ctk/-ctv)
field-flash-attention = flash attention (-fa)
field-images-per-prompt = images per prompt
field-architecture = architecture
field-hidden-size = hidden size
field-layers = layers
field-attention-heads = attention heads
field-kv-heads = KV heads
field-mlp-width = MLP width
field-vocabulary = vocabulary
field-output-head-tied-to-the-embedding = output head tied to the embedding
field-parameters-billions = parameters (billions)
field-gpu-count = GPU count
field-custom-capacity-gib-or-gb-0-card-s = custom capacity (GiB or GB, 0 = card's)
field-os-and-desktop-keep-gib-0-default = what the OS and desktop keep (GiB, 0 = default)
err-whole-number = a whole number from { $min } to { $max }
err-number = a number from { $min } to { $max }
err-image-mix = sizes as WxH, a side or a preset (phone, page, 1080p, 720p, 4k), comma-separated, at most 64
plan-heading = Fix-it plans
plan-intro = nvidia-smi would show { $used } on a { $capacity } card: the cheapest changes that fit, ranked by cost.
plan-none = No plan within the search limits fits this card.
plan-cost = Plan { $rank }: step time ×{ $slowdown }, { $risk }, GPUs ×{ $gpus }
plan-memory = Then: { $used } of { $capacity } ({ $headroom } to spare)
plan-speed-cost = speed cost
plan-quality-risk = quality risk
plan-risk-points = { $points } pp
plan-changes-workload = changes your workload
plan-sources = sources
plan-open = Open this plan

# Breakdown lines (the core's `Part`, by its JSON name).
part-weights = weights
part-gradients = gradients
part-optimizer_states = optimizer states
part-master_weights = fp32 master weights
part-activations = activations
part-logits_loss = logits and loss
part-kv_cache = KV cache
part-recurrent_state = recurrent state (conv + SSM)
part-cross_attention_cache = cross-attention K/V (images, encoder frames)
part-quant_buffers = dequantization buffers
part-optimizer_step = optimizer step buffers
part-workspace = parallelism buffers
part-paged_optimizer = paged optimizer states (unified memory)
part-library_workspace = cuBLAS workspaces
part-non_torch = outside PyTorch (NCCL, libraries)
part-cuda_context = CUDA context and libraries
part-allocator_slack = allocator cache (reserved, unused)
# When the peak happens (the core's `peak_phase`, spaces and / as -).
phase-optimizer-step = the optimizer step
phase-forward-backward = forward and backward
phase-generation = generation
bar-caption = { $name }: { $used } of { $capacity }
bar-per-gpu = per GPU

# Embed mode and the full app's Embed panel.
embed-open = open in vramfit ↗
embed-ignored = ignored: { $params }
embed-fits = fits, { $spare } to spare
embed-short = does not fit, short by { $short }
embed-heading = Embed
embed-inputs = Inputs the embedded calculator shows
embed-copy = Copy snippet
embed-copy-failed = Select the snippet and copy it
field-weights = weights
field-gpu = GPU

# Menu values that are words (the others are names: adamw, sdpa, zero3).
choice-trl = TRL (fp32 norms)
choice-auto = auto
choice-none = none
choice-off = off
choice-full = full
choice-selective = selective (Megatron)
choice-op = per-op (torchtitan SAC)
choice-fused = fused kernels
choice-torch = PyTorch fallback
choice-pure16 = pure 16-bit
choice-amp = AMP (fp32 master weights)
choice-hf_trainer = HF Trainer
choice-llama_cpp = llama.cpp
choice-forward_backward = forward + backward only
choice-adapter = adapter
choice-adapter_v2 = adapter v2
choice-sgd_momentum = SGD with momentum
choice-optimizer = optimizer
choice-optimizer_params = optimizer and parameters
choice-gated = gated
choice-plain = plain
choice-rms = RMSNorm
choice-layer = LayerNorm
choice-custom = custom
page-title = vramfit: will it fit on the GPU?
field-fused-optimizer-fused-true = fused optimizer (fused=True)
field-target-tokens-0-sequence-length = target tokens (0 = sequence length)
phase-forward = the forward pass
field-empty-cache-after-loading = empty_cache() after loading
field-expandable-segments = expandable segments (PYTORCH_CUDA_ALLOC_CONF)
field-static-kv-cache = static KV cache
field-static-cache-length-tokens-0-prompt-new = static cache length (tokens, 0 = prompt + new)
field-video-frames-0-none = video frames (0 = none)
field-video-fps-0-unknown = video fps (0 = unknown)
field-gptq-awq-kernel = GPTQ/AWQ kernel
field-zero-3-prefetch-bucket-elements-0-auto = ZeRO-3 prefetch bucket (elements, 0 = auto)
field-zero-3-persistence-threshold-elements-0-auto = ZeRO-3 persistence threshold (elements, 0 = auto)
field-zero-3-max-live-parameters-elements-0-auto = ZeRO-3 max live parameters (elements, 0 = auto)
field-zero-3-max-reuse-distance-elements-0-auto = ZeRO-3 max reuse distance (elements, 0 = auto)
field-mem-fraction-static-0-sglang-s-default = mem_fraction_static (0 = SGLang's default)
field-chunked-prefill-size-0-sglang-s-default = chunked_prefill_size (0 = SGLang's default)
field-max-running-requests-0-sglang-s-default = max_running_requests (0 = SGLang's default)
choice-sglang = SGLang
update-ready = A new version of vramfit is ready.
reload = Reload
field-tuple-kv-cache-transformers-4-36 = tuple KV cache (transformers < 4.36)
field-nf4-by-torchao-0-1-torchtune-before-june-2024 = NF4 by torchao 0.1 (torchtune before June 2024)
