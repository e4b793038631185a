"""Tensor methods that reduce (``sum``, ``mean``, ``max`` with indices, ``norm``,
``softmax``...) or order (``sort``, ``topk``) along dimensions."""
import numpy as np

from .. import runtime
from ..rules import lookup
from . import dtypes
from .arithmetic import _renamed
from .autograd import fused
from .core import Tensor, _ReturnType, _bool, _int, _return_type, _wrap_dim
from .dispatch import _dims, apply
from .summation import cpu_mean, cpu_sum

__all__ = ["ReductionMethods"]


def _times_reciprocal(a, b):
    return a * (1 / b)


class ReductionMethods:
    """Attached to :class:`~.core.Tensor` by :mod:`.methods`."""

    # -- reductions -------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None, axis=None):
        dim = axis if dim is None else dim
        x = self
        if dtype is not None:
            x = x.to(dtypes.to_dtype(dtype))
        elif x._data.dtype.kind in "biu":
            x = x.to(dtypes.int64)
        if dim is None:
            return apply(np.sum, (x,), name="SumBackward0", forward=cpu_sum)
        return apply(np.sum, (x,), {"axis": _dims(dim, x.ndim), "keepdims": keepdim},
                     name="SumBackward1", forward=cpu_sum)

    def mean(self, dim=None, keepdim=False, dtype=None, axis=None):
        dim = axis if dim is None else dim
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        if not (x.is_floating_point() or x.is_complex()):
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                               f"a floating point or complex dtype. Got: {x.dtype.short}")
        if dim is None:
            return apply(np.mean, (x,), name="MeanBackward0", forward=cpu_mean)
        return apply(np.mean, (x,), {"axis": _dims(dim, x.ndim), "keepdims": keepdim},
                     name="MeanBackward1", forward=cpu_mean)

    def prod(self, dim=None, keepdim=False, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        if dim is None:
            return apply(np.prod, (x,), name="ProdBackward0")
        return apply(np.prod, (x,), {"axis": _dims(dim, x.ndim), "keepdims": keepdim},
                     name="ProdBackward1")

    def _var(self, func, name, dim, unbiased, keepdim, correction):
        ddof = correction if correction is not None else (1 if unbiased in (None, True) else 0)
        if isinstance(dim, _bool):                 # x.std(False): the old positional unbiased
            dim, ddof = None, _int(dim)
        kw = {"ddof": ddof}
        if dim is not None:
            kw.update(axis=_dims(dim, self.ndim), keepdims=keepdim)
        return apply(func, (self,), kw, name=name, floating=True)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return self._var(np.var, "VarBackward0", dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return self._var(np.std, "StdBackward0", dim, unbiased, keepdim, correction)

    def _extreme(self, func, argfunc, other, dim, keepdim, what):
        if isinstance(other, Tensor):
            return self.maximum(other) if what == "max" else self.minimum(other)
        if other is not None:          # x.max(1): the dim given positionally
            dim = other
        if dim is None:
            if self.numel() == 0:
                raise RuntimeError(f"{what}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return apply(func, (self,), name=f"{what.capitalize()}Backward1")
        d = _wrap_dim(dim, self.ndim)
        values = apply(func, (self,), {"axis": d, "keepdims": keepdim},
                       name=f"{what.capitalize()}Backward0")
        indices = Tensor._make(runtime.array_ns(self._data).asarray(
            argfunc(self._data, axis=d, keepdims=keepdim)).astype(np.int64))
        return _ReturnType(values, indices, what)

    def max(self, dim=None, keepdim=False, *, other=None):
        return self._extreme(np.max, np.argmax, dim if isinstance(dim, Tensor) else None,
                             None if isinstance(dim, Tensor) else dim, keepdim, "max")

    def min(self, dim=None, keepdim=False):
        return self._extreme(np.min, np.argmin, dim if isinstance(dim, Tensor) else None,
                             None if isinstance(dim, Tensor) else dim, keepdim, "min")

    def amax(self, dim=(), keepdim=False):
        axis = None if dim in ((), None) else _dims(dim, self.ndim)
        return apply(np.max, (self,), {"axis": axis, "keepdims": keepdim}, name="AmaxBackward0")

    def amin(self, dim=(), keepdim=False):
        axis = None if dim in ((), None) else _dims(dim, self.ndim)
        return apply(np.min, (self,), {"axis": axis, "keepdims": keepdim}, name="AminBackward0")

    def aminmax(self, *, dim=None, keepdim=False):
        lo, hi = self.amin(() if dim is None else dim, keepdim), \
            self.amax(() if dim is None else dim, keepdim)
        return _AMINMAX(_renamed(lo, "AminmaxBackward0"), _renamed(hi, "AminmaxBackward0"))

    def median(self, dim=None, keepdim=False):
        """The lower of the two middle values (PyTorch's median), and its index along
        ``dim``; without ``dim``, of all entries (one value)."""
        if dim is None:
            return self._kth(self.reshape(-1), None, 0, False, "MedianBackward0")[0]
        values, indices = self._kth(self, None, dim, keepdim, "MedianBackward1")
        return _ReturnType(values, indices, "median")

    def kthvalue(self, k, dim=-1, keepdim=False):
        values, indices = self._kth(self, k - 1, dim, keepdim, "KthvalueBackward0")
        return _ReturnType(values, indices, "kthvalue")

    @staticmethod
    def _kth(x, k, dim, keepdim, name):
        d = _wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return _renamed(x.clone(), name), Tensor._make(np.zeros((), dtype=np.int64))
        n = x.shape[d]
        k = (n - 1) // 2 if k is None else k
        if not 0 <= k < n:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
        pick = np.take(np.argsort(x._data, axis=d, kind="stable"), [k], axis=d)
        values = _gather(x, Tensor._make(pick), d, name)
        if not keepdim:
            values, pick = _renamed(values.squeeze(d), name), pick.squeeze(d)
        return values, Tensor._make(pick.astype(np.int64))

    def mode(self, dim=-1, keepdim=False):
        """The most frequent value along ``dim`` (the smallest of equally frequent ones)
        and the index of its last occurrence, as PyTorch."""
        d = _wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            return _ReturnType(_renamed(self.clone(), "ModeBackward0"),
                               Tensor._make(np.zeros((), dtype=np.int64)), "mode")
        rows = np.moveaxis(self._data, d, -1)
        flat = rows.reshape(-1, rows.shape[-1])
        pick = np.empty(len(flat), dtype=np.int64)
        for r, row in enumerate(flat):
            values, counts = np.unique(row, return_counts=True)
            best = values[np.argmax(counts)]          # (unique sorts: ties take the smallest)
            pick[r] = np.flatnonzero(row == best)[-1]
        pick = np.moveaxis(pick.reshape(rows.shape[:-1] + (1,)), -1, d)
        values = _gather(self, Tensor._make(pick), d, "ModeBackward0")
        if not keepdim:
            values, pick = _renamed(values.squeeze(d), "ModeBackward0"), pick.squeeze(d)
        return _ReturnType(values, Tensor._make(pick), "mode")

    def var_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return (_renamed(self.var(dim, unbiased, keepdim, correction=correction),
                         "VarMeanBackward0"), _renamed(self.mean(dim, keepdim=keepdim)
                                                       if dim is not None else self.mean(),
                                                       "VarMeanBackward0"))

    def std_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return (_renamed(self.std(dim, unbiased, keepdim, correction=correction),
                         "StdMeanBackward0"), _renamed(self.mean(dim, keepdim=keepdim)
                                                       if dim is not None else self.mean(),
                                                       "StdMeanBackward0"))

    def logcumsumexp(self, dim):
        """``log(cumsum(exp(x)))`` along ``dim``, each step a stable ``logaddexp``."""
        d = _wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            return _renamed(self.clone(), "LogcumsumexpBackward0")
        steps = [self.select(d, 0)]
        for i in range(1, self.shape[d]):
            steps.append(steps[-1].logaddexp(self.select(d, i)))
        return apply(np.stack, (steps,), {"axis": d}, name="LogcumsumexpBackward0")

    def cummax(self, dim):
        return self._cumulative_extreme(dim, np.greater_equal, "cummax", "CummaxBackward0")

    def cummin(self, dim):
        return self._cumulative_extreme(dim, np.less_equal, "cummin", "CumminBackward0")

    def _cumulative_extreme(self, dim, better, what, name):
        """The running extreme and, as PyTorch, the index of its last occurrence."""
        d = _wrap_dim(dim, self.ndim)
        x = np.moveaxis(self._data, d, 0) if self.ndim else self._data.reshape(1)
        idx = np.zeros(x.shape, dtype=np.int64)
        best = x[0].copy()
        for i in range(1, x.shape[0]):
            take = better(x[i], best) | np.isnan(x[i])
            best = np.where(take, x[i], best)
            idx[i] = np.where(take, i, idx[i - 1])
        idx = np.moveaxis(idx, 0, d) if self.ndim else idx.reshape(())
        indices = Tensor._make(idx)
        return _ReturnType(_gather(self, indices, d, name) if self.ndim
                           else _renamed(self.clone(), name), indices, what)

    def argmax(self, dim=None, keepdim=False):
        return self._argext(np.argmax, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return self._argext(np.argmin, dim, keepdim)

    def _argext(self, func, dim, keepdim):
        axis = None if dim is None else _wrap_dim(dim, self.ndim)
        r = func(self._data, axis=axis, keepdims=keepdim if axis is not None else False)
        return Tensor._make(runtime.array_ns(self._data).asarray(r).astype(np.int64))

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        ord_ = 2 if p in ("fro", None, 2) else p
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        vector_norm = getattr(np.linalg, "vector_norm", None)
        if vector_norm is not None and lookup(vector_norm) is not None:
            kw = {"ord": ord_, "keepdims": keepdim}
            if dim is not None:
                kw["axis"] = _dims(dim, x.ndim)
            return apply(vector_norm, (x,), kw, name="LinalgVectorNormBackward0", floating=True)
        if dim is None:
            x = x.reshape(-1)
            return apply(np.linalg.norm, (x,), {"ord": ord_},
                         name="LinalgVectorNormBackward0", floating=True)
        return apply(np.linalg.norm, (x,), {"ord": ord_, "axis": _dims(dim, x.ndim),
                                            "keepdims": keepdim},
                     name="LinalgVectorNormBackward0", floating=True)

    def cumsum(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        return apply(np.cumsum, (x,), {"axis": _wrap_dim(dim, x.ndim)}, name="CumsumBackward0")

    def cumprod(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        return apply(np.cumprod, (x,), {"axis": _wrap_dim(dim, x.ndim)}, name="CumprodBackward0")

    # softmax, log_softmax, logsumexp: built from primitives with rules (the table has no
    # single rule for them); the last node carries PyTorch's name.
    def logsumexp(self, dim, keepdim=False):
        # the shift is a constant (no node): the maximum, 0 where it is not finite
        xp = runtime.array_ns(self._data)
        m = xp.max(self._data, axis=_wrap_dim(dim, self.ndim), keepdims=True)
        m = Tensor._make(xp.where(xp.isfinite(m), m, xp.zeros_like(m)))
        total = (self - m).exp().sum(dim, keepdim=True)
        if not keepdim:
            total, m = total.squeeze(dim), m.squeeze(dim)
        return apply(np.add, (total.log(), m), name="LogsumexpBackward0")

    def softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        e = (x - x.detach().amax(dim, keepdim=True)).exp()
        # PyTorch's CPU kernel multiplies by the sum's reciprocal (rows need not sum to 1)
        return apply(np.true_divide, (e, e.sum(dim, keepdim=True)), name="SoftmaxBackward0",
                     forward=_times_reciprocal)

    def log_softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtypes.to_dtype(dtype))
        return fused.log_softmax(x, _wrap_dim(dim, x.ndim), _log_softmax)

    def all(self, dim=None, keepdim=False):
        kw = {} if dim is None else {"axis": _wrap_dim(dim, self.ndim), "keepdims": keepdim}
        return apply(np.all, (self,), kw)

    def any(self, dim=None, keepdim=False):
        kw = {} if dim is None else {"axis": _wrap_dim(dim, self.ndim), "keepdims": keepdim}
        return apply(np.any, (self,), kw)

    def count_nonzero(self, dim=None):
        return apply(np.count_nonzero, (self,), {} if dim is None else {"axis": dim})

    # -- ordering ---------------------------------------------------------------------------
    def sort(self, dim=-1, descending=False):
        d = _wrap_dim(dim, self.ndim)
        idx = np.argsort(-self._data if descending else self._data, axis=d, kind="stable")
        indices = Tensor._make(idx.astype(np.int64))
        values = _gather(self, indices, d, "SortBackward0")
        return _ReturnType(values, indices, "sort")

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """Sorted distinct values (rows along ``dim``); not differentiable, so no node."""
        xp = runtime.array_ns(self._data)
        values, inverse, counts = xp.unique(self._data, return_inverse=True, return_counts=True,
                                            axis=dim)
        out = [Tensor._make(values)]
        if return_inverse:
            out.append(Tensor._make(inverse.reshape(self.shape if dim is None else -1)
                                    .astype(np.int64)))
        if return_counts:
            out.append(Tensor._make(counts.astype(np.int64)))
        return out[0] if len(out) == 1 else tuple(out)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Each run of equal consecutive values (rows along ``dim``) once; no node."""
        xp = runtime.array_ns(self._data)
        d = 0 if dim is None else _wrap_dim(dim, self.ndim)
        flat = self._data.reshape(-1) if dim is None else xp.moveaxis(self._data, d, 0)
        differs = flat[1:] != flat[:-1]
        change = differs.reshape(len(differs), -1).any(axis=1) if differs.size else \
            xp.zeros(len(differs), dtype=bool)
        starts = xp.concatenate([xp.ones(min(len(flat), 1), dtype=bool), change])
        values = flat[starts]
        out = [Tensor._make(values if dim is None else xp.moveaxis(values, 0, d))]
        if return_inverse:
            inverse = xp.cumsum(starts) - 1
            out.append(Tensor._make(inverse.reshape(self.shape if dim is None else -1)
                                    .astype(np.int64)))
        if return_counts:
            edges = xp.flatnonzero(xp.concatenate([starts, xp.ones(1, dtype=bool)]))
            out.append(Tensor._make(xp.diff(edges).astype(np.int64)))
        return out[0] if len(out) == 1 else tuple(out)

    def argsort(self, dim=-1, descending=False):
        return self.sort(dim, descending)[1]

    def topk(self, k, dim=-1, largest=True, sorted=True):
        values, indices = self.sort(dim, descending=largest)
        d = _wrap_dim(dim, self.ndim)
        index = (slice(None),) * d + (slice(0, k),)
        return _ReturnType(_gather(self, indices[index], d, "TopkBackward0"), indices[index],
                           "topk")

    def take_along_dim(self, indices, dim):
        return _gather(self, indices, dim, "TakeAlongDimBackward0")

    def gather(self, dim, index, *, sparse_grad=False):
        return _gather(self, index, _wrap_dim(dim, self.ndim), "GatherBackward0")


def _log_softmax(x, dim):
    # recorded as one node (fused.log_softmax) unless its parts' nodes are needed
    return apply(np.subtract, (x, x.logsumexp(dim, keepdim=True)), name="LogSoftmaxBackward0")


def _gather(input, indices, dim, name):
    return apply(np.take_along_axis, (input, indices._data), {"axis": dim}, name=name)


_AMINMAX = _return_type("aminmax", "min max")
