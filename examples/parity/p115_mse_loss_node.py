# MSELoss is one MseLossBackward0 node whose edges are its input's and target's nodes (the
# blitz tutorial follows loss.grad_fn.next_functions back to the Linear and ReLU); its
# gradient in PyTorch's order, an integer target, every reduction, double backward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4))
x = torch.randn(3, 6)
out = net(x)
target = torch.arange(1, 13).view(3, 4)          # integers, as the tutorial's dummy target
loss = nn.MSELoss()(out, target)
print(loss)
print(loss.grad_fn, loss.grad_fn.next_functions)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[1][0])
net.zero_grad()
loss.backward()
print(net[0].bias.grad, net[2].weight.grad)

a = torch.tensor([[0.5, -1.25, 2.0], [3.0, 0.1, -0.7]], requires_grad=True)
b = torch.tensor([[1.0, 0.5, -2.0], [2.5, 0.3, -0.2]], requires_grad=True)
for reduction in ("mean", "sum", "none"):
    a.grad = b.grad = None
    value = F.mse_loss(a, b, reduction=reduction)
    print(reduction, value, value.grad_fn.next_functions)
    value.sum().backward()
    print(a.grad, b.grad)
try:
    F.mse_loss(a, b, reduction="average")
except ValueError as e:
    print(type(e).__name__, e)

# a gradient penalty: the gradient of the loss, differentiated again
a.grad = None
value = F.mse_loss(a * a, b.detach())
g, = torch.autograd.grad(value, a, create_graph=True)
print(g, g.grad_fn is not None)
g.pow(2).sum().backward()
print(a.grad)

# a small fit (float64, printed to 6 decimals)
torch.manual_seed(3)
xs = torch.linspace(-1, 1, 50, dtype=torch.float64).unsqueeze(1)
ys = 3 * xs ** 2 - xs + 0.5
model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1)).double()
opt = torch.optim.SGD(model.parameters(), lr=0.002)
for step in range(5):
    loss = nn.MSELoss(reduction="sum")(model(xs), ys)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 6), round(model[2].bias.grad.item(), 6))

p = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
q = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(F.mse_loss, (p, q)), torch.autograd.gradgradcheck(F.mse_loss, (p, q)))
with torch.no_grad():
    print(F.mse_loss(p, q).grad_fn)
