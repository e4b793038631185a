# Edges the tutorials hit: indexing a 0-dim loss (loss.data[0] in old scripts), assigning a
# number to .grad, set_default_device, make_dual keeping its tangent, gradcheck in forward
# mode, gradgradcheck of a backward that is not differentiable, torch.func.functional_call.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call

loss = torch.tensor(2.5, requires_grad=True) * 2
for index in ["0", "0, 0", "0:1", ":", "None", "...", "torch.tensor(0)", "[0]", "True",
              "torch.tensor(False)"]:
    try:
        print(index, eval(f"loss.data[{index}]"))
    except IndexError as e:
        print(index, type(e).__name__, e)

w = torch.ones(3, requires_grad=True)
for value in (0.0, 1, [1.0, 2.0]):
    try:
        w.grad = value
    except TypeError as e:
        print(type(e).__name__, e)
w.grad = torch.zeros(3)
print(w.grad)

print(torch.get_default_device())
torch.set_default_device("cpu")
print(torch.get_default_device(), torch.zeros(2).device, torch.tensor([1.0]).device)
torch.set_default_device(None)
print(torch.get_default_device())

torch.manual_seed(0)
primal = torch.randn(3, 4)
tangent = torch.randn(3, 4)
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    print(fwAD.unpack_dual(dual).tangent is tangent)
    alt = fwAD.make_dual(primal, tangent.T.contiguous().T)
    print(fwAD.unpack_dual(alt).tangent is tangent, fwAD.unpack_dual(alt).tangent.stride())
    print(fwAD.unpack_dual(dual * dual).tangent)


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        return gI * ctx.result


class WrongJvp(Exp):
    @staticmethod
    def jvp(ctx, gI):
        return gI * 2


x = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
flags = dict(check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False,
             check_batched_grad=False)
print(torch.autograd.gradcheck(Exp.apply, (x,), **flags))
print(torch.autograd.gradcheck(torch.sin, (x,), check_forward_ad=True))
print(torch.autograd.gradcheck(WrongJvp.apply, (x,), raise_exception=False, **flags))
try:
    torch.autograd.gradcheck(WrongJvp.apply, (x,), **flags)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])


class SquareNoGraph(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.two_x = 2 * x
        return x ** 2

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * ctx.two_x


x = torch.rand(2, 2, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(SquareNoGraph.apply, x))
print(torch.autograd.gradgradcheck(SquareNoGraph.apply, x, raise_exception=False))
try:
    torch.autograd.gradgradcheck(SquareNoGraph.apply, x)
except Exception as e:
    print(type(e).__name__, e)
print(torch.autograd.gradgradcheck(lambda t: (t ** 3).sin(), x))

torch.manual_seed(1)
model = nn.Linear(3, 2)
inp = torch.randn(4, 3)
params = {"weight": torch.ones(2, 3), "bias": torch.zeros(2)}
print(functional_call(model, params, (inp,)))
print(functional_call(model, ({"weight": torch.ones(2, 3)}, {"bias": torch.ones(2)}), inp))
print(model.weight.sum(), model(inp).sum())
seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
named = {k: v.detach() * 0.5 for k, v in seq.named_parameters()}
print(functional_call(seq, named, inp))
try:
    functional_call(seq, {"0.weight": torch.ones(3, 3)}, inp, strict=True)
except RuntimeError as e:
    print(type(e).__name__, e)
