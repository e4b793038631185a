# torch.autograd.graph: saved_tensors_hooks (pack when a node saves, unpack when backward reads),
# save_on_cpu, disable_saved_tensors_hooks; and the _saved_* attributes of common nodes.
import torch

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = torch.tensor([4., 5., 6.], requires_grad=True)
events = []


def pack(t):
    events.append(("pack", tuple(t.shape), t is x, t is y, t.grad_fn))
    return t.detach().clone()


def unpack(t):
    events.append(("unpack", tuple(t.shape)))
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    z = x * y
    w = z.exp()
    v = (w * 3).sum()
    q = x.sin() + x.pow(2)
for e in events:
    print(e)
events.clear()
v.backward(retain_graph=True)
q.sum().backward()
for e in events:
    print(e)
print(x.grad, y.grad)
print(z.grad_fn._saved_self, z.grad_fn._saved_other)
print(w.grad_fn._saved_result)

# unpack's value is what backward uses
def double(t):
    return t * 2

x.grad = None
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, double):
    s = (x * x.detach()).sum()
s.backward()
print(x.grad)

# hooks nest: the innermost wins; disable_saved_tensors_hooks refuses new ones
with torch.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: p[1]):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: ("inner", t), lambda p: p[1]):
        a = x.tanh()
    b = x.cos()
print(a.grad_fn._saved_result, b.grad_fn._saved_self)
with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    except RuntimeError as e:
        print("RuntimeError", e)
    c = x.exp()
print(c.grad_fn._saved_result)

# save_on_cpu keeps saved tensors on the CPU; the gradients are unchanged
x.grad = None
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    r = (x.sigmoid() * y).sum()
r.backward()
print(x.grad, r.grad_fn)
