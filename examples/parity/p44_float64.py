# float64 tensors keep float64 through operations and gradients.
import torch

x = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64, requires_grad=True)
y = (x.exp() * x.sin()).sum() / x.norm()
print(y)
y.backward()
print(x.grad, x.grad.dtype)
f = torch.tensor([1., 2.], requires_grad=True)
d = f.double()
print(d, d.grad_fn.name())
(d * torch.tensor([3., 4.], dtype=torch.float64)).sum().backward()
print(f.grad, f.grad.dtype)
print(torch.tensor(1 / 3, dtype=torch.float64), torch.tensor(1 / 3))
print(torch.arange(3, dtype=torch.float64), torch.ones(2, dtype=torch.double) / 3)
