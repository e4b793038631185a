"""Derivatives of NumPy: elementwise functions, reductions, linear algebra, shapes.

Read each entry as a line of a calculus table.  ``g`` is the cotangent of the
result ``ans``; ``dx`` is the tangent of the parameter ``x``.  Longer adjoints live
in :mod:`srcgrad.rules.helpers`; ``unbroadcast``, ``expand``, ``reduced_grad``,
``minmax_grad`` ... come from :mod:`srcgrad.runtime`.

Elementwise rules are written once, as the product of ``g`` with the partial
derivative; :func:`_elementwise` derives the forward rule (the same product with
the tangent in place of ``g``) and un-broadcasts both operands.

The rules assume real inputs.  Parameters that NumPy accepts but these rules do
not model (``where=`` of ufuncs and reductions, ``initial=`` of prod/max/min,
``retstep=`` of linspace, ...) are left out of the signatures on purpose: a call
that uses them does not bind, and the compiler reports it instead of
differentiating it wrongly.  ``out=`` is in the signatures; the compiler rejects
a non-None ``out=``, so every template is written for ``out=None``.
"""
import ast

import numpy as np

from .table import defmethod, defnograd, defrule


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


def _elementwise(func, params, torch_name=None, *, broadcast=True, name=None, **partials):
    """Register an elementwise function from ``param="g * <partial derivative>"``.

    The reverse rule un-broadcasts the product to the parameter's shape; the
    forward rule is the same product with the tangent, broadcast to ``ans``.
    """
    vjp, jvp = {}, {}
    for p, expr in partials.items():
        t = _tangent_of(expr, p)
        vjp[p] = f"unbroadcast({expr}, {p})" if broadcast else expr
        jvp[p] = f"expand({t}, ans)" if broadcast else t
    return defrule(func, params, vjp=vjp, jvp=jvp, torch_name=torch_name, name=name)


def _unary(func, expr, torch_name=None):
    """A one-argument ufunc: ``x`` and ``ans`` have the same shape."""
    return _elementwise(func, "x, out=None", torch_name, broadcast=False, x=expr)


def _method(method, func_rule, params, name, attribute=False, jvp=None):
    """``x.method(...)`` with the templates of the function's rule (``x`` bound first)."""
    rule = defrule(method, params, vjp=func_rule.vjp, jvp=jvp or func_rule.jvp,
                   torch_name=func_rule.torch_name, name=f"np.ndarray.{name}")
    defmethod(name, method, attribute=attribute)
    return rule


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
_unary(np.absolute,   "g * np.sign(x)",                     "AbsBackward0")      # np.abs
_unary(np.fabs,       "g * np.sign(x)",                     "AbsBackward0")
_unary(np.deg2rad,    "g * (np.pi / 180)",                  "Deg2RadBackward0")
_unary(np.radians,    "g * (np.pi / 180)",                  "Deg2RadBackward0")
_unary(np.rad2deg,    "g * (180 / np.pi)",                  "Rad2DegBackward0")
_unary(np.degrees,    "g * (180 / np.pi)",                  "Rad2DegBackward0")
_unary(np.conjugate,  "np.conjugate(g)",                    "ConjBackward0")     # np.conj
_elementwise(np.sinc, "x", "SincBackward0", broadcast=False, x="g * sinc_deriv(x)")
_elementwise(np.real, "val", "RealBackward0", broadcast=False, val="np.real(g)")
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
             x="g * np.exp(x - ans)", y="g * np.exp(y - ans)")
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
             x="g * y * np.float_power(x, y - 1)",
             y="g * ans * log_pos(x)")
_elementwise(np.where, "condition, x=None, y=None", "WhereBackward0",
             x="np.where(condition, g, 0)", y="np.where(condition, 0, g)")
_clip = _elementwise(np.clip, "a, a_min=None, a_max=None, out=None", "ClampBackward1",
                     a="g * clip_mask(a, a_min, a_max)", a_min="g * (a < a_min)",
                     a_max="g * (a > a_max)")
_elementwise(np.ndarray.clip, "a, min=None, max=None, out=None", "ClampBackward1",
             name="np.ndarray.clip", a="g * clip_mask(a, min, max)", min="g * (a < min)",
             max="g * (a > max)")
defmethod("clip", np.ndarray.clip)

# ---------------------------------------------------------------------------------------
# Reductions: axis None / int / negative / tuple, keepdims True / False
# ---------------------------------------------------------------------------------------
_sum = defrule(np.sum, "a, axis=None, dtype=None, out=None, keepdims=False, initial=None",
               vjp=dict(a="sum_grad(g, a, axis, keepdims)"),
               jvp=dict(a="np.sum(da, axis=axis, keepdims=keepdims)"),
               torch_name="SumBackward0")
_mean = defrule(np.mean, "a, axis=None, dtype=None, out=None, keepdims=False",
                vjp=dict(a="mean_grad(g, a, axis, keepdims)"),
                jvp=dict(a="np.mean(da, axis=axis, keepdims=keepdims)"),
                torch_name="MeanBackward0")
# prod: partials from exclusive cumulative products, exact with zeros in the input
_prod = defrule(np.prod, "a, axis=None, dtype=None, out=None, keepdims=False",
                vjp=dict(a="reduced_grad(g, a, axis, keepdims) * prod_partials(a, axis)"),
                jvp=dict(a="np.sum(da * prod_partials(a, axis), axis=axis, keepdims=keepdims)"),
                torch_name="ProdBackward0")
_MINMAX = dict(vjp=dict(a="minmax_grad(g, ans, a, axis, keepdims)"),
               jvp=dict(a="minmax_jvp(da, ans, a, axis, keepdims)"))
_max = defrule(np.max, "a, axis=None, out=None, keepdims=False", torch_name="MaxBackward1",
               **_MINMAX)
_min = defrule(np.min, "a, axis=None, out=None, keepdims=False", torch_name="MinBackward1",
               **_MINMAX)
defrule(np.amax, "a, axis=None, out=None, keepdims=False", torch_name="AmaxBackward0", **_MINMAX)
defrule(np.amin, "a, axis=None, out=None, keepdims=False", torch_name="AminBackward0", **_MINMAX)
defrule(np.ptp, "a, axis=None, out=None, keepdims=False",
        vjp=dict(a="ptp_grad(g, a, axis, keepdims)"), jvp=dict(a="ptp_jvp(da, a, axis, keepdims)"))
_var = defrule(np.var, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
               vjp=dict(a="var_grad(g, a, axis, ddof, keepdims)"),
               jvp=dict(a="var_jvp(da, a, axis, ddof, keepdims)"),
               torch_name="VarBackward0")
_std = defrule(np.std, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
               vjp=dict(a="var_grad(g / (2 * ans), a, axis, ddof, keepdims)"),
               jvp=dict(a="var_jvp(da, a, axis, ddof, keepdims) / (2 * ans)"),
               torch_name="StdBackward0")
