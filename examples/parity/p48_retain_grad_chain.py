# retain_grad on a chain of intermediates; gradients of every step.
import torch

x = torch.tensor(2., requires_grad=True)
a = x * 3
b = a ** 2
c = b.sin()
for t in (a, b, c):
    t.retain_grad()
c.backward()
print(x.grad, a.grad, b.grad, c.grad)
print(a.is_leaf, a.retains_grad)
