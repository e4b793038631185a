"""Order statistics and weighted averages: median, quantile, percentile, partition,
average.  The gradient of an order statistic goes to the entries it is read from.
"""
import numpy as np

from ...runtime.backends import array_ns

from ..registry import defkernel, defnograd, defrule, deftransformable
from .conventions import _axes, _fdtype, _fit, _flat_axes, _keep, _like

__all__ = ['permuted_grad', 'permuted_jvp', 'quantile_grad', 'quantile_jvp', 'quantile_q_grad', 'quantile_q_jvp', 'average_grad', 'average_jvp']


# -- kernels ----------------------------------------------------------------------------

def _matched_order(ans, a, axis):
    """``(src, dst)``: ``ans[..., dst[k]] == a[..., src[k]]`` along the (last) axis.

    ``ans`` is a permutation of ``a`` along ``axis`` (np.partition, np.sort); sorting
    both the same stable way pairs every output slot with one input entry, ties
    included (a bijection, so no entry gets two cotangents)."""
    np = array_ns(ans, a, axis)
    return np.argsort(a, axis=-1, kind="stable"), np.argsort(ans, axis=-1, kind="stable")


def _along_last(x, axis):
    np = array_ns(x, axis)
    if axis is None:
        return np.ravel(x), 0
    return np.moveaxis(x, axis, -1), axis


def permuted_grad(g, ans, a, axis=-1):
    """Adjoint of a function whose result is ``a`` permuted along ``axis`` (np.partition)."""
    np = array_ns(g, ans, a, axis)
    x, ax = _along_last(a, axis)
    y, _ = _along_last(ans, axis)
    gm, _ = _along_last(g, axis)
    src, dst = _matched_order(y, x, ax)
    out = np.zeros_like(x, dtype=np.result_type(x, gm, np.float32))
    np.put_along_axis(out, src, np.take_along_axis(gm, dst, axis=-1), axis=-1)
    out = np.ravel(out) if axis is None else np.moveaxis(out, -1, axis)
    return _fit(out, a)


def permuted_jvp(da, ans, a, axis=-1):
    np = array_ns(da, ans, a, axis)
    x, ax = _along_last(a, axis)
    y, _ = _along_last(ans, axis)
    d, _ = _along_last(da, axis)
    src, dst = _matched_order(y, x, ax)
    out = np.zeros_like(y, dtype=np.result_type(d, np.float32))
    np.put_along_axis(out, dst, np.take_along_axis(d, src, axis=-1), axis=-1)
    return out if axis is None else np.moveaxis(out, -1, axis)


def _quantile_weights(n, q, method):
    """``(lo, hi, frac)``: quantile ``q`` of ``n`` sorted values is
    ``(1 - frac) * sorted[lo] + frac * sorted[hi]`` (NumPy's methods)."""
    np = array_ns(n, q, method)
    pos = np.asarray(q, dtype=np.float64) * (n - 1)
    if method == "linear":
        lo = np.floor(pos)
        frac = pos - lo
    elif method == "lower":
        lo, frac = np.floor(pos), np.zeros_like(pos)
    elif method == "higher":
        lo, frac = np.ceil(pos), np.zeros_like(pos)
    elif method == "nearest":
        lo, frac = np.around(pos), np.zeros_like(pos)
    elif method == "midpoint":
        lo = np.floor(pos)
        frac = np.where(pos % 1 == 0, 0.0, 0.5)
    else:
        raise NotImplementedError(f"np.quantile: no derivative for method={method!r}")
    lo = np.clip(lo.astype(np.intp), 0, n - 1)
    return lo, np.minimum(lo + 1, n - 1), frac


def _quantile_setup(a, q, axis, method):
    np = array_ns(a, q, axis, method)
    flat, undo = _flat_axes(a, axis)
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    lo, hi, frac = _quantile_weights(n, q, method)
    return flat, undo, n, order, lo, hi, frac


def _flat_layout(a, axis):
    """``(perm, shape)``: ``np.reshape(np.transpose(a, perm), shape)`` is ``a`` with the
    ``axis`` axes moved last and merged (as :func:`_flat_axes`)."""
    np = array_ns(a, axis)
    nd = np.ndim(a)
    axes = _axes(axis, nd) if nd else ()
    rest = [i for i in range(nd) if i not in axes]
    return rest + list(axes), tuple(np.shape(a)[i] for i in rest) + (-1,)


def _quantile_order(a, q, axis, method):
    """``(n, order, lo, hi)`` of :func:`_quantile_setup`: piecewise constant in a and q."""
    flat, undo, n, order, lo, hi, frac = _quantile_setup(a, q, axis, method)
    return n, order, lo, hi


