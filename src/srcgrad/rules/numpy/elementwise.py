"""Elementwise NumPy functions: ``ans[i] = f(x[i], y[i])`` after broadcasting.

Read each entry as a line of a calculus table: ``g`` is the cotangent of ``ans``,
``dx`` the tangent of ``x``.  An entry is written once, as the product of ``g`` with
the partial derivative; :func:`_elementwise` derives the forward rule (the same
product with the tangent in place of ``g``) and un-broadcasts both operands.
Python's arithmetic operators are these ufuncs' rules (``x * y`` is ``np.multiply``).

The rules assume real inputs.  Parameters that NumPy accepts but these rules do
not model (``where=`` of ufuncs) are left out of the signatures on purpose: a call
that uses them does not bind, and the compiler reports it instead of
differentiating it wrongly.  ``out=`` is in the signatures; the compiler rejects a
non-None ``out=``, so every template is written for ``out=None``.
"""
import ast
import math

import numpy as np

from ...runtime.backends import array_ns

from ..registry import defkernel, defmethod, defnograd, defrule, deftransformable
from .conventions import _fdtype

__all__ = ['balanced_eq', 'log_pos', 'logistic', 'clip_mask', 'sinc_deriv', 'power_deriv',
           'falling_factorial_slope']


# -- kernels ----------------------------------------------------------------------------

def balanced_eq(x, z, y):
    """Weight of ``x`` in ``z = maximum(x, y)`` (or minimum): 1 if it won, 1/2 on a tie.

    In ``z``'s floating dtype, so that a float32 cotangent stays float32.
    """
    won, tie = (x == z), (x == y)
    if hasattr(won, "astype") or not hasattr(won, "shape"):      # NumPy, CuPy, numbers
        w = won / (1.0 + tie)
        return w.astype(_fdtype(z), copy=False) if hasattr(w, "astype") else w
    xp = array_ns(x, z, y)               # the array API: no arithmetic on booleans
    dt = _fdtype(z)
    return xp.astype(won, dt) / (1.0 + xp.astype(tie, dt))


def log_pos(x):
    """``log(x)`` where ``x > 0``, else 0 (the ``y``-derivative of ``x ** y`` uses it).

    A Python scalar gives a Python float and an array keeps its dtype, so that a
    float32 gradient stays float32.
    """
    np = array_ns(x)
    if not hasattr(x, "shape"):
        return math.log(x) if x > 0 else 0.0
    return np.log(np.where(x > 0, x, 1))


def logistic(x):
    """``1 / (1 + exp(-x))``: the derivative of ``logaddexp(a, b)`` in ``a`` at
    ``x = a - b``, written without ``logaddexp``'s value so that a gradient alone
    need not compute it.  Where ``exp(-x)`` overflows (x < -709) the quotient is its
    exact limit 0 and the overflow is not reported; a Python scalar gives a Python
    float, an array keeps its dtype."""
    if not hasattr(x, "shape"):
        if x >= 0:
            return 1.0 / (1.0 + math.exp(-x))
        e = math.exp(x)
        return e / (1.0 + e)
    xp = array_ns(x)
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + xp.exp(-x))


def clip_mask(a, a_min, a_max):
    """True where ``clip(a, a_min, a_max)`` passes ``a`` through (None: no bound)."""
    np = array_ns(a, a_min, a_max)
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
    np = array_ns(x)
    small = np.abs(x) < 1e-3
    safe = np.where(small, 1.0, x)
    series = -np.pi ** 2 * x / 3 + np.pi ** 4 * x ** 3 / 30
    return np.where(small, series, (np.cos(np.pi * safe) - np.sinc(safe)) / safe)


deftransformable(sinc_deriv)      # differentiated again through its source


def falling_factorial(y, n):
    """``y (y - 1) ... (y - n + 1)``: the coefficient of the n-th derivative of ``x ** y``."""
    c = y
    for k in range(1, n):
        c = c * (y - k)
    return c


def falling_factorial_slope(y, n):
    """d/dy of :func:`falling_factorial`: the sum over ``j`` of the product without
    ``(y - j)``."""
    total = 0
    for j in range(n):
        term = 1
        for k in range(n):
            if k != j:
                term = term * (y - k)
        total = total + term
    return total


deftransformable(falling_factorial_slope)     # differentiated again through its source


