"""torch.autograd.graph.register_multi_grad_hook: mode "all" (one call per backward pass,
None for tensors the pass does not reach) and mode "any" (the first gradient), and leaf
hooks on the gradients autograd.grad returns."""
import torch

torch.manual_seed(0)
a = torch.rand(2, 3, requires_grad=True)
b = torch.rand(2, 3, requires_grad=True)
c = a * b
d = a * b
e = c.exp()


def show(grads):
    print("all:", [g is not None for g in grads])


handle = torch.autograd.graph.register_multi_grad_hook((a, b, c, d), show)
c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
(c + d).sum().backward(retain_graph=True)
try:
    torch.autograd.grad(c.sum(), b, retain_graph=True)
except RuntimeError as err:
    print(type(err).__name__, err)
handle.remove()
c.sum().backward(retain_graph=True)
print("removed: no call above")

# intermediate tensors only: autograd.grad may ask which of them it reaches
sums = torch.autograd.graph.register_multi_grad_hook(
    (c, d, e), lambda gs: print("sums:", [None if g is None else round(g.sum().item(), 4)
                                          for g in gs]))
torch.autograd.grad(e.sum(), a, retain_graph=True)
torch.autograd.grad((e + d).sum(), b, retain_graph=True)
sums.remove()

# mode "any": called once per pass, with the first gradient computed
first = torch.autograd.graph.register_multi_grad_hook(
    (a, c, e), lambda g: print("any:", tuple(g.shape), round(g.sum().item(), 4)), mode="any")
e.sum().backward(retain_graph=True)
(c * 3).sum().backward(retain_graph=True)
first.remove()
e.sum().backward(retain_graph=True)

# a leaf's tensor hook runs on the gradient autograd.grad returns for it
a.register_hook(lambda g: g * 10)
print("hooked grad:", torch.autograd.grad(c.sum(), a, retain_graph=True)[0].sum().item())

for bad in (lambda: torch.autograd.graph.register_multi_grad_hook((a,), print, mode="some"),
            lambda: torch.autograd.graph.register_multi_grad_hook((a, torch.ones(2)), print)):
    try:
        bad()
    except (ValueError, AssertionError) as err:
        print(type(err).__name__, err)
