"""``scipy.special``: gamma and error functions, Bessel functions, entropies, logsumexp.

Read each entry as a line of a calculus table (``g`` the cotangent of ``ans``); the
elementwise entries are written once as ``g * <partial>`` and the forward rule is
derived from it (:func:`..numpy.elementwise._elementwise`).  Every partial is written
in functions that have rules themselves (NumPy's, and the SciPy functions below,
which join the ``ad`` namespace by their SciPy names), so derivatives of every order
follow.  Where SciPy's function has no derivative in closed form with respect to a
parameter (an integer order, the exponent of ``zeta``, the shape of ``gammainc``),
the rule names that parameter with :func:`no_derivative`, which raises when a
gradient would flow through it: never a silent zero.

Conventions at boundaries follow autograd: ``xlogy``'s ``x``-partial is ``log(y)``
and its ``y``-partial ``x / y``, as written, also at ``x == 0``.
"""
import math

import numpy as np
import scipy.special as sp
from scipy.special import (digamma, polygamma, gammaln, betaln, ndtr, log_ndtr, expit, i0, i1, i0e, i1e, iv, ive,
                           k0, k1, k0e, k1e, kv, kve, j0, j1, jv, y0, y1, yv, yn, zeta,
                           sindg, cosdg, ellipk, ellipe)

from ..numpy.conventions import _fdtype, _is_complex, _keep
from ..numpy.elementwise import _elementwise
from ..registry import (declare, defkernel, deflinear, defnograd, defrule, deftransformable,
                        is_nograd, lookup)

__all__ = ['no_derivative', 'half_steps', 'lse_value', 'lse_pack', 'lse_weights', 'zeta_dx',
           'polygamma_of',
           # SciPy's functions that the partials below call (they have rules here)
           'digamma', 'polygamma', 'gammaln', 'betaln', 'ndtr', 'log_ndtr', 'expit', 'i0', 'i1', 'i0e', 'i1e', 'iv', 'ive',
           'k0', 'k1', 'k0e', 'k1e', 'kv', 'kve', 'j0', 'j1', 'jv', 'y0', 'y1', 'yv', 'yn',
           'zeta', 'sindg', 'cosdg', 'ellipk', 'ellipe']


# -- kernels ----------------------------------------------------------------------------

def no_derivative(name, param):
    """Raised where a gradient would flow into a parameter without a derivative."""
    from ...errors import NonDifferentiableError
    raise NonDifferentiableError(
        f"{name} has no derivative with respect to its argument {param!r} (srcgrad has none "
        f"in closed form); pass it a constant, or wrap it in sg.detach(...)")


def _real_arguments(name, *args):
    if any(_is_complex(a) for a in args):
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError(f"{name} of a complex argument: srcgrad has its "
                                     f"derivative for real arguments only")


def half_steps(a, d):
    """``0, 1/2, ..., (d - 1)/2`` in ``a``'s floating dtype (``multigammaln``'s offsets)."""
    return np.arange(d, dtype=_fdtype(a)) * 0.5


def lse_value(t, like, return_sign=False):
    """The log-magnitude part of ``logsumexp``'s result (or of a cotangent / tangent
    shaped like it, the result ``like``): ``t[0]`` with ``return_sign``, else ``t``; a
    missing part is zero."""
    if not return_sign:
        return t
    return np.zeros_like(like[0]) if t is None or t[0] is None else t[0]


def lse_pack(t, like, return_sign=False):
    """``t`` (shaped like the log-magnitude) as a value shaped like ``logsumexp``'s result:
    with ``return_sign``, the pair ``(t, 0)`` (the sign has no derivative)."""
    return (t, np.zeros_like(like[1])) if return_sign else t


def lse_weights(a, b, like, axis=None, keepdims=False, return_sign=False):
    """The weight of each entry in ``like = logsumexp(a, axis, b, keepdims, return_sign)``
    (the gradient of ``log|sum(b exp(a))|``): ``b exp(a - lse) sign`` (no ``b``: 1)."""
    w = np.exp(a - _keep(lse_value(like, like, return_sign), np.ndim(a), axis, keepdims))
    if return_sign:
        w = w * _keep(like[1], np.ndim(a), axis, keepdims)
    return w if b is None else w * b


