#!/usr/bin/env python
"""Bytes per attention score one eager attention layer saves for backward, by family.

A one-layer tiny random-weight causal LM trains one forward (`model(input_ids, labels=input_ids)`) in eager
attention; torch.autograd.graph.saved_tensors_hooks around the attention module records every tensor it saves
(by storage, parameters and buffers excluded). At three sequence lengths (128, 192, 256) the saved bytes are a
quadratic in the sequence; the second difference over b·a gives the bytes per score. Families: Llama (the
copies' eager path), Gemma-2 (softcap), and the families with attention sinks (gpt-oss, Flint, Granite-SWA,
MiMo-V2-Flash), each of which transformers runs eager by default.

Run (CPU; measured with torch 2.15.0, transformers 5.24.0):
    HF_HUB_OFFLINE=1 python measure_eager_saved.py llama gpt_oss flint granite_swa mimo_v2_flash gemma2 > eager_saved.jsonl
"""
import json
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM
torch.set_num_threads(1)
def model(family, heads, dtype):
    kw=dict(vocab_size=128, hidden_size=64, intermediate_size=64, num_hidden_layers=1, num_attention_heads=heads, num_key_value_heads=1, head_dim=16)
    if family=="gpt_oss": kw.update(num_local_experts=2, num_experts_per_tok=1, sliding_window=4096, layer_types=["full_attention"])
    if family=="flint": kw.update(num_experts=2, num_experts_per_tok=1, moe_intermediate_size=16, shared_expert_intermediate_size=16, layer_types=["full_attention"])
    if family=="mimo_v2_flash": kw.update(v_head_dim=8, n_routed_experts=2, num_experts_per_tok=1, moe_intermediate_size=16, layer_types=["full_attention"])
    if family=="granite_swa": kw.update(layer_types=["full_attention"])
    cfg=AutoConfig.for_model(family, **kw)
    m=AutoModelForCausalLM.from_config(cfg, attn_implementation="eager", dtype=dtype); m.train(); return m
def saved(family, heads, b, s, dtype):
    m=model(family, heads, dtype)
    attn=next(mod for n,mod in m.named_modules() if n.endswith("self_attn"))
    excluded={t.untyped_storage().data_ptr() for t in list(m.parameters())+list(m.buffers())}
    seen={}
    def pack(t):
        st=t.untyped_storage(); p=st.data_ptr()
        if p not in excluded and p not in seen: seen[p]=st.nbytes()
        return t
    ctx={}
    def pre(mod,a,k):
        ctx['c']=torch.autograd.graph.saved_tensors_hooks(pack, lambda t:t); ctx['c'].__enter__()
    def post(mod,a,k,o): ctx['c'].__exit__(None,None,None)
    attn.register_forward_pre_hook(pre, with_kwargs=True); attn.register_forward_hook(post, with_kwargs=True)
    ids=torch.randint(1,128,(b,s))
    out=m(input_ids=ids, labels=ids, use_cache=False)
    return sum(seen.values())
for family in sys.argv[1:]:
    for dtype in (torch.bfloat16, torch.float32):
        for heads,b in ((2,1),(4,2)):
            p={s:saved(family,heads,b,s,dtype) for s in (128,192,256)}
            second=p[256]-2*p[192]+p[128]
            print(json.dumps(dict(family=family, dtype=str(dtype)[6:], heads=heads, batch=b, saved=p, bytes_per_score=second/(2*64*64)/(b*heads))), flush=True)
