#!/usr/bin/env python3
"""Measure llama.cpp's buffers and device memory on a GPU machine.

    python3 measure_llama_cpp.py --src LLAMA_CPP_TREE [--tiny] [--skip-build]

Builds llama.cpp (CUDA, this machine's GPU architecture) from LLAMA_CPP_TREE,
writes random-weight F16 GGUFs of public shapes (`make_gguf.py`), quantizes
them with `llama-quantize`, then for each (file, flags) of the grid:
  * runs `llama-completion` on a ~3,000-token prompt, 8 new tokens, `--fit off`,
    and records every `... buffer size = X MiB` line it prints, its memory
    breakdown table, and the device's used memory (NVML, sampled every 5 ms)
    above what was used before the run;
  * runs `llama-fit-params --fit-print on` (llama.cpp's own dry run of the same
    flags: model, context and compute MiB per device).
Then `llama-fit-params` plans `-ngl` / `-ot` for simulated cards (free memory
made small with `--fit-target`), which is llama.cpp's own offload choice.

Output: $OUT (or ./out) `llama_cpp_runs.jsonl`, `llama_cpp_fit.jsonl`,
`logs.tar.gz` (every log), `build.log`.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = Path(os.environ.get("OUT", "out"))
OUT.mkdir(parents=True, exist_ok=True)
LOGS = Path("/tmp/vfm-logs")
LOGS.mkdir(exist_ok=True)
MODELS = Path("/tmp/vfm-gguf")
BUILD = Path(os.environ.get("VFM_BUILD", "/tmp/vfm-llama-build"))

BUF = re.compile(r"(\w+):\s+(\S+)\s+(model|KV|compute|output) buffer size =\s+([\d.]+) MiB")
KV_SIZE = re.compile(r"llama_kv_cache: size =\s+([\d.]+) MiB \(\s*(\d+) cells,\s+(\d+) layers")


def log(*a):
    print(*a, flush=True)


def sh(cmd, **kw):
    log("+", " ".join(map(str, cmd)))
    return subprocess.run(list(map(str, cmd)), **kw)


def build(src: Path, tiny: bool):
    t0 = time.time()
    BUILD.mkdir(parents=True, exist_ok=True)
    cfg = ["cmake", "-G", "Ninja", "-S", src, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release",
           "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF",
           "-DLLAMA_BUILD_APP=OFF", "-DLLAMA_OPENSSL=OFF", "-DBUILD_SHARED_LIBS=OFF",
           "-DGGML_CCACHE=OFF"]
    if not tiny:
        cfg += ["-DGGML_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=90", "-DGGML_CUDA_NCCL=OFF"]
    with open(OUT / "build.log", "w") as f:
        r = sh(cfg, stdout=f, stderr=subprocess.STDOUT)
        if r.returncode:
            sys.exit("configure failed")
        r = sh(["ninja", "-C", BUILD, f"-j{os.cpu_count() + 2}", "llama-completion",
                "llama-quantize", "llama-fit-params"], stdout=f, stderr=subprocess.STDOUT)
        if r.returncode:
            sys.exit("build failed")
    log(f"built in {time.time() - t0:.0f} s")


def binary(name):
    return BUILD / "bin" / name


def make_models(src: Path, tiny: bool):
    env = dict(os.environ, PYTHONPATH=str(src / "gguf-py"))
    args = [sys.executable, HERE / "make_gguf.py", MODELS] + (["--tiny"] if tiny else [])
    r = sh(args, env=env)
    if r.returncode:
        sys.exit("gguf writing failed")
    files = {}
    for model, types in {"llama1b": ["Q4_K_M", "Q8_0"], "qwen3moe": ["Q4_K_M"],
                         "gemma3": ["Q4_K_M"]}.items():
        for t in types:
            dst = MODELS / f"{model}-{t}.gguf"
            with open(LOGS / f"quantize-{model}-{t}.log", "w") as f:
                r = sh([binary("llama-quantize"), MODELS / f"{model}-f16.gguf", dst, t,
                        str(os.cpu_count())], stdout=f, stderr=subprocess.STDOUT)
            if r.returncode == 0:
                files[(model, t)] = dst
        (MODELS / f"{model}-f16.gguf").unlink()
    return files


class Sampler:
    """Peak of the device's used memory (NVML) while a process runs."""

    def __init__(self):
        import pynvml
        pynvml.nvmlInit()
        self.nv = pynvml
        self.h = pynvml.nvmlDeviceGetHandleByIndex(0)

    def used(self):
        return self.nv.nvmlDeviceGetMemoryInfo(self.h).used

    def run(self, cmd, log_path):
        before = self.used()
        peak = [before]
        done = threading.Event()

        def loop():
            while not done.is_set():
                peak[0] = max(peak[0], self.used())
                time.sleep(0.005)

        t = threading.Thread(target=loop)
        t.start()
        t0 = time.time()
        with open(log_path, "w") as f:
            r = subprocess.run(list(map(str, cmd)), stdout=f, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=300)
        done.set()
        t.join()
        return r.returncode, before, peak[0], time.time() - t0


