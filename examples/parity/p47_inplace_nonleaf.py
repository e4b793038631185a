# In-place operations on non-leaf tensors join the graph (the tensor's grad_fn changes).
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
print(y.grad_fn.name(), y._version)
y.add_(1)
print(y, y.grad_fn.name(), y._version)
y.mul_(torch.tensor([1., 2., 3.]))
print(y, y.grad_fn.name())
y.sum().backward()
print(x.grad)
x.grad = None
y = x * 2
y.mul_(y.detach())      # mul_ saves its argument, which shares y's version counter
try:
    y.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
x.grad = None
a = x.clone()
a += x
a *= 2
print(a, a.grad_fn)
a.sum().backward()
print(x.grad)
x.grad = None
b = x * 1
b.exp_()
print(b)
b.sum().backward()
print(x.grad)
w = torch.tensor(2., requires_grad=True)
c = torch.ones(3)
c.mul_(w)
print(c, c.requires_grad, c.is_leaf)
c.sum().backward()
print(w.grad)
