# Tensor hooks: see or replace the gradient of a leaf or an intermediate tensor.
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
h1 = x.register_hook(lambda g: print("leaf hook", g))
y = x * 2
y.register_hook(lambda g: print("y hook", g))
z = y ** 2
z.register_hook(lambda g: g * 10)
z.sum().backward()
print(x.grad)
h1.remove()
x.grad = None
(x * 2).sum().backward()
print(x.grad)
