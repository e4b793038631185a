"""``torch.autograd.forward_ad``: dual tensors; forward-mode derivatives through every op.

Inside ``dual_level()``, a tensor made by ``make_dual(x, t)`` carries the tangent
``t``.  Each operation on tensors with tangents (``dispatch.apply``) computes the
tangent of its result with its rule's *forward* template (``Rule.jvp_function``),
so forward derivatives come from the rule table like backward ones.  Leaving the
level drops every tangent.  (One level; tangents are values, not recorded.)

Forward-over-reverse: a node recorded inside a level remembers the tangents of its
operands and of its result (``remember_tangents``).  A backward pass run inside the
level runs every node's rule on tensors (as ``create_graph=True`` does, :mod:`.lifted`),
with those tangents on its operands, so the gradients it returns are dual tensors:
``unpack_dual(grad).tangent`` is a Hessian-vector product.  A node whose rule cannot
run on tensors raises rather than drop a tangent.
"""
import collections
import threading
import weakref

from ...errors import NonDifferentiableError
from ...rules import lookup
from ..core import Tensor

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]


class _State(threading.local):
    level = -1
    duals = ()


_state = _State()

LIFTED = []       # lifted.lifted, installed by .lifted (which imports this module)

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level():
    if _state.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = 0
    _state.duals = []
    return 0


def exit_dual_level(*, level=None):
    for ref in _state.duals:
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_grad", None)
    _state.level, _state.duals = -1, ()


