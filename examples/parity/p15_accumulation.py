# .grad accumulates across backward calls until zeroed or set to None.
import torch

w = torch.tensor([1., 2.], requires_grad=True)
for step in range(3):
    loss = (w * w).sum()
    loss.backward()
    print(step, w.grad)
g = w.grad
w.grad.zero_()
print(w.grad, g is w.grad)
(3 * w).sum().backward()
print(w.grad, g is w.grad)
w.grad = None
(w ** 3).sum().backward()
print(w.grad)
a = torch.tensor(2., requires_grad=True)
b = a * a
c = a * 3
(b + c).backward()
print(a.grad)
