"""Helpers that the derivative templates of the NumPy / math / builtins tables call.

The runtime re-exports ``__all__``, so templates use these names bare
(``einsum_grad(g, operands)``).  Each helper is small, works on numpy arrays
(and on cupy arrays through numpy's ``__array_function__`` dispatch) and on
Python scalars, and never mutates its arguments.  Only numpy is imported here:
``srcgrad.runtime`` imports this module, so importing it back would be a cycle.

Conventions shared by the helpers:

* a gradient has its parameter's shape; a Python scalar parameter gets a scalar;
* the cotangent (``g``) or tangent of a list / tuple is a list / tuple of the same
  length, whose entries may be None (meaning zero);
* rules assume real inputs (no complex conjugation).
"""
import math

import numpy as np

__all__ = [
    # elementwise
    "balanced_eq", "log_pos", "clip_mask", "sinc_deriv",
    # reductions
    "prod_partials", "minmax_jvp", "var_grad", "var_jvp", "norm_grad", "norm_jvp",
    "ptp_grad", "ptp_jvp", "nanmean_grad", "cumsum_grad", "cumprod_grad", "cumprod_jvp",
    "diff_grad",
    # linear algebra
    "mT", "einsum_grad", "einsum_jvp", "tensordot_grad", "dot_grad", "inner_grad",
    "outer_grad", "kron_grad", "cross_grad", "solve_grad_a", "solve_grad_b", "solve_jvp_a",
    "solve_jvp_b",
    "trace_grad", "diagonal_grad", "diag_grad", "convolve_grad", "correlate_grad",
    "vecdot_grad", "matvec_grad", "vecmat_grad", "multi_dot_grad", "multi_dot_jvp",
    "matrix_power_grad", "matrix_power_jvp", "pad_value_grad",
    # shape and selection
    "transpose_grad", "ravel_grad", "ravel_jvp", "roll_grad", "tile_grad", "repeat_grad",
    "take_grad",
    "take_along_axis_grad", "pad_grad", "sort_jvp", "join_grad", "join_jvp",
    "split_grad", "split_jvp", "atleast_grad", "atleast_jvp", "append_grad", "array_grad",
    "array_jvp", "fill_tangents", "linspace_grad",
    # added with tests/test_corpus_numpy.py
    "permuted_grad", "permuted_jvp", "quantile_grad", "quantile_jvp", "quantile_q_grad",
    "quantile_q_jvp", "rollaxis_grad", "diagflat_grad", "compress_grad", "extract_grad",
    "npselect_grad", "npselect_default_grad", "npselect_jvp", "npselect_default_jvp",
    "meshgrid_grad", "meshgrid_jvp", "tolist_grad", "cumulative_trim", "cumulative_pad",
    "polyval_grad_p", "polyval_deriv", "nanvar_grad", "nanvar_jvp", "average_grad",
    "average_jvp", "cholesky_grad", "cholesky_jvp", "eigh_grad", "eigh_jvp", "eigvalsh_grad",
    "eigvalsh_jvp", "svd_grad", "svd_jvp", "pinv_grad", "pinv_jvp", "qr_grad", "qr_jvp",
    "slogdet_grad", "slogdet_jvp", "tensorinv_grad", "tensorinv_jvp",
    # second derivatives
    "no_second_derivative", "einsum_grad_t", "einsum_grad_operands", "einsum_grad_doperands",
    "var_grad_a", "prod_partials_grad", "norm_grad_x", "norm_grad_n", "norm_grad_dn",
    "norm_jvp_x", "norm_jvp_n", "linspace_grad_t", "slogdet_grad_t", "slogdet_grad_a",
    "slogdet_grad_da",
    # builtins and math
    "seq_sum_grad", "seq_sum_jvp", "seq_prod_grad", "seq_prod_jvp", "select_grad",
    "select_jvp",
]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# -- small private tools ---------------------------------------------------------------

def _fit(grad, x):
    """``grad`` shaped as the parameter ``x``: reshaped for arrays, a scalar otherwise."""
    if hasattr(x, "shape"):
        return np.reshape(grad, x.shape) if np.shape(grad) != x.shape else grad
    if isinstance(x, (list, tuple)):
        return np.reshape(grad, np.shape(x))
    return np.sum(grad) if hasattr(grad, "shape") else grad


def _sum_to(grad, x):
    """Sum ``grad`` over the axes along which ``x`` was broadcast (``x`` an array or scalar)."""
    xs = np.shape(x)
    gs = np.shape(grad)
    if gs == xs:
        return _fit(grad, x)
    lead = len(gs) - len(xs)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(xs)
                                      if n == 1 and gs[lead + i] != 1)
    if axes:
        grad = np.sum(grad, axis=axes, keepdims=True)
    return _fit(np.reshape(grad, xs), x)


def _axes(axis, ndim):
    """``axis`` (None, int or tuple; negatives allowed) as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(sorted(int(a) % ndim for a in axis)) if ndim else ()


def _keep(g, ndim, axis, keepdims):
    """Re-insert reduced axes (size 1) into ``g`` so that it broadcasts against the input."""
    if keepdims or not hasattr(g, "shape") and axis is None:
        return g
    shape = list(np.shape(g))
    for a in _axes(axis, ndim):
        shape.insert(a, 1)
    return np.reshape(g, shape)


def _fdtype(x):
    """The floating dtype of a gradient for ``x`` (float32 stays float32)."""
    return np.result_type(getattr(x, "dtype", np.float64), np.float32)


def _zeros(x):
    """A floating zero of ``x``'s shape (``0.0`` for Python scalars)."""
    if hasattr(x, "shape"):
        return np.zeros_like(x, dtype=np.result_type(x.dtype, np.float32))
    if isinstance(x, (list, tuple)):
        return np.zeros(np.shape(x))
    return 0.0


def _like(values, ref):
    """``values`` (a numpy array built here, e.g. indices) on ``ref``'s backend."""
    if isinstance(ref, np.ndarray) or not hasattr(ref, "__array_function__"):
        return np.asarray(values)
    return np.asarray(values, like=ref)


def _eye(n, m, k, ref):
    dtype = np.result_type(getattr(ref, "dtype", np.float64), np.float32)
    if isinstance(ref, np.ndarray) or not hasattr(ref, "__array_function__"):
        return np.eye(n, m, k, dtype=dtype)
    return np.eye(n, m, k, dtype=dtype, like=ref)


def _ones(n, ref):
    dtype = np.result_type(getattr(ref, "dtype", np.float64), np.float32)
    if isinstance(ref, np.ndarray) or not hasattr(ref, "__array_function__"):
        return np.ones(n, dtype=dtype)
    return np.ones(n, dtype=dtype, like=ref)


# -- elementwise -----------------------------------------------------------------------

def balanced_eq(x, z, y):
    """Weight of ``x`` in ``z = maximum(x, y)`` (or minimum): 1 if it won, 1/2 on a tie.

    In ``z``'s floating dtype, so that a float32 cotangent stays float32.
    """
    w = (x == z) / (1.0 + (x == y))
    return w.astype(_fdtype(z), copy=False) if hasattr(w, "astype") else w


def log_pos(x):
    """``log(x)`` where ``x > 0``, else 0 (the ``y``-derivative of ``x ** y`` uses it).

    A Python scalar gives a Python float and an array keeps its dtype, so that a
    float32 gradient stays float32.
    """
    if not hasattr(x, "shape"):
        return math.log(x) if x > 0 else 0.0
    return np.log(np.where(x > 0, x, 1))


def clip_mask(a, a_min, a_max):
    """True where ``clip(a, a_min, a_max)`` passes ``a`` through (None: no bound)."""
    mask = np.ones_like(a, dtype=bool) if hasattr(a, "shape") else True
    if a_min is not None:
        mask = mask & (a >= a_min)
    if a_max is not None:
        mask = mask & (a <= a_max)
    return mask


def sinc_deriv(x):
    """d/dx of ``np.sinc(x) = sin(pi x) / (pi x)``: ``(cos(pi x) - sinc(x)) / x``.

    Near 0 the quotient cancels; there the Taylor series ``-pi^2 x / 3 + pi^4 x^3 / 30``
    is used instead (both agree to rounding at the switch, |x| = 1e-3).
    """
    small = np.abs(x) < 1e-3
    safe = np.where(small, 1.0, x)
    series = -np.pi ** 2 * x / 3 + np.pi ** 4 * x ** 3 / 30
    return np.where(small, series, (np.cos(np.pi * safe) - np.sinc(safe)) / safe)


# -- reductions ------------------------------------------------------------------------

def prod_partials(a, axis=None):
    """``d prod(a, axis) / d a``: for each entry the product of the others in its group.

    Exact with zeros in the input (no division): built from exclusive cumulative
    products from the left and from the right.
    """
    a = a if hasattr(a, "shape") else np.asarray(a, dtype=float)
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
    return np.transpose(out, np.argsort(rest + list(axes)))


