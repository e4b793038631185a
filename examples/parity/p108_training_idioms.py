"""Training-loop idioms from PyTorch's docs: parameter groups with their own lr, lr
schedulers (StepLR, MultiStepLR, ExponentialLR, LambdaLR, CosineAnnealingLR,
ReduceLROnPlateau), state_dict round trips of a model, an optimizer and a scheduler,
evaluation under torch.no_grad(), and model.train() / model.eval() with BatchNorm and
Dropout (whose masks are random: only what does not depend on them is printed)."""
import io

import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.body(x))


model = Net()
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD([{"params": model.body.parameters()},
                       {"params": model.head.parameters(), "lr": 0.05}],
                      lr=0.1, momentum=0.9, weight_decay=1e-4)
print([g["lr"] for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups])
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(5):
    model.train()
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    model.eval()
    with torch.no_grad():
        val = loss_fn(model(x), y)
    print(epoch, round(loss.item(), 4), round(val.item(), 4), sched.get_last_lr(),
          model.training, val.requires_grad)
print(model.body[1].running_mean.round(decimals=4))
print(model.body[1].num_batches_tracked)

# eval() makes BatchNorm use its running statistics, Dropout the identity
model.eval()
with torch.no_grad():
    a, b = model(x), model(x)
    print(torch.equal(a, b), a.shape)
drop = nn.Dropout(0.25)
h = torch.rand(200) + 0.5
print(drop.training, torch.equal(drop.eval()(h), h), drop.training)
out = drop.train()(h)
kept = out != 0
print(out.shape, bool(kept.any()), bool((~kept).any()), torch.allclose(out[kept], h[kept] / 0.75))
model.train()
with torch.no_grad():
    model(x)
print(model.body[1].num_batches_tracked, model.training)

# state_dict round trips (through torch.save / torch.load in memory)
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
            "sched": sched.state_dict()}, buf)
buf.seek(0)
ckpt = torch.load(buf)
print(sorted(ckpt["model"].keys()))
print(ckpt["opt"]["param_groups"][1]["lr"], sorted(ckpt["opt"]["state"].keys()))
print(ckpt["sched"]["last_epoch"], ckpt["sched"]["step_size"])
clone = Net()
print(clone.load_state_dict(ckpt["model"]))
clone.eval()
model.eval()
with torch.no_grad():
    print(torch.allclose(clone(x), model(x)))
opt2 = torch.optim.SGD(clone.parameters(), lr=0.1, momentum=0.9)
try:
    opt2.load_state_dict(ckpt["opt"])
except ValueError as err:
    print("ValueError", err)

# the other schedulers, step by step
for make in (lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.1),
             lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
             lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)),
             lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4)):
    w = nn.Parameter(torch.ones(2))
    o = torch.optim.SGD([w], lr=1.0)
    s = make(o)
    lrs = []
    for _ in range(6):
        o.step()
        s.step()
        lrs.append(round(s.get_last_lr()[0], 6))
    print(type(s).__name__, lrs)
w = nn.Parameter(torch.ones(2))
o = torch.optim.Adam([w], lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5)
for metric in (1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7):
    plateau.step(metric)
    print(o.param_groups[0]["lr"], end=" ")
print()
o = torch.optim.SGD([w], lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="max", patience=0, factor=0.5,
                                                     cooldown=1, threshold=0.1,
                                                     threshold_mode="abs", min_lr=0.2)
for metric in (1.0, 1.05, 1.2, 1.25, 1.26, 1.27, 1.28, 1.29):
    plateau.step(metric)
    print(plateau.get_last_lr(), plateau.num_bad_epochs, end=" | ")
print()
print(sorted(plateau.state_dict()))
for bad in (lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0),
            lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="up")):
    try:
        bad()
    except ValueError as err:
        print("ValueError", err)
o.add_param_group({"params": [nn.Parameter(torch.zeros(1))], "lr": 4.0})
for metric in (0.0, 0.0):
    plateau.step(metric)
print(plateau.get_last_lr(), plateau.min_lrs)
