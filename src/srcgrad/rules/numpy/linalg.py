"""Products and contractions: matmul, dot, inner, outer, tensordot, einsum, kron,
cross, vecdot, matvec, convolve, correlate, polyval, inv, det, solve, matrix_power,
and the array-API spellings in ``np.linalg``.

Contractions go through one einsum adjoint.  A bilinear ``f(a, b)``'s kernels
(``outer_grad``...) are linear in the cotangent and in the operand they do not
differentiate: their own rules (grad of grad) come from :func:`_bilinear_kernel`.
"""
import numpy as np

from ...runtime.backends import array_ns

from .. import shapes
from ..facets import ALL_AXES
from ..registry import defkernel, defnograd, defrule, deftransformable
from .conventions import _LETTERS, _eye, _fdtype, _fit, _is_complex, _ones, _sum_to, _zeros

__all__ = ['mT', 'einsum_grad', 'einsum_jvp', 'tensordot_grad', 'dot_grad', 'inner_grad', 'outer_grad', 'kron_grad', 'cross_grad', 'solve_grad_b', 'solve_grad_a', 'solve_jvp_a', 'solve_jvp_b', 'convolve_grad', 'correlate_grad', 'vecdot_grad', 'matvec_grad', 'vecmat_grad', 'multi_dot_grad', 'multi_dot_jvp', 'matrix_power_grad', 'matrix_power_jvp', 'polyval_grad_p', 'polyval_deriv', 'einsum_grad_t', 'einsum_grad_operands', 'einsum_grad_doperands']


# -- kernels ----------------------------------------------------------------------------

def mT(x):
    """The matrix transpose of a stack of matrices (``x.mT``)."""
    np = array_ns(x)
    return np.swapaxes(x, -1, -2)


def _einsum_parse(operands):
    """``(terms, out, arrays, positions)`` for any call of ``np.einsum``.

    Ellipses are replaced by explicit labels, the implicit output is made explicit,
    and a size-1 axis that broadcasts against a longer one gets a label of its own,
    so that ``einsum(",".join(terms) + "->" + out, *arrays)`` equals the call.
    ``positions`` are the indices of the array operands among ``operands``.
    """
    np = array_ns(operands)
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


def _einsum_adjoint_plan(terms, out, arrays, i):
    """The subscripts of the einsum that gives the gradient for ``arrays[i]`` (its
    operands: the cotangent, the other arrays, then one identity matrix per repeated
    label and one vector of ones per label summed inside this operand alone, as the
    list of ``("eye" | "ones", size)``)."""
    np = array_ns(terms, out, arrays, i)
    x = arrays[i]
    used = set("".join(terms) + out)
    fresh = (c for c in _LETTERS if c not in used)
    others = [t for j, t in enumerate(terms) if j != i]
    subs = [out] + others
    extras = []
    target, seen = "", set()
    for c, n in zip(terms[i], np.shape(x)):
        if c in seen:                           # a repeated label: the diagonal
            f = next(fresh)
            subs.append(c + f)
            extras.append(("eye", n))
            c = f
        elif c not in out and not any(c in t for t in others):
            subs.append(c)                      # a label summed inside this operand only
            extras.append(("ones", n))
        seen.add(c)
        target += c
    return ",".join(subs) + "->" + target, extras


def _einsum_adjoint(g, terms, out, arrays, i):
    """Gradient of ``einsum(terms -> out, *arrays)`` with respect to ``arrays[i]``."""
    np = array_ns(g, terms, out, arrays, i)
    x = arrays[i]
    subs, extras = _einsum_adjoint_plan(terms, out, arrays, i)
    ops = [g]
    for j in range(len(arrays)):
        if j != i:
            ops.append(arrays[j])
    for kind, n in extras:
        ops.append(_eye(n, n, 0, x) if kind == "eye" else _ones(n, x))
    return _fit(np.einsum(subs, *ops), x)


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
    np = array_ns(doperands, operands, optimize)
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
    np = array_ns(na, nb, axes)
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
    np = array_ns(g, a, b, axes, which)
    terms, out = _tensordot_terms(np.ndim(a), np.ndim(b), axes)
    return _einsum_adjoint(g, terms, out, [a, b], which)


