"""Fused nodes: one node for an operation that is computed with several Tensor operations.

``log_softmax`` and ``nll_loss`` are written with recorded operations (so their
value is the one those operations print); recorded step by step, cross-entropy
makes about eighteen nodes where PyTorch makes two.  Here the value is computed
the same way with grad mode off, and one node is recorded for it, named as
PyTorch names it, whose backward is computed directly on arrays:

* ``LogSoftmaxBackward0``: ``g - exp(out) * sum(g, dim)``;
* ``NllLossBackward0``: ``-(g / total) * weight[target]`` (PyTorch's order), sent
  to the target's entry of each row;
* ``AddmmBackward0``: a linear layer's three gradients;
* ``MseLossBackward0``: ``(input - target) * (2 / n) * g``, PyTorch's order;
* ``ReluBackward0``: PyTorch's threshold_backward, ``g`` where the result is not ``<= 0``.

With ``create_graph=True`` the same gradient is computed with recorded Tensor
operations (for ``log_softmax``, on the composed value recomputed from the saved
input), so it can be differentiated again.  Forward-mode AD and saved-tensor
hooks need the composed operations' nodes, so under them nothing is fused.
"""
import weakref

import numpy as np

from .. import grad_mode
from ..core import Tensor
from ..rounding import rounded_once
from ..summation import cpu_sum
from . import forward_ad as _forward
from .messages import _SECOND_TIME
from .nodes import InputMeta, Node, _modified_message
from .saved import HOOKS as _SAVED_HOOKS
from .composite import composite

__all__ = ["fusable", "log_softmax", "nll_loss", "addmm", "mse_loss", "relu"]


def fusable(x):
    """Whether an operation on ``x`` may record one fused node instead of its parts."""
    return (grad_mode._state.enabled and x._requires_grad and type(x._data) is np.ndarray
            and x._data.dtype.kind == "f" and _forward._state.level < 0 and not _SAVED_HOOKS)


def _untracked(composed, *args):
    """``composed(*args)`` with grad mode off: the value, with no node."""
    state = grad_mode._state
    prev, state.enabled = state.enabled, False
    try:
        return composed(*args)
    finally:
        state.enabled = prev


def _edge(t):
    return ((t._grad_node(), InputMeta(t._data)) if t._requires_grad else (None, None),)


class _Fused(Node):
    """A fused node: ``_saved`` holds ``(tensor or weakref, counter, version)`` of each
    tensor whose value the backward reads, checked as a rule node checks them."""

    __slots__ = ("_saved",)
    _has_saved = True

    def __init__(self, edges, saved):
        Node.__init__(self, edges)
        self._saved = saved

    def _check_saved(self):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        for ref, counter, version in self._saved:
            if counter.value != version:
                raise RuntimeError(_modified_message(ref, counter.value, version, self))


# -- log_softmax ------------------------------------------------------------------------------

class LogSoftmaxBackward0(_Fused):
    __slots__ = ("_out", "_dim", "_input", "_composed")

    def __init__(self, x, out, dim, composed):
        _Fused.__init__(self, _edge(x), ((weakref.ref(out), out._vc, out._vc.value),))
        self._out, self._dim, self._input, self._composed = out._data, dim, x, composed

    def apply(self, g):
        self._check_saved()
        return [g - np.exp(self._out) * g.sum(axis=self._dim, keepdims=True)]

    def apply_graph(self, g):
        self._check_saved()
        dim = self._dim

        def backward(g, out):
            return g - out.exp() * g.sum(dim, keepdim=True)
        # one node, as PyTorch's _log_softmax_backward_data records, reading the result
        # (whose node is this one: the derivative through it is this backward, recorded)
        out = Tensor._make(self._out, True, self)
        return [composite("LogSoftmaxBackwardDataBackward0", backward, [g, out])]

    def release(self):
        self._freed = True
        self._out = self._input = None
        self._saved = ()


def log_softmax(x, dim, composed):
    """``composed(x, dim)`` (``dim`` wrapped) as one ``LogSoftmaxBackward0`` node."""
    if not fusable(x):
        return composed(x, dim)
    out = Tensor._make(_log_softmax_values(x._data, dim))
    out._requires_grad = True
    out._grad_fn = LogSoftmaxBackward0(x, out, dim, composed)
    return out


