"""One node for a rule primitive with several results (``np.linalg.svd``, ``eigh``,
``qr``, ``slogdet``), as PyTorch records one (``LinalgSvdBackward0``).

Every differentiable result has the node as its ``grad_fn``; its gradient enters the
graph through a port (``function._OutputPort``), so the node receives the gradients of
the results as one ``_Partial`` and calls the rule's vjp once with their tuple (None for
a result no gradient reached: each rule's template skips those terms).  Under
``create_graph=True`` the gradient is computed on arrays and refuses a second backward
(never a silently wrong second derivative).
"""
import numpy as np

from ...errors import NonDifferentiableError
from ...rules import lookup
from .. import grad_mode
from ..core import Tensor
from . import forward_ad as _forward
from .function import _OutputPort, _Partial
from .messages import _SECOND_TIME
from .nodes import InputMeta, Node, _modified_message, _once_only, vjp_function

__all__ = ["several_results"]


class MultiResultNode(Node):
    __slots__ = ("_vjp", "_args", "_kwargs", "_ans", "_n", "_saved", "_adjust")
    _has_saved = True

    def __init__(self, vjp, x, args, kwargs, ans, adjust=None):
        Node.__init__(self, ((x._grad_node(), InputMeta(x._data)),))
        self._vjp, self._args, self._kwargs, self._ans = vjp, args, kwargs, ans
        self._adjust = adjust
        self._n = len(ans)
        self._saved = (x, x._vc, x._vc.value)

    @property
    def _n_outputs(self):
        return self._n

    def apply(self, g):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        t, counter, version = self._saved
        if counter.value != version:
            raise RuntimeError(_modified_message(t, counter.value, version, self))
        parts = g.grads if isinstance(g, _Partial) else {0: g}
        grads = tuple(parts.get(k) for k in range(self._n))
        out = self._vjp(grads, self._ans, *self._args, needs=(True,), **self._kwargs)
        return [self._adjust(out[0]) if self._adjust is not None else out[0]]

    def apply_graph(self, g):
        parts = g.grads if isinstance(g, _Partial) else {0: g}
        arrays = _Partial({k: v._data if isinstance(v, Tensor) else v
                           for k, v in parts.items()})
        return [None if gi is None else _once_only(gi, self) for gi in self.apply(arrays)]

    def release(self):
        self._freed = True
        self._args = self._ans = None
        self._kwargs = {}


_CLASSES = {}


def _node_class(name):
    cls = _CLASSES.get(name)
    if cls is None:
        cls = _CLASSES[name] = type(name, (MultiResultNode,),
                                    {"__module__": "srcgrad.tensor", "__slots__": ()})
    return cls


def several_results(func, name, x, *args, adjust=None, **kwargs):
    """``func(x's array, *args, **kwargs)`` (a tuple of arrays) as tensors; when ``x``
    needs a gradient, their floating-point ones share one node named ``name``, whose
    gradient for ``x`` is the rule's, passed through ``adjust`` when given."""
    ans = tuple(np.asarray(a) if isinstance(a, np.generic) else a     # (slogdet of a matrix)
                for a in func(x._data, *args, **kwargs))
    outs = [Tensor._make(a) for a in ans]
    if not (grad_mode._state.enabled and x._requires_grad):
        return outs
    if _forward._state.level >= 0:
        raise NotImplementedError(f"srcgrad: forward-mode AD through {name} is not supported "
                                  "by the Tensor runtime")
    rule = lookup(func)
    if rule is None:
        raise NonDifferentiableError(f"srcgrad: no derivative rule for {func.__name__!r} "
                                     f"(needed by {name})")
    node = _node_class(name)(vjp_function(rule), x, (x._data, *args), kwargs, ans, adjust)
    for k, out in enumerate(outs):
        if out._data.dtype.kind in "fc":
            out._grad_fn = node
            out._requires_grad = True
            out.__dict__["_port"] = _OutputPort(node, k)
    return outs