# -- rules ------------------------------------------------------------------------------

# B_2, B_4, ..., B_20 over (2k)!: the Euler-Maclaurin coefficients
_EM = [b / math.factorial(2 * k) for k, b in enumerate(
    [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
     -174611 / 330], start=1)]


def zeta_dx(x, q=None):
    """d/dx of ``scipy.special.zeta(x, q)`` (Hurwitz; ``q=None``: Riemann's, ``q = 1``).

    No closed form: the derivative of the Euler-Maclaurin sum ``zeta(x, q) = sum_{n<N}
    (n+q)^-x + b^(1-x)/(x-1) + b^-x/2 + sum_k B_2k/(2k)! x(x+1)...(x+2k-2) b^(-x-2k+1)``,
    ``b = q + N``, with ten correction terms and ``N = 20 + ceil(max x)``, which keeps
    the remainder below ``(2 pi)^-20`` of the last term.  Written in differentiable
    primitives, so that it differentiates again (in ``x`` and ``q``).  NaN where SciPy's
    zeta is (``q <= 0``); a complex argument is refused (the sum is written for real x)."""
    _real_arguments("scipy.special.zeta", x, q)
    q1 = 1.0 if q is None else q
    xs = np.asarray(x, dtype=np.float64) + 0.0 * np.asarray(q1, dtype=np.float64)
    qs = np.asarray(q1, dtype=np.float64) + 0.0 * xs
    n = 20 + int(math.ceil(max(float(np.max(xs)), 0.0)))
    a = np.expand_dims(qs, -1) + np.arange(n, dtype=np.float64)
    total = -np.sum(np.log(a) * a ** -np.expand_dims(xs, -1), axis=-1)
    b = qs + n
    lb = np.log(b)
    total = total - (lb + 1 / (xs - 1)) * b ** (1 - xs) / (xs - 1) - lb * b ** -xs / 2
    rising, slope = xs, 1.0 + 0.0 * xs          # x (x+1) ... (x+2k-2) and its derivative
    for k in range(1, len(_EM) + 1):
        total = total + _EM[k - 1] * (slope - rising * lb) * b ** (1 - xs - 2 * k)
        step = (xs + 2 * k - 1) * (xs + 2 * k)
        slope = slope * step + rising * (2 * xs + 4 * k - 1)
        rising = rising * step
    return np.where(qs > 0, total, np.nan)


deftransformable(zeta_dx)        # its second derivative: the compiler, from this source


# Bernoulli numbers B_2, B_4, ..., B_16 (polygamma's asymptotic series)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def polygamma_of(n, x):
    """``polygamma(n, x)`` of a real or a complex ``x`` (SciPy's takes real ones; its
    ``digamma`` takes both, the derivative of a complex one needs this).  A complex ``z``:
    the recurrence ``psi_n(z) = psi_n(z + 1) + (-1)^(n+1) n! / z^(n+1)`` up to ``Re z >=
    15``, then the asymptotic series ``(-1)^(n+1) [(n-1)!/z^n + n!/(2 z^(n+1)) + sum_k
    B_2k (2k+n-1)!/(2k)! / z^(2k+n)]`` (against mpmath, n <= 7: a relative error of
    1e-15 for Re z >= 0, 1e-11 at Re z = -30 where the recurrence's terms cancel)."""
    if not _is_complex(x):
        return polygamma(n, x)
    if np.ndim(n) != 0 or int(n) != n or n < 0:
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError("the derivative of scipy.special.digamma of a complex "
                                     "argument: srcgrad has polygamma(n, z) for one integer "
                                     "n >= 0 at a time only")
    n = int(n)
    if n == 0:
        return digamma(x)
    z = np.asarray(x, dtype=np.complex128)
    w, shifted = z, np.zeros_like(z)
    steps = int(max(0.0, math.ceil(15.0 - float(np.min(z.real))))) if z.size else 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(steps):
            below = w.real < 15.0
            shifted = shifted + np.where(below, w ** -(n + 1), 0.0)
            w = np.where(below, w + 1.0, w)
        series = math.factorial(n - 1) / w ** n + math.factorial(n) / (2 * w ** (n + 1))
        for k, b in enumerate(_BERNOULLI, 1):
            series = series + (b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
                               / w ** (2 * k + n))
        out = (-1) ** (n + 1) * (series + math.factorial(n) * shifted)
    return out.astype(np.asarray(x).dtype, copy=False)