def dot_grad(g, a, b, which=0):
    """Adjoint of ``np.dot(a, b)`` (scalars, vectors, matrices and N-D) for a or b."""
    np = array_ns(g, a, b, which)
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        axes = 0
    else:
        axes = ([-1], [-2 if nb >= 2 else 0])
    return tensordot_grad(g, a, b, axes, which)


def inner_grad(g, a, b, which=0):
    """Adjoint of ``np.inner(a, b)`` (a sum over both last axes)."""
    np = array_ns(g, a, b, which)
    axes = 0 if np.ndim(a) == 0 or np.ndim(b) == 0 else ([-1], [-1])
    return tensordot_grad(g, a, b, axes, which)


def outer_grad(g, a, b, which=0):
    """Adjoint of ``np.outer(a, b)`` (inputs are flattened)."""
    np = array_ns(g, a, b, which)
    if which == 0:
        return _fit(g @ np.ravel(b), a)
    return _fit(np.ravel(a) @ g, b)


def kron_grad(g, a, b, which=0):
    """Adjoint of ``np.kron(a, b)``."""
    np = array_ns(g, a, b, which)
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
    np = array_ns(g, a, b, axisa, axisb, axisc, axis, which)
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
    np = array_ns(a, rhs, vector)
    if vector:
        return np.linalg.solve(a, rhs[..., None])[..., 0]
    return np.linalg.solve(a, rhs)


def solve_grad_b(g, a, b):
    """Adjoint of ``x = np.linalg.solve(a, b)`` for ``b``: ``solve(a.T, g)``."""
    np = array_ns(g, a, b)
    return _sum_to(_solve(mT(a), g, np.ndim(b) == 1), b)


def solve_grad_a(g, ans, a, b):
    """Adjoint of ``x = np.linalg.solve(a, b)`` for ``a``: ``-solve(a.T, g) x.T``."""
    np = array_ns(g, ans, a, b)
    gb = _solve(mT(a), g, np.ndim(b) == 1)
    if np.ndim(b) == 1:
        return _sum_to(-gb[..., :, None] * ans[..., None, :], a)
    return _sum_to(-gb @ mT(ans), a)


def solve_jvp_a(da, ans, a, b):
    """Tangent of ``x = np.linalg.solve(a, b)`` along ``da``: ``-solve(a, da x)``."""
    np = array_ns(da, ans, a, b)
    if np.ndim(b) == 1:
        return -_solve(a, (da @ ans[..., None])[..., 0], True)
    return -_solve(a, da @ ans, False)


def solve_jvp_b(db, a, b):
    """Tangent of ``x = np.linalg.solve(a, b)`` along ``db``: ``solve(a, db)``."""
    np = array_ns(db, a, b)
    return _solve(a, db, np.ndim(b) == 1)


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
    np = array_ns(g, a, w, start, which)
    full = np.size(a) + np.size(w) - 1
    g = np.ravel(g)
    gfull = np.pad(g, (start, full - start - g.shape[0]))
    other = np.ravel(w if which == 0 else a)
    # (the transpose, no conjugate: np.correlate conjugates its second input)
    return np.correlate(gfull, np.conj(other) if _is_complex(other) else other, "valid")


def convolve_grad(g, a, v, mode="full", which=0):
    """Adjoint of ``np.convolve(a, v, mode)`` for ``a`` (which=0) or ``v`` (which=1)."""
    np = array_ns(g, a, v, mode, which)
    start = _conv_window(mode, np.size(a), np.size(v), False)
    return _fit(_conv_adjoint(g, a, v, start, which), a if which == 0 else v)


def correlate_grad(g, a, v, mode="valid", which=0):
    """Adjoint of ``np.correlate(a, v, mode)``: a convolution with ``v`` reversed (and
    conjugated: NumPy's correlate conjugates ``v``)."""
    np = array_ns(g, a, v, mode, which)
    start = _conv_window(mode, np.size(a), np.size(v), True)
    cx = _is_complex(v)
    w = np.flip(np.ravel(v))
    w = np.conj(w) if cx else w
    if which == 0:
        return _fit(_conv_adjoint(g, a, w, start, 0), a)
    grad = np.flip(_conv_adjoint(g, a, w, start, 1))
    return _fit(np.conj(grad) if cx else grad, v)