def minmax_jvp(da, ans, a, axis=None, keepdims=False):
    """Tangent of ``max(a, axis)`` / ``min``: ``da`` averaged over the extremal entries."""
    a_ = _keep(ans, np.ndim(a), axis, keepdims)
    mask = (a == a_)
    w = mask / np.sum(mask, axis=axis, keepdims=True, dtype=_fdtype(a))
    return np.sum(da * w, axis=axis, keepdims=keepdims)


def var_grad(g, a, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.var(a, axis, ddof=ddof, keepdims=keepdims)``."""
    n = np.size(a) // max(np.size(np.mean(a, axis=axis)), 1) if np.size(a) else 0
    centred = a - np.mean(a, axis=axis, keepdims=True)
    return _fit(2.0 * centred * _keep(g, np.ndim(a), axis, keepdims) / (n - ddof), a)


def var_jvp(da, a, axis=None, ddof=0, keepdims=False):
    """Tangent of ``np.var``: ``2 sum((a - mean) da) / (N - ddof)`` over ``axis``."""
    n = np.size(a) // max(np.size(np.mean(a, axis=axis)), 1) if np.size(a) else 0
    centred = a - np.mean(a, axis=axis, keepdims=True)
    return 2.0 * np.sum(centred * da, axis=axis, keepdims=keepdims) / (n - ddof)


def _norm_weights(x, ans, ord, axis, keepdims, vector=False):
    """``W`` with ``d norm = sum(W * dx)`` over the reduced axes (``W`` has x's shape)."""
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
    if axis is None and not vector and np.ndim(x) == 2 and ord is not None:
        return (0, 1)
    return axis


def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False, vector=False):
    """Adjoint of ``np.linalg.norm`` (``vector=True``: ``np.linalg.vector_norm``)."""
    w = _norm_weights(x, ans, ord, axis, keepdims, vector)
    return _fit(_keep(g, np.ndim(x), _norm_axes(x, ord, axis, vector), keepdims) * w, x)


def norm_jvp(dx, ans, x, ord=None, axis=None, keepdims=False, vector=False):
    """Tangent of ``np.linalg.norm``: ``sum(W * dx)`` over the reduced axes."""
    w = _norm_weights(x, ans, ord, axis, keepdims, vector)
    return np.sum(dx * w, axis=_norm_axes(x, ord, axis, vector), keepdims=keepdims)


def _ptp_weights(a, axis):
    hi = np.max(a, axis=axis, keepdims=True)
    lo = np.min(a, axis=axis, keepdims=True)
    up, down = (a == hi), (a == lo)
    return (up / np.sum(up, axis=axis, keepdims=True, dtype=_fdtype(a))
            - down / np.sum(down, axis=axis, keepdims=True, dtype=_fdtype(a)))


def ptp_grad(g, a, axis=None, keepdims=False):
    """Adjoint of ``np.ptp`` (max - min), ties shared equally."""
    return _fit(_keep(g, np.ndim(a), axis, keepdims) * _ptp_weights(a, axis), a)


def ptp_jvp(da, a, axis=None, keepdims=False):
    return np.sum(da * _ptp_weights(a, axis), axis=axis, keepdims=keepdims)


def nanmean_grad(g, a, axis=None, keepdims=False):
    """Adjoint of ``np.nanmean``: ``g`` shared among the non-NaN entries of each group."""
    ok = ~np.isnan(a)
    count = np.sum(ok, axis=axis, keepdims=True, dtype=_fdtype(a))
    return _keep(g, np.ndim(a), axis, keepdims) * ok / count


def _along(a, axis):
    """``a`` flattened if ``axis`` is None (NumPy's cumulative convention), and the axis."""
    return (np.ravel(a), 0) if axis is None else (a, axis)


def cumsum_grad(g, a, axis=None):
    """Adjoint of ``np.cumsum``: a reversed cumulative sum."""
    _, ax = _along(a, axis)
    return _fit(np.flip(np.cumsum(np.flip(g, axis=ax), axis=ax), axis=ax), a)


def cumprod_grad(g, ans, a, axis=None):
    """Adjoint of ``np.cumprod``; exact with zeros (then O(n^2) along ``axis``)."""
    x, ax = _along(a, axis)
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
    """Tangent of ``np.cumprod``; exact with zeros."""
    x, ax = _along(a, axis)
    d, _ = _along(da, axis)
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
    for _ in range(n):
        pad = [(0, 0)] * np.ndim(g)
        pad[axis % np.ndim(g)] = (1, 1)
        gp = np.pad(g, pad)
        g = np.take(gp, np.arange(gp.shape[axis] - 1), axis=axis) - \
            np.take(gp, np.arange(1, gp.shape[axis]), axis=axis)
    return g


# -- linear algebra --------------------------------------------------------------------

def mT(x):
    """The matrix transpose of a stack of matrices (``x.mT``)."""
    return np.swapaxes(x, -1, -2)


def _einsum_parse(operands):
    """``(terms, out, arrays, positions)`` for any call of ``np.einsum``.

    Ellipses are replaced by explicit labels, the implicit output is made explicit,
    and a size-1 axis that broadcasts against a longer one gets a label of its own,
    so that ``einsum(",".join(terms) + "->" + out, *arrays)`` equals the call.
    ``positions`` are the indices of the array operands among ``operands``.
    """
    if isinstance(operands[0], str):
        subs = operands[0].replace(" ", "")
        positions = list(range(1, len(operands)))
    else:                                       # interleaved: a0, sub0, a1, sub1, ..., [out]
        positions = list(range(0, len(operands) - 1, 2))
        def word(sub):
            return "".join("..." if s is Ellipsis else _LETTERS[s] for s in sub)
        subs = ",".join(word(operands[p + 1]) for p in positions)
        if len(operands) % 2:
            subs += "->" + word(operands[-1])
    arrays = [operands[p] for p in positions]
    lhs, arrow, rhs = subs.partition("->")
    terms = lhs.split(",")
    used = set(subs) - set(".,->")
    fresh = (c for c in _LETTERS if c not in used)
    nell = max([np.ndim(x) - len(t.replace("...", "")) for t, x in zip(terms, arrays)
                if "..." in t] or [0])
    ell = "".join(next(fresh) for _ in range(nell))
    expanded = []
    for t, x in zip(terms, arrays):
        if "..." in t:
            k = np.ndim(x) - len(t.replace("...", ""))
            t = t.replace("...", ell[nell - k:] if k else "")
        expanded.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = "".join(t.replace("...", "") for t in terms)
        out = ell + "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    sizes = {}
    for t, x in zip(expanded, arrays):
        for c, n in zip(t, np.shape(x)):
            sizes[c] = max(sizes.get(c, 1), n)
    terms = ["".join(next(fresh) if n == 1 and sizes[c] > 1 else c
                     for c, n in zip(t, np.shape(x))) for t, x in zip(expanded, arrays)]
    return terms, out, arrays, positions


def _einsum_adjoint(g, terms, out, arrays, i):
    """Gradient of ``einsum(terms -> out, *arrays)`` with respect to ``arrays[i]``."""
    x = arrays[i]
    used = set("".join(terms) + out)
    fresh = (c for c in _LETTERS if c not in used)
    others = [t for j, t in enumerate(terms) if j != i]
    ops = [g] + [a for j, a in enumerate(arrays) if j != i]
    subs = [out] + others
    target, seen = "", set()
    for c, n in zip(terms[i], np.shape(x)):
        if c in seen:                           # a repeated label: the diagonal
            f = next(fresh)
            subs.append(c + f)
            ops.append(_eye(n, n, 0, x))
            c = f
        elif c not in out and not any(c in t for t in others):
            subs.append(c)                      # a label summed inside this operand only
            ops.append(_ones(n, x))
        seen.add(c)
        target += c
    grad = np.einsum(",".join(subs) + "->" + target, *ops)
    return _fit(grad, x)


def einsum_grad(g, operands):
    """Adjoint of ``np.einsum(*operands)``: a tuple, one cotangent per operand.

    The cotangent of an array operand is an einsum of ``g`` with the other operands;
    the subscripts string (or the sublists) get None.
    """
    terms, out, arrays, positions = _einsum_parse(operands)
    grads = [None] * len(operands)
    for i, p in enumerate(positions):
        grads[p] = _einsum_adjoint(g, terms, out, arrays, i)
    return tuple(grads)


def einsum_jvp(doperands, operands, optimize=False):
    """Tangent of ``np.einsum(*operands)``: one einsum per operand that has a tangent."""
    _, _, _, positions = _einsum_parse(operands)
    out = None
    for p in positions:
        d = doperands[p] if p < len(doperands) else None
        if d is None:
            continue
        ops = list(operands)
        ops[p] = d
        term = np.einsum(*ops, optimize=optimize)
        out = term if out is None else out + term
    return out


def _tensordot_terms(na, nb, axes):
    """Einsum terms for ``np.tensordot`` of an ``na``-D and an ``nb``-D array."""
    if isinstance(axes, (int, np.integer)):
        axa, axb = list(range(na - axes, na)), list(range(axes))
    else:
        axa, axb = axes
        axa = [axa] if isinstance(axa, (int, np.integer)) else list(axa)
        axb = [axb] if isinstance(axb, (int, np.integer)) else list(axb)
    axa = [a % na for a in axa]
    axb = [b % nb for b in axb]
    ta = _LETTERS[:na]
    tb = list(_LETTERS[na:na + nb])
    for a, b in zip(axa, axb):
        tb[b] = ta[a]
    tb = "".join(tb)
    out = "".join(c for k, c in enumerate(ta) if k not in axa) + \
        "".join(c for k, c in enumerate(tb) if k not in axb)
    return [ta, tb], out


def tensordot_grad(g, a, b, axes=2, which=0):
    """Adjoint of ``np.tensordot(a, b, axes)`` for ``a`` (which=0) or ``b`` (which=1)."""
    terms, out = _tensordot_terms(np.ndim(a), np.ndim(b), axes)
    return _einsum_adjoint(g, terms, out, [a, b], which)


def dot_grad(g, a, b, which=0):
    """Adjoint of ``np.dot(a, b)`` (scalars, vectors, matrices and N-D) for a or b."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        axes = 0
    else:
        axes = ([-1], [-2 if nb >= 2 else 0])
    return tensordot_grad(g, a, b, axes, which)


def inner_grad(g, a, b, which=0):
    """Adjoint of ``np.inner(a, b)`` (a sum over both last axes)."""
    axes = 0 if np.ndim(a) == 0 or np.ndim(b) == 0 else ([-1], [-1])
    return tensordot_grad(g, a, b, axes, which)


def outer_grad(g, a, b, which=0):
    """Adjoint of ``np.outer(a, b)`` (inputs are flattened)."""
    if which == 0:
        return _fit(g @ np.ravel(b), a)
    return _fit(np.ravel(a) @ g, b)


def kron_grad(g, a, b, which=0):
    """Adjoint of ``np.kron(a, b)``."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    g4 = np.reshape(g, [n for pair in zip(sa, sb) for n in pair])
    ta, tb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
    tg = "".join(x + y for x, y in zip(ta, tb))
    if which == 0:
        return _fit(np.einsum(f"{tg},{tb}->{ta}", g4, np.reshape(b, sb)), a)
    return _fit(np.einsum(f"{tg},{ta}->{tb}", g4, np.reshape(a, sa)), b)


def cross_grad(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None, which=0):
    """Adjoint of ``np.cross`` (2- and 3-vectors) for ``a`` (which=0) or ``b`` (which=1)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a_, b_ = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    def three(v):
        return v if v.shape[-1] == 3 else np.concatenate([v, np.zeros_like(v[..., :1])], -1)
    if a_.shape[-1] == 2 and b_.shape[-1] == 2:   # the result is the z component only
        g3 = np.stack([np.zeros_like(g), np.zeros_like(g), g], axis=-1)
    else:
        g3 = np.moveaxis(g, axisc, -1)
    if which == 0:
        d = np.cross(three(b_), g3)[..., :a_.shape[-1]]
        return np.moveaxis(_sum_to(d, a_), -1, axisa)
    d = np.cross(g3, three(a_))[..., :b_.shape[-1]]
    return np.moveaxis(_sum_to(d, b_), -1, axisb)


def _solve(a, rhs, vector):
    """``np.linalg.solve`` with ``rhs`` a (stack of) vector(s) when ``vector``."""
    if vector:
        return np.linalg.solve(a, rhs[..., None])[..., 0]
    return np.linalg.solve(a, rhs)


def solve_grad_b(g, a, b):
    """Adjoint of ``x = np.linalg.solve(a, b)`` for ``b``: ``solve(a.T, g)``."""
    return _sum_to(_solve(mT(a), g, np.ndim(b) == 1), b)


def solve_grad_a(g, ans, a, b):
    """Adjoint of ``x = np.linalg.solve(a, b)`` for ``a``: ``-solve(a.T, g) x.T``."""
    gb = _solve(mT(a), g, np.ndim(b) == 1)
    if np.ndim(b) == 1:
        return _sum_to(-gb[..., :, None] * ans[..., None, :], a)
    return _sum_to(-gb @ mT(ans), a)


def solve_jvp_a(da, ans, a, b):
    """Tangent of ``x = np.linalg.solve(a, b)`` along ``da``: ``-solve(a, da x)``."""
    if np.ndim(b) == 1:
        return -_solve(a, (da @ ans[..., None])[..., 0], True)
    return -_solve(a, da @ ans, False)


def solve_jvp_b(db, a, b):
    """Tangent of ``x = np.linalg.solve(a, b)`` along ``db``: ``solve(a, db)``."""
    return _solve(a, db, np.ndim(b) == 1)


def _diag_block(g, m, n, k, ref):
    """Stack of ``m x n`` matrices with ``g[..., i]`` on diagonal ``k`` (last two axes)."""
    length = np.shape(g)[-1]
    along = m if k >= 0 else n                  # pad g to the length of its broadcast axis
    pad = [(0, 0)] * (np.ndim(g) - 1) + [(0, along - length)]
    gp = np.pad(g, pad) if along != length else g
    e = _eye(m, n, k, ref)
    return e * gp[..., :, None] if k >= 0 else e * gp[..., None, :]


def diagonal_grad(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal(a, offset, axis1, axis2)``."""
    nd = np.ndim(a)
    axis1, axis2 = axis1 % nd, axis2 % nd
    m, n = np.shape(a)[axis1], np.shape(a)[axis2]
    block = _diag_block(g, m, n, offset, a)
    return np.moveaxis(block, (-2, -1), (axis1, axis2))


def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.trace``: ``g`` on the ``offset`` diagonal of every matrix."""
    nd = np.ndim(a)
    axis1, axis2 = axis1 % nd, axis2 % nd
    m, n = np.shape(a)[axis1], np.shape(a)[axis2]
    block = np.expand_dims(g, (-2, -1)) * _eye(m, n, offset, a)
    return np.moveaxis(block, (-2, -1), (axis1, axis2))


def diag_grad(g, v, k=0):
    """Adjoint of ``np.diag(v, k)``: extract a diagonal (1-D v) or build a matrix (2-D v)."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k).copy()
    return diagonal_grad(g, v, k, 0, 1)


def _conv_window(mode, m, n, correlate):
    """Start of ``mode``'s window inside the full convolution (NumPy's conventions)."""
    if mode == "full":
        return 0
    if mode == "valid":
        return min(m, n) - 1
    if correlate and m < n:                     # NumPy swaps the inputs and reverses
        return m // 2
    return (min(m, n) - 1) // 2


def _conv_adjoint(g, a, w, start, which):
    full = np.size(a) + np.size(w) - 1
    g = np.ravel(g)
    gfull = np.pad(g, (start, full - start - g.shape[0]))
    return np.correlate(gfull, np.ravel(w if which == 0 else a), "valid")


def convolve_grad(g, a, v, mode="full", which=0):
    """Adjoint of ``np.convolve(a, v, mode)`` for ``a`` (which=0) or ``v`` (which=1)."""
    start = _conv_window(mode, np.size(a), np.size(v), False)
    return _fit(_conv_adjoint(g, a, v, start, which), a if which == 0 else v)


def correlate_grad(g, a, v, mode="valid", which=0):
    """Adjoint of ``np.correlate(a, v, mode)`` (real inputs): a convolution with ``v``
    reversed."""
    start = _conv_window(mode, np.size(a), np.size(v), True)
    w = np.flip(np.ravel(v))
    if which == 0:
        return _fit(_conv_adjoint(g, a, w, start, 0), a)
    return _fit(np.flip(_conv_adjoint(g, a, w, start, 1)), v)


def vecdot_grad(g, x, y, axis=-1):
    """Adjoint of ``np.vecdot(x, y, axis=axis)`` for ``x`` (swap the operands for ``y``)."""
    xm, ym = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    grad = np.expand_dims(g, -1) * ym
    return np.moveaxis(_sum_to(grad, xm), -1, axis)


def matvec_grad(g, A, v, which=0):
    """Adjoint of ``np.matvec(A, v)`` (``A @ v`` over stacks) for A (0) or v (1)."""
    if which == 0:
        return _sum_to(g[..., :, None] * v[..., None, :], A)
    return _sum_to((g[..., None, :] @ A)[..., 0, :], v)


def vecmat_grad(g, v, A, which=0):
    """Adjoint of ``np.vecmat(v, A)`` (``v @ A`` over stacks) for v (0) or A (1)."""
    if which == 0:
        return _sum_to((A @ g[..., :, None])[..., 0], v)
    return _sum_to(v[..., :, None] * g[..., None, :], A)


def _chain_terms(arrays):
    """Einsum terms of ``np.linalg.multi_dot(arrays)`` (first / last may be 1-D)."""
    n = len(arrays)
    labels = _LETTERS[:n + 1]
    terms = [labels[i:i + 2] for i in range(n)]
    out = labels[0] + labels[n]
    if np.ndim(arrays[0]) == 1:
        terms[0], out = terms[0][1:], out[1:]
    if np.ndim(arrays[-1]) == 1:
        terms[-1], out = terms[-1][:-1], out[:-1]
    return terms, out


def multi_dot_grad(g, arrays):
    """Adjoint of ``np.linalg.multi_dot(arrays)``: one cotangent per matrix."""
    terms, out = _chain_terms(arrays)
    grads = [_einsum_adjoint(g, terms, out, list(arrays), i) for i in range(len(arrays))]
    return tuple(grads) if isinstance(arrays, tuple) else grads


def multi_dot_jvp(darrays, arrays):
    out = None
    for i, d in enumerate(darrays if darrays is not None else []):
        if d is None:
            continue
        ops = list(arrays)
        ops[i] = d
        term = np.linalg.multi_dot(ops)
        out = term if out is None else out + term
    return out


def matrix_power_grad(g, a, n):
    """Adjoint of ``np.linalg.matrix_power(a, n)``: ``sum_k (a^T)^k g (a^T)^(n-1-k)``."""
    if n == 0:
        return np.zeros_like(a, dtype=np.result_type(a, np.float32))
    if n < 0:
        b = np.linalg.inv(a)
        gb = matrix_power_grad(g, b, -n)
        return -mT(b) @ gb @ mT(b)
    at = mT(a)
    powers = [None] * n
    powers[0] = np.broadcast_to(_eye(a.shape[-1], a.shape[-1], 0, a), a.shape)
    for k in range(1, n):
        powers[k] = powers[k - 1] @ at
    return sum(powers[k] @ g @ powers[n - 1 - k] for k in range(n))


def matrix_power_jvp(da, a, n):
    """Tangent of ``np.linalg.matrix_power(a, n)``: ``sum_k a^k da a^(n-1-k)``."""
    if n == 0:
        return np.zeros_like(da)
    if n < 0:
        b = np.linalg.inv(a)
        return matrix_power_jvp(-b @ da @ b, b, -n)
    powers = [np.broadcast_to(_eye(a.shape[-1], a.shape[-1], 0, a), a.shape)]
    for k in range(1, n):
        powers.append(powers[-1] @ a)
    return sum(powers[k] @ da @ powers[n - 1 - k] for k in range(n))


def pad_value_grad(g, array, pad_width, constant_values=0):
    """Adjoint of ``np.pad(..., mode='constant')`` for a scalar ``constant_values``:
    the sum of the cotangent over the padding."""
    if np.ndim(constant_values) > 0:
        raise NotImplementedError("np.pad: derivative for a scalar constant_values only")
    return np.sum(g) - np.sum(pad_grad(g, array, pad_width, "constant"))


# -- shape and selection ---------------------------------------------------------------

def _perm(axes, ndim):
    """The permutation of a transpose: ``np.transpose(a, axes)`` or ``a.transpose(*axes)``."""
    if isinstance(axes, tuple) and len(axes) == 1 and (axes[0] is None or
                                                       isinstance(axes[0], (tuple, list))):
        axes = axes[0]                          # a.transpose((1, 0)) / a.transpose(None)
    if axes is None or (isinstance(axes, tuple) and len(axes) == 0):
        return tuple(range(ndim))[::-1]
    return tuple(int(a) % ndim for a in axes)


def transpose_grad(g, axes=None):
    """Adjoint of a transpose: the inverse permutation (``axes`` in any accepted form)."""
    perm = _perm(axes, np.ndim(g))
    return np.transpose(g, tuple(int(i) for i in np.argsort(perm)))


def _gather_index(a, order):
    """Positions (in ``a``'s C order) read by ``np.ravel(a, order)``."""
    index = np.empty_like(a, dtype=np.intp, order="K" if order in ("K", "A") else "C")
    index[...] = np.arange(np.size(a)).reshape(np.shape(a))
    return np.ravel(index, order="K" if order == "K" else
                    ("F" if order == "A" and a.flags.f_contiguous and not a.flags.c_contiguous
                     else order if order != "A" else "C"))


def ravel_grad(g, a, order="C"):
    """Adjoint of ``np.ravel(a, order)`` / ``a.flatten(order)`` for every order."""
    if order in ("C", "F", None):
        return np.reshape(g, np.shape(a), order=order or "C")
    index = _like(_gather_index(a, order), g)
    out = np.zeros_like(np.ravel(g))
    out[index] = g                              # a permutation: each entry once
    return np.reshape(out, np.shape(a))


def ravel_jvp(da, a, order="C"):
    """Tangent of ``np.ravel(a, order)``: ``da`` read in the order ``a`` is read."""
    if order in ("C", "F", None):
        return np.ravel(da, order=order or "C")
    return np.ravel(da)[_like(_gather_index(a, order), da)]


def roll_grad(g, shift, axis=None):
    """Adjoint of ``np.roll``: roll back."""
    back = -shift if isinstance(shift, (int, np.integer)) else tuple(-s for s in shift)
    return np.roll(g, back, axis)


def tile_grad(g, A, reps):
    """Adjoint of ``np.tile(A, reps)``: sum the tiles."""
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    nd = max(np.ndim(A), len(reps))
    shape = (1,) * (nd - np.ndim(A)) + np.shape(A)
    reps = (1,) * (nd - len(reps)) + reps
    g = np.reshape(g, [n for pair in zip(reps, shape) for n in pair])
    return _fit(np.sum(g, axis=tuple(range(0, 2 * nd, 2))), A)


def repeat_grad(g, a, repeats, axis=None):
    """Adjoint of ``np.repeat``: sum each run of copies."""
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


def _wrap_index(indices, n, mode):
    if mode == "clip":
        return np.clip(indices, 0, n - 1)
    if mode == "wrap":
        return np.mod(indices, n)
    return np.where(np.asarray(indices) < 0, np.asarray(indices) + n, indices)


def take_grad(g, a, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take``: scatter-add (repeated indices accumulate)."""
    x, ax = _along(a, axis)
    out = np.zeros_like(x, dtype=np.result_type(x, g, np.float32))
    idx = _wrap_index(indices, x.shape[ax], mode)
    np.add.at(out, (slice(None),) * ax + (idx,), g)
    return _fit(out, a)


def take_along_axis_grad(g, arr, indices, axis=-1):
    """Adjoint of ``np.take_along_axis``: scatter-add along ``axis``."""
    x, ax = _along(arr, axis)
    ax = ax % x.ndim
    out = np.zeros_like(x, dtype=np.result_type(x, g, np.float32))
    grid = list(np.ogrid[tuple(slice(n) for n in np.shape(g))])
    grid[ax] = indices
    np.add.at(out, tuple(grid), g)
    return _fit(out, arr)


def pad_grad(g, array, pad_width, mode="constant"):
    """Adjoint of ``np.pad`` for the modes that copy entries (constant, edge, reflect,
    symmetric, wrap): each input entry collects the cotangent of all its copies."""
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


def sort_jvp(da, a, axis=-1):
    """Tangent of ``np.sort``: ``da`` permuted as ``a`` was sorted."""
    if axis is None:
        return np.ravel(da)[np.argsort(a, axis=None)]
    return np.take_along_axis(da, np.argsort(a, axis=axis), axis=axis)


def fill_tangents(dxs, xs):
    """A list of the tangents of ``xs`` with None replaced by zeros."""
    if dxs is None:
        dxs = [None] * len(xs)
    return [_zeros(x) if d is None else d for d, x in zip(dxs, xs)]


_PROMOTE = {0: lambda x: x, 1: np.atleast_1d, 2: np.atleast_2d, 3: np.atleast_3d,
            "column": lambda x: np.reshape(x, (-1, 1)) if np.ndim(x) < 2 else x}


def _join_axis(arrays, how):
    if how == "hstack":
        return 0 if all(np.ndim(x) <= 1 for x in arrays) else 1
    return {"vstack": 0, "dstack": 2, "column_stack": 1}[how]


def join_grad(g, arrays, axis=0, how="concatenate"):
    """Adjoint of joining ``arrays``: concatenate (axis None: flattened), stack, hstack,
    vstack, dstack, column_stack.  A list (or tuple) of cotangents, one per array."""
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
    return tuple(grads) if isinstance(arrays, tuple) else grads


def join_jvp(darrays, arrays, axis=0, how="concatenate"):
    """Tangent of a join: the same join of the tangents (zeros where None)."""
    ts = fill_tangents(darrays, arrays)
    if how == "concatenate":
        return np.concatenate(ts, axis=axis)
    if how == "stack":
        return np.stack(ts, axis=axis)
    return getattr(np, how)(ts)


def split_grad(g, ary, indices_or_sections, axis=0):
    """Adjoint of ``np.split`` / ``array_split``: concatenate the pieces' cotangents."""
    pieces = np.array_split(ary, indices_or_sections, axis=axis)
    return np.concatenate(fill_tangents(g, pieces), axis=axis)


def split_jvp(dary, ary, indices_or_sections, axis=0):
    return np.array_split(dary, indices_or_sections, axis=axis)


def atleast_grad(g, arys):
    """Adjoint of ``np.atleast_1d/2d/3d(*arys)`` (one array out, or a list for several)."""
    if len(arys) == 1:
        return (_fit(g, arys[0]),)
    return tuple(None if gi is None else _fit(gi, x) for gi, x in zip(g, arys))


def atleast_jvp(darys, arys, fn):
    return fn(*fill_tangents(darys, arys))


def append_grad(g, arr, values, axis=None):
    """Adjoint of ``np.append(arr, values, axis)``: a pair of cotangents."""
    if axis is None:
        n = np.size(arr)
        gf = np.ravel(g)
        return _fit(gf[:n], arr), _fit(gf[n:], values)
    n = np.shape(arr)[axis]
    first, second = np.split(g, [n], axis=axis)
    return _fit(first, arr), _fit(second, values)


def array_grad(g, obj):
    """Adjoint of ``np.array(obj)`` / ``np.asarray``: the cotangent in ``obj``'s structure
    (an array for an array, a list of cotangents for a list of arrays or floats)."""
    if hasattr(obj, "shape"):
        grad = np.reshape(g, obj.shape)
        return grad.astype(obj.dtype) if obj.dtype.kind == "f" and grad.dtype != obj.dtype \
            else grad
    if isinstance(obj, (list, tuple)):
        g = np.reshape(g, np.shape(obj))
        grads = [array_grad(g[i], x) for i, x in enumerate(obj)]
        return tuple(grads) if isinstance(obj, tuple) else grads
    return g[()] if hasattr(g, "shape") else g


def array_jvp(dobj, obj, dtype=None, ndmin=0):
    """Tangent of ``np.array(obj)``: the array of the tangents (zeros where None)."""
    def fill(d, x):
        if isinstance(x, (list, tuple)):
            ds = d if d is not None else [None] * len(x)
            return [fill(di, xi) for di, xi in zip(ds, x)]
        return _zeros(x) if d is None else d
    t = fill(dobj, obj)
    if isinstance(t, list) and t and all(hasattr(v, "shape") for v in t):
        t = np.stack(t)                         # works for cupy tangents too
    return np.array(t, dtype=dtype, ndmin=ndmin)


def linspace_grad(g, start, stop, num=50, endpoint=True, axis=0, which=0):
    """Adjoint of ``np.linspace(start, stop, num, endpoint, axis=axis)`` for start
    (which=0) or stop (which=1); sample i is ``start + (stop - start) * i / div``."""
    div = (num - 1 if endpoint else num) or 1
    w = _like((np.arange(num) / div).astype(_fdtype(g)), g)
    w = 1.0 - w if which == 0 else w
    total = np.sum(np.moveaxis(g, axis, -1) * w, axis=-1)
    return _sum_to(total, start if which == 0 else stop)


# -- builtins and math -----------------------------------------------------------------

def seq_sum_grad(g, iterable):
    """Adjoint of ``sum(iterable)`` / ``math.fsum``: ``g`` for every item (un-broadcast);
    for an ndarray (summed over axis 0), ``g`` broadcast back."""
    if hasattr(iterable, "shape"):
        return np.broadcast_to(g, iterable.shape)
    grads = [_sum_to(g, x) for x in iterable]
    return tuple(grads) if isinstance(iterable, tuple) else grads


def seq_sum_jvp(diterable, iterable):
    if hasattr(iterable, "shape"):
        return np.sum(diterable, axis=0)
    out = 0.0
    for t in fill_tangents(diterable, iterable):
        out = out + t
    return out


def seq_prod_grad(g, iterable, start=1):
    """Adjoint of ``math.prod(iterable, start=start)``: the product of the other factors."""
    items = list(iterable)
    grads = []
    for i in range(len(items)):
        other = start
        for j, x in enumerate(items):
            if j != i:
                other = other * x
        grads.append(g * other)
    return tuple(grads) if isinstance(iterable, tuple) else grads


def seq_prod_jvp(diterable, iterable, start=1):
    out = 0.0
    for d, grad in zip(fill_tangents(diterable, iterable), seq_prod_grad(1.0, iterable, start)):
        out = out + d * grad
    return out


def _selected(args, ans):
    """``(items, index)``: the argument(s) of ``max``/``min`` and which one was returned."""
    items = args[0] if len(args) == 1 else args
    if hasattr(items, "shape"):
        for i in range(len(items)):
            if np.all(items[i] == ans):
                return items, i
    for i, x in enumerate(items):
        if x is ans:
            return items, i
    for i, x in enumerate(items):
        if np.all(x == ans):
            return items, i
    raise ValueError("max/min: the result is none of the arguments")


def select_grad(g, ans, args):
    """Adjoint of builtin ``max(*args)`` / ``min(*args)``: ``g`` to the returned item.

    ``args`` is the bound ``*args`` tuple: several items, or one iterable of items.
    """
    items, k = _selected(args, ans)
    if hasattr(items, "shape"):
        grad = np.zeros_like(items, dtype=np.result_type(items, np.float32))
        grad[k] = g
        inner = grad
    else:
        inner = [g if i == k else _zeros(x) for i, x in enumerate(items)]
        inner = tuple(inner) if isinstance(items, tuple) else inner
    return (inner,) if len(args) == 1 else tuple(inner)


def select_jvp(dargs, args, ans):
    items, k = _selected(args, ans)
    if len(args) == 1:
        d = dargs[0] if dargs else None
        if d is None:
            return _zeros(ans)
        return d[k]
    d = dargs[k] if dargs else None
    return _zeros(ans) if d is None else d


# -- selection by value: partition, median and quantiles --------------------------------
# (added with tests/test_corpus_numpy.py, as the rules that use them)

def _flat_axes(a, axis):
    """``a`` with the ``axis`` axes (None: all) moved last and merged into one.

    Returns ``(moved, undo)``: ``undo(m)`` maps an array shaped like ``moved`` back to
    ``a``'s shape."""
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


def _matched_order(ans, a, axis):
    """``(src, dst)``: ``ans[..., dst[k]] == a[..., src[k]]`` along the (last) axis.

    ``ans`` is a permutation of ``a`` along ``axis`` (np.partition, np.sort); sorting
    both the same stable way pairs every output slot with one input entry, ties
    included (a bijection, so no entry gets two cotangents)."""
    return np.argsort(a, axis=-1, kind="stable"), np.argsort(ans, axis=-1, kind="stable")


def _along_last(x, axis):
    if axis is None:
        return np.ravel(x), 0
    return np.moveaxis(x, axis, -1), axis


def permuted_grad(g, ans, a, axis=-1):
    """Adjoint of a function whose result is ``a`` permuted along ``axis`` (np.partition)."""
    x, ax = _along_last(a, axis)
    y, _ = _along_last(ans, axis)
    gm, _ = _along_last(g, axis)
    src, dst = _matched_order(y, x, ax)
    out = np.zeros_like(x, dtype=np.result_type(x, gm, np.float32))
    np.put_along_axis(out, src, np.take_along_axis(gm, dst, axis=-1), axis=-1)
    out = np.ravel(out) if axis is None else np.moveaxis(out, -1, axis)
    return _fit(out, a)


def permuted_jvp(da, ans, a, axis=-1):
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
    flat, undo = _flat_axes(a, axis)
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    lo, hi, frac = _quantile_weights(n, q, method)
    return flat, undo, n, order, lo, hi, frac


def quantile_grad(g, a, q, axis=None, keepdims=False, method="linear", scale=1.0):
    """Adjoint of ``np.quantile(a, q * scale, axis, keepdims=keepdims, method=method)``
    (np.median: q = 0.5; np.percentile: scale = 1/100) with respect to ``a``."""
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
    flat, undo, n, order, lo, hi, frac = _quantile_setup(a, np.asarray(q) * scale, axis, method)
    if method != "linear":
        return _fit(np.zeros(np.shape(q), dtype=_fdtype(q)), q)
    s = np.take_along_axis(flat, order, axis=-1)
    slope = (np.take(s, _like(np.ravel(hi), s), axis=-1)
             - np.take(s, _like(np.ravel(lo), s), axis=-1)) * (n - 1)
    gq = np.moveaxis(np.reshape(g, (lo.size,) + flat.shape[:-1]), 0, -1)         # lead + (nq,)
    total = np.sum(np.reshape(gq * slope, (-1, lo.size)), axis=0) * scale
    return _fit(np.reshape(total, np.shape(q)).astype(_fdtype(q), copy=False), q)


def quantile_q_jvp(dq, ans, a, q, axis=None, keepdims=False, method="linear", scale=1.0):
    flat, undo, n, order, lo, hi, frac = _quantile_setup(a, np.asarray(q) * scale, axis, method)
    if method != "linear":
        return np.zeros_like(ans, dtype=_fdtype(ans))
    s = np.take_along_axis(flat, order, axis=-1)
    slope = (np.take(s, _like(np.ravel(hi), s), axis=-1)
             - np.take(s, _like(np.ravel(lo), s), axis=-1)) * (n - 1)
    t = slope * np.ravel(np.asarray(dq) * scale)
    return np.reshape(np.moveaxis(t, -1, 0), np.shape(ans))


# -- more selection and joining ---------------------------------------------------------

def rollaxis_grad(g, a, axis, start=0):
    """Adjoint of ``np.rollaxis(a, axis, start)``: the inverse permutation."""
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
    return _fit(np.diagonal(g, k).copy(), v)


def compress_grad(g, condition, a, axis=None):
    """Adjoint of ``np.compress(condition, a, axis)``: ``g`` back at the kept positions."""
    x, ax = _along(a, axis)
    keep = np.nonzero(np.asarray(condition))[0]
    out = np.zeros_like(x, dtype=np.result_type(x, g, np.float32))
    out[(slice(None),) * ax + (_like(keep, g),)] = g
    return _fit(out, a)


def extract_grad(g, condition, arr):
    """Adjoint of ``np.extract(condition, arr)`` (``ravel(arr)[ravel(condition) != 0]``)."""
    keep = np.nonzero(np.ravel(condition))[0]
    out = np.zeros_like(np.ravel(arr), dtype=np.result_type(getattr(arr, "dtype", np.float64),
                                                            g, np.float32))
    out[keep] = g
    return _fit(np.reshape(out, np.shape(arr)), arr)


def _select_masks(condlist, ref):
    """Where each choice of ``np.select`` wins (the first true condition), and where the
    default does; ``ref`` has the result's shape (and backend)."""
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
    masks, _ = _select_masks(condlist, ans)
    out = np.zeros_like(ans, dtype=_fdtype(ans))
    for m, d in zip(masks, fill_tangents(dchoicelist, choicelist)):
        out = out + m * d
    return out.astype(_fdtype(ans), copy=False)


def npselect_default_jvp(ddefault, ans, condlist):
    _, rest = _select_masks(condlist, ans)
    return rest * ddefault + np.zeros_like(ans, dtype=_fdtype(ans))


def meshgrid_grad(g, xi, sparse=False, indexing="xy"):
    """Adjoint of ``np.meshgrid(*xi, sparse=sparse, indexing=indexing)``: each output
    is its input along one axis, repeated along the others; sum the repeats."""
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
    ts = fill_tangents(dxi, xi)
    out = np.meshgrid(*[np.ravel(np.asarray(t, dtype=np.float64)) if not hasattr(t, "shape")
                        else t for t in ts], sparse=sparse, indexing=indexing)
    return tuple(out)


def tolist_grad(g, a):
    """Adjoint of ``a.tolist()``: the nested list of cotangents (None: zero) as an array."""
    def fill(gi, shape):
        if gi is None:
            return np.zeros(shape)
        if isinstance(gi, (list, tuple)):
            return np.stack([fill(x, shape[1:]) for x in gi]) if len(gi) else np.zeros(shape)
        return np.broadcast_to(np.asarray(gi, dtype=np.float64), shape)
    out = fill(g, np.shape(a))
    return np.reshape(out, np.shape(a)).astype(_fdtype(a), copy=False)


def cumulative_trim(g, x, axis=None, include_initial=False):
    """The cotangent of ``np.cumulative_sum/prod`` without its initial slice."""
    if not include_initial:
        return g
    ax = 0 if axis is None else axis
    return np.take(g, _like(np.arange(1, np.shape(g)[ax]), g), axis=ax)


def cumulative_pad(t, axis=None, include_initial=False):
    """A tangent of ``np.cumulative_prod`` with the (constant) initial slice put back."""
    if not include_initial:
        return t
    ax = 0 if axis is None else axis
    pad = [(0, 0)] * np.ndim(t)
    pad[ax] = (1, 0)
    return np.pad(t, pad)


def polyval_grad_p(g, p, x):
    """Adjoint of ``np.polyval(p, x)`` for the coefficients ``p`` (highest power first)."""
    n = len(p)
    grad = [np.sum(g * x ** (n - 1 - i)) for i in range(n)]
    if isinstance(p, (list, tuple)):
        return type(p)(float(v) for v in grad)
    return np.reshape(np.stack(grad), np.shape(p)).astype(_fdtype(p), copy=False)


def polyval_deriv(p, x):
    """``d polyval(p, x) / dx``, in the floating dtype of ``p`` and ``x``."""
    dtype = np.result_type(getattr(p, "dtype", np.float64) if not isinstance(p, (list, tuple))
                           else np.float64, getattr(x, "dtype", np.float64), np.float32)
    return np.polyval(np.polyder(p).astype(dtype, copy=False), x)


# -- nan-reductions and averages ---------------------------------------------------------

def nanvar_grad(g, a, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.nanvar``: as ``np.var`` over the non-NaN entries; NaNs get 0."""
    ok = ~np.isnan(a)
    n = np.sum(ok, axis=axis, keepdims=True, dtype=_fdtype(a))
    centred = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return _fit(2.0 * centred * _keep(g, np.ndim(a), axis, keepdims) / (n - ddof), a)


def nanvar_jvp(da, a, axis=None, ddof=0, keepdims=False):
    ok = ~np.isnan(a)
    n = np.sum(ok, axis=axis, keepdims=keepdims, dtype=_fdtype(a))
    centred = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return 2.0 * np.sum(centred * np.where(ok, da, 0), axis=axis, keepdims=keepdims) / (n - ddof)


def _average_parts(a, axis, weights):
    """Weights broadcast to ``a`` (a 1-D ``weights`` lies along ``axis``), their sum."""
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


def average_grad(g, a, axis=None, weights=None, keepdims=False, which=0):
    """Adjoint of ``np.average(a, axis, weights, keepdims=keepdims)`` for ``a`` (which=0)
    or ``weights`` (which=1)."""
    w, sw = _average_parts(a, axis, weights)
    gk = _keep(g, np.ndim(a), axis, keepdims)
    if which == 0:
        return _fit(gk * w / sw, a)
    avg = np.sum(a * w, axis=axis, keepdims=True) / sw
    gw = gk * (a - avg) / sw                             # a's shape
    if np.shape(weights) != np.shape(a):                 # 1-D weights along axis
        ax = axis % np.ndim(a)
        gw = np.sum(gw, axis=tuple(i for i in range(np.ndim(a)) if i != ax))
    return _fit(np.reshape(gw, np.shape(weights)), weights)


def average_jvp(dweights, a, axis=None, weights=None, keepdims=False):
    w, sw = _average_parts(a, axis, weights)
    dw, _ = _average_parts(a, axis, dweights)
    avg = np.sum(a * w, axis=axis, keepdims=True) / sw
    return np.sum((a - avg) * dw, axis=axis, keepdims=keepdims) / \
        (sw if keepdims else np.sum(w, axis=axis))


# -- linear algebra: factorizations -----------------------------------------------------

def _eye_like(x):
    n = np.shape(x)[-1]
    return _eye(n, n, 0, x)


def _from_triangle(s, lower=True):
    """The gradient with respect to ``a`` of a function that reads one triangle of ``a``
    (LAPACK's symmetric routines), from ``s``, its gradient with respect to the
    symmetric matrix that triangle defines: the off-diagonal entries count twice."""
    t = s + mT(s)
    off = np.tril(t, -1) if lower else np.triu(t, 1)
    return off + s * _eye_like(s)


def _to_symmetric(da, lower=True):
    """The tangent of the symmetric matrix that one triangle of ``a`` defines."""
    if lower:
        return np.tril(da) + mT(np.tril(da, -1))
    return np.triu(da) + mT(np.triu(da, 1))


def _phi(x):
    """Lower triangle with the diagonal halved."""
    return np.tril(x) - 0.5 * x * _eye_like(x)


def cholesky_grad(g, ans, a, upper=False):
    """Adjoint of ``np.linalg.cholesky`` (``a = L L^T``, read from the lower triangle;
    ``upper=True``: ``a = U^T U`` read from the upper one)."""
    L, gL = (mT(ans), mT(g)) if upper else (ans, g)
    Linv = np.linalg.inv(L)
    s = mT(Linv) @ _phi(mT(L) @ gL) @ Linv
    return _from_triangle(0.5 * (s + mT(s)), lower=not upper)


def cholesky_jvp(da, ans, a, upper=False):
    L = mT(ans) if upper else ans
    Linv = np.linalg.inv(L)
    dL = L @ _phi(Linv @ _to_symmetric(da, lower=not upper) @ mT(Linv))
    return mT(dL) if upper else dL


def _gap_inverse(w):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it (a stack of them)."""
    diff = w[..., None, :] - w[..., :, None]
    eye = _eye_like(diff).astype(bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, diff))


def _parts(g, k):
    """The cotangents of a tuple result (None: zero), as a list of length ``k``."""
    if g is None:
        return [None] * k
    return list(g) + [None] * (k - len(g))


def eigh_grad(g, ans, a, UPLO="L"):
    """Adjoint of ``np.linalg.eigh(a, UPLO)`` (distinct eigenvalues)."""
    w, v = ans
    gw, gv = _parts(g, 2)
    inner = 0.0
    if gw is not None:
        inner = inner + gw[..., None, :] * _eye_like(v)
    if gv is not None:
        inner = inner + _gap_inverse(w) * (mT(v) @ gv)
    s = v @ inner @ mT(v) if not np.isscalar(inner) else np.zeros_like(a, dtype=_fdtype(a))
    return _from_triangle(0.5 * (s + mT(s)), lower=UPLO.upper() == "L")


def eigh_jvp(da, ans, a, UPLO="L"):
    w, v = ans
    dp = mT(v) @ _to_symmetric(da, lower=UPLO.upper() == "L") @ v
    dw = np.diagonal(dp, axis1=-2, axis2=-1)
    dv = v @ (_gap_inverse(w) * dp)
    return (dw, dv)


def eigvalsh_grad(g, a, UPLO="L"):
    return eigh_grad((g, None), np.linalg.eigh(a, UPLO), a, UPLO)


def eigvalsh_jvp(da, a, UPLO="L"):
    return eigh_jvp(da, np.linalg.eigh(a, UPLO), a, UPLO)[0]


def _reduced_svd(ans, a, full_matrices, compute_uv, g=None):
    """``(u, s, vt, gu, gs, gvt)`` of the thin SVD, whatever form the call returned."""
    if not compute_uv:
        u, s, vt = np.linalg.svd(a, full_matrices=False)
        return u, s, vt, None, g, None
    u, s, vt = ans
    gu, gs, gvt = _parts(g, 3)
    m, n = np.shape(a)[-2:]
    k = min(m, n)
    if full_matrices and m != n:
        # the columns of u (rows of vt) past k are not functions of a: no derivative,
        # unless nothing depends on them
        for extra in (gu[..., :, k:] if gu is not None and m > k else None,
                      gvt[..., k:, :] if gvt is not None and n > k else None):
            if extra is not None and np.any(extra != 0):
                raise ValueError("np.linalg.svd(full_matrices=True) of a non-square matrix: "
                                 "the extra singular vectors have no derivative; use "
                                 "full_matrices=False")
        u, vt = u[..., :, :k], vt[..., :k, :]
        gu = gu[..., :, :k] if gu is not None else None
        gvt = gvt[..., :k, :] if gvt is not None else None
    return u, s, vt, gu, gs, gvt


def svd_grad(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Adjoint of ``np.linalg.svd`` (distinct, non-zero singular values)."""
    u, s, vt, gu, gs, gvt = _reduced_svd(ans, a, full_matrices, compute_uv, g)
    v = mT(vt)
    m, n = np.shape(a)[-2:]
    eye = _eye_like(v[..., :1, :])              # k x k
    inner = (gs[..., None, :] * eye) if gs is not None else 0.0 * eye
    f = _gap_inverse(s ** 2)
    smat = s[..., None, :] * eye
    out = 0.0
    if gu is not None:
        ut_gu = mT(u) @ gu
        inner = inner + (f * (ut_gu - mT(ut_gu))) @ smat
        if m > s.shape[-1]:
            out = out + (gu - u @ ut_gu) / s[..., None, :] @ vt
    if gvt is not None:
        gv = mT(gvt)
        vt_gv = vt @ gv
        inner = inner + smat @ (f * (vt_gv - mT(vt_gv)))
        if n > s.shape[-1]:
            out = out + (u / s[..., None, :]) @ mT(gv - v @ vt_gv)
    grad = u @ inner @ vt + out
    if hermitian:                       # NumPy then reads the lower triangle (eigh)
        return _from_triangle(grad)
    return grad


def svd_jvp(da, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    if hermitian:
        da = _to_symmetric(da)
    m, n = np.shape(a)[-2:]
    if compute_uv and full_matrices and m != n:
        raise ValueError("np.linalg.svd(full_matrices=True) of a non-square matrix: the "
                         "extra singular vectors have no derivative; use full_matrices=False")
    u, s, vt, _, _, _ = _reduced_svd(ans, a, False, compute_uv)
    v = mT(vt)
    dp = mT(u) @ da @ v
    ds = np.diagonal(dp, axis1=-2, axis2=-1)
    if not compute_uv:
        return ds
    f = _gap_inverse(s ** 2)
    sr = s[..., None, :]                        # scales columns
    sl = s[..., :, None]                        # scales rows
    du = u @ (f * (dp * sr + sl * mT(dp)))
    dv = v @ (f * (sl * dp + mT(dp) * sr))
    if m > s.shape[-1]:
        du = du + (da @ v - u @ (mT(u) @ da @ v)) / sr
    if n > s.shape[-1]:
        dv = dv + (mT(da) @ u - v @ (mT(v) @ mT(da) @ u)) / sr
    return (du, ds, mT(dv))


def pinv_grad(g, ans, a, hermitian=False):
    """Adjoint of ``np.linalg.pinv`` (where the rank is locally constant)."""
    x = ans
    xt = mT(x)
    gt = mT(g)
    grad = (-xt @ g @ xt + (gt - a @ (x @ gt)) @ (x @ xt) + (xt @ x) @ (gt - (gt @ x) @ a))
    return _from_triangle(grad) if hermitian else grad


def pinv_jvp(da, ans, a, hermitian=False):
    if hermitian:
        da = _to_symmetric(da)
    x = ans
    dat = mT(da)
    return (-x @ da @ x + (x @ mT(x)) @ (dat - (dat @ a) @ x)
            + (dat - x @ (a @ dat)) @ (mT(x) @ x))


def _qr_parts(ans, a, mode, g=None):
    m, n = np.shape(a)[-2:]
    if mode not in ("reduced", "complete", "r"):
        raise NotImplementedError(f"np.linalg.qr: no derivative for mode={mode!r}")
    if m < n:
        raise NotImplementedError("np.linalg.qr: derivative for matrices with at least "
                                  "as many rows as columns only")
    if mode == "r":
        q, r = np.linalg.qr(a)
        gq, gr = None, g
    else:
        q, r = ans
        gq, gr = _parts(g, 2)
        if m > n and mode == "complete":
            if gq is not None and np.any(gq[..., :, n:] != 0):
                raise ValueError("np.linalg.qr(mode='complete'): the extra columns of Q "
                                 "have no derivative; use mode='reduced'")
            q, r = q[..., :, :n], r[..., :n, :]
            gq = gq[..., :, :n] if gq is not None else None
            gr = gr[..., :n, :] if gr is not None else None
    return q, r, gq, gr


def qr_grad(g, ans, a, mode="reduced"):
    """Adjoint of ``np.linalg.qr`` (m >= n, full column rank)."""
    q, r, gq, gr = _qr_parts(ans, a, mode, g)
    nmat = 0.0
    if gr is not None:
        nmat = nmat + gr @ mT(r)
    if gq is not None:
        nmat = nmat - mT(q) @ gq
    if np.isscalar(nmat):
        return np.zeros_like(a, dtype=_fdtype(a))
    k = np.triu(nmat) + np.tril(mT(nmat), -1)
    b = q @ k if gq is None else gq + q @ k
    return mT(np.linalg.solve(r, mT(b)))        # b @ r^-T


def qr_jvp(da, ans, a, mode="reduced"):
    q, r, _, _ = _qr_parts(ans, a, mode)
    c = mT(np.linalg.solve(mT(r), mT(mT(q) @ da)))          # q^T da r^-1
    low = np.tril(c, -1)
    t = c - (low - mT(low))                                  # dr r^-1 (upper triangular)
    dr = t @ r
    if mode == "r":
        return dr
    dq = mT(np.linalg.solve(mT(r), mT(da))) - q @ t
    m, n = np.shape(a)[-2:]
    if mode == "complete" and m > n:
        raise ValueError("np.linalg.qr(mode='complete'): the extra columns of Q have no "
                         "derivative; use mode='reduced'")
    return (dq, dr)


def slogdet_grad(g, a):
    """Adjoint of ``np.linalg.slogdet``: only ``logabsdet`` carries a gradient."""
    _, glog = _parts(g, 2)
    if glog is None:
        return np.zeros_like(a, dtype=_fdtype(a))
    return np.expand_dims(glog, (-2, -1)) * mT(np.linalg.inv(a))


def slogdet_jvp(da, ans, a):
    sign, _ = ans
    return (np.zeros_like(sign, dtype=_fdtype(sign)),
            np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1))


def _tensorinv_shapes(a, ind):
    shape = np.shape(a)
    rows = int(np.prod(shape[:ind]))
    return rows, int(np.prod(shape[ind:]))


def tensorinv_grad(g, ans, a, ind=2):
    """Adjoint of ``np.linalg.tensorinv(a, ind)``: the inverse's adjoint, reshaped."""
    rows, cols = _tensorinv_shapes(a, ind)
    x = np.reshape(ans, (cols, rows))
    gx = np.reshape(g, (cols, rows))
    return np.reshape(-x.T @ gx @ x.T, np.shape(a))


def tensorinv_jvp(da, ans, a, ind=2):
    rows, cols = _tensorinv_shapes(a, ind)
    x = np.reshape(ans, (cols, rows))
    return np.reshape(-x @ np.reshape(da, (rows, cols)) @ x, np.shape(ans))


# -- second derivatives: what the derivatives of the helpers above need -----------------
# (numpy_rules.py registers rules for the helpers, so that grad of grad works)

def no_second_derivative(what):
    """Raised by a rule of a helper where srcgrad has no second derivative."""
    from ..errors import NonDifferentiableError
    raise NonDifferentiableError(f"srcgrad has no second derivative of {what}")


def einsum_grad_t(g, t, operands):
    """Adjoint, for the cotangent ``t``, of ``einsum_grad(t, operands)`` (``g``: one
    cotangent per operand): the einsum with each operand replaced by its cotangent."""
    out = einsum_jvp(g, operands)
    return _zeros(t) if out is None else _fit(out, t)


def einsum_grad_operands(g, t, operands):
    """Adjoint, for the operands, of ``einsum_grad(t, operands)``."""
    _, _, _, positions = _einsum_parse(operands)
    total = [None] * len(operands)
    for p in positions:
        gp = g[p] if g is not None and p < len(g) else None
        if gp is None:
            continue
        ops = list(operands)
        ops[p] = gp
        part = einsum_grad(t, tuple(ops))
        for q in positions:
            if q != p:
                total[q] = part[q] if total[q] is None else total[q] + part[q]
    out = [_zeros(x) if total[i] is None else total[i] for i, x in enumerate(operands)]
    return tuple(out)


def einsum_grad_doperands(doperands, t, operands):
    """Tangent of ``einsum_grad(t, operands)`` along the operands' tangents."""
    _, _, _, positions = _einsum_parse(operands)
    total = [None] * len(operands)
    for q in positions:
        dq = doperands[q] if doperands is not None and q < len(doperands) else None
        if dq is None:
            continue
        ops = list(operands)
        ops[q] = dq
        part = einsum_grad(t, tuple(ops))
        for p in positions:
            if p != q:
                total[p] = part[p] if total[p] is None else total[p] + part[p]
    return tuple(_zeros(x) if total[i] is None else total[i] for i, x in enumerate(operands))


def var_grad_a(g, t, a, axis=None, ddof=0, keepdims=False):
    """Adjoint, for ``a``, of ``var_grad(t, a, ...) = 2 (a - mean a) t / (N - ddof)``:
    the centring is self-adjoint."""
    n = np.size(a) // max(np.size(np.mean(a, axis=axis)), 1) if np.size(a) else 0
    h = g * _keep(t, np.ndim(a), axis, keepdims)
    return _fit(2.0 * (h - np.mean(h, axis=axis, keepdims=True)) / (n - ddof), a)


def prod_partials_grad(g, a, axis=None):
    """Adjoint (and, the matrix being symmetric, tangent) of ``prod_partials(a, axis)``:
    ``d P_i / d a_j`` is the product of the group without ``a_i`` and ``a_j`` (i != j).
    Exact with zeros; O(n^2) in the group size."""
    a = a if hasattr(a, "shape") else np.asarray(a, dtype=float)
    flat, undo = _flat_axes(a, axis)
    gf, _ = _flat_axes(np.broadcast_to(g, np.shape(a)), axis)
    n = flat.shape[-1]
    out = np.zeros_like(flat, dtype=np.result_type(flat, gf, np.float32))
    for i in range(n):
        ai = flat.copy()
        ai[..., i] = 1
        part = prod_partials(ai, -1)                    # prod over k != i, j of a_k
        part[..., i] = 0
        out = out + gf[..., i:i + 1] * part
    return _fit(undo(out), a)


def _norm_dweights(x, n, ord, axis, keepdims, vector):
    """``(dW/dx, dW/dn)`` of the weights ``W`` of ``norm_grad`` (``W`` depends on ``x_i``
    and the norm ``n`` only): elementwise, ``n`` broadcast to ``x``."""
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
    if is_matrix:
        raise NotImplementedError(f"srcgrad has no second derivative of the matrix norm "
                                  f"ord={ord!r}")
    p = float(ord)
    ax = np.abs(x)
    return ((p - 1) * ax ** (p - 2) * safe ** (1 - p),
            (1 - p) * np.sign(x) * ax ** (p - 1) * safe ** (-p))


def _norm_sum(v, x, ord, axis, keepdims, vector):
    return np.sum(v, axis=_norm_axes(x, ord, axis, vector), keepdims=keepdims)


def norm_grad_x(g, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Adjoint (and tangent), for ``x``, of ``norm_grad(t, n, x, ...) = keep(t) W``."""
    dwx, _ = _norm_dweights(x, n, ord, axis, keepdims, vector)
    return _fit(g * _keep(t, np.ndim(x), _norm_axes(x, ord, axis, vector), keepdims) * dwx, x)


def norm_grad_n(g, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Adjoint, for the norm ``n``, of ``norm_grad(t, n, x, ...)``."""
    _, dwn = _norm_dweights(x, n, ord, axis, keepdims, vector)
    tk = _keep(t, np.ndim(x), _norm_axes(x, ord, axis, vector), keepdims)
    return _fit(_norm_sum(g * tk * dwn, x, ord, axis, keepdims, vector), n)


def norm_grad_dn(dn, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Tangent of ``norm_grad(t, n, x, ...)`` along ``dn``."""
    _, dwn = _norm_dweights(x, n, ord, axis, keepdims, vector)
    axes = _norm_axes(x, ord, axis, vector)
    return _keep(t, np.ndim(x), axes, keepdims) * _keep(dn, np.ndim(x), axes, keepdims) * dwn


def norm_jvp_x(dx, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    """Tangent of ``norm_jvp(t, n, x, ...) = sum(t W)`` along ``dx``."""
    dwx, _ = _norm_dweights(x, n, ord, axis, keepdims, vector)
    return _norm_sum(t * dwx * dx, x, ord, axis, keepdims, vector)


def norm_jvp_n(dn, t, n, x, ord=None, axis=None, keepdims=False, vector=False):
    _, dwn = _norm_dweights(x, n, ord, axis, keepdims, vector)
    return _norm_sum(t * dwn, x, ord, axis, keepdims, vector) * dn


def linspace_grad_t(g, t, num=50, endpoint=True, axis=0, which=0):
    """Adjoint, for ``t``, of ``linspace_grad(t, ...)``: the samples' weights times ``g``."""
    z = np.zeros_like(g, dtype=_fdtype(g)) if hasattr(g, "shape") else 0.0
    out = np.linspace(g, z, num, endpoint, axis=axis) if which == 0 else \
        np.linspace(z, g, num, endpoint, axis=axis)
    return np.broadcast_to(out, np.shape(t)) if np.shape(out) != np.shape(t) else out


def slogdet_grad_t(g, t, a):
    """Adjoint, for ``t = (t_sign, t_logabsdet)``, of ``slogdet_grad(t, a)``."""
    glog = np.sum(g * mT(np.linalg.inv(a)), axis=(-2, -1))
    return (np.zeros_like(glog), glog)


def slogdet_grad_a(g, t, a):
    """Adjoint, for ``a``, of ``slogdet_grad(t, a) = t_log inv(a)^T``."""
    _, tlog = _parts(t, 2)
    if tlog is None:
        return np.zeros_like(a, dtype=_fdtype(a))
    inv_t = mT(np.linalg.inv(a))
    return -np.expand_dims(tlog, (-2, -1)) * (inv_t @ mT(g) @ inv_t)


def slogdet_grad_da(da, t, a):
    """Tangent of ``slogdet_grad(t, a)`` along ``da``."""
    _, tlog = _parts(t, 2)
    if tlog is None:
        return np.zeros_like(a, dtype=_fdtype(a))
    inv = np.linalg.inv(a)
    return -np.expand_dims(tlog, (-2, -1)) * mT(inv @ da @ inv)
