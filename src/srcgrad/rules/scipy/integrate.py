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

Forward: the sensitivity equations, the tangent ODE ``d(dy)/dt = df/dy dy + df/dp dp``
integrated with ``y`` (by ``odeint`` itself), the products by :func:`srcgrad.jvp` of
``func``.  A tangent of ``t_0`` moves the start (``-f(y_0, t_0) dt_0``) and a tangent of
``t_i`` adds ``f(y_i, t_i) dt_i`` to row ``i``.

Both kernels are written in functions with rules (``odeint`` of the augmented or the
tangent system, ``grad`` or ``jvp`` of ``func``), so the compiler differentiates them
again: second derivatives through ``odeint`` in every combination of modes (grad of grad,
Hessians, ``jvp`` of ``jvp``, ``grad`` of ``jvp``).  The tangent system calls ``sg.jvp``
of ``func`` by name, so forward mode goes on to any order for ``y0`` and ``args``; the
adjoint system calls the gradient of ``func`` as a value, and the time points' kernels
call ``func`` as a value: once more only (a third derivative through them is an error).
"""
import linecache
import math

import numpy as np
import scipy.integrate
from scipy.integrate import odeint

from ...runtime import cast_like
from ..numpy.integration import TRAPEZOID
from ..registry import defnograd, defrule, deftransformable

__all__ = ['odeint_grad', 'odeint_time_grad', 'odeint_jvp', 'odeint_time_jvp',
           'quad_limit_grad', 'quad_args_grad', 'quad_limit_jvp', 'quad_args_jvp',
           'quad_refusals']


def _is_float(v):
    return (isinstance(v, np.ndarray) and v.dtype.kind == "f") or \
        (isinstance(v, (float, np.floating)) and not isinstance(v, bool))


def _call_args(func_args, y, s, tfirst):
    return (s, y) + tuple(func_args) if tfirst else (y, s) + tuple(func_args)


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


def _holds_floats(v):
    """Whether the container ``v`` (list, tuple, dict) holds a float array or float."""
    items = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else ()
    return any(_is_float(x) or _holds_floats(x) for x in items)


def _refuse_containers(args, moved=None, name="odeint"):
    """Gradients reach the arrays and floats given directly in ``args=``; one held in a
    container there (``args=(params,)`` with ``params`` a list of ``(W, b)``) is refused
    rather than given a zero gradient.  ``moved``: in forward mode, the positions with a
    tangent (None: every position)."""
    for i, v in enumerate(args):
        if (moved is None or moved[i]) and not _is_float(v) and _holds_floats(v):
            from ...errors import NonDifferentiableError
            raise NonDifferentiableError(
                f"scipy.integrate.{name}: args[{i}] is a {type(v).__name__} holding arrays; "
                f"gradients reach only the arrays and floats given directly in args= "
                f"(pass them one by one, e.g. args=(W1, b1, W2, b2))")


def _written_out(src, func, **space):
    """The function that ``src`` defines, calling ``func`` (a global, with ``space``): a call of
    a known function with a fixed argument list, which the compiler reads and
    differentiates again (a call of a function value through ``*args`` is dispatched at
    run time, and is not)."""
    filename = f"<srcgrad odeint {abs(hash(src))}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    space.update(func=func, __name__=__name__)
    exec(compile(src, filename, "exec"), space)
    return deftransformable(space[src[4:src.index("(")]])


def _jvp_written_out(cache, key, func, kinds, moved, name, lead, primals, dprimals, unpack,
                     result):
    """``cache[key]``, made once: ``def name(*lead, p0, p1, ..., *(dp_i for i in moved))``
    that runs ``unpack`` (source lines), then ``out, dout = jvp(func, (*primals, p0, ...),
    (*dprimals, tangents of p0, ...))`` and returns ``result`` (an expression); a parameter
    not in ``moved`` gets the zero tangent of its kind.  Written out, so the compiler
    differentiates it again (any order); the cache is bounded."""
    from ...api.higher import jvp           # (the api imports the rules)
    if key not in cache:
        names = [f"p{i}" for i in range(len(kinds))]
        # (zero tangents written out, not None: sg.jvp inside differentiated code runs
        # the forward code of every positional parameter of func)
        zero = {"float": "np.zeros_like(p{})", "int": "0", "other": "None"}
        tangents = [f"dp{i}" if i in moved else zero[kind].format(i)
                    for i, kind in enumerate(kinds)]
        params = ", ".join(lead + names + [f"dp{i}" for i in moved])
        src = (f"def {name}({params}):\n{unpack}"
               f"    out, dout = jvp(func, ({', '.join(primals + names)},), "
               f"({', '.join(dprimals + tangents)},))\n"
               f"    return {result}\n")
        if len(cache) > 256:
            cache.clear()
        cache[key] = _written_out(src, func, jvp=jvp, np=np)
    return cache[key]


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
    """Adjoint of ``odeint(func, y0, t, args)`` for ``y0`` or ``args`` (``which``).
    Written in functions with rules (``odeint`` itself, ``grad`` of ``func``), so the
    compiler differentiates it again: second derivatives solve the adjoint of this
    adjoint system, with ``func``'s second derivatives."""
    _options(rtol, atol, full_output)
    as_list = isinstance(args, list)
    args = tuple(args)
    if which != "y0":
        _refuse_containers(args)
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
    for i in range(count - 1, 0, -1):
        start = np.concatenate([ys[i], a, ap])
        z = odeint(system, start, np.stack([t[i], t[i - 1]]), args=args, rtol=rtol,
                   atol=atol)[-1]
        a = z[n:2 * n]
        ap = z[2 * n:]
        if i > 1:
            a = a + gs[i - 1]
    if which == "y0":
        total = a + gs[0] if count > 1 else gs[0]
        return cast_like(np.reshape(total, shape), y0)
    out = [None] * len(args)
    start = 0
    for i, size in zip(floats, sizes):
        gp = np.reshape(ap[start:start + size], np.shape(args[i]))
        out[i] = float(gp) if isinstance(args[i], float) else cast_like(gp, args[i])
        start = start + size
    return out if as_list else tuple(out)