defrule(np.nansum, "a, axis=None, dtype=None, out=None, keepdims=False",
        vjp=dict(a="reduced_grad(g, a, axis, keepdims) * ~np.isnan(a)"),
        jvp=dict(a="np.sum(np.where(np.isnan(a), 0, da), axis=axis, keepdims=keepdims)"),
        torch_name="NansumBackward0")
defrule(np.nanmean, "a, axis=None, dtype=None, out=None, keepdims=False",
        vjp=dict(a="nanmean_grad(g, a, axis, keepdims)"),
        jvp=dict(a="np.nanmean(np.where(np.isnan(a), np.nan, da), axis=axis, keepdims=keepdims)"))
defrule(np.linalg.norm, "x, ord=None, axis=None, keepdims=False",
        vjp=dict(x="norm_grad(g, ans, x, ord, axis, keepdims)"),
        jvp=dict(x="norm_jvp(dx, ans, x, ord, axis, keepdims)"),
        torch_name="LinalgVectorNormBackward0")
if hasattr(np.linalg, "vector_norm"):   # NumPy 2.0+
    defrule(np.linalg.vector_norm, "x, axis=None, keepdims=False, ord=2",
            vjp=dict(x="norm_grad(g, ans, x, ord, axis, keepdims, vector=True)"),
            jvp=dict(x="norm_jvp(dx, ans, x, ord, axis, keepdims, vector=True)"),
            torch_name="LinalgVectorNormBackward0")
    defrule(np.linalg.matrix_norm, "x, keepdims=False, ord='fro'",
            vjp=dict(x="norm_grad(g, ans, x, ord, (-2, -1), keepdims)"),
            jvp=dict(x="norm_jvp(dx, ans, x, ord, (-2, -1), keepdims)"),
            torch_name="LinalgMatrixNormBackward0")
_cumsum = defrule(np.cumsum, "a, axis=None, dtype=None, out=None",
                  vjp=dict(a="cumsum_grad(g, a, axis)"), jvp=dict(a="np.cumsum(da, axis=axis)"),
                  torch_name="CumsumBackward0")
_cumprod = defrule(np.cumprod, "a, axis=None, dtype=None, out=None",
                   vjp=dict(a="cumprod_grad(g, ans, a, axis)"),
                   jvp=dict(a="cumprod_jvp(da, ans, a, axis)"),
                   torch_name="CumprodBackward0")
defrule(np.diff, "a, n=1, axis=-1",
        vjp=dict(a="diff_grad(g, a, n, axis)"), jvp=dict(a="np.diff(da, n, axis)"))
_trace = defrule(np.trace, "a, offset=0, axis1=0, axis2=1, dtype=None, out=None",
                 vjp=dict(a="trace_grad(g, a, offset, axis1, axis2)"),
                 jvp=dict(a="np.trace(da, offset, axis1, axis2)"),
                 torch_name="TraceBackward0")

# ---------------------------------------------------------------------------------------
# Linear algebra (contractions go through one einsum adjoint)
# ---------------------------------------------------------------------------------------
_dot = defrule(np.dot, "a, b, out=None",
               vjp=dict(a="dot_grad(g, a, b, 0)", b="dot_grad(g, a, b, 1)"),
               jvp=dict(a="np.dot(da, b)", b="np.dot(a, db)"),
               torch_name="DotBackward0")
defrule(np.vdot, "a, b",
        vjp=dict(a="np.reshape(g * np.ravel(b), np.shape(a))",
                 b="np.reshape(g * np.ravel(a), np.shape(b))"),
        jvp=dict(a="np.vdot(da, b)", b="np.vdot(a, db)"),
        torch_name="DotBackward0")
defrule(np.inner, "a, b",
        vjp=dict(a="inner_grad(g, a, b, 0)", b="inner_grad(g, a, b, 1)"),
        jvp=dict(a="np.inner(da, b)", b="np.inner(a, db)"))
defrule(np.outer, "a, b, out=None",
        vjp=dict(a="outer_grad(g, a, b, 0)", b="outer_grad(g, a, b, 1)"),
        jvp=dict(a="np.outer(da, b)", b="np.outer(a, db)"))
defrule(np.tensordot, "a, b, axes=2",
        vjp=dict(a="tensordot_grad(g, a, b, axes, 0)", b="tensordot_grad(g, a, b, axes, 1)"),
        jvp=dict(a="np.tensordot(da, b, axes)", b="np.tensordot(a, db, axes)"))
defrule(np.einsum, "*operands, out=None, optimize=False",
        vjp=dict(operands="einsum_grad(g, operands)"),
        jvp=dict(operands="einsum_jvp(doperands, operands, optimize)"))
defrule(np.kron, "a, b",
        vjp=dict(a="kron_grad(g, a, b, 0)", b="kron_grad(g, a, b, 1)"),
        jvp=dict(a="np.kron(da, b)", b="np.kron(a, db)"))
