"""Tensor methods that change shape or read along a shape: views (``view``,
``transpose``, ``expand``...), copies (``reshape`` when it must, ``repeat``, ``flip``),
splits and diagonals."""
import numbers

import itertools
import math

import numpy as np

from .. import runtime
from . import dtypes
from .autograd import _node_class
from .core import Tensor, _size_args, _wrap_dim
from .dispatch import apply

__all__ = ["ShapeMethods"]



def _one_of_several(view, k, kind):
    """Output ``k`` of the views ``kind`` (Unbind, Split) returns: changing it in place
    while recording is refused, as PyTorch does."""
    view._multi_view = (k, kind)
    return view

class ShapeMethods:
    """Attached to :class:`~.core.Tensor` by :mod:`.methods`."""

    # -- shape ------------------------------------------------------------------------------
    def reshape(self, *shape):
        shape = _size_args(shape)
        _check_reshape(self, shape)
        # PyTorch: a view when the memory layout allows it, else a copy (clone + view)
        name = "ViewBackward0" if _reshape_is_view(self._data, shape) else "UnsafeViewBackward0"
        return apply(np.reshape, (self, shape), name=name, view=True)

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            raise NotImplementedError("srcgrad: view(dtype) is not supported")
        shape = _size_args(shape)
        _check_reshape(self, shape)
        if not _reshape_is_view(self._data, shape):
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.")
        return apply(np.reshape, (self, shape), name="ViewBackward0", view=True)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        if self.ndim == 0:
            return self.reshape(1)
        s, e = _wrap_dim(start_dim, self.ndim), _wrap_dim(end_dim, self.ndim)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self
        shape = self.shape[:s] + (-1,) + self.shape[e + 1:]
        return self.reshape(shape)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        x = self
        d = _wrap_dim(dim, x.ndim)
        if prepend is not None or append is not None:
            parts = [p if p.ndim else p.expand(*x.shape[:-1], 1) for p in (prepend, append)
                     if p is not None]
            parts = ([parts.pop(0)] if prepend is not None else []) + [x] + parts
            x = apply(np.concatenate, (parts,), {"axis": d}, name="CatBackward0")
        for _ in range(n):
            length = x.shape[d]
            x = x.narrow(d, 1, length - 1) - x.narrow(d, 0, length - 1) \
                if x.dtype is not dtypes.bool else x.narrow(d, 1, length - 1) ^ \
                x.narrow(d, 0, length - 1)
        return x

    def rot90(self, k=1, dims=(0, 1)):
        return apply(np.rot90, (self, k), {"axes": tuple(dims)}, name="Rot90Backward0")

    def nonzero(self, *, as_tuple=False):
        data = self._data if self.ndim else self._data.reshape(1)
        if as_tuple:
            return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(data))
        return Tensor._make(np.argwhere(self._data).astype(np.int64))

    def argwhere(self):
        return self.nonzero()

    def tensor_split(self, indices_or_sections, dim=0):
        d = _wrap_dim(dim, self.ndim)
        n = self.shape[d]
        if isinstance(indices_or_sections, int):
            k = indices_or_sections
            sizes = [n // k + 1] * (n % k) + [n // k] * (k - n % k)
            bounds = list(itertools.accumulate([0] + sizes))
        else:
            cuts = [int(i) for i in indices_or_sections]
            bounds = [0] + [min(max(c, 0), n) for c in cuts] + [n]
        return tuple(self.narrow(d, a, max(b - a, 0)) for a, b in zip(bounds, bounds[1:]))

    def unflatten(self, dim, sizes):
        d = _wrap_dim(dim, self.ndim)
        sizes = [int(n) for n in sizes]
        known = math.prod(n for n in sizes if n != -1)
        if (-1 not in sizes and known != self.shape[d]) or \
                (-1 in sizes and (not known or self.shape[d] % known)):
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the "
                               f"size of dim {dim} ({self.shape[d]}) in the input tensor")
        return self.reshape(tuple(self.shape[:d]) + tuple(sizes) + tuple(self.shape[d + 1:]))

    def ravel(self):
        return self.reshape(-1)

    def t(self):
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self.ndim}D")
        return apply(np.transpose, (self,), name="TBackward0", view=True)

    @property
    def T(self):
        if self.ndim != 2:
            import warnings
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse "
                          "their shape is deprecated and it will throw an error in a future "
                          "release. Consider `x.mT` to transpose batches of matrices or "
                          "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return apply(np.transpose, (self,), name="PermuteBackward0", view=True)

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def transpose(self, dim0, dim1):
        d0, d1 = _wrap_dim(dim0, self.ndim), _wrap_dim(dim1, self.ndim)
        return apply(np.swapaxes, (self, d0, d1), name="TransposeBackward0", view=True)

    swapaxes = swapdims = transpose

    def permute(self, *dims):
        dims = _size_args(dims)
        if len(dims) != self.ndim:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                               f"does not match the length of the desired ordering of "
                               f"dimensions i.e. input.dim() = {self.ndim} is not equal to "
                               f"len(dims) = {len(dims)}")
        dims = tuple(_wrap_dim(d, self.ndim) for d in dims)
        return apply(np.transpose, (self, dims), name="PermuteBackward0", view=True)

    def squeeze(self, dim=None):
        if dim is None:
            axes = tuple(i for i, n in enumerate(self.shape) if n == 1)
            name = "SqueezeBackward0"
        else:
            dims = dim if isinstance(dim, (tuple, list)) else (dim,)
            axes = tuple(d for d in (_wrap_dim(d, self.ndim) for d in dims)
                         if self.ndim and self.shape[d] == 1)
            name = "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
        return apply(np.squeeze, (self,), {"axis": axes}, name=name, view=True)

    def unsqueeze(self, dim):
        d = _wrap_dim(dim, self.ndim + 1)
        return apply(np.expand_dims, (self, d), name="UnsqueezeBackward0", view=True)

    # -- in place: the tensor itself becomes the view (its shape changes) ------------------
    def _reshaped_in_place(self, new, name):
        self._check_inplace()
        self._data = new._data
        self._vc.value += 1
        node = new._grad_fn
        if node is not None:
            node.__class__ = _node_class(name)      # PyTorch names the in-place overload
            self._grad_fn = node
            self._requires_grad = True
        return self

    def squeeze_(self, dim=None):
        name = "SqueezeBackward3" if dim is None else \
            "SqueezeBackward5" if isinstance(dim, (tuple, list)) else "SqueezeBackward4"
        return self._reshaped_in_place(self.squeeze(dim), name)

    def unsqueeze_(self, dim):
        return self._reshaped_in_place(self.unsqueeze(dim), "UnsqueezeBackward1")

    def t_(self):
        return self._reshaped_in_place(self.t(), "TBackward1")

    def transpose_(self, dim0, dim1):
        return self._reshaped_in_place(self.transpose(dim0, dim1), "TransposeBackward1")

    swapaxes_ = swapdims_ = transpose_

    def resize_(self, *sizes, memory_format=None):
        """The first ``prod(sizes)`` elements (in C order) in the new shape; new elements
        (when it grows) are zeros (PyTorch leaves them uninitialised)."""
        sizes = _size_args(sizes)
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        self._check_inplace()
        flat = self._data.reshape(-1)
        n = int(np.prod(sizes, dtype=np.int64))
        xp = runtime.array_ns(flat)
        if n > flat.size:
            flat = xp.concatenate([flat, xp.zeros(n - flat.size, dtype=flat.dtype)])
        self._data = flat[:n].reshape(sizes).copy()
        self._vc.value += 1
        return self

    def resize_as_(self, other, memory_format=None):
        return self.resize_(other.shape)

    def expand(self, *sizes):
        sizes = _size_args(sizes)
        lead = len(sizes) - self.ndim
        if lead < 0:
            raise RuntimeError(f"expand(torch.FloatTensor{{[{', '.join(map(str, self.shape))}]}}, "
                               f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided "
                               f"({len(sizes)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({self.ndim})")
        shape = tuple(self.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        for i in range(self.ndim):
            have, want = self.shape[i], shape[lead + i]
            if have != want and have != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size "
                    f"({have}) at non-singleton dimension {lead + i}.  Target sizes: "
                    f"[{', '.join(map(str, sizes))}].  Tensor sizes: "
                    f"[{', '.join(map(str, self.shape))}]")
        return apply(np.broadcast_to, (self, shape), name="ExpandBackward0", view=True)

    def expand_as(self, other):
        return self.expand(other.shape)

    def repeat(self, *sizes):
        return apply(np.tile, (self, _size_args(sizes)), name="RepeatBackward0")

    def flip(self, *dims):
        dims = tuple(_wrap_dim(d, self.ndim) for d in _size_args(dims))
        return apply(np.flip, (self,), {"axis": dims}, name="FlipBackward0")

    def roll(self, shifts, dims=None):
        return apply(np.roll, (self, shifts), {"axis": dims}, name="RollBackward0")

    def contiguous(self, memory_format=None):
        if self.is_contiguous():
            return self
        # a copy in C order (clone keeps the layout, as PyTorch's preserve_format does)
        return apply(np.copy, (self,), name="CloneBackward0",
                     forward=lambda a: runtime.array_ns(a).ascontiguousarray(a))

    def clone(self, memory_format=None):
        return apply(np.copy, (self,), name="CloneBackward0")

    def chunk(self, chunks, dim=0):
        d = _wrap_dim(dim, self.ndim)
        n = self.shape[d]
        step = -(-n // chunks)
        return self.split(step, d)

    def split(self, split_size, dim=0):
        d = _wrap_dim(dim, self.ndim)
        n = self.shape[d]
        if isinstance(split_size, numbers.Integral):
            sizes = [split_size] * (n // split_size) + ([n % split_size] if n % split_size else [])
        else:
            sizes = list(split_size)
        kind = "Split" if isinstance(split_size, numbers.Integral) else "SplitWithSizes"
        out, start = [], 0
        for k, s in enumerate(sizes):
            index = (slice(None),) * d + (slice(start, start + s),)
            out.append(_one_of_several(self._index(index, "SplitBackward0"), k, kind))
            start += s
        return tuple(out)

    def unbind(self, dim=0):
        d = _wrap_dim(dim, self.ndim)
        return tuple(_one_of_several(self._index((slice(None),) * d + (i,), "UnbindBackward0"),
                                     i, "Unbind") for i in range(self.shape[d]))

    def trace(self):
        return apply(np.trace, (self,), name="TraceBackward0")

    def tril(self, diagonal=0):
        return apply(np.tril, (self, diagonal), name="TrilBackward0")

    def triu(self, diagonal=0):
        return apply(np.triu, (self, diagonal), name="TriuBackward0")

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return apply(np.diagonal, (self, offset, dim1, dim2), name="DiagonalBackward0",
                     view=True)

    def diag(self, diagonal=0):
        if self.ndim not in (1, 2):
            raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % self.ndim)
        return apply(np.diag, (self, diagonal),
                     name="DiagEmbedBackward0" if self.ndim == 1 else "DiagonalBackward0_copy")

    def narrow(self, dim, start, length):
        d = _wrap_dim(dim, self.ndim)
        start = int(start) % self.shape[d] if int(start) < 0 else int(start)
        if start + length > self.shape[d]:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                               f"({self.shape[d]}).")
        return self._index((slice(None),) * d + (slice(start, start + length),),
                           "SliceBackward0")

    def unfold(self, dimension, size, step):
        """Every slice of ``size`` entries along ``dimension``, ``step`` apart, as a new last
        dimension (PyTorch's windows; here a copy, not a view of ``self``)."""
        d = _wrap_dim(dimension, max(self.ndim, 1))
        length = self.shape[d] if self.ndim else 1
        if size > length:
            raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but "
                               f"size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if self.ndim == 0:
            return self.reshape(1)
        starts = np.arange((length - size) // step + 1) * step
        windows = starts[:, None] + np.arange(size)
        out = self._index((slice(None),) * d + (windows,), "UnfoldBackward0")
        return out.movedim(d + 1, -1) if d + 1 != out.ndim - 1 else out

    def select(self, dim, index):
        d = _wrap_dim(dim, self.ndim)
        return self._index((slice(None),) * d + (int(index),), "SelectBackward0")

    def movedim(self, source, destination):
        return apply(np.moveaxis, (self, source, destination), name="PermuteBackward0",
                     view=True)

    moveaxis = movedim

    def index_select(self, dim, index):
        d = _wrap_dim(dim, self.ndim)
        return self._index((slice(None),) * d + (index,), "IndexSelectBackward0")


def _reshape_is_view(a, shape):
    """Whether ``a`` can take ``shape`` without copying its data."""
    if a.size == 0 or a.flags.c_contiguous:
        return True
    if isinstance(a, np.ndarray):
        try:
            np.reshape(a, shape, copy=False)
            return True
        except ValueError:
            return False
    return False


def _check_reshape(t, shape):
    n = t.numel()
    known = 1
    free = [i for i, s in enumerate(shape) if s == -1]
    for s in shape:
        if s != -1:
            known *= s
    ok = (known == n) if not free else (len(free) == 1 and known and n % known == 0) or \
        (len(free) == 1 and n == 0 and known == 0)
    if not ok:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                           f"size {n}")

