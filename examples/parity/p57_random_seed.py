# manual_seed and the random factories: shapes, dtypes and reproducibility (values differ
# from PyTorch's generator, so only properties are printed).
import torch

print(torch.manual_seed(0))
a = torch.randn(2, 3)
torch.manual_seed(0)
b = torch.randn(2, 3)
print(a.shape, a.dtype, torch.equal(a, b))
r = torch.rand(4)
print(r.shape, bool(((r >= 0) & (r < 1)).all()))
i = torch.randint(0, 5, (3,))
print(i.dtype, bool(((i >= 0) & (i < 5)).all()))
print(torch.randn(2, requires_grad=True).requires_grad, torch.randn(3, dtype=torch.float64).dtype)
print(torch.rand_like(a).shape, torch.randn_like(a).dtype, torch.randperm(5).sort().values)
