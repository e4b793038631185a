# Shape methods: reshape, view, t, transpose, permute, squeeze, unsqueeze, flatten, expand.
import torch

x = torch.arange(6.).reshape(2, 3).requires_grad_()
for name, r in [("reshape", x.reshape(3, 2)), ("reshape-1", x.reshape(-1)),
                ("view", x.view(3, 2)), ("view-1", x.view(-1, 2)), ("t", x.t()),
                ("T", x.T), ("transpose", x.transpose(0, 1)), ("permute", x.permute(1, 0)),
                ("unsqueeze", x.unsqueeze(0)), ("unsqueeze-1", x.unsqueeze(-1)),
                ("squeeze", x.unsqueeze(0).squeeze()), ("squeeze0", x.unsqueeze(0).squeeze(0)),
                ("flatten", x.flatten()), ("expand", x[0:1].expand(3, 3)),
                ("t().reshape", x.t().reshape(6)), ("view_as", x.view_as(torch.zeros(3, 2)))]:
    print(name, r.shape, r.grad_fn.name())
    print(r)
loss = (x.t() * torch.tensor([[1.], [2.], [3.]])).sum() + x.reshape(6)[::2].sum() \
    + x.unsqueeze(0).expand(4, 2, 3).sum()
loss.backward()
print(x.grad)
try:
    x.t().view(6)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    x.reshape(4)
except RuntimeError as e:
    print(type(e).__name__, e)
print(x.squeeze(0).shape, x.contiguous().is_leaf, x.t().is_contiguous(), x.is_contiguous())
