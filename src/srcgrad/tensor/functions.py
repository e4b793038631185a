"""``torch.exp(x)``, ``torch.sum(x, 1)``...: the free-function spellings of Tensor methods,
and the operations that take several tensors (``cat``, ``stack``, ``where``...)."""

import numpy as np

from .. import runtime
from . import dtypes
from .arithmetic import _renamed
from .autograd.nodes import RuleNode
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
    "logical_and", "logical_or", "logical_xor", "isnan", "isinf", "isfinite", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "reshape", "flatten", "unflatten", "ravel", "t", "transpose", "swapaxes", "swapdims",
    "permute",
    "squeeze", "unsqueeze", "flip", "roll", "clone", "chunk", "split", "unbind",
    "masked_fill", "index_select", "numel", "trace", "tril", "triu", "diagonal",
    "sort", "argsort", "topk", "take_along_dim", "gather", "scatter", "scatter_add",
    "index_add", "masked_select", "take", "index_put", "unique", "unique_consecutive",
    "atan2", "arctan2", "hypot", "logaddexp", "lerp", "addmm", "baddbmm", "addbmm", "addmv",
    "addr", "kron", "diag", "narrow",
    "select", "movedim", "moveaxis", "is_floating_point", "is_complex", "bernoulli",
    "multinomial", "median", "kthvalue", "mode", "aminmax", "cummax", "cummin", "var_mean",
    "std_mean", "diff", "nonzero", "argwhere", "tensor_split", "logcumsumexp", "fmod",
    "copysign", "sinc", "nan_to_num", "frac", "logit", "xlogy", "signbit", "rot90", "dist",
    "det", "logdet", "matrix_power", "inner",
]

__all__ = list(_METHODS) + ["cat", "concat", "concatenate", "stack", "where", "allclose",
                            "isclose", "equal", "einsum", "erf", "cross", "searchsorted",
                            "bucketize", "tril_indices", "triu_indices", "cartesian_prod",
                            "histc", "combinations", "cdist", "tensordot",
                            "trapezoid"]


def _method_function(name):
    def function(input, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            input = tensor(input)
        result = getattr(input, name)(*args, **kwargs)
        return result if out is None else write_out(name, result, out)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: the same as ``input.{name}(...)``."
    return function


for _name in _METHODS:
    globals()[_name] = _method_function(_name)

# torch.sin_(x) is x.sin_(): the in-place spellings of the elementwise functions
_IN_PLACE = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
             "sigmoid", "relu", "abs", "neg", "reciprocal", "square", "floor", "ceil", "round",
             "trunc", "clamp", "clip", "sinh", "cosh", "asin", "acos", "atan", "log2", "log10",
             "exp2", "sign"]


def _in_place_function(name):
    def function(input, *args, **kwargs):
        return getattr(input, name + "_")(*args, **kwargs)
    function.__name__ = function.__qualname__ = name + "_"
    function.__doc__ = f"``torch.{name}_(input)``: the same as ``input.{name}_()``."
    return function


for _name in _IN_PLACE:
    globals()[_name + "_"] = _in_place_function(_name)
__all__ += [n + "_" for n in _IN_PLACE]


def write_out(name, result, out):
    """``torch.<name>(..., out=out)``: ``result`` written into ``out`` (resized when its
    shape differs, with PyTorch's warning when it was not empty), returned."""
    from . import grad_mode
    if not isinstance(result, Tensor) or not isinstance(out, Tensor):
        raise NotImplementedError(f"srcgrad: {name}(out=...) of several results is not "
                                  "supported")
    if grad_mode.is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if not dtypes.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype.short} can't be cast to the desired "
                           f"output type {out.dtype.short}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            import warnings
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"[{', '.join(map(str, out.shape))}], which does not match the required output "
                f"shape [{', '.join(map(str, result.shape))}]. This behavior is deprecated, and "
                "in a future PyTorch release outputs will not be resized unless they have zero "
                "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
                "zero elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._data = result._data.astype(out._data.dtype, copy=True)
    else:
        out._data[...] = result._data
    out._vc.value += 1
    return out


def _common(tensors):
    target = dtypes.result_type(*tensors)
    return [t.to(target) if t.dtype is not target else t for t in tensors]


def cat(tensors, dim=0, *, out=None):
    if out is not None:
        return write_out("cat", cat(tensors, dim), out)
    if not len(tensors):
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    tensors = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or list(tensors)
    tensors = _common(tensors)
    d = _wrap_dim(dim, tensors[0].ndim)
    first = tensors[0].shape
    for k, t in enumerate(tensors[1:], 1):          # PyTorch's messages, not NumPy's
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{len(first)} and {t.ndim}")
        for i, (a, b) in enumerate(zip(first, t.shape)):
            if i != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {a} but got size {b} for tensor number "
                                   f"{k} in the list.")
    return apply(np.concatenate, (tensors,), {"axis": d}, name="CatBackward0")


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    if out is not None:
        return write_out("stack", stack(tensors, dim), out)
    if not len(tensors):
        raise RuntimeError("stack expects a non-empty TensorList")
    tensors = _common(list(tensors))
    for k, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at "
                               f"entry {k}")
    d = _wrap_dim(dim, tensors[0].ndim + 1)
    return apply(np.stack, (tensors,), {"axis": d}, name="StackBackward0")


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return input.allclose(other, rtol, atol, equal_nan)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return input.isclose(other, rtol, atol, equal_nan)


def equal(input, other):
    return input.equal(other)