# its own rule: polygamma's (below), of every order
_POLYGAMMA = dict(
    vjp=dict(n="no_derivative('scipy.special.polygamma', 'n')",
             x="unbroadcast(g * polygamma_of(n + 1, x), x)"),
    jvp=dict(n="no_derivative('scipy.special.polygamma', 'n')",
             x="expand(dx * polygamma_of(n + 1, x), ans)"))
defkernel(polygamma_of, "n, x", elementwise=True, **_POLYGAMMA)


def _name(func):
    return "scipy.special.digamma" if func is sp.digamma else f"scipy.special.{func.__name__}"


def _unary(func, expr):
    """A one-argument ufunc: ``x`` and ``ans`` have the same shape."""
    return _elementwise(func, "x, out=None", broadcast=False, name=_name(func), x=expr)


def _binary(func, params, **partials):
    """A two-argument ufunc; both operands un-broadcast."""
    return _elementwise(func, params + ", out=None", name=_name(func), **partials)


def _none(func, param):
    return f"no_derivative({_name(func)!r}, {param!r})"


_SQRT_PI = "math.sqrt(math.pi)"
_SQRT_2PI = "math.sqrt(2 * math.pi)"

# ---------------------------------------------------------------------------------------
# Gamma and related functions
# ---------------------------------------------------------------------------------------
_unary(sp.gammaln,  "g * digamma(x)")
_unary(sp.loggamma, "g * digamma(x)")                      # real arguments
_unary(sp.gamma,    "g * ans * digamma(x)")
_unary(sp.rgamma,   "-g * ans * digamma(x)")
# (the same ufunc as psi; SciPy's polygamma computes in float64: cast back; a complex
# x: polygamma_of's series)
_unary(sp.digamma,  "g * cast_like(polygamma_of(1, x), x)")
defrule(sp.polygamma, "n, x", name="scipy.special.polygamma", elementwise=True, **_POLYGAMMA)
_MULTI = "np.sum(digamma(np.expand_dims(a, -1) - half_steps(a, d)), axis=-1)"
defrule(sp.multigammaln, "a, d", name="scipy.special.multigammaln", elementwise=True,
        vjp=dict(a=f"g * {_MULTI}", d=_none(sp.multigammaln, "d")),
        jvp=dict(a=f"da * {_MULTI}", d=_none(sp.multigammaln, "d")))
_binary(sp.beta, "a, b", a="g * ans * (digamma(a) - digamma(a + b))",
        b="g * ans * (digamma(b) - digamma(a + b))")
_binary(sp.betaln, "a, b", a="g * (digamma(a) - digamma(a + b))",
        b="g * (digamma(b) - digamma(a + b))")
_binary(sp.poch, "z, m", z="g * ans * (digamma(z + m) - digamma(z))",
        m="g * ans * digamma(z + m)")
_binary(sp.binom, "n, k", n="g * ans * (digamma(n + 1) - digamma(n - k + 1))",
        k="g * ans * (digamma(n - k + 1) - digamma(k + 1))")
# (cast_like: betaln and gammaln of Python floats are float64 scalars; a float32 x stays float32)
_REG_BETA = "cast_like(np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - betaln(a, b)), x)"
defrule(sp.betainc, "a, b, x, out=None", name="scipy.special.betainc", elementwise=True,
        vjp=dict(a=_none(sp.betainc, "a"), b=_none(sp.betainc, "b"),
                 x=f"unbroadcast(g * {_REG_BETA}, x)"),
        jvp=dict(a=_none(sp.betainc, "a"), b=_none(sp.betainc, "b"),
                 x=f"expand(dx * {_REG_BETA}, ans)"))
