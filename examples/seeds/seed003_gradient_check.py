# Seed 003, "Gradients": o = mean(3 (x + 2)^2), do/dx = 3/2 (x + 2) = 4.5 at x = 1.
import torch

x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
out.backward()
print(x.grad)
print(torch.allclose(x.grad, 1.5 * (x.detach() + 2)))
print(out.grad_fn.name(), z.grad_fn.name(), y.grad_fn.name())
print(out.grad_fn.next_functions)