def _conjugated_first(name, *args):
    """``np.vecdot`` and ``np.vecmat`` conjugate their first argument: their adjoints
    (written for real arguments, the swap of the operands giving the other one) would be
    wrong for complex ones, so reverse mode refuses complex operands (forward mode is
    right)."""
    if any(_is_complex(a) for a in args):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError(
            f"{name} of a complex first argument (which it conjugates): reverse mode has no "
            f"derivative in srcgrad; write np.sum(np.conj(x) * y, axis=...) or "
            f"np.conj(v) @ A instead")


def vecdot_grad(g, x, y, axis=-1):
    """Adjoint of ``np.vecdot(x, y, axis=axis)`` for ``x`` (swap the operands for ``y``)."""
    np = array_ns(g, x, y, axis)
    _conjugated_first("np.vecdot", x, y)
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
    _conjugated_first("np.vecmat", v)
    if which == 0:
        return _sum_to((A @ g[..., :, None])[..., 0], v)
    return _sum_to(v[..., :, None] * g[..., None, :], A)


def _chain_terms(arrays):
    """Einsum terms of ``np.linalg.multi_dot(arrays)`` (first / last may be 1-D)."""
    np = array_ns(arrays)
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
    """Adjoint of ``np.linalg.multi_dot(arrays)``: for ``A_i``, the product of the
    transposed matrices before it, ``g`` and the transposed matrices after it."""
    np = array_ns(g, arrays)
    k = len(arrays)
    mats = []
    for i in range(k):
        x = arrays[i]
        if np.ndim(x) == 1:                     # a first row / last column vector
            x = np.reshape(x, (1, -1)) if i == 0 else np.reshape(x, (-1, 1))
        mats.append(x)
    t0 = np.reshape(g, (np.shape(mats[0])[0], np.shape(mats[k - 1])[1]))
    grads = []
    for i in range(k):
        t = t0
        for j in range(i):
            t = mT(mats[j]) @ t
        for j in range(k - 1, i, -1):
            t = t @ mT(mats[j])
        grads.append(np.reshape(t, np.shape(arrays[i])))
    return tuple(grads) if isinstance(arrays, tuple) else grads


def multi_dot_jvp(darrays, arrays):
    np = array_ns(darrays, arrays)
    out = None
    for i, d in enumerate(darrays if darrays is not None else []):
        if d is None:
            continue
        ops = list(arrays)
        ops[i] = d
        term = np.linalg.multi_dot(ops)
        out = term if out is None else out + term
    return out


def _power_base(a, n):
    """``(b, |n|)`` with ``a^n = b^|n|``: ``b`` is ``a`` or its inverse."""
    np = array_ns(a, n)
    return (a if n >= 0 else np.linalg.inv(a)), abs(n)


def matrix_power_grad(g, a, n):
    """Adjoint of ``np.linalg.matrix_power(a, n)``: ``sum_k (b^T)^k g (b^T)^(m-1-k)`` for
    ``a^n = b^m``, then through ``b = inv(a)`` when ``n < 0``."""
    np = array_ns(g, a, n)
    if n == 0:
        return np.zeros_like(a, dtype=np.result_type(a, np.float32))
    b, m = _power_base(a, n)
    bt = mT(b)
    powers = [np.broadcast_to(_eye(a.shape[-1], a.shape[-1], 0, a), a.shape)]
    for k in range(1, m):
        powers.append(powers[k - 1] @ bt)
    total = powers[0] @ g @ powers[m - 1]
    for k in range(1, m):
        total = total + powers[k] @ g @ powers[m - 1 - k]
    if n < 0:
        return -bt @ total @ bt
    return total


def matrix_power_jvp(da, a, n):
    """Tangent of ``np.linalg.matrix_power(a, n)``: ``sum_k b^k db b^(m-1-k)``."""
    np = array_ns(da, a, n)
    if n == 0:
        return np.zeros_like(da)
    b, m = _power_base(a, n)
    db = -b @ da @ b if n < 0 else da
    powers = [np.broadcast_to(_eye(a.shape[-1], a.shape[-1], 0, a), a.shape)]
    for k in range(1, m):
        powers.append(powers[k - 1] @ b)
    total = powers[0] @ db @ powers[m - 1]
    for k in range(1, m):
        total = total + powers[k] @ db @ powers[m - 1 - k]
    return total


