"""Integration of sampled values: ``np.trapezoid`` (``scipy.integrate.trapezoid`` has the
same rule, :data:`TRAPEZOID`).

``trapezoid(y, x, dx, axis) = sum(d * (y[1:] + y[:-1]) / 2)`` along ``axis``, with the
steps ``d = diff(x)`` (``x`` 1-D along the axis, or shaped like ``y``) or ``d = dx``: it
is linear in ``y`` (each sample weighs the mean of the steps beside it), in ``x`` (the
intervals' mean heights, differenced) and in ``dx``.  The kernels are written in
differentiable primitives (slices, ``diff``, ``concatenate``), so every order follows.
"""
import numpy as np

from ...runtime.backends import array_ns

from ..registry import defrule, deftransformable

__all__ = ['trapezoid_heights', 'trapezoid_grad_y', 'trapezoid_grad_x', 'trapezoid_grad_dx',
           'trapezoid_tangent_y', 'trapezoid_tangent_x', 'trapezoid_tangent_dx']


def _slice_along(a, index, axis):
    """``a[..., index, ...]`` with ``index`` (a slice) at ``axis``."""
    np = array_ns(a)
    return a[(slice(None),) * (axis % np.ndim(a)) + (index,)]


def _padded(a, axis, before):
    """``a`` with a slice of zeros put before (or after) it along ``axis``."""
    np = array_ns(a)
    zero = np.zeros_like(_slice_along(a, slice(0, 1), axis))
    return np.concatenate((zero, a) if before else (a, zero), axis=axis)


def _steps(ndim, x, dx, axis):
    """The steps ``d`` between the samples, shaped to broadcast against the intervals of
    a ``y`` of ``ndim`` dimensions (the number, not ``y``: the steps do not depend on it)."""
    np = array_ns(x, dx)
    if x is None:
        return dx
    if np.ndim(x) == 1:
        d = np.diff(x)
        shape = [1] * ndim
        shape[axis] = np.shape(d)[0]
        return np.reshape(d, tuple(shape))
    return np.diff(x, axis=axis)


def trapezoid_heights(y, axis=-1):
    """The intervals' mean heights ``(y[1:] + y[:-1]) / 2`` along ``axis``."""
    return (_slice_along(y, slice(1, None), axis) + _slice_along(y, slice(None, -1), axis)) / 2


def trapezoid_grad_y(g, y, x=None, dx=1.0, axis=-1):
    """Adjoint of ``trapezoid`` for ``y``: ``g`` times each sample's weight, the mean
    of the steps on either side of it (half a step at the ends)."""
    np = array_ns(g, y, x)
    half = _steps(np.ndim(y), x, dx, axis) * np.ones_like(_slice_along(y, slice(1, None), axis)) / 2
    weights = _padded(half, axis, True) + _padded(half, axis, False)
    return np.expand_dims(g, axis) * weights


def trapezoid_grad_x(g, y, x, axis=-1):
    """Adjoint of ``trapezoid`` for ``x``: ``d/dx_j = h_(j-1) - h_j`` of the heights
    ``h`` (:func:`trapezoid_heights`), ``h_-1 = h_n = 0``; a 1-D ``x`` sums the others
    (the template un-broadcasts the rest)."""
    np = array_ns(g, y, x)
    gh = np.expand_dims(g, axis) * trapezoid_heights(y, axis)
    gx = _padded(gh, axis, True) - _padded(gh, axis, False)
    if np.ndim(x) == 1:
        ax = axis % np.ndim(gx)
        return np.sum(gx, axis=tuple(i for i in range(np.ndim(gx)) if i != ax))
    return gx


def trapezoid_tangent_y(ty, x=None, dx=1.0, axis=-1):
    """Tangent of ``trapezoid`` along a tangent ``ty`` of ``y`` (it is linear in y)."""
    np = array_ns(ty, x)
    return np.sum(_steps(np.ndim(ty), x, dx, axis) * trapezoid_heights(ty, axis), axis=axis)


def trapezoid_tangent_x(tx, y, axis=-1):
    """Tangent of ``trapezoid`` along a tangent ``tx`` of ``x``."""
    np = array_ns(tx, y)
    return np.sum(_steps(np.ndim(y), tx, None, axis) * trapezoid_heights(y, axis), axis=axis)


def trapezoid_grad_dx(g, y, x, axis=-1):
    """Adjoint of ``trapezoid`` for the step ``dx`` (0 where ``x`` is given: it is not
    read then)."""
    np = array_ns(g, y, x)
    if x is not None:
        return np.zeros_like(g)
    return np.expand_dims(g, axis) * trapezoid_heights(y, axis)


def trapezoid_tangent_dx(tdx, y, x, axis=-1):
    """Tangent of ``trapezoid`` along a tangent ``tdx`` of the step ``dx``."""
    np = array_ns(tdx, y, x)
    if x is not None:
        return np.zeros_like(np.sum(trapezoid_heights(y, axis), axis=axis))
    return np.sum(tdx * trapezoid_heights(y, axis), axis=axis)


deftransformable(_slice_along, _padded, _steps, trapezoid_heights, trapezoid_grad_y,
                 trapezoid_grad_x, trapezoid_grad_dx, trapezoid_tangent_y, trapezoid_tangent_x,
                 trapezoid_tangent_dx)

# (in the x-terms ``dx`` names x's tangent: those terms read no step; dx's own are ddx)
TRAPEZOID = dict(
    vjp=dict(y="unbroadcast(trapezoid_grad_y(g, y, x, dx, axis), y)",
             x="unbroadcast(trapezoid_grad_x(g, y, x, axis), x)",
             dx="unbroadcast(trapezoid_grad_dx(g, y, x, axis), dx)"),
    jvp=dict(y="trapezoid_tangent_y(dy, x, dx, axis)", x="trapezoid_tangent_x(dx, y, axis)",
             dx="trapezoid_tangent_dx(ddx, y, x, axis)"))

if hasattr(np, "trapezoid"):          # NumPy >= 2.0
    defrule(np.trapezoid, "y, x=None, dx=1.0, axis=-1", **TRAPEZOID)
