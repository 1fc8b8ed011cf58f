# vramfit web app: Chinese texts (Project Fluent). Every key here must exist in en.ftl
# (src/i18n.rs tests). Terms follow the Chinese guides in shared/seeds/.

inputs = 输入
results = 结果
views = 视图
tab-calculator = 计算器
tab-wizard = 向导
skip-to-main = 跳到主要内容
page-loading = 正在打开…
tab-doctor = OOM 诊断
tab-logs = 显存日志
language = 语言
tagline = 放得下吗？训练和部署大模型所需的 GPU 显存。
units = 单位
share-link = 分享链接
copy-link = 复制链接
copied = 已复制
copy-failed = 请选中链接后手动复制
notices-intro = 链接中有部分参数无法使用，已用默认值代替：
dismiss = 关闭
memory-heading = 显存
total-peak-allocated = 峰值已分配
total-peak-reserved = 峰值已预留
total-device-used = nvidia-smi 已用
meaning-peak-allocated = 峰值时存活的张量：torch.cuda.max_memory_allocated()。
meaning-peak-reserved = 已分配加上缓存分配器的空闲块：torch.cuda.max_memory_reserved()。
meaning-device-used = 已预留加上 CUDA 上下文和库：即 nvidia-smi 显示的占用，也是必须放得下的量。
fits-spare = 放得下：{ $capacity } 中还剩 { $spare }。
band = 可信范围：同类运行（{ $regime }，{ $cases } 次实测）中 8 成落在 { $low } 到 { $high } 之间；估算偏低的比例为 { $under }%。
band-few = 可信范围：{ $low } 到 { $high }。此类运行（{ $regime }）实测很少，因此给出 ±25% 的宽范围。
band-fits-unless = 放得下，除非估算偏低超过 { $margin }%：可信范围的上限放不下。
short-by = 放不下：{ $capacity } 还差 { $short }。
pool-fits = KV 缓存池放得下你的序列：还剩 { $spare }。
pool-short = KV 缓存池还差 { $short } 才能放下你的序列。
pool-holds = KV 缓存池：{ $tokens } 个 token；可同时容纳 { $seqs } 个 { $context } token 的序列（你要求 { $asked } 个）。
pool-longest = { $asked } 个序列时最长上下文：{ $context } 个 token。
offload-split = llama.cpp 分配：GPU 上 { $gpu }，内存中 { $host }。
pick-gpu = 选择 GPU 以查看余量。
peak-during = 峰值出现在{ $phase }阶段。
show-math = 显示计算过程
counter-allocated = 峰值时已分配
counter-reserved = 已预留、未分配
counter-device = PyTorch 之外（仅 nvidia-smi 可见）
counter-not-at-peak = 峰值时不存活
pin = 固定以便比较
gpu-one = GPU { $index }
gpu-range = GPU { $from }–{ $to }
no-gpu-in-estimate = 估算结果中没有 GPU。
fit-heading = 所有 GPU
fit-gpu = GPU
fit-memory = 显存
fit-fits = 放得下
fit-headroom = 余量
fit-largest-batch = 最大微批大小
fit-longest-context = 最长上下文
fit-concurrent = 此上下文下的并发序列数
fit-model-max = （模型上限）
yes = 是
no = 否
compare-heading = 比较
compare-none = 当前输入没有可比较的估算结果。
compare-line = 项目
compare-pinned = 已固定（{ $model }）
compare-current = 当前
compare-difference = 差值
compare-open = 打开已固定的输入
unpin = 取消固定
sweep-heading-batch = 显存随微批大小的变化
sweep-heading-context = 显存随上下文长度（提示 + 新生成 token）的变化
sweep-crossing = 在 { $fits }（放得下）与 { $over }（放不下）之间超出显卡容量。
sweep-heading = 显存图
capacity = 容量
model-heading = 模型
model-how = 如何指定模型
model-catalog = 模型库
model-config = config.json
model-custom = 自定义
model-params = 参数量
model-summary = { $model }：{ $params } 个参数
model-guessed = （结构由参数量推测）
model-search = 搜索模型（名称、规模、系列）
model-no-match = 目录中没有与“{ $query }”匹配的模型。
model-paste-instead = 粘贴它的 config.json
stale-config = 这仍是上一个模型的结果：粘贴的 config 无法读取（见旁边的提示）。
stale-no-match = 这仍是上一个模型的结果：目录中没有与“{ $query }”匹配的模型。
stale-tag = 上一个模型的结果
model-list = 模型（显示 { $count } 个）
config-paste = 粘贴 config.json
config-hint = 该检查点的 Hugging Face config.json
config-upload = 或上传文件
hub-fetch = 从 Hugging Face Hub 获取 { $id }
hub-fetching = 正在获取 { $id } 的 config.json…
hub-read = 已读取 { $id }：{ $arch }，{ $params } 参数，上下文 { $context } 个 token。
hub-count-differs = Hub 统计其 safetensors 文件中有 { $hub } 个参数；vramfit 按配置计算为 { $ours }（文件中可能含有 transformers 不构建的层，如 MTP 层或视觉塔）。
hub-from-cache = 无法连接 Hub：这是上次获取时保存的副本。
hub-gated = { $id } 是受限或私有模型：请在 Hub 上接受其条款后粘贴它的 config.json，或使用提供该模型的镜像。
hub-not-found = 该 Hub 上没有 { $id } 的 config.json：请检查名称，或粘贴文件。
hub-too-large = Hub 返回的内容超过 { $limit }，不可能是 config.json：请改为粘贴文件。
hub-timed-out = Hub 在 { $seconds } 秒内没有响应。
hub-offline = 没有网络，无法连接 Hub。粘贴 config.json 即可继续；之前获取过的配置可离线使用。
hub-status = Hub 返回了 HTTP { $status }。
hub-retry = 重试
hub-base = Hub 地址
hint-fixed-encoder = 编码器总是处理固定数量的音频帧（Whisper：1,500 帧，即 30 秒音频，无论片段多短）；序列长度指解码器的标签 token 数。
hub-base-hint = https://huggingface.co，或镜像，如 https://hf-mirror.com
hub-base-invalid = “{ $text }”不是 http(s) 地址；Hub 地址仍为 { $base }。
config-imported = 已导入 { $name }。
checkpoint-weights = 其 quantization_config 将权重设为 { $format }。
checkpoint-unmodelled = 其 quantization_config（{ $method }）在此没有对应的权重格式：权重按当前设置估算。
config-unreadable = 无法读取该文件
importer-unavailable = 无法加载导入器：请检查网络连接后重试
layer-shapes-are-guessed-from-the-count = 各层结构由参数量推测
gpu-heading = GPU
gpu-search = 搜索 GPU
gpu-card = 显卡
gpu-none = 无（不检查是否放得下）
set-tp = 把张量并行设为 { $tp }
gpu-paste = 或粘贴 `vramfit gpus --json` 的输出
task-heading = 任务
task-inference = 推理
task-training = 训练
section-training = 训练
section-lora = LoRA
section-parallelism = 并行
section-images = 图像
section-inference = 推理
lora-targets = 目标模块
follow-precision = 跟随精度
same-as-compute = 与计算精度相同
field-weight-format = 权重格式
field-compute-dtype = 计算精度
field-attention-kernel = 注意力实现
field-double-quantization = 双重量化
field-group-size = 分组大小
field-framework = 框架
field-method = 方法
field-precision-mode = 精度模式
field-optimizer = 优化器
field-optimizer-state-dtype = 优化器状态精度
field-micro-batch = 微批大小（micro-batch）
field-gradient-accumulation = 梯度累积
field-sequence-length = 序列长度
field-checkpointing = 梯度检查点
field-rank = 秩（rank）
field-dropout = 丢弃率（dropout）
field-chunked-loss = 分块计算损失
field-activation-offload-to-cpu = 激活值卸载到 CPU
field-torch-compile = torch.compile 编译
field-kbit-prep = 4 位准备（QLoRA 类型转换）
field-recurrent-mixer-kernels = 循环混合层内核
field-optimizer-step-in-backward = 在反向传播中执行优化器步
field-zero-fsdp = ZeRO / FSDP
field-offload = 卸载
field-tensor-parallel = 张量并行
field-pipeline-parallel = 流水线并行
field-sequence-parallel = 序列并行
field-images-per-sample = 每个样本的图像数
field-image-side-px-0-model-s = 图像边长（像素，0 = 模型默认）
field-image-width = 图像宽度（像素，0 = 模型默认）
field-image-height = 图像高度（像素，0 = 与宽度相同）
field-image-mix = 同一批内的混合尺寸
image-mix-hint = 宽x高，或 phone、page、1080p；用逗号分隔；留空为统一尺寸
image-tokens-line = { $w }×{ $h }：语言模型中 { $lm } 个图像 token，视觉编码器中 { $tower } 个
field-freeze-vision-tower = 冻结视觉编码器
field-engine = 推理引擎
field-batch = 批大小（batch）
field-prompt-tokens = 提示 token 数
field-new-tokens = 新生成 token 数
field-kv-cache-dtype = KV 缓存精度
field-gpu-memory-utilization = 显存占用比例（gpu_memory_utilization）
field-max-num-seqs-0-default = 最大并发序列数（0 = vLLM 默认）
field-max-num-batched-tokens-0-default = 每步 token 上限（0 = vLLM 默认）
field-shared-prefix-tokens = 共享提示前缀（token 数）
field-gpu-layers-ngl-0-all = GPU 层数（-ngl，0 = 全部）
field-output-layer-last = 输出层最后上 GPU（2025 年 12 月前的 llama.cpp、Ollama）
field-experts-on-cpu-n-cpu-moe = 放在 CPU 的专家层数（--n-cpu-moe）
field-ubatch-ub = 每步 token 数（-ub）
field-kv-cache-type-ctk-ctv = KV 缓存类型（-ctk/-ctv）
field-flash-attention = Flash Attention（-fa）
field-images-per-prompt = 每个提示的图像数
field-architecture = 架构
field-hidden-size = 隐藏层维度
field-layers = 层数
field-attention-heads = 注意力头数
field-kv-heads = KV 头数
field-mlp-width = MLP 宽度
field-vocabulary = 词表大小
field-output-head-tied-to-the-embedding = 输出层与词嵌入共享权重
field-parameters-billions = 参数量（十亿）
field-gpu-count = GPU 数量
field-custom-capacity-gib-or-gb-0-card-s = 自定义容量（GiB 或 GB，0 = 显卡自身）
field-os-and-desktop-keep-gib-0-default = 系统与桌面保留（GiB，0 = 默认）
err-whole-number = { $min } 到 { $max } 之间的整数
err-number = { $min } 到 { $max } 之间的数
err-image-mix = 尺寸写为宽x高、单边像素或预设（phone、page、1080p、720p、4k），用逗号分隔，最多 64 个
plan-heading = 修复方案
plan-intro = nvidia-smi 将显示 { $used }，而显卡只有 { $capacity }：以下是放得下的最便宜改动，按代价排序。
plan-none = 在搜索范围内没有能放进这张卡的方案。
plan-cost = 方案 { $rank }：单步时间 ×{ $slowdown }，{ $risk }，GPU 数 ×{ $gpus }
plan-memory = 改动后：{ $capacity } 中使用 { $used }（剩余 { $headroom }）
plan-speed-cost = 速度代价
plan-quality-risk = 质量风险
plan-risk-points = { $points } 个百分点
plan-changes-workload = 改变了你的工作负载
plan-sources = 来源
plan-open = 打开此方案