def pack_logs():
    """Every log so far, in one file under OUT (a run stopped at a time limit
    keeps what it measured)."""
    with tarfile.open(OUT / "logs.tar.gz", "w:gz") as tar:
        tar.add(LOGS, arcname="logs")


def parse(text):
    bufs = []
    for line in text.splitlines():
        m = BUF.search(line)
        if m:
            bufs.append({"stage": m[1], "buffer": m[2], "kind": m[3], "mib": float(m[4])})
    kv = [{"mib": float(a), "cells": int(b), "layers": int(c)} for a, b, c in KV_SIZE.findall(text)]
    breakdown = [l.strip() for l in text.splitlines() if "memory_breakdown" in l or "breakdown" in l]
    return bufs, kv, breakdown


GRID = [
    # (model, type, ngl, n_cpu_moe, ctx, ub, fa, cache type)
    *[("llama1b", "Q4_K_M", ngl, 0, c, 512, fa, "f16")
      for ngl in (99, 8, 0) for c in (4096, 32768) for fa in ("on", "off")],
    ("llama1b", "Q4_K_M", 99, 0, 32768, 2048, "off", "f16"),
    ("llama1b", "Q4_K_M", 99, 0, 32768, 2048, "on", "f16"),
    ("llama1b", "Q4_K_M", 99, 0, 32768, 128, "off", "f16"),
    ("llama1b", "Q4_K_M", 99, 0, 32768, 512, "on", "q8_0"),
    ("llama1b", "Q4_K_M", 16, 0, 8192, 512, "off", "f16"),
    ("llama1b", "Q8_0", 99, 0, 8192, 512, "off", "f16"),
    ("llama1b", "Q8_0", 99, 0, 8192, 512, "on", "f16"),
    *[("qwen3moe", "Q4_K_M", 99, ncm, 16384, 512, fa, "f16")
      for ncm in (0, 2, 4) for fa in ("on", "off")],
    ("qwen3moe", "Q4_K_M", 2, 0, 16384, 512, "off", "f16"),
    *[("gemma3", "Q4_K_M", 99, 0, c, 512, fa, "f16") for c in (4096, 32768) for fa in ("on", "off")],
    ("gemma3", "Q4_K_M", 10, 0, 32768, 512, "off", "f16"),
]


def flags(ngl, ncm, ctx, ub, fa, ct):
    a = ["-ngl", ngl, "-c", ctx, "-ub", ub, "-b", max(ub, 2048), "-fa", fa, "-ctk", ct, "-ctv", ct]
    if ncm:
        a += ["--n-cpu-moe", ncm]
    return a


