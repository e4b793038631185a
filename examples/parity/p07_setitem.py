# x[i] = v: in place, the version counter goes up; with a gradient, CopySlices.
import torch

t = torch.zeros(3, 4)
print(t._version)
t[0] = 1.
t[1, 2] = 5.
t[:, 3] = torch.tensor([7., 8., 9.])
t[t > 6] = -1.
print(t, t._version)
i = torch.tensor([1, 2])
i[0] = 2.7
print(i)

w = torch.tensor([1., 2., 3.], requires_grad=True)
h = torch.zeros(2, 3)
h[0] = w * 2
h[1, 1:] = w[:2] ** 2
print(h)
print(h.grad_fn, h.grad_fn.name(), h.requires_grad, h.is_leaf)
h.sum().backward()
print(w.grad)

y = w * 1
y[0] = 10.
print(y)
y.sum().backward()
print(w.grad)
