#!/usr/bin/env python3
"""Write F16 GGUF files of random weights with public model shapes, so
llama.cpp can load them with nothing downloaded (llama-quantize then makes
the quantized files). Uses llama.cpp's own `gguf-py` (PYTHONPATH).

    python3 make_gguf.py OUT_DIR [--tiny]

Shapes (from each model's public config.json values):
  llama1b  Llama-3.2-1B: 16 layers, hidden 2048, 32 heads, 8 KV heads, head 64,
           FFN 8192, vocabulary 128256, tied embeddings.
  qwen3moe Qwen3-30B-A3B's layer with 4 layers and 64 experts: hidden 2048,
           32 heads, 4 KV heads, head 128, 8 experts per token, expert FFN 768,
           vocabulary 151936, untied.
  gemma3   Gemma-3-1B: 26 layers, hidden 1152, 4 heads, 1 KV head, head 256,
           FFN 6912, vocabulary 262144, window 512 on five of every six layers.
The vocabulary is a SentencePiece-style list (unknown, BOS, EOS, 256 byte
tokens, then filler pieces): the tokenizer only has to load.
"""
import sys
from pathlib import Path

import numpy as np
import gguf

MODELS = {
    "llama1b": dict(arch="llama", layers=16, hidden=2048, heads=32, kv=8, head=64,
                    ff=8192, vocab=128256, tied=True, ctx=131072, theta=500000.0),
    "qwen3moe": dict(arch="qwen3moe", layers=4, hidden=2048, heads=32, kv=4, head=128,
                     ff=6144, vocab=151936, tied=False, ctx=40960, theta=1000000.0,
                     experts=64, used=8, expert_ff=768, qk_norm=True),
    "gemma3": dict(arch="gemma3", layers=26, hidden=1152, heads=4, kv=1, head=256,
                   ff=6912, vocab=262144, tied=True, ctx=32768, theta=1000000.0,
                   window=512, qk_norm=True, post_norms=True),
}
TINY = dict(layers=2, hidden=64, heads=4, kv=2, head=16, ff=128, vocab=512,
            experts=4, used=2, expert_ff=32, window=16)

rng = np.random.default_rng(0)


class Pool:
    """One random buffer that every tensor views: the values do not change
    the memory llama.cpp allocates, and this keeps writing fast."""

    def __init__(self, n: int):
        self.f16 = (rng.standard_normal(n, dtype=np.float32) * 0.02).astype(np.float16)

    def take(self, shape, dtype=np.float16):
        n = int(np.prod(shape))
        a = self.f16[:n].reshape(shape)
        return a.astype(np.float32) if dtype == np.float32 else a


def name(t, bid=None):
    s = gguf.TENSOR_NAMES[t]
    return (s.format(bid=bid) if bid is not None else s) + ".weight"


def write(model: str, out: Path, tiny: bool):
    m = dict(MODELS[model])
    if tiny:
        m.update({k: v for k, v in TINY.items() if k in m})
    arch, h, L, v = m["arch"], m["hidden"], m["layers"], m["vocab"]
    q_width, kv_width = m["heads"] * m["head"], m["kv"] * m["head"]
    sizes = [v * h, m["ff"] * h, q_width * h]
    if "experts" in m:
        sizes.append(m["experts"] * m["expert_ff"] * h)
    pool = Pool(max(sizes))
    w = gguf.GGUFWriter(str(out), arch)
    w.add_name(f"vramfit-random-{model}")
    w.add_context_length(m["ctx"])
    w.add_embedding_length(h)
    w.add_block_count(L)
    w.add_feed_forward_length(m["ff"])
    w.add_head_count(m["heads"])
    w.add_head_count_kv(m["kv"])
    w.add_key_length(m["head"])
    w.add_value_length(m["head"])
    w.add_rope_dimension_count(m["head"])
    w.add_rope_freq_base(m["theta"])
    w.add_layer_norm_rms_eps(1e-6)
    if "experts" in m:
        w.add_expert_count(m["experts"])
        w.add_expert_used_count(m["used"])
        w.add_expert_feed_forward_length(m["expert_ff"])
    if "window" in m:
        w.add_sliding_window(m["window"])
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens = [b"<unk>", b"<s>", b"</s>"] + [f"<0x{i:02X}>".encode() for i in range(256)]
    tokens += [f"p{i}".encode() for i in range(v - len(tokens))]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    types += [gguf.TokenType.BYTE] * 256
    types += [gguf.TokenType.NORMAL] * (v - len(types))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * v)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)

    T = gguf.MODEL_TENSOR
    w.add_tensor(name(T.TOKEN_EMBD), pool.take((v, h)))
    w.add_tensor(name(T.OUTPUT_NORM), pool.take((h,), np.float32))
    if not m["tied"]:
        w.add_tensor(name(T.OUTPUT), pool.take((v, h)))
    for i in range(L):
        w.add_tensor(name(T.ATTN_NORM, i), pool.take((h,), np.float32))
        w.add_tensor(name(T.ATTN_Q, i), pool.take((q_width, h)))
        w.add_tensor(name(T.ATTN_K, i), pool.take((kv_width, h)))
        w.add_tensor(name(T.ATTN_V, i), pool.take((kv_width, h)))
        w.add_tensor(name(T.ATTN_OUT, i), pool.take((h, q_width)))
        if m.get("qk_norm"):
            w.add_tensor(name(T.ATTN_Q_NORM, i), pool.take((m["head"],), np.float32))
            w.add_tensor(name(T.ATTN_K_NORM, i), pool.take((m["head"],), np.float32))
        if m.get("post_norms"):
            w.add_tensor(name(T.ATTN_POST_NORM, i), pool.take((h,), np.float32))
            w.add_tensor(name(T.FFN_POST_NORM, i), pool.take((h,), np.float32))
        w.add_tensor(name(T.FFN_NORM, i), pool.take((h,), np.float32))
        if "experts" in m:
            e, f = m["experts"], m["expert_ff"]
            w.add_tensor(name(T.FFN_GATE_INP, i), pool.take((e, h), np.float32))
            w.add_tensor(name(T.FFN_GATE_EXP, i), pool.take((e, f, h)))
            w.add_tensor(name(T.FFN_UP_EXP, i), pool.take((e, f, h)))
            w.add_tensor(name(T.FFN_DOWN_EXP, i), pool.take((e, h, f)))
        else:
            w.add_tensor(name(T.FFN_GATE, i), pool.take((m["ff"], h)))
            w.add_tensor(name(T.FFN_UP, i), pool.take((m["ff"], h)))
            w.add_tensor(name(T.FFN_DOWN, i), pool.take((h, m["ff"])))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    tiny = "--tiny" in sys.argv
    only = [a for a in sys.argv[2:] if not a.startswith("--")] or list(MODELS)
    for model in only:
        path = out_dir / f"{model}-f16.gguf"
        write(model, path, tiny)
        print(f"{path} {path.stat().st_size}", flush=True)
