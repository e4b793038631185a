# Seeded dropout draws PyTorch's masks: F.dropout, dropout1d/2d/3d (whole channels),
# the modules (train / eval, repr), in place; bernoulli_ / torch.bernoulli and their streams.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")
torch.manual_seed(0)
print(F.dropout(torch.ones(12), 0.5))
print(F.dropout(torch.ones(3, 5, dtype=torch.float64), 0.2))
x = torch.arange(1., 25.).reshape(2, 3, 4).requires_grad_()
y = F.dropout(x, 0.3)
print(y)
y.sum().backward()
print(x.grad)
print(F.dropout(torch.ones(4), 1.0), F.dropout(torch.ones(4), 0.0), F.dropout(torch.ones(4), 0.5, False))

print(F.dropout2d(torch.ones(2, 6, 2, 2), 0.5)[:, :, 0, 0])
print(F.dropout1d(torch.ones(3, 4, 2), 0.5)[:, :, 0], F.dropout1d(torch.ones(5, 3), 0.5))
print(F.dropout3d(torch.ones(2, 4, 1, 1, 2), 0.25)[..., 0, 0, 0])
print(F.dropout2d(torch.ones(2, 5, 3), 0.5)[:, :, 0])      # 3-D: read as (N, C, L)
for bad in (lambda: F.dropout1d(torch.ones(2, 2, 2, 2)), lambda: F.dropout(torch.ones(2), 1.5),
            lambda: nn.Dropout2d(-0.1)):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)

drop = nn.Dropout2d(0.25)
print(drop, nn.Dropout1d(), nn.Dropout3d(0.1, inplace=True))
h = torch.ones(1, 8, 3, 3)
print(drop(h)[0, :, 0, 0])
drop.eval()
print(drop(h)[0, :, 0, 0])
z = torch.ones(6)
print(F.dropout(z, 0.5, inplace=True), z)

model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.5), nn.Linear(6, 2))
out = model(torch.randn(3, 4))
print(out, out.grad_fn)
out.sum().backward()
print(model[0].bias.grad)

torch.manual_seed(5)
print(torch.empty(10).bernoulli_(0.3), torch.empty(6, dtype=torch.int64).bernoulli_())
p = torch.tensor([0.1, 0.5, 0.9, 0.5, 0.2, 0.8])
print(torch.bernoulli(p), torch.bernoulli(p.double()), p.bernoulli(), torch.bernoulli(p, 0.5))
print(torch.zeros(2, 6).bernoulli_(p))
g = torch.Generator().manual_seed(11)
print(torch.empty(5).bernoulli_(0.5, generator=g), torch.rand(2))
