"""Joining and splitting: concatenate, stack and its variants, append, split and
its variants, unstack, meshgrid, and ``np.r_[...]`` / ``np.c_[...]`` (:func:`index_join`)."""
import numpy as np

from ...runtime.backends import array_ns

from ..registry import defkernel, deflinear, defrule, deftransformable
from .conventions import _fit, _zeros, fill_tangents

__all__ = ['join_grad', 'join_jvp', 'split_grad', 'split_jvp', 'append_grad', 'meshgrid_grad',
           'meshgrid_jvp', 'index_join', 'index_join_grad', 'index_join_jvp']


# -- kernels ----------------------------------------------------------------------------

_PROMOTE = {0: lambda x: x, 1: np.atleast_1d, 2: np.atleast_2d, 3: np.atleast_3d,
            "column": lambda x: np.reshape(x, (-1, 1)) if np.ndim(x) < 2 else x}


def _join_axis(arrays, how):
    np = array_ns(arrays, how)
    if how == "hstack":
        return 0 if all(np.ndim(x) <= 1 for x in arrays) else 1
    return {"vstack": 0, "dstack": 2, "column_stack": 1}[how]


def join_grad(g, arrays, axis=0, how="concatenate"):
    """Adjoint of joining ``arrays``: concatenate (axis None: flattened), stack, hstack,
    vstack, dstack, column_stack.  A list (or tuple) of cotangents, one per array."""
    np = array_ns(g, arrays, axis, how)
    if how == "stack":
        parts = [np.take(g, i, axis=axis) for i in range(len(arrays))]
    else:
        if how == "concatenate":
            promoted = [np.ravel(x) if axis is None else x for x in arrays]
            ax = 0 if axis is None else axis
        else:
            fn = _PROMOTE[{"hstack": 1, "vstack": 2, "dstack": 3, "column_stack": "column"}[how]]
            promoted = [fn(x) for x in arrays]
            ax = _join_axis(arrays, how)
        bounds = np.cumsum([np.shape(x)[ax] for x in promoted])[:-1]
        parts = np.split(g, [int(b) for b in bounds], axis=ax)
    grads = [_fit(p, x) for p, x in zip(parts, arrays)]
    if isinstance(arrays, tuple):
        return tuple(grads)
    if isinstance(arrays, list):
        return grads
    return np.stack(grads)    # one array, joined along its first axis: an array again


def join_jvp(darrays, arrays, axis=0, how="concatenate"):
    """Tangent of a join: the same join of the tangents (zeros where None)."""
    np = array_ns(darrays, arrays, axis, how)
    ts = fill_tangents(darrays, arrays)
    if how == "concatenate":
        return np.concatenate(ts, axis=axis)
    if how == "stack":
        return np.stack(ts, axis=axis)
    return getattr(np, how)(ts)


def split_grad(g, ary, indices_or_sections, axis=0):
    """Adjoint of ``np.split`` / ``array_split``: concatenate the pieces' cotangents."""
    np = array_ns(g, ary, indices_or_sections, axis)
    pieces = np.array_split(ary, indices_or_sections, axis=axis)
    return np.concatenate(fill_tangents(g, pieces), axis=axis)


def split_jvp(dary, ary, indices_or_sections, axis=0):
    np = array_ns(dary, ary, indices_or_sections, axis)
    return np.array_split(dary, indices_or_sections, axis=axis)


def append_grad(g, arr, values, axis=None):
    """Adjoint of ``np.append(arr, values, axis)``: a pair of cotangents."""
    np = array_ns(g, arr, values, axis)
    if axis is None:
        n = np.size(arr)
        gf = np.ravel(g)
        return _fit(gf[:n], arr), _fit(gf[n:], values)
    n = np.shape(arr)[axis]
    first, second = np.split(g, [n], axis=axis)
    return _fit(first, arr), _fit(second, values)


def meshgrid_grad(g, xi, sparse=False, indexing="xy"):
    """Adjoint of ``np.meshgrid(*xi, sparse=sparse, indexing=indexing)``: each output
    is its input along one axis, repeated along the others; sum the repeats."""
    np = array_ns(g, xi, sparse, indexing)
    n = len(xi)
    grads = []
    for i, x in enumerate(xi):
        gi = g[i] if g is not None else None
        if gi is None:
            grads.append(_zeros(x))
            continue
        ax = i
        if indexing == "xy" and n > 1 and i < 2:
            ax = 1 - i
        others = tuple(j for j in range(np.ndim(gi)) if j != ax)
        grads.append(_fit(np.reshape(np.sum(gi, axis=others), np.shape(x)), x))
    return tuple(grads)


