# In-place changes through views (x[i].add_, x[1:] *= 2) while recording: CopySlices.
import torch
w = torch.tensor([1., 2., 3.], requires_grad=True)
h = torch.zeros(2, 3)
row = h[0]
row.add_(w)
print(h, row)
print(h.grad_fn.name(), row.grad_fn.name())
(h * torch.tensor([[1.], [10.]])).sum().backward()
print(w.grad)
w.grad = None
a = w * 1
b = a[1:]
b.mul_(3)
print(a, b, a.grad_fn.name(), b.grad_fn.name())
a.sum().backward()
print(w.grad)
w.grad = None
c = w * 1
c[1:] *= 2
print(c)
c.sum().backward(); print(w.grad)