def odeint_time_grad(g, ans, func, y0, t, args=(), rtol=None, atol=None, tfirst=False,
                     full_output=0):
    """Adjoint of ``odeint(func, y0, t, args)`` for ``t``: ``g_i . f(y_i, t_i)`` for ``i >=
    1``, and ``-a(t_0) . f(y_0, t_0)`` with ``a(t_0)`` the adjoint at the start without
    ``g_0`` (``y0``'s gradient minus ``g_0``).  ``func`` is called as a value here, so this
    kernel differentiates once more (second order); a third derivative through the time
    points is an error."""
    args = tuple(args)
    shape = np.shape(y0)
    n = math.prod(shape)
    count = len(t)
    if count == 1:
        return cast_like(np.zeros(np.shape(t)), t)
    rhs = _rhs(func, tfirst, len(args))
    ys = np.reshape(ans, (count, n))
    gs = np.reshape(g, (count, n))
    rates = np.stack([np.ravel(rhs(np.reshape(ys[i], shape), t[i], args))
                      for i in range(count)])
    start = np.ravel(odeint_grad(g, ans, func, y0, t, args, rtol, atol, tfirst, full_output,
                                 "y0")) - gs[0]
    gt = np.concatenate([np.reshape(-np.sum(start * rates[0]), (1,)),
                         np.sum(gs[1:] * rates[1:], axis=1)])
    return cast_like(np.reshape(gt, np.shape(t)), t)


deftransformable(odeint_grad, odeint_time_grad, _call_args)
defnograd(_float_positions, _state_sizes, _adjoint_system, _refuse_containers)


def _moved(args, dargs):
    """The positions of the float parameters among ``args`` that have a tangent."""
    return tuple(i for i in _float_positions(args)
                 if dargs is not None and i < len(dargs) and dargs[i] is not None)


def _kinds(args):
    """What each parameter among ``args`` is: "float" (it may have a tangent), "int" (its
    tangent is 0) or "other"."""
    return tuple("float" if _is_float(v) else
                 "int" if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else
                 "other" for v in args)


_TANGENT = {}  # (func, shape, tfirst, kinds of args, moved) -> system(z, s, ...)


def _tangent_system(func, shape, tfirst, kinds, moved):
    """The right-hand side ``[f, df/dy d + df/dp dp]`` of the sensitivity equations at ``z =
    [y, d]``, called as ``system(z, s, *args, *(dargs[i] for i in moved))``: written out,
    with ``sg.jvp`` of ``func``, so the compiler differentiates it again."""
    n = math.prod(shape)
    unpack = (f"    y = np.reshape(z[:{n}], {shape!r})\n"
              f"    d = np.reshape(z[{n}:], {shape!r})\n")
    order = ["s", "y"] if tfirst else ["y", "s"]
    dorder = ["0.0 * s", "d"] if tfirst else ["d", "0.0 * s"]
    return _jvp_written_out(_TANGENT, (func, shape, tfirst, kinds, moved), func, kinds, moved,
                            "system", ["z", "s"], order, dorder, unpack,
                            "np.concatenate([np.ravel(out), np.ravel(dout)])")


