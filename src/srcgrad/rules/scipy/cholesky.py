"""``scipy.linalg``'s Cholesky family: ``cholesky``, ``cho_factor`` and ``cho_solve``.

The adjoint of a real ``cholesky`` is an opaque kernel, :func:`sl_cholesky_adjoint`,
whose derivatives are rules of their own (below), so that it can take a shortcut no
differentiated source could: the reverse sweep of ``x = cho_solve((L, lower), b)``
leaves a note of the two blocks its cotangent of ``L`` is made of, ``u = A^-1 g`` and
``x`` (``R = tril(-(u (L^T x)^T + x (L^T u)^T))``), and the adjoint of the
``cholesky`` that made ``L`` knows what ``R`` becomes there without two triangular
solves: ``-(u x^T + x u^T) / 2``, the gradient of ``A^-1 b`` with respect to ``A``.
That holds for every ``u``, ``x`` and invertible ``L``, and the adjoint is linear in
its cotangent ``G``: it takes the shortcut for ``R`` (the solve's own, kept with the
note while it is small and the factor unchanged, else computed again from ``u``, ``x``
and the factor) and the general formula for the rest, ``G - R``.  A
rest of 0 costs nothing; a diagonal one that is ``c / diag(L)`` (the cotangent of
``sum(log(diag(L)))``, a log-determinant) is ``c A^-1``, from the factor by LAPACK's
potri; anything else takes the general formula.  A note therefore changes how fast the
gradient is, never its value: a note that does not match what reached the adjoint (the
factor or ``x`` changed, the cotangent was scaled) leaves a rest the formula takes.
"""
import functools
import weakref

import numpy as np
import scipy.linalg as sl

from ..registry import defkernel, defnograd, defrule, deftransformable
from ..numpy.conventions import _is_complex
from ..numpy.decompositions import (_eye_like, _lapack, _mH, _phi, _spd_factor_inverse,
                                    _to_symmetric, cholesky_grad, cholesky_jvp)
from ..numpy.linalg import mT
from .linalg import _CHECK, _outer, _rule

__all__ = ['sl_cholesky_grad', 'sl_cholesky_jvp', 'sl_cholesky_adjoint',
           'sl_cholesky_adjoint_dfactor', 'sl_cholesky_adjoint_tangent', 'sl_cho_factor_grad',
           'sl_cho_factor_jvp', 'sl_cho_solve_grad_c', 'sl_cho_solve_jvp_c',
           'sl_cho_solve_b', 'sl_cho_solve_push', 'sl_cho_solve']


# -- notes: what a solve's cotangent of its factor is made of ----------------------------

_NOTES = []              # [(weakref to the factor's array, lower, u, x, f, r)], newest last
_NOTE_BYTES = 1 << 27    # what the notes' copies of n x n matrices may hold together
_MAX_NOTES = 8


def _note_solve(c, lower, u, x, f, r):
    """Note that ``r``, a cotangent of ``c`` a solve returned, is ``_factor(
    _solve_cotangent(u, x, f, lower), lower)`` with ``f = _factor(c, lower)``.  The note
    keeps its own copy of ``x`` (others may change it in place) and, while the notes'
    n x n matrices fit in ``_NOTE_BYTES``, ``f`` and a copy of ``r``; a larger one keeps
    ``u`` and ``x`` only (the adjoint computes ``r`` again from the factor it is given)."""
    if type(c) is not np.ndarray or np.ndim(c) != 2 or _is_complex(c) or \
            type(r) is not np.ndarray or type(x) is not np.ndarray or _MAX_NOTES < 1:
        return None
    kept = [n for n in _NOTES if n[0]() is not None][-(_MAX_NOTES - 1):]
    held = sum(n[4].nbytes + n[5].nbytes for n in kept if n[4] is not None)
    if held + f.nbytes + r.nbytes <= _NOTE_BYTES:
        note = (weakref.ref(c), lower, u, x.copy(), f, r.copy())
    else:
        note = (weakref.ref(c), lower, u, x.copy(), None, None)
    _NOTES[:] = kept + [note]
    return None