def runs(files, tiny):
    sampler = None if tiny else Sampler()
    prompt = Path("/tmp/vfm-prompt.txt")
    # Byte-fallback tokens: one token per character (no spaces: SentencePiece
    # turns each into a 3-byte piece), 2,500 tokens.
    prompt.write_text(("Thequickbrownfoxjumpsoverthelazydog." * 80)[:2500])
    out = open(OUT / "llama_cpp_runs.jsonl", "w")
    for i, (model, t, ngl, ncm, ctx, ub, fa, ct) in enumerate(GRID):
        f = files.get((model, t))
        if f is None:
            continue
        if tiny:
            ctx, ub = min(ctx, 4096), min(ub, 512)
        fl = flags(ngl, ncm, ctx, ub, fa, ct)
        tag = f"{i:02d}-{model}-{t}-ngl{ngl}-ncm{ncm}-c{ctx}-ub{ub}-fa{fa}-{ct}"
        cmd = [binary("llama-completion"), "-m", f, *fl, "-f", prompt, "-n", 8, "--temp", 0,
               "-s", 1, "-no-cnv", "--fit", "off", "-t", os.cpu_count(), "--no-warmup", "-lv", 4]
        row = {"tag": tag, "model": model, "file_type": t, "n_gpu_layers": ngl,
               "n_cpu_moe": ncm, "n_ctx": ctx, "n_ubatch": ub, "flash_attn": fa,
               "cache_type": ct, "file_bytes": f.stat().st_size}
        lp = LOGS / f"{tag}.log"
        if sampler:
            rc, before, peak, wall = sampler.run(cmd, lp)
            row.update(rc=rc, nvml_used_before=before, nvml_used_peak=peak, wall_s=round(wall, 1))
        else:
            r = subprocess.run(list(map(str, cmd)), stdout=open(lp, "w"), stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
            row.update(rc=r.returncode)
        text = lp.read_text(errors="replace")
        row["buffers"], row["kv"], row["breakdown"] = parse(text)
        fp = subprocess.run(list(map(str, [binary("llama-fit-params"), "-m", f, *fl, "--fit-print", "on"])),
                            capture_output=True, text=True, timeout=120)
        row["fit_print"] = [l for l in fp.stdout.splitlines() if l.strip()]
        out.write(json.dumps(row) + "\n")
        out.flush()
        pack_logs()
        log(tag, row.get("rc"), row.get("nvml_used_peak", 0) - row.get("nvml_used_before", 0),
            [(b["buffer"], b["kind"], b["mib"]) for b in row["buffers"]])
    out.close()
    return sampler


def fit_plans(files, sampler):
    """llama.cpp's own offload plan on simulated cards: `--fit-target` leaves
    all but `card` MiB of the free memory untouched."""
    out = open(OUT / "llama_cpp_fit.jsonl", "w")
    free_mib = None
    if sampler:
        info = sampler.nv.nvmlDeviceGetMemoryInfo(sampler.h)
        free_mib = info.free // (1024 * 1024)
    plans = [("llama1b", "Q4_K_M", c, fa, card) for c in (8192, 65536) for fa in ("on", "off")
             for card in (1024, 2048, 4096)]
    plans += [("qwen3moe", "Q4_K_M", 16384, fa, card) for fa in ("on", "off") for card in (1024, 2048, 3072)]
    plans += [("gemma3", "Q4_K_M", 32768, "on", card) for card in (512, 1024)]
    for model, t, ctx, fa, card in plans:
        f = files.get((model, t))
        if f is None or free_mib is None:
            continue
        margin = free_mib - card
        cmd = [binary("llama-fit-params"), "-m", f, "-c", ctx, "-fitc", ctx, "-fa", fa,
               "-fitt", margin]
        r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, timeout=120)
        row = {"model": model, "file_type": t, "n_ctx": ctx, "flash_attn": fa,
               "card_free_mib": card, "free_mib": free_mib, "fit_target_mib": margin,
               "rc": r.returncode, "stdout": r.stdout.strip(),
               "stderr_tail": r.stderr.strip().splitlines()[-12:]}
        out.write(json.dumps(row) + "\n")
        out.flush()
        log(model, t, ctx, fa, card, "->", row["stdout"])
    out.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, type=Path)
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--skip-build", action="store_true")
    a = ap.parse_args()
    if not a.skip_build:
        build(a.src.resolve(), a.tiny)
    pack_logs()
    files = make_models(a.src.resolve(), a.tiny)
    sampler = runs(files, a.tiny)
    fit_plans(files, sampler)
    pack_logs()


if __name__ == "__main__":
    main()
