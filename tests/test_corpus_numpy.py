"""A corpus of small NumPy programs, differentiated by the compiler (``sg.grad``).

The kind of coverage other AD libraries' own suites have (scalar ops, systematic
broadcasting, reductions with every axis / keepdims, shapes, indexing, linear
algebra, array methods, the math module, builtins, second derivatives), written
here in our own words as ordinary user code: ``def f(x): return np.sum(...)``.

Every case runs the whole compiler (parse, normalize, activity, reverse, codegen)
and checks, in float64:

* the gradient against central finite differences (``gradcheck_util.numeric_grad``);
* the gradient against HIPS autograd, an independent oracle, where autograd can
  differentiate the same source (the function is re-bound with ``np`` ->
  ``autograd.numpy``; a case autograd cannot run is checked by differences only);
* that the inputs were not changed;
* forward mode on the same corpus: ``sg.jvp`` agrees with ``<sg.grad, t>``.

autograd is used only where it agrees with the finite differences itself (it has a
few known bugs: ``np.where`` and ``np.linalg.norm(keepdims=True)`` do not
un-broadcast); srcgrad must then match it to 1e-7.

Also: second derivatives (``sg.grad(sg.grad(f))``, ``sg.hessian``, ``sg.hvp``), exact
tie-breaking, and functions that must raise (no derivative, in-place changes
through views, unsupported syntax) instead of giving a silent wrong gradient.

Inputs are drawn once (fixed seed) away from kinks, ties and branch cuts.
"""
import copy
import math
import types
import warnings

import numpy as np
import pytest

import srcgrad as sg
from gradcheck_util import assert_close, numeric_grad, same_values

try:                                 # the oracle is optional: tests still run without it
    import autograd
    import autograd.numpy as anp
except ImportError:                  # pragma: no cover
    autograd = anp = None

_rng = np.random.default_rng(1234)


def U(*shape, lo=-1.0, hi=1.0):
    """Uniform float64 values in [lo, hi); ``U()`` is a 0-d array."""
    return np.asarray(_rng.uniform(lo, hi, shape))


def Pos(*shape):
    return U(*shape, lo=0.5, hi=1.5)


def F(lo=-1.0, hi=1.0):
    """A Python float."""
    return float(_rng.uniform(lo, hi))


def SPD(n):
    """A well-conditioned symmetric positive definite matrix."""
    a = U(n, n)
    return a @ a.T + n * np.eye(n)


def Mat(*shape):
    """Well-conditioned square matrices (a stack of them)."""
    n = shape[-1]
    return U(*shape, n) + 3 * np.eye(n)


# ---------------------------------------------------------------------------------------
# The case table
# ---------------------------------------------------------------------------------------
class Case:
    def __init__(self, f, args, wrt=None, rtol=1e-5, atol=1e-6, eps=1e-6, oracle=True,
                 xfail=None, label=""):
        self.f, self.args = f, tuple(args)
        self.wrt = wrt
        self.rtol, self.atol, self.eps = rtol, atol, eps
        self.oracle = oracle
        self.xfail = xfail
        self.label = label

    def id(self):
        def short(v):
            if isinstance(v, np.ndarray):
                return "x".join(map(str, v.shape)) or "0d"
            if isinstance(v, float):
                return "float"
            if isinstance(v, (list, tuple)):
                return "[" + ",".join(short(x) for x in v) + "]"
            return repr(v).replace(" ", "")
        return f"{self.f.__name__}-{self.label or ','.join(short(a) for a in self.args)}"


CASES = []


def case(*argsets, **opts):
    """Decorator: register ``f`` with each argument tuple of ``argsets``."""
    def deco(f):
        for args in argsets:
            CASES.append(Case(f, args if isinstance(args, tuple) else (args,), **opts))
        return f
    return deco


def _is_float_leaf(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (float, np.floating)):
        return True
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _has_float(v):
    if isinstance(v, (list, tuple)):
        return any(_has_float(x) for x in v)
    if isinstance(v, dict):
        return any(_has_float(x) for x in v.values())
    return _is_float_leaf(v)


def _oracle_function(f):
    """``f`` re-bound to ``autograd.numpy``: the module's functions too, so helpers work."""
    ns = dict(f.__globals__)
    ns["np"] = anp
    for k, v in list(ns.items()):
        if isinstance(v, types.FunctionType) and v.__module__ == __name__:
            ns[k] = types.FunctionType(v.__code__, ns, v.__name__, v.__defaults__, v.__closure__)
    return types.FunctionType(f.__code__, ns, f.__name__, f.__defaults__, f.__closure__)


def _oracle_grads(f, args, wrt):
    """autograd's gradients, or None where autograd cannot run this code."""
    if autograd is None:
        return None
    g = _oracle_function(f)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [autograd.grad(g, i)(*copy.deepcopy(args)) for i in wrt]
    except Exception:                   # a function autograd lacks: differences only
        return None


def run_case(c):
    args = c.args
    before = copy.deepcopy(args)
    wrt = c.wrt if c.wrt is not None else tuple(i for i, a in enumerate(args) if _has_float(a))
    got = sg.grad(c.f, wrt=tuple(wrt))(*args)
    assert same_values(args, before), "sg.grad changed its inputs"
    assert isinstance(got, tuple) and len(got) == len(wrt), got
    with np.errstate(all="ignore"):
        expected = [numeric_grad(c.f, args, i, c.eps) for i in wrt]
    got = [_zero_d(g, args[i]) for i, g in zip(wrt, got)]
    for i, g, e in zip(wrt, got, expected):
        assert_close(g, e, f"{c.f.__name__} d/d(arg {i}) vs finite differences", c.rtol, c.atol)
    if c.oracle:
        theirs = _oracle_grads(c.f, args, wrt)
        if theirs is not None:
            for i, g, e, fd in zip(wrt, got, theirs, expected):
                try:                    # autograd itself wrong here (it has known bugs)?
                    e = _plain(e, args[i])
                    assert_close(e, fd, "autograd", c.rtol, c.atol)
                except (AssertionError, TypeError, ValueError):
                    continue
                assert_close(g, e, f"{c.f.__name__} d/d(arg {i}) vs autograd", 1e-7, 1e-9)


def _zero_d(g, x):
    """A numpy float scalar is accepted as the gradient of a 0-d array (ufuncs return
    scalars for 0-d inputs; the value and shape () are what matter)."""
    if isinstance(x, np.ndarray) and x.ndim == 0 and isinstance(g, np.floating):
        return np.asarray(g)
    return g


