"""Tensor dtypes: PyTorch's names over NumPy's dtypes.

``sg.float32`` prints as ``torch.float32`` because the runtime's contract is to
print what PyTorch prints.  The default floating dtype is float32.
"""
import builtins

import numpy as np

__all__ = ["dtype", "float16", "half", "float32", "float", "float64", "double",
           "complex64", "cfloat", "complex128", "cdouble", "uint8", "int8", "int16",
           "short", "int32", "int", "int64", "long", "bool",
           "get_default_dtype", "set_default_dtype", "promote_types", "result_type",
           "can_cast", "finfo", "iinfo", "layout", "strided", "memory_format",
           "contiguous_format", "preserve_format", "channels_last"]


class dtype:
    """A tensor element type: its PyTorch name, NumPy dtype and legacy type name."""

    __slots__ = ("name", "numpy", "legacy", "short")

    def __init__(self, name, numpy_dtype, legacy, short):
        self.name = name                        # "float32"
        self.numpy = np.dtype(numpy_dtype)      # np.float32
        self.legacy = legacy                    # "FloatTensor" (error messages, .type())
        self.short = short                      # "Float" (type-promotion messages)

    @property
    def is_floating_point(self):
        return self.numpy.kind == "f"

    @property
    def is_complex(self):
        return self.numpy.kind == "c"

    @property
    def is_signed(self):
        return self.numpy.kind in "fci"

    @property
    def itemsize(self):
        return self.numpy.itemsize

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):          # (pickled by name: its class prints as torch.dtype)
        return (_by_name, (self.name,))


float16 = half = dtype("float16", np.float16, "HalfTensor", "Half")
float32 = float = dtype("float32", np.float32, "FloatTensor", "Float")
float64 = double = dtype("float64", np.float64, "DoubleTensor", "Double")
complex64 = cfloat = dtype("complex64", np.complex64, "ComplexFloatTensor", "ComplexFloat")
complex128 = cdouble = dtype("complex128", np.complex128, "ComplexDoubleTensor", "ComplexDouble")
uint8 = dtype("uint8", np.uint8, "ByteTensor", "Byte")
int8 = dtype("int8", np.int8, "CharTensor", "Char")
int16 = short = dtype("int16", np.int16, "ShortTensor", "Short")
int32 = int = dtype("int32", np.int32, "IntTensor", "Int")
int64 = long = dtype("int64", np.int64, "LongTensor", "Long")
bool = dtype("bool", np.bool_, "BoolTensor", "Bool")

_ALL = (float16, float32, float64, complex64, complex128, uint8, int8, int16, int32, int64, bool)
_FROM_NUMPY = {d.numpy: d for d in _ALL}
_default = float32


def _by_name(name):
    return globals()[name]


def from_numpy_dtype(np_dtype):
    """The tensor dtype of a NumPy dtype (TypeError for ones PyTorch lacks)."""
    d = _FROM_NUMPY.get(np_dtype)
    if d is not None:
        return d
    try:
        return _FROM_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype)}. The only "
                        "supported types are: float64, float32, float16, complex64, complex128, "
                        "int64, int32, int16, int8, uint8, and bool.") from None


def to_dtype(d):
    """Accept a tensor dtype, a NumPy dtype or a Python type; return a tensor dtype."""
    if d is None or isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    return from_numpy_dtype(d)


def get_default_dtype():
    return _default


def set_default_dtype(d):
    global _default
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type")
    _default = d


def default_complex():
    return complex128 if _default is float64 else complex64


def category(d):
    """0 bool, 1 integer, 2 floating, 3 complex: PyTorch's promotion categories."""
    k = d.numpy.kind
    return {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}[k]


def promote_types(a, b):
    """PyTorch's pairwise promotion: within a category as NumPy, across categories the
    higher category's dtype (int64 with float32 is float32, not NumPy's float64)."""
    ca, cb = category(a), category(b)
    if ca == cb:
        return from_numpy_dtype(np.promote_types(a.numpy, b.numpy))
    hi, lo = (a, b) if ca > cb else (b, a)
    if hi is complex64 and lo is float64:
        return complex128
    return hi


def scalar_dtype(v):
    """The dtype PyTorch gives a Python scalar standing alone."""
    if isinstance(v, builtins.bool) or isinstance(v, np.bool_):
        return bool
    if isinstance(v, (builtins.int, np.integer)):
        return int64
    if isinstance(v, complex):
        return default_complex()
    return _default


def result_type(*operands):
    """PyTorch's type promotion over tensors and Python scalars.

    Three priority groups: tensors with dimensions, zero-dimensional tensors,
    Python scalars.  A lower group only matters when it is of a higher category
    (bool < int < float < complex) than everything above it; a Python scalar
    then contributes the default dtype of its category.  A tensor is recognised by its
    ``dtype`` being one of this module's.
    """
    groups = [None, None, None]
    for op in operands:
        if isinstance(getattr(op, "dtype", None), dtype):       # a Tensor
            g, d = (0 if op.ndim else 1), op.dtype
        elif isinstance(op, np.ndarray):
            g, d = (0 if op.ndim else 1), from_numpy_dtype(op.dtype)
        else:
            g, d = 2, scalar_dtype(op)
            if isinstance(op, np.generic) and not isinstance(op, (np.bool_,)):
                d = from_numpy_dtype(op.dtype) if category(d) < 2 else d
        if g == 2:
            groups[2] = d if groups[2] is None or category(d) > category(groups[2]) else groups[2]
        else:
            groups[g] = d if groups[g] is None else promote_types(groups[g], d)
    result = None
    for d in groups:
        if d is None:
            continue
        if result is None:
            result = d
        elif category(d) > category(result):
            if d is groups[2] and category(d) == 3 and result is float64:
                result = complex128
            else:
                result = d
    return result


def can_cast(src, dst):
    """PyTorch's rule for in-place results: no lowering of category."""
    return category(src) <= category(dst)


dtype.__module__ = "torch"       # type(torch.float32) prints <class 'torch.dtype'>


class finfo:
    """``torch.finfo(dtype)``: the machine limits of a floating dtype (the default dtype
    when none is given), as Python floats."""

    def __init__(self, type=None):
        d = _default if type is None else type
        if not isinstance(d, dtype) or d.numpy.kind not in "fc":
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(d.numpy)
        self.bits = info.bits
        self.eps, self.max, self.min = builtins.float(info.eps), builtins.float(info.max), \
            builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision
        self.dtype = info.dtype.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: the limits of an integer dtype, as Python ints."""

    def __init__(self, type):
        if not isinstance(type, dtype) or type.numpy.kind not in "iu":
            raise TypeError(f"{type} is not supported by torch.iinfo")
        info = np.iinfo(type.numpy)
        self.bits, self.min, self.max, self.dtype = info.bits, builtins.int(info.min), \
            builtins.int(info.max), type.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


class layout:
    """``torch.strided``: every tensor here is dense and strided."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_by_name, (self._name,))


class memory_format(layout):
    """``torch.contiguous_format`` and friends (accepted; arrays keep NumPy's layout)."""


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
for _cls in (finfo, iinfo, layout, memory_format):
    _cls.__module__ = "torch"
