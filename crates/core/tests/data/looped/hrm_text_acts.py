"""Saved-for-backward bytes (distinct storages, parameters excluded) of HrmTextForCausalLM in fp32 train mode,
attributed to each decoder-layer invocation; compared with a plain stack of the 2P distinct layers run once."""
import os, collections
os.environ["HF_HUB_OFFLINE"] = "1"
import torch
from transformers import AutoModelForCausalLM, HrmTextConfig
from transformers.models.hrm_text.modeling_hrm_text import HrmTextDecoderLayer, HrmTextStack
torch.manual_seed(0)

class Tracker:
    def __init__(self, model):
        self.params = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.seen, self.cur, self.inv = set(), ["top"], collections.Counter()
        self.bytes = collections.defaultdict(int)
        for name, mod in model.named_modules():
            if isinstance(mod, (HrmTextDecoderLayer, HrmTextStack)):
                mod.register_forward_pre_hook(self._pre(name)); mod.register_forward_hook(self._post)
    def _pre(self, name):
        def f(mod, args):
            k = self.inv[name]; self.inv[name] += 1
            self.cur.append((name, k)); return None
        return f
    def _post(self, mod, args, out):
        self.cur.pop()
    def pack(self, t):
        s = t.untyped_storage(); p = s.data_ptr()
        if p and p not in self.params and p not in self.seen:
            self.seen.add(p); self.bytes[self.cur[-1]] += s.nbytes()
        return t
    def unpack(self, t):
        return t

def measure(cfgd, attn, B=2, T=16):
    cfg = HrmTextConfig(**cfgd)
    m = AutoModelForCausalLM.from_config(cfg, attn_implementation=attn, dtype=torch.float32).train()
    ids = torch.randint(0, cfg.vocab_size, (B, T))
    tr = Tracker(m)
    with torch.autograd.graph.saved_tensors_hooks(tr.pack, tr.unpack):
        out = m(ids, labels=ids, use_cache=False)
    layer_inv = {k: v for k, v in tr.bytes.items() if k != "top" and ".layers." in k[0]}
    n_inv = sum(v for k, v in tr.inv.items() if ".layers." in k)
    stack_extra = sum(v for k, v in tr.bytes.items() if k != "top" and ".layers." not in k[0])
    top = tr.bytes["top"]
    out.loss.backward()   # sanity: graph is usable
    # plain stack: every distinct layer (L stack then H stack) once, grad on, same mask/rope, leaf input
    m.zero_grad(set_to_none=True)
    tr2 = Tracker(m)
    inner = m.model
    x = (inner.embed_tokens(ids) * inner.embedding_scale).detach().requires_grad_(True)
    pos = torch.arange(T).unsqueeze(0)
    from transformers.masking_utils import create_causal_mask
    mask = create_causal_mask(config=cfg, inputs_embeds=x, attention_mask=None, cache=None, position_ids=pos)
    pe = inner.rotary_emb(x, pos)
    with torch.autograd.graph.saved_tensors_hooks(tr2.pack, tr2.unpack):
        h = x
        for layer in list(inner.L_module.layers) + list(inner.H_module.layers):
            h = layer(h, attention_mask=mask, position_embeddings=pe)
    plain = sum(tr2.bytes.values())
    P = cfg.num_layers_per_stack
    per_layer = plain / (2 * P)
    in_layers = sum(layer_inv.values())
    n_layer_fwd_compute = P * cfg.H_cycles * (cfg.L_cycles + 1)
    pad = inner.L_bp_cycles_padded
    grad_L = sum(min(max(pad[h] if h < len(pad) else 1, 0), cfg.L_cycles) for h in range(cfg.H_cycles))
    expected = P * (grad_L + cfg.H_cycles)
    n_nonzero = sum(1 for v in layer_inv.values() if v > 0)
    return dict(cfg=cfgd, attn=attn, pad=pad, compute=n_layer_fwd_compute, n_inv=n_inv, inv_with_saved=n_nonzero, expected=expected,
                in_layers=in_layers, plain=plain, per_layer=per_layer, equiv=in_layers / per_layer,
                stack_extra=stack_extra, top=top, total=sum(tr.bytes.values()),
                per_inv=[layer_inv.get((f"model.{s}.layers.{j}", k), 0)
                         for (s, j, k) in order(cfg)])

def order(cfg):
    P, Hc, Lc = cfg.num_layers_per_stack, cfg.H_cycles, cfg.L_cycles
    seq = []
    for h in range(Hc):
        for l in range(Lc):
            seq += [("L_module", j, h * Lc + l) for j in range(P)]
        seq += [("H_module", j, h) for j in range(P)]
    return seq

base = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_attention_heads=4, head_dim=8, prefix_lm=False)
configs = [dict(num_hidden_layers=2, H_cycles=2, L_cycles=3),                       # defaults cycles, L_bp=[2] -> [1,2]
           dict(num_hidden_layers=1, H_cycles=3, L_cycles=4, L_bp_cycles=[2, 3]),   # -> [1,2,3]
           dict(num_hidden_layers=2, H_cycles=1, L_cycles=2, L_bp_cycles=[5]),      # bp > L_cycles -> all L with grad
           dict(num_hidden_layers=1, H_cycles=2, L_cycles=2, L_bp_cycles=[0, 0])]   # 0 -> L stack never keeps grad
ok = True
print("| cfg | attn | L_bp padded | layer-fwds computed | invocations saving | expected P*(sum_h min(bp_h,Lc)+Hc) | saved in layers B | plain 2P stack B | per layer-fwd B | equiv layer-fwds | stack final_norm B | top (embed/lm_head/loss) B |")
for cd in configs:
    for attn in ("eager", "sdpa"):
        r = measure({**base, **cd}, attn)
        good = r["n_inv"] == r["compute"] and r["inv_with_saved"] == r["expected"] and abs(r["equiv"] - r["expected"]) < 0.02 * r["expected"]
        ok &= good
        print(f"| {cd} | {attn} | {r['pad']} | {r['compute']} | {r['inv_with_saved']} | {r['expected']} | {r['in_layers']} | {r['plain']} | {r['per_layer']:.0f} | {r['equiv']:.3f} | {r['stack_extra']} | {r['top']} | {'OK' if good else 'MISMATCH'}")
        print("    per invocation (order of execution):", r["per_inv"])
print("ALL OK" if ok else "FAIL")
