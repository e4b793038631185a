"""A Module's full backward hooks (``register_full_backward_hook`` / ``_pre_hook``).

As PyTorch does, the call's tensor inputs and its outputs pass through identity
functions (``BackwardHookFunctionBackward`` nodes): when the outputs' gradients arrive,
the pre-hooks ``hook(module, grad_output)`` run (and may replace them); when the
inputs' gradients are computed, the hooks ``hook(module, grad_input, grad_output)``
run (and may replace ``grad_input``).  With no input that needs a gradient, the hooks
run when the outputs' gradients arrive, with ``grad_input`` all None.
"""
import warnings

from ..autograd.function import Function
from ..core import Tensor

__all__ = ["BackwardHook"]

_NO_INPUT_GRADIENT = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


def _replaced(out, current, what):
    if out is None:
        return current
    out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(out) != len(current):
        raise RuntimeError(f"Backward hook returned an invalid number of grad_{what}, got "
                           f"{len(out)}, but expected {len(current)}")
    return out


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, state, side, *tensors):
        ctx.state, ctx.side = state, side
        out = tuple(Tensor._make(t._data) for t in tensors)
        # as PyTorch: those that need no gradient stay so (their gradients are zeros)
        ctx.mark_non_differentiable(*[o for o, t in zip(out, tensors) if not t.requires_grad])
        return out

    @staticmethod
    def backward(ctx, *grads):
        grads = ctx.state.outputs_done(grads) if ctx.side == "out" else \
            ctx.state.inputs_done(grads)
        return (None, None) + tuple(grads)


class BackwardHook:
    """The hooks' state for one call of ``module``."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.inputs_wrapped = False

    def _wrap(self, values, side):
        values = values if isinstance(values, tuple) else (values,)
        at = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        if not any(values[i].requires_grad for i in at):
            return values, len(at), False
        out = BackwardHookFunction.apply(self, side, *[values[i] for i in at])
        out = out if isinstance(out, tuple) else (out,)
        values = list(values)
        for i, t in zip(at, out):
            values[i] = t
        return tuple(values), len(at), True

    def setup_input(self, args):
        args, self.n_inputs, self.inputs_wrapped = self._wrap(args, "in")
        return args

    def setup_output(self, result):
        single = not isinstance(result, tuple)
        out, _, _ = self._wrap(result, "out")
        return out[0] if single else out

    def outputs_done(self, grads):
        for hook in self.pre_hooks:
            grads = _replaced(hook(self.module, grads), grads, "outputs")
        self.grad_outputs = grads
        if not self.inputs_wrapped:           # no input needs a gradient: call them now
            warnings.warn(_NO_INPUT_GRADIENT, UserWarning)
            none = (None,) * self.n_inputs
            for hook in self.hooks:
                if hook(self.module, none, grads) is not None:
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for "
                                       "all gradients.")
        return grads

    def inputs_done(self, grads):
        for hook in self.hooks:
            grads = _replaced(hook(self.module, grads, self.grad_outputs), grads, "inputs")
        return grads
