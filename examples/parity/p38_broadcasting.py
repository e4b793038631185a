# Broadcasting in every binary operation; gradients are summed back to each operand's shape.
import torch

a = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
row = torch.tensor([1., 2., 4.], requires_grad=True)
col = torch.tensor([[2.], [0.5]], requires_grad=True)
s = torch.tensor(3., requires_grad=True)
out = (a + row) * col - a / row + row ** col + s * a - col / s
print(out)
out.sum().backward()
print(a.grad)
print(row.grad)
print(col.grad)
print(s.grad)
m = torch.tensor([[1., 2.]], requires_grad=True)
n = torch.tensor([[1.], [2.], [3.]], requires_grad=True)
(m * n).sum().backward()
print(m.grad, n.grad)
