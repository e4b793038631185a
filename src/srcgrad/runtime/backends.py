"""The backend seam: which array namespace a gradient computes in.

Generated code starts with ``np = ad.array_ns(<its arguments>)`` and the kernels call
:func:`array_ns` on their operands, so every array operation of a derivative runs in
the library of the arguments:

* NumPy arrays and Python numbers: the ``numpy`` module itself (the fast path: one
  type check per argument, nothing else changes);
* CuPy arrays: the ``cupy`` module (it mirrors NumPy's API, ``add.at`` included);
* Dask arrays: :class:`DaskNamespace`, ``dask.array`` first, then NumPy (whose
  dispatch protocols reach Dask) for what ``dask.array`` lacks; a mix of NumPy
  parameters and Dask data computes in Dask;
* any other array-API array (``array_api_strict``, ...): :class:`ArrayAPINamespace`,
  NumPy's names (``arccos``, ``concatenate``, ``ndim``, ``add.at``...) written with the
  array API standard's functions, on the arrays' device.  Array-API namespaces come
  from ``array_api_compat.array_namespace`` when that package is installed.
"""
import math

import numpy as np

__all__ = ["array_ns", "namespace_of", "dtype_kind", "CupyNamespace", "DaskNamespace",
           "ArrayAPINamespace"]

_HOST = (np.ndarray, float, int, bool, complex, np.generic, type(None), str, slice)
_BY_TYPE = {}        # array type -> its namespace (None: NumPy)


def array_ns(*xs):
    """The namespace to compute in for arguments ``xs`` (numpy unless one of them,
    or an item of a list/tuple/dict among them, belongs to another array library)."""
    found = None
    for x in xs:
        t = type(x)
        if t in _HOST:
            continue
        if t is list or t is tuple:
            ns = array_ns(*x) if x else np
        elif t is dict:
            ns = array_ns(*x.values()) if x else np
        else:
            ns = _BY_TYPE.get(t, 0)
            if ns == 0:
                ns = _BY_TYPE[t] = _namespace_for(x)
            if ns is None:
                continue
        if ns is np:
            continue
        if found is None or _rank(ns) > _rank(found):
            found = ns
    return np if found is None else found


def namespace_of(*xs):
    """:func:`array_ns` of arrays (for kernels: the operands' namespace)."""
    return array_ns(*xs)


def dtype_kind(dt):
    """NumPy's one-letter kind (``"f"``, ``"i"``, ``"b"``...) of any library's dtype
    (array-API dtypes have no ``.kind``: read from their name)."""
    kind = getattr(dt, "kind", None)
    if isinstance(kind, str):
        return kind
    try:
        return np.dtype(str(dt).rsplit(".", 1)[-1].strip("'>")).kind
    except TypeError:
        return "O"


def _rank(ns):
    # a device library wins over Dask over the rest: cupy data with numpy parameters
    # computes on the device; Dask data with numpy parameters stays lazy
    return 1 if isinstance(ns, DaskNamespace) else 2


def _namespace_for(x):
    mod = type(x).__module__ or ""
    root = mod.split(".", 1)[0]
    if root == "cupy":
        import cupy
        return CupyNamespace(cupy)
    if root in ("numpy", "builtins") or isinstance(x, _HOST):
        return None
    if root == "dask" and hasattr(x, "dask"):
        return DaskNamespace()
    if root in ("torch", "srcgrad"):      # tensors follow their own dispatch
        return None
    get = getattr(x, "__array_namespace__", None)
    if get is None:
        return None
    try:
        from array_api_compat import array_namespace
        xp = array_namespace(x)
    except ImportError:
        xp = get()
    return ArrayAPINamespace(xp)


class CupyNamespace:
    """The ``cupy`` module, falling back to NumPy's functions for what it lacks (they
    reach CuPy arrays through ``__array_function__``)."""
    _cache = {}

    def __new__(cls, module):
        self = cls._cache.get(id(module))
        if self is None:
            self = super().__new__(cls)
            self.__dict__["_mod"] = module
            cls._cache[id(module)] = self
        return self

    def __getattr__(self, name):
        value = getattr(self._mod, name, None)
        if value is None or name in _NUMPY_FIRST:
            value = getattr(np, name)
        self.__dict__[name] = value       # the next lookup is a plain attribute read
        return value

    def __repr__(self):
        return f"<srcgrad backend: {self._mod.__name__}>"


class DaskNamespace(CupyNamespace):
    """``dask.array``, falling back to NumPy's functions (which dispatch to Dask)."""

    def __new__(cls):
        import dask.array as da
        return super().__new__(cls, da)

    # metadata read from the graph, never computed (NumPy's versions compute a Dask array)
    @staticmethod
    def shape(x):
        return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)

    @staticmethod
    def ndim(x):
        return x.ndim if hasattr(x, "ndim") else np.ndim(x)

    @staticmethod
    def size(x, axis=None):
        if not hasattr(x, "shape"):
            return np.size(x, axis)
        return math.prod(x.shape) if axis is None else x.shape[axis]


# names whose NumPy version (reaching Dask through __array_function__) is the right one:
# metadata queries that Dask's module does not have or that must not compute
_NUMPY_FIRST = frozenset({"result_type", "dtype", "float64",
                          "float32", "intp", "newaxis", "pi", "e", "inf", "nan", "ufunc",
                          "integer", "floating", "generic", "ndarray"})


# NumPy's name -> the array API standard's name of the same function
_RENAMED = {
    "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "power": "pow",
    "concatenate": "concat", "absolute": "abs", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "bool_": "bool", "conjugate": "conj",
}