def power_deriv(x, y, n=1):
    """The n-th derivative of ``x ** y`` in ``x``: ``y (y - 1) ... (y - n + 1) x ** (y - n)``,
    and 0 wherever that coefficient is 0 (``y`` one of ``0 .. n - 1``).

    There ``x ** y`` is a polynomial of degree below ``n``, so the derivative is 0 at
    ``x == 0`` too (``d/dx x ** 0 = 0``: autograd's and JAX's value), where the plain
    formula gives ``0 * 0 ** -1`` (NaN, or ZeroDivisionError for Python numbers).  There
    the base is replaced by 1, with a ``where`` of the arguments' namespace (no
    arithmetic on booleans: the array API refuses it).  The x-derivative of this kernel is
    the same kernel with ``n + 1`` (its rule, below), so every order keeps the convention.
    """
    c = falling_factorial(y, n)
    if not hasattr(x, "shape") and not hasattr(y, "shape"):         # Python numbers
        return c * x ** (y - n) if c != 0 else 0 * x + 0      # + 0: never -0.0
    xp = array_ns(x, y)
    if not hasattr(x, "shape"):                                     # an array exponent
        x = xp.full_like(y, x, dtype=_fdtype(y))
    out = c * xp.where((x == 0) & (c == 0), 1, x) ** (y - n)
    # a zero coefficient gives +0 (0 * x ** -1 is -0.0 for x < 0; PyTorch's zero is +0)
    if not hasattr(c, "shape"):
        return out + 0 if c == 0 else out
    return xp.where(c == 0, 0, out)


