"""Reductions and scans: sum, mean, prod, max/min, var/std, norms, NaN-skipping
variants, cumulative sums and products, diff, trace.

Every reduction takes ``axis`` None / int / negative / tuple and ``keepdims``; its
adjoint re-inserts the reduced axes (``keep_axis``) and broadcasts back.
"""
import math

import numpy as np

from ..registry import defkernel, deflinear, defmethod, defnograd, defrule, deftransformable
from .conventions import _along, _axes, _eye, _fdtype, _fit, _flat_axes, _is_complex, _keep, _like, _on_host
from .linalg import mT
from .decompositions import spectral_grad, spectral_jvp
from .spectral import abs_grad, abs_tangent
from ...runtime.backends import array_ns

__all__ = ['gradient_apply', 'gradient_spacing', 'std_scale', 'prod_partials', 'minmax_jvp', 'var_grad', 'var_jvp', 'var_vjp', 'var_tangent', 'norm_grad', 'norm_jvp', 'norm_vjp', 'norm_tangent', 'ptp_grad', 'ptp_jvp', 'nanmean_grad', 'cumsum_grad', 'cumprod_grad', 'cumprod_jvp', 'diff_grad', 'trace_grad', 'cumulative_trim', 'cumulative_pad', 'nanvar_grad', 'nanvar_jvp', 'var_grad_a', 'prod_partials_grad', 'norm_grad_x', 'norm_grad_n', 'norm_grad_dn', 'norm_jvp_x', 'norm_jvp_n']


# -- kernels ----------------------------------------------------------------------------

def prod_partials(a, axis=None):
    """``d prod(a, axis) / d a``: for each entry the product of the others in its group.

    Exact with zeros in the input (no division): built from exclusive cumulative
    products from the left and from the right.
    """
    np = array_ns(a, axis)
    a = a if hasattr(a, "shape") else np.asarray(a, dtype=np.result_type(a, float))
    axes = _axes(axis, a.ndim)
    if not axes:                                # a 0-d input: d a / d a = 1
        return np.ones_like(a, dtype=np.result_type(a, np.float32))
    rest = [i for i in range(a.ndim) if i not in axes]
    moved = np.transpose(a, rest + list(axes))
    flat = np.reshape(moved, moved.shape[:len(rest)] + (-1,))
    ones = np.ones_like(flat[..., :1])
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate(
        [ones, np.flip(flat[..., 1:], axis=-1)], axis=-1), axis=-1), axis=-1)
    out = np.reshape(left * right, moved.shape)
    perm = rest + list(axes)
    return np.transpose(out, tuple(sorted(range(len(perm)), key=perm.__getitem__)))


def minmax_jvp(da, ans, a, axis=None, keepdims=False):
    """Tangent of ``max(a, axis)`` / ``min``: ``da`` averaged over the extremal entries."""
    np = array_ns(da, a)
    a_ = _keep(ans, np.ndim(a), axis, keepdims)
    mask = (a == a_)
    if not hasattr(mask, "astype"):            # an array-API array: sums numbers only
        mask = np.astype(mask, _fdtype(a))
    w = mask / np.sum(mask, axis=axis, keepdims=True, dtype=_fdtype(a))
    return np.sum(da * w, axis=axis, keepdims=keepdims)


def _count(a, axis):
    """How many entries each variance averages, from the shape alone (a Dask or device
    array is never read to count)."""
    np = array_ns(a, axis)
    shape = getattr(a, "shape", None)
    if shape is None:
        shape = np.shape(a)
    return math.prod(shape[i] for i in _axes(axis, len(shape)))


def _real_var(a):
    """The variance's kernels are written for real arrays (a complex one's variance is
    mean(|a - mean|^2): its gradient is conjugated): refused rather than a wrong number."""
    if _is_complex(a):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError("np.var / np.std of a complex array: derivative for "
                                     "real arrays only (np.mean(np.abs(x - np.mean(x)) ** 2) "
                                     "differentiates)")


def var_vjp(g, a, axis=None, ddof=0, keepdims=False):
    """``np.var``'s reverse template: :func:`var_grad`; a complex ``a``'s variance is the
    sum of its real and imaginary parts' (the gradient d/dRe - i d/dIm)."""
    np = array_ns(g, a, axis, ddof, keepdims)
    if _is_complex(a):
        t = np.real(g)
        return (var_grad(t, np.real(a), axis, ddof, keepdims)
                - 1j * var_grad(t, np.imag(a), axis, ddof, keepdims))
    return var_grad(g, a, axis, ddof, keepdims)


def var_tangent(da, a, axis=None, ddof=0, keepdims=False):
    """``np.var``'s forward template: :func:`var_jvp`, by parts for a complex ``a``."""
    np = array_ns(da, a, axis, ddof, keepdims)
    if _is_complex(a) or _is_complex(da):
        return (var_jvp(np.real(da), np.real(a), axis, ddof, keepdims)
                + var_jvp(np.imag(da), np.imag(a), axis, ddof, keepdims))
    return var_jvp(da, a, axis, ddof, keepdims)