def _log_softmax_values(x, dim):
    """The value the composed operations compute (``x - logsumexp(x, dim)``: the same
    NumPy calls in the same order, so the same bits), on arrays."""
    m = np.max(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, np.zeros_like(m))
    total = cpu_sum(_exp(np.subtract(x, m)), axis=dim, keepdims=True)
    return np.asarray(np.subtract(x, np.add(_log(total), m)))     # (0-d: an array)


_exp, _log = rounded_once(np.exp), rounded_once(np.log)      # as Tensor.exp / Tensor.log


# -- nll_loss ---------------------------------------------------------------------------------

class NllLossBackward0(_Fused):
    """PyTorch's order: each row's gradient at its target entry is ``-(g / total)``
    (``mean``; ``-g`` otherwise) times the target's weight; an ignored row's is 0.
    ``_index``: the targets with a trailing 1, in the layout with the class axis
    last; ``_w``: each row's weight (0 where ignored), None when every one is 1."""

    __slots__ = ("_w", "_keep", "_total", "_index", "_shape", "_dtype", "_per_row")

    def __init__(self, input, w, keep, total, index, per_row):
        _Fused.__init__(self, _edge(input), ())
        self._w, self._keep, self._total = w, keep, total
        self._index, self._per_row = index, per_row
        self._shape, self._dtype = input._data.shape, input._data.dtype

    def _moved_shape(self):
        # the input's shape with the class axis last ((C,) is one row: (1, C))
        if len(self._shape) == 1:
            return (1,) + self._shape
        return (self._shape[0],) + self._shape[2:] + (self._shape[1],)

    def _scattered(self, values):
        """``values`` (one per row) at the rows' targets, in the input's layout."""
        moved = np.zeros(self._moved_shape(), dtype=self._dtype)
        np.put_along_axis(moved, self._index, values[..., None], axis=-1)
        if len(self._shape) == 1:
            return moved.reshape(self._shape)
        return np.moveaxis(moved, -1, 1) if len(self._shape) > 2 else moved

    def _rows(self, g):
        """The output's gradient, one per row, with the total divided out."""
        rows = g.reshape(self._index.shape[:-1]) if self._per_row else g
        if self._total is None:
            return rows
        with np.errstate(divide="ignore", invalid="ignore"):     # every row ignored
            return rows / self._total

    def apply(self, g):
        self._check_saved()
        if self._w is None and self._keep is None and not self._per_row \
                and len(self._shape) == 2:          # the usual case: one value, n places
            grad = np.zeros(self._shape, dtype=self._dtype)
            grad[np.arange(self._shape[0]), self._index[:, 0]] = -self._rows(np.asarray(g))
            return [grad]
        s = -self._rows(np.asarray(g))
        if self._w is not None:
            with np.errstate(invalid="ignore"):          # inf * 0: a row ignored, set below
                s = s * self._w
        values = np.broadcast_to(s, self._index.shape[:-1]).astype(self._dtype, copy=False)
        if self._keep is not None:
            values = np.where(self._keep, values, 0).astype(self._dtype, copy=False)
        return [np.ascontiguousarray(self._scattered(values))]

    def apply_graph(self, g):
        # one node, as PyTorch's nll_loss_backward records
        return [composite("NllLossBackwardBackward0", self._graph, [g])]

    def _graph(self, g):
        self._check_saved()
        w = np.ones(self._index.shape[:-1], self._dtype) if self._w is None else self._w
        picks = Tensor._make(np.ascontiguousarray(self._scattered(w)))
        s = -self._rows(g)
        if self._per_row and len(self._shape) > 1:
            s = s.unsqueeze(1)            # (N, 1, d1...) against (N, C, d1...)
        elif self._per_row:
            s = s.reshape(())
        if self._keep is not None and not self._keep.any():
            return [s * 0 * picks]        # PyTorch: an ignored row's gradient is 0
        return [s * picks]

    def release(self):
        self._freed = True
        self._w = self._keep = self._index = None