def polyval_grad_p(g, p, x):
    """Adjoint of ``np.polyval(p, x)`` for the coefficients ``p`` (highest power first)."""
    np = array_ns(g, p, x)
    n = len(p)
    grad = []
    for i in range(n):
        grad.append(np.sum(g * x ** (n - 1 - i)))
    if isinstance(p, tuple):
        return tuple(grad)
    if isinstance(p, list):
        return grad
    return np.reshape(np.stack(grad), np.shape(p)).astype(_fdtype(p), copy=False)


def _poly_dtype(p, x):
    np = array_ns(p, x)
    return np.result_type(getattr(p, "dtype", np.float64) if not isinstance(p, (list, tuple))
                          else np.float64, getattr(x, "dtype", np.float64), np.float32)


def polyval_deriv(p, x):
    """``d polyval(p, x) / dx``, in the floating dtype of ``p`` and ``x``: the
    polynomial with coefficients ``p[i] * (n - 1 - i)``."""
    np = array_ns(p, x)
    n = len(p)
    dtype = _poly_dtype(p, x)
    if n < 2:
        return np.zeros(np.shape(x), dtype=dtype)
    powers = np.arange(n - 1, 0, -1).astype(dtype)
    return np.polyval(np.asarray(p, dtype=dtype)[:-1] * powers, x)


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


# kernels written in differentiable primitives: differentiated again through their source
deftransformable(_solve, solve_grad_b, solve_grad_a, solve_jvp_a, solve_jvp_b, multi_dot_grad,
                 multi_dot_jvp, matrix_power_grad, matrix_power_jvp, polyval_grad_p,
                 polyval_deriv, _einsum_adjoint, _power_base)
defnograd(_chain_terms, _poly_dtype, _einsum_parse, _tensordot_terms, _einsum_adjoint_plan,
          _conjugated_first)
deftransformable(einsum_jvp)

# -- rules ------------------------------------------------------------------------------
defrule(np.matmul, "x, y", torch_name="MmBackward0", bilinear_in=("x", "y"),
        shape=shapes.matmul, vjp=dict(x="matmul_grad_x(g, x, y)", y="matmul_grad_y(g, x, y)"),
        jvp=dict(x="dx @ y", y="x @ dy"))
# ---------------------------------------------------------------------------------------
# Linear algebra (contractions go through one einsum adjoint)
# ---------------------------------------------------------------------------------------
_dot = defrule(np.dot, "a, b, out=None", bilinear_in=("a", "b"),
               vjp=dict(a="dot_grad(g, a, b, 0)", b="dot_grad(g, a, b, 1)"),
               jvp=dict(a="np.dot(da, b)", b="np.dot(a, db)"),
               torch_name="DotBackward0")
# vdot conjugates a: of complex arrays, a's cotangent is conjugated and b's holds conj(a)
defrule(np.vdot, "a, b", bilinear_in=("a", "b"), reduction=ALL_AXES,
        vjp=dict(a="spectral_fit(np.reshape(np.conj(g * np.ravel(b)), np.shape(a)), a, ())",
                 b="spectral_fit(np.reshape(g * np.conj(np.ravel(a)), np.shape(b)), b, ())"),
        jvp=dict(a="np.vdot(da, b)", b="np.vdot(a, db)"),
        torch_name="DotBackward0")
defrule(np.inner, "a, b", bilinear_in=("a", "b"),
        vjp=dict(a="inner_grad(g, a, b, 0)", b="inner_grad(g, a, b, 1)"),
        jvp=dict(a="np.inner(da, b)", b="np.inner(a, db)"))
defrule(np.outer, "a, b, out=None", bilinear_in=("a", "b"),
        vjp=dict(a="outer_grad(g, a, b, 0)", b="outer_grad(g, a, b, 1)"),
        jvp=dict(a="np.outer(da, b)", b="np.outer(a, db)"))