# 显存明细的各行（核心库 `Part` 的 JSON 名）。
part-weights = 权重
part-gradients = 梯度
part-optimizer_states = 优化器状态
part-master_weights = fp32 主权重
part-activations = 激活值
part-logits_loss = logits 与损失
part-kv_cache = KV 缓存
part-recurrent_state = 循环状态（卷积 + SSM）
part-cross_attention_cache = 交叉注意力 K/V（图像、编码器帧）
part-quant_buffers = 反量化缓冲区
part-optimizer_step = 优化器更新的临时缓冲区
part-workspace = 并行通信缓冲区
part-paged_optimizer = 分页优化器状态（统一内存）
part-library_workspace = cuBLAS 工作区
part-non_torch = PyTorch 之外（NCCL、库）
part-cuda_context = CUDA 上下文与库
part-allocator_slack = 分配器缓存（已预留、未使用）
# 峰值出现的阶段。
phase-optimizer-step = 优化器更新
phase-forward-backward = 前向与反向传播
phase-generation = 生成
bar-caption = { $name }：{ $used } / { $capacity }
bar-per-gpu = 每张 GPU

# 嵌入模式与完整应用中的“嵌入”面板。
embed-open = 在 vramfit 中打开 ↗
embed-ignored = 已忽略：{ $params }
embed-fits = 放得下，余 { $spare }
embed-short = 放不下，差 { $short }
embed-heading = 嵌入
embed-inputs = 嵌入的计算器显示哪些输入
embed-copy = 复制代码
embed-copy-failed = 请选中代码后手动复制
field-weights = 权重
field-gpu = GPU

