# Arithmetic operators, reflected operators and their grad_fn nodes.
import torch

x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = torch.tensor([[0.5, -1.], [2., 0.25]], requires_grad=True)
for name, r in [("x+y", x + y), ("x+2", x + 2), ("2+x", 2 + x), ("x-y", x - y),
                ("x-2", x - 2), ("2-x", 2 - x), ("x*y", x * y), ("3*x", 3 * x),
                ("x/y", x / y), ("x/2", x / 2), ("-x", -x), ("x**2", x ** 2),
                ("x@y", x @ y)]:
    print(name, r)
    print("   ", r.grad_fn.name(), r.grad_fn.next_functions)
z = (x * y + x / y - 2 / x + x ** 3 - y).sum()
z.backward()
print(x.grad)
print(y.grad)
print(x.add(y), x.sub(y, alpha=2), x.mul(2), x.div(4), x.pow(2), torch.add(x, 1))