class _AddAt:
    """``add`` with NumPy's ``add.at(out, index, values)`` for namespaces without it."""

    def __init__(self, xp):
        self._xp = xp

    def __call__(self, a, b):
        return self._xp.add(a, b)

    def at(self, out, index, values):
        xp = self._xp
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != 1 or getattr(index[0], "ndim", 1) != 1:
            raise NotImplementedError(
                f"srcgrad: a repeated fancy index other than one 1-D integer array on "
                f"the first axis has no scatter-add in {xp.__name__}")
        idx = xp.asarray(index[0], device=_device(out))
        n = out.shape[0]
        idx = xp.where(idx < 0, idx + n, idx)
        # one-hot matrix product: sum over duplicate indices, on the arrays' device
        onehot = xp.astype(idx[:, None] == xp.arange(n, device=_device(out))[None, :],
                           out.dtype)
        v = xp.broadcast_to(xp.asarray(values, dtype=out.dtype, device=_device(out)),
                            (idx.shape[0],) + tuple(out.shape[1:]))
        flat = xp.reshape(v, (idx.shape[0], -1))
        add = xp.reshape(xp.matrix_transpose(onehot) @ flat, out.shape)
        out[...] = out + add


def _device(x):
    return getattr(x, "device", None)


class ArrayAPINamespace:
    """NumPy's function names for an array-API namespace ``xp`` (what templates and
    user code written for NumPy call), each written with the standard's functions."""
    _cache = {}

    def __new__(cls, xp):
        self = cls._cache.get(id(xp))
        if self is None:
            self = super().__new__(cls)
            self.__dict__["xp"] = xp
            self.__dict__["add"] = _AddAt(xp)
            cls._cache[id(xp)] = self
        return self

    def __repr__(self):
        return f"<srcgrad backend: {getattr(self.xp, '__name__', self.xp)}>"

    def __getattr__(self, name):
        xp = self.xp
        own = getattr(type(self), "_np_" + name, None)
        if own is not None:
            value = own.__get__(self)
        elif hasattr(xp, _RENAMED.get(name, name)):
            value = getattr(xp, _RENAMED.get(name, name))
        else:
            value = getattr(np, name)      # constants (pi, newaxis) and submodules
            if callable(value) and not isinstance(value, (type(np), type)):
                raise AttributeError(
                    f"srcgrad: numpy.{name} has no counterpart in {xp.__name__} (the array "
                    f"API namespace of the arguments); it would copy device arrays to the "
                    f"host")
        self.__dict__[name] = value
        return value

    # -- NumPy functions that the standard spells differently -------------------
    def _np_ndim(self, x):
        return getattr(x, "ndim", 0)

    def _np_shape(self, x):
        return tuple(getattr(x, "shape", ()))

    def _np_size(self, x):
        return math.prod(getattr(x, "shape", ()))

    def _np_transpose(self, a, axes=None):
        if axes is None:
            axes = tuple(range(a.ndim))[::-1]
        return self.xp.permute_dims(a, tuple(axes))

    def _np_swapaxes(self, a, i, j):
        axes = list(range(a.ndim))
        axes[i], axes[j] = axes[j], axes[i]
        return self.xp.permute_dims(a, tuple(axes))

    def _np_outer(self, a, b):
        xp = self.xp
        return xp.reshape(a, (-1, 1)) * xp.reshape(b, (1, -1))

    def _np_dot(self, a, b):
        if a.ndim == 0 or b.ndim == 0:
            return a * b
        return self.xp.matmul(a, b) if b.ndim <= 2 else self.xp.tensordot(a, b, axes=[[-1], [-2]])

    def _np_full_like(self, a, fill_value, dtype=None):
        return self.xp.full(a.shape, fill_value, dtype=dtype or a.dtype, device=_device(a))

    def _np_zeros_like(self, a, dtype=None):
        return self.xp.zeros(a.shape, dtype=dtype or a.dtype, device=_device(a))

    def _np_ones_like(self, a, dtype=None):
        return self.xp.ones(a.shape, dtype=dtype or a.dtype, device=_device(a))

    def _np_broadcast_to(self, a, shape):
        return self.xp.broadcast_to(a, tuple(shape))

    def _np_reshape(self, a, shape, order="C"):
        if order != "C":
            raise NotImplementedError("srcgrad: the array API reshapes in C order only")
        return self.xp.reshape(a, tuple(shape) if not isinstance(shape, int) else (shape,))

    def _np_square(self, x):
        return x * x

    def _np_cbrt(self, x):
        return self.xp.sign(x) * self.xp.abs(x) ** (1.0 / 3.0)

    def _np_copy(self, a):
        return self.xp.asarray(a, copy=True)

    def _np_asarray(self, a, dtype=None, like=None, copy=None):
        device = _device(like) if like is not None else _device(a)
        return self.xp.asarray(a, dtype=dtype, device=device, copy=copy)

    def _np_ravel(self, a, order="C"):
        return self.xp.reshape(a, (-1,))

    def _np_cumsum(self, a, axis=None, dtype=None):
        if axis is None:
            a, axis = self.xp.reshape(a, (-1,)), 0
        return self.xp.cumulative_sum(a, axis=axis, dtype=dtype)

    def _np_cumprod(self, a, axis=None, dtype=None):
        if axis is None:
            a, axis = self.xp.reshape(a, (-1,)), 0
        return self.xp.cumulative_prod(a, axis=axis, dtype=dtype)

    def _np_tril(self, m, k=0):
        return self.xp.tril(m, k=k)

    def _np_triu(self, m, k=0):
        return self.xp.triu(m, k=k)

    def _np_flip(self, m, axis=None):
        return self.xp.flip(m, axis=axis)

    def _np_roll(self, a, shift, axis=None):
        return self.xp.roll(a, shift, axis=axis)

    def _np_eye(self, N, M=None, k=0, dtype=None, like=None):
        return self.xp.eye(N, M, k=k, dtype=dtype, device=_device(like))
