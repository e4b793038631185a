"""``torch.autograd.functional``: vjp, jvp, jacobian, hessian, hvp, vhp of a function of
tensors, built on ``autograd.grad`` (with ``create_graph=True`` for the second-order
ones and for ``jvp``, as PyTorch: the "double vjp" trick)."""
import numpy as np

from .. import grad_mode
from ..core import Tensor
from .engine import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, arg_name, fn_name):
    single = not isinstance(x, tuple)
    xs = (x,) if single else x
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            if single:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or "
                                f"a tuple of Tensors but the value at index {i} has type "
                                f"{type(t)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the value at index {i} has type {type(t)}.")
    return single, xs


def _prepare(inputs, create_graph, need_graph):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))           # keep the caller's graph
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(xs, create_graph):
    return tuple(None if x is None else x if create_graph else x.detach() for x in xs)


def _zeros_for_none(grads, like):
    return tuple(Tensor._make(np.zeros_like(t._data)) if g is None else g
                 for g, t in zip(grads, like))


def _check_v(v, outputs, is_tuple):
    if len(v) != len(outputs):
        if not is_tuple:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outputs)} but got "
                           f"{len(v)}.")
    for i, (vi, o) in enumerate(zip(v, outputs)):
        if tuple(vi.shape) != tuple(o.shape):
            entry = f"Entry {i} in " if is_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {o.shape} but got "
                               f"{vi.shape}.")


def _not_differentiable(i):
    return RuntimeError(f"Output {i} of the user-provided function does not require gradients. "
                        "The outputs must be computed in a differentiable manner from the input "
                        "when running in strict mode.")


def _autograd(outputs, inputs, grad_outputs, create_graph, strict, stage):
    # stage: "back" (outputs must have a graph in strict mode) or "double_back"
    """``autograd.grad`` that tolerates outputs without a graph and unused inputs."""
    outs, gos = [], []
    for i, (o, g) in enumerate(zip(outputs, grad_outputs)):
        if strict and stage == "back" and not o.requires_grad:
            raise _not_differentiable(i)
        if o is not None and o.requires_grad:
            outs.append(o)
            gos.append(g)
    if not outs:
        grads = (None,) * len(inputs)
    else:
        grads = _grad(outs, inputs, gos, retain_graph=True, create_graph=create_graph,
                      allow_unused=True)
    if strict:
        for i, g in enumerate(grads):
            if g is None:
                raise RuntimeError(f"The output of the user-provided function is independent of "
                                   f"input {i}. This is not allowed in strict mode.")
    return grads


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    with grad_mode.enable_grad():
        single_in, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, True)
        outputs = func(*inputs)
        single_out, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided "
                                   "function returns a single Tensor with a single element.")
            v = tuple(Tensor._make(np.ones_like(o._data)) for o in outputs)
        else:
            _, v = _as_tuple(v, "v", "vjp")
            _check_v(v, outputs, not single_out)
        grads = _autograd(outputs, inputs, v, create_graph, strict, "back")
        grads = _zeros_for_none(grads, inputs)
    outputs, grads = _finish(outputs, create_graph), _finish(grads, create_graph)
    return (outputs[0] if single_out else outputs), (grads[0] if single_in else grads)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``, by differentiating a vjp with respect to its cotangent."""
    with grad_mode.enable_grad():
        single_in, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, True)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
            v = tuple(Tensor._make(np.ones_like(t._data)) for t in inputs)
        else:
            _, v = _as_tuple(v, "v", "jvp")
            _check_v(v, inputs, not single_in)
        outputs = func(*inputs)
        single_out, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        dummies = tuple(Tensor._make(np.zeros_like(o._data), requires_grad=True)
                        for o in outputs)
        grads = _autograd(outputs, inputs, dummies, True, strict, "back")
        grads_used = [(g, vi) for g, vi in zip(grads, v) if g is not None]
        if grads_used:
            tangents = _autograd([g for g, _ in grads_used], dummies,
                                 [vi for _, vi in grads_used], create_graph, strict,
                                 "double_back")
        else:
            tangents = (None,) * len(outputs)
        tangents = _zeros_for_none(tangents, outputs)
    outputs, tangents = _finish(outputs, create_graph), _finish(tangents, create_graph)
    return (outputs[0] if single_out else outputs), (tangents[0] if single_out else tangents)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian: for each output, for each input, a tensor of shape
    ``output.shape + input.shape`` (tuples follow the structure of the arguments)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".')
    forward = strategy == "forward-mode"
    if forward and create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.')
    if forward and not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`.")
    with grad_mode.enable_grad():
        single_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, True)
        outputs = func(*inputs)
        single_out, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                        "jacobian")
        if vectorize and strict and not forward:
            for n, out in enumerate(outputs):
                if not out.requires_grad:
                    raise _not_differentiable(n)
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`.")
        blocks = []
        for n, out in enumerate(outputs):
            if strict and not out.requires_grad:
                raise _not_differentiable(n)
            flat = out.reshape(-1)
            rows = [[] for _ in inputs]
            for k in range(flat.numel()):
                if out.requires_grad:
                    g = _grad([flat[k]], inputs, retain_graph=True, create_graph=create_graph,
                              allow_unused=True)
                else:
                    g = (None,) * len(inputs)
                if strict:
                    for i, gi in enumerate(g):
                        if gi is None:
                            raise RuntimeError(
                                f"Output {len(blocks)} of the user-provided function is "
                                f"independent of input {i}. This is not allowed in strict "
                                "mode.")
                for i, (gi, t) in enumerate(zip(g, inputs)):
                    rows[i].append(Tensor._make(np.zeros_like(t._data)) if gi is None else gi)
            from ..functions import stack
            block = []
            for i, t in enumerate(inputs):
                if rows[i]:
                    j = stack(rows[i]).reshape(tuple(out.shape) + tuple(t.shape))
                else:
                    j = Tensor._make(np.zeros(tuple(out.shape) + tuple(t.shape),
                                              dtype=t._data.dtype))
                block.append(j if create_graph else j.detach())
            blocks.append(tuple(block))
    if forward:            # (the same values; PyTorch's forward-mode path returns lists)
        blocks = [list(b) for b in blocks]
        if single_out:
            return blocks[0][0] if single_in else blocks[0]
        return [b[0] for b in blocks] if single_in else blocks
    if single_out:
        return blocks[0][0] if single_in else blocks[0]
    return tuple(b[0] for b in blocks) if single_in else tuple(blocks)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    single_in, tup = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        out = func(*xs)
        _, outs = _single_output(out, strict, "hessian")
        g = _autograd(outs, xs, (Tensor._make(np.ones_like(outs[0]._data)),), True, strict,
                      "back")
        g = _zeros_for_none(g, xs)
        if strict:
            for i, gi in enumerate(g):
                if not gi.requires_grad:
                    raise _independent_jacobian(i)
        return g[0] if single_in else g

    out = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    if outer_jacobian_strategy == "forward-mode" and not single_in:
        out = [list(row) for row in out]
    return out


def _single_output(out, strict, name):
    """PyTorch's checks of the output of the function given to hessian, hvp or vhp."""
    single, outs = _as_tuple(out, "outputs of the user-provided function", name)
    if strict:
        for i, o in enumerate(outs):
            if not o.requires_grad:
                raise _not_differentiable(i)
    if not single:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    return single, outs


