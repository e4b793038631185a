# Backward twice: an error unless retain_graph=True (graphs with no saved tensors are fine).
import torch

x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__, e)

x.grad = None
s = (x + 2).sum()
s.backward()
s.backward()
print(x.grad)

z = x.exp().sum()
z.backward()
try:
    z.backward()
except RuntimeError as e:
    print(type(e).__name__, e)
