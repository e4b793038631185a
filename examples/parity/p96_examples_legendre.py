# "Learning PyTorch with examples": a custom autograd.Function, LegendrePolynomial3.
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.double
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.6f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

# a and c end near zero (about 1e-10): their signs are rounding noise
print(f"Result: y = {abs(a.item()):.6f} + {b.item():.6f} * P3({abs(c.item()):.6f} + {d.item():.6f} x)")
out = LegendrePolynomial3.apply(torch.tensor([0.5], requires_grad=True))
print(out, out.grad_fn.__class__.__name__, type(out.grad_fn).__name__)
print(torch.autograd.gradcheck(LegendrePolynomial3.apply,
                               (torch.tensor([0.3, -0.7], dtype=dtype, requires_grad=True),)))
