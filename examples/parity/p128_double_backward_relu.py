# Double backward: to third order, backward(create_graph=True) (.grad a CopyBackwards copy),
# grad_outputs / allow_unused / materialize_grads, the errors, and relu's gradient, which
# requires grad (PyTorch's threshold_backward reads the result), so its derivative is 0.
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
h, = torch.autograd.grad(g.sum(), x, create_graph=True)
print(g, h, torch.autograd.grad(h.sum(), x))
x.grad = None
(x.sin() * x).sum().backward(create_graph=True)
gx = x.grad
print(gx)
x.grad = None
gx.sum().backward()
print(x.grad)
a = torch.randn(2, requires_grad=True)
b = torch.randn(2, requires_grad=True)
o = a * 2
print(torch.autograd.grad(o.sum(), [a, b], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(o, a, grad_outputs=torch.tensor([1.0, 3.0]), retain_graph=True))
print(torch.autograd.grad(o.sum(), [a, b], allow_unused=True, materialize_grads=True,
                          retain_graph=True))
for call in (lambda: torch.autograd.grad(o.sum(), [a, b], retain_graph=True),
             lambda: torch.autograd.grad(o, a)):
    try:
        call()
    except RuntimeError as e:
        print(type(e).__name__, e)
r = torch.tensor([-1.0, 0.0, 2.0, -0.0, 0.5], dtype=torch.float64, requires_grad=True)
g1, = torch.autograd.grad(r.relu().sum(), r, create_graph=True)
print(g1, torch.autograd.grad((g1 * torch.arange(5.0, dtype=torch.float64)).sum(), r))
w = torch.randn(5, dtype=torch.float64, requires_grad=True)
g1, = torch.autograd.grad((torch.relu(r) * w).sum(), r, create_graph=True)
print(g1, torch.autograd.grad(g1.sum(), [r, w]))
print(torch.autograd.gradgradcheck(lambda t: t.relu() * t,
                                   (torch.tensor([1.5, -0.7], dtype=torch.float64,
                                                 requires_grad=True),)))
for fn in (torch.sigmoid, torch.nn.functional.gelu, torch.nn.functional.softplus,
           lambda z: z.norm(), lambda z: (z @ z.T).trace(), lambda z: z.max(),
           lambda z: z.log_softmax(1)):
    z = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    g1, = torch.autograd.grad(fn(z).sum(), z, create_graph=True)
    weights = torch.arange(1.0, 7.0, dtype=torch.float64).reshape(2, 3)
    try:
        print(torch.autograd.grad((g1 * weights).sum(), z, allow_unused=True))
    except RuntimeError as e:
        print(type(e).__name__, e)
z = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
g1, = torch.autograd.grad(z.clamp(-0.5, 0.5).sum(), z, create_graph=True)
try:
    torch.autograd.grad(g1.sum(), z)
except RuntimeError as e:
    print(type(e).__name__, e)
