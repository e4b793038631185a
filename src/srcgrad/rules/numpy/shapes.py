"""Functions that move entries without changing them: reshape, transpose, squeeze,
broadcast, flip, roll, tile, repeat, diagonals and triangles, pad.

Most of them return a view of their argument (``view_of``): writing into the result
writes into the argument, which the aliasing analysis must know.
"""
import numpy as np

from ...runtime.backends import array_ns

from ..registry import deflinear, defrule, deftransformable
from .conventions import _along, _eye, _fit, _like, fill_tangents

__all__ = ['diagonal_grad', 'diag_grad', 'pad_value_grad', 'transpose_grad', 'transpose_apply', 'ravel_grad', 'ravel_jvp', 'roll_grad', 'tile_grad', 'repeat_grad', 'pad_grad', 'atleast_grad', 'atleast_jvp', 'rollaxis_grad', 'diagflat_grad']


# -- kernels ----------------------------------------------------------------------------

def _diag_block(g, m, n, k, ref):
    """Stack of ``m x n`` matrices with ``g[..., i]`` on diagonal ``k`` (last two axes)."""
    np = array_ns(g, m, n, k, ref)
    length = np.shape(g)[-1]
    along = m if k >= 0 else n                  # pad g to the length of its broadcast axis
    pad = [(0, 0)] * (np.ndim(g) - 1) + [(0, along - length)]
    gp = np.pad(g, pad) if along != length else g
    e = _eye(m, n, k, ref)
    return e * gp[..., :, None] if k >= 0 else e * gp[..., None, :]


