# Hooks as the autograd docs and module-hook recipes use them: tensor hooks that log and
# rescale, retain_grad, module forward / forward-pre / full backward hooks printing
# shapes, removing handles, a hook on an intermediate feature map, post-accumulate hooks.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x * 2
h = y.register_hook(lambda g: print("y grad", g))
z = y.pow(2).sum()
y.retain_grad()
z.backward()
print(x.grad, y.grad)
h.remove()
x.grad = None
y = x * 2
y.register_hook(lambda g: g * 0.5)
y.sum().backward()
print(x.grad)

model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
activations = {}


def save_activation(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()
        print(f"{name}: {type(module).__name__} in {tuple(inputs[0].shape)} "
              f"out {tuple(output.shape)}")
    return hook


handles = [model[0].register_forward_hook(save_activation("fc1")),
           model[2].register_forward_hook(save_activation("fc2"))]
pre = model[0].register_forward_pre_hook(lambda m, inp: print("pre", inp[0].shape))


def bwd_hook(module, grad_input, grad_output):
    print("backward", type(module).__name__, [None if g is None else tuple(g.shape)
                                              for g in grad_input],
          [tuple(g.shape) for g in grad_output])


bh = model[2].register_full_backward_hook(bwd_hook)
inp = torch.randn(5, 4, requires_grad=True)
out = model(inp)
out.sum().backward()
print(sorted(activations), activations["fc2"].shape)
for handle in handles + [pre, bh]:
    handle.remove()
model(inp)
print("no hooks fired")

w = nn.Parameter(torch.ones(2))
w.register_post_accumulate_grad_hook(lambda p: print("accumulated", p.grad))
(w * torch.tensor([3.0, 4.0])).sum().backward()
(w * 2).sum().backward()


class Clipper:
    def __init__(self):
        self.seen = []

    def __call__(self, grad):
        self.seen.append(grad.abs().max().item())
        return grad.clamp(-1, 1)


clip = Clipper()
p = torch.tensor([1.0, -3.0, 0.5], requires_grad=True)
p.register_hook(clip)
((p ** 3).sum()).backward()
print(p.grad, clip.seen)
lin = nn.Linear(2, 2)
print(lin._forward_hooks, len(lin._backward_hooks))
hk = lin.register_forward_hook(lambda m, i, o: o * 0)
print(len(lin._forward_hooks), lin(torch.ones(1, 2)))
hk.remove()
print(len(lin._forward_hooks))
