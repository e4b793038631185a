# nn.Conv1d and F.conv1d: batched and unbatched input, groups, 'same' padding with an even kernel,
# a gradient through two stacked convolutions.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.sin(torch.arange(2 * 4 * 9, dtype=torch.float64).reshape(2, 4, 9)).requires_grad_()
c1 = nn.Conv1d(4, 6, 4, padding="same", groups=2, dtype=torch.float64)
c2 = nn.Conv1d(6, 2, 3, stride=2, dilation=2, dtype=torch.float64)
with torch.no_grad():
    for c in (c1, c2):
        c.weight.copy_(torch.cos(torch.arange(c.weight.numel(), dtype=torch.float64)).reshape(c.weight.shape))
        c.bias.fill_(0.5)
h = torch.tanh(c1(x))
out = c2(h)
print(c1, c2)
print(h.shape, out.shape, out.grad_fn, h.grad_fn)
print(out)
out.pow(2).mean().backward()
print(x.grad[0])
print(c1.weight.grad[1], c2.bias.grad)
u = F.conv1d(x[1], c1.weight, None, 1, "same", 1, 2)
print(u.shape, u.grad_fn, torch.allclose(u, c1(x[1:])[0] - 0.5))
print(F.conv1d(x, torch.ones(1, 4, 2, dtype=torch.float64), padding=1)[:, 0, :4])
