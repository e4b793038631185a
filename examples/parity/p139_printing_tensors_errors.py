# Printing as beginners see it: summarised large tensors, scientific notation, integer,
# bool and complex tensors, empty and 0-dim tensors, set_printoptions profiles, the
# errors of common mistakes (shapes that do not multiply, dtype mismatches, indexing).
import torch
import torch.nn as nn

torch.manual_seed(0)
print(torch.arange(2000).reshape(40, 50))
print(torch.randn(1200) * 1e-5)
print(torch.tensor([1e10, 1.0, 1e-10]))
print(torch.tensor([123456789.0, 1.5]))
print(torch.tensor([[True, False], [False, True]]))
print(torch.tensor([1 + 2j, -0.5j]))
print(torch.empty(0), torch.empty(2, 0), torch.zeros(0, 3, dtype=torch.int64))
print(torch.tensor(3.25), torch.tensor(7), torch.tensor(True))
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0]))
print(torch.tensor([0.1, 0.25], dtype=torch.float16))
print(torch.ones(2, 3, dtype=torch.uint8), torch.ones(2, dtype=torch.int16))
torch.set_printoptions(profile="short")
print(torch.randn(3, 3))
torch.set_printoptions(profile="full")
print(torch.arange(1005.)[-3:])
torch.set_printoptions(profile="default")
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 2.25]))
torch.set_printoptions(sci_mode=None, precision=2)
print(torch.tensor([1.23456, 2.5]))
torch.set_printoptions(precision=4)
x = torch.randn(3, 4, requires_grad=True)
print(x.mean(), x.sum(dim=0), x[0], x.T.shape, x.size(1))
print(repr(x.shape), x.dtype, x.device, x.layout)
lin = nn.Linear(5, 2)
errors = [
    lambda: lin(torch.randn(3, 4)),
    lambda: torch.randn(2, 3) @ torch.randn(2, 3),
    lambda: torch.randn(3) + torch.randn(4),
    lambda: torch.ones(2, dtype=torch.int64) @ torch.ones(2),
    lambda: torch.ones(3)[5],
    lambda: torch.ones(2, 2).view(3),
    lambda: torch.ones(2, 3).transpose(0, 1).view(6),
    lambda: nn.CrossEntropyLoss()(torch.randn(3, 4), torch.tensor([0.0, 1.0, 2.0])),
    lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 2)]),
    lambda: torch.tensor([1, 2]).mean(),
    lambda: torch.stack([torch.ones(2), torch.ones(3)]),
    lambda: torch.ones(2, 3).sum(dim=2),
]
for e in errors:
    try:
        e()
        print("no error")
    except Exception as err:
        print(type(err).__name__ + ":", err)
