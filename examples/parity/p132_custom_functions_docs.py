# Adapted from "Extending torch.autograd" and the custom-Function tutorials: a linear
# Function with an optional bias, a Function taking a non-tensor argument, an exp that
# saves its output, sorting with mark_non_differentiable, set_materialize_grads,
# needs_input_grad, and the messages of misuse.
import torch
from torch.autograd import Function


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        print("needs_input_grad", ctx.needs_input_grad)
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class SortValues(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return values, idx

    @staticmethod
    def backward(ctx, g1, g2):
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input.index_add_(0, idx, g1)
        return grad_input


class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads None?", g1 is None, g2 is None)
        x = g1 if g1 is not None else g2
        return x * 2


torch.manual_seed(0)
inp = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
w = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
b = torch.randn(2, dtype=torch.double, requires_grad=False)
out = LinearFunction.apply(inp, w, b)
print(out.grad_fn, type(out.grad_fn).__name__)
out.sum().backward()
print(inp.grad, w.grad, b.grad)
print(torch.autograd.gradcheck(LinearFunction.apply, (inp, w), eps=1e-6, atol=1e-4))

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = MulConstant.apply(x, 3.5)
y.sum().backward()
print(y, x.grad)

e = MyExp.apply(torch.tensor([0.0, 1.0], requires_grad=True))
print(e, e.grad_fn.name())

s = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
vals, idx = SortValues.apply(s)
print(vals, idx, idx.requires_grad)
(vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(s.grad)

a = torch.tensor([1.0, 2.0], requires_grad=True)
o1, o2 = SimpleFunc.apply(a)
o1.sum().backward()
print(a.grad)

try:
    LinearFunction.forward(None, inp, w)
    LinearFunction()(inp, w)
except Exception as err:
    print(type(err).__name__, err)