_REG_GAMMA = "cast_like(np.exp((a - 1) * np.log(x) - x - gammaln(a)), x)"   # d gammainc / dx
_binary(sp.gammainc, "a, x", a=_none(sp.gammainc, "a"), x=f"g * {_REG_GAMMA}")
_binary(sp.gammaincc, "a, x", a=_none(sp.gammaincc, "a"), x=f"-g * {_REG_GAMMA}")
# d/dq zeta(x, q) = -x zeta(x + 1, q); d/dx by its Euler-Maclaurin sum (zeta_dx)
defrule(sp.zeta, "x, q=None, out=None", name="scipy.special.zeta", elementwise=True,
        # (cast_like: zeta_dx sums in float64; a float32 x keeps a float32 gradient)
        vjp=dict(x="unbroadcast(g * cast_like(zeta_dx(x, q), x), x)",
                 q="unbroadcast(-g * x * zeta(x + 1, q), q)"),
        jvp=dict(x="expand(dx * cast_like(zeta_dx(x, q), x), ans)", q="expand(-dq * x * zeta(x + 1, q), ans)"))

# ---------------------------------------------------------------------------------------
# Error function, normal distribution, logistic function
# ---------------------------------------------------------------------------------------
_unary(sp.erf,     f"g * (2 / {_SQRT_PI}) * np.exp(-x ** 2)")
_unary(sp.erfc,    f"-g * (2 / {_SQRT_PI}) * np.exp(-x ** 2)")
_unary(sp.erfinv,  f"g * ({_SQRT_PI} / 2) * np.exp(ans ** 2)")
_unary(sp.erfcinv, f"-g * ({_SQRT_PI} / 2) * np.exp(ans ** 2)")
_unary(sp.erfcx,   f"g * (2 * x * ans - 2 / {_SQRT_PI})")
_unary(sp.erfi,    f"g * (2 / {_SQRT_PI}) * np.exp(x ** 2)")
_unary(sp.dawsn,   "g * (1 - 2 * x * ans)")
_unary(sp.ndtr,    f"g * np.exp(-x ** 2 / 2) / {_SQRT_2PI}")
_unary(sp.log_ndtr, f"g * np.exp(-x ** 2 / 2 - ans) / {_SQRT_2PI}")
_unary(sp.ndtri,   f"g * {_SQRT_2PI} * np.exp(ans ** 2 / 2)")
_unary(sp.ndtri_exp, f"g * {_SQRT_2PI} * np.exp(ans ** 2 / 2 + x)")
_unary(sp.expit,   "g * ans * (1 - ans)")
_unary(sp.logit,   "g / (x * (1 - x))")
_unary(sp.log_expit, "g * expit(-x)")
if hasattr(sp, "softplus"):             # SciPy 1.15+
    defrule(sp.softplus, "x", name="scipy.special.softplus", elementwise=True,
            vjp=dict(x="g * expit(x)"), jvp=dict(x="dx * expit(x)"))

