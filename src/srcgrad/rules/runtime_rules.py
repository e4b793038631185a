"""Derivatives of the runtime helpers that generated code calls.

Generated code is ordinary Python, so srcgrad can transform it again: ``grad``
of ``grad``, ``jvp`` of ``grad``, a third derivative.  The generated code calls
the helpers of :mod:`srcgrad.runtime` (``ad.unbroadcast``, ``ad.reduced_grad``
...), and the derivative templates of these rules call helpers in turn, so the
helpers below differentiate among themselves: the set is closed.

Almost every helper is *linear* in its first argument (a cotangent or a
tangent), with the other arguments used only for their shapes; its reverse
rule is then the transposed map (``unbroadcast`` <-> ``fit``, ``take`` <->
``index_grad``) and its forward rule the helper itself applied to the tangent.
The bilinear ones (``matmul_grad_x``: ``g`` and ``y``) have a term for each.

Parameter names here never clash with the template names ``g`` (the
cotangent) and ``ans`` (the result): the first argument is ``t``.
"""
import numpy as np

from .. import runtime as rt
from . import helpers as hp
from .table import defnograd, defrule


def fit(t, like):
    """``t`` summed or broadcast to ``like``'s shape: the adjoint of both
    un-broadcasting and broadcasting (a Python scalar ``like`` gets a scalar)."""
    ts, ls = np.shape(t), np.shape(like)
    if ts == ls:
        return t
    try:
        if np.broadcast_shapes(ts, ls) == ls:
            return np.broadcast_to(t, ls)
    except ValueError:
        pass
    return rt.unbroadcast(t, like)


def zeros_tangent(x):
    """A zero tangent for ``x`` (forward mode): ``zeros_like(x)``, and for a
    ``range`` (loop steps on a record stack) zeros that can be indexed like it."""
    if isinstance(x, range):
        return np.zeros(len(x))
    return rt.zeros_like(x)


# runtime helpers like the others: generated code and templates name them bare
for _f in (fit, zeros_tangent):
    setattr(rt, _f.__name__, _f)
    if _f.__name__ not in rt.__all__:
        rt.__all__.append(_f.__name__)


def _linear(func, params, vjp, jvp):
    """A helper linear in its first parameter ``t``."""
    return defrule(func, params, name=f"ad.{func.__name__}", vjp=dict(t=vjp), jvp=dict(t=jvp))


# -- broadcasting and reductions ---------------------------------------------------
_linear(rt.unbroadcast, "t, x", "fit(g, t)", "unbroadcast(dt, x)")
_linear(rt.expand, "t, like", "fit(g, t)", "expand(dt, like)")
_linear(fit, "t, like", "fit(g, t)", "fit(dt, like)")
_linear(rt.reduced_grad, "t, x, axis=None, keepdims=False",
        "fit(np.sum(g, axis=axis, keepdims=keepdims), t)",
        "reduced_grad(dt, x, axis, keepdims)")
if hasattr(rt, "sum_grad"):
    _linear(rt.sum_grad, "t, a, axis=None, keepdims=False",
            "fit(np.sum(g, axis=axis, keepdims=keepdims), t)", "sum_grad(dt, a, axis, keepdims)")
if hasattr(rt, "mean_grad"):
    _linear(rt.mean_grad, "t, a, axis=None, keepdims=False",
            "fit(np.mean(g, axis=axis, keepdims=keepdims), t)", "mean_grad(dt, a, axis, keepdims)")
_linear(rt.keep_axis, "t, x, axis, keepdims", "fit(np.reshape(g, np.shape(t)), t)",
        "keep_axis(dt, x, axis, keepdims)")
_linear(rt.cast_like, "t, x", "cast_like(g, t)", "cast_like(dt, x)")
_linear(rt.as_float, "t", "fit(g, t)", "as_float(dt)")
_linear(rt.moveaxis_back, "t, source, destination", "np.moveaxis(g, source, destination)",
        "moveaxis_back(dt, source, destination)")

# -- indexing ----------------------------------------------------------------------
_linear(rt.index_grad, "t, x, index", "take(g, index)", "index_grad(dt, x, index)")
_linear(rt.take, "t, index", "index_grad(g, t, index)", "take(dt, index)")
_linear(rt.zero_index, "t, index", "zero_index(g, index)", "zero_index(dt, index)")
if hasattr(rt, "item_grad"):   # a dict literal's item adjoint (zeros for a key nobody read)
    _linear(rt.item_grad, "t, key, x", "index_grad(g, t, key)", "item_grad(dt, key, x)")
