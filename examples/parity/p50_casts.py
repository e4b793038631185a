# Casts: to(dtype), float(), double(), long(); a cast to the same dtype is the tensor itself.
import torch

x = torch.tensor([1.7, -2.2, 3.5], requires_grad=True)
print(x.float() is x, x.to(torch.float32) is x)
d = x.to(torch.float64)
print(d, d.grad_fn.name(), d.requires_grad)
print(x.long(), x.int(), x.bool(), x.long().requires_grad)
print(x.detach().half())
(d ** 2).sum().backward()
print(x.grad, x.grad.dtype)
i = torch.tensor([1, 2])
print(i.float() / 3, i.to(torch.float64).dtype, i.type_as(x))
