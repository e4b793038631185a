"""Records: values whose gradient is a value of their own type, field by field.

A dataclass instance, or an instance of a class defined in the user's own code (not
an installed library's, not srcgrad's), holding its data in attributes::

    class Dense:
        def __init__(self, W, b):
            self.W, self.b = W, b

is a record: its gradient is a ``Dense`` holding ``dW`` and ``db`` (as JAX's pytrees
give a dataclass's).  While the adjoint sweep runs, a record's gradient is a sparse
dict ``{attribute: gradient}`` (only what flowed); it becomes an instance of the
record's class at the end (``fill_like``), built without running ``__init__``, with
zeros where nothing flowed and the record's own non-float attributes (settings,
functions) as they are.
"""
import copy
import dataclasses
import os
import sys
import types

import numpy as np

__all__ = ["is_record", "fields_of", "with_fields", "user_class", "carries_gradient",
           "grad_fields"]

_ROOTS = None


def library_roots():
    """Where installed libraries and the standard library live (real paths)."""
    global _ROOTS
    if _ROOTS is None:
        import sysconfig
        paths = sysconfig.get_paths()
        roots = {paths.get(k) for k in ("purelib", "platlib", "stdlib", "platstdlib")}
        _ROOTS = tuple(os.path.realpath(r) + os.sep for r in roots if r)
    return _ROOTS


def in_library(filename):
    """Is ``filename`` (a code object's or module's file) part of an installed library
    or of the standard library?"""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    return path.startswith(library_roots()) or \
        os.sep + "site-packages" + os.sep in path or os.sep + "dist-packages" + os.sep in path


_USER_CLASSES = {}       # class -> bool

_NOT_RECORDS = (type, types.ModuleType, types.FunctionType, types.MethodType,
                types.BuiltinFunctionType, np.ndarray, np.generic, np.ufunc)


def user_class(cls):
    """Is ``cls`` a class of the user's own code (its module is not an installed
    library, the standard library, or srcgrad)?"""
    hit = _USER_CLASSES.get(cls)
    if hit is None:
        module = getattr(cls, "__module__", "") or ""
        if module == "builtins" or module.split(".")[0] in ("srcgrad", "numpy", "scipy"):
            hit = False
        else:
            mod = sys.modules.get(module)
            hit = not in_library(getattr(mod, "__file__", None) or "")
        _USER_CLASSES[cls] = hit
    return hit


_PLAIN_TYPES = frozenset([float, int, bool, complex, str, bytes, type(None), tuple, list,
                          dict, set, frozenset, range, np.ndarray, np.float64, np.float32,
                          np.int64, np.bool_, types.FunctionType, types.MethodType,
                          types.BuiltinFunctionType, types.ModuleType])


def is_record(x):
    """A dataclass instance, or an instance (with a ``__dict__``) of a user class."""
    if type(x) in _PLAIN_TYPES:         # (the values generated code holds, at once)
        return False
    if dataclasses.is_dataclass(x):
        return not isinstance(x, type)
    if isinstance(x, (dict, list, tuple, set, frozenset, str, bytes, int, float, complex)) \
            or isinstance(x, _NOT_RECORDS) or not hasattr(x, "__dict__"):
        return False
    return user_class(type(x)) and not hasattr(x, "__array__") and \
        not hasattr(x, "__array_namespace__")


def fields_of(x):
    """A record's fields by name (its gradient's sparse form)."""
    if dataclasses.is_dataclass(x):
        # (its fields, then what else the instance holds: an attribute that
        # __post_init__ sets is state too, whose gradient must not be dropped)
        out = {f.name: getattr(x, f.name) for f in dataclasses.fields(x)
               if hasattr(x, f.name)}
        for k, v in getattr(x, "__dict__", {}).items():
            out.setdefault(k, v)
        return out
    return dict(vars(x))


def with_fields(x, values):
    """A copy of record ``x`` with ``values`` as its fields (no ``__init__`` runs;
    frozen dataclasses too)."""
    new = copy.copy(x)
    for k, v in values.items():
        object.__setattr__(new, k, v)
    return new


def carries_gradient(v):
    """Does a record's field get a gradient slot (a number, an array, a container or
    record)?  Functions, strings, None and flags are kept as they are in a gradient."""
    if isinstance(v, bool) or v is None or isinstance(v, (str, bytes)):
        return False
    if isinstance(v, (int, float, complex, dict, list, tuple)) or hasattr(v, "shape"):
        return True
    return is_record(v)


def grad_fields(x):
    """The fields of record ``x`` that get a gradient slot, by name."""
    return {k: v for k, v in fields_of(x).items() if carries_gradient(v)}