defrule(np.cross, "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",
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
defrule(np.linalg.matrix_power, "a, n",
        vjp=dict(a="matrix_power_grad(g, a, n)"), jvp=dict(a="matrix_power_jvp(da, a, n)"),
        torch_name="LinalgMatrixPowerBackward0")
defrule(np.linalg.multi_dot, "arrays, out=None",
        vjp=dict(arrays="multi_dot_grad(g, arrays)"),
        jvp=dict(arrays="multi_dot_jvp(darrays, arrays)"))
if hasattr(np, "vecdot"):       # NumPy 2.0+
    defrule(np.vecdot, "x, y, out=None, axis=-1",
            vjp=dict(x="vecdot_grad(g, x, y, axis)", y="vecdot_grad(g, y, x, axis)"),
            jvp=dict(x="np.vecdot(dx, y, axis=axis)", y="np.vecdot(x, dy, axis=axis)"))
if hasattr(np, "matvec"):       # NumPy 2.2+
    defrule(np.matvec, "A, v, out=None",
            vjp=dict(A="matvec_grad(g, A, v, 0)", v="matvec_grad(g, A, v, 1)"),
            jvp=dict(A="np.matvec(dA, v)", v="np.matvec(A, dv)"))
    defrule(np.vecmat, "v, A, out=None",
            vjp=dict(v="vecmat_grad(g, v, A, 0)", A="vecmat_grad(g, v, A, 1)"),
            jvp=dict(v="np.vecmat(dv, A)", A="np.vecmat(v, dA)"))
defrule(np.convolve, "a, v, mode='full'",
        vjp=dict(a="convolve_grad(g, a, v, mode, 0)", v="convolve_grad(g, a, v, mode, 1)"),
        jvp=dict(a="np.convolve(da, v, mode)", v="np.convolve(a, dv, mode)"))
defrule(np.correlate, "a, v, mode='valid'",
        vjp=dict(a="correlate_grad(g, a, v, mode, 0)", v="correlate_grad(g, a, v, mode, 1)"),
        jvp=dict(a="np.correlate(da, v, mode)", v="np.correlate(a, dv, mode)"))
if hasattr(np, "matrix_transpose"):   # NumPy 2.0+
    _mT = defrule(np.matrix_transpose, "x", vjp=dict(x="mT(g)"), jvp=dict(x="mT(dx)"),
                  torch_name="TransposeBackward0")

# ---------------------------------------------------------------------------------------
# Shape, joining and selection
# ---------------------------------------------------------------------------------------
_reshape = defrule(np.reshape, "a, shape, order='C', copy=None",
                   vjp=dict(a="np.reshape(g, np.shape(a), order=order)"),
                   jvp=dict(a="np.reshape(da, np.shape(ans), order=order)"),
                   torch_name="ViewBackward0")
_ravel = defrule(np.ravel, "a, order='C'",
                 vjp=dict(a="ravel_grad(g, a, order)"), jvp=dict(a="ravel_jvp(da, a, order)"),
                 torch_name="ViewBackward0")
_transpose = defrule(np.transpose, "a, axes=None",       # also np.permute_dims
                     vjp=dict(a="transpose_grad(g, axes)"),
                     jvp=dict(a="np.transpose(da, axes)"),
                     torch_name="PermuteBackward0")
_swapaxes = defrule(np.swapaxes, "a, axis1, axis2",
                    vjp=dict(a="np.swapaxes(g, axis1, axis2)"),
                    jvp=dict(a="np.swapaxes(da, axis1, axis2)"),
                    torch_name="TransposeBackward0")
defrule(np.moveaxis, "a, source, destination",
        vjp=dict(a="np.moveaxis(g, destination, source)"),
        jvp=dict(a="np.moveaxis(da, source, destination)"),
        torch_name="PermuteBackward0")
_squeeze = defrule(np.squeeze, "a, axis=None",
                   vjp=dict(a="np.reshape(g, np.shape(a))"), jvp=dict(a="np.squeeze(da, axis)"),
                   torch_name="SqueezeBackward0")
defrule(np.expand_dims, "a, axis",
        vjp=dict(a="np.reshape(g, np.shape(a))"), jvp=dict(a="np.expand_dims(da, axis)"),
        torch_name="UnsqueezeBackward0")
defrule(np.broadcast_to, "array, shape, subok=False",
        vjp=dict(array="unbroadcast(g, array)"), jvp=dict(array="np.broadcast_to(darray, shape)"),
        torch_name="ExpandBackward0")
defrule(np.atleast_1d, "*arys", vjp=dict(arys="atleast_grad(g, arys)"),
        jvp=dict(arys="atleast_jvp(darys, arys, np.atleast_1d)"), torch_name="ViewBackward0")
defrule(np.atleast_2d, "*arys", vjp=dict(arys="atleast_grad(g, arys)"),
        jvp=dict(arys="atleast_jvp(darys, arys, np.atleast_2d)"), torch_name="ViewBackward0")
defrule(np.atleast_3d, "*arys", vjp=dict(arys="atleast_grad(g, arys)"),
        jvp=dict(arys="atleast_jvp(darys, arys, np.atleast_3d)"), torch_name="ViewBackward0")
defrule(np.concatenate, "arrays, axis=0, out=None, dtype=None, casting='same_kind'",  # np.concat
        vjp=dict(arrays="join_grad(g, arrays, axis)"),
        jvp=dict(arrays="join_jvp(darrays, arrays, axis)"), torch_name="CatBackward0")
defrule(np.stack, "arrays, axis=0, out=None, dtype=None, casting='same_kind'",
        vjp=dict(arrays="join_grad(g, arrays, axis, 'stack')"),
        jvp=dict(arrays="join_jvp(darrays, arrays, axis, 'stack')"), torch_name="StackBackward0")
for _f in (np.hstack, np.vstack, np.dstack, np.column_stack):
    _how = _f.__name__
    defrule(_f, "tup, dtype=None, casting='same_kind'" if _how in ("hstack", "vstack") else "tup",
            vjp=dict(tup=f"join_grad(g, tup, None, {_how!r})"),
            jvp=dict(tup=f"join_jvp(dtup, tup, None, {_how!r})"), torch_name="CatBackward0")
defrule(np.append, "arr, values, axis=None",
        vjp=dict(arr="append_grad(g, arr, values, axis)[0]",
                 values="append_grad(g, arr, values, axis)[1]"),
        jvp=dict(arr="np.append(darr, zeros_like(values), axis)",
                 values="np.append(zeros_like(arr), dvalues, axis)"), torch_name="CatBackward0")
defrule(np.split, "ary, indices_or_sections, axis=0",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, axis)"),
        jvp=dict(ary="np.split(dary, indices_or_sections, axis)"), torch_name="SplitBackward0")
defrule(np.array_split, "ary, indices_or_sections, axis=0",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, axis)"),
        jvp=dict(ary="np.array_split(dary, indices_or_sections, axis)"),
        torch_name="SplitBackward0")
defrule(np.hsplit, "ary, indices_or_sections",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)"),
        jvp=dict(ary="np.hsplit(dary, indices_or_sections)"), torch_name="SplitBackward0")
defrule(np.vsplit, "ary, indices_or_sections",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, 0)"),
        jvp=dict(ary="np.vsplit(dary, indices_or_sections)"), torch_name="SplitBackward0")
defrule(np.diag, "v, k=0",
        vjp=dict(v="diag_grad(g, v, k)"), jvp=dict(v="np.diag(dv, k)"), torch_name="DiagBackward0")
_diagonal = defrule(np.diagonal, "a, offset=0, axis1=0, axis2=1",
                    vjp=dict(a="diagonal_grad(g, a, offset, axis1, axis2)"),
                    jvp=dict(a="np.diagonal(da, offset, axis1, axis2)"),
                    torch_name="DiagonalBackward0")
defrule(np.triu, "m, k=0", vjp=dict(m="np.triu(g, k)"), jvp=dict(m="np.triu(dm, k)"),
        torch_name="TriuBackward0")
defrule(np.tril, "m, k=0", vjp=dict(m="np.tril(g, k)"), jvp=dict(m="np.tril(dm, k)"),
        torch_name="TrilBackward0")
defrule(np.flip, "m, axis=None", vjp=dict(m="np.flip(g, axis)"), jvp=dict(m="np.flip(dm, axis)"),
        torch_name="FlipBackward0")
defrule(np.fliplr, "m", vjp=dict(m="np.fliplr(g)"), jvp=dict(m="np.fliplr(dm)"),
        torch_name="FlipBackward0")
defrule(np.flipud, "m", vjp=dict(m="np.flipud(g)"), jvp=dict(m="np.flipud(dm)"),
        torch_name="FlipBackward0")
defrule(np.rot90, "m, k=1, axes=(0, 1)",
        vjp=dict(m="np.rot90(g, -k, axes)"), jvp=dict(m="np.rot90(dm, k, axes)"),
        torch_name="RotBackward0")
defrule(np.roll, "a, shift, axis=None",
        vjp=dict(a="roll_grad(g, shift, axis)"), jvp=dict(a="np.roll(da, shift, axis)"),
        torch_name="RollBackward0")
defrule(np.tile, "A, reps",
        vjp=dict(A="tile_grad(g, A, reps)"), jvp=dict(A="np.tile(dA, reps)"),
        torch_name="RepeatBackward0")
