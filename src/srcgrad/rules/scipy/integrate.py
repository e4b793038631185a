"""``scipy.integrate.odeint``: gradients with respect to the initial state ``y0``, the
time points ``t`` and the parameters passed through ``args=``.

Reverse: the adjoint ODE method.  From the last time point back to the first, the
augmented system ``[y, a, a_p]`` is integrated backwards (by ``odeint`` itself, at the
call's tolerances):

    dy/dt = f(y, t, *p),   da/dt = -a^T df/dy,   da_p/dt = -a^T df/dp

where ``a = dL/dy(t)`` gets ``g[i]`` added at each time point; ``a^T df/dy`` and
``a^T df/dp`` are the gradient of ``a . f``, compiled by srcgrad itself.  The time
points: ``dL/dt_i = g_i . f(y_i, t_i)`` for ``i >= 1`` and ``dL/dt_0 = -a(t_0) .
f(y_0, t_0)`` (``a`` without ``g_0``: the first row of the result is ``y0`` itself).

Forward: the tangent ODE ``d(dy)/dt = df/dy dy + df/dp dp`` integrated with ``y``, the
products by :func:`srcgrad.jvp` of ``func``.

The reverse kernel is written in functions with rules (``odeint`` of the augmented system,
``grad`` of ``func``), so the compiler differentiates it again: second derivatives (grad of
grad, Hessians) through ``odeint``.  The forward kernel is not: a forward-mode derivative of
a tangent through ``odeint`` is a located error.
"""
import linecache
import math

import numpy as np
from scipy.integrate import odeint

from ...runtime import cast_like
from ..registry import defnograd, defrule, deftransformable

__all__ = ['odeint_grad', 'odeint_jvp']


def _is_float(v):
    return (isinstance(v, np.ndarray) and v.dtype.kind == "f") or \
        (isinstance(v, (float, np.floating)) and not isinstance(v, bool))


def _call_args(func_args, y, s, tfirst):
    return (s, y) + tuple(func_args) if tfirst else (y, s) + tuple(func_args)


class _Dynamics:
    """The user's ``func`` and its tangents from srcgrad, on flat float64 vectors (the
    forward kernel)."""

    def __init__(self, func, y0, args, tfirst):
        self.func, self.tfirst = func, tfirst
        self.args = tuple(args)
        self.shape = np.shape(y0)
        self.size = int(np.size(y0))
        self.float_args = [i for i, v in enumerate(self.args) if _is_float(v)]
        self.sizes = [int(np.size(self.args[i])) for i in self.float_args]

    def f(self, y, s):
        out = self.func(*_call_args(self.args, np.reshape(y, self.shape), s, self.tfirst))
        return np.ravel(np.asarray(out, dtype=np.float64))

    def jvp(self, y, s, dy, dargs):
        from ...api.higher import jvp
        call = _call_args(self.args, np.reshape(y, self.shape), float(s), self.tfirst)
        tangents = [None] * len(call)
        tangents[1 if self.tfirst else 0] = np.reshape(dy, self.shape)
        for i in self.float_args:
            if dargs is not None and i < len(dargs) and dargs[i] is not None:
                tangents[2 + i] = dargs[i]
        _, dout = jvp(self.func, call, tuple(tangents))
        return np.ravel(np.asarray(dout, dtype=np.float64))


def _options(rtol, atol, full_output):
    """The call's tolerances for the integrations of the derivatives."""
    if full_output:
        from ...errors import NonDifferentiableError
        raise NonDifferentiableError("scipy.integrate.odeint(full_output=True): no "
                                     "derivative; call it without full_output")
    return dict(rtol=rtol, atol=atol)


def _float_positions(args):
    """The positions of the float parameters among ``args`` (the ones with gradients)."""
    return tuple(i for i, v in enumerate(args) if _is_float(v))


def _written_out(src, func):
    """The function that ``src`` defines, calling ``func`` (its one global): a call of
    a known function with a fixed argument list, which the compiler reads and
    differentiates again (a call of a function value through ``*args`` is dispatched at
    run time, and is not)."""
    filename = f"<srcgrad odeint {abs(hash(src))}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    space = {"func": func, "__name__": __name__}
    exec(compile(src, filename, "exec"), space)
    return deftransformable(space[src[4:src.index("(")]])


_RHS = {}      # (func, tfirst, number of args) -> rhs(y, s, args), func(y, s, *args)


def _rhs(func, tfirst, nargs):
    key = (func, tfirst, nargs)
    if key not in _RHS:
        names = [f"p{i}" for i in range(nargs)]
        call = ", ".join((["s", "y"] if tfirst else ["y", "s"]) + names)
        unpack = f"    {', '.join(names)}, = args\n" if names else ""
        if len(_RHS) > 256:
            _RHS.clear()
        _RHS[key] = _written_out(f"def rhs(y, s, args):\n{unpack}    return func({call})\n",
                                 func)
    return _RHS[key]


