# In the style of the "Double Backward with Custom Functions" and "Fusing Convolution and
# Batch Norm" tutorials: custom Functions checked with gradcheck / gradgradcheck (one saving
# an intermediate as an extra output, one whose backward records no graph), once_differentiable,
# a device context, and an Adadelta + StepLR loop.
import torch
import torch.nn as nn
from torch.autograd.function import once_differentiable


class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e2 = torch.exp(2 * x)
        out = (e2 - 1) / (e2 + 1)
        ctx.save_for_backward(out, e2)
        return out, e2                       # the intermediate as an output: double backward

    @staticmethod
    def backward(ctx, grad_out, grad_e2):
        out, e2 = ctx.saved_tensors
        return grad_out * (1 - out * out) + grad_e2 * 2 * e2


def tanh(x):
    return Tanh.apply(x)[0]


class TanhDetached(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.out = torch.tanh(x)              # not saved with save_for_backward: a constant
        return ctx.out.clone()

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * (1 - ctx.out ** 2)


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return 2 * x * grad_out


torch.manual_seed(7)
x = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(tanh, x), torch.autograd.gradgradcheck(tanh, x))
print(tanh(x), torch.tanh(x))
g, = torch.autograd.grad(tanh(x).sum(), x, create_graph=True)
print(g.grad_fn is not None, torch.allclose(g, 1 - torch.tanh(x) ** 2))
print(torch.autograd.gradcheck(TanhDetached.apply, x))
print(torch.autograd.gradgradcheck(TanhDetached.apply, x, raise_exception=False))
print(torch.autograd.gradcheck(Square.apply, x))
g, = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
try:
    g.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)

with torch.device("cpu"):
    layer = nn.Linear(3, 2)
    print(layer.weight.device, torch.zeros(1).device)
print(torch.get_default_device())

torch.manual_seed(0)
data = torch.randn(40, 3, dtype=torch.double)
target = data @ torch.tensor([[1.5], [-2.0], [0.5]], dtype=torch.double) + 0.3
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.7)
for epoch in range(4):
    for i in range(0, 40, 10):
        loss = nn.functional.mse_loss(model(data[i:i + 10]), target[i:i + 10])
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()
    print(epoch, round(loss.item(), 6), sched.get_last_lr())
print(opt)
print(sorted(opt.state_dict()["state"][0]))
