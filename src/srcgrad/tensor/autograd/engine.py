"""The backward engine: ``backward``, ``autograd.grad`` and the walk they share.

``backward`` visits the nodes reachable from the output in topological order,
calls each node's rule on the sum of the gradients that reached it, and hands
the results to its inputs.  With ``create_graph=True`` the gradients are tensors
and each node runs its rule on them with grad mode on (``Node.apply_graph``), so
the gradients themselves have a graph: ``autograd.grad`` of them gives second
(and higher) derivatives.
"""
import sys
import threading

import numpy as np

from ... import runtime
from .. import grad_mode
from ..core import Tensor
from . import forward_ad as _forward
from .nodes import AccumulateGrad, _owned, _wrap, checked_hook_result

__all__ = ["backward", "grad", "run_backward", "GraphMethods", "current_graph_task"]


def _fit_grad(g, meta, node, index):
    """``g`` as the gradient of an input described by ``meta``: cast, and summed down if
    broadcast (as PyTorch's engine does); an incompatible shape is a rule's bug."""
    if hasattr(g, "shape") and type(g) is not meta.kind and not isinstance(g, np.generic):
        from ..device import CPU, move
        g = move(g, meta.device or CPU)
    xp = runtime.array_ns(g)
    if not hasattr(g, "shape"):
        g = xp.asarray(g)
    if g.shape != meta.shape:
        _check_fits(g.shape, meta, node, index)
        g = runtime.unbroadcast(g, xp.empty(meta.shape, dtype=bool))
    if g.dtype != meta.dtype:
        g = g.astype(meta.dtype)
    return g


def _check_fits(shape, meta, node, index):
    try:
        ok = len(meta.shape) <= len(shape) and np.broadcast_shapes(shape, meta.shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"[{', '.join(map(str, shape))}] but expected shape compatible with "
            f"[{', '.join(map(str, meta.shape))}]")


def _fit_grad_tensor(g, meta, node, index):
    """``_fit_grad`` for a gradient that is a tensor (``create_graph=True``): the sum and
    the cast are recorded, so they are differentiated too."""
    if not isinstance(g, Tensor):
        g = Tensor._make(np.asarray(g, dtype=meta.dtype))
    shape = tuple(g._data.shape)
    if shape != tuple(meta.shape):
        _check_fits(shape, meta, node, index)
        lead = len(shape) - len(meta.shape)
        if lead:
            g = g.sum(tuple(range(lead)))
        kept = tuple(i for i, n in enumerate(meta.shape) if n == 1 and g._data.shape[i] != 1)
        if kept:
            g = g.sum(kept, keepdim=True)
    if g._data.dtype != meta.dtype:
        from ..dtypes import from_numpy_dtype
        g = g.to(from_numpy_dtype(meta.dtype))
    return g


def _graph_order(roots, parents=None):
    """Nodes reachable from ``roots`` and, for each, how many edges point at it;
    ``parents``: a dict that receives the nodes with an edge to each node."""
    deps = {}
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for nxt, _ in node._edges:
            if nxt is None:
                continue
            if parents is not None:
                parents.setdefault(nxt, []).append(node)
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return deps


