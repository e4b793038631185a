"""``scipy.linalg``: factorizations, solves, matrix functions and structured matrices.

Where the mathematics is NumPy's (eigh, svd, qr, inv, det) the rules call the kernels
of :mod:`srcgrad.rules.numpy.decompositions`; the rest are written here, the Cholesky
family (``cholesky``, ``cho_factor``, ``cho_solve``) in :mod:`.cholesky`.
Complex matrices follow srcgrad's convention (a cotangent pairs with a tangent as
``Re sum(g * t)``): the adjoint of a linear map is its plain transpose, so a solve with
``A`` has the adjoint solve with ``A^T``, and one with ``A^H`` the solve with ``conj(A)``.  Every kernel is written in differentiable primitives (its source is
differentiated again for higher orders, :func:`deftransformable`).

Conventions, as in autograd and JAX: a routine that reads one triangle of its input
(``cholesky``, ``solve(assume_a="pos")``, ``eigh``) has a gradient in that triangle
only; ``assume_a=None`` (SciPy's structure detection) differentiates as a general
matrix, because a perturbation of any entry leaves the detected structure.
Matrix functions (``expm``, ``sqrtm``, ``logm``) use the block identity
``f([[A, E], [0, A]]) = [[f(A), L_f(A, E)], [0, f(A)]]`` for the Frechet derivative
``L_f``, and ``L_f(A, .)^T = L_f(A^T, .)``.
"""
import numpy as np
import scipy.linalg as sl

from ...errors import NonDifferentiableError
from ..registry import deflinear, defnograd, defrule, deftransformable
from ..numpy.decompositions import (_eye_like, _from_triangle, _from_hermitian, _to_symmetric,
                                    _mH, eigh_grad, eigh_jvp, pinv_grad, pinv_jvp, qr_grad, qr_jvp, svd_grad,
                                    svd_jvp, _parts)
from ..numpy.conventions import _fdtype, _is_complex
from ..numpy.linalg import mT

__all__ = ['sl_refuse',
           'sl_solve_triangular_grad_a', 'sl_solve_triangular_grad_b',
           'sl_solve_triangular_jvp_a', 'sl_solve_grad_a', 'sl_solve_grad_b', 'sl_solve_jvp_a',
           'sl_inv_grad', 'sl_inv_jvp', 'sl_lu_factor_grad', 'sl_lu_factor_jvp',
           'sl_lu_solve_grad_lu', 'sl_lu_solve_grad_b', 'sl_lu_solve_jvp_lu', 'sl_eigh_grad',
           'sl_eigh_jvp', 'sl_qr_grad', 'sl_qr_jvp', 'sl_expm_grad', 'sl_expm_jvp',
           'sl_sqrtm_grad', 'sl_sqrtm_jvp', 'sl_logm_grad', 'sl_logm_jvp',
           'sl_block_diag_grad', 'sl_block_diag_jvp', 'sl_toeplitz_grad', 'sl_toeplitz_part',
           'sl_circulant_grad', 'sl_circulant_part', 'sl_solve_triangular_jvp_b',
           'sl_solve_jvp_b', 'sl_lu_solve_jvp_b', 'sl_sylvester_adjoint', 'sl_sylvester_jvp',
           'sl_banded_dense', 'sl_banded_band', 'sl_banded_grad_b', 'sl_banded_grad_ab',
           'sl_banded_jvp', 'sl_hankel_part', 'sl_hankel_grad', 'sl_pinv_grad', 'sl_pinv_jvp']


# -- kernels ----------------------------------------------------------------------------

def sl_refuse(message):
    """A derivative srcgrad does not have: a located error, never a silent zero."""
    raise NonDifferentiableError(message)


def _outer(u, x):
    """``u x^T`` for vectors, ``u @ x^T`` for matrices (the right-hand side's shape)."""
    if np.ndim(x) == 1:
        return u[..., :, None] * x[..., None, :]
    return u @ mT(x)


def _transposes(trans):
    return trans in (1, 2, "T", "C")


def _flipped(trans):
    return 0 if _transposes(trans) else 1


def _conjugates(trans):
    """Whether ``trans`` solves with ``A^H`` (for a real ``A``, the same as ``A^T``)."""
    return trans in (2, "C")


def _op(x, trans):
    """``x``, ``x^T`` or ``x^H`` as ``trans`` says (0 / 'N', 1 / 'T', 2 / 'C')."""
    if _conjugates(trans):
        return _mH(x)
    return mT(x) if _transposes(trans) else x


