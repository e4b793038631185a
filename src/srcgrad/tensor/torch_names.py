"""``import torch.nn`` where ``torch`` is srcgrad: submodule imports through an alias.

``import srcgrad as torch`` then ``torch.nn.Linear`` needs nothing; but a script
that says ``import torch.nn as nn`` (or ``from torch.autograd.functional import
jacobian``) while ``sys.modules["torch"]`` is srcgrad asks the import system for
a submodule ``torch.nn``.  This finder answers such requests, for any name bound
to the srcgrad module, with srcgrad's own module of that name
(``srcgrad.tensor.nn``), so there is one copy of every class.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys

__all__ = ["install"]

# the torch submodules srcgrad provides, and where they live
SUBMODULES = {
    "nn": "srcgrad.tensor.nn", "nn.functional": "srcgrad.tensor.nn.functional",
    "nn.init": "srcgrad.tensor.nn.init", "nn.utils": "srcgrad.tensor.nn.utils",
    "nn.parameter": "srcgrad.tensor.nn.module", "nn.modules": "srcgrad.tensor.nn",
    "optim": "srcgrad.tensor.optim", "optim.lr_scheduler": "srcgrad.tensor.optim.lr_scheduler",
    "autograd": "srcgrad.tensor.autograd", "autograd.function": "srcgrad.tensor.autograd.function",
    "autograd.functional": "srcgrad.tensor.autograd.functional",
    "autograd.forward_ad": "srcgrad.tensor.autograd.forward_ad",
    "autograd.gradcheck": "srcgrad.tensor.autograd.gradcheck",
    "autograd.graph": "srcgrad.tensor.autograd.graph",
    "utils.data": "srcgrad.tensor.data", "utils": "srcgrad.tensor:utils",
    "accelerator": "srcgrad.tensor.accelerator", "linalg": "srcgrad.tensor.linalg",
    "func": "srcgrad.tensor.func",
    "cuda": None,
}


class _Existing(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        head, _, rest = fullname.partition(".")
        if not rest or rest not in SUBMODULES or SUBMODULES[rest] is None:
            return None
        root = sys.modules.get(head)
        if root is None or getattr(root, "__name__", None) != "srcgrad":
            return None
        name, _, attribute = SUBMODULES[rest].partition(":")
        module = importlib.import_module(name)
        module = getattr(module, attribute) if attribute else module
        return importlib.machinery.ModuleSpec(fullname, _Existing(module))


def install():
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())    # before the path finder: no second copy
