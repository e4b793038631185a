# max / min: full reductions (MaxBackward1) and per-dimension (values, indices).
import torch

x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
print(x.max(), x.min())
r = x.max(dim=1)
print(r)
print(r.values, r.indices, r[0], r[1])
v, i = x.min(0)
print(v, i)
print(x.max(1, keepdim=True))
print(torch.max(x), torch.max(x, 0), torch.argmax(x), torch.argmax(x, dim=1))
print(torch.maximum(x, torch.tensor(3.)), torch.minimum(x, torch.tensor(3.)))
(x.max() + x.max(1).values.sum() + x.min(0)[0].sum()).backward()
print(x.grad)
print(x.amax(0), x.amin(1))