def _triangle(a, lower, unit_diagonal):
    """The matrix ``solve_triangular`` reads: one triangle (strict with a unit diagonal)."""
    if unit_diagonal:
        return np.tril(a, -1) if lower else np.triu(a, 1)
    return np.tril(a) if lower else np.triu(a)


def sl_solve_triangular_grad_b(g, a, b, trans=0, lower=False, unit_diagonal=False):
    """The transpose of ``b -> op(a)^-1 b``: a solve with ``op(a)^T`` (for ``a^H``:
    with ``conj(a)``, as ``conj(a^-1 conj(g))``)."""
    if _conjugates(trans) and _is_complex(a):
        return np.conj(sl.solve_triangular(a, np.conj(g), lower=lower,
                                           unit_diagonal=unit_diagonal))
    return sl.solve_triangular(a, g, trans=_flipped(trans), lower=lower,
                               unit_diagonal=unit_diagonal)


def sl_solve_triangular_jvp_b(db, a, b, trans=0, lower=False, unit_diagonal=False):
    return sl.solve_triangular(a, db, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


def sl_solve_triangular_grad_a(g, ans, a, b, trans=0, lower=False, unit_diagonal=False):
    gb = sl_solve_triangular_grad_b(g, a, b, trans, lower, unit_diagonal)
    gop = -_outer(gb, ans)
    return _triangle(_op(gop, trans), lower, unit_diagonal)


def sl_solve_triangular_jvp_a(da, ans, a, b, trans=0, lower=False, unit_diagonal=False):
    dt = _triangle(da, lower, unit_diagonal)
    rhs = _op(dt, trans) @ ans
    return -sl.solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


_SYMMETRIC = ("sym", "symmetric")
_HERMITIAN = ("her", "hermitian", "pos", "positive definite")
_GENERAL = (None, "gen", "general")


def _structure(assume_a, name):
    if assume_a in _GENERAL:
        return "gen"
    if assume_a in _SYMMETRIC:
        return "sym"
    if assume_a in _HERMITIAN:
        return "her"
    if assume_a in ("diagonal", "upper triangular", "lower triangular"):
        return assume_a
    sl_refuse(f"scipy.linalg.{name}(assume_a={assume_a!r}): no derivative for this "
              f"structure; use assume_a='gen'")


def _structured(da, kind, lower):
    """The tangent of the matrix a routine reads from ``a`` given ``assume_a``: one
    triangle mirrored ('sym': transposed, also when complex; 'her': conjugated, the
    diagonal's real part), the diagonal, or a triangle."""
    if kind == "sym" and _is_complex(da):
        part = np.tril(da, -1) if lower else np.triu(da, 1)
        return part + mT(part) + da * _eye_like(da)
    if kind in ("sym", "her"):
        return _to_symmetric(da, lower)
    if kind == "diagonal":
        return da * _eye_like(da)
    if kind == "upper triangular":
        return np.triu(da)
    if kind == "lower triangular":
        return np.tril(da)
    return da


def _structured_adjoint(g, kind, lower):
    """The adjoint of :func:`_structured` (its transpose)."""
    if kind == "her" and _is_complex(g):
        return _from_hermitian(g, lower)
    if kind in ("sym", "her"):
        return _from_triangle(g, lower)
    return _structured(g, kind, lower)


def sl_solve_grad_b(g, a, b, lower=False, assume_a=None, transposed=False):
    """The transpose of ``b -> op(a)^-1 b``: a solve with ``op(a)^T`` (SciPy solves no
    transposed complex system: then with the transpose of the matrix it reads)."""
    kind = _structure(assume_a, "solve")
    if _is_complex(a) and not transposed:
        return sl.solve(mT(_structured(a, kind, lower)), g)
    return sl.solve(a, g, lower=lower, assume_a=assume_a, transposed=not transposed)


def sl_solve_jvp_b(db, a, b, lower=False, assume_a=None, transposed=False):
    _structure(assume_a, "solve")
    return sl.solve(a, db, lower=lower, assume_a=assume_a, transposed=transposed)


def sl_solve_grad_a(g, ans, a, b, lower=False, assume_a=None, transposed=False):
    kind = _structure(assume_a, "solve")
    gb = sl_solve_grad_b(g, a, b, lower, assume_a, transposed)
    gop = -_outer(gb, ans)
    return _structured_adjoint(mT(gop) if transposed else gop, kind, lower)


def sl_solve_jvp_a(da, ans, a, b, lower=False, assume_a=None, transposed=False):
    kind = _structure(assume_a, "solve")
    ds = _structured(da, kind, lower)
    rhs = (mT(ds) if transposed else ds) @ ans
    return -sl.solve(a, rhs, lower=lower, assume_a=assume_a, transposed=transposed)


# SciPy 1.17's inv(a, assume_a="diagonal") inverts the diagonal in place and keeps a's
# other entries (it is the inverse only of a diagonal a): its derivative is that of what
# it computes, the identity off the diagonal
_INV_KEEPS_OFF_DIAGONAL = bool(sl.inv(np.array([[2.0, 1.0], [0.0, 2.0]]),
                                      assume_a="diagonal")[0, 1] != 0)


def sl_inv_grad(g, ans, a, assume_a=None, lower=False):
    kind = _structure(assume_a, "inv")
    if kind == "diagonal" and _INV_KEEPS_OFF_DIAGONAL:
        eye = _eye_like(g)
        return g - eye * g - eye * (g * ans ** 2)
    return _structured_adjoint(-mT(ans) @ g @ mT(ans), kind, lower)


def sl_inv_jvp(da, ans, a, assume_a=None, lower=False):
    kind = _structure(assume_a, "inv")
    if kind == "diagonal" and _INV_KEEPS_OFF_DIAGONAL:
        eye = _eye_like(da)
        return da - eye * da - eye * (da * ans ** 2)
    return -ans @ _structured(da, kind, lower) @ ans


def _lu_parts(lu, piv, name):
    """``(l, u, perm, inverse perm)`` of ``lu_factor``'s result: ``a[perm] = l @ u``."""
    if np.ndim(lu) != 2 or np.shape(lu)[0] != np.shape(lu)[1]:
        sl_refuse(f"scipy.linalg.{name}: derivative for one square matrix only")
    perm = _lu_permutation(piv)
    l = np.tril(lu, -1) + _eye_like(lu)
    u = np.triu(lu)
    return l, u, perm, np.argsort(perm)


def _lu_permutation(piv):
    """Row order of LAPACK's pivots: row i was swapped with row piv[i], in turn."""
    perm = list(range(len(piv)))
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return np.array(perm)


defnograd(_lu_permutation, _eye_like)


def sl_lu_factor_grad(g, ans, a):
    """Adjoint of ``lu_factor``: ``a[perm] = l u`` with ``l`` unit lower triangular."""
    lu, piv = ans
    l, u, perm, inv = _lu_parts(lu, piv, "lu_factor")
    glu = g[0]
    gf = np.tril(mT(l) @ np.tril(glu, -1), -1) + np.triu(np.triu(glu) @ mT(u))
    y = sl.solve_triangular(l, gf, trans=1, lower=True, unit_diagonal=True)    # l^-T gf
    z = mT(sl.solve_triangular(u, mT(y), lower=False))                        # ... u^-T
    return z[inv]


def sl_lu_factor_jvp(da, ans, a):
    lu, piv = ans
    l, u, perm, inv = _lu_parts(lu, piv, "lu_factor")
    y = sl.solve_triangular(l, da[perm], lower=True, unit_diagonal=True)      # l^-1 da_p
    f = mT(sl.solve_triangular(u, mT(y), trans=1, lower=False))               # ... u^-1
    return (l @ np.tril(f, -1) + np.triu(f) @ u, None)


def sl_lu_solve_grad_b(g, lu_and_piv, b, trans=0):
    """The transpose of ``b -> op(a)^-1 b`` (see :func:`sl_solve_triangular_grad_b`)."""
    if _conjugates(trans) and _is_complex(lu_and_piv[0]):
        return np.conj(sl.lu_solve(lu_and_piv, np.conj(g)))
    return sl.lu_solve(lu_and_piv, g, trans=_flipped(trans))


def sl_lu_solve_jvp_b(db, lu_and_piv, b, trans=0):
    return sl.lu_solve(lu_and_piv, db, trans=trans)


def sl_lu_solve_grad_lu(g, ans, lu_and_piv, b, trans=0):
    """Adjoint of ``x = lu_solve((lu, piv), b, trans)`` for ``lu``."""
    lu, piv = lu_and_piv
    l, u, perm, inv = _lu_parts(lu, piv, "lu_solve")
    gb = sl_lu_solve_grad_b(g, lu_and_piv, b, trans)
    gop = -_outer(gb, ans)
    ga = _op(gop, trans)[perm]                                   # for l @ u = a[perm]
    gpiv = np.zeros(np.shape(piv), dtype=_fdtype(lu))      # the pivots: no gradient
    return (np.tril(ga @ mT(u), -1) + np.triu(mT(l) @ ga), gpiv)


def sl_lu_solve_jvp_lu(dlu_and_piv, ans, lu_and_piv, b, trans=0):
    lu, piv = lu_and_piv
    l, u, perm, inv = _lu_parts(lu, piv, "lu_solve")
    dlu = dlu_and_piv[0]
    da = (np.tril(dlu, -1) @ u + l @ np.triu(dlu))[inv]
    rhs = _op(da, trans) @ ans
    return -sl.lu_solve(lu_and_piv, rhs, trans=trans)


def _eigh_call(b, subset_by_index, subset_by_value):
    if b is not None:
        sl_refuse("scipy.linalg.eigh(a, b): no derivative for the generalized problem")
    if subset_by_index is not None or subset_by_value is not None:
        sl_refuse("scipy.linalg.eigh(subset_by_...): no derivative for a subset of "
                  "eigenpairs; compute them all")


def sl_eigh_grad(g, ans, a, b=None, lower=True, eigvals_only=False, subset_by_index=None,
                 subset_by_value=None):
    _eigh_call(b, subset_by_index, subset_by_value)
    uplo = "L" if lower else "U"
    if eigvals_only:
        return eigh_grad((g, None), np.linalg.eigh(a, uplo), a, uplo)
    return eigh_grad(g, ans, a, uplo)


def sl_eigh_jvp(da, ans, a, b=None, lower=True, eigvals_only=False, subset_by_index=None,
                subset_by_value=None):
    _eigh_call(b, subset_by_index, subset_by_value)
    uplo = "L" if lower else "U"
    if eigvals_only:
        return eigh_jvp(da, np.linalg.eigh(a, uplo), a, uplo)[0]
    return eigh_jvp(da, ans, a, uplo)


_QR_MODES = {"full": "complete", "economic": "reduced", "r": "r"}


def _qr_mode(mode, pivoting):
    if pivoting:
        sl_refuse("scipy.linalg.qr(pivoting=True): no derivative (the pivots jump)")
    if mode not in _QR_MODES:
        sl_refuse(f"scipy.linalg.qr(mode={mode!r}): no derivative; use 'full', "
                  f"'economic' or 'r'")
    return _QR_MODES[mode]


def sl_qr_grad(g, ans, a, mode="full", pivoting=False):
    m = _qr_mode(mode, pivoting)
    if m == "r":                           # SciPy returns the tuple (r,), m x n
        n = np.shape(a)[-1]
        return qr_grad(g[0][..., :n, :], None, a, "r")
    return qr_grad(g, ans, a, m)


def sl_qr_jvp(da, ans, a, mode="full", pivoting=False):
    m = _qr_mode(mode, pivoting)
    if m == "r":
        dr = qr_jvp(da, None, a, "r")
        rows = np.shape(a)[-2] - np.shape(a)[-1]
        if rows > 0:                       # R's rows past n are zeros
            zeros = np.zeros(np.shape(dr)[:-2] + (rows, np.shape(dr)[-1]), dtype=dr.dtype)
            dr = np.concatenate([dr, zeros], axis=-2)
        return (dr,)
    return qr_jvp(da, ans, a, m)


def _upper_block(a, e):
    """``[[a, e], [0, a]]`` (stacks of them)."""
    top = np.concatenate([a, e], axis=-1)
    bottom = np.concatenate([np.zeros_like(a), a], axis=-1)
    return np.concatenate([top, bottom], axis=-2)


def sl_expm_jvp(da, a):
    n = np.shape(a)[-1]
    return sl.expm(_upper_block(a, da))[..., :n, n:]


def sl_expm_grad(g, a):
    return sl_expm_jvp(g, mT(a))


def _real(x, name):
    if np.iscomplexobj(x):
        sl_refuse(f"scipy.linalg.{name}: a complex result has no derivative in srcgrad "
                  f"(real matrices with a real {name} only)")
    return x


def sl_sqrtm_jvp(da, a):
    """The Frechet derivative of the principal square root.  A real matrix with negative
    eigenvalues has a complex root ``x``; there the block identity would put the block's
    eigenvalues on the branch cut, so the derivative solves ``x dx + dx x = da`` instead
    (complex-linear: sqrtm is holomorphic)."""
    x = sl.sqrtm(a)
    if np.iscomplexobj(x) and not np.iscomplexobj(a):
        return sl.solve_sylvester(x, x, da)
    n = np.shape(a)[-1]
    return sl.sqrtm(_upper_block(a, da))[..., :n, n:]


def sl_sqrtm_grad(g, a):
    """``L(a^T, g)``; of a real matrix with a complex root, its real part (the pairing
    ``Re sum(g * t)`` of a complex cotangent with a real tangent)."""
    d = sl_sqrtm_jvp(g, mT(a))
    return np.real(d) if np.iscomplexobj(d) and not np.iscomplexobj(a) else d


def sl_logm_jvp(da, a):
    n = np.shape(a)[-1]
    return _real(sl.logm(_upper_block(a, da)), "logm")[..., :n, n:]


def sl_logm_grad(g, a):
    return sl_logm_jvp(g, mT(a))


# solve_sylvester: a x + x b = q.  Tangent: the same equation for dq - da x - x db;
# adjoint: y solving a^T y + y b^T = g, then (q, a, b) get (y, -y x^T, -x^T y)
def sl_sylvester_adjoint(g, a, b):
    return sl.solve_sylvester(mT(a), mT(b), g)


def sl_sylvester_jvp(da, db, dq, ans, a, b):
    rhs = 0.0 * ans
    if dq is not None:
        rhs = rhs + dq
    if da is not None:
        rhs = rhs - da @ ans
    if db is not None:
        rhs = rhs - ans @ db
    return sl.solve_sylvester(a, b, rhs)


# solve_banded((l, u), ab, b): the matrix a[i, j] = ab[u + i - j, j], built densely from
# its diagonals (a linear map of ab, written in functions with rules), then np.linalg.solve's
# derivatives: O(n^3) where SciPy's solve is O(n), exact at every order
def sl_banded_dense(l_and_u, ab):
    lower, upper = l_and_u
    n = np.shape(ab)[-1]
    out = np.zeros((n, n), dtype=np.result_type(ab, np.float32))
    for k in range(-lower, upper + 1):
        row = ab[upper - k]
        out = out + np.diag(row[k:] if k >= 0 else row[:n + k], k)
    return out


def sl_banded_band(l_and_u, a):
    """The transpose of :func:`sl_banded_dense`: ``a``'s diagonals in ``ab``'s layout
    (zeros where ``ab`` holds nothing)."""
    lower, upper = l_and_u
    rows = []
    for k in range(upper, -lower - 1, -1):
        d = np.diagonal(a, k)
        pad = np.zeros(abs(k), dtype=d.dtype)
        rows.append(np.concatenate([pad, d]) if k >= 0 else np.concatenate([d, pad]))
    return np.stack(rows)


def sl_banded_grad_b(g, l_and_u, ab):
    return np.linalg.solve(mT(sl_banded_dense(l_and_u, ab)), g)


def sl_banded_grad_ab(g, ans, l_and_u, ab):
    y = sl_banded_grad_b(g, l_and_u, ab)
    n = np.shape(ab)[-1]
    return sl_banded_band(l_and_u, -(np.reshape(y, (n, -1)) @ mT(np.reshape(ans, (n, -1)))))


def sl_banded_jvp(dab, db, ans, l_and_u, ab):
    a = sl_banded_dense(l_and_u, ab)
    rhs = 0.0 * ans
    if db is not None:
        rhs = rhs + db
    if dab is not None:
        rhs = rhs - sl_banded_dense(l_and_u, dab) @ ans
    return np.linalg.solve(a, rhs)


def _block_shape(x):
    """The block ``block_diag`` makes of ``x`` (a scalar or a vector is one row)."""
    s = np.shape(x)
    return (1, 1) if len(s) == 0 else (1, s[0]) if len(s) == 1 else s


def sl_block_diag_grad(g, arrs):
    """Adjoint of ``block_diag(*arrs)``: each block of ``g``, in its input's shape."""
    out = []
    r = 0
    c = 0
    for x in arrs:
        m, n = _block_shape(x)
        out.append(np.reshape(g[r:r + m, c:c + n], np.shape(x)))
        r = r + m
        c = c + n
    return tuple(out)


def sl_block_diag_jvp(darrs, arrs):
    blocks = [np.zeros(_block_shape(x)) if d is None else d for d, x in zip(darrs, arrs)]
    return sl.block_diag(*blocks)


def _vector(x, name):
    if np.ndim(x) > 1:
        sl_refuse(f"scipy.linalg.{name}: derivative for 1-D input only (SciPy reads "
                  f"N-D input as a batch)")
    return np.ravel(x)


def _diagonal_sums(t):
    """``s[k + m - 1]``: the sum of ``t[i, j]`` over ``j - i = k`` (``t`` is m x n)."""
    m, n = np.shape(t)
    i, j = np.indices((m, n))
    return _bin_sums((j - i + m - 1).ravel(), t, m + n - 1)


def _bin_sums(idx, t, length):
    """``np.bincount(idx, weights=t.ravel())`` in ``t``'s dtype, complex ``t`` too."""
    if _is_complex(t):
        return _bin_sums(idx, np.real(t), length) + 1j * _bin_sums(idx, np.imag(t), length)
    sums = np.bincount(idx, weights=np.ravel(t), minlength=length)
    return sums.astype(_fdtype(t), copy=False)


def sl_toeplitz_grad(t, c, r=None, which=0):
    """Adjoint of ``toeplitz(c, r)`` for ``c`` (which=0) or ``r`` (which=1); with
    ``r=None`` the first row is ``c`` too.  Linear in ``t``."""
    _vector(c, "toeplitz")
    m = np.shape(t)[0]
    s = _diagonal_sums(t)
    below = s[:m][::-1]                  # diagonals 0, -1, ..., -(m-1): c
    above = s[m - 1:]                    # diagonals 0, 1, ..., n-1: r
    if r is None:                        # the first row is conj(c): its adjoint conjugates
        gc = below.copy()
        gc[1:] += np.conj(above[1:]) if _is_complex(c) else above[1:]
        return np.reshape(gc, np.shape(c))
    if which == 0:
        return np.reshape(below, np.shape(c))
    gr = above.copy()
    gr[0] = 0.0                          # r[0] is not read
    return np.reshape(gr, np.shape(r))


def sl_toeplitz_part(t, c, r=None, which=0):
    """The part of ``toeplitz(c, r)`` linear in ``c`` (which=0, ``t`` in its place) or
    in ``r`` (which=1): the transpose of :func:`sl_toeplitz_grad`."""
    cv, tv = _vector(c, "toeplitz"), np.ravel(t)
    if r is None:
        return sl.toeplitz(tv)
    if which == 0:
        return sl.toeplitz(tv, np.zeros(np.size(r), dtype=tv.dtype))
    return sl.toeplitz(np.zeros(np.size(cv), dtype=tv.dtype), tv)


def sl_hankel_part(t, c, r=None, which=0):
    """The part of ``hankel(c, r)`` linear in ``c`` (which=0) or ``r`` (which=1), ``t`` in
    its place: ``hankel(c, r)`` is ``toeplitz(c[::-1], r)`` upside down (``r=None``:
    zeros)."""
    rz = np.zeros_like(c) if r is None else r
    return np.flipud(sl_toeplitz_part(np.flip(t) if which == 0 else t, np.flip(c), rz, which))


def sl_hankel_grad(t, c, r=None, which=0):
    """Adjoint of ``hankel(c, r)`` for ``c`` (which=0) or ``r`` (which=1)."""
    rz = np.zeros_like(c) if r is None else r
    out = sl_toeplitz_grad(np.flipud(t), np.flip(c), rz, which)
    return np.flip(out) if which == 0 else out


def sl_pinv_grad(g, ans, a, return_rank=False):
    """Adjoint of ``scipy.linalg.pinv`` (where the rank is locally constant)."""
    if not return_rank:
        return pinv_grad(g, ans, a)
    gp = _parts(g, 2)[0]
    return np.zeros_like(a) if gp is None else pinv_grad(gp, ans[0], a)


def sl_pinv_jvp(da, ans, a, return_rank=False):
    if not return_rank:
        return pinv_jvp(da, ans, a)
    return (pinv_jvp(da, ans[0], a), None)


def sl_circulant_part(t):
    return sl.circulant(np.ravel(t))


def sl_circulant_grad(t, c):
    """Adjoint of ``circulant(c)``: ``C[i, j] = c[(i - j) % n]``.  Linear in ``t``."""
    n = np.size(c)
    i, j = np.indices((n, n))
    idx = ((i - j) % n).ravel()
    return np.reshape(_bin_sums(idx, t, n), np.shape(c))


deftransformable(sl_solve_triangular_grad_a, sl_solve_triangular_grad_b,
                 sl_solve_triangular_jvp_a, sl_solve_grad_a, sl_solve_grad_b, sl_solve_jvp_a,
                 sl_inv_grad, sl_inv_jvp, sl_lu_factor_grad, sl_lu_factor_jvp,
                 sl_lu_solve_grad_lu, sl_lu_solve_grad_b, sl_lu_solve_jvp_lu, sl_eigh_grad,
                 sl_eigh_jvp, sl_qr_grad, sl_qr_jvp, sl_expm_grad, sl_expm_jvp,
                 sl_sqrtm_grad, sl_sqrtm_jvp, sl_logm_grad, sl_logm_jvp, sl_block_diag_grad,
                 sl_block_diag_jvp, sl_solve_triangular_jvp_b, sl_solve_jvp_b,
                 sl_lu_solve_jvp_b, _outer, _triangle, _op, _structured,
                 _structured_adjoint, _lu_parts, _upper_block, _real, sl_sylvester_adjoint,
                 sl_sylvester_jvp, sl_banded_dense, sl_banded_band, sl_banded_grad_b,
                 sl_banded_grad_ab, sl_banded_jvp)
defnograd(_transposes, _flipped, _conjugates, _structure, _eigh_call, _qr_mode, _block_shape)
defnograd(sl_refuse)                # (a refusal: it raises)
deftransformable(sl_circulant_part, sl_hankel_part, sl_hankel_grad, sl_pinv_grad, sl_pinv_jvp)


# -- rules ------------------------------------------------------------------------------
_CHECK = "overwrite_a=False, check_finite=True"


def _rule(func, params, **kw):
    return defrule(func, params, name=f"scipy.linalg.{func.__name__}", **kw)


_rule(sl.solve_triangular, "a, b, trans=0, lower=False, unit_diagonal=False, "
                             "overwrite_b=False, check_finite=True",
        vjp=dict(a="sl_solve_triangular_grad_a(g, ans, a, b, trans, lower, unit_diagonal)",
                 b="sl_solve_triangular_grad_b(g, a, b, trans, lower, unit_diagonal)"),
        jvp=dict(a="sl_solve_triangular_jvp_a(da, ans, a, b, trans, lower, unit_diagonal)",
                 b="sl_solve_triangular_jvp_b(db, a, b, trans, lower, unit_diagonal)"))
_rule(sl.solve, "a, b, lower=False, overwrite_a=False, overwrite_b=False, "
                  "check_finite=True, assume_a=None, transposed=False",
        vjp=dict(a="sl_solve_grad_a(g, ans, a, b, lower, assume_a, transposed)",
                 b="sl_solve_grad_b(g, a, b, lower, assume_a, transposed)"),
        jvp=dict(a="sl_solve_jvp_a(da, ans, a, b, lower, assume_a, transposed)",
                 b="sl_solve_jvp_b(db, a, b, lower, assume_a, transposed)"))
_rule(sl.inv, f"a, {_CHECK}, *, assume_a=None, lower=False",
        vjp=dict(a="sl_inv_grad(g, ans, a, assume_a, lower)"),
        jvp=dict(a="sl_inv_jvp(da, ans, a, assume_a, lower)"))
_rule(sl.det, f"a, {_CHECK}",
        vjp=dict(a="np.expand_dims(g * ans, (-2, -1)) * mT(np.linalg.inv(a))"),
        jvp=dict(a="ans * np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)"))
_rule(sl.lu_factor, f"a, {_CHECK}",
        vjp=dict(a="sl_lu_factor_grad(g, ans, a)"), jvp=dict(a="sl_lu_factor_jvp(da, ans, a)"))
_rule(sl.lu_solve, "lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True",
        sequence="lu_and_piv",
        vjp=dict(lu_and_piv="sl_lu_solve_grad_lu(g, ans, lu_and_piv, b, trans)",
                 b="sl_lu_solve_grad_b(g, lu_and_piv, b, trans)"),
        jvp=dict(lu_and_piv="sl_lu_solve_jvp_lu(dlu_and_piv, ans, lu_and_piv, b, trans)",
                 b="sl_lu_solve_jvp_b(db, lu_and_piv, b, trans)"))
_EIGH = ("a, b, lower, eigvals_only, subset_by_index, subset_by_value")
_rule(sl.eigh, "a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, "
                 "overwrite_b=False, type=1, check_finite=True, subset_by_index=None, "
                 "subset_by_value=None, driver=None",
        vjp=dict(a=f"sl_eigh_grad(g, ans, {_EIGH})",
                 b="sl_refuse('scipy.linalg.eigh(a, b): no derivative for b')"),
        jvp=dict(a=f"sl_eigh_jvp(da, ans, {_EIGH})",
                 b="sl_refuse('scipy.linalg.eigh(a, b): no derivative for b')"))
_rule(sl.eigvalsh, "a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1, "
                    "check_finite=True, subset_by_index=None, subset_by_value=None, driver=None",
      vjp=dict(a="sl_eigh_grad(g, ans, a, b, lower, True, subset_by_index, subset_by_value)",
               b="sl_refuse('scipy.linalg.eigvalsh(a, b): no derivative for b')"),
      jvp=dict(a="sl_eigh_jvp(da, ans, a, b, lower, True, subset_by_index, subset_by_value)",
               b="sl_refuse('scipy.linalg.eigvalsh(a, b): no derivative for b')"))
_rule(sl.svdvals, "a, overwrite_a=False, check_finite=True",
      vjp=dict(a="svd_grad(g, ans, a, False, False)"), jvp=dict(a="svd_jvp(da, ans, a, False, False)"))
_rule(sl.pinv, "a, *, atol=None, rtol=None, return_rank=False, check_finite=True",
      vjp=dict(a="sl_pinv_grad(g, ans, a, return_rank)"),
      jvp=dict(a="sl_pinv_jvp(da, ans, a, return_rank)"))
_rule(sl.svd, f"a, full_matrices=True, compute_uv=True, {_CHECK}, lapack_driver='gesdd'",
        vjp=dict(a="svd_grad(g, ans, a, full_matrices, compute_uv)"),
        jvp=dict(a="svd_jvp(da, ans, a, full_matrices, compute_uv)"))
_rule(sl.qr, "a, overwrite_a=False, lwork=None, mode='full', pivoting=False, "
               "check_finite=True",
        vjp=dict(a="sl_qr_grad(g, ans, a, mode, pivoting)"),
        jvp=dict(a="sl_qr_jvp(da, ans, a, mode, pivoting)"))
_rule(sl.expm, "A", vjp=dict(A="sl_expm_grad(g, A)"), jvp=dict(A="sl_expm_jvp(dA, A)"))
_rule(sl.sqrtm, "A, disp=None, blocksize=None",
        vjp=dict(A="sl_sqrtm_grad(g, A)"), jvp=dict(A="sl_sqrtm_jvp(dA, A)"))
_rule(sl.logm, "A, disp=None",
        vjp=dict(A="sl_logm_grad(g, A)"), jvp=dict(A="sl_logm_jvp(dA, A)"))
_rule(sl.solve_sylvester, "a, b, q",
      vjp=dict(a="-sl_sylvester_adjoint(g, a, b) @ mT(ans)",
               b="-mT(ans) @ sl_sylvester_adjoint(g, a, b)", q="sl_sylvester_adjoint(g, a, b)"),
      jvp=dict(a="sl_sylvester_jvp(da, None, None, ans, a, b)",
               b="sl_sylvester_jvp(None, db, None, ans, a, b)",
               q="sl_sylvester_jvp(None, None, dq, ans, a, b)"))
_rule(sl.solve_banded, "l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, "
                       "check_finite=True",
      vjp=dict(ab="sl_banded_grad_ab(g, ans, l_and_u, ab)", b="sl_banded_grad_b(g, l_and_u, ab)"),
      jvp=dict(ab="sl_banded_jvp(dab, None, ans, l_and_u, ab)",
               b="sl_banded_jvp(None, db, ans, l_and_u, ab)"))
_rule(sl.block_diag, "*arrs", linear_in="arrs",
        vjp=dict(arrs="sl_block_diag_grad(g, arrs)"),
        jvp=dict(arrs="sl_block_diag_jvp(darrs, arrs)"))
_rule(sl.toeplitz, "c, r=None", linear_in=("c", "r"),
        vjp=dict(c="sl_toeplitz_grad(g, c, r, 0)", r="sl_toeplitz_grad(g, c, r, 1)"),
        jvp=dict(c="sl_toeplitz_part(dc, c, r, 0)", r="sl_toeplitz_part(dr, c, r, 1)"))
_rule(sl.hankel, "c, r=None", linear_in=("c", "r"),
      vjp=dict(c="sl_hankel_grad(g, c, r, 0)", r="sl_hankel_grad(g, c, r, 1)"),
      jvp=dict(c="sl_hankel_part(dc, c, r, 0)", r="sl_hankel_part(dr, c, r, 1)"))
_rule(sl.circulant, "c", linear_in="c",
        vjp=dict(c="sl_circulant_grad(g, c)"), jvp=dict(c="sl_circulant_part(dc)"))

# the linear kernels' own rules (their transposes): any order
deflinear(sl_toeplitz_grad, "t, c, r=None, which=0",
          vjp="sl_toeplitz_part(g, c, r, which)", jvp="sl_toeplitz_grad(dt, c, r, which)",
          constant=("c", "r"))
deflinear(sl_toeplitz_part, "t, c, r=None, which=0",
          vjp="sl_toeplitz_grad(g, c, r, which)", jvp="sl_toeplitz_part(dt, c, r, which)",
          constant=("c", "r"))
deflinear(sl_circulant_grad, "t, c", vjp="sl_circulant_part(g)",
          jvp="sl_circulant_grad(dt, c)", constant=("c",))