defrule(np.tensordot, "a, b, axes=2", bilinear_in=("a", "b"),
        vjp=dict(a="tensordot_grad(g, a, b, axes, 0)", b="tensordot_grad(g, a, b, axes, 1)"),
        jvp=dict(a="np.tensordot(da, b, axes)", b="np.tensordot(a, db, axes)"))
defrule(np.einsum, "*operands, out=None, optimize=False", view_of="operands",  # "ii->i"
        vjp=dict(operands="einsum_grad(g, operands)"),
        jvp=dict(operands="einsum_jvp(doperands, operands, optimize)"))
defrule(np.kron, "a, b", bilinear_in=("a", "b"),
        vjp=dict(a="kron_grad(g, a, b, 0)", b="kron_grad(g, a, b, 1)"),
        jvp=dict(a="np.kron(da, b)", b="np.kron(a, db)"))
defrule(np.cross, "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None", bilinear_in=("a", "b"),
        vjp=dict(a="cross_grad(g, a, b, axisa, axisb, axisc, axis, 0)",
                 b="cross_grad(g, a, b, axisa, axisb, axisc, axis, 1)"),
        jvp=dict(a="np.cross(da, b, axisa, axisb, axisc, axis)",
                 b="np.cross(a, db, axisa, axisb, axisc, axis)"),
        torch_name="LinalgCrossBackward0")
defrule(np.linalg.inv, "a",
        vjp=dict(a="-mT(ans) @ g @ mT(ans)"), jvp=dict(a="-ans @ da @ ans"),
        torch_name="LinalgInvExBackward0")
defrule(np.linalg.det, "a",
        vjp=dict(a="np.expand_dims(g * ans, (-2, -1)) * mT(np.linalg.inv(a))"),
        jvp=dict(a="ans * np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)"),
        torch_name="LinalgDetBackward0")
defrule(np.linalg.solve, "a, b",
        vjp=dict(a="solve_grad_a(g, ans, a, b)", b="solve_grad_b(g, a, b)"),
        jvp=dict(a="solve_jvp_a(da, ans, a, b)", b="solve_jvp_b(db, a, b)"),
        torch_name="LinalgSolveExBackward0")
defrule(np.linalg.matrix_power, "a, n", view_of="a",
        vjp=dict(a="matrix_power_grad(g, a, n)"), jvp=dict(a="matrix_power_jvp(da, a, n)"),
        torch_name="LinalgMatrixPowerBackward0")
defrule(np.linalg.multi_dot, "arrays, out=None", sequence="arrays",
        vjp=dict(arrays="multi_dot_grad(g, arrays)"),
        jvp=dict(arrays="multi_dot_jvp(darrays, arrays)"))
if hasattr(np, "vecdot"):       # NumPy 2.0+
    defrule(np.vecdot, "x, y, out=None, axis=-1", bilinear_in=("x", "y"),
            vjp=dict(x="vecdot_grad(g, x, y, axis)", y="vecdot_grad(g, y, x, axis)"),
            jvp=dict(x="np.vecdot(dx, y, axis=axis)", y="np.vecdot(x, dy, axis=axis)"))
if hasattr(np, "matvec"):       # NumPy 2.2+
    defrule(np.matvec, "A, v, out=None", bilinear_in=("A", "v"),
            vjp=dict(A="matvec_grad(g, A, v, 0)", v="matvec_grad(g, A, v, 1)"),
            jvp=dict(A="np.matvec(dA, v)", v="np.matvec(A, dv)"))
    defrule(np.vecmat, "v, A, out=None", bilinear_in=("v", "A"),
            vjp=dict(v="vecmat_grad(g, v, A, 0)", A="vecmat_grad(g, v, A, 1)"),
            jvp=dict(v="np.vecmat(dv, A)", A="np.vecmat(v, dA)"))
defrule(np.convolve, "a, v, mode='full'", bilinear_in=("a", "v"),
        vjp=dict(a="convolve_grad(g, a, v, mode, 0)", v="convolve_grad(g, a, v, mode, 1)"),
        jvp=dict(a="np.convolve(da, v, mode)", v="np.convolve(a, dv, mode)"))