def _plain(g, x):
    """autograd's gradient in the argument's types (a float for a float, a 0-d array for
    a 0-d array, containers as the argument's)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(gi, xi) for gi, xi in zip(g, x))
    if isinstance(x, dict):
        return {k: _plain(g[k], x[k]) for k in x}
    if isinstance(x, np.ndarray):
        return np.asarray(g, dtype=np.float64)
    if isinstance(x, float):
        return float(g)
    return g


# =======================================================================================
# 1. Scalar (elementwise) functions of one argument, on (), (3,), (2, 3) and a Python float
# =======================================================================================
def _unary_args(lo, hi):
    return (U(lo=lo, hi=hi),), (U(3, lo=lo, hi=hi),), (U(2, 3, lo=lo, hi=hi),), (F(lo, hi),)


def _away_from_zero(*shape):
    x = U(*shape, lo=0.2, hi=1.5)
    return x * np.where(_rng.uniform(size=x.shape) > 0.5, 1, -1)


_NONZERO = ((_away_from_zero(),), (_away_from_zero(4),), (_away_from_zero(2, 3),), (-0.7,))
_ANY = _unary_args(-1.5, 1.5)
_UNIT = _unary_args(-0.9, 0.9)
_POSV = _unary_args(0.3, 2.0)


@case(*_NONZERO)
def u_abs(x): return np.sum(np.abs(x))
@case(*_NONZERO)
def u_absolute(x): return np.sum(np.absolute(x) * x)
@case(*_NONZERO)
def u_fabs(x): return np.sum(np.fabs(x))
@case(*_NONZERO)
def u_builtin_abs(x): return np.sum(abs(x) ** 1.5)
@case(*_ANY)
def u_sin(x): return np.sum(np.sin(x))
@case(*_ANY)
def u_cos(x): return np.sum(np.cos(x))
@case(*_UNIT)
def u_tan(x): return np.sum(np.tan(x))
@case(*_UNIT)
def u_arcsin(x): return np.sum(np.arcsin(x))
@case(*_UNIT)
def u_arccos(x): return np.sum(np.arccos(x))
@case(*_ANY)
def u_arctan(x): return np.sum(np.arctan(x))
@case(*_ANY)
def u_sinh(x): return np.sum(np.sinh(x))
@case(*_ANY)
def u_cosh(x): return np.sum(np.cosh(x))
@case(*_ANY)
def u_tanh(x): return np.sum(np.tanh(x))
@case(*_ANY)
def u_arcsinh(x): return np.sum(np.arcsinh(x))
@case(*_unary_args(1.2, 3.0))
def u_arccosh(x): return np.sum(np.arccosh(x))
@case(*_UNIT)
def u_arctanh(x): return np.sum(np.arctanh(x))
@case(*_ANY)
def u_exp(x): return np.sum(np.exp(x))
@case(*_ANY)
def u_exp2(x): return np.sum(np.exp2(x))
@case(*_ANY)
def u_expm1(x): return np.sum(np.expm1(x))
@case(*_POSV)
def u_log(x): return np.sum(np.log(x))
@case(*_POSV)
def u_log2(x): return np.sum(np.log2(x))
@case(*_POSV)
def u_log10(x): return np.sum(np.log10(x))
@case(*_unary_args(-0.5, 2.0))
def u_log1p(x): return np.sum(np.log1p(x))
@case(*_POSV)
def u_sqrt(x): return np.sum(np.sqrt(x))
@case(*_POSV)
def u_cbrt(x): return np.sum(np.cbrt(x))
@case(*_ANY)
def u_square(x): return np.sum(np.square(x))
@case(*_POSV)
def u_reciprocal(x): return np.sum(np.reciprocal(x))
@case(*_ANY)
def u_negative(x): return np.sum(np.negative(x) * x)
@case(*_ANY)
def u_positive(x): return np.sum(np.positive(x) * x)
@case(*_ANY)
def u_unary_minus(x): return np.sum(-x * np.sin(x))
@case(*_ANY)
def u_rad2deg(x): return np.sum(np.rad2deg(x) ** 2)
@case(*_ANY)
def u_deg2rad(x): return np.sum(np.deg2rad(x) ** 2)
@case(*_ANY)
def u_degrees(x): return np.sum(np.degrees(x) ** 2)
@case(*_ANY)
def u_radians(x): return np.sum(np.radians(x) ** 2)
@case(*_ANY)
def u_sinc(x): return np.sum(np.sinc(x))
@case(*_ANY)
def u_real(x): return np.sum(np.real(x) ** 2)
@case(*_ANY)
def u_conj(x): return np.sum(np.conj(x) * x)
@case(*_ANY)
def u_nan_to_num(x): return np.sum(np.nan_to_num(x) ** 2)
@case(*_ANY)
def u_square_op(x): return np.sum(x ** 2)
@case(*_POSV)
def u_sqrt_op(x): return np.sum(x ** 0.5)
@case(*_POSV)
def u_neg_power(x): return np.sum(x ** -1.5)
@case(*_ANY)
def u_int_power(x): return np.sum(x ** 3)
@case(*_ANY)
def u_rpow(x): return np.sum(2.0 ** x)
@case(*_POSV)
def u_self_power(x): return np.sum(x ** x)
@case(*_POSV)
def u_rdiv(x): return np.sum(1.0 / x)
@case(*_ANY)
def u_sigmoid(x): return np.sum(1.0 / (1.0 + np.exp(-x)))
@case(*_ANY)
def u_softplus(x): return np.sum(np.logaddexp(0.0, x))
@case(*_ANY)
def u_gelu_tanh(x): return np.sum(0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x ** 3))))
@case(*_ANY)
def u_float_power(x): return np.sum(np.float_power(x, 2))


# piecewise constant functions: zero gradient (inputs away from the jumps)
_OFF_INT = ((U(3, lo=0.2, hi=0.8) + np.array([-2.0, 0.0, 1.0]),), (U(2, 3, lo=0.2, hi=0.8),),
            (1.3,))


@case(*_NONZERO)
def z_sign(x): return np.sum(np.sign(x) * 3.0)
@case(*_NONZERO)
def z_sign_times_x(x): return np.sum(np.sign(x) * x)
@case(*_OFF_INT)
def z_floor(x): return np.sum(np.floor(x) + x)
@case(*_OFF_INT)
def z_ceil(x): return np.sum(np.ceil(x) * x)
@case(*_OFF_INT)
def z_round(x): return np.sum(np.round(x) + np.rint(x) + x)
@case(*_OFF_INT)
def z_trunc(x): return np.sum(np.trunc(x) + np.fix(x) + x)
@case(*_OFF_INT)
def z_floordiv(x): return np.sum(x // 0.5 + x)
@case(*_OFF_INT)
def z_heaviside(x): return np.sum(np.heaviside(x - 0.5, 0.5) * x)
@case(*_NONZERO)
def z_comparisons(x): return np.sum((x > 0) * x + (x <= 0) * x ** 2)
@case(*_NONZERO)
def z_signbit(x): return np.sum(np.where(np.signbit(x), -x, x))


# =======================================================================================
# 2. Binary functions, systematically over broadcasting shape pairs (both operands)
# =======================================================================================
SHAPE_PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3)),
               ((2, 1), (1, 3)), ((2, 3), (2, 1)), ((1, 3), (2, 3)), ((4, 2, 3), (2, 3)),
               ((2, 3), (4, 1, 3)), ((4, 2, 1), (3,))]
FLOAT_PAIRS = [("float", (2, 3)), ((3,), "float"), ("float", "float")]


def _operand(shape, lo, hi):
    return F(lo, hi) if shape == "float" else U(*shape, lo=lo, hi=hi)


def binary(xdom, ydom, pairs=SHAPE_PAIRS + FLOAT_PAIRS, **opts):
    argsets = [(_operand(sx, *xdom), _operand(sy, *ydom)) for sx, sy in pairs]
    return case(*argsets, **opts)


_R = (-1.5, 1.5)
_P = (0.5, 2.0)
_MOD_X, _MOD_Y = (2.3, 2.7), (1.0, 1.1)       # x / y stays strictly between 2 and 3


@binary(_R, _R)
def b_add(x, y): return np.sum(np.sin(x + y))
@binary(_R, _R)
def b_np_add(x, y): return np.sum(np.sin(np.add(x, y)))
@binary(_R, _R)
def b_sub(x, y): return np.sum(np.sin(x - y))
@binary(_R, _R)
def b_np_subtract(x, y): return np.sum(np.sin(np.subtract(x, y)))
@binary(_R, _R)
def b_mul(x, y): return np.sum(np.sin(x * y))
@binary(_R, _R)
def b_np_multiply(x, y): return np.sum(np.sin(np.multiply(x, y)))
@binary(_R, _P)
def b_div(x, y): return np.sum(np.sin(x / y))
@binary(_R, _P)
def b_np_divide(x, y): return np.sum(np.sin(np.divide(x, y)))
@binary(_R, _P)
def b_np_true_divide(x, y): return np.sum(np.sin(np.true_divide(x, y)))
@binary(_P, _R)
def b_pow(x, y): return np.sum(np.sin(x ** y))
@binary(_P, _R)
def b_np_power(x, y): return np.sum(np.sin(np.power(x, y)))
@binary(_P, _R)
def b_np_float_power(x, y): return np.sum(np.sin(np.float_power(x, y)))
@binary(_MOD_X, _MOD_Y)
def b_mod(x, y): return np.sum(np.sin(x % y))
@binary(_MOD_X, _MOD_Y)
def b_np_mod(x, y): return np.sum(np.sin(np.mod(x, y)))
@binary(_MOD_X, _MOD_Y)
def b_np_remainder(x, y): return np.sum(np.sin(np.remainder(x, y)))
@binary(_MOD_X, _MOD_Y)
def b_np_fmod(x, y): return np.sum(np.sin(np.fmod(x, y)))
@binary(_P, _P)
def b_hypot(x, y): return np.sum(np.sin(np.hypot(x, y)))
@binary(_R, _P)
def b_arctan2(x, y): return np.sum(np.sin(np.arctan2(x, y)))
@binary(_R, _R)
def b_logaddexp(x, y): return np.sum(np.sin(np.logaddexp(x, y)))
@binary(_R, _R)
def b_logaddexp2(x, y): return np.sum(np.sin(np.logaddexp2(x, y)))
@binary(_R, _R)
def b_maximum(x, y): return np.sum(np.sin(np.maximum(x, y)))
@binary(_R, _R)
def b_minimum(x, y): return np.sum(np.sin(np.minimum(x, y)))
@binary(_R, _R)
def b_fmax(x, y): return np.sum(np.sin(np.fmax(x, y)))
@binary(_R, _R)
def b_fmin(x, y): return np.sum(np.sin(np.fmin(x, y)))
@binary(_P, _R)
def b_copysign(x, y): return np.sum(np.sin(np.copysign(x, y)))
@binary(_R, _R)
def b_where_max(x, y): return np.sum(np.sin(np.where(x > y, x, y)))
@binary(_R, _R)
def b_composite(x, y): return np.sum(np.tanh(x) * y - x / (1.0 + y ** 2))


# un-broadcasting of every operand also for ufuncs of three inputs
@case((U(2, 3), U(3, lo=-1.5, hi=-1.0), U(2, 1, lo=1.0, hi=1.5)),
      (U(4), -0.5, U(1, lo=0.6, hi=0.9)))
def b_clip_arrays(x, lo, hi): return np.sum(np.sin(np.clip(x * 2, lo, hi)))


@case((U(3, 4), U(3, 1), U(4)), (U(4), U(2, 4), F()))
def b_where_three(x, y, z): return np.sum(np.sin(np.where(x > 0, y, z) * x))


# =======================================================================================
# 3. Reductions: every axis (None, int, negative, tuple) with keepdims False / True
# =======================================================================================
AXES = [None, 0, 1, -1, (0, 2), (-1, 0)]
_RED_ARGS = [(U(2, 3, 4), ax, kd) for ax in AXES for kd in (False, True)]
_POS_ARGS = [(Pos(2, 3, 4), ax, kd) for ax in AXES for kd in (False, True)]


def reduction(argsets=_RED_ARGS, **opts):
    return case(*argsets, wrt=(0,), **opts)


@reduction()
def r_sum(x, axis, keepdims): return np.sum(np.sin(np.sum(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_mean(x, axis, keepdims): return np.sum(np.sin(np.mean(x, axis=axis, keepdims=keepdims)))
@reduction(_POS_ARGS)
def r_prod(x, axis, keepdims): return np.sum(np.sin(np.prod(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_max(x, axis, keepdims): return np.sum(np.sin(np.max(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_min(x, axis, keepdims): return np.sum(np.sin(np.min(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_amax(x, axis, keepdims): return np.sum(np.sin(np.amax(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_amin(x, axis, keepdims): return np.sum(np.sin(np.amin(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_ptp(x, axis, keepdims): return np.sum(np.sin(np.ptp(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_var(x, axis, keepdims): return np.sum(np.sin(np.var(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_std(x, axis, keepdims): return np.sum(np.sin(np.std(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_var_ddof(x, axis, keepdims):
    return np.sum(np.sin(np.var(x, axis=axis, ddof=1, keepdims=keepdims)))
@reduction()
def r_std_ddof(x, axis, keepdims):
    return np.sum(np.sin(np.std(x, axis=axis, ddof=1, keepdims=keepdims)))
@reduction()
def r_nansum(x, axis, keepdims):
    return np.sum(np.sin(np.nansum(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_nanmean(x, axis, keepdims):
    return np.sum(np.sin(np.nanmean(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_norm(x, axis, keepdims):
    return np.sum(np.sin(np.linalg.norm(x, axis=axis, keepdims=keepdims)))
@reduction()
def r_method_sum(x, axis, keepdims): return np.sum(np.sin(x.sum(axis=axis, keepdims=keepdims)))
@reduction()
def r_method_mean(x, axis, keepdims): return np.sum(np.sin(x.mean(axis=axis, keepdims=keepdims)))
@reduction(_POS_ARGS)
def r_method_prod(x, axis, keepdims): return np.sum(np.sin(x.prod(axis=axis, keepdims=keepdims)))
@reduction()
def r_method_max(x, axis, keepdims): return np.sum(np.sin(x.max(axis=axis, keepdims=keepdims)))
@reduction()
def r_method_min(x, axis, keepdims): return np.sum(np.sin(x.min(axis=axis, keepdims=keepdims)))
@reduction()
def r_method_var(x, axis, keepdims): return np.sum(np.sin(x.var(axis=axis, keepdims=keepdims)))
@reduction()
def r_method_std(x, axis, keepdims):
    return np.sum(np.sin(x.std(axis=axis, ddof=1, keepdims=keepdims)))


# reductions called positionally and on other ranks
@case(U(5), U(3, 4), U())
def r_sum_all(x): return np.sum(x) * np.mean(x) + np.max(x) - np.min(x)
@case(U(3, 4), U(2, 3, 4))
def r_sum_positional_axis(x): return np.sum(np.sin(np.sum(x, 0)) + np.mean(np.mean(x, -1)))
@case(U(3, 4), U(5))
def r_logsumexp(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))
@case(U(3, 4), U(2, 5))
def r_softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * np.arange(x.shape[1]) ** 2)
@case(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]]), oracle=False)
def r_max_ties(x): return np.sum(np.max(x, axis=1) * np.array([1.0, 2.0]))


# cumulative reductions and differences
_CUM_ARGS = [(U(3, 4), ax) for ax in (None, 0, 1, -1)] + [(U(5), None), (U(2, 3, 2), -2)]


@case(*_CUM_ARGS, wrt=(0,))
def c_cumsum(x, axis): return np.sum(np.sin(np.cumsum(x, axis=axis)))
@case(*[(Pos(*a.shape), ax) for a, ax in _CUM_ARGS], wrt=(0,))
def c_cumprod(x, axis): return np.sum(np.sin(np.cumprod(x, axis=axis)))
@case(*_CUM_ARGS, wrt=(0,))
def c_method_cumsum(x, axis): return np.sum(np.sin(x.cumsum(axis=axis)))
@case(*[(Pos(*a.shape), ax) for a, ax in _CUM_ARGS], wrt=(0,))
def c_method_cumprod(x, axis): return np.sum(np.sin(x.cumprod(axis)))
@case(U(6), U(3, 5))
def c_diff(x): return np.sum(np.sin(np.diff(x))) + np.sum(np.diff(x, n=2) ** 2)
@case(U(4, 3))
def c_diff_axis0(x): return np.sum(np.sin(np.diff(x, axis=0)))


# norms
@case(U(5), U(3, 4))
def n_norm_default(x): return np.linalg.norm(x)
@case(U(5))
def n_norm_vector_ords(x):
    return (np.linalg.norm(x, 1) + np.linalg.norm(x, 2) + np.linalg.norm(x, np.inf)
            + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, ord=3) + np.linalg.norm(x, 0.5))
@case(U(3, 4))
def n_norm_matrix_ords(x):
    return (np.linalg.norm(x, "fro") + np.linalg.norm(x, "nuc") + np.linalg.norm(x, 1)
            + np.linalg.norm(x, np.inf) + np.linalg.norm(x, 2) + np.linalg.norm(x, -2))
@case(U(3, 4), U(2, 3, 4))
def n_norm_axis(x): return np.sum(np.sin(np.linalg.norm(x, axis=-1)))
@case(U(2, 3, 4))
def n_norm_matrix_axes(x): return np.sum(np.linalg.norm(x, ord="fro", axis=(1, 2), keepdims=True))
@case(U(4, 3))
def n_normalize_rows(x): return np.sum(np.sin(x / np.linalg.norm(x, axis=1, keepdims=True)))
@case(U(3))
def n_sqrt_sum_squares(x): return np.sqrt(np.sum(x * x))


# =======================================================================================
# 4. Shapes: reshape, transposes, joins, splits, tiling, flips, diagonals
# =======================================================================================
W = U(4, 6)                      # fixed weights make every output entry count differently


def wsum(y):
    """A weighted sum, so that a permuted or misplaced gradient is caught."""
    return np.sum(np.sin(y) * np.cos(np.arange(np.size(y)).reshape(np.shape(y))))


@case(U(2, 3, 4))
def s_reshape(x): return wsum(np.reshape(x, (6, 4)))
@case(U(2, 3, 4))
def s_reshape_minus1(x): return wsum(np.reshape(x, (-1, 2))) + wsum(x.reshape(4, -1)[:, :2])
@case(U(2, 3, 4))
def s_reshape_order_f(x): return wsum(np.reshape(x, (4, 6), order="F"))
@case(U(3, 4))
def s_method_reshape(x): return wsum(x.reshape(2, 6)) + wsum(x.reshape((6, 2))) + wsum(x.reshape(-1))
@case(U(2, 3, 4))
def s_transpose(x): return wsum(np.transpose(x)) + wsum(np.transpose(x, (1, 2, 0)))
@case(U(2, 3, 4))
def s_transpose_negative(x): return wsum(np.transpose(x, axes=(-1, 0, 1)))
@case(U(2, 3, 4))
def s_method_transpose(x): return wsum(x.transpose(1, 0, 2)) + wsum(x.transpose((2, 1, 0)))
@case(U(3, 4), U(2, 3, 4), U(3))
def s_T(x): return wsum(x.T)
@case(U(2, 3, 4))
def s_swapaxes(x): return wsum(np.swapaxes(x, 0, 2)) + wsum(x.swapaxes(-1, 1))
@case(U(2, 3, 4))
def s_moveaxis(x): return wsum(np.moveaxis(x, 0, -1)) + wsum(np.moveaxis(x, (0, 1), (2, 0)))
@case(U(2, 3, 4))
def s_rollaxis(x): return wsum(np.rollaxis(x, 2)) + wsum(np.rollaxis(x, 2, 1))
@case(U(1, 3, 1))
def s_squeeze(x): return wsum(np.squeeze(x)) + wsum(np.squeeze(x, axis=0)) + wsum(x.squeeze(-1))
@case(U(3, 4))
def s_expand_dims(x): return wsum(np.expand_dims(x, 0)) + wsum(np.expand_dims(x, (0, -1)))
@case(U(2, 3))
def s_newaxis(x): return wsum(x[None]) + wsum(x[:, None, :]) + wsum(x[..., np.newaxis])
@case(U(3, 4), U(4, 3).T)
def s_ravel(x): return wsum(np.ravel(x)) + wsum(x.ravel()) + wsum(x.flatten())
@case(U(3, 4))
def s_ravel_order(x): return wsum(np.ravel(x, order="F")) + wsum(x.flatten("F"))
@case(U(3), U(2, 3))
def s_broadcast_to(x): return wsum(np.broadcast_to(x, (4, 2, 3)))
@case(U(3, 1))
def s_broadcast_to_column(x): return wsum(np.broadcast_to(x, (2, 3, 4)))
@case(F(), U())
def s_atleast_1d(x): return wsum(np.atleast_1d(x)) + wsum(np.atleast_2d(x)) + wsum(np.atleast_3d(x))
@case(U(3), U(2, 3))
def s_atleast_nd(x): return wsum(np.atleast_2d(x)) + wsum(np.atleast_3d(x))
@case(((U(2, 3), U(4, 3)),))
def s_concatenate(xy): return wsum(np.concatenate(xy)) + wsum(np.concatenate([xy[1], xy[0]]))
@case((U(2, 3), U(2, 3)))
def s_concatenate_axis(x, y): return wsum(np.concatenate((x, y), axis=1)) + wsum(np.concatenate([x, y], -1))
@case((U(2, 3), U(4)))
def s_concatenate_none(x, y): return wsum(np.concatenate([x, y], axis=None))
@case((U(2, 3), U(2, 3)))
def s_concat(x, y): return wsum(np.concat([x, y], axis=0))
@case((U(2, 3), U(2, 3)))
def s_stack(x, y): return wsum(np.stack([x, y])) + wsum(np.stack((x, y), axis=-1)) + wsum(np.stack([x, y], 1))
@case((U(3), U(2)), (U(2, 3), U(2, 1)))
def s_hstack(x, y): return wsum(np.hstack([x, y]))
@case((U(3), U(3)), (U(2, 3), U(3)))
def s_vstack(x, y): return wsum(np.vstack((x, y)))
@case((U(2, 3), U(2, 3)), (U(3), U(3)))
def s_dstack(x, y): return wsum(np.dstack([x, y]))
@case((U(3), U(3, 2)))
def s_column_stack(x, y): return wsum(np.column_stack([x, y]))
@case((U(2, 3), U(3)))
def s_row_stack_as_vstack(x, y): return wsum(np.vstack([x, y, x]))
@case((U(2, 3), U(2, 2)))
def s_append(x, y): return wsum(np.append(x, y, axis=1)) + wsum(np.append(x, y))
@case((U(4), F()))
def s_concat_scalars(x, a): return wsum(np.concatenate([x, np.array([a, a * 2])]))
@case(U(6), U(4, 3))
def s_split(x):
    a, b = np.split(x, 2)
    return wsum(a) * 2 + wsum(b * b)
@case(U(6, 3))
def s_split_indices(x):
    parts = np.split(x, [1, 4], axis=0)
    return wsum(parts[0]) + 2 * wsum(parts[2]) + np.sum(parts[1] ** 3)
@case(U(7), U(5, 2))
def s_array_split(x):
    a, b, c = np.array_split(x, 3)
    return wsum(a) + 3 * wsum(c)
@case(U(2, 4))
def s_hsplit_vsplit(x):
    a, b = np.hsplit(x, 2)
    c, d = np.vsplit(x, 2)
    return wsum(a * b) + wsum(c - d)
@case(U(2, 2, 4))
def s_dsplit(x):
    a, b = np.dsplit(x, 2)
    return wsum(a) + 2 * wsum(b)
@case(U(3), U(2, 3))
def s_tile(x): return wsum(np.tile(x, 2)) + wsum(np.tile(x, (2, 1)))
@case(U(3), U(2, 3))
def s_repeat(x): return wsum(np.repeat(x, 2)) + wsum(np.repeat(x, 3, axis=0))
@case(U(2, 3))
def s_repeat_counts(x): return wsum(np.repeat(x, [1, 0, 2], axis=1)) + wsum(x.repeat(2))
@case(U(3, 4))
def s_flip(x): return wsum(np.flip(x)) + wsum(np.flip(x, 0)) + wsum(np.fliplr(x)) + wsum(np.flipud(x))
@case(U(3, 4))
def s_flip_slice(x): return wsum(x[::-1]) + wsum(x[:, ::-1]) + wsum(x[::-2, 1::2])
@case(U(3, 4), U(2, 3, 4))
def s_rot90(x): return wsum(np.rot90(x)) + wsum(np.rot90(x, 2)) + wsum(np.rot90(x, -1))
@case(U(5), U(3, 4))
def s_roll(x): return wsum(np.roll(x, 2)) + wsum(np.roll(x, -1, axis=0))
@case(U(3, 4))
def s_roll_axes(x): return wsum(np.roll(x, (1, 2), axis=(0, 1)))
@case(U(3), U(2, 3))
def s_pad(x): return wsum(np.pad(x, 1)) + wsum(np.pad(x, 2, mode="edge"))
@case(U(4))
def s_pad_modes(x):
    return (wsum(np.pad(x, (2, 1), "reflect")) + wsum(np.pad(x, 2, "wrap"))
            + wsum(np.pad(x, 1, "symmetric")) + wsum(np.pad(x, 1, constant_values=0.5)))
@case(U(3))
def s_diag_make(x): return wsum(np.diag(x)) + wsum(np.diag(x, 1)) + wsum(np.diag(x, k=-1))
@case(U(3, 3), U(3, 4))
def s_diag_take(x): return wsum(np.diag(x)) + wsum(np.diag(x, 1))
@case(U(3, 4), U(2, 3, 4))
def s_diagonal(x): return wsum(np.diagonal(x)) + wsum(x.diagonal(1)) + wsum(np.diagonal(x, -1))
@case(U(2, 3, 4))
def s_diagonal_axes(x): return wsum(np.diagonal(x, 0, 1, 2)) + wsum(x.diagonal(axis1=0, axis2=2))
@case(U(3))
def s_diagflat(x): return wsum(np.diagflat(x)) + wsum(np.diagflat(x, 1))
@case(U(3, 3), U(3, 4))
def s_triu_tril(x): return wsum(np.triu(x)) + wsum(np.tril(x)) + wsum(np.triu(x, 1)) + wsum(np.tril(x, -1))
@case(U(3, 3), U(3, 4))
def s_trace(x): return np.trace(x) * 2 + x.trace() ** 2 + np.trace(x, 1)
@case(U(2, 3, 3))
def s_trace_axes(x): return wsum(np.trace(x, axis1=1, axis2=2))
@case(U(5))
def s_sort(x): return wsum(np.sort(x))
@case(U(3, 4))
def s_sort_axis(x): return wsum(np.sort(x, axis=0)) + wsum(np.sort(x)) + wsum(np.sort(x, axis=None))
@case(U(6))
def s_partition(x): return wsum(np.partition(x, 2)[:3]) + np.partition(x, 4)[4]
@case(U(3, 5))
def s_partition_axis(x): return wsum(np.partition(x, 1, axis=1)[:, 1])
@case(U(5), U(3, 4))
def s_argsort_gather(x): return wsum(x[np.argsort(x, axis=None)] if x.ndim == 1 else np.take_along_axis(x, np.argsort(x, axis=1), axis=1))
@case(U(5), U(6))
def s_median(x): return np.median(x) * 3 + np.sum(x)
@case(U(3, 4))
def s_median_axis(x): return wsum(np.median(x, axis=1))
@case(U(4, 3))
def s_meshgrid(x):
    a, b = np.meshgrid(x[0], x[1])
    return wsum(a * b)


# =======================================================================================
# 5. Indexing: ints, slices, steps, None, Ellipsis, fancy with repeats, masks, take
# =======================================================================================
@case(U(5), U(4, 3))
def i_int(x): return np.sum(x[0] * 2 + x[-1] ** 2) + np.sum(x[1])
@case(U(5), U(4, 3))
def i_slice(x): return wsum(x[1:3]) + wsum(x[:-1]) + wsum(x[::2])
@case(U(3, 4))
def i_2d(x): return x[1, 2] + wsum(x[:, ::2]) + wsum(x[1:, 1:3]) + wsum(x[-1, :])
@case(U(2, 3, 4))
def i_ellipsis(x): return wsum(x[..., 1]) + wsum(x[0, ...]) + wsum(x[..., None]) + wsum(x[:, None, 1])
@case(U(5))
def i_fancy_repeats(x): return wsum(x[[0, 0, 3, 1, 3]])
@case(U(5))
def i_fancy_array(x): return wsum(x[np.array([[0, 1], [1, 4]])])
@case(U(4, 3))
def i_fancy_rows(x): return wsum(x[[2, 0, 2]]) + wsum(x[:, [1, 1]])
@case(U(4, 3))
def i_fancy_pairs(x): return wsum(x[[0, 1, 1], [2, 0, 0]]) + wsum(x[1, [0, 2]])
@case(U(4, 3))
def i_fancy_negative(x): return wsum(x[[-1, 0, -1]])
@case(U(2, 3, 4))
def i_fancy_mixed(x): return wsum(x[:, [2, 0, 2], 1:3]) + wsum(x[1, :, [0, 3]])
@case(U(3, 4))
def i_mask(x): return wsum(x[x > 0]) + np.sum(x[x < 0] ** 2)
@case(U(3, 4))
def i_mask_rows(x): return wsum(x[np.array([True, False, True])])
@case(U(3, 4))
def i_mask_where(x): return np.sum(np.where(x > 0, x, 0.1 * x))
@case(U(4, 3))
def i_nested(x): return x[1][2] * x[2][0] + wsum(x[1:][0])
@case(U(5))
def i_take(x): return wsum(np.take(x, [0, 2, 2])) + wsum(x.take([4, 1]))
@case(U(3, 4))
def i_take_axis(x): return wsum(np.take(x, [1, 1, 3], axis=1)) + wsum(np.take(x, 2))
@case(U(3, 4))
def i_take_along_axis(x):
    idx = np.argsort(x, axis=1)[:, :2]
    return wsum(np.take_along_axis(x, idx, axis=1))
@case(U(3, 4))
def i_argmax_index(x): return np.sum(x[np.arange(3), np.argmax(x, axis=1)])
@case(U(4, 3))
def i_compress(x): return wsum(np.compress([True, False, True], x, axis=1))
@case(U(3, 4))
def i_extract(x): return wsum(np.extract(x > 0, x))
@case(U(3, 4))
def i_select(x): return wsum(np.select([x > 0.5, x < -0.5], [x ** 2, x * 3], 0.5 * x))
@case((U(4, 3), U(3)))
def i_setitem(x, v):
    y = np.zeros((5, 3))
    y[1:] = x
    y[0] = v * 2
    return wsum(y)
@case(U(4, 3))
def i_setitem_copy(x):
    y = x.copy()
    y[1, :] = 0.0
    y[:, 2] = y[:, 0] * 3
    return wsum(y)
@case(U(5))
def i_setitem_fancy(x):
    y = np.ones(5)
    y[[0, 2]] = x[:2]
    y[x > 0.5] = 2.0
    return wsum(y * x)
@case(U(4))
def i_augassign_slice(x):
    y = x * 1.0
    y[1:3] += x[:2] ** 2
    y[0] *= 3.0
    return wsum(y)


# =======================================================================================
# 6. Linear algebra
# =======================================================================================
@case((U(4), U(4)), (U(3, 4), U(4)), (U(4), U(4, 2)), (U(3, 4), U(4, 2)), (U(2, 3, 4), U(4)),
      (U(2, 3, 4), U(5, 4, 2)), (F(), U(3)), (U(2, 3), F()), (U(), U(3)))
def l_dot(x, y): return wsum(np.dot(x, y))
@case((U(3, 4), U(4, 2)), (U(4), U(4)))
def l_method_dot(x, y): return wsum(x.dot(y))
@case((U(3, 4), U(4, 2)), (U(4), U(4, 2)), (U(3, 4), U(4)), (U(4), U(4)), (U(2, 3, 4), U(4, 5)),
      (U(2, 1, 3, 4), U(5, 4, 2)), (U(2, 3, 4), U(2, 4, 2)), (U(3, 4), U(2, 4, 2)))
def l_matmul(x, y): return wsum(x @ y)
@case((U(2, 3, 4), U(2, 4, 2)), (U(4), U(3, 4, 2)))
def l_np_matmul(x, y): return wsum(np.matmul(x, y))
@case((U(2, 3, 4), U(3, 4, 5)), (U(3, 4), U(4, 5)))
def l_tensordot(x, y): return wsum(np.tensordot(x, y, axes=1 if x.ndim == 2 else 2))
@case((U(2, 3, 4), U(4, 3, 2)))
def l_tensordot_pairs(x, y): return wsum(np.tensordot(x, y, axes=([1, 2], [1, 0])))
@case((U(3, 4), U(2, 5)))
def l_tensordot_outer(x, y): return wsum(np.tensordot(x, y, 0))
@case((U(2, 3), U(3, 4)))
def l_einsum_matmul(x, y): return wsum(np.einsum("ij,jk->ik", x, y)) + wsum(np.einsum("ij,jk", x, y))
@case(U(3, 3))
def l_einsum_unary(x):
    return (wsum(np.einsum("ii->i", x)) + np.einsum("ii", x) + wsum(np.einsum("ij->ji", x))
            + wsum(np.einsum("ij->j", x)) + np.einsum("ij->", x))
@case((U(3), U(4)))
def l_einsum_outer(x, y): return wsum(np.einsum("i,j->ij", x, y)) + np.einsum("i,i", x, x)
@case((U(2, 2, 3), U(2, 3, 4)))
def l_einsum_batched(x, y): return wsum(np.einsum("bij,bjk->bik", x, y))
@case((U(2, 3, 4), U(4, 2)))
def l_einsum_ellipsis(x, y): return wsum(np.einsum("...ij,...jk->...ik", x, y))
@case((U(2, 3), U(3, 4), U(4, 2)))
def l_einsum_three(x, y, z): return wsum(np.einsum("ij,jk,kl->il", x, y, z))
@case((U(3, 4), U(3, 4)))
def l_einsum_hadamard(x, y): return wsum(np.einsum("ij,ij->ij", x, y)) + np.einsum("ij,ij->", x, y)
@case((U(4), U(4)), (U(2, 4), U(3, 4)), (U(2, 3, 4), U(4)))
def l_inner(x, y): return wsum(np.inner(x, y))
@case((U(3), U(4)), (U(2, 2), U(3)))
def l_outer(x, y): return wsum(np.outer(x, y))
@case((U(2, 3), U(6)), (U(4), U(4)))
def l_vdot(x, y): return np.vdot(x, y) ** 2
@case((U(2, 3), U(2, 2)), (U(3), U(2)))
def l_kron(x, y): return wsum(np.kron(x, y))
@case((U(3), U(3)), (U(4, 3), U(3)), (U(2, 3), U(2, 3)))
def l_cross(x, y): return wsum(np.cross(x, y))
@case(Mat(3), Mat(2, 3))
def l_inv(x): return wsum(np.linalg.inv(x))
@case(Mat(3), Mat(2, 3), Mat(1))
def l_det(x): return np.sum(np.linalg.det(x))
@case(Mat(3), Mat(2, 3))
def l_slogdet(x):
    sign, logdet = np.linalg.slogdet(x)
    return np.sum(sign * logdet)
@case(Mat(3))
def l_log_abs_det(x): return np.log(np.abs(np.linalg.det(x)))
@case((Mat(3), U(3)), (Mat(3), U(3, 2)), (Mat(2, 3), U(2, 3, 1)))
def l_solve(a, b): return wsum(np.linalg.solve(a, b))
@case(U(3, 3), Mat(3))
def l_matrix_power(x): return wsum(np.linalg.matrix_power(x, 3)) + wsum(np.linalg.matrix_power(x, 0))
@case(Mat(3))
def l_matrix_power_negative(x): return wsum(np.linalg.matrix_power(x, -2))
@case((U(2, 3), U(3, 4), U(4, 2)))
def l_multi_dot(x, y, z): return wsum(np.linalg.multi_dot([x, y, z]))
@case(SPD(3), SPD(4))
def l_cholesky(x):
    x = 0.5 * (x + x.T)
    return wsum(np.linalg.cholesky(x))
@case(SPD(3))
def l_eigh_values(x):
    w, v = np.linalg.eigh(x)
    return wsum(w)
@case(SPD(3))
def l_eigvalsh(x): return wsum(np.linalg.eigvalsh(x))
@case(SPD(3))
def l_eigh_vectors(x):
    w, v = np.linalg.eigh(x)
    return np.sum(w * np.abs(v[0]))
@case(U(3, 4), U(4, 3), U(3, 3))
def l_svd_values(x): return wsum(np.linalg.svd(x, compute_uv=False))
@case(U(3, 4), U(4, 3))
def l_svd_full(x):
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    return wsum(s) + np.sum((u * s) @ vt * W[:x.shape[0], :x.shape[1]])
@case(U(3, 4), U(4, 3))
def l_pinv(x): return wsum(np.linalg.pinv(x))
@case(U(4, 3), U(3, 3))
def l_qr(x):
    q, r = np.linalg.qr(x)
    return wsum(r) + np.sum(q * W[:x.shape[0], :x.shape[1]])
@case(U(3, 4))
def l_gram(x): return wsum(x @ x.T) + wsum(x.T.dot(x))
@case((U(4, 3), U(4)))
def l_least_squares(a, b):
    x = np.linalg.solve(a.T @ a, a.T @ b)
    return np.sum((a @ x - b) ** 2)
@case(U(2, 3, 4))
def l_matrix_transpose(x): return wsum(np.matrix_transpose(x) @ x) + wsum(x.mT)
@case((U(2, 3), U(3)))
def l_vecdot(x, y): return wsum(np.vecdot(x, y))


# =======================================================================================
# 7. Array methods and attributes
# =======================================================================================
@case(U(3, 4))
def m_sum_axis(x): return wsum(x.sum(axis=0)) + wsum(x.sum(1)) + x.sum()
@case(U(3, 4))
def m_mean_last(x): return wsum(x.mean(axis=-1)) + x.mean()
@case(U(3, 4))
def m_max_min(x): return x.max() * 2 + x.min() + wsum(x.max(axis=0)) + wsum(x.min(1))
@case(U(3, 4))
def m_clip(x): return wsum(x.clip(-0.5, 0.5)) + wsum(x.clip(0, 1)) + wsum(x.clip(max=0.2))
@case(Pos(3, 4))
def m_prod(x): return x.prod() + wsum(x.prod(axis=1))
@case(U(3, 4))
def m_cumsum(x): return wsum(x.cumsum()) + wsum(x.cumsum(axis=1))
@case(U(3, 4))
def m_var_std(x): return x.var() + x.std() + wsum(x.var(axis=0)) + wsum(x.std(axis=1, ddof=1))
@case(U(1, 3, 1))
def m_squeeze(x): return wsum(x.squeeze())
@case(U(2, 3, 4))
def m_swapaxes_transpose(x): return wsum(x.swapaxes(0, 1)) + wsum(x.transpose(2, 0, 1))
@case(U(3, 3))
def m_trace_diagonal(x): return x.trace() + wsum(x.diagonal())
@case(U(3))
def m_repeat_take(x): return wsum(x.repeat(2)) + wsum(x.take([0, 2]))
@case(U(3, 4))
def m_conj(x): return wsum(x.conj()) + wsum(x.conjugate())
@case(U(3, 4))
def m_astype(x): return wsum(x.astype(np.float64)) + wsum(x.astype(float)) + wsum(x.astype("float64"))
@case(U(3, 4))
def m_copy(x): return wsum(x.copy()) + wsum(np.copy(x))
@case(U(3, 4))
def m_shape_attrs(x): return np.sum(x) * x.shape[0] + x.size * np.sum(x ** 2) + x.ndim * x[0, 0]
@case(U(3, 4))
def m_dtype_attr(x): return np.sum(x.astype(x.dtype) ** 2)
@case(U(3, 4))
def m_T_dot(x): return wsum(x.T.dot(x)) + wsum(x.T @ x)
@case(U(3, 4))
def m_flat_ops(x): return wsum(x.flatten()) + wsum(x.ravel()) + wsum(x.reshape(-1))
@case(U(3, 4))
def m_item(x): return x[0, 0] * x.sum() + float(x[1, 1]) ** 2
@case(U(3, 4))
def m_dot_chain(x): return wsum(x.dot(x.T).dot(x))
@case(U(3, 4))
def m_argmax_select(x): return x.ravel()[x.argmax()] + x.ravel()[x.argmin()]
@case(U(3, 4))
def m_ptp(x): return np.ptp(x) + wsum(np.ptp(x, axis=1))
@case(U(3))
def m_tolist_sum(x): return sum(x.tolist())


# =======================================================================================
# 8. Building arrays from active values; casts
# =======================================================================================
@case((F(), F()))
def a_array_of_scalars(a, b): return wsum(np.array([a, b, a * b]))
@case((F(), F()))
def a_array_2d(a, b): return wsum(np.array([[a, b], [b * b, 1.0]]))
@case((U(3), U(3)))
def a_array_of_arrays(x, y): return wsum(np.array([x, y, x * y]))
@case((U(), U()))
def a_asarray(x, y): return wsum(np.asarray([x, y]))
@case(U(3))
def a_float_of_element(x): return float(x[0]) * x[1] + float(np.sum(x)) ** 2
@case(U(3))
def a_float64(x): return np.float64(x[0]) * 2 + np.sum(np.float64(x) ** 2)
@case((F(), U(3)))
def a_full(a, x): return wsum(np.full((2, 3), a) * x) + wsum(np.full_like(x, a) ** 2)
@case((F(), F()))
def a_linspace(a, b): return wsum(np.linspace(a, b, 5))
@case(U(3))
def a_zeros_plus(x): return wsum(np.zeros(3) + x) + wsum(np.ones_like(x) * x) + wsum(np.zeros_like(x) - x)
@case(U(3))
def a_identity_mix(x): return wsum(np.eye(3) * x) + wsum(np.eye(3) @ x)
@case(U(3))
def a_array_from_loop(x):
    items = []
    for i in range(3):
        items.append(x[i] * i)
    return wsum(np.array(items))
@case(U(2, 3))
def a_stack_rows(x): return wsum(np.array([x[1], x[0]]))


# =======================================================================================
# 9. nan-functions, averages and statistics
# =======================================================================================
_WITH_NAN = U(3, 4)
_WITH_NAN[0, 1] = _WITH_NAN[2, 3] = np.nan


@case(_WITH_NAN, oracle=False)
def nf_nansum(x): return np.nansum(x) + wsum(np.nansum(x, axis=0))
@case(_WITH_NAN, oracle=False)
def nf_nanmean(x): return np.nanmean(x) + wsum(np.nanmean(x, axis=1))
@case(_WITH_NAN, oracle=False)
def nf_nanmax_nanmin(x): return np.nanmax(x) + wsum(np.nanmin(x, axis=1))
@case(_WITH_NAN, oracle=False)
def nf_nanvar_nanstd(x): return np.nanvar(x) + wsum(np.nanstd(x, axis=0))
@case(U(3, 4, lo=0.5, hi=1.5))
def nf_nanprod(x): return np.nanprod(x) + wsum(np.nanprod(x, axis=1))
@case(U(3, 4))
def nf_nancumsum(x): return wsum(np.nancumsum(x, axis=1))
@case(U(3, 4))
def st_average(x): return np.average(x) + wsum(np.average(x, axis=0))
@case((U(3, 4), Pos(4)))
def st_average_weights(x, w): return wsum(np.average(x, axis=1, weights=w))


# =======================================================================================
# 10. The math module and builtins on Python floats
# =======================================================================================
@case(F(), F(-3, 3))
def p_math_trig(x): return math.sin(x) * math.cos(x) + math.tan(x / 2) + math.atan(x)
@case(F(-0.9, 0.9))
def p_math_inverse_trig(x): return math.asin(x) + math.acos(x) * 2 + math.atanh(x)
@case(F())
def p_math_hyperbolic(x): return math.sinh(x) + math.cosh(x) + math.tanh(x) + math.asinh(x)
@case(F(1.2, 3.0))
def p_math_acosh(x): return math.acosh(x)
@case(F(0.5, 2.0))
def p_math_exp_log(x): return math.exp(x) + math.log(x) + math.log(x, 3.0) + math.log2(x) + math.log10(x) + math.log1p(x) + math.expm1(x)
@case(F(0.5, 2.0))
def p_math_sqrt_pow(x): return math.sqrt(x) + math.pow(x, 2.5) + math.pow(2.0, x)
@case(F(), F(-2, 2))
def p_math_erf(x): return math.erf(x) + math.erfc(x) * 2
@case((F(0.2, 1.0), F(0.2, 1.0)))
def p_math_binary(x, y): return math.hypot(x, y) + math.atan2(y, x) + math.pow(x, y)
@case((F(2.3, 2.7), F(1.0, 1.1)))
def p_math_fmod(x, y): return math.fmod(x, y) * 2 + x % y
@case(-0.7, 0.6)
def p_math_fabs(x): return math.fabs(x) * x + math.degrees(x) + math.radians(x)
@case(F(0.5, 2.0))
def p_math_cbrt_exp2(x): return math.cbrt(x) + math.exp2(x)
@case((F(0.2, 1.0), F(0.2, 1.0)))
def p_math_fsum_prod(x, y): return math.fsum([x, y, x * y]) + math.prod([x, y, 2.0])
@case(F(1.3, 1.7))
def p_math_floor_ceil(x): return x * math.floor(x) + math.ceil(x) + math.trunc(x)
@case((F(), F()), (-0.6, 0.9))
def p_builtin_abs_minmax(x, y): return abs(x) * max(x, y) + min(x, y, 0.1) ** 2
@case((F(), F(), F()))
def p_builtin_minmax_list(x, y, z): return max([x, y, z]) - min((x, z)) * 2
@case((F(), F(), F()))
def p_builtin_sum_list(x, y, z): return sum([x, y * y, z ** 3]) + sum((x, y), 1.0)
@case((F(0.5, 2.0), F(-1, 1)))
def p_builtin_pow(x, y): return pow(x, y) + pow(x, 2) + x ** y
@case((U(3), U(3)))
def p_builtin_sum_arrays(x, y): return np.sum(sum([x, y * 2]))
@case(U(4))
def p_builtin_sum_array(x): return sum(x) * 2 + sum(np.sin(x))
@case(F())
def p_float_of_float(x): return float(x) * x + float(2 * x)
@case((F(), F()))
def p_operator_mix(x, y): return (x * y - x / (1 + y * y)) ** 2 + (-x) ** 3 + abs(x - y)
@case(F(0.1, 1.0))
def p_float_and_np(x): return np.sin(x) * math.cos(x) + np.exp(x) * x


# =======================================================================================
# 11. Whole small programs: models, losses, loops
# =======================================================================================
_X, _Y = U(5, 3), (U(5) > 0).astype(float)


@case((U(3), U(), _X, _Y), wrt=(0, 1))
def g_logistic_regression(w, b, x, y):
    z = x @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


@case((U(3, 4), U(4), U(4, 2), U(2), _X), wrt=(0, 1, 2, 3))
def g_mlp(w1, b1, w2, b2, x):
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    return np.sum(out ** 2) / x.shape[0]


@case((U(3, 4), _X, np.array([0, 2, 1, 3, 3])), wrt=(0,))
def g_softmax_cross_entropy(w, x, labels):
    logits = x @ w
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(labels)), labels])


@case((U(4, 4) * 0.5, U(4, 3), U(6, 3)), wrt=(0, 1))
def g_rnn(wh, wx, xs):
    h = np.zeros(4)
    for t in range(xs.shape[0]):
        h = np.tanh(wh @ h + wx @ xs[t])
    return np.sum(h ** 2)


@case((U(2, 4), U(2, 4)))
def g_attention(q, k):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    a = e / e.sum(axis=-1, keepdims=True)
    return wsum(a @ k)


@case((U(3, 5), Pos(5), U(5)))
def g_layer_norm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return wsum((x - mu) / np.sqrt(var + 1e-5) * gamma + beta)


@case((U(6), U(6)))
def g_huber(pred, target):
    r = pred - target
    quad = 0.5 * r ** 2
    lin = 0.5 * (np.abs(r) - 0.25)
    return np.sum(np.where(np.abs(r) < 0.5, quad, lin))


@case((U(4), U(3, 4), Pos(3)), wrt=(1, 2))
def g_gaussian_mixture_loglik(x, means, scales):
    diffs = (x[None, :] - means) / scales[:, None]
    logps = -0.5 * np.sum(diffs ** 2, axis=1) - 4 * np.log(scales)
    m = np.max(logps)
    return m + np.log(np.sum(np.exp(logps - m)))


@case((SPD(3), U(3)))
def g_gaussian_logpdf(cov, x):
    l = np.linalg.cholesky(cov)
    z = np.linalg.solve(l, x)
    return -0.5 * np.dot(z, z) - np.sum(np.log(np.diag(l)))


@case(U(5))
def g_while_newton(x):
    y = x * 1.0
    i = 0
    while i < 3:
        y = y - (y ** 3 - x) / (3 * y ** 2 + 1.0)
        i += 1
    return np.sum(y)


@case((U(4), U()))
def g_branches(x, t):
    if np.sum(x) > 0:
        y = np.sin(x) * t
    else:
        y = np.cos(x) * t
    total = 0.0
    for v in y:
        total = total + v ** 2
    return total


def _helper_poly(x, c):
    return c * x ** 3 - x


@case(U(4))
def g_user_function_call(x): return np.sum(_helper_poly(x, 2.0) * _helper_poly(x[::-1], 0.5))


@case((U(3), U(3)))
def g_dict_and_tuple(x, y):
    params = {"a": x, "b": y * 2}
    pair = (params["a"], params["b"])
    return np.sum(pair[0] * pair[1]) + np.sum(params["a"] ** 2)


@case(((U(3), U(2, 2)),))
def g_tuple_argument(params):
    a, b = params
    return np.sum(a ** 2) + np.sum(np.sin(b))


@case(({"w": U(3), "b": F()},))
def g_dict_argument(p): return np.sum(p["w"] ** 2) * p["b"]


@case(([U(2), U(2), U(2)],))
def g_list_argument(xs):
    total = 0.0
    for x in xs:
        total = total + np.sum(np.exp(x))
    return total


# =======================================================================================
# 14. More of what other corpora exercise: batched linear algebra, order statistics,
#     convolutions, augmented assignment and control flow, ties
# =======================================================================================
@case(np.stack([SPD(3), SPD(3)]))
def l_eigh_batched(x):
    x = 0.5 * (x + np.swapaxes(x, -1, -2))
    w, v = np.linalg.eigh(x)
    return wsum(w) + np.sum(np.abs(v[..., 0, :]))
@case(np.stack([SPD(3), SPD(3)]))
def l_cholesky_batched(x):
    x = 0.5 * (x + np.swapaxes(x, -1, -2))
    return wsum(np.linalg.cholesky(x))
@case((SPD(3), U(3)))
def l_cholesky_reparameterization(cov, eps):
    cov = 0.5 * (cov + cov.T)
    sample = np.linalg.cholesky(cov) @ eps
    return np.sum(sample ** 2)
@case(U(2, 3, 4), U(2, 4, 3))
def l_svd_batched(x):
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    return wsum(s) + np.sum(np.abs(u[..., 0]))
@case(U(3, 3))
def l_svd_square_full(x):
    u, s, vt = np.linalg.svd(x)
    return np.sum(s ** 2) + np.sum(np.abs(vt[0]))
@case(SPD(3))
def l_svd_hermitian(x):
    x = 0.5 * (x + x.T)
    return wsum(np.linalg.svd(x, compute_uv=False, hermitian=True))
@case(Mat(2, 3))
def l_slogdet_batched_sum(x): return np.sum(np.linalg.slogdet(x)[1])
@case(Mat(6).reshape(2, 3, 6))
def l_tensorinv(x): return wsum(np.linalg.tensorinv(x))
@case((U(3, 4), U(4)))
def l_linalg_namespace(x, y):
    return (wsum(np.linalg.matmul(x, y)) + wsum(np.linalg.outer(y, y)) + np.linalg.trace(x[:, :3])
            + wsum(np.linalg.diagonal(x)) + wsum(np.linalg.vecdot(x, y))
            + wsum(np.linalg.matrix_transpose(x)) + wsum(np.linalg.svdvals(x)))
@case((U(5), U(3)))
def l_convolve(a, v): return wsum(np.convolve(a, v)) + wsum(np.convolve(a, v, "same")) + wsum(np.convolve(a, v, "valid"))
@case((U(5), U(3)))
def l_correlate(a, v): return wsum(np.correlate(a, v)) + wsum(np.correlate(a, v, "full"))
@case((U(3), U(4)))
def l_polyval(p, x): return wsum(np.polyval(p, x))
@case(U(3))
def l_polyval_list(x): return wsum(np.polyval([1.5, -2.0, 0.5], x))
@case(U(7))
def o_quantile(x): return np.quantile(x, 0.3) + wsum(np.quantile(x, [0.2, 0.9]))
@case(U(3, 5))
def o_percentile_axis(x): return wsum(np.percentile(x, 40.0, axis=1)) + np.percentile(x, 90.0)
@case((U(6), F(0.1, 0.2)))
def o_quantile_q(x, q): return np.quantile(x, q) * 2
@case(U(3, 4))
def o_quantile_methods(x):
    return (wsum(np.quantile(x, 0.45, axis=1, method="nearest"))
            + np.quantile(x, 0.35, method="lower") + np.quantile(x, 0.55, method="higher")
            + np.quantile(x, 0.3, method="midpoint"))
@case(U(3, 4))
def o_unstack(x):
    a, b, c = np.unstack(x)
    return wsum(a * b) + wsum(c)
@case(U(3, 4))
def o_cumulative(x):
    return (wsum(np.cumulative_sum(x, axis=1)) + wsum(np.cumulative_prod(x + 2.0, axis=0))
            + wsum(np.cumulative_sum(x[0], include_initial=True)))
@case((U(3, 4), np.array([1, -2, 3, 0])), wrt=(0,))
def o_ldexp(x, e): return wsum(np.ldexp(x, e))
@case(U(3, 4))
def o_nancumprod(x): return wsum(np.nancumprod(x + 2.0, axis=1))
@case((np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.5, 3.0])), oracle=False)
def t_maximum_ties(x, y): return np.sum(np.maximum(x, y) * np.arange(1.0, 4.0)) + np.sum(np.minimum(x, y))
@case(F(), U(3))
def c_augmented_assignment(x):
    y = x * 1.0
    y += x ** 2
    y -= 0.5 * x
    y *= np.sin(x)
    y /= 2.0 + x * x
    y **= 2
    return np.sum(y)
@case(U(3), U())
def c_conditional_expression(x):
    y = x * 2 if np.sum(x) > 0 else x * 3
    z = np.where(y > 0, y, -y)
    return np.sum(z * x)
@case(F(-1.5, -0.6), F(-0.4, 0.4), F(0.6, 1.5))
def c_elif_chain(x):
    if x < -0.5:
        y = x ** 3
    elif x < 0.5:
        y = np.sin(x)
    else:
        y = np.exp(x)
    return y * x
@case(U(4))
def c_early_return(x):
    s = np.sum(x)
    if s > 10.0:
        return s
    return np.sum(x ** 2)
@case(U(5))
def c_break_continue(x):
    total = 0.0
    for i in range(5):
        if i == 1:
            continue
        if i == 4:
            break
        total = total + x[i] ** 2 * i
    return total
@case(U(3, 2))
def c_nested_loops(x):
    total = 0.0
    for i in range(3):
        for j in range(2):
            total = total + x[i, j] * x[(i + 1) % 3, j]
    return total
@case(U(3))
def c_enumerate_zip(x):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, x[::-1])):
        total = total + i * a * b
    return total
@case(U(4))
def c_fanout(x):
    y = x[::2]
    return np.sum(y * y) + np.sum(y * x[1::2]) + np.sum(x[1:3] * y)
@case(U(3))
def c_reassign_and_shadow(x):
    x = x * 2
    x = np.sin(x) + x
    return np.sum(x)
@case(U(4))
def c_assert_print(x):
    assert x.shape == (4,)
    y = np.tanh(x)
    return np.sum(y)


# =======================================================================================
# 12. Functions with no derivative: an error, never a silent zero
# =======================================================================================
def e_unique(x): return np.sum(np.unique(x))
def e_masked_r_(x): return np.sum(np.ma.mr_[x, x])   # (np.r_ itself has a rule)
def e_ufunc_reduce(x): return np.add.reduce(x)
def e_ufunc_accumulate(x): return np.sum(np.multiply.accumulate(x))
def e_interp(x): return np.sum(np.interp(x, [0.0, 1.0], [1.0, 3.0]))
def e_eig(x): return np.sum(np.linalg.eigvals(x))
def e_histogram(x): return np.sum(np.histogram(x, bins=3, weights=x)[0])
def e_bincount(x): return np.sum(np.bincount(np.array([0, 1, 1]), weights=x))
def e_random_choice(x): return np.sum(np.random.choice(x, 2))


def e_divmod(x): return np.sum(divmod(x, 0.3)[1])
def e_np_divmod(x): return np.sum(np.divmod(x, 0.3)[1])
def e_modf(x): return np.sum(np.modf(x)[0])
def e_frexp(x): return np.sum(np.frexp(x)[0])
def e_ediff1d(x): return np.sum(np.ediff1d(x) ** 2)
def e_vander(x): return np.sum(np.vander(x))
def e_choose(x): return np.sum(np.choose([0, 1, 0, 1], [x, 2 * x]))
def e_nanmedian(x): return np.nanmedian(x)
def e_cov(x): return np.sum(np.cov(x.reshape(2, 2)))
def e_spacing(x): return np.sum(np.spacing(x) + x)


_NONDIFF = [e_unique, e_masked_r_, e_ufunc_reduce, e_ufunc_accumulate, e_interp, e_eig,
            e_histogram, e_bincount, e_random_choice, e_divmod,
            e_np_divmod, e_modf, e_frexp, e_ediff1d, e_vander, e_choose,
            e_nanmedian, e_cov, e_spacing]


def t_max_ties_axis(x): return np.sum(np.max(x, axis=1) * np.array([1.0, 6.0])) + np.min(x)


def test_ties_share_the_gradient():
    """At a tie of max/min the extremal entries share the cotangent equally (the central
    difference at a three-way tie is not that, so this is checked exactly)."""
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    g = sg.grad(t_max_ties_axis)(x)
    np.testing.assert_allclose(g, [[1.0, 0.5, 0.5], [2.0, 2.0, 2.0]])
    if autograd is not None:
        np.testing.assert_allclose(g, autograd.grad(_oracle_function(t_max_ties_axis))(x))


def u_inplace_sort(x):
    y = x * 2
    y.sort()
    return np.sum(y * np.arange(4))


def u_out_argument(x):
    y = np.zeros(3)
    np.multiply(x, 2, out=y)
    return np.sum(y)


def u_inplace_call_on_view(x):
    y = x * 1.0
    np.fill_diagonal(y[:4].reshape(2, 2), 0.0)     # changes y through a view
    return np.sum(y)


def u_inplace_method_on_slice(x):
    y = x * 1.0
    y[:2].fill(0.0)
    return np.sum(y)


def u_copyto_slice(x):
    y = x * 1.0
    np.copyto(y[1:], 0.5)
    return np.sum(y * y)


def u_setitem_through_view(x):
    y = x * 1.0
    v = y[:2]
    v[0] = 5.0
    return np.sum(y)


_REJECTED = [u_inplace_sort, u_out_argument, u_inplace_call_on_view,
             u_inplace_method_on_slice, u_copyto_slice, u_setitem_through_view]


# =======================================================================================
# 13. Second derivatives: grad of grad (scalar) and Hessians (vector)
# =======================================================================================
SECOND = []


def second(*args, **opts):
    def deco(f):
        for a in args:
            SECOND.append((f, a, opts))
        return f
    return deco


@second(0.7, -1.3)
def h_sin_poly(x): return np.sin(x) * x ** 3
@second(0.4, 1.6)
def h_exp_log(x): return np.exp(-x ** 2) + np.log(1.0 + x * x)
@second(0.3)
def h_tanh(x): return np.tanh(2 * x) / (1 + x ** 2)
@second(0.9)
def h_math(x): return math.sin(x) * math.exp(x) + math.sqrt(x)
@second(0.6)
def h_sigmoid(x): return 1.0 / (1.0 + np.exp(-x))
@second(1.2)
def h_power(x): return x ** x
@second(0.5)
def h_arctan2_hypot(x): return np.arctan2(x, 1.0 + x) + np.hypot(x, 2.0)
@second(0.8)
def h_loop(x):
    y = x
    for _ in range(3):
        y = np.sin(y) + x
    return y
@second(-0.2, 0.7)
def h_branch(x):
    if x > 0:
        return x ** 3
    return -x ** 2
@second(0.6)
def h_array_inside(x):
    v = np.array([x, 2 * x, x * x])
    return np.sum(np.exp(v) * np.arange(3))
@second(0.35)
def h_logsumexp(x):
    z = np.array([x, -x, 2.0 * x])
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


HESSIANS = []


def hessian_case(*args, **opts):
    def deco(f):
        for a in args:
            HESSIANS.append((f, a, opts))
        return f
    return deco


@hessian_case(U(3), U(4))
def H_quartic(x): return np.sum(x ** 4) + np.sum(x) ** 2
@hessian_case(U(3))
def H_softplus_dot(x): return np.sum(np.logaddexp(0.0, x * np.arange(1.0, 4.0)))
@hessian_case(U(4))
def H_matrix_quadratic(x): return x @ (np.outer(x, x) + np.eye(4)) @ x
@hessian_case(U(3))
def H_norm(x): return np.linalg.norm(x + 2.0) ** 3
@hessian_case(U(3))
def H_prod(x): return np.prod(x + 1.5) * np.mean(np.cos(x))
@hessian_case(U(2, 2))
def H_det(x): return np.linalg.det(x + 2 * np.eye(2))
@hessian_case(U(4))
def H_var_std(x): return np.var(x ** 2) + np.std(x, ddof=1)
@hessian_case(U(3))
def H_softmax(x):
    e = np.exp(x - np.max(x))
    return np.sum(e / np.sum(e) * np.arange(3.0))
@hessian_case(U(3))
def H_einsum(x): return np.einsum("i,i,i", x, x, x) + np.einsum("i,j->", x, x ** 2)
@hessian_case(U(3))
def H_tensordot_kron(x): return np.tensordot(x, x ** 2, 1) + np.sum(np.kron(x, x) ** 2)
@hessian_case(U(3))
def H_array_of_items(x): return np.sum(np.array([x[0], x[1] * x[2], x[2] ** 2]) ** 2)
@hessian_case(U(3))
def H_builtins(x): return sum([x[0] ** 2, x[1] * x[2]]) + max(x[0] ** 2, x[1]) * x[2]
@hessian_case(U(4))
def H_shapes(x):
    m = np.reshape(x, (2, 2))
    return np.sum(np.concatenate([m, m.T ** 2]) ** 2) + np.sum(np.roll(np.tile(x, 2), 1) * x[0])
@hessian_case(U(3))
def H_indexing(x): return x[0] * x[1] ** 2 + np.sum(x[[0, 0, 2]] ** 3) + np.sum(x[1:] * x[:-1])
@hessian_case(U(3))
def H_where_clip(x): return np.sum(np.where(x > 0, x ** 3, x ** 2) + np.clip(x, -0.5, 0.5) ** 3)
@hessian_case(U(3))
def H_inv_det(x): return np.sum(np.linalg.inv(np.diag(x + 3.0) + 0.2)) + np.linalg.det(np.outer(x, x) + 2 * np.eye(3))
@hessian_case(U(3))
def H_slogdet(x): return np.linalg.slogdet(np.diag(x + 3.0) + 0.2)[1]
@hessian_case(U(5))
def H_median_sort(x): return np.median(x ** 3) + np.sum(np.sort(x) ** 3 * np.arange(5.0))
@hessian_case(U(3))
def H_linspace(x): return np.sum(np.linspace(x[0], x[1], 4) ** 3)
@hessian_case(U(3))
def H_pnorm(x): return np.linalg.norm(x + 2.0, 3) ** 2 + np.linalg.norm(x, 1) * x[0]
@hessian_case(U(3))
def H_meshgrid(x):
    a, b = np.meshgrid(x, x ** 2)
    return np.sum(a * b ** 2)
@hessian_case(U(3))
def H_setitem_loop(x):
    y = np.zeros(4)
    y[1:] = x ** 2
    total = 0.0
    for v in y:
        total = total + v * v
    return total


# second derivatives through the kernels of cumprod, solve, average, cholesky and svd
# (written in differentiable primitives, differentiated again through their source;
# distinct singular values: the rules divide by their gaps)
@hessian_case(U(3))
def H_cumprod(x): return np.sum(np.cumprod(x + 2))
@hessian_case(U(3))
def H_solve(x): return np.sum(np.linalg.solve(np.diag(x + 2.0) + 0.1, x))
@hessian_case(U(3))
def H_average(x): return np.average(x ** 2, weights=np.array([1.0, 2.0, 3.0]))
@hessian_case(U(3))
def H_cholesky(x): return np.sum(np.linalg.cholesky(np.diag(x + 2.0) + 0.1))
@hessian_case(U(3))
def H_svd(x): return np.sum(np.linalg.svd(np.outer(x, x) + np.diag([1.0, 2.0, 4.0]), compute_uv=False))
# complex values on the way to a real result (rules/numpy/spectral.py)
@hessian_case(U(4))
def H_fft(x): return np.sum(np.abs(np.fft.fft(x * x)) ** 2) + np.sum(np.real(np.fft.fft(x)))
@hessian_case(U(4))
def H_imag(x): return np.sum(np.imag(x * (1 + 2j)) ** 2 + np.imag(x) + x)


# =======================================================================================
# The tests
# =======================================================================================
def _params(cases):
    out = []
    for c in cases:
        marks = [pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else []
        out.append(pytest.param(c, id=c.id(), marks=marks))
    return out


@pytest.mark.parametrize("c", _params(CASES))
def test_grad(c):
    run_case(c)


def test_corpus_is_large():
    assert len({c.f.__name__ for c in CASES}) >= 300 and len(CASES) >= 1000


@pytest.mark.skipif(autograd is None, reason="autograd (the oracle) is not installed")
def test_the_oracle_runs():
    """A corpus checked by an oracle that silently stopped working checks nothing."""
    x = U(3)
    got = _oracle_grads(u_sin, (x,), (0,))
    assert got is not None
    np.testing.assert_allclose(got[0], np.cos(x))


@pytest.mark.parametrize("f", _NONDIFF, ids=lambda f: f.__name__)
def test_no_derivative_is_an_error(f):
    with pytest.raises(sg.NonDifferentiableError):
        sg.grad(f)(U(4, lo=0.1, hi=0.9))


@pytest.mark.parametrize("f", _REJECTED, ids=lambda f: f.__name__)
def test_unsupported_code_is_an_error(f):
    """In-place calls, ``out=`` and comprehensions are refused with a located error."""
    with pytest.raises((sg.NonDifferentiableError, SyntaxError)) as info:
        sg.grad(f)(U(4))
    assert "test_corpus_numpy.py" in str(info.value)


def _central(f, x, eps=1e-5):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("f,x,opts", SECOND, ids=[f"{f.__name__}-{x}" for f, x, _ in SECOND])
def test_grad_of_grad(f, x, opts):
    d1 = sg.grad(f)
    d2 = sg.grad(d1)(x)
    assert np.ndim(d2) == 0
    np.testing.assert_allclose(d2, _central(d1, x), rtol=1e-6, atol=1e-8)
    if autograd is not None:
        try:
            theirs = autograd.grad(autograd.grad(_oracle_function(f)))(x)
        except Exception:
            return
        np.testing.assert_allclose(d2, theirs, rtol=1e-8, atol=1e-10)


def _hessian_params():
    out = []
    for f, x, opts in HESSIANS:
        marks = [pytest.mark.xfail(raises=sg.NonDifferentiableError, reason=opts["xfail"],
                                   strict=True)] if opts.get("xfail") else []
        out.append(pytest.param(f, x, opts, id=f"{f.__name__}-{x.shape}", marks=marks))
    return out


@pytest.mark.parametrize("f,x,opts", _hessian_params())
def test_hessian(f, x, opts):
    h = np.asarray(sg.hessian(f)(x))
    assert h.shape == x.shape * 2
    g = sg.grad(f)
    fd = np.zeros(x.shape * 2)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = 1e-5
        fd[(Ellipsis,) + idx] = (g(x + e) - g(x - e)) / 2e-5
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(h, np.swapaxes(h.reshape(x.size, x.size), 0, 1).reshape(h.shape),
                               rtol=1e-8, atol=1e-10)   # symmetric
    if autograd is not None:
        try:
            theirs = autograd.hessian(_oracle_function(f))(x)
        except Exception:
            return
        np.testing.assert_allclose(h, theirs, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f,x,opts", _hessian_params())
def test_hvp_forward_over_reverse(f, x, opts):
    v = np.cos(np.arange(x.size)).reshape(x.shape)
    hv = np.asarray(sg.hvp(f)(x, v=v))
    h = np.asarray(sg.hessian(f)(x)).reshape(x.size, x.size)
    np.testing.assert_allclose(hv, (h @ v.ravel()).reshape(x.shape), rtol=1e-8, atol=1e-10)


def _tangent_like(x, rng):
    if isinstance(x, (list, tuple)):
        return type(x)(_tangent_like(v, rng) for v in x)
    if isinstance(x, dict):
        return {k: _tangent_like(v, rng) for k, v in x.items()}
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return rng.standard_normal(x.shape)
    if isinstance(x, float):
        return float(rng.standard_normal())
    return None


def _inner(a, b):
    if isinstance(a, (list, tuple)):
        return sum(_inner(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sum(_inner(a[k], b[k]) for k in a)
    if a is None or b is None:
        return 0.0
    return float(np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)))


@pytest.mark.parametrize("c", _params(CASES))
def test_jvp_agrees_with_grad(c):
    """Forward mode over the same corpus: ``jvp(f)(t) == <grad f, t>``."""
    rng = np.random.default_rng(7)
    wrt = c.wrt if c.wrt is not None else tuple(i for i, a in enumerate(c.args) if _has_float(a))
    tangents = tuple(_tangent_like(a, rng) if i in wrt else None for i, a in enumerate(c.args))
    grads = sg.grad(c.f, wrt=tuple(wrt))(*c.args)
    _, t_out = sg.jvp(c.f, c.args, tangents)
    expected = sum(_inner(g, tangents[i]) for g, i in zip(grads, wrt))
    assert np.ndim(t_out) == 0
    np.testing.assert_allclose(float(t_out), expected, rtol=1e-7, atol=1e-9)
