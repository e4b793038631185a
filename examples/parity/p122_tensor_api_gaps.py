# Tensor API gaps the docs' examples reach: shifts, unique_consecutive, torch.cross's
# default dim, linalg.matrix_rank and slogdet, x.type(torch.DoubleTensor), contiguous() of a
# permuted tensor, and the first .grad of backward(create_graph=True) (a copy, as PyTorch).
import warnings

import torch

torch.manual_seed(0)
i = torch.tensor([5, 3, 12])
j = torch.tensor([1, 2, 3])
print(i << 1, i >> 1, i << j, 1 << j, 64 >> j, torch.bitwise_left_shift(i, 2),
      torch.bitwise_right_shift(i, j), i.bitwise_left_shift(1))
t = torch.tensor([1, 1, 2, 2, 3, 1, 1])
print(torch.unique_consecutive(t), t.unique_consecutive(return_inverse=True, return_counts=True))
print(torch.unique_consecutive(torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), dim=0,
                               return_counts=True))
p = torch.randn(4, 3, requires_grad=True)
q = torch.randn(4, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    c = torch.cross(p, q)
print(c, [str(w.message).splitlines()[0] for w in caught])
c.sum().backward()
print(p.grad, torch.cross(p, q, dim=1).equal(torch.linalg.cross(p, q)), p.cross(q, dim=1).shape)
try:
    torch.cross(torch.ones(2, 2), torch.ones(2, 2), dim=None)
except RuntimeError as e:
    print(type(e).__name__, e)
M = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
print(torch.linalg.matrix_rank(M), torch.linalg.matrix_rank(torch.ones(3, 3)),
      torch.linalg.matrix_rank(torch.ones(2, 4, 3)),
      torch.linalg.matrix_rank(torch.eye(3), atol=2.0))
print(torch.linalg.slogdet(M))
sign, logabsdet = torch.linalg.slogdet(M)
logabsdet.backward()
print(M.grad, torch.allclose(M.grad, torch.linalg.inv(M).T))
x = torch.ones(2, 3)
print(x.type(torch.DoubleTensor), x.type(torch.IntTensor).type(), x.type("torch.LongTensor"))
y = torch.randn(2, 3).permute(1, 0)
print(y.is_contiguous(), y.contiguous().is_contiguous(), y.clone().is_contiguous(),
      y.contiguous().stride())
w = torch.randn(3, requires_grad=True)
for name, f in [("sum", lambda: w.sum()), ("sin", lambda: (w.sin() * w).sum()),
                ("const", lambda: (w * torch.arange(3.0)).sum()),
                ("square", lambda: (w * w).sum())]:
    w.grad = None
    f().backward(create_graph=True)
    print(name, w.grad)
(w * w).sum().backward(create_graph=True)
print(w.grad)
