"""Derivatives of Python's builtins.

Containers (``list``, ``tuple``, ``dict``, ``zip``, ``enumerate``) are the
compiler's business, not the table's.  ``sum``/``max``/``min`` over an iterable
return one cotangent per item (a list for a list, a tuple for a tuple; an array
for an ndarray, which Python iterates along axis 0).
"""
import builtins

from .table import defnograd, defrule

defrule(builtins.abs, "x", torch_name="AbsBackward0",
        vjp=dict(x="g * np.sign(x)"), jvp=dict(x="dx * np.sign(x)"))
defrule(builtins.float, "x=0.0",
        vjp=dict(x="unbroadcast(g, x)"), jvp=dict(x="float(dx)"))
defrule(builtins.pow, "base, exp, mod=None", torch_name="PowBackward0",
        vjp=dict(base="unbroadcast(g * exp * base ** (exp - 1), base)",
                 exp="unbroadcast(g * ans * log_pos(base), exp)"),
        jvp=dict(base="expand(dbase * exp * base ** (exp - 1), ans)",
                 exp="expand(dexp * ans * log_pos(base), ans)"))
defrule(builtins.sum, "iterable, start=0", torch_name="SumBackward0",
        vjp=dict(iterable="seq_sum_grad(g, iterable)", start="unbroadcast(g, start)"),
        jvp=dict(iterable="expand(seq_sum_jvp(diterable, iterable), ans)",
                 start="expand(dstart, ans)"))
# max(a, b, ...) or max(iterable): the gradient goes to the item returned
defrule(builtins.max, "*args, key=None, default=None",
        vjp=dict(args="select_grad(g, ans, args)"), jvp=dict(args="select_jvp(dargs, args, ans)"))
defrule(builtins.min, "*args, key=None, default=None",
        vjp=dict(args="select_grad(g, ans, args)"), jvp=dict(args="select_jvp(dargs, args, ans)"))

defnograd(builtins.len, builtins.range, builtins.int, builtins.bool, builtins.round,
          builtins.isinstance, builtins.issubclass, builtins.print, builtins.str, builtins.repr,
          builtins.type, builtins.id, builtins.hash, builtins.callable, builtins.hasattr,
          builtins.ord, builtins.chr, builtins.format, builtins.any, builtins.all)
