"""Per-layer saved bytes of PEFT LoRA layers, eager and under torch.compile (CPU, inductor).

Every model is built from a transformers config object with random bf16 weights (nothing is
downloaded), wrapped by peft.get_peft_model (no dropout), and runs two training steps under
saved_tensors_hooks; the bytes packed for backward in step 2 are counted once per storage,
parameters excluded. Per layer = (4 layers - 2 layers) / 2. One JSON line per
family x targets x rank x adapter dtype x mode, appended to the file named on the command line.

    python3 measure_lora_compiled.py lora_compiled.jsonl     # about 25 minutes on 2 CPU cores
"""
import sys, json, time, warnings, collections
import torch, transformers, peft
warnings.filterwarnings("ignore"); transformers.logging.set_verbosity_error()
torch.set_num_threads(2)
B, S = 1, 256
BASE = dict(hidden_size=512, intermediate_size=1536, num_attention_heads=8, num_key_value_heads=2, head_dim=64,
            vocab_size=1024, max_position_embeddings=4096, rms_norm_eps=1e-5, tie_word_embeddings=False)
CFG = {"llama": transformers.LlamaConfig, "qwen2": transformers.Qwen2Config, "gemma": transformers.GemmaConfig,
       "qwen3": transformers.Qwen3Config}
ALL = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

def measure(family, L, targets, r, fp32_adapters, compile_):
    torch._dynamo.reset()
    kw = dict(BASE, num_hidden_layers=L)
    m = transformers.AutoModelForCausalLM.from_config(CFG[family](**kw), dtype=torch.bfloat16, attn_implementation="sdpa")
    m.train(); m.config.use_cache = False
    cfg = peft.LoraConfig(r=r, lora_alpha=2 * r, lora_dropout=0.0, target_modules=targets, task_type="CAUSAL_LM")
    m = peft.get_peft_model(m, cfg, autocast_adapter_dtype=fp32_adapters)
    net = torch.compile(m, dynamic=False) if compile_ else m
    params = {p.untyped_storage().data_ptr() for p in m.parameters()}
    seen, tot, shapes = set(), [0], collections.Counter()
    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in params and st.data_ptr() not in seen:
            seen.add(st.data_ptr()); tot[0] += st.nbytes(); shapes[(tuple(t.shape), str(t.dtype).replace("torch.", ""))] += 1
        return t
    x = torch.randint(0, 1024, (B, S))
    for step in (1, 2):
        seen.clear(); tot[0] = 0; shapes.clear()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            loss = net(input_ids=x, labels=x).loss
        loss.backward()
    return tot[0], shapes

GRID = [
    ("llama", ALL, 16, True), ("llama", ["q_proj", "v_proj"], 16, True), ("llama", ALL, 64, False),
    ("llama", ["q_proj", "k_proj", "v_proj", "o_proj"], 8, True), ("llama", ["gate_proj", "up_proj", "down_proj"], 8, True),
    ("qwen2", ALL, 8, True), ("gemma", ALL, 16, True), ("qwen3", ALL, 16, True),
]
if __name__ == "__main__":
    out = open(sys.argv[1], "a")
    for family, targets, r, f32 in GRID:
        for comp in (True, False):
            res = {}
            for L in (2, 4):
                res[L], shapes = measure(family, L, targets, r, f32, comp)
            per = (res[4] - res[2]) // 2
            row = dict(family=family, targets=[t.split("_")[0] for t in targets], rank=r, fp32_adapters=f32,
                       compiled=comp, b=B, s=S, hidden=BASE["hidden_size"], intermediate=BASE["intermediate_size"],
                       heads=BASE["num_attention_heads"], kv_heads=BASE["num_key_value_heads"],
                       head_dim=BASE["head_dim"], vocab=BASE["vocab_size"], per_layer=per, nonlayer=res[2] - 2 * per,
                       shapes_L4={f"{k[0]}:{k[1]}": v for k, v in shapes.items()},
                       versions=f"torch {torch.__version__}, transformers {transformers.__version__}, peft {peft.__version__}")
            out.write(json.dumps(row) + "\n"); out.flush()
            print(family, row["targets"], r, f32, comp, per, flush=True)