def _independent_jacobian(i):
    return RuntimeError(
        "While computing the hessian, found that the jacobian of the user-provided function "
        f"with respect to input {i} is independent of the input. This is not allowed in strict "
        "mode. You should ensure that your function is twice differentiable and that the "
        "jacobian depends on the inputs (this would be violated by a linear function for "
        "example).")


def _second_order(func, inputs, v, create_graph, strict, name):
    with grad_mode.enable_grad():
        single_in, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _prepare(inputs, create_graph, True)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
            v = tuple(Tensor._make(np.ones_like(t._data)) for t in inputs)
        else:
            _, v = _as_tuple(v, "v", name)
            _check_v(v, inputs, not single_in)
        outputs = func(*inputs)
        single_out, outputs = _single_output(outputs, strict, name)
        grads = _autograd(outputs, inputs, (Tensor._make(np.ones_like(outputs[0]._data)),),
                          True, strict, "back")
        if strict:
            for i, g in enumerate(grads):
                if not g.requires_grad:
                    raise _independent_jacobian(i)
        used = [(g, vi) for g, vi in zip(grads, v) if g is not None and g.requires_grad]
        if used:
            out = _autograd([g for g, _ in used], inputs, [vi for _, vi in used],
                            create_graph, strict, "double_back")
        else:
            out = (None,) * len(inputs)
        out = _zeros_for_none(out, inputs)
    outputs, out = _finish(outputs, create_graph), _finish(out, create_graph)
    return outputs[0], (out[0] if single_in else out)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` (H is symmetric for twice differentiable functions, so this
    is ``vhp``, as PyTorch computes it with a double backward)."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")
