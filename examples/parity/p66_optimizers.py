# torch.optim step by step: SGD (momentum, nesterov, weight decay), Adam, AdamW, RMSprop,
# Adagrad, param groups, zero_grad, state_dict and learning-rate schedulers.
import torch


def run(make, steps=5):
    w = torch.tensor([[0.5, -1.0], [1.5, 0.25]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0.1, -0.2], dtype=torch.float64, requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=torch.float64)
    opt = make([w, b])
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w + b).tanh() - 0.5).pow(2).sum()
        loss.backward()
        opt.step()
    print(type(opt).__name__, f"{loss.item():.10f}", w.detach().numpy().round(8).tolist())
    return opt


run(lambda p: torch.optim.SGD(p, lr=0.1))
run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9))
run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01))
run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5, dampening=0.5, maximize=True))
opt = run(lambda p: torch.optim.Adam(p, lr=0.05))
print(opt.state_dict()["state"][0]["step"], sorted(opt.state_dict()["state"][0]))
run(lambda p: torch.optim.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.1))
run(lambda p: torch.optim.AdamW(p, lr=0.05))
run(lambda p: torch.optim.RMSprop(p, lr=0.01))
run(lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.9, centered=True))
run(lambda p: torch.optim.Adagrad(p, lr=0.1))
opt = run(lambda p: torch.optim.SGD([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.01}],
                                    lr=0.1, momentum=0.9))
print(opt)
print([g["lr"] for g in opt.param_groups], opt.state_dict()["param_groups"][1]["params"])

w = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
lrs = []
for epoch in range(6):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print(lrs)
opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
for epoch in range(3):
    opt.step()
    sched.step()
print(sched.get_last_lr(), opt.param_groups[0]["lr"], opt.param_groups[0]["initial_lr"])
(w * 2).sum().backward()
opt.zero_grad(set_to_none=False)
print(w.grad)
opt.zero_grad()
print(w.grad)
try:
    torch.optim.SGD([], lr=0.1)
except ValueError as e:
    print(type(e).__name__, e)