def _adjoint_system(func, shape, tfirst, floats, nargs):
    """The right-hand side ``[f, -a^T df/dy, -a^T df/dp]`` of the adjoint system at ``z =
    [y, a, a_p]``, called as ``system(z, s, *args)`` (it holds no differentiated value:
    those come in ``args``)."""
    from ...api.gradients import grad       # (the api imports the rules)
    n = math.prod(shape)
    rhs = _rhs(func, tfirst, nargs)

    def pairing(y, s, a, args):         # its gradient: the vector-Jacobian products of f
        return np.sum(a * np.ravel(rhs(y, s, args)))

    def adjoint(z, s, args):
        y = np.reshape(z[:n], shape)
        a = z[n:2 * n]
        vy, vargs = grad(pairing, wrt=(0, 3))(y, s, a, args)
        parts = [np.ravel(rhs(y, s, args)), -np.ravel(vy)]
        for i in floats:
            parts.append(-np.ravel(vargs[i]))
        return np.concatenate(parts)

    deftransformable(pairing, adjoint)
    names = ", ".join(f"p{i}" for i in range(nargs))
    packed = f"({names},)" if nargs else "()"
    return _written_out(f"def system(z, s{', ' if nargs else ''}{names}):\n"
                        f"    return func(z, s, {packed})\n", adjoint)


def _state_sizes(args, floats):
    return [int(np.size(args[i])) for i in floats]


def odeint_grad(g, ans, func, y0, t, args=(), rtol=None, atol=None, tfirst=False,
                full_output=0, which="y0"):
    """Adjoint of ``odeint(func, y0, t, args)`` for ``y0``, ``t`` or ``args`` (``which``).
    Written in functions with rules (``odeint`` itself, ``grad`` of ``func``), so the
    compiler differentiates it again: second derivatives solve the adjoint of this
    adjoint system, with ``func``'s second derivatives."""
    options = _options(rtol, atol, full_output)
    as_list = isinstance(args, list)
    args = tuple(args)
    shape = np.shape(y0)
    n = math.prod(shape)
    floats = _float_positions(args)
    sizes = _state_sizes(args, floats)
    system = _adjoint_system(func, shape, tfirst, floats, len(args))
    count = len(t)
    ys = np.reshape(ans, (count, n))
    gs = np.reshape(g, (count, n))
    a = gs[count - 1]
    ap = np.zeros(sum(sizes))
    gts = []
    for i in range(count - 1, 0, -1):
        f_i = np.ravel(func(*_call_args(args, np.reshape(ys[i], shape), t[i], tfirst)))
        gts.append(np.sum(gs[i] * f_i))
        start = np.concatenate([ys[i], a, ap])
        z = odeint(system, start, np.stack([t[i], t[i - 1]]), args=args, **options)[-1]
        a = z[n:2 * n]
        ap = z[2 * n:]
        if i > 1:
            a = a + gs[i - 1]
    if which == "y0":
        total = a + gs[0] if count > 1 else gs[0]
        return cast_like(np.reshape(total, shape), y0)
    if which == "t":
        if count == 1:
            return cast_like(np.zeros(np.shape(t)), t)
        f_0 = np.ravel(func(*_call_args(args, np.reshape(ys[0], shape), t[0], tfirst)))
        gt = np.stack([-np.sum(a * f_0)] + gts[::-1])
        return cast_like(np.reshape(gt, np.shape(t)), t)
    out = [None] * len(args)
    start = 0
    for i, size in zip(floats, sizes):
        gp = np.reshape(ap[start:start + size], np.shape(args[i]))
        out[i] = float(gp) if isinstance(args[i], float) else cast_like(gp, args[i])
        start = start + size
    return out if as_list else tuple(out)


deftransformable(odeint_grad, _call_args)
defnograd(_float_positions, _state_sizes, _adjoint_system)


def _dtype(x):
    return np.result_type(getattr(x, "dtype", np.float64), np.float32)


def odeint_jvp(ans, func, y0, t, args=(), rtol=None, atol=None, tfirst=False,
               full_output=0, dy0=None, dt=None, dargs=None):
    """Tangent of ``odeint(func, y0, t, args)`` along ``dy0``, ``dt`` and ``dargs``."""
    options = _options(rtol, atol, full_output)
    dyn = _Dynamics(func, y0, args, tfirst)
    ts = np.asarray(t, dtype=np.float64)
    ys = np.reshape(np.asarray(ans, dtype=np.float64), (len(ts), dyn.size))
    n = dyn.size
    d0 = np.zeros(n) if dy0 is None else np.ravel(np.asarray(dy0, dtype=np.float64))
    start = d0.copy()
    if dt is not None:
        dts = np.ravel(np.asarray(dt, dtype=np.float64))
        start = start - dyn.f(ys[0], ts[0]) * dts[0]

    def tangent(z, s):
        y, d = z[:n], z[n:]
        return np.concatenate([dyn.f(y, s), dyn.jvp(y, s, d, dargs)])

    out = odeint(tangent, np.concatenate([ys[0], start]), ts, **options)
    dys = out[:, n:]
    dys[0] = d0                                          # the first row is y0 itself
    if dt is not None:
        for i in range(1, len(ts)):
            dys[i] = dys[i] + dyn.f(ys[i], ts[i]) * dts[i]
    return np.reshape(dys, np.shape(ans)).astype(_dtype(ans), copy=False)


_REST = ("Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, atol=None, "
         "tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, "
         "mxords=5, printmessg=0, tfirst=False")
_A = "func, y0, t, args, rtol, atol, tfirst, full_output"
defrule(odeint, f"func, y0, t, args=(), {_REST}", name="scipy.integrate.odeint",
        sequence="args",
        vjp=dict(y0=f"odeint_grad(g, ans, {_A}, 'y0')", t=f"odeint_grad(g, ans, {_A}, 't')",
                 args=f"odeint_grad(g, ans, {_A}, 'args')"),
        jvp=dict(y0=f"odeint_jvp(ans, {_A}, dy0=dy0)", t=f"odeint_jvp(ans, {_A}, dt=dt)",
                 args=f"odeint_jvp(ans, {_A}, dargs=dargs)"))
