"""Matrix factorizations: slogdet, cholesky, eig, eigh, eigvalsh, svd, pinv, qr, tensorinv.

Eigen- and singular values are assumed distinct (the adjoints divide by their gaps).
eig, eigh and svd take complex matrices too: their vectors' phases are free (LAPACK
picks them), so only losses that do not read the phases are differentiated, and a
reverse sweep that sees one raises.  cholesky and qr of complex matrices have unique
factors (real diagonals), so nothing is free there.
"""
import sys

import numpy
import numpy as np

from ...runtime.backends import array_ns

from ..registry import defkernel, defnograd, defrule, deftransformable
from .conventions import _eye, _fdtype, _is_complex, _keep, _on_host
from .linalg import mT

__all__ = ['eig_grad', 'eig_jvp', 'cholesky_grad', 'cholesky_jvp', 'eigh_grad', 'eigh_jvp', 'eigvalsh_grad', 'eigvalsh_jvp', 'svd_grad', 'svd_jvp', 'pinv_grad', 'pinv_jvp', 'qr_grad', 'qr_jvp', 'slogdet_grad', 'slogdet_jvp', 'tensorinv_grad', 'tensorinv_jvp', 'slogdet_grad_t', 'slogdet_grad_a', 'slogdet_grad_da']


# -- kernels ----------------------------------------------------------------------------

def _eye_like(x):
    np = array_ns(x)
    n = np.shape(x)[-1]
    return _eye(n, n, 0, x)


def _from_triangle(s, lower=True):
    """The gradient with respect to ``a`` of a function that reads one triangle of ``a``
    (LAPACK's symmetric and Hermitian routines), from ``s``, its gradient with respect
    to the symmetric (Hermitian) matrix that triangle defines: the off-diagonal entries
    count twice."""
    np = array_ns(s, lower)
    t = s + mT(s)
    off = np.tril(t, -1) if lower else np.triu(t, 1)
    return off + s * _eye_like(s)


def _from_hermitian(s, lower=True):
    """:func:`_from_triangle` of a complex ``s``, in the conjugated convention: the
    Hermitian matrix reads ``conj`` of the other triangle, and only the real part of the
    diagonal."""
    np = array_ns(s, lower)
    t = s + _mH(s)
    off = np.tril(t, -1) if lower else np.triu(t, 1)
    return off + np.real(s) * _eye_like(s)


def _to_symmetric(da, lower=True):
    """The tangent of the symmetric matrix that one triangle of ``a`` defines (for a
    complex ``a``: the Hermitian one, whose diagonal is the real part of ``a``'s)."""
    np = array_ns(da, lower)
    if _is_complex(da):
        low = np.tril(da, -1) if lower else np.triu(da, 1)
        return low + _mH(low) + np.real(da) * _eye_like(da)
    if lower:
        return np.tril(da) + mT(np.tril(da, -1))
    return np.triu(da) + mT(np.triu(da, 1))


def _phi(x):
    """Lower triangle with the diagonal halved."""
    np = array_ns(x)
    return np.tril(x) - 0.5 * x * _eye_like(x)


def cholesky_grad(g, ans, a, upper=False):
    """Adjoint of ``np.linalg.cholesky`` (``a = L L^H``, read from the lower triangle and
    the real part of the diagonal; ``upper=True``: ``a = U^H U`` read from the upper one).
    A complex ``a``: the conjugated convention of :func:`svd_grad` (the factor is unique,
    its diagonal real and positive, so no phase is free)."""
    np = array_ns(g, ans, a, upper)
    cx = _is_complex(a)
    L, gL = (_mH(ans), _mH(g)) if upper else (ans, g)
    Linv = np.linalg.inv(L)
    s = _mH(Linv) @ _phi(_mH(L) @ (np.conj(gL) if cx else gL)) @ Linv
    if cx:
        return np.conj(_from_hermitian(0.5 * (s + _mH(s)), lower=not upper))
    return _from_triangle(0.5 * (s + mT(s)), lower=not upper)