def odeint_jvp(ans, func, y0, t, args=(), rtol=None, atol=None, tfirst=False,
               full_output=0, dy0=None, dargs=None):
    """Tangent of ``odeint(func, y0, t, args)`` along ``dy0`` and ``dargs``.  Written in
    functions with rules (``odeint`` of the sensitivity equations, ``jvp`` of ``func``, a
    call of a known function), so the compiler differentiates it again, to every order."""
    _options(rtol, atol, full_output)
    args = tuple(args)
    if dargs is not None:
        _refuse_containers(args, [i < len(dargs) and dargs[i] is not None
                                  for i in range(len(args))])
    shape = np.shape(y0)
    n = math.prod(shape)
    moved = _moved(args, dargs)
    if dy0 is None and not moved:       # (no tangent: forward code passes None for it)
        return np.zeros_like(ans)
    system = _tangent_system(func, shape, tfirst, _kinds(args), moved)
    count = len(t)
    ys = np.reshape(ans, (count, n))
    d0 = np.zeros(n) if dy0 is None else np.ravel(dy0)
    extra = tuple(dargs[i] for i in moved)
    out = odeint(system, np.concatenate([ys[0], d0]), t, args=args + extra, rtol=rtol,
                 atol=atol)
    rows = [d0] + [out[i, n:] for i in range(1, count)]     # the first row is y0 itself
    return cast_like(np.reshape(np.stack(rows), np.shape(ans)), ans)


def odeint_time_jvp(ans, func, y0, t, args=(), rtol=None, atol=None, tfirst=False,
                    full_output=0, dt=None):
    """Tangent of ``odeint(func, y0, t, args)`` along ``dt``: the solution from the start
    moved by ``-f(y_0, t_0) dt_0``, plus ``f(y_i, t_i) dt_i`` at each time point (row 0:
    the two cancel).  ``func`` is called as a value here, so this kernel differentiates
    once more (second order); a third derivative through the time points is an error."""
    if dt is None:
        return np.zeros_like(ans)
    args = tuple(args)
    shape = np.shape(y0)
    rhs = _rhs(func, tfirst, len(args))
    ys = np.reshape(ans, (len(t), math.prod(shape)))
    rates = np.stack([np.ravel(rhs(np.reshape(ys[i], shape), t[i], args))
                      for i in range(len(t))])
    moved = odeint_jvp(ans, func, y0, t, args, rtol, atol, tfirst, full_output,
                       dy0=np.reshape(-rates[0] * dt[0], shape))
    return moved + cast_like(np.reshape(rates * np.reshape(dt, (-1, 1)), np.shape(ans)), ans)


deftransformable(odeint_jvp, odeint_time_jvp)
defnograd(_moved, _kinds, _tangent_system)


_REST = ("Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, atol=None, "
         "tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, "
         "mxords=5, printmessg=0, tfirst=False")
_A = "func, y0, t, args, rtol, atol, tfirst, full_output"
# a dynamics function that reads a differentiated value from its enclosing scope (a
# closure, a lambda) carries a gradient the adjoint system does not see: refused
_CLOSURE = ("sl_refuse('scipy.integrate.odeint: the dynamics function reads a value being "
            "differentiated from its enclosing scope; pass that value through args=(...) "
            "(the dynamics take it as a parameter)')")
defrule(odeint, f"func, y0, t, args=(), {_REST}", name="scipy.integrate.odeint",
        sequence="args",
        vjp=dict(func=_CLOSURE, y0=f"odeint_grad(g, ans, {_A}, 'y0')",
                 t=f"odeint_time_grad(g, ans, {_A})", args=f"odeint_grad(g, ans, {_A}, 'args')"),
        jvp=dict(func=_CLOSURE, y0=f"odeint_jvp(ans, {_A}, dy0=dy0)",
                 t=f"odeint_time_jvp(ans, {_A}, dt=dt)", args=f"odeint_jvp(ans, {_A}, dargs=dargs)"))
# (SciPy's own trapezoid, the same mathematics as NumPy's)
defrule(scipy.integrate.trapezoid, "y, x=None, dx=1.0, axis=-1",
        name="scipy.integrate.trapezoid", **TRAPEZOID)


