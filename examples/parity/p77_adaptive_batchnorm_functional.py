# adaptive_avg_pool1d/2d (output 1, uneven bins, None) and F.batch_norm in training and
# evaluation: values, running statistics, gradients of input, weight and bias.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = (torch.arange(2 * 3 * 5 * 4, dtype=torch.float64).reshape(2, 3, 5, 4) % 7 - 3).requires_grad_()
for size in [1, (2, 3), (3, None), 5]:
    x.grad = None
    out = F.adaptive_avg_pool2d(x, size)
    out.pow(2).sum().backward()
    print(size, tuple(out.shape), out.grad_fn)
    print(out[0, 1])
    print(x.grad[0, 1])
m = nn.AdaptiveAvgPool2d((2, None))
print(m, m(x).shape, nn.AdaptiveAvgPool1d(3)(x[0]).grad_fn)
print(F.adaptive_avg_pool1d(x[:, 0], 3)[0])

rm = torch.zeros(3, dtype=torch.float64)
rv = torch.ones(3, dtype=torch.float64)
w = torch.tensor([1., 2., -1.], dtype=torch.float64, requires_grad=True)
b = torch.tensor([0., 0.5, 1.], dtype=torch.float64, requires_grad=True)
x.grad = None
out = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
print(out.grad_fn, out[1, 2, :2])
print(rm, rv)
(out * x.detach().cos()).sum().backward()
print(x.grad[0, 0], w.grad, b.grad)
out = F.batch_norm(x, rm, rv, w, b, training=False)
print(out[0, 0, 0], out.grad_fn)
y = torch.tensor([[1., 2.], [3., 5.], [0., -1.]], requires_grad=True)
o = F.batch_norm(y, None, None, training=True)
(o * torch.tensor([[1., 2.], [0., 1.], [3., -1.]])).sum().backward()
print(o, y.grad)
try:
    F.batch_norm(torch.ones(1, 3), None, None, training=True)
except ValueError as e:
    print("ValueError", e)