def run_backward(roots, root_grads, retain_graph=False, capture=None, accumulate=True,
                 create_graph=False, for_grad=False):
    """Propagate ``root_grads`` (arrays; tensors with ``create_graph``) from the nodes
    ``roots`` to the leaves.

    ``capture``: a dict ``{node: None}`` whose entries receive the total gradient that
    reached each node (``autograd.grad``); with ``accumulate=False`` leaves' ``.grad``
    is left alone; ``for_grad``: this is ``autograd.grad`` (see ``GraphTask``).
    """
    parents = {} if capture is not None and not accumulate else None
    deps = _graph_order(roots, parents)
    needed = None if parents is None else _leading_to(capture, parents)
    buffers, zeros = {}, set()
    for node, g in zip(roots, root_grads):
        buffers[node] = g if node not in buffers else buffers[node] + g
    ready = [r for r in dict.fromkeys(roots) if deps.get(r, 0) == 0]
    # hooks and rules run with grad mode off (on to record the backward pass); the
    # thread-local flag is set directly (what no_grad() does): this runs on every backward
    state = grad_mode._state
    prev, state.enabled = state.enabled, bool(create_graph)
    tasks = _tasks()
    tasks.append(GraphTask(roots, deps, needed, capture, for_grad))
    try:
        while ready:
            node = ready.pop()
            g = buffers.pop(node, None)
            if g is not None:
                if node._tensor_hooks or node._retained or node._fn_hooks:
                    g = _pre_hooks(node, g, create_graph)
                if capture is not None and node in capture:
                    if not accumulate and type(node) is AccumulateGrad and \
                            node.variable._hooks and not (node._fn_hooks and node._fn_hooks[0]):
                        g = _captured_leaf_hooks(node, g, create_graph)
                    capture[node] = g
                if type(node) is AccumulateGrad:
                    if not accumulate:
                        pass
                    elif create_graph:
                        node.accumulate_graph(g, not (node._fn_hooks and node._fn_hooks[0]))
                    else:
                        # As PyTorch does, a gradient that nothing else references (a fresh
                        # array: not a view, not saved, not sent to another input) becomes
                        # .grad without a copy.  References now: the name ``g`` and the
                        # argument of getrefcount.
                        owned = (type(g) is np.ndarray and g.flags.writeable
                                 and sys.getrefcount(g) == 2)
                        if owned and g.base is not None:
                            g, owned = _whole_base(g)
                        node.apply(g, owned, not (node._fn_hooks and node._fn_hooks[0]))
                    if node._fn_hooks or "_post_acc_hooks" in node.variable.__dict__:
                        _accumulated_hooks(node, g, create_graph)
                    g = None
                elif needed is not None and node not in needed:
                    g = None              # no asked-for gradient lies beyond this node
                else:
                    grads = node.apply_graph(g) if create_graph else node.apply(g)
                    if ANOMALY[0] and ANOMALY[1]:
                        _check_nan(node, grads)
                    if node._fn_hooks and node._fn_hooks[1]:
                        grads = _post_hooks(node, grads, g, create_graph)
                    if not retain_graph:
                        node.release()
                    _send(node, grads, buffers, create_graph, zeros)
                    grads = g = None  # only ``buffers`` may hold the gradients (see above)
            for nxt, _ in node._edges:
                if nxt is not None:
                    deps[nxt] -= 1
                    if deps[nxt] == 0:
                        ready.append(nxt)
    finally:
        state.enabled = prev
        tasks.pop()


# anomaly mode (torch.autograd.set_detect_anomaly): [enabled, check_nan]
ANOMALY = [False, True]


def _check_nan(node, grads):
    """Anomaly mode: PyTorch's error for a node whose gradient has a NaN."""
    for i, gi in enumerate(grads):
        a = gi._data if isinstance(gi, Tensor) else gi
        if hasattr(a, "dtype") and a.dtype.kind in "fc" and bool(np.isnan(a).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


class GraphTask:
    """One backward pass (``backward`` or ``autograd.grad``): its id, and which nodes it
    runs (PyTorch's ``_current_graph_task_id`` / ``_will_engine_execute_node``)."""

    __slots__ = ("id", "_roots", "_deps", "_needed", "_capture", "_for_grad")
    _count = 0

    def __init__(self, roots, deps, needed, capture, for_grad):
        GraphTask._count += 1
        self.id = GraphTask._count
        self._roots, self._deps, self._needed, self._capture = roots, deps, needed, capture
        self._for_grad = for_grad

    def will_execute(self, node):
        """Whether this pass runs ``node``: reachable from the roots and (when only some
        inputs' gradients are asked for) on a path to one of them.  (Not asked of a leaf's
        node under ``autograd.grad``: PyTorch refuses it.)"""
        if self._for_grad and type(node) is AccumulateGrad:
            raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                               "currently running autograd.grad(). This is currently not "
                               "supported.")
        if node not in self._deps and node not in self._roots:
            return False
        return self._needed is None or node in self._needed or node in self._capture


_local = threading.local()


def _tasks():
    tasks = getattr(_local, "tasks", None)
    if tasks is None:
        tasks = _local.tasks = []
    return tasks


def current_graph_task():
    """The backward pass running now in this thread (the innermost), or None."""
    tasks = _tasks()
    return tasks[-1] if tasks else None


def _captured_leaf_hooks(node, g, create_graph):
    """A leaf's tensor hooks on the gradient ``autograd.grad`` returns for it (its
    AccumulateGrad node does not run there), as PyTorch runs them."""
    for hook in node.variable._hooks:
        out = checked_hook_result(hook, hook(g if create_graph else _wrap(g)), g)
        if out is not None:
            g = out if create_graph else out._data
    return g