_repeat = defrule(np.repeat, "a, repeats, axis=None",
                  vjp=dict(a="repeat_grad(g, a, repeats, axis)"),
                  jvp=dict(a="np.repeat(da, repeats, axis)"),
                  torch_name="RepeatInterleaveBackward0")
defrule(np.sort, "a, axis=-1, kind=None, order=None, stable=None",
        vjp=dict(a="np.reshape(sort_grad(g, a, axis), np.shape(a))"),
        jvp=dict(a="sort_jvp(da, a, axis)"), torch_name="SortBackward0")
_take = defrule(np.take, "a, indices, axis=None, out=None, mode='raise'",
                vjp=dict(a="take_grad(g, a, indices, axis, mode)"),
                jvp=dict(a="np.take(da, indices, axis, mode=mode)"),
                torch_name="TakeBackward0")
defrule(np.take_along_axis, "arr, indices, axis=-1",
        vjp=dict(arr="take_along_axis_grad(g, arr, indices, axis)"),
        jvp=dict(arr="np.take_along_axis(darr, indices, axis)"), torch_name="GatherBackward0")
defrule(np.pad, "array, pad_width, mode='constant', constant_values=0",
        vjp=dict(array="pad_grad(g, array, pad_width, mode)",
                 constant_values="pad_value_grad(g, array, pad_width, constant_values)"),
        jvp=dict(array="np.pad(darray, pad_width, mode)",
                 constant_values="np.pad(zeros_like(array), pad_width, "
                                 "constant_values=dconstant_values)"),
        torch_name="ConstantPadNdBackward0")

# ---------------------------------------------------------------------------------------
# Array creation from differentiable values, copies and casts
# ---------------------------------------------------------------------------------------
defrule(np.array, "object, dtype=None, copy=True, order='K', subok=False, ndmin=0",
        vjp=dict(object="array_grad(g, object)"),
        jvp=dict(object="array_jvp(dobject, object, dtype, ndmin)"))
for _f, _p in ((np.asarray, "a, dtype=None, order=None, device=None, copy=None"),
               (np.asanyarray, "a, dtype=None, order=None"),
               (np.ascontiguousarray, "a, dtype=None"),
               (np.asfortranarray, "a, dtype=None")):
    defrule(_f, _p, vjp=dict(a="array_grad(g, a)"), jvp=dict(a="array_jvp(da, a, dtype)"))
_copy = defrule(np.copy, "a, order='K', subok=False", vjp=dict(a="g"), jvp=dict(a="da"),
                torch_name="CloneBackward0")
for _t in (np.float64, np.float32):
    defrule(_t, "x=0.0", vjp=dict(x="cast_like(g, x)"), jvp=dict(x="cast_like(dx, ans)"),
            torch_name="ToCopyBackward0")
# values built from a differentiable fill value or end points
defrule(np.full, "shape, fill_value, dtype=None, order='C'",
        vjp=dict(fill_value="unbroadcast(g, fill_value)"),
        jvp=dict(fill_value="expand(dfill_value, ans)"), torch_name="FillBackward0")
defrule(np.full_like, "a, fill_value, dtype=None, order='K', subok=True, shape=None",
        vjp=dict(fill_value="unbroadcast(g, fill_value)"),
        jvp=dict(fill_value="expand(dfill_value, ans)"), torch_name="FillBackward0")
defrule(np.linspace, "start, stop, num=50, endpoint=True, dtype=None, axis=0",
        vjp=dict(start="linspace_grad(g, start, stop, num, endpoint, axis, 0)",
                 stop="linspace_grad(g, start, stop, num, endpoint, axis, 1)"),
        jvp=dict(start="np.linspace(dstart, zeros_like(stop), num, endpoint, axis=axis)",
                 stop="np.linspace(zeros_like(start), dstop, num, endpoint, axis=axis)"))

# ---------------------------------------------------------------------------------------
# Added with tests/test_corpus_numpy.py (what other AD libraries' test corpora exercise)
# ---------------------------------------------------------------------------------------
# elementwise
_elementwise(np.ldexp, "x1, x2, out=None", x1="np.ldexp(g, x2)")   # g * 2**x2

# reductions that skip NaNs (NaN entries get no gradient)
defrule(np.nanmax, "a, axis=None, out=None, keepdims=False", **_MINMAX)
defrule(np.nanmin, "a, axis=None, out=None, keepdims=False", **_MINMAX)
defrule(np.nanprod, "a, axis=None, dtype=None, out=None, keepdims=False",
        vjp=dict(a="reduced_grad(g, a, axis, keepdims) * "
                   "prod_partials(np.where(np.isnan(a), 1, a), axis) * ~np.isnan(a)"),
        jvp=dict(a="np.sum(np.where(np.isnan(a), 0, da) * "
                   "prod_partials(np.where(np.isnan(a), 1, a), axis), axis=axis, "
                   "keepdims=keepdims)"))
defrule(np.nanvar, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
        vjp=dict(a="nanvar_grad(g, a, axis, ddof, keepdims)"),
        jvp=dict(a="nanvar_jvp(da, a, axis, ddof, keepdims)"))
defrule(np.nanstd, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
        vjp=dict(a="nanvar_grad(g / (2 * ans), a, axis, ddof, keepdims)"),
        jvp=dict(a="nanvar_jvp(da, a, axis, ddof, keepdims) / (2 * ans)"))
defrule(np.nancumsum, "a, axis=None, dtype=None, out=None",
        vjp=dict(a="cumsum_grad(g, a, axis) * ~np.isnan(a)"),
        jvp=dict(a="np.cumsum(np.where(np.isnan(a), 0, da), axis=axis)"),
        torch_name="CumsumBackward0")
defrule(np.nancumprod, "a, axis=None, dtype=None, out=None",
        vjp=dict(a="cumprod_grad(g, ans, np.where(np.isnan(a), 1, a), axis) * ~np.isnan(a)"),
        jvp=dict(a="cumprod_jvp(np.where(np.isnan(a), 0, da), ans, "
                   "np.where(np.isnan(a), 1, a), axis)"),
        torch_name="CumprodBackward0")
if hasattr(np, "cumulative_sum"):       # NumPy 2.1+
    defrule(np.cumulative_sum, "x, /, *, axis=None, dtype=None, out=None, include_initial=False",
            vjp=dict(x="cumsum_grad(cumulative_trim(g, x, axis, include_initial), x, axis)"),
            jvp=dict(x="np.cumulative_sum(dx, axis=axis, include_initial=include_initial)"),
            torch_name="CumsumBackward0")
    defrule(np.cumulative_prod, "x, /, *, axis=None, dtype=None, out=None, include_initial=False",
            vjp=dict(x="cumprod_grad(cumulative_trim(g, x, axis, include_initial), "
                       "cumulative_trim(ans, x, axis, include_initial), x, axis)"),
            jvp=dict(x="cumulative_pad(cumprod_jvp(dx, cumulative_trim(ans, x, axis, "
                       "include_initial), x, axis), axis, include_initial)"),
            torch_name="CumprodBackward0")
