# Factories and the dtypes they infer.
import numpy as np
import torch

print(torch.tensor(2.0), torch.tensor(2.0).dtype)
print(torch.tensor([1, 2]), torch.tensor([1, 2]).dtype)
print(torch.tensor([1, 2.5]), torch.tensor([True, False]).dtype)
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.float32))
print(torch.tensor(3), torch.tensor(3).dtype, torch.tensor(3).shape)
print(torch.ones(2, 3))
print(torch.zeros(2, dtype=torch.int64), torch.zeros((1, 2)))
print(torch.full((2, 2), 7.0), torch.full((3,), 2))
print(torch.empty(2, 3).shape, torch.empty(0))
print(torch.arange(5), torch.arange(1, 4), torch.arange(0, 1, 0.25), torch.arange(5.0))
print(torch.linspace(0, 1, 5), torch.linspace(-1, 1, 3))
print(torch.eye(3))
x = torch.tensor([[1., 2.], [3., 4.]])
print(torch.ones_like(x), torch.zeros_like(x), torch.full_like(x, 3.5))
print(torch.ones_like(torch.tensor([1, 2])))
a = np.array([1.0, 2.0, 3.0])
t = torch.from_numpy(a)
print(t, t.dtype)
a[0] = 100.0
print(t)
print(torch.tensor(np.array([1, 2], dtype=np.int32)))
print(torch.tensor(a, dtype=torch.float32))
print(torch.ones(2, 2, requires_grad=True))
print(torch.Tensor([1, 2]), torch.Tensor([[1, 2]]).dtype)
print(torch.is_tensor(x), torch.is_tensor(1.0))