class dual_level:
    """``with dual_level():`` the scope in which dual tensors exist."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _attach(t, tangent):
    t.__dict__["_fw_grad"] = tangent
    _state.duals.append(weakref.ref(t))


def make_dual(tensor, tangent, *, level=None):
    if _state.level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size [{', '.join(map(str, tensor.shape))}] while the given forward "
                           f"gradient is of size [{', '.join(map(str, tangent.shape))}].")
    out = tensor.view_as(tensor)
    # the tangent itself when its layout is the primal's (PyTorch's), else a copy in that layout
    if tangent.stride() != tensor.stride():
        tangent = Tensor._make(_like_layout(tangent, tensor))
    _attach(out, tangent)
    return out


def _like_layout(tangent, primal):
    """``tangent``'s values in an array laid out as ``primal``'s (C order unless primal's is F)."""
    import numpy as np
    order = "F" if primal._data.flags.f_contiguous and not primal._data.flags.c_contiguous \
        else "C"
    return np.array(tangent._data, order=order, copy=True)


def unpack_dual(tensor, *, level=None):
    tangent = tensor.__dict__.get("_fw_grad") if _state.level >= 0 else None
    primal = tensor.view_as(tensor) if tangent is not None else tensor
    if tangent is not None:
        primal.__dict__.pop("_fw_grad", None)
    return UnpackedDualTensor(primal, tangent)


def tangent_of(t):
    return t.__dict__.get("_fw_grad") if isinstance(t, Tensor) else None


def _tangents(value):
    """The tangent array of an argument (a list of them for a list argument), or None."""
    if isinstance(value, Tensor):
        tan = tangent_of(value)
        return None if tan is None else tan._data
    if isinstance(value, (list, tuple)) and any(tangent_of(v) is not None for v in value):
        import numpy as np
        return type(value)(tangent_of(v)._data if tangent_of(v) is not None
                           else np.zeros_like(v._data) if isinstance(v, Tensor) else 0.0
                           for v in value)
    return None


def active():
    """Whether a dual level is open (a backward pass then carries tangents)."""
    return _state.level >= 0


def remember_tangents(node, args, kwargs, out):
    """Keep on ``node`` the tangents of its operands (by position among the call's values)
    and of its result, for a backward pass run inside the level."""
    values = list(args) + (list(kwargs.values()) if kwargs else [])
    found = {}
    for i, v in enumerate(values):
        tan = tangent_of(v)
        if tan is not None:
            found[i] = tan
        elif isinstance(v, (list, tuple)) and any(tangent_of(e) is not None for e in v):
            found[i] = NotImplemented         # a list operand: not supported (see lifted)
    result = tangent_of(out)
    if found or result is not None:
        node._fw = (found, result)


def dual_copy(t):
    """``t`` without its graph, with its tangent (a gradient returned without a graph)."""
    out = Tensor._make(t._data)
    tan = tangent_of(t)
    if tan is not None:
        _attach(out, tan.detach() if tan._grad_fn is not None else tan)
    return out


def with_tangent(t, tangent):
    """A view of ``t`` carrying ``tangent`` (an operand of a node's rule, run on tensors)."""
    out = t.view_as(t)
    _attach(out, tangent)
    return out


def propagate(func, args, kwargs, arrays, kwarrays, out):
    """Give ``out`` the tangent of ``func``'s result when an argument has one."""
    values = list(args) + (list(kwargs.values()) if kwargs else [])
    if not any(_tangents(v) is not None for v in values):
        return
    rule = lookup(func)
    if rule is None or not rule.jvp:
        raise NonDifferentiableError(
            f"srcgrad: no forward derivative rule for {getattr(func, '__name__', func)!r}")
    bound = rule.bind(args, kwargs or {})
    arrays_bound = rule.bind(arrays, kwarrays or {})
    tangents = {}
    for p in rule.diff_params:
        tan = _tangents(bound.get(p))
        if tan is not None:
            tangents["d" + p] = tan
    positional, keywords = [], {}
    for name, param in rule.signature.parameters.items():
        if name not in arrays_bound:
            continue
        if param.kind is param.VAR_POSITIONAL:
            positional.extend(arrays_bound[name])
        elif param.kind is param.KEYWORD_ONLY or param.kind is param.VAR_KEYWORD:
            keywords.update(arrays_bound[name] if param.kind is param.VAR_KEYWORD
                            else {name: arrays_bound[name]})
        else:
            positional.append(arrays_bound[name])
    if _recorded(bound, rule):
        tan = _recorded_tangent(rule, args, kwargs, arrays, kwarrays, bound, out)
        if tan is not NotImplemented:
            if tan is not None:
                _attach(out, tan)
            return
    tan = rule.jvp_function()(out._data, *positional, **keywords, **tangents)
    if tan is not None:
        import numpy as np
        tan = np.asarray(tan)
        if tan.shape != out._data.shape:
            tan = np.broadcast_to(tan, out._data.shape).copy()
        _attach(out, Tensor._make(tan.astype(out._data.dtype, copy=False)))


def _needs_grad(v):
    if isinstance(v, Tensor):
        tan = tangent_of(v)
        return v._requires_grad or (tan is not None and tan._requires_grad)
    return isinstance(v, (list, tuple)) and any(_needs_grad(e) for e in v)


def _recorded(bound, rule):
    """Whether the tangent is computed with a graph: grad mode on, and a differentiable
    operand (or its tangent) requiring grad."""
    from .. import grad_mode
    return grad_mode._state.enabled and any(_needs_grad(bound.get(p)) for p in rule.diff_params)


def _tangent_tensors(value):
    """The tangent of a tensor operand (zeros when it has none), a list of them for a
    list operand; None for anything else."""
    if isinstance(value, Tensor):
        tan = tangent_of(value)
        return tan if tan is not None else Tensor._make(_zeros_like(value._data))
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(_tangent_tensors(v) if isinstance(v, Tensor) else 0.0 for v in value)
    return None


def _zeros_like(a):
    from ...runtime import array_ns
    return array_ns(a).zeros_like(a)


def _recorded_tangent(rule, args, kwargs, arrays, kwarrays, bound, out):
    """The tangent of ``out`` computed by the rule's forward template on tensors, with a
    graph; NotImplemented when the template cannot run on tensors."""
    lifted = LIFTED[0]
    values = [a if isinstance(a, Tensor) or _has_tensor(a) else arr
              for a, arr in zip(args, arrays)]
    keywords = {k: (v if isinstance(v, Tensor) or _has_tensor(v) else kwarrays[k])
                for k, v in (kwargs or {}).items()}
    tangents = {}
    for p in rule.diff_params:
        tan = _tangent_tensors(bound.get(p))
        if tan is not None:
            tangents["d" + p] = tan
    positional, named = [], {}
    tensor_bound = rule.bind(tuple(values), keywords)
    for name, param in rule.signature.parameters.items():
        if name not in tensor_bound:
            continue
        if param.kind is param.VAR_POSITIONAL:
            positional.extend(tensor_bound[name])
        elif param.kind is param.VAR_KEYWORD:
            named.update(tensor_bound[name])
        elif param.kind is param.KEYWORD_ONLY:
            named[name] = tensor_bound[name]
        else:
            positional.append(tensor_bound[name])
    level, _state.level = _state.level, -1      # the tangent's own operations carry none
    try:
        tan = lifted(rule.jvp_function())(out, *positional, **named, **tangents)
    except Exception:          # noqa: BLE001 - a template that needs arrays: computed
        return NotImplemented  # on arrays instead (the tangent then has no graph)
    finally:
        _state.level = level
    if tan is None:
        return None
    if not isinstance(tan, Tensor):
        import numpy as np
        tan = Tensor._make(np.asarray(tan))
    if tuple(tan.shape) != tuple(out.shape):
        tan = tan.expand(out.shape).clone()
    if tan._data.dtype != out._data.dtype:
        tan = tan.to(out.dtype)
    return tan


def _has_tensor(v):
    return isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) for e in v)
