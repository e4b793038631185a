# backward(gradient) for non-scalar outputs; the error without it.
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__, e)
y.backward(torch.tensor([1., 0.1, 0.01]))
print(x.grad)
z = x.unsqueeze(1) * x
z.backward(torch.ones(3, 3))
print(x.grad)
w = torch.tensor(3., requires_grad=True)
(w * w).backward(torch.tensor(2.))
print(w.grad)
try:
    (x * 2).backward(torch.ones(2))
except RuntimeError as e:
    print(type(e).__name__, e)
out = (x ** 2).sum()
out.backward(torch.tensor(0.5))
print(x.grad)
