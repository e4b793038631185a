# Comparisons give bool tensors without a gradient; masks and logical operators.
import torch

x = torch.tensor([1., -2., 3., 0.], requires_grad=True)
print(x > 0, x >= 0, x < 1, x <= 0, x == 3, x != 3)
print((x > 0).dtype, (x > 0).requires_grad, (x > 0).grad_fn)
m = (x > 0) & (x < 3)
print(m, ~m, m | (x == 0), m.any(), m.all(), m.sum())
print(x.eq(3), x.gt(0), torch.tensor([1, 2]) == torch.tensor([1, 3]))
print(torch.equal(x, x), torch.allclose(x, x + 1e-9))
print(x[x > 0])
print((x * (x > 0)).sum())
print(x.argmax(), x.argmin())