if hasattr(rt, "assign_grad"):  # y[index] = v: v's adjoint; its transpose scatters back
    _linear(rt.assign_grad, "t, index, v", "setitem(zeros_like(t), index, fit(g, take(t, index)))",
            "assign_grad(dt, index, v)")
defrule(rt.setitem, "x, index, v", name="ad.setitem",
        vjp=dict(x="zero_index(g, index)", v="fit(take(g, index), v)"),
        jvp=dict(x="zero_index(dx, index)", v="setitem(zeros_like(ans), index, dv)"))

# -- values and containers ---------------------------------------------------------
_linear(rt.copy, "t", "g", "copy(dt)")
if hasattr(rt, "fill_like"):
    _linear(rt.fill_like, "t, x", "g", "fill_like(dt, x)")
if hasattr(rt, "indexable_grad"):   # identity, or zeros for a dict: self-adjoint
    _linear(rt.indexable_grad, "t, x", "indexable_grad(g, x)", "indexable_grad(dt, x)")
if hasattr(rt, "old_item"):
    _linear(rt.old_item, "t, key", "index_grad(g, t, key)", "old_item(dt, key)")
defrule(rt.add_grads, "a, b", name="ad.add_grads",
        vjp=dict(a="g", b="g"), jvp=dict(a="da", b="db"))
if hasattr(rt, "add_at"):
    # d[index] += v on an adjoint the generated code owns (returned, and assigned back
    # to d's name): the tangent adds index_grad(dv) with add_grads (forward.py), never
    # in place, since a tangent may be shared; a dict adjoint may gain the key here, so
    # the tangent of d is filled out to the result's keys
    defrule(rt.add_at, "d, index, v", name="ad.add_at",
            vjp=dict(d="g", v="take(g, index)"),
            jvp=dict(d="fill_like(dd, ans)", v="index_grad(dv, ans, index)"))

# -- adjoints of reductions with a selection mask (linear in the cotangent) --------
_linear(rt.minmax_grad, "t, extreme, x, axis=None, keepdims=False",
        "minmax_jvp(g, extreme, x, axis, keepdims)",
        "minmax_grad(dt, extreme, x, axis, keepdims)")
_linear(rt.sort_grad, "t, x, axis=-1", "np.take_along_axis(g, np.argsort(x, axis=axis), axis)",
        "sort_grad(dt, x, axis)")

# -- matrix products: bilinear in the cotangent and the other operand --------------
defrule(rt.matmul_grad_x, "t, x, y", name="ad.matmul_grad_x",
        vjp=dict(t="g @ y", y="matmul_grad_y(t, g, y)"),
        jvp=dict(t="matmul_grad_x(dt, x, y)", y="matmul_grad_x(t, x, dy)"))
defrule(rt.matmul_grad_y, "t, x, y", name="ad.matmul_grad_y",
        vjp=dict(t="x @ g", x="matmul_grad_x(t, x, g)"),
        jvp=dict(t="matmul_grad_y(dt, x, y)", x="matmul_grad_y(t, dx, y)"))

# -- helpers of the NumPy table that common reverse rules call ---------------------
# (looked up by name: a helper that is not there has no rule, and code calling it
# raises NonDifferentiableError when transformed again)
def _helper(name):
    return getattr(hp, name, None)


if _helper("mT"):
    defrule(hp.mT, "x", name="ad.mT", vjp=dict(x="mT(g)"), jvp=dict(x="mT(dx)"))
if _helper("minmax_jvp"):
    _linear(hp.minmax_jvp, "t, extreme, a, axis=None, keepdims=False",
            "minmax_grad(g, extreme, a, axis, keepdims)",
            "minmax_jvp(dt, extreme, a, axis, keepdims)")
if _helper("dot_grad"):
    # which=0: the adjoint for a (linear in t and b); which=1: for b (in t and a)
    defrule(hp.dot_grad, "t, a, b, which=0", name="ad.dot_grad",
            vjp=dict(t="np.dot(g, b) if which == 0 else np.dot(a, g)",
                     a="zeros_like(a) if which == 0 else dot_grad(t, a, g, 0)",
                     b="dot_grad(t, g, b, 1) if which == 0 else zeros_like(b)"),
            jvp=dict(t="dot_grad(dt, a, b, which)",
                     a="zeros_like(ans) if which == 0 else dot_grad(t, da, b, 1)",
                     b="dot_grad(t, a, db, 0) if which == 0 else zeros_like(ans)"))

