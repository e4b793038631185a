# What gradcheck and gradgradcheck run, as a Function that prints shows: the forward, the
# numerical Jacobian (minus then plus), each backward twice (reentrancy), zero gradients;
# fast mode; a non-reentrant backward; a backward that ignores grad_output; raise_exception.
import torch


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        print("forward", a.tolist(), b.tolist())
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        print("backward", g.tolist())
        return g * b, g * a


class Noisy(torch.autograd.Function):
    calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        Noisy.calls += 1
        return g * 2 + Noisy.calls * 1e-3


class IgnoresGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return torch.full_like(g, 3.0)


torch.manual_seed(0)
a = torch.tensor([1., 2.], dtype=torch.double, requires_grad=True)
b = torch.tensor([3., 4.], dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(Mul.apply, (a, b)))
print("-- fast")
print(torch.autograd.gradcheck(Mul.apply, (a, b), fast_mode=True))
print("-- gradgrad")
print(torch.autograd.gradgradcheck(Mul.apply, (a, b)))
print(torch.rand(2))
x = torch.tensor([0.5, 1.5], dtype=torch.double, requires_grad=True)
for fn, kw in [(Noisy.apply, {}), (Noisy.apply, {"nondet_tol": 1e-2}),
               (IgnoresGrad.apply, {}), (IgnoresGrad.apply, {"raise_exception": False})]:
    try:
        print(torch.autograd.gradcheck(fn, (x,), atol=1e-2, **kw))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
