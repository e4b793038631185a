# sum / mean with dim and keepdim; SumBackward0 vs SumBackward1; gradients.
import torch

x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
for r in [x.sum(), x.sum(0), x.sum(1), x.sum(dim=1, keepdim=True), x.sum((0, 1)),
          x.mean(), x.mean(0), x.mean(-1, keepdim=True), torch.sum(x, 1), torch.mean(x),
          x.sum(axis=0)]:
    print(r, r.shape)
(x.sum(0) * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad)
x.grad = None
x.mean(1, keepdim=True).sum().backward()
print(x.grad)
x.grad.zero_()
(x.sum() + x.mean()).backward()
print(x.grad)
try:
    torch.tensor([1, 2]).mean()
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    x.sum(2)
except IndexError as e:
    print(type(e).__name__, e)
