"""SciPy's derivative table, by subpackage, registered lazily.

SciPy is optional, and importing it takes seconds, so importing srcgrad imports none of
it.  Each family module below (``special`` for ``scipy.special``...) registers its rules
on import and lists the kernels its templates call in its ``__all__``; it is imported by
:func:`load` the first time the table is asked anything after its SciPy subpackage has
been imported (``registry.deflazy``: a user holds ``scipy.special.gammaln`` only then),
or by ``registry.load_all()`` (the whole table, for the rule tests and the docs).
"""
import importlib
import importlib.util

from ..registry import deflazy

FAMILIES = ("special", "stats", "linalg", "signal", "integrate")
# the modules of a family written in more than one (each with its kernels' ``__all__``)
MODULES = {"linalg": ("linalg", "cholesky")}

KERNEL_MODULES = []      # the family modules loaded so far


def load(family):
    """Import the rules of ``scipy.<family>`` and add its kernels to the ``ad`` namespace."""
    from ..namespace import add_kernels
    for name in MODULES.get(family, (family,)):
        module = importlib.import_module(f"{__name__}.{name}")
        if module not in KERNEL_MODULES:
            KERNEL_MODULES.append(module)
            add_kernels(module)
    return module


def _loader(family):
    return lambda: load(family)


if importlib.util.find_spec("scipy") is not None:       # finds SciPy without importing it
    for _family in FAMILIES:
        deflazy(f"scipy.{_family}", _loader(_family))
