"""Derivatives of the :mod:`math` module (Python floats in, Python floats out).

Templates call ``math`` functions, which are fast on floats.  As in the NumPy
table, an entry is written once as ``g * <partial derivative>``; the forward
rule is the same product with the tangent in place of ``g``.
"""
import math

from ..numpy.elementwise import _tangent_of
from ..registry import defnograd, defrule


def _scalar(func, params="x", torch_name=None, **partials):
    """Register a scalar function from ``param="g * <partial derivative>"``."""
    defrule(func, params, torch_name=torch_name,
            vjp=dict(partials), jvp={p: _tangent_of(e, p) for p, e in partials.items()})


_scalar(math.exp,   x="g * ans",                                   torch_name="ExpBackward0")
_scalar(math.expm1, x="g * (ans + 1)",                             torch_name="Expm1Backward0")
_scalar(math.log1p, x="g / (1 + x)",                               torch_name="Log1PBackward0")
_scalar(math.log2,  x="g / (x * math.log(2))",                     torch_name="Log2Backward0")
_scalar(math.log10, x="g / (x * math.log(10))",                    torch_name="Log10Backward0")
_scalar(math.sqrt,  x="g / (2 * ans)",                             torch_name="SqrtBackward0")
_scalar(math.sin,   x="g * math.cos(x)",                           torch_name="SinBackward0")
_scalar(math.cos,   x="-g * math.sin(x)",                          torch_name="CosBackward0")
_scalar(math.tan,   x="g * (1 + ans * ans)",                       torch_name="TanBackward0")
_scalar(math.asin,  x="g / math.sqrt(1 - x * x)",                  torch_name="AsinBackward0")
_scalar(math.acos,  x="-g / math.sqrt(1 - x * x)",                 torch_name="AcosBackward0")
_scalar(math.atan,  x="g / (1 + x * x)",                           torch_name="AtanBackward0")
_scalar(math.sinh,  x="g * math.cosh(x)",                          torch_name="SinhBackward0")
_scalar(math.cosh,  x="g * math.sinh(x)",                          torch_name="CoshBackward0")
_scalar(math.tanh,  x="g * (1 - ans * ans)",                       torch_name="TanhBackward0")
_scalar(math.asinh, x="g / math.sqrt(x * x + 1)",                  torch_name="AsinhBackward0")
_scalar(math.acosh, x="g / math.sqrt(x * x - 1)",                  torch_name="AcoshBackward0")
_scalar(math.atanh, x="g / (1 - x * x)",                           torch_name="AtanhBackward0")
_scalar(math.erf,   x="g * 2 / math.sqrt(math.pi) * math.exp(-x * x)", torch_name="ErfBackward0")
_scalar(math.erfc,  x="-g * 2 / math.sqrt(math.pi) * math.exp(-x * x)", torch_name="ErfcBackward0")
_scalar(math.fabs,  x="g * ((x > 0) - (x < 0))",                   torch_name="AbsBackward0")
_scalar(math.degrees, x="g * (180 / math.pi)",                     torch_name="Rad2DegBackward0")
_scalar(math.radians, x="g * (math.pi / 180)",                     torch_name="Deg2RadBackward0")
if hasattr(math, "cbrt"):   # Python 3.11+
    _scalar(math.cbrt, x="g / (3 * ans * ans)")
if hasattr(math, "exp2"):   # Python 3.11+
    _scalar(math.exp2, x="g * ans * math.log(2)",                  torch_name="Exp2Backward0")

# log(x, base) = ln x / ln base  (math.e written out: rule signatures see only ``np``)
_scalar(math.log, "x, base=2.718281828459045", torch_name="LogBackward0",
        x="g / (x * math.log(base))", base="-g * ans / (base * math.log(base))")
_scalar(math.pow, "x, y", torch_name="PowBackward0",
        x="g * power_deriv(x, y)", y="g * ans * (math.log(x) if x > 0 else 0.0)")
_scalar(math.atan2, "y, x", torch_name="Atan2Backward0",
        y="g * x / (x * x + y * y)", x="-g * y / (x * x + y * y)")
_scalar(math.copysign, "x, y", x="g * math.copysign(1.0, x) * math.copysign(1.0, y)")
_scalar(math.fmod, "x, y", x="g", y="-g * math.trunc(x / y)")
_scalar(math.remainder, "x, y", x="g", y="-g * round(x / y)")

# functions of several (or an iterable of) values
defrule(math.hypot, "*coordinates", torch_name="HypotBackward0",
        vjp=dict(coordinates="tuple(g * _c / ans for _c in coordinates)"),
        jvp=dict(coordinates="sum(_d * _c for _d, _c in "
                             "zip(fill_tangents(dcoordinates, coordinates), coordinates)) / ans"))
defrule(math.fsum, "seq",
        vjp=dict(seq="seq_sum_grad(g, seq)"), jvp=dict(seq="seq_sum_jvp(dseq, seq)"))
defrule(math.prod, "iterable, start=1",
        vjp=dict(iterable="seq_prod_grad(g, iterable, start)", start="g * math.prod(iterable)"),
        jvp=dict(iterable="seq_prod_jvp(diterable, iterable, start)",
                 start="dstart * math.prod(iterable)"))

defnograd(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
          math.isclose, math.factorial, math.comb, math.perm, math.gcd, math.lcm, math.isqrt)