def _whole_base(g):
    """``(array, owned)`` for a view ``g`` that the engine alone holds: its base when
    ``g`` is all of it in the same layout (a transpose's transpose) and nothing else
    holds the base either, so it can become ``.grad`` without a copy; else ``g``."""
    base = g.base
    # references to ``base`` now: g's, the name ``base`` and getrefcount's argument
    if (type(base) is np.ndarray and base.base is None and base.shape == g.shape
            and base.dtype == g.dtype and g.flags.c_contiguous and base.flags.c_contiguous
            and base.flags.writeable and sys.getrefcount(base) == 3):
        return base, True
    return g, False


def _leading_to(targets, parents):
    """The nodes with a path to one of ``targets``: the only ones ``autograd.grad`` runs
    (as PyTorch, the rest of the graph is neither run nor freed)."""
    needed = set()
    stack = list(targets)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in needed:
                needed.add(p)
                stack.append(p)
    return needed


def _send(node, grads, buffers, create_graph, zeros):
    """Add each input's gradient to the buffer of the node it flows into.  ``zeros``: the
    nodes whose buffer holds only the zeros of a node that gives PyTorch's ZeroTensor
    (``_zero_tensor``): the next gradient to arrive replaces them (the sign of a -0.0)."""
    for i, ((nxt, meta), gi) in enumerate(zip(node._edges, grads)):
        if nxt is None or gi is None:
            continue
        if meta is None:                 # an output port of a several-output node
            pass
        elif create_graph:
            gi = _fit_grad_tensor(gi, meta, node, i)
        elif not (type(gi) is np.ndarray and gi.shape == meta.shape
                  and gi.dtype == meta.dtype):
            gi = _fit_grad(gi, meta, node, i)
        old = buffers.get(nxt)
        if old is None:
            buffers[nxt] = gi
            if node._zero_tensor:
                zeros.add(nxt)
        elif nxt in zeros:               # PyTorch's ZeroTensor is replaced, not added to
            buffers[nxt] = gi
            zeros.discard(nxt)
        else:
            buffers[nxt] = old + gi


def _pre_hooks(node, g, create_graph=False):
    """Tensor hooks of the tensor this node produced, ``retain_grad``, then the node's
    prehooks (``register_prehook``): PyTorch's order.  (A leaf's tensor hooks run here
    only when its AccumulateGrad has prehooks; else in ``AccumulateGrad.apply``.)"""
    prehooks = node._fn_hooks[0] if node._fn_hooks else ()
    hooks = node._tensor_hooks
    if prehooks and type(node) is AccumulateGrad:
        hooks = node.variable._hooks or ()
    for hook in hooks:
        out = checked_hook_result(hook, hook(g if create_graph else _wrap(g)), g)
        if out is not None:
            g = out if create_graph else out._data
    for ref in node._retained:
        t = ref()
        if t is None or t._grad_node() is not node:
            continue
        if create_graph:
            t._grad = g if t._grad is None else t._grad + g
        elif t._grad is None:
            t._grad = _wrap(_owned(g, t._data.dtype))
        else:
            t._grad._data += g
    for hook in prehooks:
        out = hook((g if create_graph else _wrap(g),))
        if out is not None:
            g = _replacement(out, 1, hook)[0]
            g = g if create_graph else g._data
    return g


def _replacement(out, n, hook):
    if not isinstance(out, (tuple, list)) or len(out) != n:
        kind = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(f"hook '{kind}' has returned an incorrect number of values "
                           f"(got {len(out) if isinstance(out, (tuple, list)) else 1}, "
                           f"but expected {n})")
    return out


def _post_hooks(node, grads, g, create_graph):
    """The node's hooks ``fn(grad_inputs, grad_outputs)`` (``register_hook``); a tuple a
    hook returns replaces the gradients of the inputs."""
    grads = list(grads)
    for i, ((nxt, meta), gi) in enumerate(zip(node._edges, grads)):
        if gi is not None and meta is not None:
            grads[i] = _fit_grad_tensor(gi, meta, node, i) if create_graph \
                else _fit_grad(gi, meta, node, i)
    ins = tuple(None if gi is None else gi if create_graph else _wrap(gi) for gi in grads)
    outs = (g if create_graph else _wrap(g),)
    for hook in node._fn_hooks[1]:
        out = hook(ins, outs)
        if out is not None:
            ins = tuple(_replacement(out, len(ins), hook))
    return [None if gi is None else gi if create_graph else gi._data for gi in ins]


