"""Conventions shared by the NumPy kernels: axes, shapes, dtypes, zeros.

Every kernel works on numpy arrays (and on cupy arrays through numpy's
``__array_function__`` dispatch) and on Python scalars, and never mutates its
arguments.  Shared conventions:

* a gradient has its parameter's shape; a Python scalar parameter gets a scalar;
* the cotangent (``g``) or tangent of a list / tuple is a list / tuple of the same
  length, whose entries may be None (meaning zero);
* rules assume real inputs (no complex conjugation), except the complex parts and
  ``numpy.fft`` (:mod:`.spectral`), which pair a cotangent with a tangent by
  ``Re(sum(g * dz))``, as autograd and JAX do.
"""
import numpy as np
import numpy

from ...runtime.backends import DaskNamespace, array_ns, dtype_kind

from ..registry import defnograd, deftransformable

__all__ = ['fill_tangents', 'no_second_derivative']


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _fit(grad, x):
    """``grad`` shaped as the parameter ``x``: reshaped for arrays, a scalar otherwise."""
    np = array_ns(grad, x)
    if hasattr(x, "shape"):
        if getattr(grad, "shape", None) == x.shape:
            return grad
        return array_ns(grad, x).reshape(grad, x.shape) if hasattr(grad, "shape") else \
            array_ns(x).full_like(x, grad, dtype=_fdtype(x))
    if isinstance(x, (list, tuple)):
        return np.reshape(grad, np.shape(x))
    return np.sum(grad) if hasattr(grad, "shape") else grad


def _sum_to(grad, x):
    """Sum ``grad`` over the axes along which ``x`` was broadcast (``x`` an array or scalar)."""
    np = array_ns(grad, x)
    xs = np.shape(x)
    gs = np.shape(grad)
    if gs == xs:
        return _fit(grad, x)
    axes = _broadcast_axes(gs, xs)
    if axes:
        grad = np.sum(grad, axis=axes, keepdims=True)
    return _fit(np.reshape(grad, xs), x)


def _broadcast_axes(gs, xs):
    """The axes of shape ``gs`` along which shape ``xs`` was broadcast to it."""
    lead = len(gs) - len(xs)
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(xs)
                                      if n == 1 and gs[lead + i] != 1)


def _axes(axis, ndim):
    """``axis`` (None, int or tuple; negatives allowed) as a sorted tuple of non-negative ints."""
    np = array_ns(axis, ndim)
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(sorted(int(a) % ndim for a in axis)) if ndim else ()


def _keep(g, ndim, axis, keepdims):
    """Re-insert reduced axes (size 1) into ``g`` so that it broadcasts against the input."""
    if keepdims or not hasattr(g, "shape") and axis is None:
        return g
    shape = list(getattr(g, "shape", ()))
    for a in _axes(axis, ndim):
        shape.insert(a, 1)
    return array_ns(g).reshape(g, tuple(shape))


def _is_complex(x):
    """Whether ``x`` (an array of any backend, a Python or NumPy scalar) is complex, read
    from its dtype's name: no host copy, and array-API namespaces need no iscomplexobj."""
    return "complex" in str(getattr(x, "dtype", type(x)))


def _fdtype(x):
    """The floating dtype of a gradient for ``x`` (float32 stays float32)."""
    np = array_ns(x)
    dt = getattr(x, "dtype", None)
    if dt is None or isinstance(dt, np.dtype):
        return np.result_type(dt or np.float64, np.float32)
    return dt if dtype_kind(dt) in "fc" else array_ns(x).float64   # an array-API dtype


def _zeros(x):
    """A floating zero of ``x``'s shape (``0.0`` for Python scalars)."""
    np = array_ns(x)
    if hasattr(x, "shape"):
        return array_ns(x).zeros_like(x, dtype=_fdtype(x))
    if isinstance(x, (list, tuple)):
        return np.zeros(np.shape(x))
    return 0.0


def _like(values, ref):
    """``values`` (a numpy array built here, e.g. indices) on ``ref``'s backend."""
    np = array_ns(values, ref)
    if isinstance(ref, np.ndarray) or not hasattr(ref, "__array_function__"):
        return np.asarray(values)
    return np.asarray(values, like=ref)


def _eye(n, m, k, ref):
    dtype = _fdtype(ref)
    if isinstance(ref, numpy.ndarray) or not hasattr(ref, "shape"):
        return numpy.eye(n, m, k, dtype=dtype)
    ns = array_ns(ref)
    if isinstance(ns, DaskNamespace):           # (NumPy's like= passes dask an order=)
        return ns.eye(n, M=m, k=k, dtype=dtype)
    if hasattr(ref, "__array_function__"):      # cupy: NumPy dispatches on like=
        return numpy.eye(n, m, k, dtype=dtype, like=ref)
    return ns.eye(n, m, k=k, dtype=dtype, like=ref)   # the array API: ref's device


def _ones(n, ref):
    dtype = _fdtype(ref)
    if isinstance(ref, numpy.ndarray) or not hasattr(ref, "shape"):
        return numpy.ones(n, dtype=dtype)
    if hasattr(ref, "__array_function__"):
        return numpy.ones(n, dtype=dtype, like=ref)
    return array_ns(ref).ones(n, dtype=dtype, device=ref.device)


def _along(a, axis):
    """``a`` flattened if ``axis`` is None (NumPy's cumulative convention), and the axis."""
    np = array_ns(a, axis)
    return (np.ravel(a), 0) if axis is None else (a, axis)


def fill_tangents(dxs, xs):
    """A list of the tangents of ``xs`` with None replaced by zeros."""
    out = []
    for i in range(len(xs)):
        d = None if dxs is None else dxs[i]
        out.append(_zeros(xs[i]) if d is None else d)
    return out


def _flat_axes(a, axis):
    """``a`` with the ``axis`` axes (None: all) moved last and merged into one.

    Returns ``(moved, undo)``: ``undo(m)`` maps an array shaped like ``moved`` back to
    ``a``'s shape."""
    np = array_ns(a, axis)
    a = np.asarray(a) if not hasattr(a, "shape") else a
    nd = a.ndim
    axes = _axes(axis, nd) if nd else ()
    rest = [i for i in range(nd) if i not in axes]
    perm = rest + list(axes)
    moved = np.transpose(a, perm)
    lead = moved.shape[:len(rest)]
    flat = np.reshape(moved, lead + (-1,))

    def undo(m):
        return np.transpose(np.reshape(m, moved.shape), np.argsort(perm))
    return flat, undo


def _on_host(*xs):
    """Do ``xs`` compute in NumPy itself?  A kernel's branch on values (``if np.any(x
    == 0)``) costs nothing there; on a device it copies to the host, so the kernels take
    a path without one for other namespaces."""
    return array_ns(*xs) is numpy


def no_second_derivative(what):
    """Raised by a rule of a helper where srcgrad has no second derivative."""
    from ...errors import NonDifferentiableError
    raise NonDifferentiableError(f"srcgrad has no second derivative of {what}")


# kernels written in these helpers are differentiated again through their source
deftransformable(_fit, _sum_to, _keep, fill_tangents, _along)
defnograd(_fdtype, _zeros, _like, _eye, _ones, _axes, _broadcast_axes, _on_host, _is_complex)
