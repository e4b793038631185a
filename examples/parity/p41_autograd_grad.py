# torch.autograd.grad: gradients returned, .grad untouched.
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = torch.tensor(2., requires_grad=True)
z = (x * y).pow(2).sum()
gx, gy = torch.autograd.grad(z, (x, y), retain_graph=True)
print(gx, gy, x.grad, y.grad)
(g,) = torch.autograd.grad(z, x)
print(g)
u = torch.tensor(1., requires_grad=True)
out = (x * 2).sum()
try:
    torch.autograd.grad(out, [x, u])
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.autograd.grad((x * 2).sum(), [x, u], allow_unused=True))
h = x * 3
print(torch.autograd.grad(h.sum(), h))
v = x ** 2
print(torch.autograd.grad(v, x, grad_outputs=torch.ones(3)))
