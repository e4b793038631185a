# saved_tensors_hooks with custom Functions (ctx.save_for_backward is packed, ctx.saved_tensors
# unpacks) and save_on_cpu around nn layers: the gradients are unchanged.
import torch
import torch.nn as nn


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x ** 3 * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * 3 * x ** 2 * y, g * x ** 3


log = []
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)


def pack(t):
    log.append(("pack", t.tolist()))
    return t * 2


def unpack(t):
    log.append(("unpack", t.tolist()))
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    out = Cube.apply(x, y)
print(log)
out.sum().backward()
print(log, x.grad, y.grad)

torch.set_default_dtype(torch.float64)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2), nn.Sigmoid())
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel()) + i).reshape(p.shape))
data = torch.tensor([[1., 2., 3.], [-1., 0.5, 0.]])
grads = []
for hooks in (False, True):
    model.zero_grad()
    if hooks:
        with torch.autograd.graph.save_on_cpu():
            loss = model(data).pow(2).sum()
    else:
        loss = model(data).pow(2).sum()
    loss.backward()
    grads.append([p.grad.clone() for p in model.parameters()])
    print(loss)
print(all(torch.equal(a, b) for a, b in zip(*grads)), grads[1][0])