# ---------------------------------------------------------------------------------------
# Bessel functions: the order (v, n) has no derivative
# ---------------------------------------------------------------------------------------
_unary(sp.i0,  "g * i1(x)")
_unary(sp.i1,  "g * (i0(x) + iv(2, x)) / 2")
_unary(sp.i0e, "g * (i1e(x) - np.sign(x) * ans)")
_unary(sp.i1e, "g * ((i0e(x) + ive(2, x)) / 2 - np.sign(x) * ans)")
_unary(sp.k0,  "-g * k1(x)")
_unary(sp.k1,  "-g * (k0(x) + kv(2, x)) / 2")
_unary(sp.k0e, "g * (ans - k1e(x))")
_unary(sp.k1e, "g * (ans - (k0e(x) + kve(2, x)) / 2)")
_unary(sp.j0,  "-g * j1(x)")
_unary(sp.j1,  "g * (j0(x) - jv(2, x)) / 2")
_unary(sp.y0,  "-g * y1(x)")
_unary(sp.y1,  "g * (y0(x) - yv(2, x)) / 2")
_binary(sp.iv,  "v, x", v=_none(sp.iv, "v"),  x="g * (iv(v - 1, x) + iv(v + 1, x)) / 2")
# ive(v, x) = iv(v, x) exp(-|Re x|): of a complex x not holomorphic (the factor reads only
# Re x), so the reverse rule pairs that term with Re(g * ans) and the forward one with Re(dx)
_IVE = "(ive(v - 1, x) + ive(v + 1, x)) / 2"
defrule(sp.ive, "v, x, out=None", name="scipy.special.ive", elementwise=True,
        vjp=dict(v=_none(sp.ive, "v"),
                 x=f"unbroadcast(g * {_IVE} - np.sign(np.real(x)) * np.real(g * ans), x)"),
        jvp=dict(v=_none(sp.ive, "v"),
                 x=f"expand(dx * {_IVE} - np.sign(np.real(x)) * ans * np.real(dx), ans)"))
_binary(sp.kv,  "v, x", v=_none(sp.kv, "v"),  x="-g * (kv(v - 1, x) + kv(v + 1, x)) / 2")
_binary(sp.kve, "v, x", v=_none(sp.kve, "v"), x="g * (ans - (kve(v - 1, x) + kve(v + 1, x)) / 2)")
_binary(sp.jv,  "v, x", v=_none(sp.jv, "v"),  x="g * (jv(v - 1, x) - jv(v + 1, x)) / 2")  # also jn
_binary(sp.yv,  "v, x", v=_none(sp.yv, "v"),  x="g * (yv(v - 1, x) - yv(v + 1, x)) / 2")
_binary(sp.yn,  "n, x", n=_none(sp.yn, "n"),  x="g * (yn(n - 1, x) - yn(n + 1, x)) / 2")

# ---------------------------------------------------------------------------------------
# Elliptic integrals, dilogarithm, Wright omega
# ---------------------------------------------------------------------------------------
_unary(sp.ellipk, "g * (ellipe(x) - (1 - x) * ans) / (2 * x * (1 - x))")
_unary(sp.ellipe, "g * (ans - ellipk(x)) / (2 * x)")
_unary(sp.spence, "g * np.log(x) / (1 - x)")
_unary(sp.wrightomega, "g * ans / (1 + ans)")

# ---------------------------------------------------------------------------------------
# Entropies and x log y
# ---------------------------------------------------------------------------------------
_unary(sp.entr, "-g * (np.log(x) + 1)")
_binary(sp.xlogy, "x, y", x="g * np.log(y)", y="g * x / y")
_binary(sp.xlog1py, "x, y", x="g * np.log1p(y)", y="g * x / (1 + y)")
_binary(sp.rel_entr, "x, y", x="g * (np.log(x / y) + 1)", y="-g * x / y")
_binary(sp.kl_div, "x, y", x="g * np.log(x / y)", y="g * (1 - x / y)")
_binary(sp.huber, "delta, r", delta="g * np.where(np.abs(r) <= delta, 0.0, np.abs(r) - delta)",
        r="g * np.clip(r, -delta, delta)")
_binary(sp.pseudo_huber, "delta, r",
        delta="g * (2 * ans / delta - r ** 2 / (delta * np.sqrt(1 + (r / delta) ** 2)))",
        r="g * r / np.sqrt(1 + (r / delta) ** 2)")