# -- scipy.integrate.quad ---------------------------------------------------------------
#
# I(a, b, p) = int_a^b f(x, *p) dx:  dI/db = f(b, *p),  dI/da = -f(a, *p)  (the fundamental
# theorem), and dI/dp = int_a^b df/dp(x, *p) dx (differentiation under the integral), the
# integrand's partials computed by srcgrad itself from the user's function.  The error
# estimate (the second result) is a bound on the quadrature's error, not a smooth function
# of the inputs: its derivative is taken as zero.  Every kernel is written in functions
# with rules (quad itself, grad or jvp of the integrand, the integrand called by name), so
# the compiler differentiates them again (second derivatives).

def _quad_args(args):
    """``args`` as quad reads it (one value that is not a tuple is ``(value,)``), and
    whether it was one value."""
    return (tuple(args), False) if isinstance(args, (tuple, list)) else ((args,), True)


def quad_refusals(full_output, weight, complex_func):
    """quad's calls whose derivatives are not here: refused, not given a wrong one."""
    from ...errors import NonDifferentiableError
    if full_output:
        raise NonDifferentiableError("scipy.integrate.quad(full_output=1): no derivative; "
                                     "call it without full_output")
    if weight is not None:
        raise NonDifferentiableError(f"scipy.integrate.quad(weight={weight!r}): no "
                                     f"derivative; write the weight into the integrand")
    if complex_func:
        raise NonDifferentiableError("scipy.integrate.quad(complex_func=True): no "
                                     "derivative; integrate the real and the imaginary "
                                     "parts as two real integrands")


_INTEGRAND = {}     # (func, number of args) -> integrand(x, args): func(x, *args)


def _integrand(func, nargs):
    key = (func, nargs)
    if key not in _INTEGRAND:
        names = [f"p{i}" for i in range(nargs)]
        unpack = f"    {', '.join(names)}, = args\n" if names else ""
        if len(_INTEGRAND) > 256:
            _INTEGRAND.clear()
        _INTEGRAND[key] = _written_out(
            f"def integrand(x, args):\n{unpack}    return func({', '.join(['x'] + names)})\n",
            func)
    return _INTEGRAND[key]


def _at_limit(x):
    """Whether the limit ``x`` is finite (at an infinite one the integrand vanishes: the
    integral converges)."""
    return bool(np.isfinite(x))


def _cotangent_of_value(g):
    """The cotangent of quad's value among ``g`` (the error estimate's is not used)."""
    if isinstance(g, (tuple, list)) or np.ndim(g) == 1:     # (the pair, as a list or array)
        g = g[0] if len(g) else None
    return 0.0 if g is None else g


def quad_limit_grad(g, func, x, args, sign):
    """Adjoint of ``quad(func, a, b, args)`` for a limit ``x``: ``sign * g * func(x, *args)``
    (``sign``: -1 for ``a``, 1 for ``b``)."""
    if not _at_limit(x):
        return 0.0 * x
    args, _ = _quad_args(args)
    value = _integrand(func, len(args))(x, args)
    return sign * _cotangent_of_value(g) * value


_PARTIAL = {}       # (func, number of args, float positions) -> part(x, j, *args)


def _partial(func, nargs, floats):
    """``part(x, j, *args)``: entry ``j`` of the integrand's gradient with respect to its
    float parameters (flattened, in order), written out so the compiler differentiates it
    again."""
    from ...api.gradients import grad       # (the api imports the rules)
    key = (func, nargs, floats)
    if key not in _PARTIAL:
        integrand = _integrand(func, nargs)

        def partial(x, j, args):
            gs = grad(integrand, wrt=1)(x, args)
            return np.concatenate([np.ravel(gs[i]) for i in floats])[j]

        deftransformable(partial)
        names = ", ".join(f"p{i}" for i in range(nargs))
        if len(_PARTIAL) > 256:
            _PARTIAL.clear()
        _PARTIAL[key] = _written_out(f"def part(x, j, {names}):\n"
                                     f"    return func(x, j, ({names},))\n", partial)
    return _PARTIAL[key]


