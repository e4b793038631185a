"""``@sg.compile``: a NumPy function run on Tensors, with ONE grad_fn node.

The compiler (:func:`.gradients.make_vjp`) turns ``f`` into a forward function
that returns ``(value, saved)`` and a backward function ``bwd(saved, g)`` that
returns the gradients of the requested arguments: generated Python that calls
NumPy, with no per-operation graph.  Called with Tensors, the compiled ``f``
unwraps them, runs the forward, and returns a Tensor whose ``grad_fn`` is one
``CompiledFunctionBackward`` node (the name PyTorch's ``torch.compile`` gives
its nodes) that runs the backward; ``.backward()`` then accumulates into the
leaves' ``.grad`` as usual.  Under ``no_grad`` (or with no argument requiring
grad) it runs ``f`` itself and saves nothing.
"""
import functools
import inspect

import numpy as np

from ..tensor import grad_mode
from ..tensor.autograd import _SECOND_TIME, InputMeta, Node, _modified_message
from ..tensor.core import Tensor
from .gradients import make_vjp

__all__ = ["compile"]


class CompiledFunctionBackward(Node):
    """Runs the generated backward sweep; ``source`` is its code."""

    __slots__ = ("_bwd", "_saved_values", "_checks")
    _has_saved = True

    def __init__(self, bwd, saved, edges, inputs):
        Node.__init__(self, edges)
        self._bwd = bwd
        self._saved_values = saved
        # every Tensor argument: the generated code may have saved its array
        self._checks = tuple([(t, t._vc, t._vc.value) for t in inputs])

    @property
    def source(self):
        return getattr(self._bwd, "source", None)

    def apply(self, g):
        if self._freed:
            raise RuntimeError(_SECOND_TIME)
        for t, counter, version in self._checks:
            if counter.value != version:
                raise RuntimeError(_modified_message(t, counter.value, version))
        return self._bwd(self._saved_values, g)

    def release(self):
        self._freed = True
        self._saved_values = None


def _as_array(value, like):
    if hasattr(value, "shape") and not isinstance(value, np.generic):
        return value
    xp = np if like is None or isinstance(like, np.ndarray) else __import__("cupy")
    return xp.asarray(value)


def compile(f):
    """Compile ``f`` (written with NumPy on arrays) for Tensor arguments.

    The wrapper's ``.source`` is the generated backward of the last compiled case.
    """
    sig = inspect.signature(f, follow_wrapped=False)
    module = _module_of(f)
    # (positions of the arguments that need a gradient, the arguments' types) ->
    # (fwd, bwd, source).  The compiler specializes on the kind of each argument
    # (Python scalar, array...), which its type decides.
    cache = {}

    @functools.wraps(f)
    def compiled(*args, **kwargs):
        if kwargs:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments.values())
        recording = grad_mode._state.enabled
        tensors, arrays, wrt = [], [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                arrays.append(a._data)
                if recording and a._requires_grad:
                    wrt.append(i)
            else:
                arrays.append(a)
        like = tensors[0]._data if tensors else None
        if module is not None and recording and any(
                p._requires_grad for p in module.parameters()):
            # the compiled function differentiates its arguments only: the parameters,
            # read as attributes, would get no gradient, silently
            raise NotImplementedError(
                f"srcgrad: compile of {type(module).__name__} (an nn.Module) does not "
                "differentiate its parameters yet; call the module itself, or compile a "
                "function that takes the parameters as arguments, or run under "
                "torch.no_grad() (inference)")
        if not wrt:
            with grad_mode.no_grad():
                out = f(*arrays)
            return _wrap_output(out, like)
        key = (tuple(wrt), tuple(map(type, arrays)))
        entry = cache.get(key)
        if entry is None:
            fwd, bwd = make_vjp(f, key[0], *arrays)
            entry = cache[key] = (fwd, bwd, getattr(bwd, "source", None))
        fwd, bwd, compiled.source = entry
        value, saved = fwd(*arrays)
        if isinstance(value, (tuple, list)):
            raise NotImplementedError("srcgrad: @compile of a function with several outputs is "
                                      "not supported yet; return one array")
        if type(value) is not np.ndarray:
            value = _as_array(value, like)
        if value.dtype.kind not in "fc":
            return Tensor._make(value)
        edges = tuple([(args[i]._grad_node(), InputMeta(arrays[i])) for i in wrt])
        node = CompiledFunctionBackward(bwd, saved, edges, tensors)
        return Tensor._make(value, True, node)

    compiled.source = None
    compiled.__srcgrad_compiled__ = f
    return compiled


def _module_of(f):
    """The nn.Module that ``f`` is, or whose method it is; else None."""
    from ..tensor.nn.module import Module
    for candidate in (f, getattr(f, "__self__", None)):
        if isinstance(candidate, Module):
            return candidate
    return None


def _wrap_output(out, like):
    if isinstance(out, tuple):
        return tuple(_wrap_output(o, like) for o in out)
    if isinstance(out, list):
        return [_wrap_output(o, like) for o in out]
    if isinstance(out, Tensor):
        return out
    if isinstance(out, (np.ndarray, np.generic, float, int)) or hasattr(out, "shape"):
        return Tensor._make(_as_array(out, like))
    return out
