# Adapted from the "Autograd mechanics" notes: how requires_grad propagates, leaves and
# non-leaves, grad modes, in-place correctness checks and the version counter.
import torch

x = torch.randn(5, 5)            # requires_grad=False by default
y = torch.randn(5, 5)
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad)
b = a + z
print(b.requires_grad, b.is_leaf, z.is_leaf, a.is_leaf)
print(b.grad_fn.name(), [type(f).__name__ if f is not None else None
                         for f, _ in b.grad_fn.next_functions])

# freezing part of a model: parameters with requires_grad=False get no gradient
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
for param in model[0].parameters():
    param.requires_grad = False
out = model(torch.randn(6, 4)).sum()
out.backward()
print(model[0].weight.grad, model[2].weight.grad.shape)

# grad modes
w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    v = w * 2
print(v.requires_grad, v.grad_fn)
with torch.enable_grad():
    print((w * 2).requires_grad)
torch.set_grad_enabled(False)
print((w * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.inference_mode():
    u = w * 3
print(u.requires_grad, u.is_inference(), torch.is_inference_mode_enabled())
try:
    (u * w).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# in-place correctness checks
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()
c = b * 2
print(b._version)
b.mul_(2)
print(b._version)
try:
    c.sum().backward()
    print("no error")
except RuntimeError as e:
    print("RuntimeError:", e)
b = a.exp()
b.add_(1)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
leaf = torch.zeros(2, requires_grad=True)
try:
    leaf.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    leaf.add_(1)
print(leaf, leaf._version)

# detach shares storage and version counter; .data does not track versions
d = a.detach()
d.zero_()
print(a, a._version, d._version)
e = a.data
e.add_(1)
print(a, a._version)