def diagonal_grad(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal(a, offset, axis1, axis2)``."""
    np = array_ns(g, a, offset, axis1, axis2)
    nd = np.ndim(a)
    axis1, axis2 = axis1 % nd, axis2 % nd
    m, n = np.shape(a)[axis1], np.shape(a)[axis2]
    block = _diag_block(g, m, n, offset, a)
    return np.moveaxis(block, (-2, -1), (axis1, axis2))


def diag_grad(g, v, k=0):
    """Adjoint of ``np.diag(v, k)``: extract a diagonal (1-D v) or build a matrix (2-D v)."""
    np = array_ns(g, v, k)
    if np.ndim(v) == 1:
        return np.diagonal(g, k).copy()
    return diagonal_grad(g, v, k, 0, 1)


def pad_value_grad(g, array, pad_width, constant_values=0):
    """Adjoint of ``np.pad(..., mode='constant')`` for a scalar ``constant_values``:
    the sum of the cotangent over the padding."""
    np = array_ns(g, array, pad_width, constant_values)
    if np.ndim(constant_values) > 0:
        raise NotImplementedError("np.pad: derivative for a scalar constant_values only")
    return np.sum(g) - np.sum(pad_grad(g, array, pad_width, "constant"))


def _perm(axes, ndim):
    """The permutation of a transpose: ``np.transpose(a, axes)`` or ``a.transpose(*axes)``."""
    if isinstance(axes, tuple) and len(axes) == 1 and (axes[0] is None or
                                                       isinstance(axes[0], (tuple, list))):
        axes = axes[0]                          # a.transpose((1, 0)) / a.transpose(None)
    if axes is None or (isinstance(axes, tuple) and len(axes) == 0):
        return tuple(range(ndim))[::-1]
    return tuple(int(a) % ndim for a in axes)


def transpose_apply(t, axes=None):
    """``np.transpose(t, axes)`` for ``axes`` in any accepted form (``a.transpose()``'s
    empty tuple, ``a.transpose((1, 0))``'s tuple in a tuple)."""
    np = array_ns(t, axes)
    return np.transpose(t, _perm(axes, np.ndim(t)))


def transpose_grad(g, axes=None):
    """Adjoint of a transpose: the inverse permutation (``axes`` in any accepted form)."""
    np = array_ns(g, axes)
    perm = _perm(axes, np.ndim(g))
    return np.transpose(g, tuple(int(i) for i in np.argsort(perm)))


def _gather_index(a, order):
    """Positions (in ``a``'s C order) read by ``np.ravel(a, order)``."""
    np = array_ns(a, order)
    index = np.empty_like(a, dtype=np.intp, order="K" if order in ("K", "A") else "C")
    index[...] = np.arange(np.size(a)).reshape(np.shape(a))
    return np.ravel(index, order="K" if order == "K" else
                    ("F" if order == "A" and a.flags.f_contiguous and not a.flags.c_contiguous
                     else order if order != "A" else "C"))


def ravel_grad(g, a, order="C"):
    """Adjoint of ``np.ravel(a, order)`` / ``a.flatten(order)`` for every order."""
    np = array_ns(g, a, order)
    if order in ("C", "F", None):
        return np.reshape(g, np.shape(a), order=order or "C")
    index = _like(_gather_index(a, order), g)
    out = np.zeros_like(np.ravel(g))
    out[index] = g                              # a permutation: each entry once
    return np.reshape(out, np.shape(a))


def ravel_jvp(da, a, order="C"):
    """Tangent of ``np.ravel(a, order)``: ``da`` read in the order ``a`` is read."""
    np = array_ns(da, a, order)
    if order in ("C", "F", None):
        return np.ravel(da, order=order or "C")
    return np.ravel(da)[_like(_gather_index(a, order), da)]


def roll_grad(g, shift, axis=None):
    """Adjoint of ``np.roll``: roll back."""
    np = array_ns(g, shift, axis)
    back = -shift if isinstance(shift, (int, np.integer)) else tuple(-s for s in shift)
    return np.roll(g, back, axis)


def tile_grad(g, A, reps):
    """Adjoint of ``np.tile(A, reps)``: sum the tiles."""
    np = array_ns(g, A, reps)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    nd = max(np.ndim(A), len(reps))
    shape = (1,) * (nd - np.ndim(A)) + np.shape(A)
    reps = (1,) * (nd - len(reps)) + reps
    g = np.reshape(g, [n for pair in zip(reps, shape) for n in pair])
    return _fit(np.sum(g, axis=tuple(range(0, 2 * nd, 2))), A)


def repeat_grad(g, a, repeats, axis=None):
    """Adjoint of ``np.repeat``: sum each run of copies."""
    np = array_ns(g, a, repeats, axis)
    x, ax = _along(a, axis)
    if np.ndim(repeats) == 0 or np.size(repeats) == 1:
        r = int(np.ravel(repeats)[0]) if np.ndim(repeats) else int(repeats)
        gm = np.moveaxis(g, ax, -1)
        gm = np.reshape(gm, gm.shape[:-1] + (x.shape[ax], r))
        return _fit(np.moveaxis(np.sum(gm, axis=-1), -1, ax), a)
    ends = np.cumsum(repeats)
    csum = np.cumsum(g, axis=ax)
    pad = [(0, 0)] * np.ndim(g)
    pad[ax] = (1, 0)
    csum = np.pad(csum, pad)
    return _fit(np.take(csum, _like(ends, g), axis=ax) -
                np.take(csum, _like(ends - np.asarray(repeats), g), axis=ax), a)


def pad_grad(g, array, pad_width, mode="constant"):
    """Adjoint of ``np.pad`` for the modes that copy entries (constant, edge, reflect,
    symmetric, wrap): each input entry collects the cotangent of all its copies."""
    np = array_ns(g, array, pad_width, mode)
    size = np.size(array)
    index = np.arange(size).reshape(np.shape(array))
    if mode == "constant":
        padded = np.pad(index, pad_width, mode, constant_values=-1)
    elif mode in ("edge", "reflect", "symmetric", "wrap"):
        padded = np.pad(index, pad_width, mode)
    else:
        raise NotImplementedError(f"np.pad: no derivative for mode={mode!r}")
    flat = np.ravel(padded)
    keep = flat >= 0
    gf = np.ravel(g)[_like(keep, g)]
    out = np.bincount(_like(flat[keep], g), weights=gf, minlength=size)
    return _fit(out.astype(np.result_type(g, np.float32), copy=False), array)


def atleast_grad(g, arys):
    """Adjoint of ``np.atleast_1d/2d/3d(*arys)`` (one array out, or a list for several)."""
    if len(arys) == 1:
        return (_fit(g, arys[0]),)
    out = []
    for i in range(len(arys)):
        out.append(None if g[i] is None else _fit(g[i], arys[i]))
    return tuple(out)


def atleast_jvp(darys, arys, fn):
    return fn(*fill_tangents(darys, arys))


def rollaxis_grad(g, a, axis, start=0):
    """Adjoint of ``np.rollaxis(a, axis, start)``: the inverse permutation."""
    np = array_ns(g, a, axis, start)
    n = np.ndim(a)
    axis = axis % n
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return g
    axes = [i for i in range(n) if i != axis]
    axes.insert(start, axis)
    return np.transpose(g, tuple(int(i) for i in np.argsort(axes)))


def diagflat_grad(g, v, k=0):
    """Adjoint of ``np.diagflat(v, k)``: the ``k`` diagonal, in ``v``'s shape."""
    np = array_ns(g, v, k)
    return _fit(np.diagonal(g, k).copy(), v)


deftransformable(atleast_grad, atleast_jvp, pad_value_grad)   # differentiated again through their source

# -- rules ------------------------------------------------------------------------------
# Shape, joining and selection
# ---------------------------------------------------------------------------------------
_reshape = defrule(np.reshape, "a, shape, order='C', copy=None", linear_in="a", view_of="a",
                   vjp=dict(a="np.reshape(g, np.shape(a), order=order)"),
                   jvp=dict(a="np.reshape(da, np.shape(ans), order=order)"),
                   torch_name="ViewBackward0")
_ravel = defrule(np.ravel, "a, order='C'", linear_in="a", view_of="a",
                 vjp=dict(a="ravel_grad(g, a, order)"), jvp=dict(a="ravel_jvp(da, a, order)"),
                 torch_name="ViewBackward0")
_transpose = defrule(np.transpose, "a, axes=None", linear_in="a", view_of="a",       # also np.permute_dims
                     vjp=dict(a="transpose_grad(g, axes)"),
                     jvp=dict(a="np.transpose(da, axes)"),
                     torch_name="PermuteBackward0")
_swapaxes = defrule(np.swapaxes, "a, axis1, axis2", linear_in="a", view_of="a",
                    vjp=dict(a="np.swapaxes(g, axis1, axis2)"),
                    jvp=dict(a="np.swapaxes(da, axis1, axis2)"),
                    torch_name="TransposeBackward0")
defrule(np.moveaxis, "a, source, destination", linear_in="a", view_of="a",
        vjp=dict(a="np.moveaxis(g, destination, source)"),
        jvp=dict(a="np.moveaxis(da, source, destination)"),
        torch_name="PermuteBackward0")
_squeeze = defrule(np.squeeze, "a, axis=None", linear_in="a", view_of="a",
                   vjp=dict(a="np.reshape(g, np.shape(a))"), jvp=dict(a="np.squeeze(da, axis)"),
                   torch_name="SqueezeBackward0")
defrule(np.expand_dims, "a, axis", linear_in="a", view_of="a",
        vjp=dict(a="np.reshape(g, np.shape(a))"), jvp=dict(a="np.expand_dims(da, axis)"),
        torch_name="UnsqueezeBackward0")
defrule(np.broadcast_to, "array, shape, subok=False", linear_in="array", view_of="array",
        vjp=dict(array="unbroadcast(g, array)"), jvp=dict(array="np.broadcast_to(darray, shape)"),
        torch_name="ExpandBackward0")
defrule(np.atleast_1d, "*arys", view_of="arys", vjp=dict(arys="atleast_grad(g, arys)"),
        jvp=dict(arys="atleast_jvp(darys, arys, np.atleast_1d)"), torch_name="ViewBackward0")
defrule(np.atleast_2d, "*arys", view_of="arys", vjp=dict(arys="atleast_grad(g, arys)"),
        jvp=dict(arys="atleast_jvp(darys, arys, np.atleast_2d)"), torch_name="ViewBackward0")
defrule(np.atleast_3d, "*arys", view_of="arys", vjp=dict(arys="atleast_grad(g, arys)"),
        jvp=dict(arys="atleast_jvp(darys, arys, np.atleast_3d)"), torch_name="ViewBackward0")

defrule(np.diag, "v, k=0", view_of="v", linear_in="v",
        vjp=dict(v="diag_grad(g, v, k)"), jvp=dict(v="np.diag(dv, k)"), torch_name="DiagBackward0")
_diagonal = defrule(np.diagonal, "a, offset=0, axis1=0, axis2=1", linear_in="a", view_of="a",
                    vjp=dict(a="diagonal_grad(g, a, offset, axis1, axis2)"),
                    jvp=dict(a="np.diagonal(da, offset, axis1, axis2)"),
                    torch_name="DiagonalBackward0")
defrule(np.triu, "m, k=0", linear_in="m", vjp=dict(m="np.triu(g, k)"), jvp=dict(m="np.triu(dm, k)"),
        torch_name="TriuBackward0")
defrule(np.tril, "m, k=0", linear_in="m", vjp=dict(m="np.tril(g, k)"), jvp=dict(m="np.tril(dm, k)"),
        torch_name="TrilBackward0")
defrule(np.flip, "m, axis=None", linear_in="m", view_of="m", vjp=dict(m="np.flip(g, axis)"), jvp=dict(m="np.flip(dm, axis)"),
        torch_name="FlipBackward0")
defrule(np.fliplr, "m", linear_in="m", view_of="m", vjp=dict(m="np.fliplr(g)"), jvp=dict(m="np.fliplr(dm)"),
        torch_name="FlipBackward0")
defrule(np.flipud, "m", linear_in="m", view_of="m", vjp=dict(m="np.flipud(g)"), jvp=dict(m="np.flipud(dm)"),
        torch_name="FlipBackward0")
defrule(np.rot90, "m, k=1, axes=(0, 1)", linear_in="m", view_of="m",
        vjp=dict(m="np.rot90(g, -k, axes)"), jvp=dict(m="np.rot90(dm, k, axes)"),
        torch_name="RotBackward0")
defrule(np.roll, "a, shift, axis=None", linear_in="a",
        vjp=dict(a="roll_grad(g, shift, axis)"), jvp=dict(a="np.roll(da, shift, axis)"),
        torch_name="RollBackward0")
defrule(np.tile, "A, reps", linear_in="A",
        vjp=dict(A="tile_grad(g, A, reps)"), jvp=dict(A="np.tile(dA, reps)"),
        torch_name="RepeatBackward0")
_repeat = defrule(np.repeat, "a, repeats, axis=None", linear_in="a",
                  vjp=dict(a="repeat_grad(g, a, repeats, axis)"),
                  jvp=dict(a="np.repeat(da, repeats, axis)"),
                  torch_name="RepeatInterleaveBackward0")

defrule(np.pad, "array, pad_width, mode='constant', constant_values=0",
        vjp=dict(array="pad_grad(g, array, pad_width, mode)",
                 constant_values="pad_value_grad(g, array, pad_width, constant_values)"),
        jvp=dict(array="np.pad(darray, pad_width, mode)",
                 constant_values="np.pad(zeros_like(array), pad_width, "
                                 "constant_values=dconstant_values)"),
        torch_name="ConstantPadNdBackward0")


# shapes and selection
defrule(np.rollaxis, "a, axis, start=0", linear_in="a", view_of="a",
        vjp=dict(a="rollaxis_grad(g, a, axis, start)"), jvp=dict(a="np.rollaxis(da, axis, start)"),
        torch_name="PermuteBackward0")

defrule(np.diagflat, "v, k=0", linear_in="v", vjp=dict(v="diagflat_grad(g, v, k)"),
        jvp=dict(v="np.diagflat(dv, k)"))

# -- rules of the kernels (grad of grad): each is linear in the cotangent t ------------
deflinear(transpose_grad, "t, axes=None", "transpose_apply(g, axes)", "transpose_grad(dt, axes)")
deflinear(transpose_apply, "t, axes=None", "transpose_grad(g, axes)", "transpose_apply(dt, axes)")
deflinear(ravel_grad, "t, a, order='C'", "ravel_jvp(g, a, order)", "ravel_grad(dt, a, order)")
deflinear(ravel_jvp, "t, a, order='C'", "ravel_grad(g, a, order)", "ravel_jvp(dt, a, order)")
deflinear(roll_grad, "t, shift, axis=None", "np.roll(g, shift, axis)", "roll_grad(dt, shift, axis)")
deflinear(diag_grad, "t, v, k=0", "np.diag(g, k)", "diag_grad(dt, v, k)")
deflinear(diagonal_grad, "t, a, offset=0, axis1=0, axis2=1", "np.diagonal(g, offset, axis1, axis2)",
          "diagonal_grad(dt, a, offset, axis1, axis2)")
deflinear(tile_grad, "t, A, reps", "np.tile(g, reps)", "tile_grad(dt, A, reps)")
deflinear(repeat_grad, "t, a, repeats, axis=None", "np.repeat(g, repeats, axis)",
          "repeat_grad(dt, a, repeats, axis)")
deflinear(pad_grad, "t, array, pad_width, mode='constant'", "np.pad(g, pad_width, mode)",
          "pad_grad(dt, array, pad_width, mode)")
deflinear(rollaxis_grad, "t, a, axis, start=0", "np.rollaxis(g, axis, start)",
          "rollaxis_grad(dt, a, axis, start)", constant=["a"])
deflinear(diagflat_grad, "t, v, k=0", "np.diagflat(g, k)", "diagflat_grad(dt, v, k)",
          constant=["v"])