defrule(np.correlate, "a, v, mode='valid'", bilinear_in=("a", "v"),
        vjp=dict(a="correlate_grad(g, a, v, mode, 0)", v="correlate_grad(g, a, v, mode, 1)"),
        jvp=dict(a="np.correlate(da, v, mode)", v="np.correlate(a, dv, mode)"))
if hasattr(np, "matrix_transpose"):   # NumPy 2.0+
    _mT = defrule(np.matrix_transpose, "x", linear_in="x", view_of="x", vjp=dict(x="mT(g)"), jvp=dict(x="mT(dx)"),
                  torch_name="TransposeBackward0")


defrule(np.polyval, "p, x", linear_in="p",
        vjp=dict(p="polyval_grad_p(g, p, x)",
                 x="unbroadcast(g * polyval_deriv(p, x), x)"),
        jvp=dict(p="np.polyval(dp, x)",
                 x="dx * polyval_deriv(p, x)"))


# the array-API spellings in np.linalg (distinct objects from their np.* namesakes)
if hasattr(np.linalg, "svdvals"):       # NumPy 2.0+
    defrule(np.linalg.svdvals, "x, /",
            vjp=dict(x="svd_grad(g, None, x, False, False)"),
            jvp=dict(x="svd_jvp(dx, None, x, False, False)"), torch_name="LinalgSvdBackward0")
    defrule(np.linalg.outer, "x1, x2, /", bilinear_in=("x1", "x2"),
            vjp=dict(x1="outer_grad(g, x1, x2, 0)", x2="outer_grad(g, x1, x2, 1)"),
            jvp=dict(x1="np.linalg.outer(dx1, x2)", x2="np.linalg.outer(x1, dx2)"))
    defrule(np.linalg.trace, "x, /, *, offset=0, dtype=None", linear_in="x",
            vjp=dict(x="trace_grad(g, x, offset, -2, -1)"),
            jvp=dict(x="np.linalg.trace(dx, offset=offset)"), torch_name="TraceBackward0")
    defrule(np.linalg.diagonal, "x, /, *, offset=0", linear_in="x", view_of="x",
            vjp=dict(x="diagonal_grad(g, x, offset, -2, -1)"),
            jvp=dict(x="np.linalg.diagonal(dx, offset=offset)"), torch_name="DiagonalBackward0")
    defrule(np.linalg.cross, "x1, x2, /, *, axis=-1", bilinear_in=("x1", "x2"),
            vjp=dict(x1="cross_grad(g, x1, x2, -1, -1, -1, axis, 0)",
                     x2="cross_grad(g, x1, x2, -1, -1, -1, axis, 1)"),
            jvp=dict(x1="np.linalg.cross(dx1, x2, axis=axis)",
                     x2="np.linalg.cross(x1, dx2, axis=axis)"), torch_name="LinalgCrossBackward0")
    defrule(np.linalg.matmul, "x1, x2, /", bilinear_in=("x1", "x2"),
            vjp=dict(x1="matmul_grad_x(g, x1, x2)", x2="matmul_grad_y(g, x1, x2)"),
            jvp=dict(x1="dx1 @ x2", x2="x1 @ dx2"), torch_name="MmBackward0")
    defrule(np.linalg.tensordot, "x1, x2, /, *, axes=2", bilinear_in=("x1", "x2"),
            vjp=dict(x1="tensordot_grad(g, x1, x2, axes, 0)",
                     x2="tensordot_grad(g, x1, x2, axes, 1)"),
            jvp=dict(x1="np.linalg.tensordot(dx1, x2, axes=axes)",
                     x2="np.linalg.tensordot(x1, dx2, axes=axes)"))
    defrule(np.linalg.vecdot, "x1, x2, /, *, axis=-1", bilinear_in=("x1", "x2"),
            vjp=dict(x1="vecdot_grad(g, x1, x2, axis)", x2="vecdot_grad(g, x2, x1, axis)"),
            jvp=dict(x1="np.linalg.vecdot(dx1, x2, axis=axis)",
                     x2="np.linalg.vecdot(x1, dx2, axis=axis)"))
    defrule(np.linalg.matrix_transpose, "x, /", linear_in="x", view_of="x", vjp=dict(x="mT(g)"), jvp=dict(x="mT(dx)"),
            torch_name="TransposeBackward0")

