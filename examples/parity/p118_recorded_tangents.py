# Forward-mode tangents that depend on tensors requiring grad are recorded (they have a
# grad_fn, and can be differentiated); under no_grad, or from constants, they are plain.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
t = torch.randn(3)
c = torch.randn(3)
with fwAD.dual_level():
    d = fwAD.make_dual(x, t)
    cases = [("mul", lambda d: d * c), ("add", lambda d: d + c), ("exp", torch.exp),
             ("square", lambda d: d ** 2), ("sum", lambda d: d.sum()),
             ("slice", lambda d: d[:2]), ("neg", lambda d: -d), ("dot", lambda d: c @ d),
             ("sin", torch.sin), ("mul_self", lambda d: d * d)]
    for name, f in cases:
        tan = fwAD.unpack_dual(f(d)).tangent
        print(name, tan, tan.requires_grad)
    tan = fwAD.unpack_dual((d * d).sum()).tangent
    g, = torch.autograd.grad(tan, x)
    print("d/dx of the tangent of sum(x*x):", g, torch.allclose(g, 2 * t))
    plain = fwAD.make_dual(c, t)
    print("constant primal", fwAD.unpack_dual(plain * 3).tangent)
    print("mixed", fwAD.unpack_dual(plain * x).tangent)
    tg = torch.randn(3, requires_grad=True)
    print("tangent requiring grad", fwAD.unpack_dual(fwAD.make_dual(c, tg)).tangent)
    with torch.no_grad():
        print("no_grad", fwAD.unpack_dual(d * d).tangent)

# the forward-mode AD tutorial: a Module's parameters made dual
model = nn.Linear(5, 5)
inputs = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(inputs)
    jvp = fwAD.unpack_dual(out).tangent
print(jvp[:2])


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, g):
        out = g * ctx.result
        del ctx.result
        return out


primal = torch.randn(4, dtype=torch.double, requires_grad=True)
with fwAD.dual_level():
    y = Exp.apply(fwAD.make_dual(primal, torch.ones(4, dtype=torch.double)))
    print(fwAD.unpack_dual(y).tangent)
with fwAD.dual_level():
    y = Exp.apply(fwAD.make_dual(primal.detach(), torch.ones(4, dtype=torch.double)))
    print(fwAD.unpack_dual(y).tangent)