def meshgrid_jvp(dxi, xi, sparse=False, indexing="xy"):
    np = array_ns(dxi, xi, sparse, indexing)
    ts = fill_tangents(dxi, xi)
    out = np.meshgrid(*[np.ravel(np.asarray(t, dtype=np.float64)) if not hasattr(t, "shape")
                        else t for t in ts], sparse=sparse, indexing=indexing)
    return tuple(out)


def index_join(builder, items):
    """``builder[items]`` for ``np.r_`` / ``np.c_`` (what ``np.r_[a, b, 1:4]`` is once its
    ranges are :func:`index_range` arrays): NumPy computes it."""
    return builder[tuple(items)]


def _index_layout(builder, items):
    """How ``builder[items]`` places each item: ``(axis, [(item, axes) or None])``, where
    ``axes`` is the transposition NumPy applies to the item once it has ``ndmin`` axes
    (None: none) and a leading directive string is None.  Directives such as ``'0,2,1'``
    are read as NumPy reads them; ``'r'`` / ``'c'`` (a matrix) are refused."""
    axis, ndmin, trans1d = builder.axis, builder.ndmin, builder.trans1d
    layout = []
    for k, item in enumerate(items):
        if isinstance(item, str):
            if item in ("r", "c"):
                from ...errors import NonDifferentiableError
                raise NonDifferentiableError(
                    f"np.r_ / np.c_ with the directive {item!r} builds an np.matrix, which "
                    f"srcgrad does not differentiate: join arrays with np.concatenate, "
                    f"np.vstack or np.column_stack instead")
            vec = [int(v) for v in item.split(",")]
            axis = vec[0]
            if len(vec) > 1:
                ndmin = vec[1]
            if len(vec) > 2:
                trans1d = vec[2]
            layout.append(None)
            continue
        nd = np.ndim(item)
        axes = None
        if type(item) not in np.ScalarType and trans1d != -1 and nd < ndmin:
            k2, k1 = ndmin - nd, trans1d
            if k1 < 0:
                k1 += k2 + 1
            dims = list(range(ndmin))
            axes = dims[:k1] + dims[k2:] + dims[k1:k2]
        layout.append((item, axes, ndmin))
    return axis, layout


def index_join_grad(g, builder, items):
    """Adjoint of :func:`index_join`: each item's block of ``g`` along the joined axis,
    shaped as the item (a tuple, one cotangent per item; None for a directive)."""
    np = array_ns(g, items)
    axis, layout = _index_layout(builder, items)
    grads, start = [], 0
    for entry in layout:
        if entry is None:
            grads.append(None)
            continue
        item, axes, ndmin = entry
        shape = (1,) * max(ndmin - np.ndim(item), 0) + tuple(np.shape(item))
        if axes is not None:
            shape = tuple(shape[a] for a in axes)
        n = shape[axis]
        index = [slice(None)] * np.ndim(g)
        index[axis] = slice(start, start + n)
        start += n
        # the axes NumPy added have length 1: moving them never reorders the entries
        grads.append(_fit(np.reshape(g[tuple(index)], np.shape(item)), item))
    return tuple(grads)


def index_join_jvp(ditems, builder, items):
    """Tangent of :func:`index_join`: the same join of the items' tangents (zeros where
    None; a directive string stays)."""
    ts = []
    for k, x in enumerate(items):
        d = None if ditems is None else ditems[k]
        ts.append(x if isinstance(x, str) else _zeros(x) if d is None else d)
    return builder[tuple(ts)]


deftransformable(append_grad)     # differentiated again through its source

# -- rules ------------------------------------------------------------------------------
defrule(np.concatenate, "arrays, axis=0, out=None, dtype=None, casting='same_kind'", linear_in="arrays",
        sequence="arrays",  # np.concat
        vjp=dict(arrays="join_grad(g, arrays, axis)"),
        jvp=dict(arrays="join_jvp(darrays, arrays, axis)"), torch_name="CatBackward0")
defrule(np.stack, "arrays, axis=0, out=None, dtype=None, casting='same_kind'", linear_in="arrays",
        sequence="arrays",
        vjp=dict(arrays="join_grad(g, arrays, axis, 'stack')"),
        jvp=dict(arrays="join_jvp(darrays, arrays, axis, 'stack')"), torch_name="StackBackward0")
