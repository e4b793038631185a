"""``scipy.integrate.odeint``: gradients with respect to the initial state ``y0``, the
time points ``t`` and the parameters passed through ``args=``.

Reverse: the adjoint ODE method.  From the last time point back to the first, the
augmented system ``[y, a, a_p]`` is integrated backwards (by ``odeint`` itself, at the
call's tolerances):

    dy/dt = f(y, t, *p),   da/dt = -a^T df/dy,   da_p/dt = -a^T df/dp

where ``a = dL/dy(t)`` gets ``g[i]`` added at each time point; ``a^T df/dy`` and
``a^T df/dp`` are the vector-Jacobian product of the user's ``func``, compiled by
srcgrad itself (:func:`srcgrad.vjp`).  The time points: ``dL/dt_i = g_i . f(y_i, t_i)``
for ``i >= 1`` and ``dL/dt_0 = -a(t_0) . f(y_0, t_0)`` (``a`` without ``g_0``: the first
row of the result is ``y0`` itself).

Forward: the tangent ODE ``d(dy)/dt = df/dy dy + df/dp dp`` integrated with ``y``, the
products by :func:`srcgrad.jvp` of ``func``.

The kernels are not differentiated again: a second derivative through ``odeint`` is a
located error (no derivative rule for the kernel).
"""
import numpy as np
from scipy.integrate import odeint

from ..registry import defrule

__all__ = ['odeint_grad', 'odeint_jvp']


def _is_float(v):
    return (isinstance(v, np.ndarray) and v.dtype.kind == "f") or \
        (isinstance(v, (float, np.floating)) and not isinstance(v, bool))


def _call_args(func_args, y, s, tfirst):
    return (s, y) + tuple(func_args) if tfirst else (y, s) + tuple(func_args)


class _Dynamics:
    """The user's ``func`` with its derivatives from srcgrad, on flat float64 vectors."""

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

    def vjp(self, y, s, a):
        """``(a^T df/dy, [a^T df/dp for each float parameter])`` at ``(y, s)``."""
        from ...api.gradients import vjp
        ypos = 1 if self.tfirst else 0
        wrt = tuple([ypos] + [2 + i for i in self.float_args])
        call = _call_args(self.args, np.reshape(y, self.shape), float(s), self.tfirst)
        out, back = vjp(self.func, *call, wrt=wrt)
        grads = back(np.reshape(a, np.shape(out)))
        grads = grads if isinstance(grads, tuple) else (grads,)
        return (np.ravel(np.asarray(grads[0], dtype=np.float64)),
                [np.ravel(np.asarray(gp, dtype=np.float64)) for gp in grads[1:]])

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


def odeint_grad(g, ans, func, y0, t, args=(), rtol=None, atol=None, tfirst=False,
                full_output=0, which="y0"):
    """Adjoint of ``odeint(func, y0, t, args)`` for ``y0``, ``t`` or ``args`` (``which``)."""
    options = _options(rtol, atol, full_output)
    dyn = _Dynamics(func, y0, args, tfirst)
    ts = np.asarray(t, dtype=np.float64)
    ys = np.reshape(np.asarray(ans, dtype=np.float64), (len(ts), dyn.size))
    gs = np.reshape(np.asarray(g, dtype=np.float64), (len(ts), dyn.size))
    n, npar = dyn.size, sum(dyn.sizes)

    def augmented(z, s):
        y, a = z[:n], z[n:2 * n]
        vy, vp = dyn.vjp(y, s, a)
        return np.concatenate([dyn.f(y, s), -vy] + [-v for v in vp])

    a = gs[-1].copy()
    ap = np.zeros(npar)
    gt = np.zeros(len(ts))
    for i in range(len(ts) - 1, 0, -1):
        gt[i] = gs[i] @ dyn.f(ys[i], ts[i])
        z = odeint(augmented, np.concatenate([ys[i], a, ap]), [ts[i], ts[i - 1]],
                   **options)[-1]
        a, ap = z[n:2 * n], z[2 * n:]
        if i > 1:
            a = a + gs[i - 1]
    if len(ts) > 1:
        gt[0] = -(a @ dyn.f(ys[0], ts[0]))
    if which == "y0":
        total = a + gs[0] if len(ts) > 1 else gs[0]
        return np.reshape(total, np.shape(y0)).astype(_dtype(y0), copy=False)
    if which == "t":
        return np.reshape(gt, np.shape(t)).astype(_dtype(t), copy=False)
    out = [None] * len(dyn.args)
    start = 0
    for i, size in zip(dyn.float_args, dyn.sizes):
        gp = np.reshape(ap[start:start + size], np.shape(dyn.args[i]))
        out[i] = gp.astype(_dtype(dyn.args[i]), copy=False) if np.ndim(gp) else \
            type(dyn.args[i])(gp) if isinstance(dyn.args[i], float) else gp
        start += size
    return tuple(out) if isinstance(args, tuple) else out


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