# -- rules ------------------------------------------------------------------------------
class _Rename(ast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            return ast.copy_location(ast.Name(self.new, node.ctx), node)
        return node


def _tangent_of(expr, param):
    """The forward rule of an elementwise (diagonal) rule: ``g`` replaced by ``d<param>``."""
    tree = _Rename("g", "d" + param).visit(ast.parse(expr, mode="eval"))
    return ast.unparse(tree)


def _elementwise(func, params, torch_name=None, *, broadcast=True, name=None, linear_in=(),
                 view_of=None, **partials):
    """Register an elementwise function from ``param="g * <partial derivative>"``.

    The reverse rule un-broadcasts the product to the parameter's shape; the
    forward rule is the same product with the tangent, broadcast to ``ans``.
    """
    vjp, jvp = {}, {}
    for p, expr in partials.items():
        t = _tangent_of(expr, p)
        vjp[p] = f"unbroadcast({expr}, {p})" if broadcast else expr
        jvp[p] = f"expand({t}, ans)" if broadcast else t
    return defrule(func, params, vjp=vjp, jvp=jvp, torch_name=torch_name, name=name,
                   elementwise=True, linear_in=linear_in, view_of=view_of)


def _unary(func, expr, torch_name=None, linear=False):
    """A one-argument ufunc: ``x`` and ``ans`` have the same shape."""
    return _elementwise(func, "x, out=None", torch_name, broadcast=False, x=expr,
                        linear_in=("x",) if linear else ())

# ---------------------------------------------------------------------------------------
# Elementwise, one argument
# ---------------------------------------------------------------------------------------
_unary(np.exp,        "g * ans",                            "ExpBackward0")
# math.log(2), not np.log(2): a Python float keeps a float32 gradient float32
_unary(np.exp2,       "g * ans * math.log(2)",                "Exp2Backward0")
_unary(np.expm1,      "g * (ans + 1)",                      "Expm1Backward0")
_unary(np.log,        "g / x",                              "LogBackward0")
_unary(np.log2,       "g / (x * math.log(2))",                "Log2Backward0")
_unary(np.log10,      "g / (x * math.log(10))",               "Log10Backward0")
_unary(np.log1p,      "g / (1 + x)",                        "Log1PBackward0")
_unary(np.sqrt,       "g / (2 * ans)",                      "SqrtBackward0")
_unary(np.cbrt,       "g / (3 * ans ** 2)",                 "PowBackward0")
_unary(np.square,     "g * 2 * x",                          "PowBackward0")
_unary(np.reciprocal, "-g * ans ** 2",                      "ReciprocalBackward0")
_unary(np.sin,        "g * np.cos(x)",                      "SinBackward0")
_unary(np.cos,        "-g * np.sin(x)",                     "CosBackward0")
_unary(np.tan,        "g * (1 + ans ** 2)",                 "TanBackward0")
_unary(np.arcsin,     "g / np.sqrt(1 - x ** 2)",            "AsinBackward0")
_unary(np.arccos,     "-g / np.sqrt(1 - x ** 2)",           "AcosBackward0")
_unary(np.arctan,     "g / (1 + x ** 2)",                   "AtanBackward0")
_unary(np.sinh,       "g * np.cosh(x)",                     "SinhBackward0")
_unary(np.cosh,       "g * np.sinh(x)",                     "CoshBackward0")
_unary(np.tanh,       "g * (1 - ans ** 2)",                 "TanhBackward0")
_unary(np.arcsinh,    "g / np.sqrt(x ** 2 + 1)",            "AsinhBackward0")
_unary(np.arccosh,    "g / np.sqrt(x ** 2 - 1)",            "AcoshBackward0")
_unary(np.arctanh,    "g / (1 - x ** 2)",                   "AtanhBackward0")
# (np.absolute, np.abs: rules/numpy/spectral.py, beside the other complex parts)
_unary(np.fabs,       "g * np.sign(x)",                     "AbsBackward0")
_unary(np.deg2rad,    "g * (np.pi / 180)",                  "Deg2RadBackward0", linear=True)
_unary(np.radians,    "g * (np.pi / 180)",                  "Deg2RadBackward0", linear=True)
_unary(np.rad2deg,    "g * (180 / np.pi)",                  "Rad2DegBackward0", linear=True)
_unary(np.degrees,    "g * (180 / np.pi)",                  "Rad2DegBackward0", linear=True)
_unary(np.conjugate,  "np.conjugate(g)",                    "ConjBackward0", linear=True)     # np.conj
_elementwise(np.sinc, "x", "SincBackward0", broadcast=False, x="g * sinc_deriv(x)")
_elementwise(np.real, "val", "RealBackward0", broadcast=False, val="np.real(g)",
             linear_in="val", view_of="val")
_elementwise(np.nan_to_num, "x, copy=True, nan=0.0, posinf=None, neginf=None",
             "NanToNumBackward0", x="g * np.isfinite(x)", nan="g * np.isnan(x)",
             posinf="g * np.isposinf(x)", neginf="g * np.isneginf(x)")

# ---------------------------------------------------------------------------------------
# Elementwise, several arguments (both operands un-broadcast)
# ---------------------------------------------------------------------------------------
_elementwise(np.arctan2, "y, x, out=None", "Atan2Backward0",
             y="g * x / (x ** 2 + y ** 2)", x="-g * y / (x ** 2 + y ** 2)")
_elementwise(np.hypot, "x, y, out=None", "HypotBackward0",
             x="g * x / ans", y="g * y / ans")
_elementwise(np.logaddexp, "x, y, out=None", "LogaddexpBackward0",
             x="g * logistic(x - y)", y="g * logistic(y - x)")
_elementwise(np.logaddexp2, "x, y, out=None", "Logaddexp2Backward0",
             x="g * np.exp2(x - ans)", y="g * np.exp2(y - ans)")
# ties share the gradient equally (the central difference at a tie agrees)
_elementwise(np.maximum, "x, y, out=None", "MaximumBackward0",
             x="g * balanced_eq(x, ans, y)", y="g * balanced_eq(y, ans, x)")
_elementwise(np.minimum, "x, y, out=None", "MinimumBackward0",
             x="g * balanced_eq(x, ans, y)", y="g * balanced_eq(y, ans, x)")
_elementwise(np.fmax, "x, y, out=None", "FmaxBackward0",
             x="g * balanced_eq(x, ans, y)", y="g * balanced_eq(y, ans, x)")
_elementwise(np.fmin, "x, y, out=None", "FminBackward0",
             x="g * balanced_eq(x, ans, y)", y="g * balanced_eq(y, ans, x)")
_elementwise(np.copysign, "x, y, out=None", "CopysignBackward0",
             x="np.where(np.signbit(x) == np.signbit(y), g, -g)")
_elementwise(np.fmod, "x, y, out=None", "FmodBackward0",
             x="g * np.ones_like(ans)", y="-g * np.trunc(x / y)")
_elementwise(np.float_power, "x, y, out=None", "PowBackward0",
             x="g * power_deriv(x, y)",
             y="g * ans * log_pos(x)")
_elementwise(np.where, "condition, x=None, y=None", "WhereBackward0", linear_in=("x", "y"),
             x="np.where(condition, g, 0)", y="np.where(condition, 0, g)")
_clip = _elementwise(np.clip, "a, a_min=None, a_max=None, out=None", "ClampBackward1",
                     a="g * clip_mask(a, a_min, a_max)", a_min="g * (a < a_min)",
                     a_max="g * (a > a_max)")
_elementwise(np.ndarray.clip, "a, min=None, max=None, out=None", "ClampBackward1",
             name="np.ndarray.clip", a="g * clip_mask(a, min, max)", min="g * (a < min)",
             max="g * (a > max)")
defmethod("clip", np.ndarray.clip)

defrule(np.add, "x, y", torch_name="AddBackward0", elementwise=True, linear_in=("x", "y"),
        vjp=dict(x="unbroadcast(g, x)", y="unbroadcast(g, y)"),
        jvp=dict(x="expand(dx, ans)", y="expand(dy, ans)"))
defrule(np.subtract, "x, y", torch_name="SubBackward0", elementwise=True,
        linear_in=("x", "y"),
        vjp=dict(x="unbroadcast(g, x)", y="unbroadcast(-g, y)"),
        jvp=dict(x="expand(dx, ans)", y="expand(-dy, ans)"))
defrule(np.multiply, "x, y", torch_name="MulBackward0", elementwise=True,
        bilinear_in=("x", "y"),
        vjp=dict(x="unbroadcast(g * y, x)", y="unbroadcast(g * x, y)"),
        jvp=dict(x="expand(dx * y, ans)", y="expand(x * dy, ans)"))
defrule(np.true_divide, "x, y", torch_name="DivBackward0", elementwise=True, linear_in="x",
        vjp=dict(x="unbroadcast(g / y, x)", y="unbroadcast(-g * ans / y, y)"),
        jvp=dict(x="expand(dx / y, ans)", y="expand(-dy * ans / y, ans)"))
# d/dx x**y = y * x**(y - 1), 0 where y == 0 (power_deriv)
defrule(np.power, "x, y", torch_name="PowBackward0", elementwise=True,
        vjp=dict(x="unbroadcast(g * power_deriv(x, y), x)",
                 y="unbroadcast(g * ans * log_pos(x), y)"),
        jvp=dict(x="expand(dx * power_deriv(x, y), ans)",
                 y="expand(dy * ans * log_pos(x), ans)"))
defrule(np.negative, "x", torch_name="NegBackward0", elementwise=True, linear_in="x",
        vjp=dict(x="-g"), jvp=dict(x="-dx"))
defrule(np.positive, "x", torch_name="PosBackward0", elementwise=True, linear_in="x",
        vjp=dict(x="g"), jvp=dict(x="dx"))
defrule(np.mod, "x, y", torch_name="RemainderBackward0", elementwise=True,
        vjp=dict(x="unbroadcast(g, x)", y="unbroadcast(-g * np.floor_divide(x, y), y)"),
        jvp=dict(x="expand(dx, ans)", y="expand(-dy * np.floor_divide(x, y), ans)"))
_elementwise(np.ldexp, "x1, x2, out=None", x1="np.ldexp(g, x2)", linear_in="x1")   # g * 2**x2

defkernel(logistic, "x", vjp=dict(x="g * ans * (1 - ans)"), jvp=dict(x="dx * ans * (1 - ans)"),
          elementwise=True)
# d/dx power_deriv(x, y, n) = power_deriv(x, y, n + 1);
# d/dy = falling_factorial_slope(y, n) * x ** (y - n) + ans * log(x)
defkernel(power_deriv, "x, y, n=1", elementwise=True,
          vjp=dict(x="unbroadcast(g * power_deriv(x, y, n + 1), x)",
                   y="unbroadcast(g * (falling_factorial_slope(y, n) * x ** (y - n)"
                     " + ans * log_pos(x)), y)"),
          jvp=dict(x="expand(dx * power_deriv(x, y, n + 1), ans)",
                   y="expand(dy * (falling_factorial_slope(y, n) * x ** (y - n)"
                     " + ans * log_pos(x)), ans)"))
defkernel(log_pos, "x", vjp=dict(x="g * (x > 0) / np.where(x > 0, x, 1)"),
             jvp=dict(x="dx * (x > 0) / np.where(x > 0, x, 1)"))

# masks: piecewise constant
defnograd(balanced_eq, clip_mask, names=["ad.balanced_eq", "ad.clip_mask"])
