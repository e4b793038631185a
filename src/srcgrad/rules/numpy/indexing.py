"""Selection by index or mask: take, take_along_axis, sort, compress, extract,
select.  Adjoints scatter back, and repeated indices accumulate."""
import numpy as np

from ...runtime.backends import array_ns

from ..registry import declare, deflinear, defnograd, defmethod, defrule
from .conventions import _along, _fdtype, _fit, _like, _sum_to, fill_tangents

__all__ = ['take_grad', 'take_along_axis_grad', 'sort_jvp', 'compress_grad', 'extract_grad', 'npselect_grad', 'npselect_default_grad', 'npselect_jvp', 'npselect_default_jvp']


# -- kernels ----------------------------------------------------------------------------

def _wrap_index(indices, n, mode):
    np = array_ns(indices, n, mode)
    if mode == "clip":
        return np.clip(indices, 0, n - 1)
    if mode == "wrap":
        return np.mod(indices, n)
    return np.where(np.asarray(indices) < 0, np.asarray(indices) + n, indices)


def take_grad(g, a, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take``: scatter-add (repeated indices accumulate)."""
    np = array_ns(g, a, indices, axis, mode)
    x, ax = _along(a, axis)
    out = np.zeros_like(x, dtype=np.result_type(x, g, np.float32))
    idx = _wrap_index(indices, x.shape[ax], mode)
    np.add.at(out, (slice(None),) * ax + (idx,), g)
    return _fit(out, a)


def take_along_axis_grad(g, arr, indices, axis=-1):
    """Adjoint of ``np.take_along_axis``: scatter-add along ``axis``."""
    np = array_ns(g, arr, indices, axis)
    x, ax = _along(arr, axis)
    ax = ax % x.ndim
    out = np.zeros_like(x, dtype=np.result_type(x, g, np.float32))
    grid = list(np.ogrid[tuple(slice(n) for n in np.shape(g))])
    grid[ax] = indices
    np.add.at(out, tuple(grid), g)
    return _fit(out, arr)


def sort_jvp(da, a, axis=-1):
    """Tangent of ``np.sort``: ``da`` permuted as ``a`` was sorted."""
    np = array_ns(da, a, axis)
    if axis is None:
        return np.ravel(da)[np.argsort(a, axis=None)]
    return np.take_along_axis(da, np.argsort(a, axis=axis), axis=axis)


def compress_grad(g, condition, a, axis=None):
    """Adjoint of ``np.compress(condition, a, axis)``: ``g`` back at the kept positions."""
    np = array_ns(g, condition, a, axis)
    x, ax = _along(a, axis)
    keep = np.nonzero(np.asarray(condition))[0]
    out = np.zeros_like(x, dtype=np.result_type(x, g, np.float32))
    out[(slice(None),) * ax + (_like(keep, g),)] = g
    return _fit(out, a)


def extract_grad(g, condition, arr):
    """Adjoint of ``np.extract(condition, arr)`` (``ravel(arr)[ravel(condition) != 0]``)."""
    np = array_ns(g, condition, arr)
    keep = np.nonzero(np.ravel(condition))[0]
    out = np.zeros_like(np.ravel(arr), dtype=np.result_type(getattr(arr, "dtype", np.float64),
                                                            g, np.float32))
    out[keep] = g
    return _fit(np.reshape(out, np.shape(arr)), arr)


def _select_masks(condlist, ref):
    """Where each choice of ``np.select`` wins (the first true condition), and where the
    default does; ``ref`` has the result's shape (and backend)."""
    np = array_ns(condlist, ref)
    shape = np.shape(ref)
    taken = np.zeros_like(ref, dtype=bool) if hasattr(ref, "shape") else np.zeros((), bool)
    masks = []
    for c in condlist:
        m = np.broadcast_to(c if hasattr(c, "shape") else np.asarray(c), shape).astype(bool) & ~taken
        masks.append(m)
        taken = taken | m
    return masks, ~taken


def npselect_grad(g, condlist, choicelist):
    """Adjoint of ``np.select(condlist, choicelist, default)`` for the choices."""
    masks, _ = _select_masks(condlist, g)
    grads = [_sum_to(g * m, c) for m, c in zip(masks, choicelist)]
    return tuple(grads) if isinstance(choicelist, tuple) else grads


def npselect_default_grad(g, condlist, default):
    _, rest = _select_masks(condlist, g)
    return _sum_to(g * rest, default)


def npselect_jvp(dchoicelist, ans, condlist, choicelist):
    np = array_ns(dchoicelist, ans, condlist, choicelist)
    masks, _ = _select_masks(condlist, ans)
    out = np.zeros_like(ans, dtype=_fdtype(ans))
    for m, d in zip(masks, fill_tangents(dchoicelist, choicelist)):
        out = out + m * d
    return out.astype(_fdtype(ans), copy=False)


def npselect_default_jvp(ddefault, ans, condlist):
    np = array_ns(ddefault, ans, condlist)
    _, rest = _select_masks(condlist, ans)
    return rest * ddefault + np.zeros_like(ans, dtype=_fdtype(ans))


# -- rules ------------------------------------------------------------------------------
defrule(np.sort, "a, axis=-1, kind=None, order=None, stable=None",
        vjp=dict(a="np.reshape(sort_grad(g, a, axis), np.shape(a))"),
        jvp=dict(a="sort_jvp(da, a, axis)"), torch_name="SortBackward0")
_take = defrule(np.take, "a, indices, axis=None, out=None, mode='raise'", linear_in="a",
                vjp=dict(a="take_grad(g, a, indices, axis, mode)"),
                jvp=dict(a="np.take(da, indices, axis, mode=mode)"),
                torch_name="TakeBackward0")
defrule(np.take_along_axis, "arr, indices, axis=-1", linear_in="arr",
        vjp=dict(arr="take_along_axis_grad(g, arr, indices, axis)"),
        jvp=dict(arr="np.take_along_axis(darr, indices, axis)"), torch_name="GatherBackward0")

defrule(np.compress, "condition, a, axis=None, out=None", linear_in="a",
        vjp=dict(a="compress_grad(g, condition, a, axis)"),
        jvp=dict(a="np.compress(condition, da, axis)"), torch_name="IndexSelectBackward0")
defrule(np.extract, "condition, arr", linear_in="arr",
        vjp=dict(arr="extract_grad(g, condition, arr)"),
        jvp=dict(arr="np.extract(condition, darr)"), torch_name="MaskedSelectBackward0")
defrule(np.select, "condlist, choicelist, default=0",
        vjp=dict(choicelist="npselect_grad(g, condlist, choicelist)",
                 default="npselect_default_grad(g, condlist, default)"),
        jvp=dict(choicelist="npselect_jvp(dchoicelist, ans, condlist, choicelist)",
                 default="npselect_default_jvp(ddefault, ans, condlist)"))

defnograd(np.argpartition, np.nanargmax, np.nanargmin, np.isin, np.lexsort,
          np.linalg.matrix_rank, np.ndarray.argpartition)
defmethod("argpartition", np.ndarray.argpartition)

# -- rules of the kernels (grad of grad): each is linear in the cotangent t ------------
deflinear(take_grad, "t, a, indices, axis=None, mode='raise'", "np.take(g, indices, axis, mode=mode)",
          "take_grad(dt, a, indices, axis, mode)")
deflinear(take_along_axis_grad, "t, arr, indices, axis=-1", "np.take_along_axis(g, indices, axis)",
          "take_along_axis_grad(dt, arr, indices, axis)")
deflinear(sort_jvp, "t, a, axis=-1", "sort_grad(g, a, axis)", "sort_jvp(dt, a, axis)")
deflinear(compress_grad, "t, condition, a, axis=None", "np.compress(condition, g, axis)",
          "compress_grad(dt, condition, a, axis)", constant=["a"])
deflinear(extract_grad, "t, condition, arr", "np.extract(condition, g)",
          "extract_grad(dt, condition, arr)", constant=["arr"])
deflinear(npselect_grad, "t, condlist, choicelist", "npselect_jvp(g, t, condlist, choicelist)",
          "npselect_grad(dt, condlist, choicelist)", constant=["choicelist"])
deflinear(npselect_jvp, "t, out, condlist, choicelist", "npselect_grad(g, condlist, choicelist)",
          "npselect_jvp(dt, out, condlist, choicelist)", constant=["out", "choicelist"])
deflinear(npselect_default_grad, "t, condlist, default", "npselect_default_jvp(g, t, condlist)",
          "npselect_default_grad(dt, condlist, default)", constant=["default"])
deflinear(npselect_default_jvp, "t, out, condlist", "npselect_default_grad(g, condlist, t)",
          "npselect_default_jvp(dt, out, condlist)", constant=["out"])

# functions that write into an argument (the compiler treats the call as an in-place update)
declare(np.copyto, "dst, src, casting='same_kind', where=True", in_place="dst")
declare(np.put, "a, ind, v, mode='raise'", in_place="a")
declare(np.place, "arr, mask, vals", in_place="arr")
declare(np.putmask, "a, mask, values", in_place="a")
declare(np.fill_diagonal, "a, val, wrap=False", in_place="a")
declare(np.put_along_axis, "arr, indices, values, axis", in_place="arr")
