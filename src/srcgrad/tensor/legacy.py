"""PyTorch's older spellings: ``x.new_ones(...)`` and friends, ``torch.FloatTensor(...)``
(a constructor, and an ``isinstance`` test on dtype), ``torch.autograd.Variable``."""
import warnings

from . import dtypes
from .core import Tensor, _size_args, host_array
from .factories import empty, full, ones, tensor, zeros

__all__ = ["FactoryMethods", "Variable", "FloatTensor", "DoubleTensor", "HalfTensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
           "LEGACY_TYPES"]


class FactoryMethods:
    """``x.new_*``: a new tensor with ``x``'s dtype and device unless told otherwise."""

    def _new_kw(self, dtype, device):
        return {"dtype": dtype if dtype is not None else self.dtype,
                "device": device if device is not None else self.device}

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        return ones(*size, requires_grad=requires_grad, **self._new_kw(dtype, device))

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        return zeros(*size, requires_grad=requires_grad, **self._new_kw(dtype, device))

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        return empty(*size, requires_grad=requires_grad, **self._new_kw(dtype, device))

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        return full(size, fill_value, requires_grad=requires_grad, **self._new_kw(dtype, device))

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                   pin_memory=False):
        if isinstance(data, Tensor):
            warnings.warn("To copy construct from a tensor, it is recommended to use "
                          "sourceTensor.detach().clone() or "
                          "sourceTensor.detach().clone().requires_grad_(True), rather than "
                          "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        return tensor(data, requires_grad=requires_grad, **self._new_kw(dtype, device))

    def new(self, *args, **kwargs):
        """``x.new(2, 3)`` (uninitialised) or ``x.new(data)``, in ``x``'s dtype."""
        if len(args) == 1 and not isinstance(args[0], int):
            return tensor(args[0], dtype=self.dtype, device=self.device)
        return empty(*args, dtype=self.dtype, device=self.device)


class _LegacyType(type):
    """``isinstance(x, torch.FloatTensor)``: a CPU tensor of that dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy(name, dtype):
    def __new__(cls, *args, device=None):
        if len(args) == 1 and not isinstance(args[0], int):
            if isinstance(args[0], Tensor):
                return args[0].to(cls.dtype)
            return Tensor._make(host_array(args[0], cls.dtype.numpy))
        return empty(*_size_args(args), dtype=cls.dtype)
    return _LegacyType(name, (), {"__new__": __new__, "dtype": dtype, "__module__": "torch"})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
CharTensor = _legacy("CharTensor", dtypes.int8)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
BoolTensor = _legacy("BoolTensor", dtypes.bool)
LEGACY_TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
                "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: since PyTorch 0.4 simply a tensor."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        out = Tensor._make(data._data)
        out._vc = data._vc
        if requires_grad:
            out.requires_grad_(True)
        return out