# ``returned=`` is left out: np.average(..., returned=True) does not bind, and is reported
defrule(np.average, "a, axis=None, weights=None, *, keepdims=False",
        vjp=dict(a="average_grad(g, a, axis, weights, keepdims, 0)",
                 weights="average_grad(g, a, axis, weights, keepdims, 1)"),
        jvp=dict(a="np.average(da, axis, weights, keepdims=keepdims)",
                 weights="average_jvp(dweights, a, axis, weights, keepdims)"))
# order statistics: the gradient goes to the entries the result is read from
defrule(np.median, "a, axis=None, out=None, overwrite_input=False, keepdims=False",
        vjp=dict(a="quantile_grad(g, a, 0.5, axis, keepdims)"),
        jvp=dict(a="quantile_jvp(da, ans, a, 0.5, axis, keepdims)"), torch_name="MedianBackward0")
for _f, _scale in ((np.quantile, "1.0"), (np.percentile, "0.01")):
    # ``weights=`` (for method="inverted_cdf") is left out: a call with it does not bind
    defrule(_f, "a, q, axis=None, out=None, overwrite_input=False, method='linear', "
                "keepdims=False",
            vjp=dict(a=f"quantile_grad(g, a, q, axis, keepdims, method, {_scale})",
                     q=f"quantile_q_grad(g, a, q, axis, keepdims, method, {_scale})"),
            jvp=dict(a=f"quantile_jvp(da, ans, a, q, axis, keepdims, method, {_scale})",
                     q=f"quantile_q_jvp(dq, ans, a, q, axis, keepdims, method, {_scale})"))
defrule(np.partition, "a, kth, axis=-1, kind='introselect', order=None",
        vjp=dict(a="permuted_grad(g, ans, a, axis)"), jvp=dict(a="permuted_jvp(da, ans, a, axis)"))
defrule(np.polyval, "p, x",
        vjp=dict(p="polyval_grad_p(g, p, x)",
                 x="unbroadcast(g * polyval_deriv(p, x), x)"),
        jvp=dict(p="np.polyval(dp, x)",
                 x="dx * polyval_deriv(p, x)"))

# shapes and selection
defrule(np.rollaxis, "a, axis, start=0",
        vjp=dict(a="rollaxis_grad(g, a, axis, start)"), jvp=dict(a="np.rollaxis(da, axis, start)"),
        torch_name="PermuteBackward0")
if hasattr(np, "row_stack") and np.row_stack is not np.vstack:     # deprecated alias
    defrule(np.row_stack, "tup, *, dtype=None, casting='same_kind'",
            vjp=dict(tup="join_grad(g, tup, None, 'vstack')"),
            jvp=dict(tup="join_jvp(dtup, tup, None, 'vstack')"), torch_name="CatBackward0")
defrule(np.dsplit, "ary, indices_or_sections",
        vjp=dict(ary="split_grad(g, ary, indices_or_sections, 2)"),
        jvp=dict(ary="np.dsplit(dary, indices_or_sections)"), torch_name="SplitBackward0")
if hasattr(np, "unstack"):              # NumPy 2.1+
    defrule(np.unstack, "x, /, *, axis=0",
            vjp=dict(x="np.stack(fill_tangents(g, ans), axis)"),
            jvp=dict(x="np.unstack(dx, axis=axis)"), torch_name="UnbindBackward0")
defrule(np.diagflat, "v, k=0", vjp=dict(v="diagflat_grad(g, v, k)"),
        jvp=dict(v="np.diagflat(dv, k)"))
defrule(np.compress, "condition, a, axis=None, out=None",
        vjp=dict(a="compress_grad(g, condition, a, axis)"),
        jvp=dict(a="np.compress(condition, da, axis)"), torch_name="IndexSelectBackward0")
defrule(np.extract, "condition, arr",
        vjp=dict(arr="extract_grad(g, condition, arr)"),
        jvp=dict(arr="np.extract(condition, darr)"), torch_name="MaskedSelectBackward0")
defrule(np.select, "condlist, choicelist, default=0",
        vjp=dict(choicelist="npselect_grad(g, condlist, choicelist)",
                 default="npselect_default_grad(g, condlist, default)"),
        jvp=dict(choicelist="npselect_jvp(dchoicelist, ans, condlist, choicelist)",
                 default="npselect_default_jvp(ddefault, ans, condlist)"))
defrule(np.meshgrid, "*xi, copy=True, sparse=False, indexing='xy'",
        vjp=dict(xi="meshgrid_grad(g, xi, sparse, indexing)"),
        jvp=dict(xi="meshgrid_jvp(dxi, xi, sparse, indexing)"))

# linear algebra: factorizations (real input; distinct eigen- / singular values)
defrule(np.linalg.slogdet, "a",
        vjp=dict(a="slogdet_grad(g, a)"), jvp=dict(a="slogdet_jvp(da, ans, a)"),
        torch_name="LinalgSlogdetBackward0")
defrule(np.linalg.cholesky, "a, /, *, upper=False",
        vjp=dict(a="cholesky_grad(g, ans, a, upper)"), jvp=dict(a="cholesky_jvp(da, ans, a, upper)"),
        torch_name="LinalgCholeskyExBackward0")
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
# the array-API spellings in np.linalg (distinct objects from their np.* namesakes)
if hasattr(np.linalg, "svdvals"):       # NumPy 2.0+
    defrule(np.linalg.svdvals, "x, /",
            vjp=dict(x="svd_grad(g, None, x, False, False)"),
            jvp=dict(x="svd_jvp(dx, None, x, False, False)"), torch_name="LinalgSvdBackward0")
    defrule(np.linalg.outer, "x1, x2, /",
            vjp=dict(x1="outer_grad(g, x1, x2, 0)", x2="outer_grad(g, x1, x2, 1)"),
            jvp=dict(x1="np.linalg.outer(dx1, x2)", x2="np.linalg.outer(x1, dx2)"))
    defrule(np.linalg.trace, "x, /, *, offset=0, dtype=None",
            vjp=dict(x="trace_grad(g, x, offset, -2, -1)"),
            jvp=dict(x="np.linalg.trace(dx, offset=offset)"), torch_name="TraceBackward0")
    defrule(np.linalg.diagonal, "x, /, *, offset=0",
            vjp=dict(x="diagonal_grad(g, x, offset, -2, -1)"),
            jvp=dict(x="np.linalg.diagonal(dx, offset=offset)"), torch_name="DiagonalBackward0")
    defrule(np.linalg.cross, "x1, x2, /, *, axis=-1",
            vjp=dict(x1="cross_grad(g, x1, x2, -1, -1, -1, axis, 0)",
                     x2="cross_grad(g, x1, x2, -1, -1, -1, axis, 1)"),
            jvp=dict(x1="np.linalg.cross(dx1, x2, axis=axis)",
                     x2="np.linalg.cross(x1, dx2, axis=axis)"), torch_name="LinalgCrossBackward0")
    defrule(np.linalg.matmul, "x1, x2, /",
            vjp=dict(x1="matmul_grad_x(g, x1, x2)", x2="matmul_grad_y(g, x1, x2)"),
            jvp=dict(x1="dx1 @ x2", x2="x1 @ dx2"), torch_name="MmBackward0")
    defrule(np.linalg.tensordot, "x1, x2, /, *, axes=2",
            vjp=dict(x1="tensordot_grad(g, x1, x2, axes, 0)",
                     x2="tensordot_grad(g, x1, x2, axes, 1)"),
            jvp=dict(x1="np.linalg.tensordot(dx1, x2, axes=axes)",
                     x2="np.linalg.tensordot(x1, dx2, axes=axes)"))
    defrule(np.linalg.vecdot, "x1, x2, /, *, axis=-1",
            vjp=dict(x1="vecdot_grad(g, x1, x2, axis)", x2="vecdot_grad(g, x2, x1, axis)"),
            jvp=dict(x1="np.linalg.vecdot(dx1, x2, axis=axis)",
                     x2="np.linalg.vecdot(x1, dx2, axis=axis)"))
    defrule(np.linalg.matrix_transpose, "x, /", vjp=dict(x="mT(g)"), jvp=dict(x="mT(dx)"),
            torch_name="TransposeBackward0")
