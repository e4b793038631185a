# Backward errors: no grad, non-scalar without gradient, gradient of the wrong shape.
import torch


def attempt(f):
    try:
        f()
        print("no error")
    except RuntimeError as e:
        print(type(e).__name__, e)


x = torch.tensor([1., 2.], requires_grad=True)
attempt(lambda: torch.tensor([1., 2.]).backward())
attempt(lambda: torch.tensor(1.).backward())
attempt(lambda: (x.detach() * 2).sum().backward())
attempt(lambda: (x * 2).backward())
attempt(lambda: (x * 2).backward(torch.ones(3)))
attempt(lambda: (x * 2).sum().backward(torch.ones(2)))
with torch.no_grad():
    y = (x * 2).sum()
attempt(lambda: y.backward())
attempt(lambda: x.sum().backward())
print(x.grad)
attempt(lambda: x.backward(torch.ones(2)))
print(x.grad)
