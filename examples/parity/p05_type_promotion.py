# PyTorch's type promotion: int and float, 0-dim tensors, Python scalars.
import torch

i = torch.tensor([1, 2, 3])
f = torch.tensor([1., 2., 3.])
d = torch.tensor([1., 2., 3.], dtype=torch.float64)
print(i + 1, i * 2.5, i / 2, i // 2, i % 2, i ** 2)
print(i + f, (i + f).dtype, f + d, (f + d).dtype)
print(f * torch.tensor(2., dtype=torch.float64), (f * torch.tensor(2., dtype=torch.float64)).dtype)
print(i * torch.tensor(1.5), (i * torch.tensor(1.5)).dtype)
print(i.float(), i.double(), f.long(), f.int(), f.bool())
print(i.sum(), i.sum().dtype, torch.tensor([True, True]).sum())
print(i.exp(), i.sqrt(), i.sigmoid())
print(torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2]))
print(f.to(torch.float64), f.to(torch.int64), d.float())
print(torch.tensor(3) * 1.5, torch.tensor(True) + 1)
