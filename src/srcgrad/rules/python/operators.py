"""Python's operators: ``x * y`` in user code is differentiated by the rule of
``np.multiply`` (numpy/elementwise.py); the compiler keeps the operator syntax in
generated code.  The ``operator`` module's functions share the ufuncs' rules, and
``x[index]`` has its own.
"""
import operator

import numpy as np

from .. import shapes
from ..registry import defrule, lookup
from ..numpy import elementwise as _ufuncs  # noqa: F401  (the ufunc rules first)

# operator.* functions (user code may call them) share the ufuncs' rules
for _op, _uf in ((operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
                 (operator.truediv, np.true_divide), (operator.pow, np.power),
                 (operator.matmul, np.matmul), (operator.neg, np.negative),
                 (operator.pos, np.positive), (operator.mod, np.mod)):
    _r = lookup(_uf)
    defrule(_op, _r.params, vjp=_r.vjp, jvp=_r.jvp, torch_name=_r.torch_name,
            name=f"operator.{_op.__name__}", **{k: v for k, v in vars(_r.facets).items() if v})

# AST operator class name -> the ufunc whose rule differentiates it
BINOPS = {"Add": np.add, "Sub": np.subtract, "Mult": np.multiply, "Div": np.true_divide,
          "Pow": np.power, "MatMult": np.matmul, "Mod": np.mod}
UNARYOPS = {"USub": np.negative, "UAdd": np.positive}
# floor division has zero gradient almost everywhere
NOGRAD_BINOPS = {"FloorDiv", "BitAnd", "BitOr", "BitXor", "LShift", "RShift"}
SYMBOLS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "Pow": "**", "MatMult": "@",
           "Mod": "%", "FloorDiv": "//", "USub": "-", "UAdd": "+"}

# x[index]: the adjoint scatters g back (np.add.at semantics: repeated indices add up)
defrule(operator.getitem, "x, index", name="getitem", torch_name="IndexBackward0", view_of="x",
        shape=shapes.getitem, vjp=dict(x="index_grad(g, x, index)"), jvp=dict(x="dx[index]"))

