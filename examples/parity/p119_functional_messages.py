# torch.autograd.functional: the structures and the errors of its less used arguments
# (strategy, vectorize, strict, a v of the wrong size).
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

torch.manual_seed(0)


def adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(2), torch.rand(2))
print(jacobian(adder, inputs, vectorize=True))
print(jacobian(adder, inputs, strategy="forward-mode", vectorize=True))
print(jacobian(lambda x: x.exp(), torch.rand(2), strategy="forward-mode", vectorize=True))
print(hessian(lambda x, y: (x.pow(2) * y).sum(), inputs, vectorize=True))


def const(x):
    return torch.ones(2)


def reducer(x):
    return x.exp().sum(dim=1)


calls = [
    ("jacobian strict", lambda: jacobian(const, torch.rand(2), strict=True)),
    ("jacobian strict vectorize", lambda: jacobian(const, torch.rand(2), strict=True,
                                                   vectorize=True)),
    ("jacobian vectorize strict used",
     lambda: jacobian(lambda x: x * 2, torch.rand(2), strict=True, vectorize=True)),
    ("vjp strict", lambda: vjp(const, torch.rand(2), torch.ones(2), strict=True)),
    ("jvp strict", lambda: jvp(const, torch.rand(2), torch.ones(2), strict=True)),
    ("hessian strict linear", lambda: hessian(lambda x: x.sum(), torch.rand(2), strict=True)),
    ("hvp strict linear", lambda: hvp(lambda x: x.sum(), torch.rand(2), torch.ones(2),
                                      strict=True)),
    ("forward create_graph", lambda: jacobian(lambda x: x, torch.rand(2), create_graph=True,
                                              strategy="forward-mode")),
    ("forward no vectorize", lambda: jacobian(lambda x: x, torch.rand(2),
                                              strategy="forward-mode")),
    ("bad strategy", lambda: jacobian(lambda x: x, torch.rand(2), strategy="bad")),
    ("bad hessian strategy", lambda: hessian(lambda x: x.sum(), torch.rand(2),
                                             outer_jacobian_strategy="bad")),
    ("vjp v size", lambda: vjp(reducer, torch.rand(3, 3), torch.ones(2))),
    ("vjp v tuple size", lambda: vjp(lambda x: (x, x), torch.rand(3), (torch.ones(3),
                                                                       torch.ones(2)))),
    ("vjp v count", lambda: vjp(reducer, torch.rand(3, 3), (torch.ones(3), torch.ones(3)))),
    ("jvp no v", lambda: jvp(reducer, torch.rand(3, 3))),
    ("hvp vector output", lambda: hvp(lambda x: x, torch.rand(2), torch.ones(2))),
    ("vhp tuple output", lambda: vhp(lambda x: (x.sum(),), torch.rand(2), torch.ones(2))),
    ("hessian vector output", lambda: hessian(lambda x: x * 2, torch.rand(2))),
    ("hessian tuple output", lambda: hessian(lambda x: (x.sum(),), torch.rand(2))),
]
for name, call in calls:
    try:
        print(name, call())
    except Exception as e:
        print(name, type(e).__name__, e)
print(jacobian(const, torch.rand(2)))
print(hessian(lambda x: x.sum(), torch.rand(2)))
print(hessian(lambda x: (x ** 3).sum() * x.sum(), torch.rand(3, dtype=torch.float64)))