def _take_notes(c, factor, lower):
    """The notes of the array ``c`` (this orientation), taken out of the list: ``[(u, x,
    r)]``, ``r`` the note's own where its factor is still ``factor`` (else none of that
    note), or computed again from ``factor`` where the note kept none."""
    mine = [n for n in _NOTES if n[0]() is c and n[1] == lower]
    if not mine:
        return []
    _NOTES[:] = [n for n in _NOTES if not (n[0]() is c and n[1] == lower)]
    out = []
    for _, _, u, x, f, r in mine:
        if f is None:          # (as the solve computed it: from the factor's triangle)
            f = _factor(factor, lower)
            out.append((u, x, _factor(_solve_cotangent(u, x, f, lower), lower)))
        elif np.array_equal(f, factor):
            out.append((u, x, r))
    return out


# -- kernels ----------------------------------------------------------------------------

def _factor(c, lower):
    return np.tril(c) if lower else np.triu(c)


def _lower_solve(low, b, trans=0):
    """``L^-1 b`` (``trans=1``: ``L^-T b``) for a lower triangular ``L``."""
    return sl.solve_triangular(low, b, trans=trans, lower=True, check_finite=False)


def _sandwich(p, low):
    """``L^-T p L^-1``, by two triangular solves (no inverse formed)."""
    return _lower_solve(low, mT(_lower_solve(low, mT(p), 1)), 1)


def _formula(e, low):
    """``S = L^-T phi(L^T e) L^-1``: the adjoint of ``cholesky`` is ``_to_a(S)``."""
    return _sandwich(_phi(mT(low) @ e), low)


@functools.lru_cache(maxsize=8)
def _weights(n, dtype, lower):
    """1 on one strict triangle of an ``n x n`` matrix, 1/2 on the diagonal, else 0."""
    w = np.tril(np.ones((n, n), dtype), -1) if lower else np.triu(np.ones((n, n), dtype), 1)
    np.fill_diagonal(w, 0.5)
    w.flags.writeable = False
    return w


def _to_a(s, lower=True):
    """The gradient with respect to ``a`` (its triangle) of the symmetric part of ``s``:
    ``tril(s + s^T, -1) + diag(s)``."""
    t = s + mT(s)
    return t * _weights(np.shape(t)[-1], t.dtype, lower)


def _solve_cotangent(u, x, f, lower):
    """A solve's cotangent of its real factor ``f`` (``a = f f^T``, ``f^T f``) before its
    triangle is taken: ``-(u (f^T x)^T + x (f^T u)^T)`` (upper: ``-(f u x^T + f x
    u^T)``), one product of rank 2k (no product of two n x n matrices)."""
    join = np.stack if np.ndim(x) == 1 else np.concatenate
    if lower:
        left, right = join((-u, -x), -1), join((mT(f) @ x, mT(f) @ u), -1)
    else:
        left, right = join((-(f @ u), -(f @ x)), -1), join((x, u), -1)
    return left @ mT(right)


def _pair(u, x):
    """``u x^T + x u^T`` (vectors or matrices of columns), one product of rank 2k."""
    join = np.stack if np.ndim(x) == 1 else np.concatenate
    return join((u, x), -1) @ mT(join((x, u), -1))


def _rest(e, low):
    """``S + S^T`` of ``S = L^-T phi(L^T e) L^-1``, the cotangent's rest ``e`` (lower
    orientation), but for its strict upper triangle (the weights of :func:`_to_a` zero
    it); None for a rest of 0."""
    if not np.any(e):
        return None
    d = np.diagonal(e)
    if np.ndim(e) == 2 and np.count_nonzero(e) == np.count_nonzero(d):
        # a diagonal rest: phi(L^T e) = diag(p), p = diag(L) diag(e) / 2; a constant p
        # (up to rounding: log det's c / diag(L) times diag(L)) gives S = p (L L^T)^-1,
        # whose lower triangle potri leaves
        p = np.diagonal(low) * d / 2
        mean = np.mean(p)
        if np.max(np.abs(p - mean)) <= 64 * np.finfo(p.dtype).eps * np.abs(mean):
            inv = _spd_factor_inverse(low, full=False)
            if inv is not None:
                return np.multiply(inv, 2 * mean, out=inv)
    s = _formula(e, low)
    return s + mT(s)


