# A tour of everyday tensor operations as the "Tensors" tutorial and the docs' examples
# print them: creation from data and NumPy (shared memory), named-tuple results (max,
# sort, topk, median, mode, kthvalue, var_mean, aminmax), einsum, boolean masks, where,
# clamp with tensors, cumulative ops, comparisons, type conversions and in-place views.
import numpy as np
import torch

torch.manual_seed(0)
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
np.multiply(np_array, 2, out=np_array)
print(x_np, x_data.dtype, torch.tensor([1, 2.5]).dtype, torch.tensor([True, 1]).dtype)
t = torch.ones(5)
n = t.numpy()
t.add_(1)
print(t, n)
x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 5.0, -1.0]])
print(x.max(dim=1))
print(torch.max(x, 0, keepdim=True))
print(x.sort(dim=1, descending=True))
print(torch.topk(x.flatten(), 3))
print(x.median(), x.median(dim=1), x.flatten().kthvalue(2))
print(torch.tensor([1, 2, 2, 3, 3, 3]).mode())
print(torch.var_mean(x, dim=1), torch.std_mean(x), torch.aminmax(x))
print(x.argmax(), x.argmin(dim=1), x.max(dim=1).indices, x.min(1)[0])
values, indices = x.max(1)
print(values, indices, type(x.max(1)).__name__)
a = torch.arange(6.).reshape(2, 3)
b = torch.arange(12.).reshape(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ii->i", torch.eye(3) * 2),
      torch.einsum("bi,bj->bij", a, a).shape, torch.einsum("i,i->", a[0], a[1]))
mask = x > 1
print(mask, x[mask], x.masked_fill(~mask, 0.0), mask.sum(), mask.any(), mask.all(dim=1))
x2 = x.clone()
x2[x2 < 0] = 0
print(x2, torch.where(x > 1, x, torch.zeros_like(x)), torch.where(x > 2))
print(x.clamp(min=torch.tensor([0.0, 1.0, 2.0])), torch.clamp(x, max=2.5))
print(x.cumsum(1), x.cumprod(0), torch.cummax(x, 1), torch.logcumsumexp(x, 1))
print(torch.eq(x, 3), torch.isclose(x, torch.tensor(3.0)), x.ne(1).int(), (x >= 1) & (x <= 3))
print(x.int(), x.long().float(), x.to(torch.int16), x.bool(), x.half())
v = x.view(-1)
v[0] = 100.0
print(x[0, 0], x.is_contiguous(), x.t().contiguous().is_contiguous(), x.t().stride())
print(torch.arange(10)[::3], torch.linspace(0, 1, 5), torch.logspace(0, 2, 3),
      torch.full((2, 2), 7), torch.zeros_like(x, dtype=torch.int32), torch.eye(2, 3))
print(torch.chunk(torch.arange(7), 3), torch.split(torch.arange(7), [2, 5]),
      torch.tensor_split(torch.arange(7), 3))
print(torch.flatten(torch.ones(2, 3, 4), 1).shape, torch.squeeze(torch.ones(1, 3, 1)).shape,
      torch.ones(3).unsqueeze(-1).expand(3, 2), torch.ones(2, 1).repeat(1, 3))
print(torch.diff(torch.tensor([1, 4, 9, 16])), torch.bincount(torch.tensor([0, 1, 1, 3])),
      torch.histc(torch.tensor([1.0, 2, 1]), bins=4, min=0, max=3),
      torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2, 6])),
      torch.bucketize(torch.tensor([2, 6]), torch.tensor([1, 3, 5])))
print(torch.tril_indices(3, 3), torch.combinations(torch.arange(3)), torch.cartesian_prod(
    torch.tensor([1, 2]), torch.tensor([3, 4])))
