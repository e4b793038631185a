# Adapted from the "Forward-mode Automatic Differentiation" tutorial: dual tensors,
# unpack_dual, tangents through a function and through an nn.Module's parameters
# (functional_call), custom Functions with jvp, and the errors it shows.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(jvp[0, :3], fwAD.unpack_dual(dual_output).primal[0, :3])
print(fwAD.unpack_dual(dual_output).tangent is None)

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
print(jvp[:2])

model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent
print(torch.allclose(jvp, jvp2))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


fn_apply = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn_apply(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
print(jvp[0, :3])
print(torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                               check_backward_ad=False, check_undefined_grad=False,
                               check_batched_grad=False))
with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
    for f in (torch.sin, torch.tanh, torch.sigmoid, lambda t: t.softmax(0),
              lambda t: t.pow(3).sum(), lambda t: t.norm(), lambda t: t / t.sum()):
        print(fwAD.unpack_dual(f(x)).tangent)
    try:
        fwAD.make_dual(torch.ones(2), torch.ones(3))
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    fwAD.make_dual(torch.ones(2), torch.ones(2))
except RuntimeError as e:
    print("RuntimeError:", e)
