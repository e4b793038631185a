# Elementwise math: values, grad_fn names and derivatives.
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
for name in ["exp", "log", "tanh", "sigmoid", "relu", "abs", "sqrt", "sin", "cos",
             "neg", "reciprocal", "square", "rsqrt", "log1p", "expm1", "atan"]:
    y = getattr(x, name)()
    y.sum().backward()
    print(name, y, x.grad)
    x.grad = None
z = torch.tensor([-1.5, 0.5, 2.0], requires_grad=True)
for f in [torch.relu, torch.abs, torch.tanh, torch.sigmoid, torch.exp]:
    y = f(z)
    print(y)
print(torch.exp(torch.tensor(1.)), torch.log(torch.tensor([1., 10.])))
