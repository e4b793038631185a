# In-place shape methods change the tensor's own shape (and its grad_fn's name).
import torch

x = torch.ones(1, 3, requires_grad=True)
y = x * 2
y.squeeze_(0)
print(y.shape, y.grad_fn)
y.unsqueeze_(1)
print(y.shape, y.grad_fn)
z = torch.ones(2, 3)
z.t_()
print(z.shape, z.stride(), z._version)
z.transpose_(0, 1)
print(z.shape, z._version)
try:
    x.squeeze_(0)
except RuntimeError as e:
    print(type(e).__name__, e)
w = (x * 2).t_()
print(w.grad_fn, w.shape)
w.sum().backward()
print(x.grad)
b = torch.ones(1, 3, requires_grad=True) * 1
b.squeeze_()
print(b.grad_fn, b.shape)
b.transpose_(0, 0)
print(b.grad_fn)
with torch.no_grad():
    c = torch.ones(1, 3, requires_grad=True)
    c.squeeze_(0)
    print(c.shape, c.requires_grad, c.is_leaf)
d = torch.arange(6.).reshape(2, 3)
d.unsqueeze_(0).squeeze_(0).t_()
print(d)
