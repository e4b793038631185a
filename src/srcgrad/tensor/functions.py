"""``torch.exp(x)``, ``torch.sum(x, 1)``...: the free-function spellings of Tensor methods,
and the operations that take several tensors (``cat``, ``stack``, ``where``...)."""

import numpy as np

from . import dtypes
from .core import Tensor, _wrap_dim
from .dispatch import apply
from .factories import tensor
from .indexing import where

# torch.<name>(input, *args, **kwargs) is input.<name>(*args, **kwargs)
_METHODS = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
    "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "sigmoid", "relu", "abs", "absolute", "neg", "negative", "reciprocal", "square", "sign",
    "floor", "ceil", "round", "trunc", "clamp", "clip", "clamp_min", "clamp_max",
    "sum", "mean", "prod", "std", "var", "max", "min", "amax", "amin", "argmax", "argmin",
    "norm", "cumsum", "cumprod", "logsumexp", "softmax", "log_softmax", "all", "any",
    "count_nonzero", "matmul", "mm", "mv", "dot", "bmm", "outer", "ger",
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow",
    "remainder", "floor_divide", "rsub", "maximum", "minimum", "eq", "ne", "lt", "le", "gt",
    "ge", "greater", "less", "greater_equal", "less_equal", "not_equal", "logical_not",
    "logical_and", "logical_or", "isnan", "isinf", "isfinite",
    "reshape", "flatten", "ravel", "t", "transpose", "swapaxes", "swapdims", "permute",
    "squeeze", "unsqueeze", "flip", "roll", "clone", "chunk", "split", "unbind",
    "masked_fill", "index_select", "numel", "trace", "tril", "triu", "diagonal",
    "sort", "argsort", "topk", "take_along_dim", "gather",
]

__all__ = list(_METHODS) + ["cat", "concat", "concatenate", "stack", "where", "allclose",
                            "isclose", "equal", "einsum", "erf"]


def _method_function(name):
    def function(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            input = tensor(input)
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: the same as ``input.{name}(...)``."
    return function


for _name in _METHODS:
    globals()[_name] = _method_function(_name)


def _common(tensors):
    target = dtypes.result_type(*tensors)
    return [t.to(target) if t.dtype is not target else t for t in tensors]


def cat(tensors, dim=0):
    tensors = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or list(tensors)
    tensors = _common(tensors)
    d = _wrap_dim(dim, tensors[0].ndim)
    return apply(np.concatenate, (tensors,), {"axis": d}, name="CatBackward0")


concat = concatenate = cat


def stack(tensors, dim=0):
    tensors = _common(list(tensors))
    d = _wrap_dim(dim, tensors[0].ndim + 1)
    return apply(np.stack, (tensors,), {"axis": d}, name="StackBackward0")


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Tensor._make(np.isclose(input._data, other._data, rtol=rtol, atol=atol,
                                   equal_nan=equal_nan))


def equal(input, other):
    return input.shape == other.shape and bool((input._data == other._data).all())


def einsum(equation, *operands):
    """``torch.einsum("ij,jk->ik", a, b)`` (operands also as one list)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = _common(list(operands))
    return apply(np.einsum, (equation, *operands))


def erf(input):
    """``torch.erf``: SciPy's ``erf`` and its rule (SciPy is needed)."""
    try:
        from scipy import special
    except ImportError:     # pragma: no cover - SciPy is installed with srcgrad's extras
        raise NotImplementedError("srcgrad: torch.erf needs SciPy (pip install scipy)") from None
    return apply(special.erf, (input,), name="ErfBackward0", floating=True)
