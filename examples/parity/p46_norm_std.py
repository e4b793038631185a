# norm, std, var, prod and cumsum, with gradients.
import torch

x = torch.tensor([[3., 4.], [1., 2.]], requires_grad=True)
n = x.norm()
print(n, n.grad_fn.name())
n.backward()
print(x.grad)
x.grad = None
print(x.norm(dim=1), x.norm(p=1), x.norm(dim=0, keepdim=True))
s = x.std()
v = x.var(0)
print(s, v, x.std(1, keepdim=True), x.var(unbiased=False))
(s + v.sum()).backward()
print(x.grad)
x.grad = None
p = x.prod()
print(p, p.grad_fn.name())
p.backward()
print(x.grad)
x.grad = None
c = x.cumsum(1)
print(c, c.grad_fn.name())
c.sum().backward()
print(x.grad)