def cholesky_jvp(da, ans, a, upper=False):
    np = array_ns(da, ans, a, upper)
    L = _mH(ans) if upper else ans
    Linv = np.linalg.inv(L)
    dL = L @ _phi(Linv @ _to_symmetric(da, lower=not upper) @ _mH(Linv))
    return _mH(dL) if upper else dL


def _gap_inverse(w):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it (a stack of them)."""
    np = array_ns(w)
    diff = w[..., None, :] - w[..., :, None]
    eye = _eye_like(diff) != 0
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, diff))


def _parts(g, k):
    """The cotangents of a tuple result (None: zero), as a list of length ``k``."""
    if g is None:
        return [None] * k
    return list(g) + [None] * (k - len(g))


def eigh_grad(g, ans, a, UPLO="L"):
    """Adjoint of ``np.linalg.eigh(a, UPLO)`` (distinct eigenvalues).  A complex ``a``:
    the conjugated convention of :func:`svd_grad`; the eigenvectors' free phases must not
    change the loss (:func:`_phase_free`)."""
    np = array_ns(g, ans, a, UPLO)
    cx = _is_complex(a)
    w, v = ans
    gw, gv = _parts(g, 2)
    inner = 0.0
    if gw is not None:
        inner = inner + gw[..., None, :] * _eye_like(v)
    refused = 0.0
    if gv is not None:
        vt_gv = _mH(v) @ (np.conj(gv) if cx else gv)
        inner = inner + _gap_inverse(w) * vt_gv
        if cx:
            refused = _phase_free(np.diagonal(vt_gv, axis1=-2, axis2=-1), "np.linalg.eigh")
    if np.isscalar(inner):
        return np.zeros_like(a, dtype=_fdtype(a))
    s = v @ inner @ _mH(v)
    if cx:
        return np.conj(_from_hermitian(0.5 * (s + _mH(s)), lower=UPLO.upper() == "L")) + \
            refused
    return _from_triangle(0.5 * (s + mT(s)), lower=UPLO.upper() == "L")


def eigh_jvp(da, ans, a, UPLO="L"):
    np = array_ns(da, ans, a, UPLO)
    w, v = ans
    dp = _mH(v) @ _to_symmetric(da, lower=UPLO.upper() == "L") @ v
    dw = np.diagonal(dp, axis1=-2, axis2=-1)
    dv = v @ (_gap_inverse(w) * dp)
    return (np.real(dw) if _is_complex(dw) else dw, dv)


def eigvalsh_grad(g, a, UPLO="L"):
    np = array_ns(g, a, UPLO)
    return eigh_grad((g, None), np.linalg.eigh(a, UPLO), a, UPLO)


def eigvalsh_jvp(da, a, UPLO="L"):
    np = array_ns(da, a, UPLO)
    return eigh_jvp(da, np.linalg.eigh(a, UPLO), a, UPLO)[0]


def _real_only(a, name):
    """These adjoints are written for real matrices; a complex one (whose derivative needs
    conjugate transposes and, for eigh / svd, the eigenvectors' phases) is refused rather
    than given a wrong number."""
    if _is_complex(a):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError(f"{name}: derivative for real matrices only (this one "
                                     f"is complex)")


def eig_grad(g, ans, a):
    """Adjoint of ``np.linalg.eig(a)`` (distinct eigenvalues; eigenvectors of unit norm,
    as LAPACK returns them).  Complex eigenvectors (of a complex matrix, or of a real one
    with complex eigenvalues): the conjugated convention of :func:`svd_grad`, each
    vector's free phase fixed by ``v_i^H dv_i = 0`` and refused if the loss reads it; a
    real ``a`` gets the real part."""
    np = array_ns(g, ans, a)
    w, v = ans
    cx = _is_complex(v)
    gw, gv = _parts(g, 2)
    gp = 0.0 * _eye_like(v)
    refused = 0.0
    if gw is not None:
        gp = gp + gw[..., None, :] * _eye_like(v)
    if gv is not None:
        diag = np.diagonal(mT(v) @ gv, axis1=-2, axis2=-1)
        if cx:
            refused = _phase_free(diag, "np.linalg.eig")
        # the normalization to unit norm (and, complex, the fixed phase)
        gv_free = gv - (np.conj(v) if cx else v) * diag[..., None, :]
        gp = gp + _gap_inverse(w) * (mT(v) @ gv_free)
    grad = np.linalg.solve(mT(v), gp @ mT(v)) + refused      # v^-T gp v^T
    return np.real(grad) if cx and not _is_complex(a) else grad


def eig_jvp(da, ans, a):
    np = array_ns(da, ans, a)
    w, v = ans
    p = np.linalg.solve(v, da @ v)                            # v^-1 da v
    dw = np.diagonal(p, axis1=-2, axis2=-1)
    dv = v @ (_gap_inverse(w) * p)
    # keep unit norms (complex: and v_i^H dv_i = 0)
    dv = dv - v * np.sum((np.conj(v) if _is_complex(v) else v) * dv, axis=-2, keepdims=True)
    return (dw, dv)


def _reduced_svd(ans, a, full_matrices, compute_uv, g=None):
    """``(u, s, vt, gu, gs, gvt)`` of the thin SVD, whatever form the call returned."""
    np = array_ns(ans, a, full_matrices, compute_uv, g)
    if not compute_uv:
        u, s, vt = np.linalg.svd(a, full_matrices=False)
        return u, s, vt, None, g, None
    u, s, vt = ans
    gu, gs, gvt = _parts(g, 3)
    m, n = np.shape(a)[-2:]
    k = min(m, n)
    if full_matrices and m != n:
        # the columns of u (rows of vt) past k are not functions of a: no derivative,
        # unless nothing depends on them (off the host, where the check would copy to
        # the host, the gradient is NaN instead of the error)
        extra_u = gu[..., :, k:] if gu is not None and m > k else None
        extra_vt = gvt[..., k:, :] if gvt is not None and n > k else None
        u, vt = u[..., :, :k], vt[..., :k, :]
        gu = gu[..., :, :k] + _refuse_nonzero(extra_u, _SVD_EXTRA) if gu is not None else None
        gvt = gvt[..., :k, :] + _refuse_nonzero(extra_vt, _SVD_EXTRA) if gvt is not None \
            else None
    return u, s, vt, gu, gs, gvt


_SVD_EXTRA = ("np.linalg.svd(full_matrices=True) of a non-square matrix: the extra singular "
              "vectors have no derivative; use full_matrices=False")
_QR_EXTRA = ("np.linalg.qr(mode='complete'): the extra columns of Q have no derivative; use "
             "mode='reduced'")


def _refuse_nonzero(t, message):
    """0 where ``t`` (a cotangent reaching something with no derivative) is None or all
    zero; otherwise the ValueError ``message`` on the host, NaN on a device (the check
    there would copy to the host)."""
    np = array_ns(t)
    if t is None:
        return 0.0
    if _on_host(t):
        if np.any(t != 0):
            raise ValueError(message)
        return 0.0
    return np.where(np.any(t != 0), np.nan, 0 * t[..., :1, :1])


def _mH(x):
    """The conjugate transpose of a stack of matrices (the transpose of a real one)."""
    np = array_ns(x)
    return np.conj(mT(x)) if _is_complex(x) else mT(x)


def _phase_free(t, name):
    """``t[..., i]`` is the derivative of the loss when singular / eigenvector ``i`` is
    multiplied by ``exp(i theta)`` (what the decomposition leaves free): its imaginary
    part must be 0.  A loss that reads the vectors' phases (``np.real(u)``) has no
    derivative, since LAPACK's choice of phase is not a function of the matrix: refused
    on the host; off the host (where the check would copy to the host) the gradient is
    NaN instead.  Returns what the gradient gets added (0 or NaN)."""
    np = array_ns(t)
    if not hasattr(t, "shape"):              # no vector's cotangent reached it
        return 0.0
    bad = np.abs(np.imag(t)) > 1e-8 * (1.0 + np.max(np.abs(t))) * np.shape(t)[-1]
    if not _on_host(t):
        return np.where(np.any(bad), np.nan, 0.0)
    if np.any(bad):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError(
            f"{name} of a complex matrix: the result depends on the phases of the vectors "
            f"it returns, which LAPACK chooses arbitrarily, so it has no derivative; only "
            f"functions invariant to those phases are differentiable (np.abs(v), u * s @ vh, "
            f"v @ np.conj(v).T ...)")
    return 0.0


def svd_grad(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Adjoint of ``np.linalg.svd`` (distinct, non-zero singular values).

    A complex ``a``: ``g`` pairs with the tangent as ``Re sum(g * t)`` (no conjugate), so
    the conjugated cotangents ``G`` of the usual formula are ``conj(gu)`` and ``gvt^T``
    and the result is ``conj`` of it.  The phase left free by the SVD (``u_i`` and
    ``v_i`` times the same ``exp(i theta)``) is fixed so that ``v_i^H dv_i = 0``; a loss
    that reads it is refused (:func:`_phase_free`)."""
    np = array_ns(g, ans, a, full_matrices, compute_uv, hermitian)
    cx = _is_complex(a)
    if cx and hermitian:
        _real_only(a, "np.linalg.svd(hermitian=True)")
    u, s, vt, gu, gs, gvt = _reduced_svd(ans, a, full_matrices, compute_uv, g)
    v = _mH(vt)
    m, n = np.shape(a)[-2:]
    eye = _eye_like(v[..., :1, :])              # k x k
    inner = (gs[..., None, :] * eye) if gs is not None else 0.0 * eye
    f = _gap_inverse(s ** 2)
    smat = s[..., None, :] * eye
    out = 0.0
    phase = 0.0
    if gu is not None:
        cu = np.conj(gu) if cx else gu
        ut_gu = _mH(u) @ cu
        inner = inner + (f * (ut_gu - _mH(ut_gu))) @ smat
        if cx:
            diag = np.diagonal(ut_gu, axis1=-2, axis2=-1)
            inner = inner + 1j * (np.imag(diag) / s)[..., None, :] * eye
            phase = phase + diag
        if m > s.shape[-1]:
            out = out + (cu - u @ ut_gu) / s[..., None, :] @ vt
    if gvt is not None:
        gv = mT(gvt)
        vt_gv = vt @ gv
        inner = inner + smat @ (f * (vt_gv - _mH(vt_gv)))
        if cx:
            phase = phase + np.diagonal(vt_gv, axis1=-2, axis2=-1)
        if n > s.shape[-1]:
            out = out + (u / s[..., None, :]) @ _mH(gv - v @ vt_gv)
    grad = u @ inner @ vt + out
    if cx:
        refused = _phase_free(phase, "np.linalg.svd") if compute_uv else 0.0
        return np.conj(grad) + refused
    if hermitian:                       # NumPy then reads the lower triangle (eigh)
        return _from_triangle(grad)
    return grad


def svd_jvp(da, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Tangent of ``np.linalg.svd``; of a complex matrix, with the free phase of each
    pair ``u_i, v_i`` fixed by ``v_i^H dv_i = 0`` (see :func:`svd_grad`)."""
    np = array_ns(da, ans, a, full_matrices, compute_uv, hermitian)
    cx = _is_complex(a)
    if cx and hermitian:
        _real_only(a, "np.linalg.svd(hermitian=True)")
    if hermitian:
        da = _to_symmetric(da)
    m, n = np.shape(a)[-2:]
    if compute_uv and full_matrices and m != n:
        raise ValueError(_SVD_EXTRA)
    u, s, vt, _, _, _ = _reduced_svd(ans, a, False, compute_uv)
    v = _mH(vt)
    dp = _mH(u) @ da @ v
    ds = np.diagonal(dp, axis1=-2, axis2=-1)
    if cx:
        ds = np.real(ds)
    if not compute_uv:
        return ds
    f = _gap_inverse(s ** 2)
    sr = s[..., None, :]                        # scales columns
    sl = s[..., :, None]                        # scales rows
    du = u @ (f * (dp * sr + sl * _mH(dp)))
    dv = v @ (f * (sl * dp + _mH(dp) * sr))
    if cx:
        du = du + u * (1j * np.imag(np.diagonal(dp, axis1=-2, axis2=-1)) / s)[..., None, :]
    if m > s.shape[-1]:
        du = du + (da @ v - u @ (_mH(u) @ da @ v)) / sr
    if n > s.shape[-1]:
        dv = dv + (_mH(da) @ u - v @ (_mH(v) @ _mH(da) @ u)) / sr
    return (du, ds, _mH(dv))


def spectral_weights(x, ord, axes):
    """``conj(U V^H)`` (nuclear norm) or ``conj(u_i v_i^H)`` (2: the largest singular
    value, -2: the smallest) of the matrices along ``axes`` of ``x``, moved back to
    them: the norm's derivative is ``Re sum(W * dx)`` (for a complex ``x``; written with
    the SVD, so it differentiates again)."""
    np = array_ns(x, ord, axes)
    nd = np.ndim(x)
    r, c = (a % nd for a in axes)
    u, s, vt = np.linalg.svd(np.moveaxis(x, (r, c), (-2, -1)), full_matrices=False)
    if ord == "nuc":
        w = u @ vt
    elif ord == 2:
        w = u[..., :, :1] @ vt[..., :1, :]
    else:
        w = u[..., :, -1:] @ vt[..., -1:, :]
    return np.moveaxis(np.conj(w), (-2, -1), (r, c))


def spectral_grad(g, x, ord, axes, keepdims):
    """Adjoint of a spectral norm ('nuc', 2, -2) of a complex ``x``."""
    np = array_ns(g, x, ord, axes, keepdims)
    return _keep(g, np.ndim(x), axes, keepdims) * spectral_weights(x, ord, axes)


def spectral_jvp(dx, x, ord, axes, keepdims):
    np = array_ns(dx, x, ord, axes, keepdims)
    w = spectral_weights(x, ord, axes)
    return np.real(np.sum(w * dx, axis=axes, keepdims=keepdims))


def pinv_grad(g, ans, a, hermitian=False):
    """Adjoint of ``np.linalg.pinv`` (where the rank is locally constant).  A complex
    ``a``: the conjugated convention of :func:`svd_grad` (conjugate transposes, ``G =
    conj(g)`` in the usual formula and the result conjugated)."""
    np = array_ns(g, ans, a, hermitian)
    cx = _is_complex(a)
    x = ans
    xh = _mH(x)
    gs = np.conj(g) if cx else g
    gh = mT(g)                                  # (G^H, G = conj(g))
    grad = (-xh @ gs @ xh + (gh - a @ (x @ gh)) @ (x @ xh) + (xh @ x) @ (gh - (gh @ x) @ a))
    if hermitian:                       # NumPy then reads the lower triangle (eigh)
        grad = _from_hermitian(grad) if cx else _from_triangle(grad)
    return np.conj(grad) if cx else grad


def pinv_jvp(da, ans, a, hermitian=False):
    if hermitian:
        da = _to_symmetric(da)
    x = ans
    dah, xh = _mH(da), _mH(x)
    return (-x @ da @ x + (x @ xh) @ (dah - (dah @ a) @ x)
            + (dah - x @ (a @ dah)) @ (xh @ x))


def _qr_parts(ans, a, mode, g=None):
    np = array_ns(ans, a, mode, g)
    m, n = np.shape(a)[-2:]
    if mode not in ("reduced", "complete", "r"):
        raise NotImplementedError(f"np.linalg.qr: no derivative for mode={mode!r}")
    if m < n:
        raise NotImplementedError("np.linalg.qr: derivative for matrices with at least "
                                  "as many rows as columns only")
    refused = 0.0           # what the gradient gets added (:func:`_refuse_nonzero`)
    if mode == "r":
        q, r = np.linalg.qr(a)
        gq, gr = None, g
    else:
        q, r = ans
        gq, gr = _parts(g, 2)
        if m > n and mode == "complete":
            q, r = q[..., :, :n], r[..., :n, :]
            if gq is not None:
                refused = _refuse_nonzero(gq[..., :, n:], _QR_EXTRA)
                gq = gq[..., :, :n]
            gr = gr[..., :n, :] if gr is not None else None
    return q, r, gq, gr, refused


def _imag_diagonal(c):
    """``1j * Im`` of the diagonal of a stack of complex matrices, as a matrix."""
    np = array_ns(c)
    return 1j * np.imag(np.diagonal(c, axis1=-2, axis2=-1))[..., None, :] * _eye_like(c)


def qr_grad(g, ans, a, mode="reduced"):
    """Adjoint of ``np.linalg.qr`` (m >= n, full column rank).  A complex ``a``: the
    conjugated convention of :func:`svd_grad`; LAPACK's ``R`` has a real diagonal, which
    makes the factors unique (locally), so no phase is free."""
    np = array_ns(g, ans, a, mode)
    cx = _is_complex(a)
    q, r, gq, gr, refused = _qr_parts(ans, a, mode, g)
    if gq is None and gr is None:
        return np.zeros_like(a, dtype=_fdtype(a))
    if cx:
        gq = np.conj(gq) if gq is not None else None
        gr = np.conj(gr) if gr is not None else None
    nmat = 0.0
    if gr is not None:
        nmat = nmat + gr @ _mH(r)
    if gq is not None:
        nmat = nmat - _mH(q) @ gq
    k = np.triu(nmat) + np.tril(_mH(nmat), -1)
    if cx:                                  # r's diagonal is real: only Re of nmat's
        k = k - _imag_diagonal(nmat)
    b = q @ k if gq is None else gq + q @ k
    grad = _mH(np.linalg.solve(r, _mH(b)))                   # b @ r^-H
    return (np.conj(grad) if cx else grad) + refused


def qr_jvp(da, ans, a, mode="reduced"):
    np = array_ns(da, ans, a, mode)
    q, r, _, _, _ = _qr_parts(ans, a, mode)
    c = mT(np.linalg.solve(mT(r), mT(_mH(q) @ da)))         # q^H da r^-1
    low = np.tril(c, -1)
    # q^H dq is skew-Hermitian; dr r^-1 upper triangular with a real diagonal
    t = c - (low - _mH(low))
    if _is_complex(c):
        t = t - _imag_diagonal(c)
    dr = t @ r
    if mode == "r":
        return dr
    dq = mT(np.linalg.solve(mT(r), mT(da))) - q @ t
    m, n = np.shape(a)[-2:]
    if mode == "complete" and m > n:
        raise ValueError(_QR_EXTRA)
    return (dq, dr)


def _sign_share(gsign, a):
    """``1j Im(gsign * sign)``: what the cotangent of a complex matrix's sign
    (``det / |det|``, whose derivative is ``sign * 1j Im tr(a^-1 da)``) adds to the
    factor of ``inv(a)^T``; 0 for a real matrix (its sign is piecewise constant)."""
    np = array_ns(gsign, a)
    if gsign is None or not _is_complex(a):
        return 0.0
    return 1j * np.imag(gsign * np.linalg.slogdet(a)[0])


def _lapack(name, a):
    """LAPACK's routine ``name`` (``"potrf"``) for a real 2-D NumPy matrix ``a``, through
    SciPy when something has imported it; else None (the caller takes another path)."""
    linalg = sys.modules.get("scipy.linalg")
    if linalg is None or type(a) is not numpy.ndarray or a.ndim != 2 or \
            a.dtype not in (numpy.float32, numpy.float64):
        return None
    return getattr(linalg.lapack, ("d" if a.dtype == numpy.float64 else "s") + name)


def _spd_factor_inverse(low, full=True, overwrite=False):
    """``(L L^T)^-1`` from the lower Cholesky factor ``L`` (LAPACK's potri: a third of
    the work of ``inv``), or None where that path is not open.  ``full=False``: potri's
    own result, whose lower triangle it is (the other one is ``L``'s); ``overwrite``: in
    ``L``'s place."""
    potri = _lapack("potri", low)
    if potri is None:
        return None
    inv, info = potri(low, lower=1, overwrite_c=1 if overwrite else 0)
    if info != 0:
        return None
    if not full:
        return inv
    inv = numpy.tril(inv)                   # (potri writes the lower triangle only)
    out = inv + inv.T
    numpy.fill_diagonal(out, numpy.diagonal(inv))
    return out


def _spd_inverse(a):
    """``a^-1`` of a real symmetric positive definite 2-D NumPy matrix by its Cholesky
    factor (:func:`_spd_factor_inverse`), or None (not symmetric, not definite, not a
    NumPy matrix: the caller inverts it as a general matrix)."""
    potrf = _lapack("potrf", a)
    if potrf is None or not numpy.array_equal(a, a.T):
        return None
    low, info = potrf(a, lower=1)
    return _spd_factor_inverse(low, overwrite=True) if info == 0 else None


def slogdet_grad(g, a):
    """Adjoint of ``np.linalg.slogdet``: ``logabsdet`` and, of a complex matrix, the
    sign carry a gradient.  A real symmetric positive definite NumPy matrix is inverted
    by its Cholesky factor (:func:`_spd_inverse`), others by ``inv``.  (An opaque kernel:
    its own rules below give its derivatives.)"""
    np = array_ns(g, a)
    gsign, glog = _parts(g, 2)
    if glog is None and (gsign is None or not _is_complex(a)):
        return np.zeros_like(a, dtype=_fdtype(a))
    factor = (0.0 if glog is None else glog) + _sign_share(gsign, a)
    inv = None if _is_complex(a) else _spd_inverse(a)
    if inv is not None:                     # (a 2-D matrix: factor is a number)
        return np.multiply(inv, factor, out=inv)
    return np.expand_dims(factor, (-2, -1)) * mT(np.linalg.inv(a))


def slogdet_jvp(da, ans, a):
    np = array_ns(da, ans, a)
    sign, _ = ans
    dlog = np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)
    if _is_complex(dlog):
        # log|det a| is real: the real part of d log det; the sign turns by its imaginary part
        return (sign * 1j * np.imag(dlog), np.real(dlog))
    return (np.zeros_like(sign, dtype=_fdtype(sign)), dlog)


def _refuse_sign(t, a):
    """The kernels below differentiate ``slogdet_grad`` again for ``logabsdet`` only."""
    if _is_complex(a) and t is not None and t[0] is not None and np.any(t[0] != 0):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError(
            "np.linalg.slogdet of a complex matrix: srcgrad has the second derivative of "
            "log|det| but not of the sign; use np.linalg.det(a) / np.abs(np.linalg.det(a))")


def _tensorinv_shapes(a, ind):
    np = array_ns(a, ind)
    shape = np.shape(a)
    rows = int(np.prod(shape[:ind]))
    return rows, int(np.prod(shape[ind:]))


def tensorinv_grad(g, ans, a, ind=2):
    """Adjoint of ``np.linalg.tensorinv(a, ind)``: the inverse's adjoint, reshaped."""
    np = array_ns(g, ans, a, ind)
    rows, cols = _tensorinv_shapes(a, ind)
    x = np.reshape(ans, (cols, rows))
    gx = np.reshape(g, (cols, rows))
    return np.reshape(-x.T @ gx @ x.T, np.shape(a))


def tensorinv_jvp(da, ans, a, ind=2):
    np = array_ns(da, ans, a, ind)
    rows, cols = _tensorinv_shapes(a, ind)
    x = np.reshape(ans, (cols, rows))
    return np.reshape(-x @ np.reshape(da, (rows, cols)) @ x, np.shape(ans))


def slogdet_grad_t(g, t, a):
    """Adjoint, for ``t = (t_sign, t_logabsdet)``, of ``slogdet_grad(t, a)``."""
    np = array_ns(g, t, a)
    _refuse_sign(t, a)
    glog = np.sum(g * mT(np.linalg.inv(a)), axis=(-2, -1))
    return (np.zeros_like(glog), glog)


def slogdet_grad_a(g, t, a):
    """Adjoint, for ``a``, of ``slogdet_grad(t, a) = t_log inv(a)^T``."""
    np = array_ns(g, t, a)
    _refuse_sign(t, a)
    _, tlog = _parts(t, 2)
    if tlog is None:
        return np.zeros_like(a, dtype=_fdtype(a))
    inv_t = mT(np.linalg.inv(a))
    return -np.expand_dims(tlog, (-2, -1)) * (inv_t @ mT(g) @ inv_t)


def slogdet_grad_da(da, t, a):
    """Tangent of ``slogdet_grad(t, a)`` along ``da``."""
    np = array_ns(da, t, a)
    _refuse_sign(t, a)
    _, tlog = _parts(t, 2)
    if tlog is None:
        return np.zeros_like(a, dtype=_fdtype(a))
    inv = np.linalg.inv(a)
    return -np.expand_dims(tlog, (-2, -1)) * mT(inv @ da @ inv)


# the kernels are written in differentiable primitives: the compiler differentiates
# their source again for second and higher derivatives
deftransformable(spectral_weights, spectral_grad, spectral_jvp, eig_grad, eig_jvp, _mH, _from_triangle, _from_hermitian, _to_symmetric, _phi, _gap_inverse, _parts, cholesky_grad,
                 cholesky_jvp, eigh_grad, eigh_jvp, eigvalsh_grad, eigvalsh_jvp, _reduced_svd,
                 svd_grad, svd_jvp, pinv_grad, pinv_jvp, _sign_share, _qr_parts, _imag_diagonal, qr_grad, qr_jvp, _refuse_nonzero,
                 slogdet_jvp, tensorinv_grad, tensorinv_jvp, slogdet_grad_t, slogdet_grad_a,
                 slogdet_grad_da)
defnograd(_eye_like, _tensorinv_shapes, _real_only, _phase_free, _refuse_sign)

# -- rules ------------------------------------------------------------------------------
# linear algebra: factorizations (real input; distinct eigen- / singular values)
defrule(np.linalg.slogdet, "a",
        vjp=dict(a="slogdet_grad(g, a)"), jvp=dict(a="slogdet_jvp(da, ans, a)"),
        torch_name="LinalgSlogdetBackward0")
defrule(np.linalg.cholesky, "a, /, *, upper=False",
        vjp=dict(a="cholesky_grad(g, ans, a, upper)"), jvp=dict(a="cholesky_jvp(da, ans, a, upper)"),
        torch_name="LinalgCholeskyExBackward0")
defrule(np.linalg.eig, "a",
        vjp=dict(a="eig_grad(g, ans, a)"), jvp=dict(a="eig_jvp(da, ans, a)"),
        torch_name="LinalgEigBackward0")
defrule(np.linalg.eigh, "a, UPLO='L'",
        vjp=dict(a="eigh_grad(g, ans, a, UPLO)"), jvp=dict(a="eigh_jvp(da, ans, a, UPLO)"),
        torch_name="LinalgEighBackward0")
defrule(np.linalg.eigvalsh, "a, UPLO='L'",
        vjp=dict(a="eigvalsh_grad(g, a, UPLO)"), jvp=dict(a="eigvalsh_jvp(da, a, UPLO)"),
        torch_name="LinalgEighBackward0")
defrule(np.linalg.svd, "a, full_matrices=True, compute_uv=True, hermitian=False",
        vjp=dict(a="svd_grad(g, ans, a, full_matrices, compute_uv, hermitian)"),
        jvp=dict(a="svd_jvp(da, ans, a, full_matrices, compute_uv, hermitian)"),
        torch_name="LinalgSvdBackward0")
defrule(np.linalg.pinv, "a, rcond=None, hermitian=False, *, rtol=None",
        vjp=dict(a="pinv_grad(g, ans, a, hermitian)"), jvp=dict(a="pinv_jvp(da, ans, a, hermitian)"))
defrule(np.linalg.qr, "a, mode='reduced'",
        vjp=dict(a="qr_grad(g, ans, a, mode)"), jvp=dict(a="qr_jvp(da, ans, a, mode)"),
        torch_name="LinalgQrBackward0")
defrule(np.linalg.tensorinv, "a, ind=2",
        vjp=dict(a="tensorinv_grad(g, ans, a, ind)"), jvp=dict(a="tensorinv_jvp(da, ans, a, ind)"))

defkernel(slogdet_grad, "t, a",
             vjp=dict(t="slogdet_grad_t(g, t, a)", a="slogdet_grad_a(g, t, a)"),
             jvp=dict(t="slogdet_grad(dt, a)", a="slogdet_grad_da(da, t, a)"))
