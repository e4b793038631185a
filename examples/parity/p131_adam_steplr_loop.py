# A regression training loop in the tutorials' style: Adam with weight decay, StepLR and
# ExponentialLR, per-epoch prints of the loss and the learning rate, the optimizer's
# state_dict and param_groups as printed.
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler

torch.set_default_dtype(torch.float64)
torch.manual_seed(1)
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(2 * x) + 0.1 * torch.randn(64, 1)
model = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1))
optimizer = optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-4)
scheduler = lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
criterion = nn.MSELoss()
for epoch in range(12):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch:2d}  loss {loss.item():.6f}  lr {scheduler.get_last_lr()[0]:.5f}")
print(optimizer)
sd = optimizer.state_dict()
print(sorted(sd.keys()), sd["param_groups"][0]["lr"], sd["param_groups"][0]["params"])
print(sd["state"][0]["step"], sd["state"][0]["exp_avg"].shape)
print(scheduler.state_dict())

opt2 = optim.SGD([{"params": model[0].parameters()},
                  {"params": model[2].parameters(), "lr": 0.01}], lr=0.1, momentum=0.9,
                 nesterov=True)
sched2 = lr_scheduler.ExponentialLR(opt2, gamma=0.9)
for epoch in range(4):
    opt2.zero_grad(set_to_none=True)
    loss = criterion(model(x), y)
    loss.backward()
    opt2.step()
    sched2.step()
    print(epoch, round(loss.item(), 8), [g["lr"] for g in opt2.param_groups])
print(model[0].weight.grad is None, model[2].bias.grad)
opt2.zero_grad()
print(model[0].weight.grad)
print(len(opt2.state), list(opt2.state_dict()["state"][0].keys()))
