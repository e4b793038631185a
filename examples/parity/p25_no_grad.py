# no_grad: as a context manager and a decorator; enable_grad inside it.
import torch

x = torch.tensor([1., 2.], requires_grad=True)
print((x * 2).requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    y = x * 2
    print(y.requires_grad, y.grad_fn, y.is_leaf, torch.is_grad_enabled())
    with torch.enable_grad():
        z = x * 2
        print(z.requires_grad, z.grad_fn)
    print((x ** 2).requires_grad)
print(torch.is_grad_enabled())


@torch.no_grad()
def f(t):
    return t * 3


@torch.no_grad
def g(t):
    return t * 3


@torch.enable_grad()
def h(t):
    return t * 3


print(f(x).requires_grad, g(x).requires_grad, h(x).requires_grad)
with torch.no_grad():
    print(h(x).requires_grad)
try:
    with torch.no_grad():
        raise ValueError("inside")
except ValueError as e:
    print(e, torch.is_grad_enabled())
