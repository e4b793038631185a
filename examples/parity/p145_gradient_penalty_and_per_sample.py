# Gradient penalties and per-sample gradients with plain autograd, as forum and docs
# examples write them: a WGAN-GP penalty through a small critic, an input-gradient norm,
# per-sample gradients by a loop of autograd.grad, a Jacobian by rows, double backward
# through nn.Linear, Tanh, Softplus and ELU with create_graph, and grad accumulation.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 8), nn.Softplus(),
                       nn.Linear(8, 1))
real = torch.randn(4, 3)
fake = torch.randn(4, 3)
alpha = torch.rand(4, 1)
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
out = critic(interp)
grads = torch.autograd.grad(outputs=out, inputs=interp, grad_outputs=torch.ones_like(out),
                            create_graph=True, retain_graph=True)[0]
penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
print(grads.grad_fn.name(), f"{penalty.item():.10f}")
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
loss.backward()
for name, p in critic.named_parameters():
    print(name, f"{p.grad.norm().item():.10f}")

model = nn.Sequential(nn.Linear(3, 4), nn.ELU(), nn.Linear(4, 2))
x = torch.randn(5, 3)
y = torch.randint(0, 2, (5,))
loss_fn = nn.CrossEntropyLoss()
per_sample = []
for i in range(x.shape[0]):
    li = loss_fn(model(x[i:i + 1]), y[i:i + 1])
    gi = torch.autograd.grad(li, list(model.parameters()))
    per_sample.append(torch.cat([g.reshape(-1) for g in gi]))
per_sample = torch.stack(per_sample)
print(per_sample.shape, per_sample.norm(dim=1))
model.zero_grad()
loss_fn(model(x), y).backward()
full = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
print(torch.allclose(per_sample.mean(0), full))

xin = torch.randn(3, requires_grad=True)
f = lambda v: torch.stack([v[0] * v[1], v[1].sin(), (v ** 2).sum()])
yv = f(xin)
rows = [torch.autograd.grad(yv[i], xin, retain_graph=True)[0] for i in range(3)]
print(torch.stack(rows))
inp = torch.randn(2, 3, requires_grad=True)
h = model(inp).pow(2).sum()
g, = torch.autograd.grad(h, inp, create_graph=True)
gg, = torch.autograd.grad(g.sum(), inp)
print(g, gg)
w = torch.zeros(3, requires_grad=True)
for step in range(3):
    (w * torch.tensor([1.0, 2.0, 3.0]) * (step + 1)).sum().backward()
print(w.grad)
w.grad.zero_()
print(w.grad, w.grad.data_ptr() == w.grad.data_ptr())
