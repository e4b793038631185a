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
from .facets import ALL_PARAMS
from .registry import defkernel, defnograd, defrule

__all__ = ["fit", "zeros_tangent"]


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


def _linear(func, params, vjp, jvp, **facets):
    """A helper linear in its first parameter ``t``."""
    return defkernel(func, params, vjp=dict(t=vjp), jvp=dict(t=jvp), linear_in=("t",), **facets)


# -- broadcasting and reductions ---------------------------------------------------
_linear(rt.unbroadcast, "t, x", "fit(g, t)", "unbroadcast(dt, x)", shape_only="x")
_linear(rt.expand, "t, like", "fit(g, t)", "expand(dt, like)", shape_only="like")
_linear(fit, "t, like", "fit(g, t)", "fit(dt, like)", shape_only="like")
_linear(rt.reduced_grad, "t, x, axis=None, keepdims=False",
        "fit(np.sum(g, axis=axis, keepdims=keepdims), t)",
        "reduced_grad(dt, x, axis, keepdims)", shape_only="x")
if hasattr(rt, "sum_grad"):
    _linear(rt.sum_grad, "t, a, axis=None, keepdims=False",
            "fit(np.sum(g, axis=axis, keepdims=keepdims), t)", "sum_grad(dt, a, axis, keepdims)",
            shape_only="a")
if hasattr(rt, "mean_grad"):
    _linear(rt.mean_grad, "t, a, axis=None, keepdims=False",
            "fit(np.mean(g, axis=axis, keepdims=keepdims), t)", "mean_grad(dt, a, axis, keepdims)",
            shape_only="a")
_linear(rt.keep_axis, "t, x, axis, keepdims", "fit(np.reshape(g, np.shape(t)), t)",
        "keep_axis(dt, x, axis, keepdims)", shape_only="x")
_linear(rt.cast_like, "t, x", "cast_like(g, t)", "cast_like(dt, x)", shape_only="x")
# ``x += v``'s dtype kept: the cotangent passes as it is (the gradients come back in their
# inputs' dtypes at the end), the tangent takes x's dtype as the value does
_linear(rt.keep_dtype, "t, old", "g", "keep_dtype(dt, old)", shape_only="old")
_linear(rt.as_float, "t", "fit(g, t)", "as_float(dt)")
_linear(rt.moveaxis_back, "t, source, destination", "np.moveaxis(g, source, destination)",
        "moveaxis_back(dt, source, destination)")

# -- indexing ----------------------------------------------------------------------
_linear(rt.index_grad, "t, x, index", "take(g, index)", "index_grad(dt, x, index)",
        shape_only="x")
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
if hasattr(rt, "copies"):   # (copies of a backward sweep's saved lists that alias)
    defkernel(rt.copies, "*xs", vjp=dict(xs="tuple(g)"), jvp=dict(xs="copies(*dxs)"),
              linear_in=("xs",))
if hasattr(rt, "fill_like"):
    _linear(rt.fill_like, "t, x", "g", "fill_like(dt, x)")
if hasattr(rt, "indexable_grad"):   # identity, or zeros for a dict: self-adjoint
    # (for an object of the user's class: the items' gradients put at its fields, whose
    # transpose reads the items' tangents from the fields)
    _linear(rt.indexable_grad, "t, x", "indexable_tangent(g, x)", "indexable_grad(dt, x)")
    _linear(rt.indexable_tangent, "t, x", "indexable_grad(g, x)", "indexable_tangent(dt, x)")
if hasattr(rt, "old_item"):
    _linear(rt.old_item, "t, key", "index_grad(g, t, key)", "old_item(dt, key)")
# (fill_like: a symbolic zero adjoint, None, has the tangent 0.0, and a sum that starts
# from it has the other term's structure: its tangent must too)
defrule(rt.add_grads, "a, b", name="ad.add_grads",
        vjp=dict(a="g", b="g"), jvp=dict(a="fill_like(da, ans)", b="fill_like(db, ans)"))
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

# -- loops: ``for v in x`` visits ad.indexable(x) (a dict's keys, a list's or an array's items)
defrule(rt.indexable, "x", name="ad.indexable", vjp=dict(x="indexable_grad(g, x)"),
        jvp=dict(x="indexable_tangent(dx, x)"),  # (a dict's keys: zero tangents)
        view_of="x")
defnograd(rt.keys_of, rt.detach, rt.data_of, names=["ad.keys_of", "ad.detach", "ad.data_of"])
defnograd(rt.writing, rt.getter, rt.operator_method, rt.numeric_operand,   # (function values)
          rt.operator_for,
          names=["ad.writing", "ad.getter", "ad.operator_method", "ad.numeric_operand",
                 "ad.operator_for"])

# -- constants: seeds, zeros, shapes, masks ----------------------------------------
defnograd(rt.seed, rt.array_ns, names=["ad.seed", "ad.array_ns"])
defnograd(rt.float_tape, names=["ad.float_tape"], container=True)
defnograd(rt.filled_tape, names=["ad.filled_tape"], container=True)
# positions that order a list (sorted / max / min with key=): integers, no gradient
defnograd(rt.order_by, rt.index_of_max, rt.index_of_min,
          names=["ad.order_by", "ad.index_of_max", "ad.index_of_min"])
defnograd(rt.zeros_like, zeros_tangent, rt.ones_like_grad, rt.shape_of, shape_only=ALL_PARAMS,
          names=["ad.zeros_like", "ad.zeros_tangent", "ad.ones_like_grad", "ad.shape_of"])
if hasattr(rt, "alias_guard"):   # a check, no value
    defnograd(rt.alias_guard, names=["ad.alias_guard"])