def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: without ``dim``, the first dimension of size 3 (PyTorch's
    deprecated default, with its warning); ``linalg.cross`` defaults to the last."""
    from .linalg import cross as linalg_cross
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    result = linalg_cross(input, other, dim=dim)
    if out is not None:
        out.copy_(result)
        return out
    return result


Tensor.cross = cross


def einsum(equation, *operands):
    """``torch.einsum("ij,jk->ik", a, b)`` (operands also as one list)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = _common(list(operands))
    out = apply(np.einsum, (equation, *operands))
    node = out._grad_fn
    if isinstance(node, RuleNode):      # PyTorch's name, for display: the node is einsum's
        node.__class__ = _einsum_node_class(_einsum_node_name(equation, len(operands)))
    return out


def _einsum_node_class(name, _cache={}):
    """A node class printed as ``name`` whose saved values stay einsum's (``display_only``:
    not those of PyTorch's node of that name)."""
    cls = _cache.get(name)
    if cls is None:
        cls = _cache[name] = type(name, (RuleNode,), {"__module__": "builtins", "__slots__": (),
                                                      "display_only": True})
    return cls


def _einsum_node_name(equation, count):
    """The last node of PyTorch's einsum: a sum (one operand) or a batched product's view
    (several) when an index is summed away; else a permute (one) or a product (several)."""
    spec = equation.replace(" ", "").replace("...", "")
    inputs, _, output = spec.partition("->")
    letters = inputs.replace(",", "")
    if "->" not in spec:                          # implicit: the letters seen once, sorted
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    summed = bool(set(letters) - set(output))
    if count == 1:
        return "SumBackward1" if summed else "PermuteBackward0"
    return "ViewBackward0" if summed else "MulBackward0"


def erf(input):
    """``torch.erf``: SciPy's ``erf`` and its rule (SciPy is needed)."""
    try:
        from scipy import special
    except ImportError:     # pragma: no cover - SciPy is installed with srcgrad's extras
        raise NotImplementedError("srcgrad: torch.erf needs SciPy (pip install scipy)") from None
    return apply(special.erf, (input,), name="ErfBackward0", floating=True)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: the i-th result varies ``tensors[i]`` along its own axis (``"xy"``:
    the first two axes swapped), each an expanded view (gradients sum back)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axes[0], axes[1] = 1, 0
    sizes = [0] * len(tensors)
    for t, axis in zip(tensors, axes):
        sizes[axis] = t.numel()
    grids = []
    for t, axis in zip(tensors, axes):
        shape = [1] * len(tensors)
        shape[axis] = -1
        grids.append(t.reshape(shape).expand(*sizes))
    return tuple(grids)


def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs (summing ``weights`` instead); no node."""
    data = input._data
    w = None if weights is None else weights._data
    counts = runtime.array_ns(data).bincount(data, weights=w, minlength=minlength)
    if w is None:
        counts = counts.astype(np.int64)
    elif w.dtype != np.float32:
        counts = counts.astype(np.float64)
    else:
        counts = counts.astype(np.float32)
    return Tensor._make(counts)


__all__ += ["meshgrid", "bincount"]


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each value of ``input`` would go in ``sorted_sequence`` (its last dimension)."""
    side = side or ("right" if right else "left")
    seq = sorted_sequence._data
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    if seq.ndim == 1:
        out = np.searchsorted(seq, values, side=side)
    else:
        rows, vals = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)])
        out = out.reshape(values.shape)
    return Tensor._make(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return Tensor._make(np.stack(np.tril_indices(row, offset, col)).astype(np.int64))


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return Tensor._make(np.stack(np.triu_indices(row, offset, col)).astype(np.int64))


def cartesian_prod(*tensors):
    """Every combination of one entry of each 1-D tensor, as rows (indexing: it has a
    gradient)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = np.meshgrid(*[np.arange(t.shape[0]) for t in tensors], indexing="ij")
    return stack([t[g.reshape(-1)] for t, g in zip(tensors, grids)], 1)


def histc(input, bins=100, min=0, max=0):
    """Counts of ``input`` in ``bins`` equal bins over [min, max] (the data's range when
    both are 0); entries outside are not counted."""
    data = input._data
    lo, hi = (float(data.min()), float(data.max())) if min == max and data.size else \
        (float(min), float(max))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(data, bins=bins, range=(lo, hi))
    return Tensor._make(counts.astype(data.dtype))


def combinations(input, r=2, with_replacement=False):
    """Every ``r``-combination of the entries of a 1-D tensor, as rows (indexing)."""
    import itertools
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input.new_empty((0, r))
    idx = np.asarray(rows, dtype=np.int64)
    return stack([input[idx[:, j]] for j in range(r)], 1)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2``."""
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    return _renamed((x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, -1), "CdistBackward0")


def tensordot(a, b, dims=2, out=None):
    return apply(np.tensordot, (a, b), {"axes": dims if isinstance(dims, int)
                                        else tuple(tuple(d) for d in dims)},
                 name="ViewBackward0", promote=True)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim``, in PyTorch's formulas (so its rounding)."""
    n = y.shape[dim]
    if x is not None:
        spacing = x.diff(dim=dim) if x.ndim == y.ndim or x.ndim > 1 else x.diff()
        return _renamed((spacing * (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)))
                        .sum(dim) / 2.0, "DivBackward1")
    ends = y.select(dim, 0) + y.select(dim, -1)
    return _renamed((y.sum(dim) - ends * 0.5) * (1.0 if dx is None else dx), "MulBackward1")
