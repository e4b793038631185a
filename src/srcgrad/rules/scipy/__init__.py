"""SciPy's derivative table, by subpackage; registered only when SciPy imports.

SciPy is optional: without it this package registers nothing and :data:`KERNEL_MODULES`
is empty.  With it, each family module below registers its rules on import and lists
the kernels its templates call in its ``__all__`` (they join the ``ad`` namespace).
"""
import importlib
import importlib.util

FAMILIES = ("special", "stats", "linalg", "signal", "integrate")

KERNEL_MODULES = ()

try:
    import scipy  # noqa: F401
except ImportError:          # SciPy is optional
    scipy = None

if scipy is not None:
    KERNEL_MODULES = tuple(importlib.import_module(f"{__name__}.{family}")
                           for family in FAMILIES
                           if importlib.util.find_spec(f"{__name__}.{family}") is not None)
