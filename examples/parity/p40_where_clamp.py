# where, clamp, masked_fill: values and gradients.
import torch

x = torch.tensor([-2., -0.5, 0.5, 3.], requires_grad=True)
y = torch.where(x > 0, x * 2, x ** 2)
print(y)
y.sum().backward()
print(x.grad)
x.grad = None
c = x.clamp(-1, 1)
print(c, c.grad_fn.name())
c.sum().backward()
print(x.grad)
x.grad = None
m = x.masked_fill(x < 0, 0.)
print(m)
m.sum().backward()
print(x.grad)
print(torch.clamp(x, min=0), x.clamp(max=0), torch.where(x > 0, x, 0.))
print(torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), torch.tensor([3, 4])))
