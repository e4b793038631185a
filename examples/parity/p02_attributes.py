# Tensor attributes: shape, size, dtype, device, ndim, numel, is_leaf, T.
import torch

x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
print(x.shape, x.size(), x.size(0), x.size(-1), x.shape[1])
print(type(x.shape).__name__, x.shape == (2, 3), tuple(x.shape), list(x.shape))
print(x.dtype, x.device, x.ndim, x.dim(), x.numel(), len(x))
print(x.is_leaf, x.requires_grad, x.grad_fn, x.grad)
y = x * 2
print(y.is_leaf, y.requires_grad, y.grad_fn)
print(x.T, x.T.shape)
print(x.t().is_leaf, x.detach().is_leaf)
print(torch.Size([2, 3]), torch.Size([]), x.shape.numel())
print(x[0].shape, x[0, 0].shape, x[0, 0].dim())
print(x.dtype == torch.float32, x.dtype == torch.float, torch.float64 == torch.double)
print(x.is_floating_point(), torch.tensor([1]).is_floating_point())
print(x.type(), torch.tensor([1]).type(), torch.tensor([1.], dtype=torch.float64).type())
print(x.shape[-2:], x.size()[1:])
