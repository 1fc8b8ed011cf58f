"""Helper for measure_perception_lm.py: make the timm *source snapshot* (huggingface/pytorch-image-models, extracted by
`git archive` from the local mirror into /tmp/perception_lm_timm) importable on top of the
torchvision stub. Missing torchvision submodules/attrs are replaced by dummies; they are only
touched at import time by timm (FrozenBatchNorm2d, datasets, transforms), never by the Eva/PE path."""
import importlib.abc, importlib.machinery, os, subprocess, sys, types

TIMM_DIR = "/tmp/perception_lm_timm"
MIRROR = "/work/.mirror/huggingface+pytorch-image-models/repo"


def _extract():
    if not os.path.isdir(os.path.join(TIMM_DIR, "timm")):
        os.makedirs(TIMM_DIR, exist_ok=True)
        subprocess.run(f"cd {MIRROR} && git archive HEAD timm | tar -x -C {TIMM_DIR}", shell=True, check=True)
    return subprocess.run(["git", "-C", MIRROR, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


class _Dummy:
    def __init__(self, *a, **k):
        pass


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (_Dummy,), {})


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith("torchvision."):
            return None
        # let the real stub serve what it has
        for f in sys.meta_path:
            if f is self:
                continue
            try:
                spec = f.find_spec(fullname, path, target)
            except Exception:
                spec = None
            if spec is not None:
                return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


def install():
    commit = _extract()
    sys.meta_path.append(_Finder())
    if TIMM_DIR not in sys.path:
        sys.path.insert(0, TIMM_DIR)
    import torchvision.transforms as T  # stub
    import torchvision.transforms.functional as TF
    for mod in (T, TF):
        mod.__class__ = type("M", (types.ModuleType,), {"__getattr__": lambda self, n: (_ for _ in ()).throw(AttributeError(n)) if n.startswith("__") else type(n, (_Dummy,), {})})
    import timm
    return timm, commit