# The adjoints of linear NumPy functions (transpose, concatenate, take, pad ...) are
# linear in the cotangent: their own adjoint is the function itself.
_LINEAR_ADJOINTS = {
    # helper: (params, its adjoint applied to g, its tangent applied to dt)
    "transpose_grad": ("t, axes=None", "np.transpose(g, axes)", "transpose_grad(dt, axes)"),
    "join_grad": ("t, arrays, axis=0, how='concatenate'", "join_jvp(g, arrays, axis, how)",
                  "join_grad(dt, arrays, axis, how)"),
    "join_jvp": ("t, arrays, axis=0, how='concatenate'", "join_grad(g, arrays, axis, how)",
                 "join_jvp(dt, arrays, axis, how)"),
    "split_grad": ("t, ary, indices_or_sections, axis=0",
                   "np.array_split(g, indices_or_sections, axis)",
                   "split_grad(dt, ary, indices_or_sections, axis)"),
    "ravel_grad": ("t, a, order='C'", "ravel_jvp(g, a, order)", "ravel_grad(dt, a, order)"),
    "ravel_jvp": ("t, a, order='C'", "ravel_grad(g, a, order)", "ravel_jvp(dt, a, order)"),
    "roll_grad": ("t, shift, axis=None", "np.roll(g, shift, axis)", "roll_grad(dt, shift, axis)"),
    "cumsum_grad": ("t, a, axis=None", "np.cumsum(g, axis=axis)", "cumsum_grad(dt, a, axis)"),
    "diff_grad": ("t, a, n=1, axis=-1", "np.diff(g, n, axis)", "diff_grad(dt, a, n, axis)"),
    "take_grad": ("t, a, indices, axis=None, mode='raise'", "np.take(g, indices, axis, mode=mode)",
                  "take_grad(dt, a, indices, axis, mode)"),
    "take_along_axis_grad": ("t, arr, indices, axis=-1", "np.take_along_axis(g, indices, axis)",
                             "take_along_axis_grad(dt, arr, indices, axis)"),
    "diag_grad": ("t, v, k=0", "np.diag(g, k)", "diag_grad(dt, v, k)"),
    "diagonal_grad": ("t, a, offset=0, axis1=0, axis2=1", "np.diagonal(g, offset, axis1, axis2)",
                      "diagonal_grad(dt, a, offset, axis1, axis2)"),
    "trace_grad": ("t, a, offset=0, axis1=0, axis2=1", "np.trace(g, offset, axis1, axis2)",
                   "trace_grad(dt, a, offset, axis1, axis2)"),
    "tile_grad": ("t, A, reps", "np.tile(g, reps)", "tile_grad(dt, A, reps)"),
    "repeat_grad": ("t, a, repeats, axis=None", "np.repeat(g, repeats, axis)",
                    "repeat_grad(dt, a, repeats, axis)"),
    "pad_grad": ("t, array, pad_width, mode='constant'", "np.pad(g, pad_width, mode)",
                 "pad_grad(dt, array, pad_width, mode)"),
    "sort_jvp": ("t, a, axis=-1", "sort_grad(g, a, axis)", "sort_jvp(dt, a, axis)"),
}
for _name, (_params, _vjp, _jvp) in _LINEAR_ADJOINTS.items():
    if _helper(_name):
        _linear(_helper(_name), _params, _vjp, _jvp)

# -- constants: seeds, zeros, shapes, masks ----------------------------------------
defnograd(rt.seed, rt.zeros_like, zeros_tangent, rt.ones_like_grad, rt.shape_of, rt.array_ns,
          names=["ad.seed", "ad.zeros_like", "ad.zeros_tangent", "ad.ones_like_grad",
                 "ad.shape_of", "ad.array_ns"])
if hasattr(rt, "alias_guard"):   # a check, no value
    defnograd(rt.alias_guard, names=["ad.alias_guard"])
for _name in ("balanced_eq", "clip_mask", "sinc_deriv_mask"):
    if _helper(_name):
        defnograd(_helper(_name), names=[f"ad.{_name}"])