def nll_loss(input, target, weight, ignore_index, reduction, composed):
    """``composed(input, target, weight, ignore_index, reduction)`` as one
    ``NllLossBackward0`` node (class-index targets)."""
    if not fusable(input) or target._data.dtype.kind not in "iu":
        return composed(input, target, weight, ignore_index, reduction)
    idx = np.asarray(target._data).astype(np.int64).reshape(
        (1,) if input.ndim == 1 else target._data.shape)
    keep = idx != ignore_index
    dtype = input._data.dtype
    every = keep.all()
    safe = idx if every else np.where(keep, idx, 0)
    if weight is None and input.ndim == 2 and reduction in ("mean", "sum") and every \
            and idx.shape == input._data.shape[:1]:
        # the usual case, with the arithmetic of the composed operations, on arrays
        picked = np.negative(input._data[np.arange(idx.shape[0]), safe])
        ans = cpu_sum(picked)
        if reduction == "mean":
            ans = np.true_divide(ans, np.asarray(idx.size, dtype=dtype))
        out = Tensor._make(np.asarray(ans, dtype=dtype))
    else:
        out = _untracked(composed, input, target, weight, ignore_index, reduction)
    w = None
    if weight is not None or not every:
        w = np.ones(idx.shape, dtype=dtype) if weight is None else \
            np.asarray(weight._data)[safe].astype(dtype)
        w = np.where(keep, w, 0).astype(dtype)
    total = None
    if reduction == "mean":
        total = dtype.type(idx.size) if w is None else w.sum()
    out._requires_grad = True
    out._grad_fn = NllLossBackward0(input, w, None if every else keep, total,
                                    safe[..., None], reduction == "none")
    return out


# -- linear -----------------------------------------------------------------------------------

class AddmmBackward0(_Fused):
    """``bias + input @ wt`` (``wt``: the weight's transpose, its own ``TBackward0`` node),
    with the edges PyTorch gives it: bias, input, ``wt``."""

    __slots__ = ("_input", "_wt")

    def __init__(self, input, wt, bias):
        saved = tuple((t, t._vc, t._vc.value) for t, other in ((input, wt), (wt, input))
                      if other._requires_grad)
        _Fused.__init__(self, _edge(bias) + _edge(input) + _edge(wt), saved)
        self._input, self._wt = input, wt

    def apply(self, g):
        self._check_saved()
        e = self._edges
        wt = self._wt._data
        if e[2][0] is None:
            dwt = None
        elif wt.flags.f_contiguous and not wt.flags.c_contiguous:
            # ``wt`` is a weight's transpose: its gradient in the weight's layout, as
            # PyTorch's mm_mat2_backward computes it (its TBackward0 then gives the
            # weight a C-contiguous gradient, with no copy)
            dwt = (g.T @ self._input._data).T
        else:
            dwt = self._input._data.T @ g
        return [None if e[0][0] is None else _column_sums(g),
                None if e[1][0] is None else g @ wt.T, dwt]

    def apply_graph(self, g):
        self._check_saved()
        e = self._edges
        return [None if e[0][0] is None else g.sum(0),
                None if e[1][0] is None else g @ self._wt.t(),
                None if e[2][0] is None else self._input.t() @ g]

    def release(self):
        self._freed = True
        self._input = self._wt = None
        self._saved = ()


def _column_sums(g):
    """``g.sum(axis=0)``; one column is one contiguous sum, in PyTorch's order."""
    if g.ndim == 2 and g.shape[1] == 1:
        return np.asarray(cpu_sum(g.reshape(-1)), dtype=g.dtype).reshape(1)
    return g.sum(axis=0)


def addmm(input, wt, bias, composed):
    """``composed(input, wt, bias)`` (2-D ``input`` and ``wt``, a bias of one entry per
    column) as one ``AddmmBackward0`` node."""
    if not (grad_mode._state.enabled and (input._requires_grad or wt._requires_grad
                                          or bias._requires_grad)) \
            or not all(type(t._data) is np.ndarray and t._data.dtype.kind == "f"
                       and t._data.dtype == input._data.dtype for t in (input, wt, bias)) \
            or _forward._state.level >= 0 or _SAVED_HOOKS \
            or bias._data.shape != (wt._data.shape[1],) \
            or input._data.shape[1] != wt._data.shape[0]:     # (torch's message: composed)
        return composed(input, wt, bias)
    # the composed operations' value (input @ wt + bias: np.matmul, then np.add), on arrays
    out = Tensor._make(np.add(np.matmul(input._data, wt._data), bias._data))
    out._requires_grad = True
    out._grad_fn = AddmmBackward0(input, wt, bias)
    return out


# -- mse_loss ---------------------------------------------------------------------------------

