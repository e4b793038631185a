"""The ``Tensor`` class: an array plus PyTorch's autograd bookkeeping, and the attributes
that read them (``shape``, ``dtype``, ``requires_grad``, ``grad``, ``item()``, ``repr``...).

This is the bottom of the Tensor runtime: the autograd engine, the dispatcher
(:mod:`.dispatch`) and every operation are written on top of this class, and
none of it is imported here.  The operations (arithmetic, reductions, shape,
indexing, in place) are methods grouped by concern in their own modules and
attached to this one class in :mod:`.methods`; ``backward`` comes from
:mod:`.autograd`.
"""
import builtins
import collections
import numbers
import warnings

import numpy as np

from . import dtypes, grad_mode, printing
from .device import device_of

__all__ = ["Tensor", "Size", "is_tensor"]

_bool, _int, _float = builtins.bool, builtins.int, builtins.float


class VersionCounter:
    """How many times a tensor's data has been changed in place (shared by views)."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class InferenceCounter(VersionCounter):
    """The counter of a tensor made in ``inference_mode``: it tracks nothing (PyTorch's
    inference tensors have no version counter)."""

    __slots__ = ()

    @property
    def value(self):
        return 0

    @value.setter
    def value(self, v):
        # as in PyTorch, the change is made, then refused when it is counted
        if not grad_mode._state.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You "
                "can make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details.")


class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __reduce__(self):          # (pickled by value: the class prints as torch.Size)
        return (_size, (tuple(self),))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


class _ReturnType(tuple):
    """``torch.return_types.max``: ``(values, indices)`` with names."""

    _name = "max"
    _classes = {}

    def __new__(cls, values, indices, name):
        kind = _ReturnType._classes.get(name)
        if kind is None:           # a class per name: type(x.max(1)).__name__ is "max"
            kind = _ReturnType._classes[name] = type(name, (_ReturnType,), {
                "_name": name, "__module__": "torch.return_types"})
        return tuple.__new__(kind, (values, indices))

    def __reduce__(self):          # (its class is made on the fly: pickled by name)
        return (_ReturnType, (self[0], self[1], self._name))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _return_type(name, fields):
    """``torch.return_types.<name>``: a tuple with named fields, printed as PyTorch's."""
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        parts = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{parts})"
    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


def _wrap_dim(d, ndim):
    n = builtins.max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n if ndim else 0


def _size_args(size):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))`` alike."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(_int(s) for s in size)


