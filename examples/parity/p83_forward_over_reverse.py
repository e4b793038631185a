# Forward-over-reverse: a backward pass inside forward_ad.dual_level() returns dual gradients,
# whose tangents are Hessian-vector products (autograd.grad and .backward()).
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
x = torch.tensor([0.5, -1., 2.], requires_grad=True)
v = torch.tensor([1., 0.5, -1.])


def f(x):
    return (x.sin() * x).sum() + (x ** 3).sum() + x.exp().mul(x.tanh()).sum() + (x @ x) ** 2


with fwAD.dual_level():
    g, = torch.autograd.grad(f(fwAD.make_dual(x, v)), x)
    print(fwAD.unpack_dual(g).primal, fwAD.unpack_dual(g).tangent)
print(torch.autograd.functional.hvp(f, x, v)[1])

# a small network: the tangent of the weights' gradient is H @ v for the loss
w = torch.tensor([[0.2, -0.4, 0.1], [0.3, 0.5, -0.2]], requires_grad=True)
b = torch.tensor([0.1, -0.1], requires_grad=True)
inputs = torch.tensor([[1., 2., -1.], [0.5, -0.5, 1.5], [0., 1., 1.]])
target = torch.tensor([1, 0, 1])
vw = torch.ones(2, 3) * 0.1
with fwAD.dual_level():
    wd = fwAD.make_dual(w, vw)
    logits = torch.tanh(inputs @ wd.t() + b) * 2
    loss = F.cross_entropy(logits, target) + (wd ** 2).sum() * 0.01
    gw, gb = torch.autograd.grad(loss, (w, b))
    print(loss.detach(), fwAD.unpack_dual(gw).tangent, fwAD.unpack_dual(gb).tangent)
    # .backward() inside the level accumulates dual gradients into .grad
    loss2 = (F.softplus(inputs @ wd.t()).sum(1) * inputs[:, 0]).mean()
    loss2.backward()
    print(w.grad, fwAD.unpack_dual(w.grad).tangent)