class MseLossBackward0(_Fused):
    """PyTorch's mse_loss_backward: ``(input - target) * norm * g`` (``norm``: 2 / numel
    for ``mean``, else 2, in the input's dtype), its negative for the target."""

    __slots__ = ("_input", "_target", "_norm")

    def __init__(self, input, target, reduction):
        saved = tuple((t, t._vc, t._vc.value) for t in (input, target))
        _Fused.__init__(self, _edge(input) + _edge(target), saved)
        if target._data.dtype != input._data.dtype:      # integer targets: constants
            target = Tensor._make(target._data.astype(input._data.dtype))
        self._input, self._target = input, target
        dtype = input._data.dtype
        self._norm = dtype.type(2.0 / input._data.size if reduction == "mean" else 2.0)

    def apply(self, g):
        self._check_saved()
        grad = np.multiply(np.multiply(np.subtract(self._input._data, self._target._data),
                                       self._norm), np.asarray(g, self._input._data.dtype))
        return [grad if self._edges[0][0] is not None else None,
                np.negative(grad) if self._edges[1][0] is not None else None]

    def apply_graph(self, g):
        self._check_saved()
        norm = Tensor._make(np.asarray(self._norm))

        def backward(g, input, target):
            return (input - target) * norm * g
        # the input's gradient is one node, as PyTorch's mse_loss_backward records
        grad = composite("MseLossBackwardBackward0", backward, [g, self._input, self._target])
        return [grad, -grad]

    def release(self):
        self._freed = True
        self._input = self._target = None
        self._saved = ()


def mse_loss(input, target, reduction, composed):
    """``composed(input, target, reduction)`` (same shapes, same float dtype) as one
    ``MseLossBackward0`` node, with PyTorch's edges (input, target)."""
    if not fusable(input) or reduction not in ("mean", "sum", "none") \
            or type(target._data) is not np.ndarray \
            or not (target._data.dtype == input._data.dtype or target._data.dtype.kind in "iub")\
            or target._data.shape != input._data.shape:
        return composed(input, target, reduction)
    out = _untracked(composed, input, target, reduction)       # the composed value
    out._requires_grad = True
    out._grad_fn = MseLossBackward0(input, target, reduction)
    return out


# -- relu -------------------------------------------------------------------------------------

def _zero_where(mask, a):
    """``a`` with +0 where ``mask`` is true (``np.where(mask, 0, a)`` bit for bit), by a
    bitwise and: NumPy's masked loops are several times slower on mixed signs."""
    bits = np.dtype(f"u{a.dtype.itemsize}")
    keep = np.asarray(mask).astype(bits)
    keep -= 1                         # all ones where ``a`` is kept, 0 where masked
    out = np.bitwise_and(a.view(bits), keep)
    return np.asarray(out).view(a.dtype)        # (a 0-d array stays an array)


def relu_values(x):
    """PyTorch's relu of a float array: 0 where ``x < 0``; ``-0.0`` and NaN kept."""
    return _zero_where(np.less(x, 0), x)


class ReluBackward0(_Fused):
    """Saves the result, as PyTorch; the gradient is ``g`` where the result is not
    ``<= 0`` (so a NaN result passes ``g`` on), else 0."""

    __slots__ = ("_out",)

    def __init__(self, x, out):
        _Fused.__init__(self, _edge(x), ((weakref.ref(out), out._vc, out._vc.value),))
        self._out = out._data

    @property
    def _saved_result(self):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        return Tensor._make(self._out, True, self)

    def apply(self, g):
        self._check_saved()
        return [_zero_where(np.less_equal(self._out, 0), np.asarray(g, self._out.dtype))]

    def apply_graph(self, g):
        self._check_saved()
        from ..dispatch import apply          # (dispatch imports the autograd package)
        masked = Tensor._make(np.less_equal(self._out, 0))
        # PyTorch's threshold_backward(g, result) reads the result, which requires grad: the
        # gradient does too, with a zero derivative for the result (0 * result + 0.0 there)
        zero = Tensor._make(self._out, True, self) * 0.0 + 0.0
        return [apply(np.where, (masked, zero, g), name="ThresholdBackwardBackward0")]

    def release(self):
        self._freed = True
        self._out = None
        self._saved = ()


def relu(x, composed):
    """``x.relu()``: on a float NumPy array, computed bitwise and (when recorded) one
    ``ReluBackward0`` node; else ``composed(x)``, the recorded ``np.where``."""
    if type(x._data) is not np.ndarray or x._data.dtype.kind != "f" \
            or _forward._state.level >= 0 or (x._requires_grad and _SAVED_HOOKS):
        return composed(x)
    out = Tensor._make(relu_values(x._data))
    if fusable(x):
        out._requires_grad = True
        out._grad_fn = ReluBackward0(x, out)
    return out