def host_array(data, dtype, stacklevel=3):
    """A new NumPy array of ``dtype`` holding a copy of ``data`` (nested lists, scalars,
    arrays, tensors), with PyTorch's warning for a tensor given as ``data``."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=stacklevel)
    return np.array(_host_values(data), dtype=dtype)


def _host_values(data):
    if isinstance(data, Tensor):
        return data._data if isinstance(data._data, np.ndarray) else data._data.get()
    if isinstance(data, (list, tuple)):
        return [_host_values(v) for v in data]
    return data


# -- the Tensor -----------------------------------------------------------------------------

def _address(a):
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0]
    return a.data.ptr                    # CuPy


class Tensor:
    """A multi-dimensional array that records operations for reverse-mode AD.

    Defined here: its data, its attributes and conversions.  Its operations are
    defined by concern in ``arithmetic``, ``reductions``, ``shape`` and ``indexing``,
    ``backward`` in ``autograd``; ``methods`` attaches them to this class.
    """

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_grad", "_vc", "_base", "_acc",
                 "_retains_grad", "_hooks", "_view_index", "__weakref__", "__dict__")
    __array_priority__ = 1000      # ndarray (op) Tensor defers to Tensor's reflected operators
    def __init__(self, *args, **kwargs):
        # torch.Tensor(data) / torch.Tensor(2, 3): a float tensor (the default dtype)
        if len(args) == 1 and not isinstance(args[0], numbers.Integral):
            data = host_array(args[0], dtypes.get_default_dtype().numpy)
        else:
            data = np.zeros(_size_args(args), dtype=dtypes.get_default_dtype().numpy)
        Tensor._init(self, data)

    def _init(self, data, requires_grad=False, grad_fn=None):
        self._data = data
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._grad = None
        self._vc = VersionCounter() if not grad_mode._state.inference else InferenceCounter()
        self._base = None
        self._acc = None
        self._retains_grad = False
        self._hooks = None
        self._view_index = None

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None):
        """A tensor of the array ``data`` (no copy): how every operation makes its result."""
        self = object.__new__(cls)
        self._data = data
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._grad = None
        self._vc = VersionCounter() if not grad_mode._state.inference else InferenceCounter()
        self._base = None
        self._acc = None
        self._retains_grad = False
        self._hooks = None
        self._view_index = None
        return self

    # -- autograd attributes --------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._set_requires_grad(flag, "only Tensors of floating point and complex dtype can "
                                      "require gradients")

    def requires_grad_(self, requires_grad=True):
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can "
                                               "require gradients")
        return self

    def _set_requires_grad(self, flag, int_message):
        if self._grad_fn is not None and not flag:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if flag and not (self.is_floating_point() or self.is_complex()):
            raise RuntimeError(int_message)
        if self._grad_fn is None:
            self._requires_grad = _bool(flag)

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            _warn_nonleaf_grad()
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version(self):
        if type(self._vc) is InferenceCounter:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.value

    def is_inference(self):
        return type(self._vc) is InferenceCounter

    def retain_grad(self):
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if not self._retains_grad:
            self._retains_grad = True
            self._grad_fn._retain(self)

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a
        replacement.  Returns a handle with ``remove()``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        hooks = self._grad_fn._hook_list() if self._grad_fn is not None else None
        if hooks is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(self)`` after a backward pass accumulated into this leaf's ``.grad``."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        hooks = self.__dict__.setdefault("_post_acc_hooks", [])
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def detach(self):
        """The same data and version counter, cut from the graph."""
        out = Tensor._make(self._data)
        out._vc = self._vc          # a non-differentiable view: no _base
        return out

    def detach_(self):
        if self._base is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        """The same data, detached, with a version counter of its own (not checked)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        self._data = value._data

    # -- array attributes -------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def dtype(self):
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return device_of(self._data)

    @property
    def layout(self):
        return dtypes.strided

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return _int(self._data.size)

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return _int(self._data.nbytes)

    @property
    def itemsize(self):
        return _int(self._data.itemsize)

    def data_ptr(self):
        """The address of the first element (a device pointer for a CuPy array)."""
        return _address(self._data)

    def storage_offset(self):
        """Elements from the start of the memory this tensor views to its first element."""
        root = self._data
        while getattr(root, "base", None) is not None and hasattr(root.base, "shape"):
            root = root.base
        return (_address(self._data) - _address(root)) // self._data.itemsize

    def stride(self, dim=None):
        s = tuple(st // self._data.itemsize for st in self._data.strides)
        return s if dim is None else s[dim]

    def is_contiguous(self, memory_format=None):
        return _bool(self._data.flags.c_contiguous)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def type(self, dtype=None):
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + self.dtype.legacy
        if isinstance(dtype, str) and dtype.startswith("torch."):    # "torch.LongTensor"
            from . import dtypes
            legacy = dtype.rsplit(".", 1)[-1]
            found = next((d for d in vars(dtypes).values()
                          if isinstance(d, dtypes.dtype) and d.legacy == legacy), None)
            if found is None:
                raise ValueError(f"invalid type: '{dtype}'")
            out = self.to(found)
            return out.cuda() if dtype.startswith("torch.cuda.") else out
        if isinstance(dtype, type) and hasattr(dtype, "dtype"):     # torch.DoubleTensor
            dtype = dtype.dtype
        return self.to(dtype)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- conversions ------------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        a = self._data if self.device.type == "cpu" else self._data.get()
        return a.tolist()

    def numpy(self, force=False):
        if self._requires_grad and not force and grad_mode._state.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self.device.type != "cpu":
            if force:
                return self._data.get()
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __float__(self):
        return _float(self._item_for("float"))

    def __int__(self):
        return _int(self._item_for("int"))

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return _int(self._item_for("index"))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return _bool(self._data.reshape(()).item())

    def __complex__(self):
        return complex(self._item_for("complex"))

    def _item_for(self, what):
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __format__(self, spec):
        # as PyTorch: a 0-d tensor formats as its Python number (f"{loss}" -> -16.0)
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __repr__(self):
        return printing.tensor_repr(self)

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self._select(i, "UnbindBackward0")

    def __contains__(self, value):
        return _bool((self == value).any())

    def __reduce_ex__(self, proto):
        return (_rebuild, (self.detach().cpu().numpy() if not self._requires_grad else
                           self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        out = Tensor._make(self._data.copy(), self._requires_grad)
        if self._grad is not None:
            out._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = out
        return out


# the class as PyTorch names it: ``type(x)`` prints <class 'torch.Tensor'>, as the scripts
# written for ``import torch`` expect (instances pickle through _rebuild, not by class name)
Tensor.__module__ = Size.__module__ = "torch"


def _size(values):
    return Size(values)


def _rebuild(array, requires_grad):
    return Tensor._make(array, requires_grad)


class _HookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def _warn_nonleaf_grad(stacklevel=3):
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
        "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
        "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
        "instead. See github.com/pytorch/pytorch/pull/30531 for more information.",
        UserWarning, stacklevel=stacklevel)
