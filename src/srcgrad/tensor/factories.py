"""Making tensors: ``tensor``, ``ones``, ``zeros``, ``arange``, ``randn``... and seeding.

Dtype inference follows PyTorch: Python floats give the default dtype
(float32), Python ints int64, bools bool; NumPy arrays keep their dtype.
Random numbers come from :mod:`.generator`.
"""
import builtins
import numbers

import numpy as np

from . import dtypes
from .core import Tensor, _size_args, host_array
from .device import CPU, array_module, default_device, to_device
from .generator import Generator, _rng, initial_seed, manual_seed, seed
from .rounding import fma64

__all__ = ["tensor", "as_tensor", "from_numpy", "ones", "zeros", "full", "empty", "eye",
           "arange", "linspace", "logspace", "randn", "rand", "randint", "randperm", "normal",
           "ones_like", "zeros_like", "full_like", "empty_like", "rand_like", "randn_like",
           "randint_like", "manual_seed", "seed", "initial_seed", "Generator"]

_bool = builtins.bool


# -- inference of dtype from Python data ---------------------------------------------------

def _infer_dtype(data):
    """The dtype PyTorch infers for nested Python data (no explicit dtype given)."""
    kinds = set()

    def walk(x):
        if isinstance(x, Tensor):
            kinds.add(("t", x.dtype))
        elif isinstance(x, np.ndarray):
            kinds.add(("t", dtypes.from_numpy_dtype(x.dtype)))
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif isinstance(x, (_bool, np.bool_)):
            kinds.add(("s", dtypes.bool))
        elif isinstance(x, np.generic):
            kinds.add(("t", dtypes.from_numpy_dtype(x.dtype)))
        elif isinstance(x, numbers.Integral):
            kinds.add(("s", dtypes.int64))
        elif isinstance(x, complex):
            kinds.add(("s", dtypes.default_complex()))
        elif isinstance(x, numbers.Real):
            kinds.add(("s", dtypes.get_default_dtype()))
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")

    walk(data)
    if not kinds:
        return dtypes.get_default_dtype()
    best = None
    for _, d in kinds:
        if best is None or dtypes.category(d) > dtypes.category(best):
            best = d
        elif dtypes.category(d) == dtypes.category(best) and d.itemsize > best.itemsize:
            best = d
    # Python floats inside a list give the default dtype, whatever else is there
    return best


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (nested lists, scalars, arrays, tensors)."""
    dt = dtypes.to_dtype(dtype) or _infer_dtype(data)
    array = host_array(data, dt.numpy)
    return _leaf(array, device, requires_grad)


def _leaf(array, device, requires_grad):
    """A leaf tensor of ``array`` (a NumPy array) on ``device``."""
    dev = to_device(device) or default_device() or CPU
    if dev.type != "cpu":
        xp = array_module(dev)
        with xp.cuda.Device(dev.index or 0):
            array = xp.asarray(array)
    t = Tensor._make(array)
    if requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    if isinstance(data, np.ndarray) and dtype is None and device is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor that shares memory with the NumPy array ``array``."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


# -- filled tensors ------------------------------------------------------------------------

def _filled(size, fill, dtype, device, requires_grad):
    size = _size_args(size)
    dt = dtypes.to_dtype(dtype) or dtypes.get_default_dtype()
    return _leaf(np.full(size, fill, dtype=dt.numpy), device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _filled(size, 1, dtype, device, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _filled(size, 0, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _filled(size, 0, dtype, device, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value.item() if isinstance(fill_value, Tensor)
                                    else fill_value)
    fill = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    return _filled((size,) if isinstance(size, int) else (tuple(size),), fill, dtype, device,
                   requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    dt = dtypes.to_dtype(dtype) or dtypes.get_default_dtype()
    return _leaf(np.eye(n, m, dtype=dt.numpy), device, requires_grad)


def _like(t, fill, dtype, device, requires_grad):
    dt = dtypes.to_dtype(dtype) or t.dtype
    return _leaf(np.full(tuple(t.shape), fill, dtype=dt.numpy), device or t.device,
                 requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, 1, dtype, device, requires_grad)


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, 0, dtype, device, requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, 0, dtype, device, requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    return _like(input, fill_value, dtype, device, requires_grad)


# -- ranges --------------------------------------------------------------------------------

def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, numbers.Integral) for v in vals) \
            else dtypes.get_default_dtype()
    dt = dtypes.to_dtype(dtype)
    start, end, step = vals
    n = max(0, int(np.ceil((end - start) / step)))
    array = (start + step * np.arange(n, dtype=np.float64)).astype(dt.numpy) \
        if dt.is_floating_point else np.arange(start, end, step, dtype=dt.numpy)
    return _leaf(array, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    dt = dtypes.to_dtype(dtype) or dtypes.get_default_dtype()
    kind = np.dtype(dt.numpy)
    if kind in (np.float32, np.float64) and not isinstance(start, Tensor) and \
            not isinstance(end, Tensor):
        return _leaf(_float_linspace(start, end, steps, kind), device, requires_grad)
    return _leaf(_linspace(start, end, steps).astype(dt.numpy), device, requires_grad)


def _float_linspace(start, end, steps, kind):
    # PyTorch's CPU kernel, in the tensor's dtype: step = (end - start) / (steps - 1); the
    # first half start + step * i, the second end - step * (steps - 1 - i), each one fused
    # multiply-add (float32's exact in float64, then rounded once to float32)
    s, e = kind.type(start), kind.type(end)
    if steps == 1:
        return np.array([s], dtype=kind)
    step = (e - s) / kind.type(steps - 1)
    i = np.arange(steps, dtype=np.float64)
    first = i < steps // 2
    if kind == np.float32:
        st = np.float64(step)
        return np.where(first, st * i + np.float64(s),
                        -st * (steps - 1 - i) + np.float64(e)).astype(np.float32)
    return np.where(first, fma64(step, i, s), fma64(-step, steps - 1 - i, e))


def _linspace(start, end, steps):
    # PyTorch fills the first half forwards from start and the second half backwards from
    # end, so that both end points are exact.
    if steps == 1:
        return np.array([start], dtype=np.float64)
    step = (end - start) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    half = steps // 2
    return np.where(i < half, start + step * i, end - step * (steps - 1 - i))


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    dt = dtypes.to_dtype(dtype) or dtypes.get_default_dtype()
    return _leaf((base ** _linspace(start, end, steps)).astype(dt.numpy), device, requires_grad)


# -- random --------------------------------------------------------------------------------

def _written(out, t):
    """``t`` itself, or its values written into ``out`` (resized as PyTorch resizes)."""
    if out is None:
        return t
    if tuple(out.shape) == tuple(t.shape):
        out._data[...] = t._data.astype(out._data.dtype, copy=False)
    else:
        out._data = t._data.astype(out._data.dtype)
    out._vc.value += 1
    return out


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, out=None):
    dt = dtypes.to_dtype(dtype) or (out.dtype if out is not None else
                                     dtypes.get_default_dtype())
    return _written(out, _leaf(_rng(generator).normal(_size_args(size), dt.numpy), device,
                               requires_grad))


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None, out=None):
    dt = dtypes.to_dtype(dtype) or (out.dtype if out is not None else
                                     dtypes.get_default_dtype())
    return _written(out, _leaf(_rng(generator).uniform(_size_args(size), dt.numpy), device,
                               requires_grad))


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False,
            generator=None):
    if size is None:                  # randint(high, size)
        low, high, size = 0, low, high
    dt = dtypes.to_dtype(dtype) or dtypes.int64
    return _leaf(_rng(generator).integers(low, high, tuple(size)).astype(dt.numpy), device,
                 requires_grad)


def randperm(n, dtype=None, device=None, requires_grad=False, generator=None):
    dt = dtypes.to_dtype(dtype) or dtypes.int64
    return _leaf(_rng(generator).permutation(n).astype(dt.numpy), device, requires_grad)


def normal(mean, std, size=None, generator=None):
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        dt = (mean if isinstance(mean, Tensor) else std).dtype
        draw = _rng(generator).normal(shape, dt.numpy)
        return _leaf((draw * s + m).astype(dt.numpy), None, False)
    return _leaf(_rng(generator).normal(_size_args(size), dtypes.get_default_dtype().numpy,
                                        mean, std), None, False)


def rand_like(input, dtype=None, device=None, requires_grad=False):
    dt = dtypes.to_dtype(dtype) or input.dtype
    return rand(*input.shape, dtype=dt, device=device or input.device,
                requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False):
    dt = dtypes.to_dtype(dtype) or input.dtype
    return randn(*input.shape, dtype=dt, device=device or input.device,
                 requires_grad=requires_grad)


def randint_like(input, low=0, high=None, dtype=None, device=None, requires_grad=False):
    dt = dtypes.to_dtype(dtype) or input.dtype
    return randint(low, high, tuple(input.shape), dtype=dt, device=device or input.device)

