# torch.autograd.Function: a user's own forward and backward.
import torch


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class MulConst(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


x = torch.tensor([0., 1., 2.], requires_grad=True)
y = Exp.apply(x)
print(y)
print(y.grad_fn.name(), type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
x.grad = None
z = MulConst.apply(x, 3.0)
print(z.requires_grad)
(z * z).sum().backward()
print(x.grad)
with torch.no_grad():
    print(Exp.apply(x).requires_grad)
