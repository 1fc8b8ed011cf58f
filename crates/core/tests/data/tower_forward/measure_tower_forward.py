#!/usr/bin/env python
"""The forward peak of a vision tower when serving (eval, no_grad), on CPU.

The towers are built as `../tower_acts/measure_towers.py` builds them (random weights from config
classes, nothing downloaded). A `TorchDispatchMode` records every storage an aten op creates and,
through a weak reference, when it is freed (the method of shared/groundtruth/cpu's dispatch
tracker); parameters, buffers and the input pixels are not counted. For each run: the peak of the
bytes alive during the forward, and the tensors alive at that moment (op, shape, dtype).
"""
import os
import sys
import warnings

import torch
import transformers
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
torch.set_num_threads(2)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tower_acts"))
from measure_towers import FAMILIES, QWEN_SHAPES, SHAPES, write_rows  # noqa: E402


class Tracker(TorchDispatchMode):
    def __init__(self, exclude):
        super().__init__()
        self.exclude, self.alive, self.live, self.peak, self.at_peak = exclude, {}, 0, 0, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for p in [p for p, r in self.alive.items() if r[0].expired()]:
            self.live -= self.alive.pop(p)[1]
        for x in tree_flatten(out)[0]:
            if isinstance(x, torch.Tensor):
                st = x.untyped_storage()
                p = st.data_ptr()
                if p == 0 or p in self.exclude or p in self.alive:
                    continue
                self.alive[p] = (StorageWeakRef(st), st.nbytes(), func.overloadpacket.__name__,
                                 tuple(x.shape), str(x.dtype).split(".")[-1])
                self.live += st.nbytes()
        if self.live > self.peak:
            self.peak = self.live
            self.at_peak = [(r[2], r[3], r[4], r[1]) for r in self.alive.values()]
        return out


def forward_peak(make, layers, shape, dtype, attn):
    torch.manual_seed(0)
    run, model, tokens = make(*shape, layers, dtype, attn)
    model.eval()
    exclude = {p.untyped_storage().data_ptr() for p in model.parameters()}
    exclude |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    # The input pixels: the closure's tensors, created before the mode.
    for cell in (run.__closure__ or ()):
        v = cell.cell_contents
        if isinstance(v, torch.Tensor):
            exclude.add(v.untyped_storage().data_ptr())
    with torch.no_grad(), Tracker(exclude) as t:
        out = run()
    del out
    return t.peak, t.at_peak, tokens


def main():
    rows = []
    only = sys.argv[1:]
    families = only or ["clip", "siglip", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl", "pixtral"]
    for family in families:
        make = FAMILIES[family]
        for attn in ("sdpa", "eager"):
            for dtype in (torch.float32, torch.bfloat16):
                for shape in (QWEN_SHAPES if family.startswith("qwen") else SHAPES):
                    try:
                        two, at_peak, tokens = forward_peak(make, 2, shape, dtype, attn)
                        four, _, _ = forward_peak(make, 4, shape, dtype, attn)
                    except Exception as e:
                        print(family, attn, shape, "failed:", repr(e)[:200], flush=True)
                        continue
                    h, a, i, side, patch = shape
                    if family == "qwen2_vl":
                        i = h * (i // h)
                    row = dict(family=family, attention=attn, dtype=str(dtype).split(".")[-1], hidden=h,
                               heads=a, intermediate=i, image=side, patch=patch, tokens=tokens,
                               peak_2_layers=two, peak_4_layers=four,
                               at_peak=" ".join(f"{o}{list(s)}:{d}" for o, s, d, _ in at_peak))
                    rows.append(row)
                    print({k: v for k, v in row.items() if k != "at_peak"}, flush=True)
    write_rows(os.path.join(HERE, "tower_forward.csv"), rows, only)


if __name__ == "__main__":
    sys.exit(main())
