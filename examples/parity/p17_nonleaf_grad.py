# Non-leaf tensors: .grad is None (with a warning) unless retain_grad() was called.
import warnings
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
z = y * y
y.retain_grad()
print(y.retains_grad, z.retains_grad, x.retains_grad)
out = z.sum()
out.backward(retain_graph=True)
print(x.grad, y.grad)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(z.grad)
    print(len(caught), caught[0].category.__name__)
    print(str(caught[0].message).split(" (Triggered")[0])
out.backward()
print(y.grad)
x.retain_grad()
print(x.retains_grad)