def sl_cholesky_adjoint(t, factor, upper=False, key=None):
    """Adjoint of a real ``cholesky`` (``a = L L^T`` read from the lower triangle;
    ``upper``: ``a = U^T U`` from the upper one) for the factor's cotangent ``t``:
    ``L^-T phi(L^T t) L^-1``, symmetrized, with the solves' notes taken (the module's
    docstring).  ``key``: the array the notes name the factor by (``cho_factor``'s
    ``c``), if not ``factor``."""
    notes = _take_notes(factor if key is None else key, factor, not upper) \
        if np.ndim(factor) == 2 else []
    m = None                            # S + S^T of what is known so far
    for u, x, r in notes:
        if t is not None and np.array_equal(t, r):
            t = None                    # (what is left: 0)
        else:
            t = -r if t is None else t - r
        m = -_pair(u, x) if m is None else m - _pair(u, x)
    low = mT(factor) if upper else factor
    rest = None if t is None else _rest(mT(t) if upper else t, low)
    if rest is not None:
        m = rest if m is None else m + rest
    if m is None:
        return np.zeros_like(factor)
    out = m * _weights(np.shape(m)[-1], m.dtype, True)
    return mT(out) if upper else out


def sl_cholesky_adjoint_dfactor(g, t, factor, upper=False):
    """Adjoint, for the factor, of :func:`sl_cholesky_adjoint` (its general
    formula ``_to_a(S)``, ``S = L^-T P L^-1``, ``P = phi(L^T t)``; the solves read the
    factor's triangle, the product ``L^T t`` all of it)."""
    low, e, h = (mT(factor), mT(t), mT(g)) if upper else (factor, t, g)
    s = _formula(e, low)
    s_bar = _to_symmetric(h, lower=True)
    w_bar = _phi(mT(_lower_solve(low, mT(_lower_solve(low, s_bar)))))
    l_bar = -np.tril(mT(_lower_solve(low, s_bar @ (s + mT(s))))) + e @ mT(w_bar)
    return mT(l_bar) if upper else l_bar


def sl_cholesky_adjoint_tangent(dfactor, t, factor, upper=False):
    """Tangent of :func:`sl_cholesky_adjoint` along ``dfactor``."""
    low, e, dl = (mT(factor), mT(t), mT(dfactor)) if upper else (factor, t, dfactor)
    s = _formula(e, low)
    dlt = np.tril(dl)
    ds = (_sandwich(_phi(mT(dl) @ e), low) - _lower_solve(low, mT(dlt) @ s, 1)
          - mT(_lower_solve(low, mT(s @ dlt), 1)))
    out = _to_a(ds)
    return mT(out) if upper else out


def sl_cholesky_grad(g, ans, a, upper=False):
    """Adjoint of ``cholesky``: :func:`sl_cholesky_adjoint`; a complex ``a``: NumPy's
    kernel (the same triangle and real diagonal are read)."""
    if _is_complex(a):
        return cholesky_grad(g, ans, a, upper)
    return sl_cholesky_adjoint(g, ans, upper)


def sl_cholesky_jvp(da, ans, a, upper=False):
    """Tangent of ``cholesky``: ``L phi(L^-1 sym(da) L^-T)``, by triangular solves."""
    if _is_complex(a):
        return cholesky_jvp(da, ans, a, upper)
    low = mT(ans) if upper else ans
    m = _lower_solve(low, mT(_lower_solve(low, _to_symmetric(da, lower=not upper))))
    d_low = low @ _phi(m)
    return mT(d_low) if upper else d_low


def sl_cho_factor_grad(g, ans, a, lower=False):
    """Adjoint of ``cho_factor``: the factor's triangle as ``cholesky``; the other
    triangle of ``c`` holds ``a``'s own entries (an identity)."""
    c, _ = ans
    gc = g[0]
    gf = _factor(gc, lower)
    if _is_complex(a):
        return cholesky_grad(gf, _factor(c, lower), a, not lower) + (gc - gf)
    return sl_cholesky_adjoint(gf, _factor(c, lower), not lower, c) + (gc - gf)


def sl_cho_factor_jvp(da, ans, a, lower=False):
    c, _ = ans
    df = sl_cholesky_jvp(da, _factor(c, lower), a, not lower)
    return (df + (da - _factor(da, lower)), None)


def sl_cho_solve_grad_c(g, ans, c_and_lower, b):
    """Adjoint of ``x = cho_solve((c, lower), b)`` for ``c`` (its factor's triangle); a
    real one leaves a note for the adjoint of the ``cholesky`` that made ``c``."""
    c, lower = c_and_lower
    gb = sl_cho_solve_b(g, c_and_lower)
    f = _factor(c, lower)
    # complex (a = f f^H, f^H f): conj(f), and x, gb conjugated in the second term
    if _is_complex(c) or _is_complex(g):
        fc = np.conj(f)
        if lower:
            gf = -(_outer(gb, mT(fc) @ ans) + _outer(np.conj(ans), mT(fc) @ np.conj(gb)))
        else:
            gf = -(_outer(fc @ gb, ans) + _outer(fc @ np.conj(ans), np.conj(gb)))
    else:
        gc = _factor(_solve_cotangent(gb, ans, f, lower), lower)
        _note_solve(c, lower, gb, ans, f, gc)
        return (gc, None)
    return (_factor(gf, lower), None)


