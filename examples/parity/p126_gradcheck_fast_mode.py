# gradcheck(fast_mode=True): PyTorch's random directions (its own generator), so the same
# numerical v^T J u and the same message with the slow-mode Jacobians.  (The analytical
# v^T J u is a dot product, rounded by MKL in its own order: its last digit may differ, so
# that line is left out.)
import torch
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)
x = torch.randn(3, dtype=torch.double, requires_grad=True)
y = torch.randn(2, 3, dtype=torch.double, requires_grad=True)


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * a          # should be 2 * a * g


for f, args in [(Bad.apply, (x,)), (lambda a, b: (Bad.apply(a) * b, b.sum()), (x, y)),
                (lambda a, b: (b * a, Bad.apply(b)), (x, y))]:
    try:
        gradcheck(f, args, fast_mode=True)
    except RuntimeError as e:
        print("\n".join(line for line in str(e).splitlines()
                        if not line.startswith("analytical:")))
    print(gradcheck(f, args, fast_mode=True, raise_exception=False))
print(gradcheck(lambda a, b: (a * b).sin(), (x, y), fast_mode=True))
print(gradgradcheck(lambda a, b: (a * b).tanh(), (x, y), fast_mode=True))
print(gradcheck(torch.exp, (x,), fast_mode=True, check_forward_ad=True))
