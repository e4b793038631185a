# nn.Conv2d / F.conv2d: stride, padding (ints, 'same', 'valid'), dilation, groups, bias; values,
# gradients of input, weight and bias, node names; weights set deterministically.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
x = (torch.arange(2 * 4 * 5 * 5).reshape(2, 4, 5, 5) / 50 - 1).requires_grad_()
for kw in [dict(), dict(stride=2), dict(padding=1), dict(padding="same"), dict(padding="valid"),
           dict(dilation=2, padding=(1, 2)), dict(groups=2), dict(stride=(2, 1), groups=4, bias=False)]:
    conv = nn.Conv2d(4, 4, 3, **kw)
    with torch.no_grad():
        conv.weight.copy_(torch.linspace(-1, 1, conv.weight.numel()).reshape(conv.weight.shape))
        if conv.bias is not None:
            conv.bias.copy_(torch.tensor([0.1, -0.2, 0.3, 0.0]))
    out = conv(x)
    print(conv, tuple(out.shape), out.grad_fn)
    print(out[0, :, 0].detach())
    x.grad = None
    (out * out).sum().backward()
    print(x.grad[1, 2].round(decimals=3))
    print(conv.weight.grad[0, 0].round(decimals=2), None if conv.bias is None else conv.bias.grad)
w = torch.ones(2, 4, 2, 2, requires_grad=True)
y = F.conv2d(x[0], w, torch.tensor([1., 2.]))
print(y.shape, y.grad_fn, y[:, :2, :2])
print([n for n, _ in nn.Conv2d(3, 6, (3, 2)).named_parameters()], nn.Conv2d(3, 6, (3, 2)).weight.shape)
try:
    nn.Conv2d(4, 4, 3, stride=2, padding="same")
except ValueError as e:
    print("ValueError", e)
try:
    F.conv2d(x, torch.ones(2, 3, 3, 3))
except RuntimeError as e:
    print("RuntimeError", e)
