# NumPy interop: from_numpy and numpy() share memory.
import numpy as np
import torch

a = np.ones(3, dtype=np.float32)
t = torch.from_numpy(a)
t.add_(1)
print(a, t)
n = t.numpy()
n[0] = 10
print(t, type(n).__name__, n.dtype)
x = torch.tensor([1., 2.])
print(np.asarray(x), np.sum(x.numpy()))
print(torch.tensor(np.float64(2.5)), torch.tensor(np.array(3)), torch.from_numpy(np.arange(3)))
w = torch.tensor([1., 2.], requires_grad=True)
print(w.detach().numpy() * 2)
