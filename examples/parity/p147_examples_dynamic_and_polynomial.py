# "Learning PyTorch with Examples", continued: the polynomial fit with autograd by hand
# (manual updates under no_grad, grad.zero_()), with nn.Sequential + Flatten and
# nn.MSELoss(reduction='sum'), with optim.RMSprop, and a dynamic-graph model that reuses
# its weights a data-dependent number of times (seeded).  The nn parts print 10 decimals:
# a matrix product's last bits follow the BLAS (PyTorch's MKL), not bit for bit here.
import math
import random
import torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
random.seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
a, b, c, d = (torch.randn((), requires_grad=True) for _ in range(4))
learning_rate = 1e-6
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad.zero_()
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')

p = torch.tensor([1, 2, 3])
fmt = "{:.10f}".format
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, fmt(loss.item()))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.10f} + {linear_layer.weight[:, 0].item():.10f} x + '
      f'{linear_layer.weight[:, 1].item():.10f} x^2 + {linear_layer.weight[:, 2].item():.10f} x^3')


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + '
                f'{self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?')


model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(400):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, fmt(loss.item()))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
