# nn.init (every initializer, seeded: PyTorch's draws), Module hooks (forward with kwargs,
# pre-hooks replacing inputs, full backward hooks), state_dict/load_state_dict, registration
# and assignment errors, Sequential append/insert/extend/del (renumbered as PyTorch).
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
w = torch.empty(3, 5)
INITS = [
    ("uniform_", lambda: nn.init.uniform_(w, -0.5, 0.5)),
    ("normal_", lambda: nn.init.normal_(w, 0, 0.1)),
    ("zeros_", lambda: nn.init.zeros_(w)),
    ("ones_", lambda: nn.init.ones_(w)),
    ("constant_", lambda: nn.init.constant_(w, 0.3)),
    ("xavier_uniform_", lambda: nn.init.xavier_uniform_(w)),
    ("xavier_normal_", lambda: nn.init.xavier_normal_(w, gain=2.0)),
    ("kaiming_uniform_", lambda: nn.init.kaiming_uniform_(w, a=0.1)),
    ("kaiming_normal_", lambda: nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")),
    ("trunc_normal_", lambda: nn.init.trunc_normal_(w, std=0.02)),
    ("orthogonal_", lambda: nn.init.orthogonal_(w)),
    ("eye_", lambda: nn.init.eye_(w)),
    ("dirac_", lambda: nn.init.dirac_(torch.empty(2, 2, 3))),
    ("sparse_", lambda: nn.init.sparse_(torch.empty(4, 3), 0.5)),
]
for name, f in INITS:
    try:
        r = f()
        print(name, r)
    except Exception as e:
        print(name, type(e).__name__, e)
print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2),
      nn.init.calculate_gain("tanh"), nn.init.calculate_gain("selu"))
p = nn.Parameter(torch.ones(2))
with torch.no_grad():
    nn.init.normal_(p)
print(p, p.requires_grad, p.grad_fn)
torch.manual_seed(0)
lin = nn.Linear(3, 2)
print(lin.weight, lin.bias)
torch.manual_seed(0)
print(nn.Bilinear(2, 2, 1).weight, nn.Embedding(3, 2).weight, nn.LayerNorm(2).weight)

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(3, 4)
        self.l2 = nn.Linear(4, 2)
    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))
m = M()
x = torch.randn(5, 3)
h1 = m.l1.register_forward_hook(lambda mod, i, o: o * 0 + 1)
print(m(x))
h1.remove()
h2 = m.register_forward_pre_hook(lambda mod, i: (i[0] * 2,))
print(m(x))
h2.remove()
h3 = m.l1.register_forward_hook(lambda mod, args, kwargs, out: print("kw hook", kwargs),
                                with_kwargs=True)
m(x); h3.remove()
h4 = m.l2.register_full_backward_pre_hook(lambda mod, go: print("bwd pre", [g.shape for g in go]))
h5 = m.l2.register_full_backward_hook(
    lambda mod, gi, go: print("bwd", [None if g is None else g.shape for g in gi],
                              [g.shape for g in go]))
m(x.requires_grad_()).sum().backward()
h4.remove(); h5.remove()
acts = {}
def save(name):
    def hook(mod, inp, out):
        acts[name] = out.detach()
    return hook
for n, mod in m.named_modules():
    if isinstance(mod, nn.Linear):
        mod.register_forward_hook(save(n))
m(x)
print({k: v.shape for k, v in acts.items()})
print(m.state_dict()["l1.weight"].requires_grad,
      m.state_dict(keep_vars=True)["l1.weight"].requires_grad)
sd = m.state_dict()
print(type(sd).__name__, list(sd))
m2 = M()
missing = m2.load_state_dict({k: v for k, v in sd.items() if k != "l2.bias"}, strict=False)
print(missing, missing.missing_keys, missing.unexpected_keys)
print(m2.l1.weight.equal(m.l1.weight))
m.zero_grad(set_to_none=False)
print(m.l1.weight.grad)
m.zero_grad()
print(m.l1.weight.grad)
print(m.training, m.eval() is m, m.training, m.train(False).training, m.l1.training)
print(list(dict(m.named_parameters(prefix="net")).keys()),
      len(list(m.parameters(recurse=False))))
m.add_module("drop", nn.Dropout(0.5)); print(m)
m.register_module("act", nn.ReLU()); print([n for n, _ in m.named_children()])
del m.drop
print(m)
print(m.l1.weight.device, m.l1.weight.dtype, m.half().l1.weight.dtype,
      m.float().l1.weight.dtype, m.to(dtype=torch.float64).l1.weight.dtype)
print(m.to("cpu") is m, m.cpu() is m)
try:
    m.nonexistent
except AttributeError as e:
    print(e)
try:
    m.l1 = "x"
except TypeError as e:
    print(type(e).__name__, e)
m.l1.weight = nn.Parameter(torch.ones(4, 3))
print(m.l1.weight)
try:
    m.l1.weight = torch.ones(4, 3)
except TypeError as e:
    print(type(e).__name__, e)
print(nn.Linear(3, 2).__class__.__mro__[1].__name__, isinstance(nn.Linear(1, 1), nn.Module))
seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
seq.append(nn.Linear(2, 1)); seq.insert(0, nn.Identity())
print(seq, seq[1:], len(seq))
seq.extend([nn.Tanh()]); print(len(seq)); del seq[0]; print(seq)
for i, layer in enumerate(seq): print(i, layer)
