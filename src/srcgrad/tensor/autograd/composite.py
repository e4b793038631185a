"""One node for an operation that PyTorch records as one node but srcgrad computes with
several recorded Tensor operations (``scaled_dot_product_attention``).

``composite(name, composed, inputs, *args)`` returns the value of
``composed(*inputs, *args)``.  When an input needs a gradient, the operations run on
detached copies of the inputs, so they record a private graph, and the result gets one
node, named ``name``, with an edge to each tensor input, as PyTorch shows it.  Its backward
is ``autograd.grad`` through the private graph; with ``create_graph=True`` the operations
run again on the inputs themselves (recorded), so the gradient differentiates again.  No
derivative is written here: the composed operations' rules give it.

Forward-mode AD and saved-tensor hooks need the composed operations' own nodes, so under
them (and with grad mode off) ``composed`` simply runs as it is.
"""
from .. import grad_mode
from ..core import Tensor
from . import forward_ad as _forward
from .messages import _SECOND_TIME
from .nodes import InputMeta, Node, _modified_message
from .saved import HOOKS as _SAVED_HOOKS

__all__ = ["composite"]


class _Composite(Node):
    __slots__ = ("_out", "_inner", "_inputs", "_composed", "_args", "_saved")
    _has_saved = True

    def __init__(self, edges, out, inner, inputs, composed, args):
        Node.__init__(self, edges)
        self._out, self._inner = out, inner      # the private graph's result and leaves
        self._inputs, self._composed, self._args = inputs, composed, args
        self._saved = tuple((t, t._vc, t._vc.value) for t in inputs)

    def _check_saved(self):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        for t, counter, version in self._saved:
            if counter.value != version:
                raise RuntimeError(_modified_message(t, counter.value, version, self))

    def apply(self, g):
        from .engine import grad
        self._check_saved()
        if not self._out._requires_grad:      # the result does not depend on the inputs
            return [None] * len(self._edges)
        wanted = [x for x, (node, _) in zip(self._inner, self._edges) if node is not None]
        grads = iter(grad([self._out], wanted, [Tensor._make(g)], retain_graph=True,
                          allow_unused=True))
        out = [next(grads) if node is not None else None for node, _ in self._edges]
        return [None if t is None else t._data for t in out]   # (None: an input not read)

    def apply_graph(self, g):
        from .engine import grad
        self._check_saved()
        # each input through a view of its own: the gradient asked for is the one that
        # reaches that use of it, not what also flows into it through another input (the
        # result and the operand of a backward formula; q, k and v of self-attention, one
        # tensor three times), which its own edge carries
        inputs = [x.view(x.shape) if node is not None else x
                  for x, (node, _) in zip(self._inputs, self._edges)]
        out = self._composed(*inputs, *self._args)        # recorded: grad mode is on
        if not out._requires_grad:
            return [None] * len(self._edges)
        wanted = [x for x, (node, _) in zip(inputs, self._edges) if node is not None]
        grads = iter(grad([out], wanted, [g], create_graph=True, allow_unused=True))
        return [next(grads) if node is not None else None for node, _ in self._edges]

    def release(self):
        self._freed = True
        self._out = self._inner = self._inputs = None
        self._saved = ()


def _node_type(name, _cache={}):
    cls = _cache.get(name)
    if cls is None:
        cls = _cache[name] = type(name, (_Composite,), {"__module__": "builtins",
                                                        "__slots__": ()})
    return cls


def composite(name, composed, inputs, *args):
    """``composed(*inputs, *args)``, recorded as one node named ``name`` (see the module)."""
    needs = [t._requires_grad for t in inputs]
    if not (grad_mode._state.enabled and any(needs)) or _forward._state.level >= 0 \
            or _SAVED_HOOKS:
        return composed(*inputs, *args)
    inner = [t.detach().requires_grad_(n) if n else t.detach() for t, n in zip(inputs, needs)]
    out = composed(*inner, *args)
    edges = tuple((t._grad_node(), InputMeta(t._data)) if n else (None, None)
                  for t, n in zip(inputs, needs))
    result = Tensor._make(out._data, True, _node_type(name)(edges, out, inner, tuple(inputs),
                                                              composed, args))
    # the result holds the private result's array: changing it in place counts as changing
    # that one, so a private node that saved it (its rule reads the result) raises
    result._vc = out._vc
    return result
