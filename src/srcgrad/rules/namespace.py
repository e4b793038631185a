"""The one namespace that generated code and rule templates call into.

Generated code names it ``ad`` (``ad.unbroadcast(g, x)``); a rule template names
its members bare (``unbroadcast(g, x)``).  It is built here, once, from the
runtime's ``__all__`` (stacks, accumulation, the backend seam) and the ``__all__``
of every family's kernels, listed in :data:`KERNEL_MODULES`; a family loaded lazily
(SciPy's) adds its kernels when it loads (:func:`add_kernels`).  The runtime never
imports the rules, and no module extends another's ``__all__``.
"""
import builtins
import math
import types

import numpy as np

from .. import runtime
from . import registry, runtime_rules, containers
from .numpy import (conventions, elementwise, reductions, statistics, integration, linalg,
                    decompositions, shapes, joins, indexing, creation, spectral)
from .python import attributes, builtins as python_builtins

# the modules whose ``__all__`` names kernels that templates call
KERNEL_MODULES = (conventions, elementwise, reductions, statistics, integration, linalg,
                  decompositions,
                  shapes, joins, indexing, creation, spectral, python_builtins, runtime_rules,
                  containers, attributes)

_AD = None


def namespace():
    """The module object generated code binds as ``ad``."""
    global _AD
    if _AD is None:
        ad = types.ModuleType("srcgrad.ad", "Runtime helpers and rule kernels that srcgrad's "
                                            "generated code calls.")
        members = {name: getattr(runtime, name) for name in runtime.__all__}
        for m in KERNEL_MODULES:
            _add_members(members, m)
        ad.__dict__.update(members)
        ad.__all__ = sorted(members)
        _NAMES.update(members)
        _AD = ad
    return _AD


_NAMES = set()      # the names of ``ad``'s members, kept as they are added


def _add_members(members, module):
    for name in module.__all__:
        if name in members and members[name] is not getattr(module, name):
            raise ImportError(f"kernel {name!r} of {module.__name__} shadows another")
        members[name] = getattr(module, name)


def add_kernels(module):
    """Add the kernels ``module.__all__`` names (a family loaded after import) to ``ad``."""
    ad = namespace()
    members = {name: getattr(ad, name) for name in ad.__all__}
    _add_members(members, module)
    for name in module.__all__:
        add_kernel(name, members[name])


def add_kernel(name, func):
    """Make a function (a user's ``@sg.adjoint``) callable from templates by ``name``."""
    ad = namespace()
    setattr(ad, name, func)
    if name not in _NAMES:
        ad.__all__.append(name)
        _NAMES.add(name)


def helper_names():
    """Names that templates may use without qualification: a live, read-only view, so a
    family loaded during a compilation (an ``import scipy.special`` in the function)
    has its kernels' names in it."""
    registry.load_imported()
    namespace()
    return _HELPER_NAMES


class _HelperNames:
    def __contains__(self, name):
        return name in _NAMES

    def __iter__(self):
        return iter(sorted(_NAMES))

    def __len__(self):
        return len(_NAMES)


_HELPER_NAMES = _HelperNames()


def _missing(name, param, direction):
    from ..errors import NonDifferentiableError
    raise NonDifferentiableError(
        f"{name} has no {direction}-mode derivative for its argument {param!r}; "
        f"register one with @sg.{'adjoint' if direction == 'reverse' else 'tangent'}({name.split('.')[-1]})")


def template_globals():
    """The globals a rule template runs in (the Tensor runtime compiles rules in it)."""
    ad = namespace()
    ns = {"np": np, "math": math, "_missing": _missing, "__builtins__": builtins}
    for name in ad.__all__:
        ns[name] = getattr(ad, name)
    return ns


registry.use_template_globals(template_globals)
