"""More of the docs' training idioms: counting parameters, an optimizer's repr, gradient
clipping (clip_grad_norm_, clip_grad_value_), changing a group's lr by hand, an accuracy
under no_grad, and the schedulers MultiplicativeLR, LinearLR, ConstantLR, PolynomialLR,
CosineAnnealingWarmRestarts, OneCycleLR, SequentialLR and ChainedScheduler step by step."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.8, 0.99))
print(opt)
x = torch.randn(10, 4)
y = torch.randint(0, 3, (10,))
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
print(round(nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5).item(), 5))
nn.utils.clip_grad_value_(model.parameters(), 0.01)
print(round(model[0].weight.grad.abs().max().item(), 5))
opt.step()
opt.param_groups[0]["lr"] = 0.5
print(opt.state_dict()["param_groups"])
model.zero_grad()
print(model[0].weight.grad)
with torch.no_grad():
    preds = model(x)
    acc = (preds.argmax(1) == y).float().mean()
print(round(acc.item(), 4), preds.argmax(dim=1).tolist())
print(torch.nn.utils.parameters_to_vector(model.parameters()).shape)

S = torch.optim.lr_scheduler
for make in (lambda o: S.MultiplicativeLR(o, lambda e: 0.95),
             lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4),
             lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=3),
             lambda o: S.ConstantLR(o, factor=0.5, total_iters=3),
             lambda o: S.PolynomialLR(o, total_iters=4, power=2.0)):
    w = nn.Parameter(torch.ones(2))
    o = torch.optim.SGD([w], lr=0.1)
    s = make(o)
    lrs = [s.get_last_lr()[0]]
    for _ in range(7):
        o.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    print(type(s).__name__, [round(v, 8) for v in lrs])
groups = [{"params": [nn.Parameter(torch.ones(1))], "lr": 0.2},
          {"params": [nn.Parameter(torch.ones(1))]}]
o = torch.optim.SGD(groups, lr=0.05)
warm = S.LinearLR(o, start_factor=0.1, total_iters=2)
for _ in range(4):
    o.step()
    warm.step()
    print(warm.get_last_lr(), warm.last_epoch)
for bad in (lambda: S.LinearLR(o, start_factor=0), lambda: S.ConstantLR(o, factor=2)):
    try:
        bad()
    except ValueError as err:
        print("ValueError", err)

# CosineAnnealingWarmRestarts (also stepped with fractional epochs) and OneCycleLR, whose
# momentum / beta1 cycles too
w = nn.Parameter(torch.ones(2))
o = torch.optim.SGD([w], lr=0.1)
s = S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)
lrs = []
for _ in range(10):
    o.step()
    s.step()
    lrs.append(round(s.get_last_lr()[0], 8))
print(lrs, s.T_i, s.T_cur)
for epoch in (0.5, 4.25, 11.0):
    s.step(epoch)
    print(round(s.get_last_lr()[0], 8), s.T_i, s.T_cur, s.last_epoch)
for kw, make in ((dict(), lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
                 (dict(anneal_strategy="linear", three_phase=True),
                  lambda ps: torch.optim.Adam(ps, lr=0.1)),
                 (dict(cycle_momentum=False, pct_start=0.5),
                  lambda ps: torch.optim.SGD(ps, lr=0.1))):
    w = nn.Parameter(torch.ones(2))
    o = make([w])
    s = S.OneCycleLR(o, max_lr=1.0, total_steps=8, **kw)
    rows = []
    for _ in range(7):
        o.step()
        s.step()
        g = o.param_groups[0]
        rows.append((round(g["lr"], 6), round(g.get("momentum", g.get("betas", (0,))[0]), 6)))
    print(rows)
try:
    s.step()
    s.step()
except ValueError as err:
    print("ValueError", err)



# SequentialLR (each scheduler from its milestone, restarted from epoch 0) and ChainedScheduler
def run(make, n=9, opt=lambda ps: torch.optim.SGD(ps, lr=0.1)):
    w = nn.Parameter(torch.ones(2))
    o = opt([w])
    s = make(o)
    lrs = [s.get_last_lr()[0]]
    for _ in range(n):
        o.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    print(type(s).__name__, [round(v, 8) for v in lrs])
    return s
run(lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=3),
                                 S.CosineAnnealingLR(o, T_max=5)], milestones=[3]))
run(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=2),
                                 S.ExponentialLR(o, gamma=0.9), S.StepLR(o, 2, 0.5)],
                             milestones=[2, 5]))
run(lambda o: S.SequentialLR(o, [S.MultiplicativeLR(o, lambda e: 0.9),
                                 S.PolynomialLR(o, total_iters=4)], milestones=[4]))
s = run(lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2),
                                      S.ExponentialLR(o, gamma=0.9)]))
print(sorted(s.state_dict()), len(s.state_dict()["_schedulers"]))
s = run(lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.5, total_iters=2), S.MultiStepLR(o, [2, 4])], milestones=[2]))
print(s.last_epoch, sorted(s.state_dict())[:3])
w = nn.Parameter(torch.ones(2))
o = torch.optim.SGD([w], lr=0.1)
e = S.ExponentialLR(o, 0.5)
e.step(3)              # an epoch given: the closed form (and a deprecation warning)
print(e.get_last_lr())
for bad in (lambda: S.SequentialLR(o, [S.StepLR(o, 2)], milestones=[1]),
            lambda: S.ChainedScheduler([])):
    try:
        bad()
    except ValueError as err:
        print("ValueError", err)
