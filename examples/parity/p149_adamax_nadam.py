# torch.optim.Adamax, NAdam and RAdam as the optim docs list them (weight decay, maximize,
# decoupled weight decay, NAdam's momentum decay), step by step in float64, their
# state_dict entries, reprs and argument errors.
import torch

torch.set_default_dtype(torch.float64)
for make in (lambda p: torch.optim.Adamax(p, lr=0.01, weight_decay=0.1),
             lambda p: torch.optim.Adamax(p, maximize=True),
             lambda p: torch.optim.NAdam(p, lr=0.01),
             lambda p: torch.optim.NAdam(p, lr=0.01, weight_decay=0.05, momentum_decay=0.01),
             lambda p: torch.optim.NAdam(p, lr=0.01, weight_decay=0.05,
                                         decoupled_weight_decay=True),
             lambda p: torch.optim.RAdam(p, lr=0.01),
             lambda p: torch.optim.RAdam(p, lr=0.01, weight_decay=0.05,
                                         decoupled_weight_decay=True)):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = make(model.parameters())
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True).sin()
    losses = []
    for i in range(9):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.12f}")
    print(type(opt).__name__, losses)
    print(model[0].weight[0], sorted(opt.state_dict()["state"][0].keys()))
    print(opt.state_dict()["param_groups"][0])
    st = opt.state[model[0].bias]
    print({k: (v if v.ndim == 0 else v.shape) for k, v in st.items()})
print(torch.optim.Adamax(model.parameters()))
print(torch.optim.NAdam(model.parameters(), lr=0.5))
print(torch.optim.RAdam(model.parameters()))
for call in (lambda: torch.optim.Adamax(model.parameters(), lr=-1),
             lambda: torch.optim.NAdam(model.parameters(), betas=(1.0, 0.9)),
             lambda: torch.optim.NAdam(model.parameters(), momentum_decay=-1),
             lambda: torch.optim.Adamax(model.parameters(), eps=-1)):
    try:
        call()
    except ValueError as e:
        print("ValueError:", e)