def quantile_grad(g, a, q, axis=None, keepdims=False, method="linear", scale=1.0):
    """Adjoint of ``np.quantile(a, q * scale, axis, keepdims=keepdims, method=method)``
    (np.median: q = 0.5; np.percentile: scale = 1/100) with respect to ``a``."""
    np = array_ns(g, a, q, axis, keepdims, method, scale)
    flat, undo, n, order, lo, hi, frac = _quantile_setup(a, np.asarray(q) * scale, axis, method)
    lead = flat.shape[:-1]
    nq = lo.size
    gq = np.reshape(g, (nq,) + lead)                    # q's axes first, as NumPy puts them
    cols = np.arange(n)
    w = ((cols == np.reshape(lo, (-1, 1))) * np.reshape(1 - frac, (-1, 1))
         + (cols == np.reshape(hi, (-1, 1))) * np.reshape(frac, (-1, 1)))       # (nq, n)
    w = _like(np.reshape(w, (nq,) + (1,) * len(lead) + (n,)).astype(_fdtype(g)), g)
    g_sorted = np.sum(gq[..., None] * w, axis=0)         # lead + (n,)
    out = np.zeros_like(flat, dtype=np.result_type(flat, g_sorted, np.float32))
    np.put_along_axis(out, order, g_sorted, axis=-1)
    return _fit(undo(out), a)


def quantile_jvp(da, ans, a, q, axis=None, keepdims=False, method="linear", scale=1.0):
    np = array_ns(da, ans, a, q, axis, keepdims, method, scale)
    flat, undo, n, order, lo, hi, frac = _quantile_setup(a, np.asarray(q) * scale, axis, method)
    d, _ = _flat_axes(da, axis)
    d_sorted = np.take_along_axis(d, order, axis=-1)
    lo, hi = _like(np.ravel(lo), d), _like(np.ravel(hi), d)
    wlo, whi = (_like(np.ravel(w).astype(_fdtype(da)), d) for w in (1 - frac, frac))
    t = np.take(d_sorted, lo, axis=-1) * wlo + np.take(d_sorted, hi, axis=-1) * whi
    return np.reshape(np.moveaxis(t, -1, 0), np.shape(ans)).astype(_fdtype(da), copy=False)


def quantile_q_grad(g, a, q, axis=None, keepdims=False, method="linear", scale=1.0):
    """Adjoint of ``np.quantile`` with respect to ``q``: the slope between the two
    sorted values it interpolates (zero for the methods that pick one value)."""
    np = array_ns(g, a, q, axis, keepdims, method, scale)
    if method != "linear":
        return _fit(np.zeros(np.shape(q), dtype=_fdtype(q)), q)
    n, order, lo, hi = _quantile_order(a, np.asarray(q) * scale, axis, method)
    perm, shape = _flat_layout(a, axis)
    flat = np.reshape(np.transpose(a, perm), shape)
    s = np.take_along_axis(flat, order, axis=-1)
    slope = (np.take(s, _like(np.ravel(hi), s), axis=-1)
             - np.take(s, _like(np.ravel(lo), s), axis=-1)) * (n - 1)
    gq = np.moveaxis(np.reshape(g, (lo.size,) + flat.shape[:-1]), 0, -1)         # lead + (nq,)
    total = np.sum(np.reshape(gq * slope, (-1, lo.size)), axis=0) * scale
    return _fit(np.reshape(total, np.shape(q)).astype(_fdtype(q), copy=False), q)


def quantile_q_jvp(dq, ans, a, q, axis=None, keepdims=False, method="linear", scale=1.0):
    """Tangent of ``np.quantile`` along ``dq``: the slope between the two sorted values
    each quantile interpolates, times ``dq`` (written in functions with rules)."""
    np = array_ns(dq, ans, a, q, axis, keepdims, method, scale)
    if method != "linear":
        return np.zeros_like(ans, dtype=_fdtype(ans))
    n, order, lo, hi = _quantile_order(a, np.asarray(q) * scale, axis, method)
    perm, shape = _flat_layout(a, axis)
    flat = np.reshape(np.transpose(a, perm), shape)
    s = np.take_along_axis(flat, order, axis=-1)
    slope = (np.take(s, _like(np.ravel(hi), s), axis=-1)
             - np.take(s, _like(np.ravel(lo), s), axis=-1)) * (n - 1)
    t = slope * np.ravel(np.asarray(dq) * scale)
    return np.reshape(np.moveaxis(t, -1, 0), np.shape(ans))


def _average_parts(a, axis, weights):
    """Weights broadcast to ``a`` (a 1-D ``weights`` lies along ``axis``), their sum."""
    np = array_ns(a, axis, weights)
    if weights is None:
        w = np.ones_like(a, dtype=_fdtype(a))
    else:
        w = weights if hasattr(weights, "shape") else np.asarray(weights)
        if w.shape != np.shape(a):
            shape = [1] * np.ndim(a)
            shape[axis] = -1
            w = np.reshape(w, shape)
        w = np.broadcast_to(w, np.shape(a))
    return w, np.sum(w, axis=axis, keepdims=True)


def _other_axes(ndim, axis):
    return tuple(i for i in range(ndim) if i != axis % ndim)


