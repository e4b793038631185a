# Optimizers beyond SGD and Adam, as the optim docs use them: RMSprop (centered,
# momentum), Adagrad (lr_decay), AdamW (amsgrad), add_param_group, per-group options,
# ReduceLROnPlateau, MultiStepLR / CosineAnnealingLR / LambdaLR, the scheduler warnings.
import warnings
import torch
import torch.nn as nn
from torch.optim import lr_scheduler

torch.set_default_dtype(torch.float64)
torch.manual_seed(3)
X = torch.randn(32, 4)
Y = X @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.3


def run(make_opt, steps=5, sched=None):
    torch.manual_seed(5)
    model = nn.Linear(4, 1)
    opt = make_opt(model.parameters())
    s = sched(opt) if sched else None
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
        if s is not None:
            if isinstance(s, lr_scheduler.ReduceLROnPlateau):
                s.step(loss.item())
            else:
                s.step()
        losses.append(round(loss.item(), 10))
    print(type(opt).__name__, losses, [g["lr"] for g in opt.param_groups])
    return model, opt


run(lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True))
run(lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1))
run(lambda p: torch.optim.AdamW(p, lr=0.05, amsgrad=True, weight_decay=0.1))
run(lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.8, 0.9), maximize=False, foreach=False))
run(lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9, dampening=0.1, weight_decay=0.01))
run(lambda p: torch.optim.SGD(p, lr=0.5), steps=8,
    sched=lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=1))
run(lambda p: torch.optim.SGD(p, lr=0.1), steps=6,
    sched=lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.1))
run(lambda p: torch.optim.SGD(p, lr=0.1), steps=6,
    sched=lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01))
run(lambda p: torch.optim.SGD(p, lr=0.1), steps=4,
    sched=lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch))
model, opt = run(lambda p: torch.optim.Adam(p, lr=0.01), steps=2)
extra = nn.Parameter(torch.zeros(3))
opt.add_param_group({"params": [extra], "lr": 0.1, "weight_decay": 0.5})
print(len(opt.param_groups), opt.param_groups[1]["lr"], opt.param_groups[1]["betas"],
      opt.param_groups[1]["weight_decay"], opt.param_groups[0]["weight_decay"])
try:
    opt.add_param_group({"params": [extra]})
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.SGD([], lr=0.1)
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.Adam(model.parameters(), lr=-1)
except ValueError as e:
    print("ValueError:", e)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    o = torch.optim.SGD(model.parameters(), lr=0.1)
    s = lr_scheduler.StepLR(o, step_size=1)
    s.step()
    print([str(x.message)[:80] for x in w])
print(s.get_last_lr(), s.last_epoch, o.param_groups[0]["initial_lr"])
print(opt.state_dict()["param_groups"][1])
