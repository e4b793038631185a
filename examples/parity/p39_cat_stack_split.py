# Joining and splitting: cat, stack, chunk, split, unbind, with gradients.
import torch

a = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
b = torch.tensor([[5., 6.]], requires_grad=True)
c = torch.cat([a, b])
print(c, c.grad_fn.name(), len(c.grad_fn.next_functions))
print(torch.cat([a, a], dim=1))
s = torch.stack([a, a * 2], dim=0)
print(s.shape, s.grad_fn.name())
print(torch.stack([a[0], a[1]], dim=1))
(c * torch.arange(6.).reshape(3, 2)).sum().backward()
print(a.grad, b.grad)
print(a.chunk(2), a.split(1, dim=1))
first, second = a.unbind()
print(first, second)
(first * 2 + second * 3).sum().backward()
print(a.grad)
print([t.shape for t in torch.arange(10.).split(4)])
