# Double backward: create_graph=True gives gradients with a graph (Hessians, HVPs, penalties).
import torch
torch.set_printoptions(precision=6)
x = torch.tensor([0.5, -1.2, 2.0], requires_grad=True, dtype=torch.float64)
W = torch.tensor([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]], requires_grad=True, dtype=torch.float64)
b = torch.tensor([0.1, -0.2], requires_grad=True, dtype=torch.float64)
ops = {
 "sin": lambda x: x.sin().sum(), "exp": lambda x: torch.exp(x).sum(),
 "tanh": lambda x: torch.tanh(x).pow(2).sum(), "sigmoid": lambda x: torch.sigmoid(x).prod(),
 "log": lambda x: (x * x + 1).log().sum(), "div": lambda x: (1 / (x * x + 1)).sum(),
 "sqrt": lambda x: (x * x + 1).sqrt().sum(), "mlp": lambda x: torch.tanh(W @ x + b).sum(),
 "mean": lambda x: (x ** 3).mean(), "cube": lambda x: (x ** 3).sum(),
 "relu": lambda x: (torch.relu(x) ** 2).sum(), "softmax": lambda x: (torch.softmax(x, 0) * torch.arange(3.)).sum(),
 "logsoftmax": lambda x: torch.log_softmax(x, 0)[1], "norm": lambda x: x.norm(),
 "index": lambda x: (x[1:] * x[:-1]).sum(), "cat": lambda x: torch.cat([x, x * x]).pow(2).sum(),
 "reshape": lambda x: (x.reshape(3, 1) * x).sum() ** 2, "max": lambda x: x.max() * x.sum(),
 "abs": lambda x: (x.abs() * x).sum(), "clamp": lambda x: (x.clamp(-1, 1) * x).sum(),
 "where": lambda x: torch.where(x > 0, x ** 2, x ** 3).sum(), "var": lambda x: x.var(),
 "outer": lambda x: torch.outer(x, x).sum() ** 2, "cos2": lambda x: torch.cos(x).pow(2).sum(),
 "sum0": lambda x: (x.unsqueeze(0).expand(2, 3) ** 2).sum(0).sum(),
 "t": lambda x: ((W.t() @ b) * x ** 2).sum(),
}
for name, f in ops.items():
    try:
        y = f(x)
        g, = torch.autograd.grad(y, x, create_graph=True)
        H = torch.stack([torch.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(3)])
        print(name, g.detach(), H)
    except Exception as e:
        print(name, type(e).__name__, e)
# hvp
v = torch.tensor([1., 0.5, -1.], dtype=torch.float64)
y = torch.tanh(W @ x + b).pow(2).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
hv, = torch.autograd.grad(g, x, grad_outputs=v)
print("hvp", hv)
# third order
y = (x ** 4).sum()
g1, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(g1.sum(), x, create_graph=True)
g3, = torch.autograd.grad(g2.sum(), x)
print("third", g1, g2, g3)
# gradient penalty on W
out = torch.tanh(W @ x + b).sum()
gx, = torch.autograd.grad(out, x, create_graph=True)
pen = (gx.norm() - 1) ** 2
pen.backward()
print("penalty", pen, W.grad, b.grad, x.grad)
# backward(create_graph=True)
z = torch.tensor(2.0, requires_grad=True)
y = z ** 3
y.backward(create_graph=True)
print(z.grad.detach(), z.grad.requires_grad)
gz = z.grad
z.grad = None
gz.backward()
print(z.grad.detach(), z.grad.requires_grad)
# allow_unused, grad of unrelated
a = torch.tensor(1.0, requires_grad=True)
g, gu = torch.autograd.grad(z * z, [z, a], create_graph=True, allow_unused=True)
print(g, gu)
try:
    torch.autograd.grad(g, a)
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.autograd.grad(g, [z, a], allow_unused=True, materialize_grads=True))
y = z * 3
g, = torch.autograd.grad(y, z, create_graph=True)
print(g, g.requires_grad)
