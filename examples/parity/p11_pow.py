# ** in its three forms: PowBackward0 (tensor ** number), 1 (tensor ** tensor), 2 (number ** tensor).
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
e = torch.tensor([2., 0.5, 1.], requires_grad=True)
a = x ** 2
b = x ** e
c = 2 ** x
d = x.pow(3)
f = x ** -1
print(a, b, c, d, f, sep="\n")
(a + b + c + d + f).sum().backward()
print(x.grad)
print(e.grad)
print(x.sqrt().pow(2))
print(torch.tensor([2, 3]) ** 2, torch.tensor([4, 9]) ** 0.5)
