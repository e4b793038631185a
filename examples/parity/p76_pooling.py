# max_pool2d / avg_pool2d / max_pool1d / avg_pool1d and their Modules: strides, padding,
# dilation, ceil_mode, count_include_pad, divisor_override, return_indices; gradients (the max's
# goes to the first largest element of each window, overlapping windows add up).
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([[[[1., 3., 2., 0., 5.],
                    [4., 4., 1., 2., 2.],
                    [0., 6., 3., 3., 1.],
                    [2., 1., 7., 0., 4.],
                    [5., 2., 2., 8., 1.]]]], requires_grad=True)
for m in [nn.MaxPool2d(2), nn.MaxPool2d(3, stride=1), nn.MaxPool2d(3, 2, padding=1),
          nn.MaxPool2d(2, stride=2, ceil_mode=True), nn.MaxPool2d((2, 3), stride=(1, 2), dilation=(2, 1)),
          nn.AvgPool2d(2), nn.AvgPool2d(3, 2, 1), nn.AvgPool2d(3, 2, 1, count_include_pad=False),
          nn.AvgPool2d(2, ceil_mode=True), nn.AvgPool2d(2, 1, divisor_override=3)]:
    x.grad = None
    out = m(x)
    out.backward(torch.arange(out.numel(), dtype=torch.float32).reshape(out.shape) + 1)
    print(m, out.grad_fn)
    print(out)
    print(x.grad)
vals, idx = F.max_pool2d(x, 2, return_indices=True)
print(vals, idx, idx.dtype)
print(nn.MaxPool2d(3, 2, 1, return_indices=True)(x)[1])
s = torch.tensor([[[1., 5., 2., 2., 0., 3., 3.]]], requires_grad=True)
for out in [F.max_pool1d(s, 2), F.max_pool1d(s, 3, 2, 1), F.avg_pool1d(s, 3, 2, 1), nn.MaxPool1d(2)(s[0]),
            nn.AvgPool1d(3, count_include_pad=False, padding=1)(s)]:
    s.grad = None
    out.sum().backward()
    print(out, s.grad)
print(nn.MaxPool1d(2), nn.AvgPool1d(3))
try:
    F.max_pool2d(x, 2, padding=2)
except RuntimeError as e:
    print("RuntimeError", e)
