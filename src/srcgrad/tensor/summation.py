"""Sums in PyTorch's CPU order, so that float32 losses print PyTorch's last digits.

NumPy sums pairwise; PyTorch's CPU kernel (a cascade sum) adds in another order,
and in float32 the two differ in the last bits: a loss printed with six digits
then differs.  Along a contiguous axis PyTorch reads 32-byte vectors (8 float32
or 4 float64 lanes), four vectors at a time, and adds each of those 4 x lanes
running sums in a cascade of four levels: every 16 rows (2**max(4, ceil(log2
rows) / 4)) the first level's sums are added into the second level, every 16 of
those into the third, and so on; what is left over is added at the end, lower
levels first.  The leftover vectors join the first of the four, the four are
added in order, the scalar tail is summed, then the lanes one by one.

A whole sum of more than 32768 numbers is split into one chunk per thread (of at
most ``get_num_threads()``), each summed so, then the chunks' sums added; a sum
along the last axis sums each row in one thread.  Other axes, dtypes and devices
sum with NumPy.
"""
import os

import numpy as np

__all__ = ["cpu_sum", "cpu_mean", "get_num_threads", "set_num_threads", "summed_to"]

_VECTOR_BYTES = 32
_GRAIN = 32768              # PyTorch's parallel grain: fewer numbers are summed by one thread
_LEVELS = 4


def _default_threads():
    # PyTorch's default: OMP_NUM_THREADS when set, else the CPUs this process may use
    if os.environ.get("OMP_NUM_THREADS", "").isdigit():
        return max(1, int(os.environ["OMP_NUM_THREADS"]))
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_threads = [_default_threads()]


def get_num_threads():
    """The threads a large sum is split over (``torch.get_num_threads``)."""
    return _threads[0]


def set_num_threads(n):
    if int(n) <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads[0] = int(n)


def _cascade(rows):
    """Column sums of ``rows`` (batch x R x lanes) in the order of PyTorch's multi_row_sum."""
    batch, count, width = rows.shape
    power = max(4, (int(count - 1).bit_length() if count > 1 else 0) // _LEVELS)
    step = 1 << power
    if count < step:                               # one level: a plain running sum
        return np.add.reduce(rows, axis=1)
    leftovers = []
    level = rows
    for _ in range(_LEVELS - 1):
        whole = level.shape[1] // step
        if whole == 0:                 # the levels above stay 0 (adding 0 changes nothing)
            break
        leftovers.append(np.add.reduce(level[:, whole * step:], axis=1))
        level = np.add.reduce(level[:, :whole * step].reshape(batch, whole, step, width), axis=2)
    leftovers.append(np.add.reduce(level, axis=1))
    return np.add.reduce(np.stack(leftovers, axis=1), axis=1)     # lower levels first


def _row_sum(items, lanes):
    """PyTorch's row_sum over each row of ``items`` (batch x n, n a multiple of ``lanes``),
    read as vectors of ``lanes`` numbers: batch x lanes partial sums."""
    batch = items.shape[0]
    vectors = items.reshape(batch, -1, lanes)
    rows = vectors.shape[1] // 4
    partial = _cascade(vectors[:, :rows * 4].reshape(batch, rows, 4 * lanes))
    partial = partial.reshape(batch, 4, lanes)
    # the first partial, the leftover vectors, then the other three partials, in order
    order = np.concatenate([partial[:, :1], vectors[:, rows * 4:], partial[:, 1:]], axis=1)
    return np.cumsum(order, axis=1)[:, -1]


def _serial_sum(x):
    """Each row's sum (x: batch x n), as one PyTorch thread adds a contiguous row."""
    lanes = _VECTOR_BYTES // x.dtype.itemsize
    if x.shape[1] < lanes:
        return _row_sum(x, 1)[:, 0]
    whole = x.shape[1] // lanes * lanes
    if whole < 4 * lanes:              # fewer than four vectors: they add up lane by lane
        partial = np.add.reduce(x[:, :whole].reshape(x.shape[0], -1, lanes), axis=1)
    else:
        partial = _row_sum(x[:, :whole], lanes)
    # the scalar tail from 0, then the lanes one by one: one running sum
    order = np.concatenate([x[:, whole:], partial], axis=1)
    return np.cumsum(order, axis=1)[:, -1]


def _flat_sum(x):
    """The sum of a flat array, split over threads as PyTorch splits a large one."""
    if x.size <= _GRAIN or _threads[0] == 1:
        return _serial_sum(x.reshape(1, -1))[0]
    chunks = min(_threads[0], -(-x.size // _GRAIN))
    size = -(-x.size // chunks)
    total = x.dtype.type(0)
    for start in range(0, x.size, size):
        total = total + _serial_sum(x[None, start:start + size])[0]
    return total


def _emulated(a):
    return type(a) is np.ndarray and a.dtype in (np.float32, np.float64) and a.size > 0


def cpu_sum(a, axis=None, keepdims=False):
    """``np.sum(a, axis, keepdims=keepdims)`` with PyTorch's CPU order where it is known:
    float32/float64 NumPy arrays, summed whole or along their last axis."""
    if not _emulated(a):
        return np.sum(a, axis=axis, keepdims=keepdims)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if axes is None or len(axes) == a.ndim:
        out = np.asarray(_flat_sum(np.ascontiguousarray(a).ravel()), dtype=a.dtype)
        return out.reshape((1,) * a.ndim) if keepdims else out
    if tuple(ax % a.ndim for ax in axes) != (a.ndim - 1,):
        return np.sum(a, axis=axis, keepdims=keepdims)
    rows = np.ascontiguousarray(a).reshape(-1, a.shape[-1])
    out = _serial_sum(rows).reshape(a.shape[:-1])
    return out[..., None] if keepdims else out


def cpu_mean(a, axis=None, keepdims=False):
    """``np.mean`` as PyTorch computes it on the CPU: the sum above, divided by the count."""
    if not _emulated(a):
        return np.mean(a, axis=axis, keepdims=keepdims)
    total = cpu_sum(a, axis, keepdims)
    count = a.size // max(np.asarray(total).size, 1) if keepdims or axis is not None else a.size
    return np.asarray(total / a.dtype.type(count), dtype=a.dtype)


def summed_to(g, x, unbroadcast):
    """``unbroadcast(g, x)`` (``g`` summed down to ``x``'s shape) in PyTorch's order where
    it is known: a float ``g`` summed whole (``x`` a scalar, or all ones) or along its last
    axis only (PyTorch's ``sum_to_size`` is one ``sum`` over the reduced dims)."""
    if type(g) is np.ndarray and g.ndim and _emulated(g):
        tx = type(x)
        xs = x.shape if tx is np.ndarray else x if tx is tuple else None
        if xs is not None and len(xs) <= g.ndim:
            lead = g.ndim - len(xs)
            axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(xs)
                                              if n == 1 and g.shape[lead + i] != 1)
            if len(axes) == g.ndim or (axes == (g.ndim - 1,) and not lead):
                return np.asarray(cpu_sum(g, axis=axes, keepdims=True),
                                  dtype=g.dtype).reshape(xs)
    return unbroadcast(g, x)
