"""Python's arithmetic operators, as NumPy ufunc rules.

``x * y`` in user code is differentiated by the rule of ``np.multiply``; the
compiler keeps the operator syntax in generated code.  Every binary rule
un-broadcasts BOTH operands: ``/``, ``**`` and ``@`` included.
"""
import operator

import numpy as np

from .table import defrule

defrule(np.add, "x, y", torch_name="AddBackward0",
        vjp=dict(x="unbroadcast(g, x)", y="unbroadcast(g, y)"),
        jvp=dict(x="expand(dx, ans)", y="expand(dy, ans)"))
defrule(np.subtract, "x, y", torch_name="SubBackward0",
        vjp=dict(x="unbroadcast(g, x)", y="unbroadcast(-g, y)"),
        jvp=dict(x="expand(dx, ans)", y="expand(-dy, ans)"))
defrule(np.multiply, "x, y", torch_name="MulBackward0",
        vjp=dict(x="unbroadcast(g * y, x)", y="unbroadcast(g * x, y)"),
        jvp=dict(x="expand(dx * y, ans)", y="expand(x * dy, ans)"))
defrule(np.true_divide, "x, y", torch_name="DivBackward0",
        vjp=dict(x="unbroadcast(g / y, x)", y="unbroadcast(-g * ans / y, y)"),
        jvp=dict(x="expand(dx / y, ans)", y="expand(-dy * ans / y, ans)"))
defrule(np.power, "x, y", torch_name="PowBackward0",
        vjp=dict(x="unbroadcast(g * y * x ** (y - 1), x)",
                 y="unbroadcast(g * ans * np.log(np.where(x > 0, x, 1)), y)"),
        jvp=dict(x="expand(dx * y * x ** (y - 1), ans)",
                 y="expand(dy * ans * np.log(np.where(x > 0, x, 1)), ans)"))
defrule(np.matmul, "x, y", torch_name="MmBackward0",
        vjp=dict(x="matmul_grad_x(g, x, y)", y="matmul_grad_y(g, x, y)"),
        jvp=dict(x="dx @ y", y="x @ dy"))
defrule(np.negative, "x", torch_name="NegBackward0",
        vjp=dict(x="-g"), jvp=dict(x="-dx"))
defrule(np.positive, "x", torch_name="PosBackward0",
        vjp=dict(x="g"), jvp=dict(x="dx"))
defrule(np.mod, "x, y", torch_name="RemainderBackward0",
        vjp=dict(x="unbroadcast(g, x)", y="unbroadcast(-g * np.floor_divide(x, y), y)"),
        jvp=dict(x="expand(dx, ans)", y="expand(-dy * np.floor_divide(x, y), ans)"))

# operator.* functions (user code may call them) share the ufuncs' rules
for _op, _uf in ((operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
                 (operator.truediv, np.true_divide), (operator.pow, np.power),
                 (operator.matmul, np.matmul), (operator.neg, np.negative),
                 (operator.pos, np.positive), (operator.mod, np.mod)):
    from .table import lookup as _lookup
    _r = _lookup(_uf)
    defrule(_op, _r.params, vjp=_r.vjp, jvp=_r.jvp, torch_name=_r.torch_name,
            name=f"operator.{_op.__name__}")

# AST operator class name -> the ufunc whose rule differentiates it
BINOPS = {"Add": np.add, "Sub": np.subtract, "Mult": np.multiply, "Div": np.true_divide,
          "Pow": np.power, "MatMult": np.matmul, "Mod": np.mod}
UNARYOPS = {"USub": np.negative, "UAdd": np.positive}
# floor division has zero gradient almost everywhere
NOGRAD_BINOPS = {"FloorDiv", "BitAnd", "BitOr", "BitXor", "LShift", "RShift"}
SYMBOLS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "Pow": "**", "MatMult": "@",
           "Mod": "%", "FloorDiv": "//", "USub": "-", "UAdd": "+"}

# x[index]: the adjoint scatters g back (np.add.at semantics: repeated indices add up)
defrule(operator.getitem, "x, index", name="getitem", torch_name="IndexBackward0",
        vjp=dict(x="index_grad(g, x, index)"), jvp=dict(x="dx[index]"))

# loops: ``for v in x`` visits ad.indexable(x) (a dict's keys, a list's or an array's items)
from .. import runtime as _rt  # noqa: E402
defrule(_rt.indexable, "x", name="ad.indexable", vjp=dict(x="indexable_grad(g, x)"),
        jvp=dict(x="dx if not isinstance(x, dict) else zeros_like(ans)"))  # keys: zero tangents
from .table import defnograd as _defnograd  # noqa: E402
_defnograd(_rt.keys_of, _rt.detach, _rt.data_of,
           names=["ad.keys_of", "ad.detach", "ad.data_of"])