defnograd(np.argpartition, np.nanargmax, np.nanargmin, np.isin, np.lexsort,
          np.linalg.matrix_rank, np.ndarray.argpartition)
defmethod("argpartition", np.ndarray.argpartition)

# ---------------------------------------------------------------------------------------
# Array methods and attributes: x.sum(...) is np.ndarray.sum(x, ...)
# ---------------------------------------------------------------------------------------
_method(np.ndarray.sum, _sum, "a, axis=None, dtype=None, out=None, keepdims=False, initial=None",
        "sum")
_method(np.ndarray.mean, _mean, "a, axis=None, dtype=None, out=None, keepdims=False", "mean")
_method(np.ndarray.prod, _prod, "a, axis=None, dtype=None, out=None, keepdims=False", "prod")
_method(np.ndarray.max, _max, "a, axis=None, out=None, keepdims=False", "max")
_method(np.ndarray.min, _min, "a, axis=None, out=None, keepdims=False", "min")
_method(np.ndarray.var, _var, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", "var")
_method(np.ndarray.std, _std, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", "std")
_method(np.ndarray.cumsum, _cumsum, "a, axis=None, dtype=None, out=None", "cumsum")
_method(np.ndarray.cumprod, _cumprod, "a, axis=None, dtype=None, out=None", "cumprod")
_method(np.ndarray.trace, _trace, "a, offset=0, axis1=0, axis2=1, dtype=None, out=None", "trace")
_method(np.ndarray.dot, _dot, "a, b, out=None", "dot")
_method(np.ndarray.reshape, _reshape, "a, *shape, order='C', copy=None", "reshape")
_method(np.ndarray.ravel, _ravel, "a, order='C'", "ravel")
_method(np.ndarray.flatten, _ravel, "a, order='C'", "flatten")
_method(np.ndarray.transpose, _transpose, "a, *axes", "transpose",
        jvp=dict(a="da.transpose(*axes)"))
_method(np.ndarray.T, _transpose, "a, axes=None", "T", attribute=True)
if hasattr(np.ndarray, "mT"):
    _method(np.ndarray.mT, _mT, "x", "mT", attribute=True)
_method(np.ndarray.swapaxes, _swapaxes, "a, axis1, axis2", "swapaxes")
_method(np.ndarray.squeeze, _squeeze, "a, axis=None", "squeeze")
_method(np.ndarray.diagonal, _diagonal, "a, offset=0, axis1=0, axis2=1", "diagonal")
_method(np.ndarray.repeat, _repeat, "a, repeats, axis=None", "repeat")
_method(np.ndarray.take, _take, "a, indices, axis=None, out=None, mode='raise'", "take")
_method(np.ndarray.copy, _copy, "a, order='C'", "copy")
_conj = defrule(np.ndarray.conj, "x", name="np.ndarray.conj",
                vjp=dict(x="np.conjugate(g)"), jvp=dict(x="np.conjugate(dx)"))
defmethod("conj", np.ndarray.conj)
_method(np.ndarray.conjugate, _conj, "x", "conjugate")
# x.tolist(): a (nested) list of the values, which carry their gradient
defrule(np.ndarray.tolist, "a", name="np.ndarray.tolist", vjp=dict(a="tolist_grad(g, a)"),
        jvp=dict(a="np.asarray(da).tolist()"))
defmethod("tolist", np.ndarray.tolist)
defrule(np.ndarray.astype, "a, dtype, order='K', casting='unsafe', subok=True, copy=True",
        name="np.ndarray.astype", vjp=dict(a="cast_like(g, a)"), jvp=dict(a="cast_like(da, ans)"),
        torch_name="ToCopyBackward0")
defmethod("astype", np.ndarray.astype)

# ---------------------------------------------------------------------------------------
# No gradient: piecewise constant, integer- or boolean-valued, or independent of values.
# Left out on purpose, because their values can carry a gradient (so a call must get a
# rule or an error, never a silent zero): np.unique, np.random.choice / permutation
# (of an array), np.histogram (weights=), np.bincount (weights=).
# ---------------------------------------------------------------------------------------
defnograd(
    np.sign, np.signbit, np.heaviside, np.floor, np.ceil, np.trunc, np.rint, np.round,
    np.around, np.fix, np.floor_divide,
    np.argmax, np.argmin, np.argsort, np.nonzero, np.flatnonzero, np.argwhere,
    np.searchsorted, np.digitize, np.count_nonzero,
    np.isnan, np.isinf, np.isfinite, np.isposinf, np.isneginf, np.isreal, np.iscomplex,
    np.equal, np.not_equal, np.greater, np.greater_equal, np.less, np.less_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift,
    np.gcd, np.lcm,
    np.allclose, np.isclose, np.array_equal, np.array_equiv, np.all, np.any,
    np.zeros_like, np.ones_like, np.empty_like, np.zeros, np.ones, np.empty, np.eye,
    np.identity, np.tri, np.arange, np.indices, np.diag_indices, np.tril_indices,
    np.triu_indices, np.unravel_index, np.ravel_multi_index,
    np.shape, np.ndim, np.size, np.result_type, np.can_cast, np.promote_types, np.min_scalar_type,
    np.issubdtype, np.isscalar, np.iscomplexobj, np.isrealobj, np.broadcast_shapes,
    np.finfo, np.iinfo, np.dtype,
    np.random.seed, np.random.rand, np.random.randn, np.random.randint, np.random.random,
    np.random.random_sample, np.random.normal, np.random.uniform, np.random.standard_normal,
    np.random.shuffle, np.random.binomial,
    np.random.poisson, np.random.exponential, np.random.default_rng,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.argsort, np.ndarray.nonzero,
    np.ndarray.all, np.ndarray.any, np.ndarray.round, np.ndarray.item,
    np.ndarray.shape, np.ndarray.ndim, np.ndarray.size, np.ndarray.dtype,
)
for _name in ("argmax", "argmin", "argsort", "nonzero", "all", "any", "round", "item"):
    defmethod(_name, getattr(np.ndarray, _name))
for _name in ("shape", "ndim", "size", "dtype"):
    defmethod(_name, getattr(np.ndarray, _name), attribute=True)


# ---------------------------------------------------------------------------------------
# Derivatives of this table's helpers: generated gradient code calls them, so grad of
# grad (and jvp of grad) needs their rules too.  (rules/runtime_rules.py, imported
# after this module, holds the runtime's own helpers and may override an entry here.)
# The first parameter ``t`` is the cotangent the helper maps; ``g`` in a template is
# the cotangent of the helper's result.
# ---------------------------------------------------------------------------------------
from . import helpers as _hp  # noqa: E402


def _helper_rule(func, params, vjp, jvp):
    return defrule(func, params, name=f"ad.{func.__name__}", vjp=vjp, jvp=jvp)


def _bilinear_helper(func, rest, f_a, f_b):
    """``func(t, a, b, <rest>, which)``: the cotangent of ``a`` (which=0) or ``b`` (1) of
    a bilinear ``f(a, b)``.  ``f_a`` / ``f_b``: ``f(g, b)`` / ``f(a, g)`` as templates.
    Linear in ``t``; linear in the operand it does not differentiate, constant in the
    other: its transpose in ``t`` is ``f``, and its derivative in an operand is the
    other adjoint of ``f``."""
    name = func.__name__
    r = "".join(f", {p.split('=')[0].strip()}" for p in rest.split(",") if p.strip())
    params = f"t, a, b{', ' + rest if rest else ''}, which=0"
    _helper_rule(func, params,
                 vjp=dict(t=f"({f_a}) if which == 0 else ({f_b})",
                          a=f"zeros_like(a) if which == 0 else {name}(t, a, g{r}, 0)",
                          b=f"{name}(t, g, b{r}, 1) if which == 0 else zeros_like(b)"),
                 jvp=dict(t=f"{name}(dt, a, b{r}, which)",
                          a=f"zeros_like(ans) if which == 0 else {name}(t, da, b{r}, 1)",
                          b=f"{name}(t, a, db{r}, 0) if which == 0 else zeros_like(ans)"))


_bilinear_helper(_hp.outer_grad, "", "np.outer(g, b)", "np.outer(a, g)")
_bilinear_helper(_hp.inner_grad, "", "np.inner(g, b)", "np.inner(a, g)")
_bilinear_helper(_hp.kron_grad, "", "np.kron(g, b)", "np.kron(a, g)")
_bilinear_helper(_hp.tensordot_grad, "axes=2", "np.tensordot(g, b, axes)",
                 "np.tensordot(a, g, axes)")
_bilinear_helper(_hp.cross_grad, "axisa=-1, axisb=-1, axisc=-1, axis=None",
                 "np.cross(g, b, axisa, axisb, axisc, axis)",
                 "np.cross(a, g, axisa, axisb, axisc, axis)")
_bilinear_helper(_hp.convolve_grad, "mode='full'", "np.convolve(g, b, mode)",
                 "np.convolve(a, g, mode)")
_bilinear_helper(_hp.correlate_grad, "mode='valid'", "np.correlate(g, b, mode)",
                 "np.correlate(a, g, mode)")
if hasattr(np, "matvec"):
    _bilinear_helper(_hp.matvec_grad, "", "np.matvec(g, b)", "np.matvec(a, g)")
    _bilinear_helper(_hp.vecmat_grad, "", "np.vecmat(g, b)", "np.vecmat(a, g)")
# vecdot_grad(t, x, y, axis): the cotangent of x (y's is vecdot_grad(t, y, x, axis))
_helper_rule(_hp.vecdot_grad, "t, x, y, axis=-1",
             vjp=dict(t="np.vecdot(g, y, axis=axis)", x="zeros_like(x)",
                      y="vecdot_grad(t, y, g, axis)"),
             jvp=dict(t="vecdot_grad(dt, x, y, axis)", x="zeros_like(ans)",
                      y="vecdot_grad(t, x, dy, axis)"))
_helper_rule(_hp.einsum_grad, "t, operands",
             vjp=dict(t="einsum_grad_t(g, t, operands)",
                      operands="einsum_grad_operands(g, t, operands)"),
             jvp=dict(t="einsum_grad(dt, operands)",
                      operands="einsum_grad_doperands(doperands, t, operands)"))
# values gathered into / read out of containers (linear; the container is structure)
_helper_rule(_hp.array_grad, "t, obj",
             vjp=dict(t="np.reshape(array_jvp(g, obj), np.shape(t))", obj="zeros_like(obj)"),
             jvp=dict(t="array_grad(dt, obj)", obj="zeros_like(ans)"))
_helper_rule(_hp.array_jvp, "t, obj, dtype=None, ndmin=0",
             vjp=dict(t="array_grad(g, obj)", obj="zeros_like(obj)"),
             jvp=dict(t="array_jvp(dt, obj, dtype, ndmin)", obj="zeros_like(ans)"))
_helper_rule(_hp.seq_sum_grad, "t, iterable",
             vjp=dict(t="fit(seq_sum_jvp(g, iterable), t)", iterable="zeros_like(iterable)"),
             jvp=dict(t="seq_sum_grad(dt, iterable)", iterable="zeros_like(ans)"))
_helper_rule(_hp.seq_sum_jvp, "t, iterable",
             vjp=dict(t="seq_sum_grad(g, iterable)", iterable="zeros_like(iterable)"),
             jvp=dict(t="seq_sum_jvp(dt, iterable)", iterable="zeros_like(ans)"))
_helper_rule(_hp.select_grad, "t, extreme, args",
             vjp=dict(t="select_jvp(g, args, extreme)", extreme="zeros_like(extreme)",
                      args="zeros_like(args)"),
             jvp=dict(t="select_grad(dt, extreme, args)", extreme="zeros_like(ans)",
                      args="zeros_like(ans)"))
_helper_rule(_hp.select_jvp, "t, args, extreme",
             vjp=dict(t="select_grad(g, extreme, args)", args="zeros_like(args)",
                      extreme="zeros_like(extreme)"),
             jvp=dict(t="select_jvp(dt, args, extreme)", args="zeros_like(ans)",
                      extreme="zeros_like(ans)"))
# statistics
_helper_rule(_hp.var_grad, "t, a, axis=None, ddof=0, keepdims=False",
             vjp=dict(t="var_jvp(g, a, axis, ddof, keepdims)",
                      a="var_grad_a(g, t, a, axis, ddof, keepdims)"),
             jvp=dict(t="var_grad(dt, a, axis, ddof, keepdims)",
                      a="var_grad(t, da, axis, ddof, keepdims)"))
_helper_rule(_hp.var_jvp, "t, a, axis=None, ddof=0, keepdims=False",
             vjp=dict(t="var_grad(g, a, axis, ddof, keepdims)",
                      a="var_grad(g, t, axis, ddof, keepdims)"),
             jvp=dict(t="var_jvp(dt, a, axis, ddof, keepdims)",
                      a="var_jvp(t, da, axis, ddof, keepdims)"))
_helper_rule(_hp.prod_partials, "a, axis=None",
             vjp=dict(a="prod_partials_grad(g, a, axis)"),
             jvp=dict(a="prod_partials_grad(da, a, axis)"))
_NORM_REST = "ord=None, axis=None, keepdims=False, vector=False"
_NR = "ord, axis, keepdims, vector"
_helper_rule(_hp.norm_grad, f"t, n, x, {_NORM_REST}",
             vjp=dict(t=f"norm_jvp(g, n, x, {_NR})", n=f"norm_grad_n(g, t, n, x, {_NR})",
                      x=f"norm_grad_x(g, t, n, x, {_NR})"),
             jvp=dict(t=f"norm_grad(dt, n, x, {_NR})", n=f"norm_grad_dn(dn, t, n, x, {_NR})",
                      x=f"norm_grad_x(dx, t, n, x, {_NR})"))
_helper_rule(_hp.norm_jvp, f"t, n, x, {_NORM_REST}",
             vjp=dict(t=f"norm_grad(g, n, x, {_NR})", n=f"norm_grad_n(t, g, n, x, {_NR})",
                      x=f"norm_grad_x(t, g, n, x, {_NR})"),
             jvp=dict(t=f"norm_jvp(dt, n, x, {_NR})", n=f"norm_jvp_n(dn, t, n, x, {_NR})",
                      x=f"norm_jvp_x(dx, t, n, x, {_NR})"))
_helper_rule(_hp.slogdet_grad, "t, a",
             vjp=dict(t="slogdet_grad_t(g, t, a)", a="slogdet_grad_a(g, t, a)"),
             jvp=dict(t="slogdet_grad(dt, a)", a="slogdet_grad_da(da, t, a)"))
_helper_rule(_hp.log_pos, "x", vjp=dict(x="g * (x > 0) / np.where(x > 0, x, 1)"),
             jvp=dict(x="dx * (x > 0) / np.where(x > 0, x, 1)"))
_helper_rule(_hp.linspace_grad, "t, start, stop, num=50, endpoint=True, axis=0, which=0",
             vjp=dict(t="linspace_grad_t(g, t, num, endpoint, axis, which)",
                      start="zeros_like(start)", stop="zeros_like(stop)"),
             jvp=dict(t="linspace_grad(dt, start, stop, num, endpoint, axis, which)",
                      start="zeros_like(ans)", stop="zeros_like(ans)"))
# order statistics: linear in t; the order of a is piecewise constant (no gradient)
_QR = "axis=None, keepdims=False, method='linear', scale=1.0"
_QA = "axis, keepdims, method, scale"
_helper_rule(_hp.quantile_grad, f"t, a, q, {_QR}",
             vjp=dict(t=f"quantile_jvp(g, t, a, q, {_QA})", a="zeros_like(a)",
                      q="no_second_derivative('np.quantile with respect to q')"),
             jvp=dict(t=f"quantile_grad(dt, a, q, {_QA})", a="zeros_like(ans)",
                      q="no_second_derivative('np.quantile with respect to q')"))
_helper_rule(_hp.quantile_jvp, f"t, out, a, q, {_QR}",
             vjp=dict(t=f"quantile_grad(g, a, q, {_QA})", out="zeros_like(out)",
                      a="zeros_like(a)", q="no_second_derivative('np.quantile with respect to q')"),
             jvp=dict(t=f"quantile_jvp(dt, out, a, q, {_QA})", out="zeros_like(ans)",
                      a="zeros_like(ans)", q="no_second_derivative('np.quantile with respect to q')"))
_helper_rule(_hp.permuted_grad, "t, out, a, axis=-1",
             vjp=dict(t="permuted_jvp(g, out, a, axis)", out="zeros_like(out)", a="zeros_like(a)"),
             jvp=dict(t="permuted_grad(dt, out, a, axis)", out="zeros_like(ans)",
                      a="zeros_like(ans)"))
_helper_rule(_hp.permuted_jvp, "t, out, a, axis=-1",
             vjp=dict(t="permuted_grad(g, out, a, axis)", out="zeros_like(out)", a="zeros_like(a)"),
             jvp=dict(t="permuted_jvp(dt, out, a, axis)", out="zeros_like(ans)",
                      a="zeros_like(ans)"))
# linear maps of t whose other arguments give only shapes, indices or masks
for _f, _params, _vjp, _jvp in (
        (_hp.rollaxis_grad, "t, a, axis, start=0", "np.rollaxis(g, axis, start)",
         "rollaxis_grad(dt, a, axis, start)"),
        (_hp.diagflat_grad, "t, v, k=0", "np.diagflat(g, k)", "diagflat_grad(dt, v, k)"),
        (_hp.compress_grad, "t, condition, a, axis=None", "np.compress(condition, g, axis)",
         "compress_grad(dt, condition, a, axis)"),
        (_hp.extract_grad, "t, condition, arr", "np.extract(condition, g)",
         "extract_grad(dt, condition, arr)"),
        (_hp.tolist_grad, "t, a", "np.asarray(g).tolist()", "tolist_grad(dt, a)"),
        (_hp.cumulative_trim, "t, x, axis=None, include_initial=False",
         "cumulative_pad(g, axis, include_initial)", "cumulative_trim(dt, x, axis, include_initial)"),
        (_hp.cumulative_pad, "t, axis=None, include_initial=False",
         "cumulative_trim(g, t, axis, include_initial)", "cumulative_pad(dt, axis, include_initial)"),
        (_hp.meshgrid_grad, "t, xi, sparse=False, indexing='xy'",
         "meshgrid_jvp(g, xi, sparse, indexing)", "meshgrid_grad(dt, xi, sparse, indexing)"),
        (_hp.meshgrid_jvp, "t, xi, sparse=False, indexing='xy'",
         "meshgrid_grad(g, xi, sparse, indexing)", "meshgrid_jvp(dt, xi, sparse, indexing)"),
        (_hp.npselect_grad, "t, condlist, choicelist", "npselect_jvp(g, t, condlist, choicelist)",
         "npselect_grad(dt, condlist, choicelist)"),
        (_hp.npselect_jvp, "t, out, condlist, choicelist", "npselect_grad(g, condlist, choicelist)",
         "npselect_jvp(dt, out, condlist, choicelist)"),
        (_hp.npselect_default_grad, "t, condlist, default", "npselect_default_jvp(g, t, condlist)",
         "npselect_default_grad(dt, condlist, default)"),
        (_hp.npselect_default_jvp, "t, out, condlist", "npselect_default_grad(g, condlist, t)",
         "npselect_default_jvp(dt, out, condlist)")):
    _names = [p.split("=")[0].strip() for p in _params.split(",")]
    _zero = {p: f"zeros_like({p})" for p in _names[1:]
             if p in ("a", "v", "arr", "x", "xi", "choicelist", "default", "out")}
    _helper_rule(_f, _params, vjp=dict(t=_vjp, **_zero),
                 jvp=dict(t=_jvp, **{p: "zeros_like(ans)" for p in _zero}))
