# gradcheck / gradgradcheck (and their error), forward-mode AD with dual tensors.
import torch
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda x: (x**2).sin(), x))
print(torch.autograd.gradgradcheck(lambda x: (x**2).sin(), x))
print(torch.autograd.gradcheck(lambda x, y: (x * y.exp()).tanh(), (x, torch.tensor([0.5, -0.3], dtype=torch.float64, requires_grad=True))))
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x*2
    @staticmethod
    def backward(ctx, g): return g*3
try: torch.autograd.gradcheck(Bad.apply, x)
except Exception as e: print(type(e).__name__, type(e).__mro__[1].__name__, e)
print(torch.autograd.gradcheck(Bad.apply, x, raise_exception=False))
for f in [lambda: fwAD.make_dual(torch.ones(2), torch.ones(2))]:
    try: f()
    except Exception as e: print(type(e).__name__, e)
with fwAD.dual_level():
    try: fwAD.make_dual(torch.ones(2), torch.ones(3))
    except Exception as e: print(type(e).__name__, e)
    d = fwAD.make_dual(torch.tensor([1.,2.]), torch.tensor([1.,0.]))
    y = (d.sin() * d).sum()
    print(fwAD.unpack_dual(y), fwAD.unpack_dual(y).tangent, d)
    p, t = fwAD.unpack_dual(d * 3); print(p, t)
    print(fwAD.unpack_dual(torch.ones(2)))
    W = torch.tensor([[1., 2.], [3., -1.]])
    for f in [lambda d: W @ d, lambda d: d.exp() / d.sum(), lambda d: torch.tanh(d) ** 3, lambda d: d.softmax(0), lambda d: d.max(), lambda d: torch.cat([d, d * 2]), lambda d: d[1] * d.reshape(2, 1)]:
        print(fwAD.unpack_dual(f(d)).tangent)
    print(d.requires_grad, (d * 2).requires_grad, fwAD.unpack_dual(d).primal)
print(fwAD.unpack_dual(y))
print(d)
