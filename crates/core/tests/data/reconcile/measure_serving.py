"""Start-up logs of the serving engines installed on a GPU machine, for the reconcile tests.

Writes a probe of what is installed ($OUT/probe.json), `nvidia-smi` output, and, for each
engine that imports (vLLM, SGLang), its start-up log on small models built from public
config.json values with dummy (random) weights and no tokenizer: nothing is downloaded.

    python3 measure_serving.py          # on the GPU machine; files to $OUT
"""
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

OUT = os.environ.get("OUT", ".")
MODELS = {
    "qwen25-05b": dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=896,
                       intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                       num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True,
                       max_position_embeddings=32768, rms_norm_eps=1e-6, rope_theta=1000000.0,
                       torch_dtype="bfloat16", hidden_act="silu", sliding_window=None, use_sliding_window=False),
    "llama3-8b": dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=4096,
                      intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, vocab_size=128256, tie_word_embeddings=False,
                      max_position_embeddings=8192, rms_norm_eps=1e-5, rope_theta=500000.0,
                      torch_dtype="bfloat16", hidden_act="silu", bos_token_id=128000, eos_token_id=128001),
}
RUNS = [("vllm", "qwen25-05b", 4096, 0.9), ("vllm", "llama3-8b", 8192, 0.9), ("vllm", "llama3-8b", 8192, 0.5),
        ("sglang", "llama3-8b", 8192, 0.85)]


def probe():
    p = {"python": sys.version.split()[0]}
    for name in ("torch", "transformers", "peft", "bitsandbytes", "accelerate", "vllm", "sglang", "deepspeed",
                 "torchao", "flash_attn", "liger_kernel", "mamba_ssm", "causal_conv1d", "fla", "optimum",
                 "gptqmodel", "auto_gptq", "awq", "llama_cpp", "triton", "xformers", "flashinfer"):
        try:
            p[name] = getattr(importlib.import_module(name), "__version__", "installed")
        except Exception as e:  # not installed (or broken): recorded, not fatal
            p[name] = None if isinstance(e, ModuleNotFoundError) else f"error: {str(e)[:120]}"
    for exe in ("llama-server", "llama-cli", "ollama", "nvcc"):
        p[exe] = shutil.which(exe)
    with open(os.path.join(OUT, "probe.json"), "w") as f:
        json.dump(p, f, indent=1)
    print(json.dumps(p), flush=True)
    return p


def model_dir(name):
    d = os.path.join("/tmp/vfm-models", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(MODELS[name], f)
    return d


VLLM = """
import sys
from vllm import LLM, SamplingParams
llm = LLM(model=sys.argv[1], load_format="dummy", skip_tokenizer_init=True, max_model_len=int(sys.argv[2]),
          gpu_memory_utilization=float(sys.argv[3]), dtype="bfloat16")
out = llm.generate([{"prompt_token_ids": list(range(100, 612))}], SamplingParams(max_tokens=16, ignore_eos=True,
                   detokenize=False))
print("VFM-DONE generated", len(out[0].outputs[0].token_ids), flush=True)
"""


def run_vllm(name, ctx, util, log, timeout):
    with open(log, "w") as f:
        r = subprocess.run([sys.executable, "-c", VLLM, model_dir(name), str(ctx), str(util)], stdout=f,
                           stderr=subprocess.STDOUT, timeout=timeout)
    return r.returncode


def run_sglang(name, ctx, util, log, timeout):
    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", model_dir(name), "--load-format", "dummy",
           "--skip-tokenizer-init", "--context-length", str(ctx), "--mem-fraction-static", str(util),
           "--port", "30123", "--dtype", "bfloat16"]
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        t0 = time.time()
        rc = None
        while time.time() - t0 < timeout:
            time.sleep(2)
            if proc.poll() is not None:
                rc = proc.returncode
                break
            with open(log) as g:
                if "fired up" in g.read():
                    rc = 0
                    break
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    return rc


def main():
    p = probe()
    with open(os.path.join(OUT, "nvidia-smi.txt"), "w") as f:
        subprocess.run(["nvidia-smi"], stdout=f, stderr=subprocess.STDOUT)
    budget = float(os.environ.get("SERVING_BUDGET_S", "240"))
    t0 = time.time()
    for engine, name, ctx, util in RUNS:
        if not p.get(engine) or str(p.get(engine)).startswith("error"):
            continue
        left = budget - (time.time() - t0)
        if left < 60:
            print(f"serving: budget spent, skipping {engine} {name}", flush=True)
            continue
        log = os.path.join(OUT, f"{engine}-{name}-ctx{ctx}-util{util}.log")
        try:
            fn = run_vllm if engine == "vllm" else run_sglang
            rc = fn(name, ctx, util, log, min(180, left))
        except subprocess.TimeoutExpired:
            rc = "timeout"
        print(f"serving: {engine} {name} ctx {ctx} util {util}: rc {rc}, log {log}", flush=True)


if __name__ == "__main__":
    main()