def var_grad(g, a, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.var(a, axis, ddof=ddof, keepdims=keepdims)``."""
    n = _count(a, axis)
    np = array_ns(g, a)
    _real_var(a)
    centred = a - np.mean(a, axis=axis, keepdims=True)
    return _fit(2.0 * centred * _keep(g, np.ndim(a), axis, keepdims) / (n - ddof), a)


def std_scale(t, ans):
    """``t / (2 std)``, the chain factor of ``std = sqrt(var)``, and 0 where the standard
    deviation is 0 (constant data: the variance's own gradient is 0 there; autograd's
    and JAX's convention, and what central differences give)."""
    zero = ans == 0
    np = array_ns(t, ans)
    return np.where(zero, 0.0, t / (2 * np.where(zero, 1.0, ans)))


def var_jvp(da, a, axis=None, ddof=0, keepdims=False):
    """Tangent of ``np.var``: ``2 sum((a - mean) da) / (N - ddof)`` over ``axis``."""
    n = _count(a, axis)
    np = array_ns(da, a)
    _real_var(a)
    centred = a - np.mean(a, axis=axis, keepdims=True)
    return 2.0 * np.sum(centred * da, axis=axis, keepdims=keepdims) / (n - ddof)


def _norm_weights(x, ans, ord, axis, keepdims, vector=False):
    """``W`` with ``d norm = sum(W * dx)`` over the reduced axes (``W`` has x's shape)."""
    np = array_ns(x, ans, ord, axis, keepdims, vector)
    nd = np.ndim(x)
    if axis is None and not vector and nd == 2 and ord is not None:
        axis = (0, 1)                           # a matrix norm of a 2-D input
    if axis is None:
        axes = tuple(range(nd))
        is_matrix = False
    else:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        is_matrix = len(axes) == 2 and not vector
    n = _keep(ans, nd, axes, keepdims)
    if not is_matrix:
        if ord is None or ord == 2 or ord == "fro":
            return x / np.where(n == 0, 1, n)
        if ord == 1:
            return np.sign(x)
        if ord == 0:
            return np.zeros_like(x, dtype=np.result_type(x, np.float32))
        if ord in (np.inf, -np.inf):
            mask = (np.abs(x) == n)
            return np.sign(x) * mask / np.sum(mask, axis=axes, keepdims=True, dtype=_fdtype(x))
        p = float(ord)
        return np.sign(x) * np.abs(x) ** (p - 1) / np.where(n == 0, 1, n) ** (p - 1)
    r, c = (a % nd for a in axes)
    if ord is None or ord == "fro":
        return x / np.where(n == 0, 1, n)
    xm = np.moveaxis(x, (r, c), (-2, -1))
    if ord == "nuc" or ord in (2, -2):
        u, s, vt = np.linalg.svd(xm, full_matrices=False)
        if ord == "nuc":
            w = u @ vt
        else:
            i = 0 if ord == 2 else -1
            w = u[..., :, i:i + 1 if i == 0 else None] @ vt[..., i:i + 1 if i == 0 else None, :]
        return np.moveaxis(w, (-2, -1), (r, c))
    if ord in (1, -1, np.inf, -np.inf):
        along = -2 if ord in (1, -1) else -1      # 1: max column sum (sum over rows)
        sums = np.sum(np.abs(xm), axis=along, keepdims=True)
        best = np.max(sums, axis=-1 if along == -2 else -2, keepdims=True) if ord > 0 else \
            np.min(sums, axis=-1 if along == -2 else -2, keepdims=True)
        mask = (sums == best)
        w = np.sign(xm) * mask / np.sum(mask, axis=(-2, -1), keepdims=True, dtype=_fdtype(x))
        return np.moveaxis(w, (-2, -1), (r, c))
    raise ValueError(f"norm: no derivative for ord={ord!r}")


def _norm_axes(x, ord, axis, vector):
    np = array_ns(x, ord, axis, vector)
    if axis is None and not vector and np.ndim(x) == 2 and ord is not None:
        return (0, 1)
    return axis


def _real_norm(x):
    """The norm's weights are written for real arrays (a complex one goes through
    :func:`norm_vjp`): refused rather than given a wrong number."""
    if _is_complex(x):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError("np.linalg.norm: derivative for real arrays only (this "
                                     "one is complex; np.sqrt(np.sum(np.abs(x) ** 2)) "
                                     "differentiates)")


def _spectral(x, ord, axis, vector):
    """Whether this norm of ``x`` is a spectral one ('nuc', 2, -2 of matrices)."""
    nd = np.ndim(x)
    matrix = not vector and ((axis is None and nd == 2 and ord is not None) or
                             (axis is not None and not isinstance(axis, (int, np.integer))
                              and len(axis) == 2))
    return matrix and (ord == "nuc" or (not isinstance(ord, str) and ord in (2, -2)))


def _abs_norm(x, ord, axis, vector):
    """Whether the norm of ``x`` is the same norm of ``|x|``: every vector norm, and the
    Frobenius and 1 / inf matrix norms; not the spectral ones ('nuc', 2, -2), which
    :func:`.decompositions.spectral_grad` differentiates through the SVD."""
    return not _spectral(x, ord, axis, vector)


def norm_vjp(g, ans, x, ord=None, axis=None, keepdims=False, vector=False):
    """The norms' reverse template: :func:`norm_grad`; a complex ``x``'s norm is the norm of
    ``|x|`` (:func:`_abs_norm`), its cotangent goes on through ``abs``; its spectral
    norms go through the SVD (:func:`spectral_grad`)."""
    np = array_ns(g, ans, x, ord, axis, keepdims, vector)
    if _is_complex(x):
        if not _abs_norm(x, ord, axis, vector):
            return spectral_grad(g, x, ord, _norm_axes(x, ord, axis, vector), keepdims)
        r = np.abs(x)
        return abs_grad(norm_grad(g, ans, r, ord, axis, keepdims, vector), x, r)
    return norm_grad(g, ans, x, ord, axis, keepdims, vector)


def norm_tangent(dx, ans, x, ord=None, axis=None, keepdims=False, vector=False):
    """The norms' forward template: :func:`norm_jvp`, through ``abs`` for a complex ``x``
    (through the SVD for its spectral norms)."""
    np = array_ns(dx, ans, x, ord, axis, keepdims, vector)
    if _is_complex(x):
        if not _abs_norm(x, ord, axis, vector):
            return spectral_jvp(dx, x, ord, _norm_axes(x, ord, axis, vector), keepdims)
        r = np.abs(x)
        return norm_jvp(abs_tangent(dx, x, r), ans, r, ord, axis, keepdims, vector)
    return norm_jvp(dx, ans, x, ord, axis, keepdims, vector)


def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False, vector=False):
    """Adjoint of ``np.linalg.norm`` (``vector=True``: ``np.linalg.vector_norm``)."""
    np = array_ns(g, ans, x, ord, axis, keepdims, vector)
    _real_norm(x)
    w = _norm_weights(x, ans, ord, axis, keepdims, vector)
    return _fit(_keep(g, np.ndim(x), _norm_axes(x, ord, axis, vector), keepdims) * w, x)


def norm_jvp(dx, ans, x, ord=None, axis=None, keepdims=False, vector=False):
    """Tangent of ``np.linalg.norm``: ``sum(W * dx)`` over the reduced axes."""
    np = array_ns(dx, ans, x, ord, axis, keepdims, vector)
    _real_norm(x)
    w = _norm_weights(x, ans, ord, axis, keepdims, vector)
    return np.sum(dx * w, axis=_norm_axes(x, ord, axis, vector), keepdims=keepdims)


def _ptp_weights(a, axis):
    np = array_ns(a, axis)
    hi = np.max(a, axis=axis, keepdims=True)
    lo = np.min(a, axis=axis, keepdims=True)
    up, down = (a == hi), (a == lo)
    return (up / np.sum(up, axis=axis, keepdims=True, dtype=_fdtype(a))
            - down / np.sum(down, axis=axis, keepdims=True, dtype=_fdtype(a)))


def ptp_grad(g, a, axis=None, keepdims=False):
    """Adjoint of ``np.ptp`` (max - min), ties shared equally."""
    np = array_ns(g, a, axis, keepdims)
    return _fit(_keep(g, np.ndim(a), axis, keepdims) * _ptp_weights(a, axis), a)


def ptp_jvp(da, a, axis=None, keepdims=False):
    np = array_ns(da, a, axis, keepdims)
    return np.sum(da * _ptp_weights(a, axis), axis=axis, keepdims=keepdims)


def nanmean_grad(g, a, axis=None, keepdims=False):
    """Adjoint of ``np.nanmean``: ``g`` shared among the non-NaN entries of each group."""
    np = array_ns(g, a, axis, keepdims)
    ok = ~np.isnan(a)
    count = np.sum(ok, axis=axis, keepdims=True, dtype=_fdtype(a))
    return _keep(g, np.ndim(a), axis, keepdims) * ok / count


def cumsum_grad(g, a, axis=None):
    """Adjoint of ``np.cumsum``: a reversed cumulative sum."""
    np = array_ns(g, a, axis)
    _, ax = _along(a, axis)
    return _fit(np.flip(np.cumsum(np.flip(g, axis=ax), axis=ax), axis=ax), a)


def _affine_scan(b, c, reverse=False):
    """``s_i = b_i + c_i s_(i-1)`` along the last axis (``reverse``: ``s_(i+1)``), the
    first (last) ``c`` unused: a parallel prefix scan of the affine maps, ``log2(n)``
    steps of whole-array operations with no division and no branch on the values."""
    np = array_ns(b, c)
    n = b.shape[-1]
    step = 1
    while step < n:
        if reverse:
            pad = np.zeros_like(b[..., :step])
            b = b + c * np.concatenate([b[..., step:], pad], axis=-1)
            c = c * np.concatenate([c[..., step:], pad], axis=-1)
        else:
            pad = np.zeros_like(b[..., :step])
            b = b + c * np.concatenate([pad, b[..., :-step]], axis=-1)
            c = c * np.concatenate([pad, c[..., :-step]], axis=-1)
        step = step * 2
    return b


def _exclusive_cumprod(x):
    """``prod_(k < i) x_k`` along the last axis (1 first)."""
    np = array_ns(x)
    return np.cumprod(np.concatenate([np.ones_like(x[..., :1]), x[..., :-1]], axis=-1), axis=-1)


def cumprod_grad(g, ans, a, axis=None):
    """Adjoint of ``np.cumprod``; exact with zeros (then O(n^2) along ``axis``).  Off the
    host, without a branch on the values: ``grad_i = prod_(k<i) x_k * S_i`` with ``S_i =
    g_i + x_(i+1) S_(i+1)`` (:func:`_affine_scan`), exact with zeros too."""
    np = array_ns(g, ans, a, axis)
    x, ax = _along(a, axis)
    if not _on_host(g, ans, a):
        xm, gm = np.moveaxis(x, ax, -1), np.moveaxis(np.broadcast_to(g, x.shape), ax, -1)
        nxt = np.concatenate([xm[..., 1:], np.zeros_like(xm[..., :1])], axis=-1)
        grad = _exclusive_cumprod(xm) * _affine_scan(gm, nxt, reverse=True)
        return _fit(np.moveaxis(grad, -1, ax), a)
    if not np.any(x == 0):
        return _fit(np.flip(np.cumsum(np.flip(g * ans, axis=ax), axis=ax), axis=ax) / x, a)
    x = np.moveaxis(x, ax, -1)
    gm = np.moveaxis(g, ax, -1)
    n = x.shape[-1]
    cols = []
    for i in range(n):      # grad_i = sum_{j>=i} g_j prod_{k<=j, k!=i} x_k
        xi = np.concatenate([x[..., :i], np.ones_like(x[..., i:i + 1]), x[..., i + 1:]], axis=-1)
        cols.append(np.sum((gm * np.cumprod(xi, axis=-1))[..., i:], axis=-1))
    return _fit(np.moveaxis(np.stack(cols, axis=-1), -1, ax), a)


def cumprod_jvp(da, ans, a, axis=None):
    """Tangent of ``np.cumprod``; exact with zeros.  Off the host, without a branch on
    the values: ``t_j = x_j t_(j-1) + da_j prod_(k<j) x_k`` (:func:`_affine_scan`)."""
    np = array_ns(da, ans, a, axis)
    x, ax = _along(a, axis)
    d, _ = _along(da, axis)
    if not _on_host(da, ans, a):
        xm, dm = np.moveaxis(x, ax, -1), np.moveaxis(np.broadcast_to(d, x.shape), ax, -1)
        t = _affine_scan(dm * _exclusive_cumprod(xm), xm)
        return np.moveaxis(t, -1, ax)
    if not np.any(x == 0):
        return ans * np.cumsum(d / x, axis=ax)
    xm, dm = np.moveaxis(x, ax, -1), np.moveaxis(d, ax, -1)
    n = xm.shape[-1]
    out = 0
    for i in range(n):      # t_j = sum_{i<=j} prod_{k<=j} (x with x_i -> dx_i)_k
        xi = np.concatenate([xm[..., :i], dm[..., i:i + 1], xm[..., i + 1:]], axis=-1)
        part = np.cumprod(xi, axis=-1)
        out = out + np.concatenate([np.zeros_like(part[..., :i]), part[..., i:]], axis=-1)
    return np.moveaxis(out, -1, ax)


def diff_grad(g, a, n=1, axis=-1):
    """Adjoint of ``np.diff(a, n, axis)``: ``n`` times the adjoint of one difference."""
    np = array_ns(g, a, n, axis)
    for _ in range(n):
        pad = [(0, 0)] * np.ndim(g)
        pad[axis % np.ndim(g)] = (1, 1)
        gp = np.pad(g, pad)
        g = np.take(gp, np.arange(gp.shape[axis] - 1), axis=axis) - \
            np.take(gp, np.arange(1, gp.shape[axis]), axis=axis)
    return g


def _gradient_plan(f, varargs, axis, edge_order):
    """``(axes, matrices, single)`` of ``np.gradient(f, *varargs, axis, edge_order)``:
    along ``axes[k]`` the result is ``matrices[k] @ f`` (the matrix: ``np.gradient`` of
    the identity, so spacings and edges are NumPy's own); ``single``: one array out."""
    np = array_ns(f, varargs, axis, edge_order)
    nd = np.ndim(f)
    if axis is None:
        axes = list(range(nd))
    elif isinstance(axis, (int, np.integer)):
        axes = [int(axis) % nd]
    else:
        axes = [int(a) % nd for a in axis]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [varargs[0]] * len(axes)
    else:
        spacing = list(varargs)
    dtype = _fdtype(f)
    mats = [np.gradient(np.eye(np.shape(f)[ax]), h, axis=0, edge_order=edge_order).astype(dtype)
            for ax, h in zip(axes, spacing)]
    return axes, mats, len(axes) == 1


def gradient_apply(t, f, varargs=(), axis=None, edge_order=1, transpose=False):
    """``np.gradient(t, *varargs, ...)`` for ``f``'s shape (linear in ``t``); with
    ``transpose``, its adjoint: ``t`` is one cotangent per axis (None: zero)."""
    np = array_ns(t, f, varargs, axis, edge_order, transpose)
    axes, mats, single = _gradient_plan(f, varargs, axis, edge_order)
    if not transpose:
        outs = []
        for k in range(len(axes)):
            moved = np.moveaxis(t, axes[k], 0)
            outs.append(np.moveaxis(np.tensordot(mats[k], moved, 1), 0, axes[k]))
        return outs[0] if single else tuple(outs)
    parts = [t] if single else list(t)
    total = 0.0 * f
    for k in range(len(axes)):
        if parts[k] is not None:
            moved = np.moveaxis(parts[k], axes[k], 0)
            total = total + np.moveaxis(np.tensordot(mT(mats[k]), moved, 1), 0, axes[k])
    return total


def gradient_spacing(varargs):
    """``np.gradient``'s spacings carry no derivative here: a located error."""
    from ...errors import NonDifferentiableError
    raise NonDifferentiableError("np.gradient: no derivative with respect to the spacing "
                                 "(varargs); pass it as a constant")


def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.trace``: ``g`` on the ``offset`` diagonal of every matrix."""
    np = array_ns(g, a, offset, axis1, axis2)
    nd = np.ndim(a)
    axis1, axis2 = axis1 % nd, axis2 % nd
    m, n = np.shape(a)[axis1], np.shape(a)[axis2]
    block = np.expand_dims(g, (-2, -1)) * _eye(m, n, offset, a)
    return np.moveaxis(block, (-2, -1), (axis1, axis2))


def cumulative_trim(g, x, axis=None, include_initial=False):
    """The cotangent of ``np.cumulative_sum/prod`` without its initial slice."""
    np = array_ns(g, x, axis, include_initial)
    if not include_initial:
        return g
    ax = 0 if axis is None else axis
    return np.take(g, _like(np.arange(1, np.shape(g)[ax]), g), axis=ax)


def cumulative_pad(t, axis=None, include_initial=False):
    """A tangent of ``np.cumulative_prod`` with the (constant) initial slice put back."""
    np = array_ns(t, axis, include_initial)
    if not include_initial:
        return t
    ax = 0 if axis is None else axis
    pad = [(0, 0)] * np.ndim(t)
    pad[ax] = (1, 0)
    return np.pad(t, pad)


def nanvar_grad(g, a, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.nanvar``: as ``np.var`` over the non-NaN entries; NaNs get 0."""
    np = array_ns(g, a, axis, ddof, keepdims)
    _real_var(a)
    ok = ~np.isnan(a)
    n = np.sum(ok, axis=axis, keepdims=True, dtype=_fdtype(a))
    centred = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return _fit(2.0 * centred * _keep(g, np.ndim(a), axis, keepdims) / (n - ddof), a)


def nanvar_jvp(da, a, axis=None, ddof=0, keepdims=False):
    np = array_ns(da, a, axis, ddof, keepdims)
    _real_var(a)
    ok = ~np.isnan(a)
    n = np.sum(ok, axis=axis, keepdims=keepdims, dtype=_fdtype(a))
    centred = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return 2.0 * np.sum(centred * np.where(ok, da, 0), axis=axis, keepdims=keepdims) / (n - ddof)


def var_grad_a(g, t, a, axis=None, ddof=0, keepdims=False):
    """Adjoint, for ``a``, of ``var_grad(t, a, ...) = 2 (a - mean a) t / (N - ddof)``:
    the centring is self-adjoint."""
    np = array_ns(g, t, a, axis, ddof, keepdims)
    n = np.size(a) // max(np.size(np.mean(a, axis=axis)), 1) if np.size(a) else 0
    h = g * _keep(t, np.ndim(a), axis, keepdims)
    return _fit(2.0 * (h - np.mean(h, axis=axis, keepdims=True)) / (n - ddof), a)


def prod_partials_grad(g, a, axis=None):
    """Adjoint (and, the matrix being symmetric, tangent) of ``prod_partials(a, axis)``:
    ``d P_i / d a_j`` is the product of the group without ``a_i`` and ``a_j`` (i != j).
    Exact with zeros; O(n^2) in the group size.  Written in differentiable primitives
    (no in-place writes, no closures), so that its own derivatives are its source's:
    the third derivative of ``np.prod`` and beyond."""
    np = array_ns(g, a, axis)
    a = a if hasattr(a, "shape") else np.asarray(a, dtype=np.result_type(a, float))
    g = np.broadcast_to(g, np.shape(a))
    axes = _axes(axis, np.ndim(a))
    if not axes:                                # a 0-d group: P = 1, a constant
        return _fit(g * np.zeros_like(a, dtype=np.result_type(a, np.float32)), a)
    rest = [i for i in range(np.ndim(a)) if i not in axes]
    perm = rest + list(axes)
    moved = np.transpose(a, perm)
    lead = np.shape(moved)[:len(rest)]
    flat = np.reshape(moved, lead + (-1,))
    gf = np.reshape(np.transpose(g, perm), lead + (-1,))
    n = np.shape(flat)[-1]
    out = gf * np.zeros_like(flat, dtype=np.result_type(flat, gf, np.float32))
    for i in range(n):      # no in-place writes: it runs on recording tensors (3rd order)
        hit = np.arange(n) == i
        part = np.where(hit, 0, prod_partials(np.where(hit, 1, flat), -1))   # k != i, j
        out = out + gf[..., i:i + 1] * part
    back = [perm.index(k) for k in range(len(perm))]
    return _fit(np.transpose(np.reshape(out, np.shape(moved)), back), a)


def _norm_dweights(x, n, ord, axis, keepdims, vector):
    """``(dW/dx, dW/dn)`` of the weights ``W`` of ``norm_grad`` (``W`` depends on ``x_i``
    and the norm ``n`` only): elementwise, ``n`` broadcast to ``x``."""
    np = array_ns(x, n, ord, axis, keepdims, vector)
    nd = np.ndim(x)
    axes = _norm_axes(x, ord, axis, vector)
    axes_t = tuple(range(nd)) if axes is None else \
        ((axes,) if isinstance(axes, (int, np.integer)) else tuple(axes))
    is_matrix = len(axes_t) == 2 and axes is not None and not vector
    nk = _keep(n, nd, axes, keepdims)
    safe = np.where(nk == 0, 1, nk)
    if ord is None or ord == "fro" or (ord == 2 and not is_matrix):
        return 1.0 / safe + 0 * x, -x / safe ** 2
    if ord in (1, -1, np.inf, -np.inf) or (ord == 0 and not is_matrix):
        z = np.zeros_like(x, dtype=_fdtype(x))
        return z, z
    if is_matrix and (ord == "nuc" or ord in (2, -2)):   # not elementwise: _norm_along
        return None, np.zeros_like(x, dtype=_fdtype(x))
    if is_matrix:
        raise NotImplementedError(f"srcgrad has no second derivative of the matrix norm "
                                  f"ord={ord!r}")
    p = float(ord)
    ax = np.abs(x)
    return ((p - 1) * ax ** (p - 2) * safe ** (1 - p),
            (1 - p) * np.sign(x) * ax ** (p - 1) * safe ** (-p))


def _norm_along(v, x, n, ord, axis, keepdims, vector):
    """``dW[v]``: the derivative of ``norm_grad``'s weights ``W`` along ``v`` (the norm's
    Hessian times ``v``, a symmetric map): ``dW/dx * v`` where ``W`` is elementwise."""
    dwx, _ = _norm_dweights(x, n, ord, axis, keepdims, vector)
    if dwx is not None:
        return dwx * v
    np = array_ns(v, x, n, ord, axis, keepdims, vector)
    nd = np.ndim(x)
    r, c = (a % nd for a in _norm_axes(x, ord, axis, vector))
    d = _spectral_along(np.moveaxis(v, (r, c), (-2, -1)), np.moveaxis(x, (r, c), (-2, -1)), ord)
    return np.moveaxis(d, (-2, -1), (r, c))


def _spectral_along(d, x, ord):
    """The derivative along ``d`` of the weights of the spectral (``ord=2``, ``-2``) and
    nuclear norms of the matrices ``x``, ``u_i v_i^T`` and ``U V^T`` (thin SVD ``x = U S
    V^T``, ``P = U^T d V``).  Nuclear: ``U A V^T`` with ``A = (P - P^T) / (s_i + s_j)``,
    plus the parts of ``d`` outside the ranges of ``U`` and ``V``; spectral: ``du_i v_i^T
    + u_i dv_i^T`` with ``u_j . du_i = (s_i P_ji + s_j P_ij) / (s_i^2 - s_j^2)`` and
    ``v_j . dv_i = (s_j P_ji + s_i P_ij) / (s_i^2 - s_j^2)``.  Defined where the
    singular values involved are distinct and nonzero (where the norm is twice
    differentiable)."""
    np = array_ns(d, x, ord)
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    v, ut = mT(vt), mT(u)
    p = ut @ d @ v
    d_off_u = d - u @ (ut @ d)                  # d outside the range of U
    d_off_v = d - (d @ v) @ vt                  # ... and of V
    if ord == "nuc":
        total = s[..., :, None] + s[..., None, :]
        a = (p - mT(p)) / np.where(total == 0, 1, total)
        inv = 1 / s
        return u @ a @ vt + (d_off_u @ v) * inv[..., None, :] @ vt + \
            u @ (inv[..., :, None] * (ut @ d_off_v))
    i = 0 if ord == 2 else s.shape[-1] - 1
    si, sj = s[..., i:i + 1], s
    gap = si ** 2 - sj ** 2
    gap = np.where(gap == 0, 1, gap)            # the j = i term: P's diagonal, dropped
    own = np.arange(s.shape[-1]) == i
    pji, pij = p[..., :, i], p[..., i, :]
    cu = np.where(own, 0, (si * pji + sj * pij) / gap)
    cv = np.where(own, 0, (sj * pji + si * pij) / gap)
    ui, vi = u[..., :, i:i + 1], v[..., :, i:i + 1]
    du = u @ cu[..., :, None] + (d_off_u @ vi) / si[..., None]
    dv = v @ cv[..., :, None] + (mT(d_off_v) @ ui) / si[..., None]
    return du @ mT(vi) + ui @ mT(dv)


def _norm_sum(v, x, ord, axis, keepdims, vector):
    np = array_ns(v, x, ord, axis, keepdims, vector)
    return np.sum(v, axis=_norm_axes(x, ord, axis, vector), keepdims=keepdims)


def norm_grad_x(g, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Adjoint (and tangent), for ``x``, of ``norm_grad(t, n, x, ...) = keep(t) W``."""
    np = array_ns(g, t, n, x, ord, axis, keepdims, vector)
    tk = _keep(t, np.ndim(x), _norm_axes(x, ord, axis, vector), keepdims)
    return _fit(_norm_along(g * tk, x, n, ord, axis, keepdims, vector), x)


def norm_grad_n(g, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Adjoint, for the norm ``n``, of ``norm_grad(t, n, x, ...)``."""
    np = array_ns(g, t, n, x, ord, axis, keepdims, vector)
    _, dwn = _norm_dweights(x, n, ord, axis, keepdims, vector)
    tk = _keep(t, np.ndim(x), _norm_axes(x, ord, axis, vector), keepdims)
    return _fit(_norm_sum(g * tk * dwn, x, ord, axis, keepdims, vector), n)


def norm_grad_dn(dn, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Tangent of ``norm_grad(t, n, x, ...)`` along ``dn``."""
    np = array_ns(dn, t, n, x, ord, axis, keepdims, vector)
    _, dwn = _norm_dweights(x, n, ord, axis, keepdims, vector)
    axes = _norm_axes(x, ord, axis, vector)
    return _keep(t, np.ndim(x), axes, keepdims) * _keep(dn, np.ndim(x), axes, keepdims) * dwn


def norm_jvp_x(dx, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Tangent of ``norm_jvp(t, n, x, ...) = sum(t W)`` along ``dx``."""
    return _norm_sum(t * _norm_along(dx, x, n, ord, axis, keepdims, vector), x, ord, axis,
                     keepdims, vector)


def norm_jvp_n(dn, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    _, dwn = _norm_dweights(x, n, ord, axis, keepdims, vector)
    return _norm_sum(t * dwn, x, ord, axis, keepdims, vector) * dn


# written in differentiable primitives: differentiated again through their source
deftransformable(norm_vjp, norm_tangent, var_vjp, var_tangent)
deftransformable(gradient_apply, std_scale, nanmean_grad, nanvar_grad, nanvar_jvp, cumprod_grad, cumprod_jvp,
                 _affine_scan, _exclusive_cumprod)

# -- rules ------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------
# Reductions: axis None / int / negative / tuple, keepdims True / False
# ---------------------------------------------------------------------------------------
_sum = defrule(np.sum, "a, axis=None, dtype=None, out=None, keepdims=False, initial=None",
               reduction="axis", linear_in=("a", "initial"),
               vjp=dict(a="sum_grad(g, a, axis, keepdims)"),
               jvp=dict(a="np.sum(da, axis=axis, keepdims=keepdims)"),
               torch_name="SumBackward0")
_mean = defrule(np.mean, "a, axis=None, dtype=None, out=None, keepdims=False", reduction="axis", linear_in="a",
                vjp=dict(a="mean_grad(g, a, axis, keepdims)"),
                jvp=dict(a="np.mean(da, axis=axis, keepdims=keepdims)"),
                torch_name="MeanBackward0")
# prod: partials from exclusive cumulative products, exact with zeros in the input
_prod = defrule(np.prod, "a, axis=None, dtype=None, out=None, keepdims=False", reduction="axis",
                vjp=dict(a="reduced_grad(g, a, axis, keepdims) * prod_partials(a, axis)"),
                jvp=dict(a="np.sum(da * prod_partials(a, axis), axis=axis, keepdims=keepdims)"),
                torch_name="ProdBackward0")
_MINMAX = dict(vjp=dict(a="minmax_grad(g, ans, a, axis, keepdims)"),
               jvp=dict(a="minmax_jvp(da, ans, a, axis, keepdims)"))
_max = defrule(np.max, "a, axis=None, out=None, keepdims=False", reduction="axis", torch_name="MaxBackward1",
               **_MINMAX)
_min = defrule(np.min, "a, axis=None, out=None, keepdims=False", reduction="axis", torch_name="MinBackward1",
               **_MINMAX)
defrule(np.amax, "a, axis=None, out=None, keepdims=False", reduction="axis", torch_name="AmaxBackward0", **_MINMAX)
defrule(np.amin, "a, axis=None, out=None, keepdims=False", reduction="axis", torch_name="AminBackward0", **_MINMAX)
defrule(np.ptp, "a, axis=None, out=None, keepdims=False", reduction="axis",
        vjp=dict(a="ptp_grad(g, a, axis, keepdims)"), jvp=dict(a="ptp_jvp(da, a, axis, keepdims)"))
_var = defrule(np.var, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", reduction="axis",
               vjp=dict(a="var_vjp(g, a, axis, ddof, keepdims)"),
               jvp=dict(a="var_tangent(da, a, axis, ddof, keepdims)"),
               torch_name="VarBackward0")
_std = defrule(np.std, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", reduction="axis",
               vjp=dict(a="var_vjp(std_scale(g, ans), a, axis, ddof, keepdims)"),
               jvp=dict(a="std_scale(var_tangent(da, a, axis, ddof, keepdims), ans)"),
               torch_name="StdBackward0")
defrule(np.nansum, "a, axis=None, dtype=None, out=None, keepdims=False", reduction="axis",
        vjp=dict(a="reduced_grad(g, a, axis, keepdims) * ~np.isnan(a)"),
        jvp=dict(a="np.sum(np.where(np.isnan(a), 0, da), axis=axis, keepdims=keepdims)"),
        torch_name="NansumBackward0")
defrule(np.nanmean, "a, axis=None, dtype=None, out=None, keepdims=False", reduction="axis",
        vjp=dict(a="nanmean_grad(g, a, axis, keepdims)"),
        jvp=dict(a="np.nanmean(np.where(np.isnan(a), np.nan, da), axis=axis, keepdims=keepdims)"))
defrule(np.linalg.norm, "x, ord=None, axis=None, keepdims=False", reduction="axis",
        vjp=dict(x="norm_vjp(g, ans, x, ord, axis, keepdims)"),
        jvp=dict(x="norm_tangent(dx, ans, x, ord, axis, keepdims)"),
        torch_name="LinalgVectorNormBackward0")
if hasattr(np.linalg, "vector_norm"):   # NumPy 2.0+
    defrule(np.linalg.vector_norm, "x, axis=None, keepdims=False, ord=2", reduction="axis",
            vjp=dict(x="norm_vjp(g, ans, x, ord, axis, keepdims, vector=True)"),
            jvp=dict(x="norm_tangent(dx, ans, x, ord, axis, keepdims, vector=True)"),
            torch_name="LinalgVectorNormBackward0")
    defrule(np.linalg.matrix_norm, "x, keepdims=False, ord='fro'",
            vjp=dict(x="norm_vjp(g, ans, x, ord, (-2, -1), keepdims)"),
            jvp=dict(x="norm_tangent(dx, ans, x, ord, (-2, -1), keepdims)"),
            torch_name="LinalgMatrixNormBackward0")
_cumsum = defrule(np.cumsum, "a, axis=None, dtype=None, out=None", linear_in="a",
                  vjp=dict(a="cumsum_grad(g, a, axis)"), jvp=dict(a="np.cumsum(da, axis=axis)"),
                  torch_name="CumsumBackward0")
_cumprod = defrule(np.cumprod, "a, axis=None, dtype=None, out=None",
                   vjp=dict(a="cumprod_grad(g, ans, a, axis)"),
                   jvp=dict(a="cumprod_jvp(da, ans, a, axis)"),
                   torch_name="CumprodBackward0")
defnograd(_gradient_plan, _ptp_weights, _real_norm, _real_var, _abs_norm, _spectral, _norm_axes)
defnograd(gradient_spacing)         # (a refusal: it raises)
deftransformable(ptp_grad, ptp_jvp, prod_partials_grad)   # (np.prod to any order)
defrule(np.gradient, "f, *varargs, axis=None, edge_order=1", linear_in="f",
        vjp=dict(f="gradient_apply(g, f, varargs, axis, edge_order, True)",
                 varargs="gradient_spacing(varargs)"),
        jvp=dict(f="gradient_apply(df, f, varargs, axis, edge_order)",
                 varargs="gradient_spacing(varargs)"))
defrule(np.diff, "a, n=1, axis=-1", linear_in="a",
        vjp=dict(a="diff_grad(g, a, n, axis)"), jvp=dict(a="np.diff(da, n, axis)"))
_trace = defrule(np.trace, "a, offset=0, axis1=0, axis2=1, dtype=None, out=None", linear_in="a",
                 vjp=dict(a="trace_grad(g, a, offset, axis1, axis2)"),
                 jvp=dict(a="np.trace(da, offset, axis1, axis2)"),
                 torch_name="TraceBackward0")


# reductions that skip NaNs (NaN entries get no gradient)
defrule(np.nanmax, "a, axis=None, out=None, keepdims=False", reduction="axis", **_MINMAX)
defrule(np.nanmin, "a, axis=None, out=None, keepdims=False", reduction="axis", **_MINMAX)
defrule(np.nanprod, "a, axis=None, dtype=None, out=None, keepdims=False", reduction="axis",
        vjp=dict(a="reduced_grad(g, a, axis, keepdims) * "
                   "prod_partials(np.where(np.isnan(a), 1, a), axis) * ~np.isnan(a)"),
        jvp=dict(a="np.sum(np.where(np.isnan(a), 0, da) * "
                   "prod_partials(np.where(np.isnan(a), 1, a), axis), axis=axis, "
                   "keepdims=keepdims)"))
defrule(np.nanvar, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", reduction="axis",
        vjp=dict(a="nanvar_grad(g, a, axis, ddof, keepdims)"),
        jvp=dict(a="nanvar_jvp(da, a, axis, ddof, keepdims)"))
defrule(np.nanstd, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", reduction="axis",
        vjp=dict(a="nanvar_grad(std_scale(g, ans), a, axis, ddof, keepdims)"),
        jvp=dict(a="std_scale(nanvar_jvp(da, a, axis, ddof, keepdims), ans)"))
defrule(np.nancumsum, "a, axis=None, dtype=None, out=None",
        vjp=dict(a="cumsum_grad(g, a, axis) * ~np.isnan(a)"),
        jvp=dict(a="np.cumsum(np.where(np.isnan(a), 0, da), axis=axis)"),
        torch_name="CumsumBackward0")
defrule(np.nancumprod, "a, axis=None, dtype=None, out=None",
        vjp=dict(a="cumprod_grad(g, ans, np.where(np.isnan(a), 1, a), axis) * ~np.isnan(a)"),
        jvp=dict(a="cumprod_jvp(np.where(np.isnan(a), 0, da), ans, "
                   "np.where(np.isnan(a), 1, a), axis)"),
        torch_name="CumprodBackward0")
if hasattr(np, "cumulative_sum"):       # NumPy 2.1+
    defrule(np.cumulative_sum, "x, /, *, axis=None, dtype=None, out=None, include_initial=False", linear_in="x",
            vjp=dict(x="cumsum_grad(cumulative_trim(g, x, axis, include_initial), x, axis)"),
            jvp=dict(x="np.cumulative_sum(dx, axis=axis, include_initial=include_initial)"),
            torch_name="CumsumBackward0")
    defrule(np.cumulative_prod, "x, /, *, axis=None, dtype=None, out=None, include_initial=False",
            vjp=dict(x="cumprod_grad(cumulative_trim(g, x, axis, include_initial), "
                       "cumulative_trim(ans, x, axis, include_initial), x, axis)"),
            jvp=dict(x="cumulative_pad(cumprod_jvp(dx, cumulative_trim(ans, x, axis, "
                       "include_initial), x, axis), axis, include_initial)"),
            torch_name="CumprodBackward0")

# statistics
defkernel(var_grad, "t, a, axis=None, ddof=0, keepdims=False",
             vjp=dict(t="var_jvp(g, a, axis, ddof, keepdims)",
                      a="var_grad_a(g, t, a, axis, ddof, keepdims)"),
             jvp=dict(t="var_grad(dt, a, axis, ddof, keepdims)",
                      a="var_grad(t, da, axis, ddof, keepdims)"))
defkernel(var_jvp, "t, a, axis=None, ddof=0, keepdims=False",
             vjp=dict(t="var_grad(g, a, axis, ddof, keepdims)",
                      a="var_grad(g, t, axis, ddof, keepdims)"),
             jvp=dict(t="var_jvp(dt, a, axis, ddof, keepdims)",
                      a="var_jvp(t, da, axis, ddof, keepdims)"))
defkernel(prod_partials, "a, axis=None",
             vjp=dict(a="prod_partials_grad(g, a, axis)"),
             jvp=dict(a="prod_partials_grad(da, a, axis)"))
_NORM_REST = "ord=None, axis=None, keepdims=False, vector=False"
_NR = "ord, axis, keepdims, vector"
defkernel(norm_grad, f"t, n, x, {_NORM_REST}",
             vjp=dict(t=f"norm_jvp(g, n, x, {_NR})", n=f"norm_grad_n(g, t, n, x, {_NR})",
                      x=f"norm_grad_x(g, t, n, x, {_NR})"),
             jvp=dict(t=f"norm_grad(dt, n, x, {_NR})", n=f"norm_grad_dn(dn, t, n, x, {_NR})",
                      x=f"norm_grad_x(dx, t, n, x, {_NR})"))
defkernel(norm_jvp, f"t, n, x, {_NORM_REST}",
             vjp=dict(t=f"norm_grad(g, n, x, {_NR})", n=f"norm_grad_n(t, g, n, x, {_NR})",
                      x=f"norm_grad_x(t, g, n, x, {_NR})"),
             jvp=dict(t=f"norm_jvp(dt, n, x, {_NR})", n=f"norm_jvp_n(dn, t, n, x, {_NR})",
                      x=f"norm_jvp_x(dx, t, n, x, {_NR})"))
deflinear(minmax_jvp, "t, extreme, a, axis=None, keepdims=False",
          "minmax_grad(g, extreme, a, axis, keepdims)", "minmax_jvp(dt, extreme, a, axis, keepdims)")
deflinear(cumsum_grad, "t, a, axis=None", "np.cumsum(g, axis=axis)", "cumsum_grad(dt, a, axis)")
deflinear(diff_grad, "t, a, n=1, axis=-1", "np.diff(g, n, axis)", "diff_grad(dt, a, n, axis)")
deflinear(trace_grad, "t, a, offset=0, axis1=0, axis2=1", "np.trace(g, offset, axis1, axis2)",
          "trace_grad(dt, a, offset, axis1, axis2)")
deflinear(cumulative_trim, "t, x, axis=None, include_initial=False",
          "cumulative_pad(g, axis, include_initial)", "cumulative_trim(dt, x, axis, include_initial)",
          constant=["x"])
deflinear(cumulative_pad, "t, axis=None, include_initial=False",
          "cumulative_trim(g, t, axis, include_initial)", "cumulative_pad(dt, axis, include_initial)")
