# nn.BatchNorm1d / BatchNorm2d: train and eval, running statistics, momentum=None (cumulative
# average), affine=False, track_running_stats=False, state_dict, gradients.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
x = (torch.arange(4 * 3 * 2 * 2).reshape(4, 3, 2, 2) % 5 - 2.).requires_grad_()
bn = nn.BatchNorm2d(3)
print(bn, list(bn.state_dict()), bn.num_batches_tracked)
with torch.no_grad():
    bn.weight.copy_(torch.tensor([1., 2., 0.5]))
    bn.bias.copy_(torch.tensor([0., -1., 1.]))
for step in range(3):
    out = bn(x * (step + 1))
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
(out * torch.arange(out.numel()).reshape(out.shape).sin()).sum().backward()
print(out.grad_fn, out[0, 1])
print(x.grad[1], bn.weight.grad, bn.bias.grad)
bn.eval()
e = bn(x)
print(e[2, 0], bn.num_batches_tracked, e.grad_fn)

cum = nn.BatchNorm1d(2, momentum=None, affine=False)
for k in range(1, 4):
    cum(torch.tensor([[1., 2.], [3., 8.], [2. * k, 0.]]))
print(cum, cum.running_mean, cum.running_var, list(dict(cum.named_parameters())))
free = nn.BatchNorm1d(2, track_running_stats=False)
z = torch.tensor([[[1., 2., 3.], [0., 1., 5.]], [[2., 2., 2.], [4., -1., 0.]]], requires_grad=True)
free.eval()
o = free(z)
o.pow(3).sum().backward()
print(free, free.running_mean, o, z.grad)
try:
    nn.BatchNorm2d(3)(torch.ones(2, 3))
except ValueError as e:
    print("ValueError", e)
try:
    nn.BatchNorm1d(3)(torch.ones(1, 3))
except ValueError as e:
    print("ValueError", e)
