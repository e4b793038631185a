"""Tensor's methods, attached to the one class in one place.

:class:`~.core.Tensor` is defined at the bottom of the runtime, because the
autograd engine and the dispatcher make and recognise tensors.  The operations
call the dispatcher, so they live above it, one group per concern, and are
attached here; ``help(Tensor)`` lists them all as Tensor's own methods, and a
traceback names the module that defines each one:

    GraphMethods       (autograd.py)    backward, the node a gradient flows into
    ArithmeticMethods  (arithmetic.py)  operators, comparisons, unary math, casts, matmul
    ReductionMethods   (reductions.py)  sum, mean, max, norm, softmax, sort, topk
    ShapeMethods       (shape.py)       views, reshape, transpose, split, diagonals
    IndexingMethods    (indexing.py)    x[i], x[i] = v, where, in-place operations
    FactoryMethods     (legacy.py)      x.new_ones(...), x.new_tensor(...)
"""
import types

from .arithmetic import _UNARY_FLOAT, ArithmeticMethods
from .autograd import GraphMethods
from .core import Tensor
from .indexing import IndexingMethods, inplace_method
from .legacy import FactoryMethods
from .reductions import ReductionMethods
from .shape import ShapeMethods

__all__ = ["GROUPS", "attach"]

GROUPS = (GraphMethods, ArithmeticMethods, ReductionMethods, ShapeMethods, IndexingMethods,
          FactoryMethods)

# x.exp_() is x.exp() written into x: the in-place spellings that have no method of their own
INPLACE_OF = list(_UNARY_FLOAT) + [
    "abs", "neg", "relu", "sigmoid", "square", "rsqrt", "sign", "floor", "ceil", "round",
    "trunc", "clamp_min", "clamp_max", "remainder",
    "floor_divide"]

# what every class body has: not methods
_CLASS_ENTRIES = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                  "__firstlineno__", "__static_attributes__"}


def attach(cls, groups):
    """Give ``cls`` every method (and property, and alias) of ``groups``; a name defined
    twice is an error, not a silent override."""
    for group in groups:
        for name, value in vars(group).items():
            if name in _CLASS_ENTRIES or (name == "__hash__" and value is None):
                continue             # (defining __eq__ sets the group's __hash__ to None)
            if name in vars(cls):
                raise TypeError(f"{cls.__name__}.{name} is defined twice ({group.__name__})")
            if isinstance(value, types.FunctionType) and \
                    value.__qualname__.startswith(group.__name__ + "."):
                value.__qualname__ = f"{cls.__name__}.{value.__name__}"
            setattr(cls, name, value)


attach(Tensor, GROUPS)
for _name in INPLACE_OF:
    if not hasattr(Tensor, _name + "_"):
        setattr(Tensor, _name + "_", inplace_method(_name))
