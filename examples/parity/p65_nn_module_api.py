# nn.Module: registration by attribute, traversal, modes, state_dict, hooks and repr.
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2, bias=False)
        self.drop = nn.Dropout(0.25)
        self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Tanh()])
        self.heads = nn.ModuleDict({"a": nn.Identity(), "b": nn.LayerNorm(2)})
        self.register_buffer("steps", torch.zeros(1))
        self.scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(self.fc2(x))
        for b in self.blocks:
            x = b(x)
        return self.heads["b"](x) * self.scale


net = Net()
print(net)
print([n for n, _ in net.named_parameters()])
print([(n, tuple(p.shape)) for n, p in net.named_parameters()][:3])
print([n for n, _ in net.named_modules()])
print([type(c).__name__ for c in net.children()])
print(list(net.state_dict().keys()))
print(sum(p.numel() for p in net.parameters()), len(list(net.buffers())))
print(net.training, net.eval().training, net.drop.training, net.train().heads.b.training)
print(net.load_state_dict(net.state_dict()))
try:
    net.load_state_dict({"fc1.weight": torch.zeros(3, 4)})
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(net.load_state_dict({"fc1.weight": torch.zeros(3, 4)}, strict=False))
print(net.fc1.weight.sum(), type(net.scale).__name__, isinstance(net.scale, torch.Tensor))
print(net.scale)
try:
    net.missing
except AttributeError as e:
    print(type(e).__name__, e)

seq = nn.Sequential(OrderedDict([("lin", nn.Linear(2, 2)), ("act", nn.ReLU())]))
print(seq, seq.lin, seq[1], len(seq), seq[0:1])
shapes = []
handle = seq.register_forward_hook(lambda m, inp, out: shapes.append(tuple(out.shape)))
seq(torch.ones(5, 2))
handle.remove()
seq(torch.ones(5, 2))
print(shapes)
print(nn.Linear(2, 2).requires_grad_(False).weight.requires_grad)
lin = nn.Linear(2, 1)
lin(torch.ones(3, 2)).sum().backward()
print(lin.weight.grad is not None, lin.zero_grad(), lin.weight.grad)
print(lin.double().weight.dtype, lin.float().bias.dtype)
print(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(1, 1)]))
print(nn.Embedding(10, 3, padding_idx=0), nn.Bilinear(2, 3, 4), nn.GELU(approximate="tanh"),
      nn.LeakyReLU(), nn.Softmax(dim=-1), nn.CrossEntropyLoss(), nn.MSELoss(reduction="sum"))
