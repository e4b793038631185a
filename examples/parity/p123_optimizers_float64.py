# Every optimizer and scheduler the issue lists, in float64 (so that the steps, not BLAS's
# float32 rounding, are compared): losses and weights step by step, state_dict contents
# (Adam's step is float64 under a float64 default dtype), scheduler state, param groups.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
X = torch.randn(16, 3)
Y = torch.randn(16, 1)
O = torch.optim


def run(make, steps=4, sched=None):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = make(m.parameters())
    s = sched(opt) if sched else None
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        opt.step()
        if s:
            s.step()
        losses.append(f"{loss.item():.12f}")
    print(type(opt).__name__, losses, opt.param_groups[0]["lr"] if s else "")
    print("   ", [f"{v:.12f}" for v in m[0].weight.data[0].tolist()])
    return opt, s


run(lambda p: O.SGD(p, lr=0.1))
run(lambda p: O.SGD(p, lr=0.1, momentum=0.9))
run(lambda p: O.SGD(p, lr=0.1, momentum=0.9, dampening=0.5))
run(lambda p: O.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01))
run(lambda p: O.SGD(p, lr=0.1, maximize=True))
run(lambda p: O.Adam(p, lr=0.01))
run(lambda p: O.Adam(p, lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True))
run(lambda p: O.AdamW(p, lr=0.01))
run(lambda p: O.AdamW(p, lr=0.01, amsgrad=True, weight_decay=0.5))
run(lambda p: O.RMSprop(p, lr=0.01))
run(lambda p: O.RMSprop(p, lr=0.01, momentum=0.9, centered=True, weight_decay=0.1, alpha=0.9))
run(lambda p: O.Adagrad(p, lr=0.1))
run(lambda p: O.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1,
                        initial_accumulator_value=0.1))
_, s = run(lambda p: O.SGD(p, lr=0.1), steps=6,
           sched=lambda o: O.lr_scheduler.StepLR(o, step_size=2, gamma=0.5))
print(s.state_dict(), s.get_last_lr())
_, s = run(lambda p: O.Adam(p, lr=0.1), steps=6,
           sched=lambda o: O.lr_scheduler.ExponentialLR(o, gamma=0.9))
print(s.state_dict())
opt, _ = run(lambda p: O.Adam(p, lr=0.01), steps=2)
sd = opt.state_dict()
print(sd["param_groups"])
print(sorted(sd["state"]), sorted(sd["state"][0]), sd["state"][0]["step"])
s = O.lr_scheduler.StepLR(O.SGD([torch.zeros(1, requires_grad=True)], lr=1.0), step_size=3)
print(s.get_last_lr(), s.state_dict())
