# nn.init as the docs show it (seeded), calculate_gain, parameter counting, a model's
# weights initialised by apply(), requires_grad_ to freeze, named_parameters prints.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
print([nn.init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu",
                                           "selu")], nn.init.calculate_gain("leaky_relu", 0.2))
w = torch.empty(3, 5)
print(nn.init.uniform_(w, a=-0.1, b=0.1))
print(nn.init.normal_(w, std=0.02))
print(nn.init.constant_(w, 0.3))
print(nn.init.ones_(w).sum(), nn.init.zeros_(w).sum())
print(nn.init.eye_(torch.empty(3, 4)))
print(nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu")))
print(nn.init.xavier_normal_(w))
print(nn.init.kaiming_uniform_(w, mode="fan_in", nonlinearity="relu"))
print(nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
print(nn.init.kaiming_uniform_(w, a=math.sqrt(5)))
print(nn.init.trunc_normal_(w, mean=0.0, std=1.0, a=-0.5, b=0.5))
c = torch.empty(2, 3, 3, 3)
print(nn.init.kaiming_normal_(c)[0, 0])


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)
        print("init", m)


net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Sequential(nn.Linear(2, 3), nn.Tanh()))
net.apply(init_weights)
for name, p in net.named_parameters():
    print(name, tuple(p.shape), p.requires_grad, f"{p.sum().item():.4f}")
print(sum(p.numel() for p in net.parameters()),
      sum(p.numel() for p in net.parameters() if p.requires_grad))
net[0].requires_grad_(False)
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
print([n for n, m in net.named_modules()], [type(m).__name__ for m in net.children()])
try:
    nn.init.xavier_uniform_(torch.empty(3))
except ValueError as e:
    print("ValueError:", e)
try:
    nn.init.calculate_gain("swish")
except ValueError as e:
    print("ValueError:", e)
with torch.no_grad():
    p = nn.Parameter(torch.randn(2, 2))
print(p)
print(nn.Parameter(torch.ones(2), requires_grad=False))
