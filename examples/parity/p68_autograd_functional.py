# torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp (tuples, strict, create_graph).
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
torch.set_printoptions(precision=5)
def f(x): return (x ** 2 * x.sin()).sum()
def g(x, y): return x.exp() * y.sum(), (x * y).sin()
x = torch.tensor([0.5, -1.0, 2.0])
y = torch.tensor([1.0, 0.3, -0.4])
print(jacobian(lambda x: x.exp() * 2, x))
print(jacobian(g, (x, y)))
print(jacobian(lambda x: x.tanh(), x, create_graph=True).requires_grad)
print(hessian(f, x))
print(hessian(lambda x, y: (x * y.exp()).sum(), (x, y)))
print(vjp(lambda x: x.exp(), x, torch.ones(3)))
print(vjp(f, x))
print(jvp(lambda x: x.exp() * x, x, torch.tensor([1., 0., -1.])))
print(jvp(g, (x, y), (torch.ones(3), torch.zeros(3))))
print(hvp(f, x, torch.tensor([1., 2., 3.])))
print(vhp(f, x, torch.tensor([1., 2., 3.])))
print(jacobian(lambda x: torch.ones(2), x))
try:
    jacobian(lambda x: torch.ones(2), x, strict=True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    vjp(lambda x: x * 2, x)
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.autograd.functional.jacobian(lambda a: a @ a, torch.eye(2)))