def sl_cho_solve_b(g, c_and_lower):
    """The transpose of ``cho_solve``'s map of ``b``: itself for a real (symmetric)
    matrix; ``conj(A)^-1 g`` for a Hermitian one."""
    if _is_complex(c_and_lower[0]):
        return np.conj(sl.cho_solve(c_and_lower, np.conj(g)))
    return sl_cho_solve(c_and_lower, g)


def sl_cho_solve_push(db, c_and_lower):
    """``cho_solve``'s map of ``b`` (the tangent of ``x`` along ``db``)."""
    return sl_cho_solve(c_and_lower, db)


def sl_cho_solve(c_and_lower, b):
    """``cho_solve((c, lower), b)`` for the kernels: a real NumPy ``c`` and ``b`` (a
    vector or a matrix) by LAPACK's potrs itself, without SciPy's checks of its
    arguments (the kernels' cotangents are theirs to check; a NaN stays a NaN)."""
    c, lower = c_and_lower
    potrs = _lapack("potrs", c)
    if potrs is None or type(b) is not np.ndarray or b.dtype != c.dtype or np.ndim(b) > 2:
        return sl.cho_solve(c_and_lower, b)
    x, info = potrs(c, b, lower=1 if lower else 0)
    return x if info == 0 else sl.cho_solve(c_and_lower, b)


def sl_cho_solve_jvp_c(dc_and_lower, ans, c_and_lower, b):
    c, lower = c_and_lower
    f = _factor(c, lower)
    df = _factor(dc_and_lower[0], lower)
    da = df @ _mH(f) + f @ _mH(df) if lower else _mH(df) @ f + _mH(f) @ df
    return -sl.cho_solve(c_and_lower, da @ ans)


deftransformable(_factor, _lower_solve, _sandwich, _formula, _to_a, _solve_cotangent,
                 sl_cholesky_adjoint_dfactor, sl_cholesky_adjoint_tangent, sl_cholesky_grad,
                 sl_cholesky_jvp, sl_cho_factor_grad, sl_cho_factor_jvp, sl_cho_solve_grad_c,
                 sl_cho_solve_b, sl_cho_solve_push, sl_cho_solve_jvp_c)
defnograd(_note_solve, _weights)    # (a note only: its value is None; a constant)


# -- rules ------------------------------------------------------------------------------
_CHO_SOLVE = dict(
    vjp=dict(c_and_lower="sl_cho_solve_grad_c(g, ans, c_and_lower, b)",
             b="sl_cho_solve_b(g, c_and_lower)"),
    jvp=dict(c_and_lower="sl_cho_solve_jvp_c(dc_and_lower, ans, c_and_lower, b)",
             b="sl_cho_solve_push(db, c_and_lower)"))
_rule(sl.cholesky, f"a, lower=False, {_CHECK}",
      vjp=dict(a="sl_cholesky_grad(g, ans, a, not lower)"),
      jvp=dict(a="sl_cholesky_jvp(da, ans, a, not lower)"))
_rule(sl.cho_factor, f"a, lower=False, {_CHECK}",
      vjp=dict(a="sl_cho_factor_grad(g, ans, a, lower)"),
      jvp=dict(a="sl_cho_factor_jvp(da, ans, a, lower)"))
_rule(sl.cho_solve, "c_and_lower, b, overwrite_b=False, check_finite=True",
      sequence="c_and_lower", **_CHO_SOLVE)
defkernel(sl_cho_solve, "c_and_lower, b", sequence="c_and_lower", **_CHO_SOLVE)

# the adjoint's own derivatives: it is linear in t (its transpose is cholesky's tangent)
defkernel(sl_cholesky_adjoint, "t, factor, upper=False, key=None",
          vjp=dict(t="sl_cholesky_jvp(g, factor, factor, upper)",
                   factor="sl_cholesky_adjoint_dfactor(g, t, factor, upper)"),
          jvp=dict(t="sl_cholesky_adjoint(dt, factor, upper)",
                   factor="sl_cholesky_adjoint_tangent(dfactor, t, factor, upper)"))