for _f in (np.hstack, np.vstack, np.dstack, np.column_stack):
    _how = _f.__name__
    defrule(_f, "tup, dtype=None, casting='same_kind'" if _how in ("hstack", "vstack") else "tup",
            linear_in="tup", sequence="tup",
            vjp=dict(tup=f"join_grad(g, tup, None, {_how!r})"),
            jvp=dict(tup=f"join_jvp(dtup, tup, None, {_how!r})"), torch_name="CatBackward0")
defrule(np.append, "arr, values, axis=None", linear_in=("arr", "values"),
        vjp=dict(arr="append_grad(g, arr, values, axis)[0]",
                 values="append_grad(g, arr, values, axis)[1]"),
        jvp=dict(arr="np.append(darr, zeros_like(values), axis)",
                 values="np.append(zeros_like(arr), dvalues, axis)"), torch_name="CatBackward0")
defrule(np.split, "ary, indices_or_sections, axis=0", view_of="ary",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, axis)"),
        jvp=dict(ary="np.split(dary, indices_or_sections, axis)"), torch_name="SplitBackward0")
defrule(np.array_split, "ary, indices_or_sections, axis=0", view_of="ary",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, axis)"),
        jvp=dict(ary="np.array_split(dary, indices_or_sections, axis)"),
        torch_name="SplitBackward0")
defrule(np.hsplit, "ary, indices_or_sections", view_of="ary",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)"),
        jvp=dict(ary="np.hsplit(dary, indices_or_sections)"), torch_name="SplitBackward0")
defrule(np.vsplit, "ary, indices_or_sections", view_of="ary",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, 0)"),
        jvp=dict(ary="np.vsplit(dary, indices_or_sections)"), torch_name="SplitBackward0")

if hasattr(np, "row_stack") and np.row_stack is not np.vstack:     # deprecated alias
    defrule(np.row_stack, "tup, *, dtype=None, casting='same_kind'", linear_in="tup", sequence="tup",
            vjp=dict(tup="join_grad(g, tup, None, 'vstack')"),
            jvp=dict(tup="join_jvp(dtup, tup, None, 'vstack')"), torch_name="CatBackward0")
defrule(np.dsplit, "ary, indices_or_sections", view_of="ary",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, 2)"),
        jvp=dict(ary="np.dsplit(dary, indices_or_sections)"), torch_name="SplitBackward0")
if hasattr(np, "unstack"):              # NumPy 2.1+
    defrule(np.unstack, "x, /, *, axis=0", view_of="x",
            vjp=dict(x="np.stack(fill_tangents(g, ans), axis)"),
            jvp=dict(x="np.unstack(dx, axis=axis)"), torch_name="UnbindBackward0")

defkernel(index_join, "builder, items", linear_in="items", sequence="items",
          vjp=dict(items="index_join_grad(g, builder, items)"),
          jvp=dict(items="index_join_jvp(ditems, builder, items)"), torch_name="CatBackward0")
defrule(np.meshgrid, "*xi, copy=True, sparse=False, indexing='xy'", linear_in="xi",
        vjp=dict(xi="meshgrid_grad(g, xi, sparse, indexing)"),
        jvp=dict(xi="meshgrid_jvp(dxi, xi, sparse, indexing)"))


# -- rules of the kernels (grad of grad): each is linear in the cotangent t ------------
deflinear(join_grad, "t, arrays, axis=0, how='concatenate'", "join_jvp(g, arrays, axis, how)",
          "join_grad(dt, arrays, axis, how)")
deflinear(join_jvp, "t, arrays, axis=0, how='concatenate'", "join_grad(g, arrays, axis, how)",
          "join_jvp(dt, arrays, axis, how)")
deflinear(index_join_grad, "t, builder, items", "index_join_jvp(g, builder, items)",
          "index_join_grad(dt, builder, items)")
deflinear(index_join_jvp, "t, builder, items", "index_join_grad(g, builder, items)",
          "index_join_jvp(dt, builder, items)")
deflinear(split_grad, "t, ary, indices_or_sections, axis=0",
          "np.array_split(g, indices_or_sections, axis)",
          "split_grad(dt, ary, indices_or_sections, axis)")
deflinear(meshgrid_grad, "t, xi, sparse=False, indexing='xy'",
          "meshgrid_jvp(g, xi, sparse, indexing)", "meshgrid_grad(dt, xi, sparse, indexing)",
          constant=["xi"])
deflinear(meshgrid_jvp, "t, xi, sparse=False, indexing='xy'",
          "meshgrid_grad(g, xi, sparse, indexing)", "meshgrid_jvp(dt, xi, sparse, indexing)",
          constant=["xi"])
