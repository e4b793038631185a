# "A gentle introduction to torch.autograd": Q = 3a^3 - b^2, external gradients, DAG, freezing.
import torch
from torch import nn, optim

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad, Q.grad_fn, Q.grad_fn.next_functions)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

model = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 4))
for param in model.parameters():
    param.requires_grad = False
model[2] = nn.Linear(6, 10)
print(model)
print([p.requires_grad for p in model.parameters()])
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
data = torch.linspace(-1, 1, 16).reshape(2, 8)
labels = torch.tensor([[0.5] * 10, [-0.5] * 10])
prediction = model(data)
loss = (prediction - labels).sum()
loss.backward()
print(model[0].weight.grad, model[2].bias.grad.shape)
optimizer.step()

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = v * 2
h.retain_grad()
out = (h ** 2).sum()
out.backward()
print(h.grad, v.grad, h.is_leaf, h.grad_fn.name())
u = torch.zeros(3).requires_grad_()
print(u.requires_grad, u.requires_grad_(False).requires_grad)
jv = torch.tensor([1.0, 2.0], requires_grad=True)
jy = jv * torch.tensor([3.0, 4.0])
jy.backward(torch.tensor([0.1, 1.0]))
print(jv.grad)