def average_grad(g, a, axis=None, weights=None, keepdims=False, which=0):
    """Adjoint of ``np.average(a, axis, weights, keepdims=keepdims)`` for ``a`` (which=0)
    or ``weights`` (which=1)."""
    np = array_ns(g, a, axis, weights, keepdims, which)
    w, sw = _average_parts(a, axis, weights)
    gk = _keep(g, np.ndim(a), axis, keepdims)
    if which == 0:
        return _fit(gk * w / sw, a)
    avg = np.sum(a * w, axis=axis, keepdims=True) / sw
    gw = gk * (a - avg) / sw                             # a's shape
    if np.shape(weights) != np.shape(a):                 # 1-D weights along axis
        gw = np.sum(gw, axis=_other_axes(np.ndim(a), axis))
    return _fit(np.reshape(gw, np.shape(weights)), weights)


def average_jvp(dweights, a, axis=None, weights=None, keepdims=False):
    np = array_ns(dweights, a, axis, weights, keepdims)
    w, sw = _average_parts(a, axis, weights)
    dw, _ = _average_parts(a, axis, dweights)
    avg = np.sum(a * w, axis=axis, keepdims=True) / sw
    return np.sum((a - avg) * dw, axis=axis, keepdims=keepdims) / \
        (sw if keepdims else np.sum(w, axis=axis))


# written in differentiable primitives: differentiated again through their source
deftransformable(average_grad, average_jvp, _average_parts, quantile_q_grad, quantile_q_jvp)
defnograd(_other_axes, _flat_layout, _quantile_order)

# -- rules ------------------------------------------------------------------------------
# ``returned=`` is left out: np.average(..., returned=True) does not bind, and is reported
defrule(np.average, "a, axis=None, weights=None, *, keepdims=False",
        vjp=dict(a="average_grad(g, a, axis, weights, keepdims, 0)",
                 weights="average_grad(g, a, axis, weights, keepdims, 1)"),
        jvp=dict(a="np.average(da, axis, weights, keepdims=keepdims)",
                 weights="average_jvp(dweights, a, axis, weights, keepdims)"))
# order statistics: the gradient goes to the entries the result is read from
defrule(np.median, "a, axis=None, out=None, overwrite_input=False, keepdims=False",
        vjp=dict(a="quantile_grad(g, a, 0.5, axis, keepdims)"),
        jvp=dict(a="quantile_jvp(da, ans, a, 0.5, axis, keepdims)"), torch_name="MedianBackward0")
for _f, _scale in ((np.quantile, "1.0"), (np.percentile, "0.01")):
    # ``weights=`` (for method="inverted_cdf") is left out: a call with it does not bind
    defrule(_f, "a, q, axis=None, out=None, overwrite_input=False, method='linear', "
                "keepdims=False",
            vjp=dict(a=f"quantile_grad(g, a, q, axis, keepdims, method, {_scale})",
                     q=f"quantile_q_grad(g, a, q, axis, keepdims, method, {_scale})"),
            jvp=dict(a=f"quantile_jvp(da, ans, a, q, axis, keepdims, method, {_scale})",
                     q=f"quantile_q_jvp(dq, ans, a, q, axis, keepdims, method, {_scale})"))
defrule(np.partition, "a, kth, axis=-1, kind='introselect', order=None",
        vjp=dict(a="permuted_grad(g, ans, a, axis)"), jvp=dict(a="permuted_jvp(da, ans, a, axis)"))

# order statistics: linear in t; the order of a is piecewise constant (no gradient)
_QR = "axis=None, keepdims=False, method='linear', scale=1.0"
_QA = "axis, keepdims, method, scale"
defkernel(quantile_grad, f"t, a, q, {_QR}",
             vjp=dict(t=f"quantile_jvp(g, t, a, q, {_QA})", a="zeros_like(a)",
                      q="no_second_derivative('np.quantile with respect to q')"),
             jvp=dict(t=f"quantile_grad(dt, a, q, {_QA})", a="zeros_like(ans)",
                      q="no_second_derivative('np.quantile with respect to q')"))
defkernel(quantile_jvp, f"t, out, a, q, {_QR}",
             vjp=dict(t=f"quantile_grad(g, a, q, {_QA})", out="zeros_like(out)",
                      a="zeros_like(a)", q="no_second_derivative('np.quantile with respect to q')"),
             jvp=dict(t=f"quantile_jvp(dt, out, a, q, {_QA})", out="zeros_like(ans)",
                      a="zeros_like(ans)", q="no_second_derivative('np.quantile with respect to q')"))
defkernel(permuted_grad, "t, out, a, axis=-1",
             vjp=dict(t="permuted_jvp(g, out, a, axis)", out="zeros_like(out)", a="zeros_like(a)"),
             jvp=dict(t="permuted_grad(dt, out, a, axis)", out="zeros_like(ans)",
                      a="zeros_like(ans)"))
defkernel(permuted_jvp, "t, out, a, axis=-1",
             vjp=dict(t="permuted_grad(g, out, a, axis)", out="zeros_like(out)", a="zeros_like(a)"),
             jvp=dict(t="permuted_jvp(dt, out, a, axis)", out="zeros_like(ans)",
                      a="zeros_like(ans)"))
