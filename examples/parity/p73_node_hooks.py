# Node.register_hook / register_prehook on grad_fn objects, their order with tensor hooks and
# retain_grad, handles, and Tensor.register_post_accumulate_grad_hook.
import torch

x = torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)
w = torch.tensor([0.5, -1., 2.], dtype=torch.float64, requires_grad=True)
y = x * w
z = y.exp()
out = z.sum()
log = []


def show(t):
    return None if t is None else [round(v, 4) for v in t.tolist()]


def post(grad_inputs, grad_outputs):
    log.append(("post", y.grad_fn.name(), [show(g) for g in grad_inputs],
                [show(g) for g in grad_outputs]))


def pre(grad_outputs):
    log.append(("pre", [show(g) for g in grad_outputs]))


h1 = y.grad_fn.register_hook(post)
h2 = y.grad_fn.register_prehook(pre)
y.register_hook(lambda g: log.append(("tensor hook", show(g))))
y.retain_grad()
out.backward(retain_graph=True)
for entry in log:
    print(entry)
print(x.grad, w.grad, y.grad)

# a prehook's return value replaces grad_outputs; a post hook's replaces grad_inputs
log.clear()
h1.remove()
h2.remove()
x.grad = w.grad = None
y.grad_fn.register_prehook(lambda gos: (gos[0] * 10,))
z.grad_fn.register_hook(lambda gis, gos: (gis[0] + 1,))
out.backward(retain_graph=True)
print(x.grad, w.grad, log)

# hooks on AccumulateGrad nodes (reached through next_functions)
acc = y.grad_fn.next_functions[0][0]
print(acc.name(), acc.variable is x)
acc.register_prehook(lambda gos: print("acc pre", gos))
acc.register_hook(lambda gis, gos: print("acc post", gis, gos))
x.grad = None
(x * 2).sum().backward()
print(x.grad)

# post-accumulate-grad hooks see the tensor after .grad is updated
p = torch.tensor([1., 2.], requires_grad=True)
seen = []
h = p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
(p * p).sum().backward()
(p * 3).sum().backward()
print(seen, p.grad)
h.remove()
(p * 3).sum().backward()
print(len(seen), p.grad)
try:
    (p * 2).register_post_accumulate_grad_hook(lambda t: None)
except RuntimeError as e:
    print("RuntimeError", e)


# an optimizer step in the hook, as in PyTorch's tutorial
q = torch.tensor([1., -1.], requires_grad=True)
def step(t):
    with torch.no_grad():
        t -= 0.1 * t.grad
    t.grad = None
q.register_post_accumulate_grad_hook(step)
(q ** 2).sum().backward()
print(q, q.grad)
