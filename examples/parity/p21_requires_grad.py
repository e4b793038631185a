# requires_grad_(), the requires_grad attribute and their errors.
import torch

a = torch.tensor([1., 2.])
print(a.requires_grad)
a.requires_grad_()
print(a.requires_grad, a)
a.requires_grad_(False)
print(a.requires_grad)
a.requires_grad = True
print(a.requires_grad)
for make in [lambda: torch.tensor([1, 2], requires_grad=True),
             lambda: torch.tensor([1, 2]).requires_grad_(),
             lambda: setattr(torch.tensor([1, 2]), "requires_grad", True),
             lambda: (a * 2).requires_grad_(False)]:
    try:
        make()
    except RuntimeError as e:
        print(type(e).__name__, e)
b = (a * 2).requires_grad_(True)
print(b.requires_grad, b.is_leaf)
print(torch.zeros(2, dtype=torch.float64, requires_grad=True))
print(torch.ones(2).requires_grad, torch.ones(2, requires_grad=True).requires_grad)
