# torch.autograd.functional as its docs show it: jacobian (tuple inputs, create_graph,
# vectorize, forward-mode strategy), hessian, vjp, jvp, hvp, vhp, strict mode errors.
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp

torch.manual_seed(0)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2)
print(jacobian(exp_reducer, inputs))
print(jacobian(exp_reducer, inputs, create_graph=True))


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(2), torch.rand(2))
print(jacobian(exp_adder, inputs))
print(jacobian(exp_adder, inputs, vectorize=True))
print(jacobian(exp_adder, inputs, vectorize=True, strategy="forward-mode"))


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
print(hessian(pow_reducer, inputs))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.rand(2), torch.rand(2))
print(hessian(pow_adder_reducer, inputs))


def exp_reducer2(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(4, 4)
v = torch.ones(4)
print(vjp(exp_reducer2, inputs, v))
print(vjp(exp_reducer2, inputs, v, create_graph=True))


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.rand(2), torch.rand(2))
v = torch.ones(2)
print(vjp(adder, inputs, v))
inputs = torch.rand(4, 4)
v = torch.ones(4, 4)
print(jvp(exp_reducer2, inputs, v))
out, tangent = jvp(exp_reducer2, inputs, v, create_graph=True)
print(out, tangent.detach(), tangent.requires_grad)


def pow_reducer2(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
v = torch.ones(2, 2)
print(vhp(pow_reducer2, inputs, v))
print(hvp(pow_reducer2, inputs, v))
inputs = (torch.rand(2), torch.rand(2))
v = (torch.zeros(2), torch.ones(2))
print(vhp(pow_adder_reducer, inputs, v))
print(hvp(pow_adder_reducer, inputs, v))


def constant(x):
    return torch.ones(2)


for call in (lambda: jacobian(constant, torch.rand(2), strict=True),
             lambda: vjp(lambda x: x * 2, torch.rand(2), torch.ones(3)),
             lambda: hessian(lambda x: x * 2, torch.rand(2)),
             lambda: jacobian(lambda x: x * 2, torch.rand(2), strategy="bad")):
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)
print(jacobian(constant, torch.rand(2)))
