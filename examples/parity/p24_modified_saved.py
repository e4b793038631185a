# Backward checks that the values it saved were not changed in place (version counters).
import torch

x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)


def attempt(f):
    try:
        f()
        print("ok", x.grad)
    except RuntimeError as e:
        print(type(e).__name__, e)
    x.grad = None


def mul_saves_inputs():
    a = x + 1
    b = a * a
    a.add_(1)
    b.sum().backward()


def add_saves_nothing():
    a = x + 1
    b = a + 2
    a.add_(1)
    b.sum().backward()


def exp_saves_output():
    a = x.exp()
    a.mul_(2)
    a.sum().backward()


def twice():
    w = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    a = w + 1
    b = a.sin()
    a.mul_(2)
    a.mul_(2)
    b.sum().backward()


def leaf_input():
    w = torch.ones(2, requires_grad=True)
    c = torch.ones(2)
    b = w * c
    c.mul_(2)
    b.sum().backward()


def via_setitem():
    a = x * 1
    b = a.tanh()
    b[0, 0] = 0.
    b.sum().backward()


def via_data():
    a = x * 1
    b = a.tanh()
    b.data[0, 0] = 0.
    b.sum().backward()


for f in [mul_saves_inputs, add_saves_nothing, exp_saves_output, twice, leaf_input,
          via_setitem, via_data]:
    print(f.__name__)
    attempt(f)
