# detach(): same data, same version counter, no history.
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
d = y.detach()
print(d, d.requires_grad, d.is_leaf, d.grad_fn)
d[0] = 100.
print(y)
print(y._version, d._version)
z = x.detach()
print(z.requires_grad, x.requires_grad)
w = x.exp()
w.detach().add_(1)
try:
    w.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
u = x * 3
v = u.detach().requires_grad_()
(v * v).sum().backward()
print(v.grad, x.grad)
