"""Idioms of PyTorch's "Autograd mechanics" note: requires_grad propagation, freezing a
pretrained part, grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode),
saved tensors (_saved_self / _saved_result), in-place correctness checks, saved-tensor
hooks, tensor and Node hooks, module full backward hooks."""
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(5, 5)
y = torch.randn(5, 5)
z = torch.randn((5, 5), requires_grad=True)
a = x + y
b = x + z
print(a.requires_grad, b.requires_grad, b.grad_fn.name(), b.is_leaf, z.is_leaf)

# freezing: only the new head is trained
model = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 3))
model.requires_grad_(False)
model[2] = nn.Linear(4, 2)
opt = torch.optim.SGD(model[2].parameters(), lr=1e-2, momentum=0.9)
out = model(torch.randn(3, 6)).sum()
out.backward()
print([p.requires_grad for p in model.parameters()], model[0].weight.grad,
      model[2].weight.grad.shape)
opt.step()

# grad modes
w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    p = w * 2
    with torch.enable_grad():
        q = w * 2
print(p.requires_grad, q.requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((w * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((w * 2).requires_grad)
print((w * 2).requires_grad)
with torch.inference_mode():
    r = w * 2
    print(r.requires_grad, torch.is_inference_mode_enabled(), r.is_inference())
print(r.is_inference(), torch.is_inference_mode_enabled())
try:
    (r * w).sum().backward()
except RuntimeError as err:
    print("RuntimeError", str(err)[:60])


@torch.no_grad()
def evaluate(t):
    return t * 3


print(evaluate(w).requires_grad)

# saved tensors
s = torch.randn(5, requires_grad=True)
sq = s.pow(2)
print(s.equal(sq.grad_fn._saved_self), s is sq.grad_fn._saved_self)
e = s.exp()
print(e.equal(e.grad_fn._saved_result), e is e.grad_fn._saved_result)

# in-place correctness checks
sig = torch.randn(3, requires_grad=True).sigmoid()
sig.mul_(2)
try:
    sig.sum().backward()
except RuntimeError as err:
    print("RuntimeError", str(err).split(". Hint")[0])
leaf = torch.randn(3, requires_grad=True)
try:
    leaf.add_(1)
except RuntimeError as err:
    print("RuntimeError", err)
with torch.no_grad():
    leaf.add_(1)
print(leaf.is_leaf, leaf.requires_grad, leaf._version)

# saved-tensor hooks: pack / unpack
log = []


def pack(t):
    log.append(("pack", tuple(t.shape)))
    return t * 1


def unpack(t):
    log.append(("unpack", tuple(t.shape)))
    return t


u = torch.randn(4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    v = u.pow(2).sum()
v.backward()
print(log, torch.allclose(u.grad, 2 * u))

# tensor hooks, retain_grad, Node hooks
h = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
m = h * 2
m.retain_grad()
m.register_hook(lambda g: g * 10)
m.grad_fn.register_prehook(lambda gs: print("prehook", gs[0].tolist()))
m.grad_fn.register_hook(lambda gi, go: print("hook", [None if t is None else t.tolist() for t in gi],
                                                 go[0].tolist()))
(m * m).sum().backward()
print(m.grad.tolist(), h.grad.tolist())

# module full backward hooks
lin = nn.Linear(3, 2)
calls = []
lin.register_full_backward_hook(lambda mod, gin, gout: calls.append(
    (type(mod).__name__, [None if g is None else tuple(g.shape) for g in gin],
     [tuple(g.shape) for g in gout])))
lin.register_full_backward_pre_hook(lambda mod, gout: calls.append(("pre", len(gout))))
lin(torch.randn(4, 3, requires_grad=True)).sum().backward()
print(calls)

# a hook that scales grad_input; an input that needs no gradient; two inputs
seen = []
lin2 = nn.Linear(3, 2)
hd = lin2.register_full_backward_hook(lambda mod, gin, gout: tuple(g * 0 for g in gin))
xin = torch.ones(2, 3, requires_grad=True)
y2 = lin2(xin)
print(y2.grad_fn.name())
y2.sum().backward()
print(xin.grad.abs().sum().item(), lin2.weight.grad.abs().sum().item() > 0)
hd.remove()
lin2.register_full_backward_hook(lambda mod, gin, gout: seen.append(gin))
lin2(torch.ones(2, 3)).sum().backward()
print(seen)
bil = nn.Bilinear(2, 3, 1)
bil.register_full_backward_hook(lambda mod, gin, gout: seen.append(
    [None if g is None else tuple(g.shape) for g in gin]))
bil(torch.ones(4, 2, requires_grad=True), torch.ones(4, 3)).sum().backward()
print(seen[-1])
