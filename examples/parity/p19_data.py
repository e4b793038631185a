# .data: same data, detached, a new version counter (changes go unchecked).
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
print(x.data, x.data.requires_grad, x.data.is_leaf)
w = x.exp()
w.data.add_(1)
print(w._version)
w.sum().backward()
print(x.grad)
x.data.mul_(2)
print(x, x._version)
x.data = torch.tensor([5., 6., 7.])
print(x, x.requires_grad)
lr = 0.1
p = torch.tensor([1., -1.], requires_grad=True)
for _ in range(3):
    loss = (p ** 2).sum()
    loss.backward()
    p.data -= lr * p.grad.data
    p.grad.data.zero_()
    print(loss.item(), p)
