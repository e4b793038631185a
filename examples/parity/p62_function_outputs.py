# Custom autograd.Function: several outputs, materialized grads, non-differentiable outputs.
import torch


class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w, x + w

    @staticmethod
    def backward(ctx, ga, gb):
        x, w = ctx.saved_tensors
        print("backward got", ga, gb, ctx.needs_input_grad)
        return ga * w + gb, ga * x + gb


x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.], requires_grad=True)
a, b = Split.apply(x, w)
print(a, b)
print(a.grad_fn.next_functions, (a * b).grad_fn.next_functions[1][1])
(a.sum() * 2 + b.sum()).backward()
print(x.grad, w.grad)
x.grad = None
a, b = Split.apply(x, w)
a.sum().backward()
print(x.grad)


class NoMat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        return g1 if g2 is None else g1 + g2


x.grad = None
p, q = NoMat.apply(x)
p.sum().backward()
print(x.grad)


class Argmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        return x.max(), idx

    @staticmethod
    def backward(ctx, g, gi):
        print("gi", gi)
        return torch.ones(2) * g


m, i = Argmax.apply(x)
print(m.requires_grad, i.requires_grad)
m.backward()
print(x.grad)


class Sq(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g


x.grad = None
Sq.apply(x).sum().backward()
print(x.grad)


class Dirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


z = x.detach().clone().requires_grad_() * 1
v0 = z._version
out = Dirty.apply(z)
print(out is z, z._version - v0, out.grad_fn)
out.sum().backward()
print(x.grad)