def quad_args_grad(g, func, a, b, args, epsabs, epsrel, limit, points):
    """Adjoint of ``quad(func, a, b, args)`` for ``args``: ``g`` times the integral of the
    integrand's partial derivative with respect to each float parameter (one quad per
    entry).  A tuple of ``args``'s structure (None for parameters without a gradient)."""
    args, single = _quad_args(args)
    _refuse_containers(args, name="quad")
    floats = _float_positions(args)
    if not floats:
        return None if single else tuple([None] * len(args))
    sizes = _state_sizes(args, floats)
    part = _partial(func, len(args), floats)
    gy = _cotangent_of_value(g)
    flat = [scipy.integrate.quad(part, a, b, args=(j,) + args, epsabs=epsabs, epsrel=epsrel,
                                 limit=limit, points=points)[0] for j in range(sum(sizes))]
    out = [None] * len(args)
    start = 0
    for i, size in zip(floats, sizes):
        piece = np.reshape(np.stack(flat[start:start + size]), np.shape(args[i])) if size \
            else np.zeros(np.shape(args[i]))
        piece = gy * piece
        out[i] = float(piece) if isinstance(args[i], float) else cast_like(piece, args[i])
        start = start + size
    return out[0] if single else tuple(out) if isinstance(args, tuple) else out


deftransformable(quad_limit_grad, quad_args_grad, _cotangent_of_value, _quad_args)
defnograd(quad_refusals, _integrand, _at_limit, _partial)


def quad_limit_jvp(ans, func, x, args, dx, sign):
    """Tangent of ``quad``'s value along a limit's tangent ``dx``: ``sign * func(x, *args)
    dx``; the error estimate's tangent is zero."""
    if dx is None:
        return (0.0, 0.0)
    if not _at_limit(x):
        return (0.0 * dx, 0.0)
    args, _ = _quad_args(args)
    return (sign * _integrand(func, len(args))(x, args) * dx, 0.0)


_QUAD_TANGENT = {}  # (func, kinds of args, moved) -> tangent(x, *args, *dargs moved)


def _quad_tangent(func, kinds, moved):
    """``tangent(x, *args, *(dargs[i] for i in moved))``: the integrand's tangent along the
    parameters' tangents, written out with ``sg.jvp`` of ``func`` (any order)."""
    return _jvp_written_out(_QUAD_TANGENT, (func, kinds, moved), func, kinds, moved,
                            "tangent", ["x"], ["x"], ["0.0 * x"], "", "dout")


def quad_args_jvp(ans, func, a, b, args, epsabs, epsrel, limit, points, dargs):
    """Tangent of ``quad``'s value along the parameters' tangents ``dargs``: the integral of
    the integrand's tangent (one quad)."""
    args, single = _quad_args(args)
    if dargs is not None and single:
        dargs = (dargs,)
    if dargs is not None:
        _refuse_containers(args, [i < len(dargs) and dargs[i] is not None
                                  for i in range(len(args))], name="quad")
    moved = _moved(args, dargs)
    if not moved:
        return (0.0, 0.0)
    tangent = _quad_tangent(func, _kinds(args), moved)
    extra = tuple(dargs[i] for i in moved)
    value = scipy.integrate.quad(tangent, a, b, args=args + extra, epsabs=epsabs,
                                 epsrel=epsrel, limit=limit, points=points)[0]
    return (value, 0.0)


deftransformable(quad_limit_jvp, quad_args_jvp)
defnograd(_quad_tangent)

_Q = "epsabs, epsrel, limit, points"
_QUAD_CLOSURE = ("sl_refuse('scipy.integrate.quad: the integrand reads a value being "
                 "differentiated from its enclosing scope; pass that value through args=(...) "
                 "(the integrand takes it as a parameter)')")
defrule(scipy.integrate.quad,
        "func, a, b, args=(), full_output=0, epsabs=1.49e-08, epsrel=1.49e-08, limit=50, "
        "points=None, weight=None, wvar=None, wopts=None, maxp1=50, limlst=50, "
        "complex_func=False",
        name="scipy.integrate.quad", sequence="args", container=True,
        vjp=dict(func=_QUAD_CLOSURE,
                 a="(quad_refusals(full_output, weight, complex_func), "
                   "quad_limit_grad(g, func, a, args, -1.0))[1]",
                 b="(quad_refusals(full_output, weight, complex_func), "
                   "quad_limit_grad(g, func, b, args, 1.0))[1]",
                 args="(quad_refusals(full_output, weight, complex_func), "
                      f"quad_args_grad(g, func, a, b, args, {_Q}))[1]"),
        jvp=dict(func=_QUAD_CLOSURE,
                 a="(quad_refusals(full_output, weight, complex_func), "
                   "quad_limit_jvp(ans, func, a, args, da, -1.0))[1]",
                 b="(quad_refusals(full_output, weight, complex_func), "
                   "quad_limit_jvp(ans, func, b, args, db, 1.0))[1]",
                 args="(quad_refusals(full_output, weight, complex_func), "
                      f"quad_args_jvp(ans, func, a, b, args, {_Q}, dargs))[1]"))