# ---------------------------------------------------------------------------------------
# Convenience functions
# ---------------------------------------------------------------------------------------
_unary(sp.cbrt,  "g / (3 * ans ** 2)")
_unary(sp.exp2,  "g * ans * math.log(2)")
_unary(sp.exp10, "g * ans * math.log(10)")
_unary(sp.expm1, "g * (ans + 1)")
_unary(sp.log1p, "g / (1 + x)")
_unary(sp.cosm1, "-g * np.sin(x)")
_unary(sp.sindg, "g * (math.pi / 180) * cosdg(x)")
_unary(sp.cosdg, "-g * (math.pi / 180) * sindg(x)")
_unary(sp.tandg, "g * (math.pi / 180) * (1 + ans ** 2)")
_unary(sp.cotdg, "-g * (math.pi / 180) * (1 + ans ** 2)")
# (log_pos: a Python float x gives a Python float, so a float32 y keeps float32)
_binary(sp.powm1, "x, y", x="g * y * (ans + 1) / x", y="g * (ans + 1) * log_pos(x)")

# ---------------------------------------------------------------------------------------
# logsumexp, softmax, log_softmax: reductions along axis (None: all axes)
# ---------------------------------------------------------------------------------------
_G = "keep_axis(lse_value(g, ans, return_sign), a, axis, keepdims)"     # g against a
_W = "lse_weights(a, {b}, ans, axis, keepdims, return_sign)"
defrule(sp.logsumexp, "a, axis=None, b=None, keepdims=False, return_sign=False",
        name="scipy.special.logsumexp",      # (not a reduction facet: return_sign gives a pair)
        tuple_by="return_sign",
        vjp=dict(a=f"unbroadcast({_G} * {_W.format(b='b')}, a)",
                 b=f"unbroadcast({_G} * {_W.format(b='None')}, b)"),
        jvp=dict(a=f"lse_pack(np.sum(da * {_W.format(b='b')}, axis=axis, keepdims=keepdims), "
                   f"ans, return_sign)",
                 b=f"lse_pack(np.sum(db * {_W.format(b='None')}, axis=axis, keepdims=keepdims), "
                   f"ans, return_sign)"))
defrule(sp.softmax, "x, axis=None", name="scipy.special.softmax",
        vjp=dict(x="ans * (g - np.sum(g * ans, axis=axis, keepdims=True))"),
        jvp=dict(x="ans * (dx - np.sum(dx * ans, axis=axis, keepdims=True))"))
defrule(sp.log_softmax, "x, axis=None", name="scipy.special.log_softmax",
        vjp=dict(x="g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)"),
        jvp=dict(x="dx - np.sum(np.exp(ans) * dx, axis=axis, keepdims=True)"))

# the kernels' own rules (grad of grad)
deflinear(lse_value, "t, like, return_sign=False", "lse_pack(g, like, return_sign)",
          "lse_value(dt, like, return_sign)")
deflinear(lse_pack, "t, like, return_sign=False", "lse_value(g, like, return_sign)",
          "lse_pack(dt, like, return_sign)")
_LW = "a, {b}, like, axis, keepdims, return_sign"
defkernel(lse_weights, "a, b, like, axis=None, keepdims=False, return_sign=False",
          vjp=dict(a="unbroadcast(g * ans, a)",
                   b=f"unbroadcast(g * lse_weights({_LW.format(b='None')}), b)",
                   like="lse_pack(-np.sum(g * ans, axis=axis, keepdims=keepdims), like, "
                        "return_sign)"),
          jvp=dict(a="expand(da * ans, ans)",
                   b=f"expand(db * lse_weights({_LW.format(b='None')}), ans)",
                   like="-ans * keep_axis(lse_value(dlike, like, return_sign), a, axis, keepdims)"))
defnograd(no_derivative, half_steps, names=["ad.no_derivative", "ad.half_steps"])
defnograd(_real_arguments)
# piecewise constant
defnograd(sp.gammasgn, names=["scipy.special.gammasgn"])

# the other ufuncs have no rule: declared (no facets) so that a refusal names them as
# SciPy does ("scipy.special.exprel", not the "np.exprel" a ufunc's own name would give)
for _public in dir(sp):
    _f = getattr(sp, _public)
    if isinstance(_f, np.ufunc) and lookup(_f) is None and not is_nograd(_f) and \
            getattr(np, _public, None) is not _f:
        declare(_f, "*args, **kwargs", name=f"scipy.special.{_public}")