# 菜单里需要翻译的取值（其余是名称：adamw、sdpa、zero3）。
choice-trl = TRL（fp32 归一化层）
choice-auto = 自动
choice-none = 无
choice-off = 关闭
choice-full = 全量
choice-selective = 选择性 (Megatron)
choice-op = 逐算子 (torchtitan SAC)
choice-fused = 融合内核
choice-torch = PyTorch 回退实现
choice-pure16 = 纯 16 位
choice-amp = AMP（fp32 主权重）
choice-hf_trainer = HF Trainer
choice-llama_cpp = llama.cpp
choice-forward_backward = 仅前向 + 反向
choice-adapter = Adapter
choice-adapter_v2 = Adapter v2
choice-sgd_momentum = 带动量的 SGD
choice-optimizer = 优化器
choice-optimizer_params = 优化器和参数
choice-gated = 门控
choice-plain = 普通
choice-rms = RMSNorm
choice-layer = LayerNorm
choice-custom = 自定义
page-title = vramfit：放得下吗？GPU 显存计算器
field-fused-optimizer-fused-true = 融合优化器（fused=True）
field-target-tokens-0-sequence-length = 目标（解码器）token 数（0 = 与序列长度相同）
phase-forward = 前向传播
field-empty-cache-after-loading = 加载后调用 empty_cache()
field-expandable-segments = 可扩展段（PYTORCH_CUDA_ALLOC_CONF）
field-static-kv-cache = 静态 KV 缓存（预分配）
field-static-cache-length-tokens-0-prompt-new = 静态缓存长度（token，0 = 提示 + 新生成）
field-video-frames-0-none = 视频帧数（0 = 无）
field-video-fps-0-unknown = 视频帧率（0 = 未知）
field-gptq-awq-kernel = GPTQ/AWQ 内核
field-zero-3-prefetch-bucket-elements-0-auto = ZeRO-3 预取桶（元素数，0 = 自动）
field-zero-3-persistence-threshold-elements-0-auto = ZeRO-3 常驻阈值（元素数，0 = 自动）
field-zero-3-max-live-parameters-elements-0-auto = ZeRO-3 最大驻留参数（元素数，0 = 自动）
field-zero-3-max-reuse-distance-elements-0-auto = ZeRO-3 最大复用距离（元素数，0 = 自动）
field-mem-fraction-static-0-sglang-s-default = 静态显存比例（mem_fraction_static，0 = SGLang 默认）
field-chunked-prefill-size-0-sglang-s-default = 分块预填充大小（chunked_prefill_size，0 = SGLang 默认）
field-max-running-requests-0-sglang-s-default = 最大并发请求数（max_running_requests，0 = SGLang 默认）
choice-sglang = SGLang
update-ready = vramfit 有新版本可用。
reload = 重新加载
field-tuple-kv-cache-transformers-4-36 = 元组形式的 KV 缓存（transformers < 4.36）
field-nf4-by-torchao-0-1-torchtune-before-june-2024 = 由 torchao 0.1 量化的 NF4（2024 年 6 月前的 torchtune）
