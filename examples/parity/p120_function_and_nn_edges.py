# Custom Functions (next_functions of a Function with non-tensor arguments, mark_dirty of a
# leaf, index_add_ in a backward), in-place activations, Embedding(max_norm=...).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


y = Scale.apply(torch.ones(2, requires_grad=True), 3.0)
print(type(y.grad_fn).__name__, y.grad_fn.next_functions)


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


a = torch.randn(3, requires_grad=True)
b = a.clone()
print(Double.apply(b) is b, b._version)
try:
    Double.apply(a)
except RuntimeError as e:
    print(type(e).__name__, e)


class Sort(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        v, i = x.sort()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return v, i

    @staticmethod
    def backward(ctx, gv, gi):
        i, = ctx.saved_tensors
        out = torch.zeros_like(gv)
        out.index_add_(0, i, gv)
        return out


x = torch.randn(5, requires_grad=True)
v, i = Sort.apply(x)
(v * torch.arange(5.0)).sum().backward()
print(v, i, x.grad)
base = torch.zeros(3, 2)
print(base.index_add(0, torch.tensor([0, 2, 0]), torch.ones(3, 2), alpha=2))
w = torch.randn(4, 2, requires_grad=True)
src = torch.randn(3, 2, requires_grad=True)
out = w.index_add(0, torch.tensor([1, 1, 3]), src)
(out * torch.arange(8.0).reshape(4, 2)).sum().backward()
print(out.grad_fn, w.grad, src.grad)

for m in [nn.ReLU(inplace=True), nn.LeakyReLU(0.1, inplace=True), nn.ELU(inplace=True),
          nn.SiLU(inplace=True), nn.Hardtanh(inplace=True), nn.ReLU6(inplace=True),
          nn.SELU(inplace=True), nn.Hardswish(inplace=True), nn.Hardsigmoid(inplace=True)]:
    x = torch.randn(4)
    y = m(x)
    w = torch.randn(4, requires_grad=True)
    out = m(w * 2)
    out.sum().backward()
    print(m, y is x, x, w.grad)

e = nn.Embedding(6, 3, max_norm=1.0)
idx = torch.tensor([0, 2, 2, 5])
out = e(idx)
print(e, out.norm(dim=1), e.weight._version)
out.sum().backward()
print(e.weight, e.weight.grad)
e1 = nn.Embedding(4, 3, max_norm=0.5, norm_type=1.0)
print(e1, e1(torch.tensor([[1, 3]])))
print(nn.LayerNorm([2, 4], elementwise_affine=False))
print(nn.Embedding(3, 2, scale_grad_by_freq=True, sparse=True))