def _bilinear_helper(func, rest, f_a, f_b):
    """``func(t, a, b, <rest>, which)``: the cotangent of ``a`` (which=0) or ``b`` (1) of
    a bilinear ``f(a, b)``.  ``f_a`` / ``f_b``: ``f(g, b)`` / ``f(a, g)`` as templates.
    Linear in ``t``; linear in the operand it does not differentiate, constant in the
    other: its transpose in ``t`` is ``f``, and its derivative in an operand is the
    other adjoint of ``f``."""
    name = func.__name__
    r = "".join(f", {p.split('=')[0].strip()}" for p in rest.split(",") if p.strip())
    params = f"t, a, b{', ' + rest if rest else ''}, which=0"
    defkernel(func, params,
                 vjp=dict(t=f"({f_a}) if which == 0 else ({f_b})",
                          a=f"zeros_like(a) if which == 0 else {name}(t, a, g{r}, 0)",
                          b=f"{name}(t, g, b{r}, 1) if which == 0 else zeros_like(b)"),
                 jvp=dict(t=f"{name}(dt, a, b{r}, which)",
                          a=f"zeros_like(ans) if which == 0 else {name}(t, da, b{r}, 1)",
                          b=f"{name}(t, a, db{r}, 0) if which == 0 else zeros_like(ans)"))


_bilinear_helper(outer_grad, "", "np.outer(g, b)", "np.outer(a, g)")
_bilinear_helper(inner_grad, "", "np.inner(g, b)", "np.inner(a, g)")
_bilinear_helper(kron_grad, "", "np.kron(g, b)", "np.kron(a, g)")
_bilinear_helper(tensordot_grad, "axes=2", "np.tensordot(g, b, axes)",
                 "np.tensordot(a, g, axes)")
_bilinear_helper(cross_grad, "axisa=-1, axisb=-1, axisc=-1, axis=None",
                 "np.cross(g, b, axisa, axisb, axisc, axis)",
                 "np.cross(a, g, axisa, axisb, axisc, axis)")
_bilinear_helper(convolve_grad, "mode='full'", "np.convolve(g, b, mode)",
                 "np.convolve(a, g, mode)")
_bilinear_helper(correlate_grad, "mode='valid'", "np.correlate(g, b, mode)",
                 "np.correlate(a, g, mode)")
if hasattr(np, "matvec"):
    _bilinear_helper(matvec_grad, "", "np.matvec(g, b)", "np.matvec(a, g)")
    _bilinear_helper(vecmat_grad, "", "np.vecmat(g, b)", "np.vecmat(a, g)")
# vecdot_grad(t, x, y, axis): the cotangent of x (y's is vecdot_grad(t, y, x, axis))
defkernel(vecdot_grad, "t, x, y, axis=-1",
             vjp=dict(t="np.vecdot(g, y, axis=axis)", x="zeros_like(x)",
                      y="vecdot_grad(t, y, g, axis)"),
             jvp=dict(t="vecdot_grad(dt, x, y, axis)", x="zeros_like(ans)",
                      y="vecdot_grad(t, x, dy, axis)"))
defkernel(einsum_grad, "t, operands",
             vjp=dict(t="einsum_grad_t(g, t, operands)",
                      operands="einsum_grad_operands(g, t, operands)"),
             jvp=dict(t="einsum_grad(dt, operands)",
                      operands="einsum_grad_doperands(doperands, t, operands)"))
defkernel(mT, "x", vjp=dict(x="mT(g)"), jvp=dict(x="mT(dx)"), linear_in="x")
# which=0: the adjoint for a (linear in t and b); which=1: for b (in t and a)
defkernel(dot_grad, "t, a, b, which=0",
          vjp=dict(t="np.dot(g, b) if which == 0 else np.dot(a, g)",
                   a="zeros_like(a) if which == 0 else dot_grad(t, a, g, 0)",
                   b="dot_grad(t, g, b, 1) if which == 0 else zeros_like(b)"),
          jvp=dict(t="dot_grad(dt, a, b, which)",
                   a="zeros_like(ans) if which == 0 else dot_grad(t, da, b, 1)",
                   b="dot_grad(t, a, db, 0) if which == 0 else zeros_like(ans)"),
          linear_in="t")