def _accumulated_hooks(node, g, create_graph):
    """After a leaf's ``.grad`` was updated: its post-accumulate-grad hooks ``fn(tensor)``,
    then the AccumulateGrad node's hooks ``fn((), (grad,))``."""
    var = node.variable
    for hook in var.__dict__.get("_post_acc_hooks", ()):
        hook(var)
    for hook in node._fn_hooks[1] if node._fn_hooks else ():
        hook((), (g if create_graph else _wrap(g),))


def _root_grads(tensors, grads, create_graph=False):
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grads is None or isinstance(grads, Tensor):
        grads = (grads,) * (1 if grads is not None else len(tensors))
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    roots, arrays = [], []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            data = t._data         # np.ones: a tenth of np.ones_like's cost on small arrays
            garr = np.ones(data.shape, data.dtype) if type(data) is np.ndarray \
                else np.ones_like(data)
            g = _wrap(garr) if create_graph else None
        else:
            if not isinstance(g, Tensor):
                g = _wrap(runtime.array_ns(t._data).asarray(g, dtype=t._data.dtype))
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {t.shape}.")
            garr = g._data.astype(t._data.dtype, copy=False)
        roots.append(t._grad_node())
        arrays.append(g if create_graph else garr)
    return tensors, roots, arrays


_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             grad_variables=None):
    """``torch.autograd.backward``: accumulate the gradients of ``tensors`` into leaves.

    ``create_graph``: the gradients get a graph of their own (second derivatives);
    ``inputs``: accumulate into these tensors only."""
    if grad_tensors is None:
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = create_graph
    _, roots, arrays = _root_grads(tensors, grad_tensors, create_graph)
    if create_graph:
        import warnings
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=3)
    if inputs is None:
        run_backward(roots, arrays, retain_graph=bool(retain_graph),
                     create_graph=create_graph)
        return
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    capture = {t._grad_node(): None for t in inputs}
    run_backward(roots, arrays, retain_graph=bool(retain_graph), capture=capture,
                 accumulate=False, create_graph=create_graph)
    for t in inputs:
        g = capture[t._grad_node()]
        if g is None:
            continue
        g = g if create_graph else _wrap(_owned(g, t._data.dtype))
        t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, returned
    as a tuple; no ``.grad`` is changed.  With ``create_graph=True`` the gradients have a
    graph, so they can be differentiated again."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if is_grads_batched:
        raise NotImplementedError("srcgrad: autograd.grad(is_grads_batched=True) is not "
                                  "supported; call it once per gradient")
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    # forward-over-reverse: inside a forward-AD level the rules run on tensors, so the
    # gradients are dual tensors (backward() does not: .grad gets no tangent, as PyTorch)
    dual = _forward.active() and not create_graph
    asked_graph = create_graph
    create_graph = create_graph or dual
    _, roots, arrays = _root_grads(outputs, grad_outputs, create_graph)
    capture = {t._grad_node(): None for t in inputs}
    run_backward(roots, arrays, retain_graph=bool(retain_graph), capture=capture,
                 accumulate=False, create_graph=create_graph, for_grad=True)
    out = []
    for i, t in enumerate(inputs):
        g = capture[t._grad_node()]
        if g is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
            # PyTorch's zeros_like(input, requires_grad=create_graph)
            out.append(Tensor._make(np.zeros_like(t._data), bool(asked_graph))
                       if materialize_grads else None)
        elif dual:
            out.append(_forward.dual_copy(g))
        elif create_graph:
            out.append(g)
        else:
            out.append(_wrap(_owned(g, t._data.dtype)))
    return tuple(out)


class GraphMethods:
    """The Tensor methods that reach the graph: attached to :class:`~..core.Tensor` by
    :mod:`..methods`."""

    def _grad_node(self):
        """The node gradients of this tensor flow into: its grad_fn (the port of its
        output, for a node with several), or its AccumulateGrad."""
        fn = self._grad_fn
        if fn is not None:
            return fn if fn._n_outputs == 1 else self.__dict__["_port"]
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = _weakref(acc)
        return acc

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
        backward(self, gradient, retain_graph, create_graph, inputs)   # the module's function


def _weakref(obj):
    import weakref
    return weakref.ref(obj)
