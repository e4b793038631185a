"""Derivatives of Python's builtins.

Containers (``list``, ``tuple``, ``dict``, ``zip``, ``enumerate``) are the
compiler's business, not the table's.  ``sum``/``max``/``min`` over an iterable
return one cotangent per item (a list for a list, a tuple for a tuple; an array
for an ndarray, which Python iterates along axis 0).
"""
import builtins
import math

import numpy as np

from ...runtime.backends import array_ns

from ..facets import ALL_PARAMS
from ..registry import defkernel, defnograd, defnograd_methods, defrule, deftransformable
from ..numpy.conventions import _sum_to, _zeros, fill_tangents

__all__ = ['seq_sum_grad', 'seq_sum_jvp', 'seq_prod_grad', 'seq_prod_jvp', 'select_grad', 'select_jvp']


# -- kernels ----------------------------------------------------------------------------

def seq_sum_grad(g, iterable):
    """Adjoint of ``sum(iterable)`` / ``math.fsum``: ``g`` for every item (un-broadcast);
    for an ndarray (summed over axis 0), ``g`` broadcast back."""
    np = array_ns(g, iterable)
    if hasattr(iterable, "shape"):
        return np.broadcast_to(g, iterable.shape)
    grads = [_sum_to(g, x) for x in iterable]
    return tuple(grads) if isinstance(iterable, tuple) else grads


def seq_sum_jvp(diterable, iterable):
    np = array_ns(diterable, iterable)
    if hasattr(iterable, "shape"):
        return np.sum(diterable, axis=0)
    out = 0.0
    for t in fill_tangents(diterable, iterable):
        out = out + t
    return out


def seq_prod_grad(g, iterable, start=1):
    """Adjoint of ``math.prod(iterable, start=start)``: the product of the other factors."""
    items = list(iterable)
    grads = []
    for i in range(len(items)):
        other = start
        for j, x in enumerate(items):
            if j != i:
                other = other * x
        grads.append(g * other)
    return tuple(grads) if isinstance(iterable, tuple) else grads


def seq_prod_jvp(diterable, iterable, start=1):
    out = 0.0
    for d, grad in zip(fill_tangents(diterable, iterable), seq_prod_grad(1.0, iterable, start)):
        out = out + d * grad
    return out


deftransformable(seq_prod_grad, seq_prod_jvp)     # products: differentiated through their source


def _selected(args, ans):
    """``(items, index)``: the argument(s) of ``max``/``min`` and which one was returned."""
    np = array_ns(args, ans)
    items = args[0] if len(args) == 1 else args
    if hasattr(items, "shape"):
        for i in range(len(items)):
            if np.all(items[i] == ans):
                return items, i
    for i, x in enumerate(items):
        if x is ans:
            return items, i
    for i, x in enumerate(items):
        if np.all(x == ans):
            return items, i
    raise ValueError("max/min: the result is none of the arguments")


def select_grad(g, ans, args):
    """Adjoint of builtin ``max(*args)`` / ``min(*args)``: ``g`` to the returned item.

    ``args`` is the bound ``*args`` tuple: several items, or one iterable of items.
    """
    np = array_ns(g, ans, args)
    items, k = _selected(args, ans)
    if hasattr(items, "shape"):
        grad = np.zeros_like(items, dtype=np.result_type(items, np.float32))
        grad[k] = g
        inner = grad
    else:
        inner = [g if i == k else _zeros(x) for i, x in enumerate(items)]
        inner = tuple(inner) if isinstance(items, tuple) else inner
    return (inner,) if len(args) == 1 else tuple(inner)


def select_jvp(dargs, args, ans):
    items, k = _selected(args, ans)
    if len(args) == 1:
        d = dargs[0] if dargs else None
        if d is None:
            return _zeros(ans)
        return d[k]
    d = dargs[k] if dargs else None
    return _zeros(ans) if d is None else d


# -- rules ------------------------------------------------------------------------------



defrule(builtins.abs, "x", torch_name="AbsBackward0",
        vjp=dict(x="g * np.sign(x)"), jvp=dict(x="dx * np.sign(x)"))
defrule(builtins.float, "x=0.0",
        vjp=dict(x="unbroadcast(g, x)"), jvp=dict(x="float(dx)"))
defrule(builtins.pow, "base, exp, mod=None", torch_name="PowBackward0",
        vjp=dict(base="unbroadcast(g * power_deriv(base, exp), base)",
                 exp="unbroadcast(g * ans * log_pos(base), exp)"),
        jvp=dict(base="expand(dbase * power_deriv(base, exp), ans)",
                 exp="expand(dexp * ans * log_pos(base), ans)"))
defrule(builtins.sum, "iterable, start=0", torch_name="SumBackward0",
        vjp=dict(iterable="seq_sum_grad(g, iterable)", start="unbroadcast(g, start)"),
        jvp=dict(iterable="expand(seq_sum_jvp(diterable, iterable), ans)",
                 start="expand(dstart, ans)"))
# max(a, b, ...) or max(iterable): the gradient goes to the item returned, which is that
# argument itself (the same array object: an alias of it)
defrule(builtins.max, "*args, key=None, default=None", view_of="args",
        vjp=dict(args="select_grad(g, ans, args)"), jvp=dict(args="select_jvp(dargs, args, ans)"))
defrule(builtins.min, "*args, key=None, default=None", view_of="args",
        vjp=dict(args="select_grad(g, ans, args)"), jvp=dict(args="select_jvp(dargs, args, ans)"))

defnograd(builtins.range, builtins.int, builtins.bool, builtins.round,
          builtins.issubclass, builtins.print, builtins.str, builtins.repr,
          builtins.id, builtins.hash, builtins.callable,
          builtins.ord, builtins.chr, builtins.format, builtins.any, builtins.all)
defnograd(builtins.len, builtins.isinstance, builtins.type, builtins.hasattr, shape_only=ALL_PARAMS)

defkernel(seq_sum_grad, "t, iterable",
             vjp=dict(t="fit(seq_sum_jvp(g, iterable), t)", iterable="zeros_like(iterable)"),
             jvp=dict(t="seq_sum_grad(dt, iterable)", iterable="zeros_like(ans)"))
defkernel(seq_sum_jvp, "t, iterable",
             vjp=dict(t="seq_sum_grad(g, iterable)", iterable="zeros_like(iterable)"),
             jvp=dict(t="seq_sum_jvp(dt, iterable)", iterable="zeros_like(ans)"))
defkernel(select_grad, "t, extreme, args",
             vjp=dict(t="select_jvp(g, args, extreme)", extreme="zeros_like(extreme)",
                      args="zeros_like(args)"),
             jvp=dict(t="select_grad(dt, extreme, args)", extreme="zeros_like(ans)",
                      args="zeros_like(ans)"))
defkernel(select_jvp, "t, args, extreme",
             vjp=dict(t="select_grad(g, extreme, args)", args="zeros_like(args)",
                      extreme="zeros_like(extreme)"),
             jvp=dict(t="select_jvp(dt, args, extreme)", args="zeros_like(ans)",
                      extreme="zeros_like(ans)"))

# methods of Python's own containers and strings whose result carries no gradient
defnograd_methods("keys", "__len__", "count", "index", "startswith", "format", "split", "join",
                  "upper", "lower")
