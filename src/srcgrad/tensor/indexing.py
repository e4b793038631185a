"""Tensor methods for indexing (``x[i]``, ``x[i] = v``), selection (``where``,
``masked_fill``) and in-place change (``add_``, ``+=``, ``copy_``, ``zero_``...).

In-place operations compute the new value out of place, write it into the
tensor's array, bump the version counter and, when recording, make the new node
the tensor's ``grad_fn`` (PyTorch's "rebase history").
"""
import builtins
import numbers
import operator

import numpy as np

from .. import runtime
from . import dtypes, grad_mode
from .autograd.nodes import RuleNode, _node_class
from .core import Tensor, _bool, _int
from .dispatch import _as_tensor_like, _unwrap, apply
from .generator import _rng

__all__ = ["IndexingMethods", "where", "inplace_method"]


class IndexingMethods:
    """Attached to :class:`~.core.Tensor` by :mod:`.methods`."""

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, index):
        if self.ndim == 0:
            _check_zero_dim_index(index if isinstance(index, tuple) else (index,))
        index = _index_arrays(index)
        parts = index if isinstance(index, tuple) else (index,)
        if not builtins.all(_basic(p) for p in parts):
            return self._index(index, "IndexBackward0")
        # basic indexing: one node per component, as PyTorch (Select, Slice, Unsqueeze)
        n_real = builtins.sum(1 for p in parts if p is not None and p is not Ellipsis)
        if n_real > self.ndim:
            raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
        out, dim, src = self, 0, 0          # dim: in ``out``; src: in ``self``
        for p in parts:
            if p is Ellipsis:
                dim += self.ndim - n_real
                src += self.ndim - n_real
            elif p is None:
                out = out._index((slice(None),) * dim + (None,), "UnsqueezeBackward0")
                dim += 1
            elif isinstance(p, slice):
                if p != slice(None):
                    out = out._index((slice(None),) * dim + (p,), "SliceBackward0")
                dim += 1
                src += 1
            else:
                size = out.shape[dim]
                if not -size <= p < size:
                    raise IndexError(f"index {p} is out of bounds for dimension {src} with "
                                     f"size {size}")
                out = out._index((slice(None),) * dim + (p,), "SelectBackward0")
                src += 1
        if out is self:
            out = self._index((Ellipsis,), "AliasBackward0")
        return out

    def _select(self, i, name):
        return self._index((i,), name)

    def _index(self, index, name):
        index = _index_arrays(index)
        parts = index if isinstance(index, tuple) else (index,)
        if builtins.all(_basic(p) for p in parts) and Ellipsis not in parts:
            index = tuple(parts) + (Ellipsis,)   # a 0-d result stays a view, not a scalar
        out = apply(operator.getitem, (self, index), name=name, view=True)
        if out._base is not None:
            out._view_index = (self, index)
            if self._requires_grad and not grad_mode.is_grad_enabled():
                out._made_in_no_grad = True       # changing it in place later is refused
        return out

    def __setitem__(self, index, value):
        index = _index_arrays(index)
        if grad_mode.is_grad_enabled() and self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        if not _recording(self, value):
            self._check_inplace()
            self._data[index] = _unwrap(value) if not isinstance(value, Tensor) \
                else _on_device(value, self)._data
            self._vc.value += 1
            return
        value = value if isinstance(value, Tensor) else Tensor._make(
            runtime.array_ns(self._data).asarray(value, dtype=self._data.dtype))
        value = _on_device(value, self)
        if value.dtype is not self.dtype:
            value = value.to(self.dtype)
        self._inplace(lambda old: _setitem(old, index, value), value)

    # -- in place ---------------------------------------------------------------------------
    def _check_inplace(self):
        if not grad_mode.is_grad_enabled():
            return
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        if self.__dict__.get("_made_in_no_grad"):
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad "
                "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                "forbidden. You can clarify your code by moving both the view and the inplace "
                "either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).")
        base = self._base
        if base is not None and self._grad_fn is not None and (
                base._grad_fn is None and base._requires_grad or _views_a_leaf(self)):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")

    def _check_inplace_on_view(self):
        """PyTorch's refusal for a view changed in place while recording: one of several
        views a function returned (unbind, split, chunk)."""
        multi = self.__dict__.get("_multi_view")
        if multi is None:
            return
        start = f"Output {multi[0]} of {multi[1]} is a view and is being modified inplace." \
            if self._grad_fn is not None else "A view was created in no_grad mode and is " \
            "being modified inplace with grad mode enabled."
        raise RuntimeError(
            f"{start} This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one.")

    def _inplace(self, compute, *others):
        """Replace this tensor's value by ``compute(old)``, in place.

        When recording, ``old`` is a snapshot of the current value that keeps
        this tensor's place in the graph, and the node ``compute`` records
        becomes this tensor's ``grad_fn`` (PyTorch's "rebase history").
        """
        self._check_inplace()
        if not _recording(self, *others):
            self._write(compute(self))
            return self
        if self._base is not None:
            self._check_inplace_on_view()
            return self._inplace_on_view(compute)
        new = compute(self._snapshot())
        self._write(new)
        self._set_history(new._grad_fn)
        return self

    def _inplace_on_view(self, compute):
        """An in-place change of a view ``parent[index]`` while recording: the parent
        gets the new value by ``parent[index] = new`` (a ``CopySlices`` node, recursively
        up to the base), and this view is re-read from the new parent."""
        if self._view_index is None:
            raise NotImplementedError(
                "srcgrad: an in-place operation that needs a gradient on a view made by "
                "view/reshape/transpose/expand is not supported; index the base instead "
                "(x[i] = ...) or use an out-of-place operation")
        parent, index = self._view_index
        parent[index] = compute(self._snapshot())
        fresh = apply(operator.getitem, (parent, index), name="AsStridedBackward0")
        self._set_history(fresh._grad_fn)
        return self

    def _snapshot(self):
        """A copy of the current value in this tensor's place in the graph."""
        old = Tensor._make(self._data.copy(), self._requires_grad, self._grad_fn)
        old._acc = self._acc
        return old

    def _write(self, new):
        if new.dtype is not self.dtype and not dtypes.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {new.dtype.short} can't be cast to the desired "
                               f"output type {self.dtype.short}")
        if new._data.shape != self._data.shape:
            try:
                fits = np.broadcast_shapes(new._data.shape, self._data.shape) == self._data.shape
            except ValueError:
                fits = False
            if not fits:
                raise RuntimeError(f"output with shape [{', '.join(map(str, self.shape))}] "
                                   "doesn't match the broadcast shape "
                                   f"[{', '.join(map(str, new.shape))}]") from None
        runtime.array_ns(self._data).copyto(self._data, new._data, casting="unsafe")
        self._vc.value += 1

    def _set_history(self, node):
        old = self._grad_fn
        if node is None:
            return
        self._grad_fn = node
        self._requires_grad = True
        if self._retains_grad and old is not None:
            node._retain(self)

    def add_(self, other, alpha=1):
        return self._inplace(lambda x: x.add(other, alpha=alpha), other)

    def sub_(self, other, alpha=1):
        return self._inplace(lambda x: x.sub(other, alpha=alpha), other)

    def mul_(self, other):
        return self._inplace(lambda x: x * other, other)

    def lerp_(self, end, weight):
        return self._inplace(lambda x: x.lerp(end, weight), end)

    def div_(self, other, rounding_mode=None):
        return self._inplace(lambda x: x.div(other, rounding_mode=rounding_mode), other)

    def pow_(self, exponent):
        return self._inplace(lambda x: x ** exponent, exponent)

    def clamp_(self, min=None, max=None):
        return self._inplace(lambda x: x.clamp(min, max), min, max)

    clip_ = clamp_

    def copy_(self, src, non_blocking=False):
        src = _as_tensor_like(src, self)
        return self._inplace(lambda x: _copy_into(x, src), src)

    def fill_(self, value):
        return self._inplace(lambda x: _filled(x, value), value)

    def zero_(self):
        return self.fill_(0)

    def masked_fill_(self, mask, value):
        return self._inplace(lambda x: x.masked_fill(mask, value), value)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __ipow__(self, other):
        return self.pow_(other)

    def uniform_(self, a=0.0, b=1.0, generator=None):
        return self._inplace(lambda x: _like_values(
            x, _rng(generator).uniform(tuple(x.shape), x._data.dtype, a, b)))

    def normal_(self, mean=0.0, std=1.0, generator=None):
        return self._inplace(lambda x: _like_values(
            x, _rng(generator).normal(tuple(x.shape), x._data.dtype, mean, std)))

    def exponential_(self, lambd=1.0, *, generator=None):
        return self._inplace(lambda x: _like_values(
            x, _rng(generator).exponential(tuple(x.shape), x._data.dtype, lambd)))

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """Indices drawn from each row's (unnormalised) probabilities, as PyTorch draws
        them: with replacement, a float64 uniform per sample looked up in the row's
        cumulative sums; without, the largest ``p / Exponential(1)`` (one draw each)."""
        p = self._data
        if p.ndim not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        if p.dtype.kind != "f":
            raise RuntimeError(f"multinomial only supports floating-point dtypes for input, "
                               f"got: {self.dtype.short}")
        if num_samples <= 0:
            raise RuntimeError("cannot sample n_sample <= 0 samples")
        n = p.shape[-1]
        if not replacement and num_samples > n:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        if not np.isfinite(p).all() or (p < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        rows = p.reshape(-1, n)
        if (rows.sum(axis=1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        gen = _rng(generator)
        if replacement:
            out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
            for i, row in enumerate(rows):
                cum = np.cumsum(row)
                cum = cum / cum[-1]
                cum[-1] = 1
                out[i] = np.searchsorted(cum, gen.uniform((num_samples,), np.float64), "left")
        else:
            q = p / gen.exponential(p.shape, p.dtype)
            q = q.reshape(-1, n)
            out = np.argsort(-q, axis=1, kind="stable")[:, :num_samples]
        return Tensor._make(out.reshape(p.shape[:-1] + (num_samples,)))

    def random_(self, low=0, high=None, generator=None):
        if high is None and low == 0:
            span = 2 ** 63 if self._data.dtype == np.int64 else 2 ** 24
            low, high = 0, span
        elif high is None:
            low, high = 0, low
        return self._inplace(lambda x: _like_values(
            x, _rng(generator).integers(low, high, tuple(x.shape))))

    def bernoulli_(self, p=0.5, *, generator=None):
        """Each entry 1 with probability ``p`` (a number, or a tensor broadcast to self)."""
        def draw(x):
            if isinstance(p, Tensor):
                probs = np.broadcast_to(p._data, x._data.shape)
                return _like_values(x, _rng(generator).bernoulli_like(probs))
            return _like_values(x, _rng(generator).bernoulli(tuple(x.shape), p))
        return self._inplace(draw)

    def bernoulli(self, p=None, *, generator=None):
        """A new tensor of 0s and 1s: 1 with probability ``self`` (or ``p`` when given)."""
        out = Tensor._make(np.empty_like(self._data))
        return out.bernoulli_(self.detach() if p is None else p, generator=generator)

    # -- selection --------------------------------------------------------------------------
    def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
        """``self[index[i][j]][j] = src[i][j]`` (dim 0; likewise for other dims), by
        indexed assignment, so gradients flow to ``self`` (not where written) and ``src``."""
        if reduce is not None:
            raise NotImplementedError("srcgrad: scatter_(reduce=...) is not supported; "
                                      "use scatter_add_ for reduce='add'")
        key, part = _scatter_key(self, dim, index, value if src is None else src)
        self[key] = part
        return _renamed_node(self, "ScatterBackward0" if isinstance(src, Tensor)
                             else "ScatterBackward1")

    def scatter(self, dim, index, src=None, value=None, *, reduce=None):
        return self.clone().scatter_(dim, index, src, value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        """``self`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (dim 0; likewise for
        other dims); repeated indices accumulate."""
        key, part = _scatter_key(self, dim, index, src)
        if isinstance(part, Tensor) and part.dtype is not self.dtype:
            part = part.to(self.dtype)
        return apply(runtime.add_at, (self.clone(), key, part), name="ScatterAddBackward0")

    def scatter_add_(self, dim, index, src):
        return self._inplace(lambda x: x.scatter_add(dim, index, src), src)

    def index_add(self, dim, index, source, *, alpha=1):
        """``self`` with ``source``'s slices (times ``alpha``) added at ``index`` along
        ``dim``; repeated indices accumulate."""
        d = dim + self.ndim if dim < 0 else dim
        key = (slice(None),) * d + (np.asarray(_unwrap(index)).astype(np.int64),)
        part = source if alpha == 1 else source * alpha
        if isinstance(part, Tensor) and part.dtype is not self.dtype:
            part = part.to(self.dtype)
        return apply(runtime.add_at, (self.clone(), key, part), name="IndexAddBackward0")

    def index_add_(self, dim, index, source, *, alpha=1):
        return self._inplace(lambda x: x.index_add(dim, index, source, alpha=alpha), source)

    def masked_fill(self, mask, value):
        return apply(np.where, (mask, value, self), name="MaskedFillBackward0")

    def masked_select(self, mask):
        """The elements where ``mask`` (broadcast with ``self``) is true, as a 1-D tensor."""
        m = np.asarray(_unwrap(mask)).astype(bool)
        shape = np.broadcast_shapes(m.shape, tuple(self.shape))
        x = self if tuple(self.shape) == shape else self.expand(shape)
        out = x[Tensor._make(np.broadcast_to(m, shape).copy())]
        return _renamed_node(out, "MaskedSelectBackward0")

    def take(self, index):
        """``self.flatten()[index]``, of ``index``'s shape."""
        idx = np.asarray(_unwrap(index)).astype(np.int64)
        return _renamed_node(self.reshape(-1)[Tensor._make(idx)], "TakeBackward0")

    def index_put_(self, indices, values, accumulate=False):
        """``self[indices] = values``; with ``accumulate``, added (repeated indices add)."""
        key = tuple(np.asarray(_unwrap(i)) if isinstance(i, Tensor) else i for i in indices)
        if not accumulate:
            self[key] = values
            return self
        values = values if isinstance(values, Tensor) else Tensor._make(
            np.asarray(values, dtype=self._data.dtype))
        return self._inplace(lambda x: apply(runtime.add_at, (x.clone(), key, values),
                                             name="IndexPutBackward0"), values)

    def index_put(self, indices, values, accumulate=False):
        return self.clone().index_put_(indices, values, accumulate)

    def where(self, condition, other):
        return where(condition, self, other)


def where(condition, input=None, other=None):
    """``torch.where(cond, x, y)``; ``torch.where(cond)`` gives the indices."""
    if input is None and other is None:
        return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(_unwrap(condition)))
    ref = input if isinstance(input, Tensor) else other
    target = dtypes.result_type(*[a for a in (input, other) if isinstance(a, (Tensor, numbers.Number))])
    input, other = (a.to(target) if isinstance(a, Tensor) and a.dtype is not target else a
                    for a in (input, other))
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("where(): expected a tensor for input or other")
    return apply(np.where, (condition, input, other), name="WhereBackward0")


def inplace_method(method):
    """``x.<method>_(...)``: ``x.<method>(...)`` written into ``x``."""
    def method_(self, *args, **kwargs):
        return self._inplace(lambda x: getattr(x, method)(*args, **kwargs), *args)
    method_.__name__ = method + "_"
    method_.__qualname__ = f"Tensor.{method}_"
    return method_


def _setitem(x, index, value):
    """``x`` with ``x[index] = value``, out of place and recorded: PyTorch's CopySlices
    (IndexPutBackward0 for an index with arrays or masks: PyTorch's index_put_),
    differentiated by the rule of ``runtime.setitem``."""
    parts = index if isinstance(index, tuple) else (index,)
    name = "CopySlices" if builtins.all(_basic(p) for p in parts) else "IndexPutBackward0"
    return apply(runtime.setitem, (x, index, value), name=name)


def _renamed_node(t, name):
    """``t`` with its rule node printed as ``name`` (PyTorch's name for the operation)."""
    if isinstance(t._grad_fn, RuleNode):
        t._grad_fn.__class__ = _node_class(name)
    return t


def _views_a_leaf(view):
    """Whether ``view``'s node is the view operation applied to a leaf that requires grad
    (``y.t()`` of a leaf ``y`` that is itself a view of data)."""
    node = view._grad_fn
    edges = getattr(node, "_edges", None)
    return bool(edges) and len(edges) == 1 and edges[0][0] is not None and \
        type(edges[0][0]).__name__ == "AccumulateGrad" and \
        type(node).__name__ not in ("CopySlices", "AsStridedBackward0")


def _recording(*values):
    return grad_mode.is_grad_enabled() and builtins.any(
        isinstance(v, Tensor) and v._requires_grad for v in values)


def _copy_into(x, src):
    """``x.copy_(src)``: the value of ``src`` broadcast to ``x``'s shape and dtype."""
    out = src.to(x.dtype) if src.dtype is not x.dtype else src
    if out.shape != x.shape:
        out = out.expand(x.shape)
    out = out.to(x.device) if out.device != x.device else out
    if out._requires_grad and grad_mode.is_grad_enabled():
        # a node of its own: x's new history, even where src is a leaf (else x would not
        # require grad, and src's gradient through x would be lost)
        out = apply(np.copy, (out,), name="CopyBackwards")
    return out


def _filled(x, value):
    if isinstance(value, Tensor):
        return _copy_into(x, value)
    xp = runtime.array_ns(x._data)
    return Tensor._make(xp.full(x._data.shape, value, dtype=x._data.dtype))


def _scatter_key(x, dim, index, src):
    """The advanced index that scatter writes through, and the part of ``src`` it writes."""
    d = dim + x.ndim if dim < 0 else dim
    idx = np.asarray(index._data if isinstance(index, Tensor) else index).astype(np.int64)
    if idx.ndim == 0 and x.ndim == 1:        # a 0-dim index of a vector: one entry, as PyTorch
        idx = idx.reshape(1)
        if isinstance(src, Tensor) and src.ndim == 0:
            src = src.reshape(1)
    if idx.ndim != x.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    grids = list(np.meshgrid(*[np.arange(n) for n in idx.shape], indexing="ij"))
    grids[d] = idx
    if isinstance(src, Tensor):
        src = src[tuple(slice(0, n) for n in idx.shape)]
    return tuple(grids), src


def _check_zero_dim_index(parts):
    """PyTorch's errors for an index a 0-dim tensor cannot take."""
    if len(parts) == 1 and isinstance(parts[0], numbers.Integral) and \
            not isinstance(parts[0], (_bool, np.bool_)):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    if builtins.any(isinstance(p, slice) for p in parts):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    for p in parts:
        data = p._data if isinstance(p, Tensor) else p
        if not (p is None or p is Ellipsis or isinstance(p, (_bool, np.bool_))
                or np.ndim(data) == 0 and getattr(data, "dtype", None) == np.bool_):
            raise IndexError("too many indices for tensor of dimension 0")


def _like_values(x, values):
    xp = runtime.array_ns(x._data)
    return Tensor._make(xp.asarray(values, dtype=x._data.dtype))


def _basic(p):
    return p is None or p is Ellipsis or isinstance(p, (slice, numbers.Integral)) and \
        not isinstance(p, (_bool, np.bool_))


def _index_arrays(index):
    """Tensors inside an index become arrays (integer tensors index, bool tensors mask)."""
    if isinstance(index, Tensor):
        if index.ndim == 0 and index._data.dtype.kind in "iu":
            return _int(index.item())
        return index._data
    if isinstance(index, tuple):
        return tuple(_index_arrays(i) for i in index)
    if isinstance(index, np.integer):
        return _int(index)
    return index


def _on_device(t, ref):
    if t.device != ref.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                           f"two devices, {ref.device} and {t.device}!")
    return t

